/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * cyclic.h - the cyclictest face of the timer (cyclic.c, its options;
 * cyclic_output.c, cyclictest's text and JSON).
 */
#ifndef RTLAT_CYCLIC_H
#define RTLAT_CYCLIC_H

#include <stdbool.h>
#include <stdio.h>
#include "timer/timer_types.h"

/* The rt-tests release whose cyclictest this face follows: its JSON's
 * "rt_test_version:" (rtlat's own version is in "rtlat": {"version"}). */
#define CYC_RT_TESTS_VERSION	"2.40"
#define CYC_MAX_HIST_US	1000000	/* -h: 1 us rows, 8 MB a thread at most */

enum { CYC_POLICY_FIFO, CYC_POLICY_RR, CYC_POLICY_OTHER, CYC_POLICY_NORMAL,
       CYC_POLICY_BATCH, CYC_POLICY_IDLE };

struct cyc_config {
	struct timer_config t;		/* the samplers' (-D, -q, --json... in it) */
	struct cpu_list affinity;	/* -a: n OPT_AUTO without CPUSET */
	struct cpu_list mainaffinity;	/* --mainaffinity */
	long long threads;		/* -t: OPT_AUTO without NUM; 0 not given */
	long long prio, policy, interval_us, distance_us, loops;
	long long clock, latency;	/* -c, --latency: 0 only */
	long long hist_us, histofall_us, breaktrace_us;
	long long spike_us, spike_nodes;
	const char *histfile;
	bool smp, mlock, nanosleep, nsecs, relative, posix_timers;
	bool laptop, default_system, priospread, tracemark, unbuffered;
	/* Every other option of cyclictest 2.40 (cyclic_extra.c). */
	long long aligned_us;		/* -A: 0 off */
	long long secaligned_us;	/* --secaligned [USEC]: OPT_AUTO 0 */
	long long oscope;		/* -o RED */
	const char *fifo;		/* -F PATH */
	long long deepest_idle;		/* --deepest-idle-state: -1 off */
	/* The idle states it disabled (the run's, restored at its end). */
	struct cyc_idle { int cpu, state; bool was; } *idle;
	int nidle;
	bool secaligned, refresh_on_max, resolution, sys, verbose, dbg;
	bool smi;			/* --smi */
};

/* cyclic_extra.c: the options beyond the samplers' own. */
/* .check's part: -F's pipe made, -R's check, the warnings. */
int cyc_extra_check(struct test_run *t, struct cyc_config *c);
/* Before the samplers start: -A/--secaligned's common start. */
void cyc_extra_start(struct timer_run *run);
/* The display thread's each poll: -v's samples printed. */
void cyc_extra_poll(struct timer_run *run);
/* At the end: -v's samples left, -F's pipe removed. */
void cyc_extra_end(struct timer_run *run);
/* -M: redraw only on a new maximum; true when it is time to draw. */
bool cyc_extra_redraw(struct timer_run *run);

/* cyclic_output.c */
void cyc_banner(struct timer_run *run);
/* The display thread's hook: the T: lines, redrawn on a terminal. */
void cyc_draw(struct timer_run *run, bool final);
int cyc_report(struct test_run *t, int status);
/* --checkpoint (harness/checkpoint.h). */
void cyc_checkpoint(struct test_run *t);
/* The display thread's on SIGUSR1/SIGUSR2 (timer_face.status). */
void cyc_status(struct timer_run *run, int bits);

#endif
