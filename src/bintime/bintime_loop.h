/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * bintime_loop.h - the measuring loop and its fold (bintime_loop.c).
 */
#ifndef RTLAT_BINTIME_LOOP_H
#define RTLAT_BINTIME_LOOP_H

#include <stdint.h>
#include "measure/stats.h"
#include "bintime/bintime_types.h"

/* The measuring loop (bintime_loop.c). */
void bt_loop(struct bench_thread *bt);
/* Fold fast counters (counter i: a gap of i * scale ns) and slow stats
 * into all, whose histogram is set up. Pure: unit-tested. */
void bt_fold(struct stats *all, const uint64_t *fast, int nfast, double scale,
	     const struct stats *slow);

#endif
