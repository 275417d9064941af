/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * response.h - rtlat response: a block of work calibrated to about
 * --block ms, run again and again at SCHED_FIFO on one CPU; how much its
 * execution time varies. The works are in response_work.c.
 */
#ifndef RTLAT_RESPONSE_H
#define RTLAT_RESPONSE_H

#include <stdint.h>
#include "core/fft.h"

enum work_kind { WORK_ADD, WORK_COPY, WORK_WHETSTONE, WORK_FFT };

extern const char *const work_names[];

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

/* Allocate what the work needs (copy: a source larger than the LLC; fft:
 * fft_points points, 0: the default). */
int work_init(struct work *w, enum work_kind k, uint64_t fft_points);
void work_fini(struct work *w);
/* Run units units of the work. */
void work_run(struct work *w, uint64_t units);

/* The last-level cache of CPU 0 in bytes (sysfs), 0: unknown. */
uint64_t work_llc_bytes(void);
/* The fft default: the smallest power of two whose working set exceeds
 * llc (WORK_FFT_MIN_POINTS .. WORK_FFT_MAX_POINTS). Pure. */
uint64_t work_fft_default_points(uint64_t llc);

/*
 * Calibration math: units_probe units took ns_probe ns; how many units
 * take about target_ns (at least 1, rounded to nearest). Pure.
 */
uint64_t work_units_for(uint64_t units_probe, int64_t ns_probe, int64_t target_ns);
/* Measure and scale; returns the units for about target_ns and stores
 * the probe's ns per unit. */
uint64_t work_calibrate(struct work *w, int64_t target_ns, double *ns_per_unit);

#endif
