/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * timer_sample.h - the sampling thread and the per-second grouping of
 * samples it shares with the timerlat reader (timer_sample.c).
 */
#ifndef RTLAT_TIMER_SAMPLE_H
#define RTLAT_TIMER_SAMPLE_H

#include <stdbool.h>
#include <stdint.h>
#include "timer/timer_types.h"

/* timer_sample.c: periods missed by a wake-up lat ns late (ticks from
 * the method or 0). */
uint64_t timer_missed(uint64_t ticks, int64_t lat, int64_t period);

/* timer_sample.c: per-second grouping of samples, shared by the sampling
 * thread and the timerlat reader. */
struct timer_feed {
	struct timer_cpu *c;
	struct timer_second cur;
	bool count_msw;		/* the feeding thread is the one measured */
	uint64_t msw_base;	/* switches at the end of the warm-up */
	uint64_t msw;		/* switches since, at the last second */
	bool watch;		/* check once a second it is still pinned */
};

void feed_init(struct timer_feed *sp, struct timer_cpu *c, bool count_msw);
/* One wake-up expected at exp (c->start_ns based), lat ns late. Returns
 * false when the run is over (-T seconds measured). */
bool feed_sample(struct timer_feed *sp, int64_t exp, int64_t lat, uint64_t missed);
/* The run ends: hand over the second in progress. */
void feed_end(struct timer_feed *sp);
void *timer_sampler(void *arg);

#endif
