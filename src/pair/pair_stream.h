/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * pair_stream.h - stream mode (pmq --throughput), one run per size
 * (pair_stream.c).
 */
#ifndef RTLAT_PAIR_STREAM_H
#define RTLAT_PAIR_STREAM_H

#include "harness/test.h"
#include "pair/pair_types.h"

int pair_stream_measure(struct pair_run *run);
int pair_stream_report(struct test_run *t, struct pair_run *run, int status);

#endif
