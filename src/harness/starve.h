/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * starve.h - a CPU that could not be measured is a failure, said as it
 * happens. The run's status thread (harness/status.h, never a measuring
 * thread) looks at the threads of the run and of its child processes
 * every STARVE_TICK_NS: a measuring thread (pinned to one CPU) that has
 * been runnable without running for max(1 s, 100 of the test's
 * intervals) is starved. Then,
 * once per CPU, one line on stderr names it and the tasks that hold its
 * CPU (tasks.h: PID, name, policy, priority, share of the CPU), the CPU
 * is marked (struct results' starved: its series are errors, the run's
 * exit status is 1), the run is stopped (a stop signal to itself, as a
 * user's ^C), and the starved thread is moved off its CPU (or dropped to
 * SCHED_OTHER) so that it can see the stop and end: a thread that cannot
 * run cannot exit, and the process could not be reaped.
 */
#ifndef RTLAT_STARVE_H
#define RTLAT_STARVE_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#define STARVE_TICK_NS	(250 * 1000 * 1000LL)
#define STARVE_MIN_NS	(1000 * 1000 * 1000LL)
#define STARVE_INTERVALS 100
#define STARVE_MAX	256	/* threads watched; more are not */
#define STARVE_DEPTH	2	/* child processes: children, grandchildren */
/* How long the holders of a starved CPU are sampled for their share. */
#define STARVE_SAMPLE_NS (100 * 1000 * 1000LL)

struct test_run;

struct starve_thr {
	pid_t tid;
	uint64_t exec_ns;	/* its CPU time when last seen running */
	int64_t since_ns;	/* since when it has not run while runnable */
	bool moved;
};

struct starve {
	struct test_run *t;
	pid_t self;		/* the status thread's own: not watched */
	int64_t limit_ns, next_ns;
	bool stopped;		/* the stop was asked */
	struct starve_thr thr[STARVE_MAX];
	int n;
};

/* Before the run's threads start: the limit from the test's interval
 * (its option keyed period_us or interval_us), nothing starved yet. */
void starve_begin(struct starve *s, struct test_run *t, int64_t now);
/* On the status thread: look when due; returns the next time to look. */
int64_t starve_tick(struct starve *s, int64_t now);

#endif
