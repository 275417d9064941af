/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * registry.h - every test rtlat has (registry.c), and the lists written
 * from it: rtlat --list (JSON), --list-plain. Only the top (main.c,
 * manpage.c) reads it; the suite is handed its tests (suite.h).
 */
#ifndef RTLAT_REGISTRY_H
#define RTLAT_REGISTRY_H

#include <stdio.h>
#include "harness/test.h"
#include "suite/suite.h"

/* NULL-terminated, in the order --help lists them and rtlat suite runs
 * them. */
extern const struct test_ops *const tests[];
/* What rtlat suite reads of it (suite_main). */
extern const struct suite_registry registry;
const struct test_ops *test_find(const char *name);
/* The registry as JSON (rtlat --list, the suite's registry.json). */
void tests_list_json(FILE *f);
/* The registry as plain lines for shell scripts (rtlat --list-plain). */
void tests_list_plain(FILE *f);

#endif
