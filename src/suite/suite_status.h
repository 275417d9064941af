/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * suite_status.h - SIGUSR1 to rtlat suite (harness/status.h): the tests
 * done (with their exit status when not 0), the one running and for how
 * long, those to come, on stderr; then SIGUSR1 goes to the running test,
 * whose own status follows. The main thread says what runs; the status
 * thread reads it, every field with an atomic load.
 */
#ifndef RTLAT_SUITE_STATUS_H
#define RTLAT_SUITE_STATUS_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include "harness/status.h"

#define SUITE_STATUS_MAX 64

struct test_ops;

struct suite_status {
	struct status_watch watch;
	const struct test_ops *const *tests;	/* the registry's, read only */
	bool watching;			/* the thread runs */
	double planned_s;
	int64_t start_ns, test_start_ns;
	unsigned long long runs;	/* bit i: tests[i] is in the suite */
	int running;			/* tests[running] runs; -1: none */
	pid_t child;			/* its process, until it is reaped */
	int done_rc[SUITE_STATUS_MAX];	/* each test's status; -1: not done */
};

/* Before the first test (SIGUSR1 already blocked: status_signal_block):
 * the status thread, for the tests in runs (bits of the registry's
 * tests[]), planned_s seconds in all. */
void suite_status_begin(struct suite_status *st,
			const struct test_ops *const *tests,
			unsigned long long runs, double planned_s);
/* tests[i] starts (its process: suite_status_child), or ends with rc. */
void suite_status_running(struct suite_status *st, int i);
void suite_status_child(struct suite_status *st, pid_t pid);
void suite_status_done(struct suite_status *st, int i, int rc);
/* After the last test: the thread stopped. */
void suite_status_end(struct suite_status *st);

#endif
