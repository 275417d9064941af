/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * timer_summary.h - what timer_summary.c offers: a CPU's seconds folded
 * for RTS, the JSON and -g.
 */
#ifndef RTLAT_TIMER_SUMMARY_H
#define RTLAT_TIMER_SUMMARY_H

#include <stdint.h>
#include "timer/timer_types.h"

int summary_init(struct timer_summary *t, uint64_t bucket, uint32_t cells);
/* Fold another CPU's summary into t (same histogram layout). */
void summary_merge(struct timer_summary *t, const struct timer_summary *o);
void summary_free(struct timer_summary *t);
/* Fold one second; updates the min/max histograms. */
void summary_add(struct timer_summary *t, const struct timer_second *s);
double summary_avg(const struct timer_summary *t);

#endif
