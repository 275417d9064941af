/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * response_work.h - the works and their calibration (response_work.c).
 */
#ifndef RTLAT_RESPONSE_WORK_H
#define RTLAT_RESPONSE_WORK_H

#include <stdint.h>
#include "response/response_types.h"

extern const char *const work_names[];

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
