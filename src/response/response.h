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
	struct fft_plan plan;		/* fft */
	double *fft_re, *fft_im;
};

/* Allocate what the work needs (copy: a source larger than the LLC). */
int work_init(struct work *w, enum work_kind k);
void work_fini(struct work *w);
/* Run units units of the work. */
void work_run(struct work *w, uint64_t units);

/*
 * Calibration math: units_probe units took ns_probe ns; how many units
 * take about target_ns (at least 1, rounded to nearest). Pure.
 */
uint64_t work_units_for(uint64_t units_probe, int64_t ns_probe, int64_t target_ns);
/* Measure and scale; returns the units for about target_ns and stores
 * the probe's ns per unit. */
uint64_t work_calibrate(struct work *w, int64_t target_ns, double *ns_per_unit);

#endif
