/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * action.h - --on-threshold ACTION[,...]: what a run does when a sample
 * exceeds its series' --max-latency, while it measures (as rtla's
 * --on-threshold). Every test has it (TEST_COMMON_OPTS).
 *
 * The measuring thread only notes the largest sample over the threshold
 * not yet taken (record_add: one compare, two stores, in the series'
 * record). The run's action thread (rtlat-action, SCHED_OTHER, every
 * signal blocked; started only when --on-threshold is given) takes the
 * notes every ACTION_POLL_MS and acts, at most once per CPU per second:
 *   exec=CMD	 /bin/sh -c CMD, spawned, never waited for, with the
 *		 figures in its environment (RTLAT_TEST, RTLAT_SERIES,
 *		 RTLAT_THREAD, RTLAT_CPU, RTLAT_LATENCY_NS,
 *		 RTLAT_THRESHOLD_NS, RTLAT_TIME_S, RTLAT_RUN_DIR, RTLAT_PID);
 *		 its output goes to rtlat's stderr. The rest of the text is
 *		 the command (commas included): exec= comes last.
 *   signal=SIG[,pid=PID|parent]  kill(PID, SIG); default: rtlat's parent.
 *   trace	 the kernel's trace buffer (tracefs "trace") saved as text
 *		 to RUN_DIR/rtlat-trace-PID-N.txt.
 *   stop	 the run ends as on SIGTERM (its results, exit 3).
 *   continue	 nothing more (the default).
 * A command that fails is said in one line; one still running after
 * ACTION_HANG_S is said once; at the end each gets ACTION_END_GRACE_MS,
 * then its process group is killed and reaped: nothing is left behind.
 */
#ifndef RTLAT_ACTION_H
#define RTLAT_ACTION_H

#include <stdbool.h>
#include <sys/types.h>

#define ACTION_POLL_MS		50
#define ACTION_HANG_S		10
#define ACTION_END_GRACE_MS	1000
#define ACTION_MAX_CHILDREN	32

#define ACTION_OPT_ENTRY(where)							\
	{ .long_name = "on-threshold", .type = OPT_STRING, .arg = OPT_ARG_REQUIRED, \
	  .argname = "ACTION[,...]", .dest = where,			\
	  .help = "when a sample exceeds --max-latency, at most once per CPU per second, off the measuring threads: exec=CMD (sh -c CMD, not waited for; RTLAT_TEST, RTLAT_SERIES, RTLAT_THREAD, RTLAT_CPU, RTLAT_LATENCY_NS, RTLAT_THRESHOLD_NS, RTLAT_TIME_S, RTLAT_RUN_DIR and RTLAT_PID in its environment; the rest of the text is the command, so it comes last), signal=SIG[,pid=PID|parent] (default: rtlat's parent), trace (save the kernel's trace buffer as text to the --json file's directory), stop (end the run, exit 3) or continue (the default)", \
	  .key = "on_threshold" }

/* --on-threshold read. */
struct action_spec {
	char *buf;		/* the option's copy, cut into words */
	const char *exec;	/* the command (in buf), or NULL */
	int sig;		/* 0: none */
	pid_t pid;		/* signal's target; 0: rtlat's parent */
	bool trace, stop, cont;
};

struct test_run;
struct action;

/* Read t's --on-threshold into spec (zeroed when not given): 0, or -1
 * after the one line (bad input, exit 2). Needs --max-latency and a
 * record (--largest or --timeline on). */
int action_check(struct test_run *t, struct action_spec *spec);
void action_spec_free(struct action_spec *spec);
/* The measurement starts: the action thread, for spec's actions (NULL
 * when none given, or it could not start: said). */
struct action *action_start(struct test_run *t, const struct action_spec *spec);
/* The measurement is over: the last notes taken, the thread joined, the
 * commands given their grace, then killed and reaped; a is freed. */
void action_stop(struct action *a);

#endif
