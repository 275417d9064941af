/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * response_types.h - rtlat response: a block of work calibrated to about
 * --block ms, run again and again at SCHED_FIFO on one CPU; how much its
 * execution time varies. The works are in response_work.c.
 */
#ifndef RTLAT_RESPONSE_TYPES_H
#define RTLAT_RESPONSE_TYPES_H

#include <stdint.h>
#include "measure/fft.h"

enum work_kind { WORK_ADD, WORK_COPY, WORK_WHETSTONE, WORK_FFT };

/* One run's work and what it needs (the run's state). */
struct work {
	enum work_kind kind;
	char *copy_src, *copy_dst;	/* copy */
	uint64_t copy_bytes, copy_off;
	struct fft_walk walk;		/* fft */
	double *fft_re, *fft_im;
	uint64_t fft_points;
	uint64_t llc_bytes;		/* the last-level cache, 0: unknown */
};

/* fft: a unit is this many butterflies of the walk (fft.h). */
#define WORK_FFT_UNIT		1024
/* --fft-points: powers of two in this range. */
#define WORK_FFT_MIN_POINTS	1024ULL
#define WORK_FFT_MAX_POINTS	(1ULL << 26)
/* Data (re, im) and the walk's twiddles (cos, sin, n - 1 each): 32 bytes
 * a point. */
#define WORK_FFT_BYTES_PER_POINT (4 * sizeof(double))

#endif
