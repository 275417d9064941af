/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * suite.h - rtlat suite's table, for the man page, the completion and the
 * option fuzzer (fuzz/fuzz_opts.c).
 */
#ifndef RTLAT_SUITE_H
#define RTLAT_SUITE_H

#include <stddef.h>
#include "core/opts.h"

extern const char suite_title[];
/* The size of rtlat suite's run, which its table's rows store into. */
extern const size_t suite_config_size;
/*
 * The table, with --only's names from the registry, in one malloc'd
 * block (free it; NULL: no memory): its rows bound to cfg
 * (suite_config_size zeroed bytes), or with cfg NULL left as offsets, to
 * be read (the man page, the completion) or bound (opts_bind) while the
 * block lives.
 */
struct opt *suite_options(void *cfg);

#endif
