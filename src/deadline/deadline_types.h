/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * deadline_types.h - "rtlat deadline" (and the cyclicdeadline face): the
 * timer's samplers (timer/) as SCHED_DEADLINE threads. Each thread is
 * admitted with a runtime, a deadline and a period (sched_setattr); a job
 * is its work between a wake-up and its sched_yield(), which ends the
 * job: the kernel wakes it at its next period's start, and the sampler
 * measures that wake-up against the start expected (start + k * period),
 * as rt-tests' cyclicdeadline. The folder's model: types only.
 */
#ifndef RTLAT_DEADLINE_TYPES_H
#define RTLAT_DEADLINE_TYPES_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include "timer/timer_types.h"

/* One SCHED_DEADLINE thread's parameters and what its jobs did. */
struct dl_thread {
	int64_t runtime_ns, deadline_ns, period_ns;
	int64_t work_ns;		/* -w: busy time a job, 0 none */
	/* Written by the sampling thread (overruns by its SIGXCPU handler,
	 * on that thread); read by main and the display at the end. */
	uint64_t jobs;			/* jobs ended (sched_yield) */
	uint64_t misses;		/* jobs ended after their deadline */
	atomic_uint_fast64_t overruns;	/* runtime exhausted: SIGXCPU */
	bool started;			/* a job is running */
	int err;			/* sched_setattr's errno, 0 admitted */
	bool pinned;			/* its affinity one CPU (-c) */
};

/* The run: the timer's first (the timer's code takes t->state as it). */
struct dl_run {
	struct timer_run t;
	struct dl_thread th[TIMER_MAX_CPUS];
	/* The cyclicdeadline face's display thread: its thread lines said,
	 * its T: lines drawn on the terminal. */
	bool announced, drawn;
};

/* The sampler's thread and the run it belongs to, from its wait. */
static inline struct dl_thread *dl_thread_of(struct timer_wait *w)
{
	struct timer_cpu *c = (struct timer_cpu *)((char *)w -
						   __builtin_offsetof(struct timer_cpu, wait));
	struct dl_run *run = (struct dl_run *)c->run;

	return &run->th[c - run->t.cpu];
}

#endif
