/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * suite.h - rtlat suite: its entry (main.c), and its table for the man
 * page, the completion and the option fuzzer (fuzz/fuzz_opts.c). The
 * suite is below the registry (registry.h), which hands it its tests.
 */
#ifndef RTLAT_SUITE_H
#define RTLAT_SUITE_H

#include <stddef.h>
#include <stdio.h>
#include "util/opts.h"

struct test_ops;

/* What the suite reads of the registry, handed down by main.c. */
struct suite_registry {
	const struct test_ops *const *tests;	/* NULL-terminated, in order */
	void (*list_json)(FILE *f);		/* its registry.json */
};

extern const char suite_title[];
/* rtlat suite ARGS: its exit status. */
int suite_main(const struct suite_registry *reg, int argc, char **argv);
/* The size of rtlat suite's run, which its table's rows store into. */
extern const size_t suite_config_size;
/*
 * The table, with --only's names from tests (the registry's), in one malloc'd
 * block (free it; NULL: no memory): its rows bound to cfg
 * (suite_config_size zeroed bytes), or with cfg NULL left as offsets, to
 * be read (the man page, the completion) or bound (opts_bind) while the
 * block lives.
 */
struct opt *suite_options(void *cfg, const struct test_ops *const *tests);

/* rtlat qualify (qualify.c): the doctor, hwlat, the timer idle and under
 * load, one results directory; its table as suite_options' (no tests). */
extern const char qualify_title[];
int qualify_main(const struct suite_registry *reg, int argc, char **argv);
struct opt *qualify_options(void *cfg);

#endif
