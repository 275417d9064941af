/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * bintime_types.h - rtlat bintime: one SCHED_FIFO thread per CPU reads
 * CLOCK_MONOTONIC (or the TSC: --clock tsc) in a tight loop; the gaps
 * between reads are the loop itself or the time the kernel kept the
 * thread from running.
 */
#ifndef RTLAT_BINTIME_TYPES_H
#define RTLAT_BINTIME_TYPES_H

#include <stdint.h>
#include "determinism/bench.h"
#include "measure/record.h"
#include "measure/stats.h"
#include "measure/tsc.h"

struct explain_src;

/* Gaps below this many ns (TSC: cycles) are the loop's own: one counter
 * per ns (cycle) each, small enough to stay in L1 so the loop costs a
 * few ns. */
#define BT_FAST		512
#define BT_BUCKET_NS	10
#define BT_BUCKETS	200000		/* 2 ms, then overflow */

struct bt_cpu {
	int cpu;
	uint64_t fast[BT_FAST];		/* gaps < BT_FAST, by ns or cycle */
	struct stats slow;		/* gaps >= BT_FAST, in ns */
	struct stats all;		/* both, folded after the run */
	uint64_t loops;			/* 0: until the end */
	int64_t end_ns;			/* set at the start barrier */
	int64_t thresh_ns;		/* --threshold */
	uint64_t over_n;
	int64_t over_total;
	int64_t t_first, t_last;	/* the first and last read, ns */
	bool use_tsc;			/* --clock tsc */
	struct tsc_cal tsc;		/* its calibration */
	int64_t ns0, tsc0;		/* tsc: the same moment on both clocks */
	struct explain_src *xsrc;	/* --explain, or NULL */
	/* --timeline, --largest (or NULL): slow gaps are recorded as they
	 * come; fast[] is handed over in bulk at each step's end (bt_tick)
	 * and at the end, fast_rec[] what was handed over so far. */
	struct rec_series *rec;
	uint64_t fast_rec[BT_FAST];
};

#endif
