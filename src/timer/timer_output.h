/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * timer_output.h - the timer's text outputs and files (timer_output.c).
 */
#ifndef RTLAT_TIMER_OUTPUT_H
#define RTLAT_TIMER_OUTPUT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include "measure/histogram.h"
#include "timer/timer_types.h"

extern const char *const timer_mode_names[];
void timer_banner(FILE *f, const struct timer_run *run);
void timer_print_second(FILE *f, const struct timer_cpu *c,
			const struct timer_second *s, uint64_t nth);
/* The CPU whose worst second is the worst (several CPUs). */
int timer_worst_cpu(const struct timer_run *run);
void timer_print_hist(FILE *f, const struct timer_run *run);
/* -f's end line on stderr: where the largest maximum's trace is. */
void timer_freeze_report(const struct timer_run *run);
/* The jitter line of rtlat timer's summary (not under latency's name). */
void timer_print_jitter(FILE *f, const struct timer_run *run);
void timer_print_rts(FILE *f, const struct timer_run *run,
		     long long actual_s, long long requested_s);
/* HSS figures of a Xenomai histogram, in bucket units. */
void xeno_hist_stats(const struct histogram *h, uint64_t *count,
		     double *avg, double *stddev);
/* Cell n's count with the overflow folded into the last cell. */
uint64_t xeno_cell(const struct histogram *h, uint32_t n);
int timer_write_gnuplot(const struct timer_run *run, long long actual_s);
int timer_write_histfile(const struct timer_run *run);
/* cyclictest's -h layout of n samplers, a column each (and with all a
 * column of them all, as its -H). */
void timer_histfile(FILE *f, const struct timer_cpu *const *c, int n, bool all);
void hms(char *buf, size_t len, long long s);

#endif
