/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * deadline.h - what rtlat deadline (deadline.c) and the cyclicdeadline
 * face (cyclicdeadline.c) share: their config, the run's setup and its
 * outputs (deadline_output.c).
 */
#ifndef RTLAT_DEADLINE_H
#define RTLAT_DEADLINE_H

#include <stdio.h>
#include "util/opts.h"
#include "deadline/deadline_types.h"

struct dl_config {
	struct timer_config t;		/* -p, -D, -q, -c, --json... in it */
	long long runtime_us, deadline_us, threads, work_us;
	/* The cyclicdeadline face's: -i, -s, -a [CPUSET], -b. */
	long long interval_us, step_us, breaktrace_us;
	struct cpu_list affinity;	/* n OPT_AUTO: -a without CPUSET */
	bool tracemark;
};

/* deadline.c: the timer's settings and hooks for deadline threads. */
void dl_timer_settings(struct dl_run *run, struct dl_config *c);

/* deadline_output.c */
void dl_thread_init(struct dl_thread *th, long long runtime_us,
		    long long deadline_us, long long period_us, long long work_us);
/* .setup: SIGXCPU counted, then the timer's. */
int dl_setup(struct test_run *t);
/* Sampler i's (every one's: -1) "deadline" object; c->run the live run. */
void dl_json(struct json *j, const struct timer_cpu *c, int i);
/* "deadline: thread N: J jobs, M deadline misses, O runtime overruns". */
void dl_print_counts(FILE *f, const struct dl_run *run);
/* Each refusal of the admission control once on stderr; true if any. */
bool dl_say_refusals(const struct dl_run *run);

/* .report of both faces, text() printing the face's own lines, json()
 * writing --json (NULL: the timer's JSON, rtlat deadline's). */
int dl_report_with(struct test_run *t, int status,
		   void (*text)(struct dl_run *run, long long actual_s, long long requested_s),
		   int (*json)(struct test_run *t, struct dl_run *run, int status));
/* cyclicdeadline.c's text (deadline_output.c): the threads' lines once
 * their ids are known, the T: lines redrawn on a terminal. */
void cd_draw(struct timer_run *run, bool final);
/* The last T: lines, at the end. */
void cd_final(struct timer_run *run);
/* --json in rt-tests cyclicdeadline 2.40's layout: 0, or -1 if it could
 * not be written. */
int cd_json(struct test_run *t, struct dl_run *run, int status);

#endif
