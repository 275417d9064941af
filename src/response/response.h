/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * response.h - rtlat response: a block of work calibrated to about
 * --block ms, run again and again at SCHED_FIFO on one CPU; how much its
 * execution time varies. The works are in response_work.c.
 */
#ifndef RTLAT_RESPONSE_H
#define RTLAT_RESPONSE_H

#include <stdint.h>

enum work_kind { WORK_ADD, WORK_COPY, WORK_WHETSTONE, WORK_FFT };

extern const char *const work_names[];

/* Allocate what the work needs (copy: a source larger than the LLC). */
int work_init(enum work_kind k);
void work_fini(void);
/* Run units units of the work. */
void work_run(enum work_kind k, uint64_t units);
/* Bytes of the copy source (0 unless copy). */
uint64_t work_copy_bytes(void);

/*
 * Calibration math: units_probe units took ns_probe ns; how many units
 * take about target_ns (at least 1, rounded to nearest). Pure.
 */
uint64_t work_units_for(uint64_t units_probe, int64_t ns_probe, int64_t target_ns);
/* Measure and scale; returns the units for about target_ns and stores
 * the probe's ns per unit. */
uint64_t work_calibrate(enum work_kind k, int64_t target_ns, double *ns_per_unit);

#endif
