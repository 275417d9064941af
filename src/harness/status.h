/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * status.h - SIGUSR1, the status so far, for every test and rtlat suite:
 * one mechanism. SIGUSR1 is blocked from a run's first step in every
 * thread (status_signal_block: the threads and children it makes inherit
 * it, and so does a program it executes), so it never ends a run, and a
 * non-measuring thread of the run's (the status watch: SCHED_OTHER, every
 * signal blocked) takes it with sigtimedwait and prints the status on
 * stderr; the measuring threads are never interrupted and pay nothing.
 * The same thread does the run's periodic work (--checkpoint, the live
 * --openmetrics: checkpoint.c), so a run has one such thread.
 *
 * A test prints, per series and thread, its samples, min, avg, p99 and
 * max so far and the time covered (status_print; from a snapshot taken as
 * a checkpoint takes it: checkpoint_stats_copy). The cyclictest face
 * prints cyclictest's own status block instead, where cyclictest prints
 * it (its display thread, run_status_take). rtlat suite prints which
 * tests are done, running and to come, and forwards SIGUSR1 to the
 * running test, whose own status follows.
 */
#ifndef RTLAT_STATUS_H
#define RTLAT_STATUS_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

struct fleet;

/*
 * The watch: on each SIGUSR1 (usr1 true), or when the time tick returned
 * last has come (usr1 false), the thread calls tick(arg, now, usr1),
 * which returns the next time to be called without a signal
 * (CLOCK_MONOTONIC ns; STATUS_NO_WAKE_NS from now when there is nothing
 * periodic to do).
 */
typedef int64_t (*status_tick_fn)(void *arg, int64_t now, bool usr1);

struct status_watch {
	pthread_t thread;
	status_tick_fn tick;
	void *arg;
	int64_t wake;			/* the first call without a signal */
	bool stop;
	/* Status blocks not written (status_emit), said once stderr
	 * takes them again. */
	unsigned long dropped;
};

#define STATUS_THREAD_NAME	"rtlat-status"
#define STATUS_NO_WAKE_NS	(3600LL * 1000000000LL)

/* Block SIGUSR1 in the calling thread (before any thread is made). */
void status_signal_block(void);
/* A SIGUSR1 pending for this process (blocked) is sent on to pid, the
 * child that runs the measurement (an --iterations child). */
void status_forward(pid_t pid);
/* Start the watch's thread: 0 or an errno. */
int status_watch_start(struct status_watch *w, status_tick_fn tick, void *arg,
		       int64_t first_wake);
/* Stop and join it (after a successful start). */
void status_watch_stop(struct status_watch *w);

/* The status lines of the records in fl ("PROG: status after S s:
 * SERIES tN (CPU c): N samples, min .. avg .. p99 .. max .. us"), or one
 * line saying none was measured yet, on f. */
void status_print(FILE *f, const char *prog, const struct fleet *fl,
		  double covered_s);

/*
 * A status block goes to stderr whole, only when that cannot block: a
 * pipe nobody reads would stop the status thread, and with it the
 * checkpoints and the run's end. status_open gives a stream in memory to
 * print the block into (NULL: no memory, nothing to print); status_emit
 * writes it to stderr if stderr takes it at once (a pipe or FIFO keeps a
 * quarter of its room free for the run's own lines, and is written
 * without blocking, line by line), else counts it in
 * *dropped (the watch's, or the thread's that prints it); the first block written after some were dropped is preceded
 * by a line saying how many.
 */
struct status_block {
	FILE *f;
	char *text;
	size_t len;
};
FILE *status_open(struct status_block *b);
void status_emit(struct status_block *b, unsigned long *dropped, const char *prog);

/* The man page's SIGNALS section (roff) of a test's page, or the suite's. */
void status_man(FILE *f, bool suite);

#endif
