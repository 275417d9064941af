/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * suite.h - rtlat suite's table, for the man page, the completion and the
 * option fuzzer (fuzz/fuzz_opts.c).
 */
#ifndef RTLAT_SUITE_H
#define RTLAT_SUITE_H

#include "core/opts.h"

extern const char suite_title[];
/* The table, with --only's names from the registry. */
struct opt *suite_options(void);

#endif
