// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * suite_status.c - SIGUSR1 to rtlat suite (suite_status.h).
 */
#include <signal.h>
#include <stdio.h>
#include "measure/clock.h"
#include "harness/test.h"
#include "suite/suite_status.h"

static bool in_suite(const struct suite_status *st, int i)
{
	return i < SUITE_STATUS_MAX && (st->runs & (1ULL << i));
}

/* The tests done (with their exit status when not 0) or to come, a line
 * on f. */
static void status_list(FILE *f, const struct suite_status *st, int running,
			bool done)
{
	int i, rc, n = 0;

	fprintf(f, "rtlat suite: %s:", done ? "done" : "to come");
	for (i = 0; i < SUITE_STATUS_MAX && st->tests[i]; i++) {
		rc = __atomic_load_n(&st->done_rc[i], __ATOMIC_SEQ_CST);
		if (!in_suite(st, i) || (done ? rc < 0 : rc >= 0 || i == running))
			continue;
		fprintf(f, "%s %s", n++ ? "," : "", st->tests[i]->name);
		if (done && rc)
			fprintf(f, " (exit status %d)", rc);
	}
	fprintf(f, "%s\n", n ? "" : " none");
}

/* The status thread's tick (harness/status.h). */
static int64_t suite_status(void *arg, int64_t now, bool usr1)
{
	struct suite_status *st = arg;
	int running = __atomic_load_n(&st->running, __ATOMIC_SEQ_CST);
	pid_t pid = __atomic_load_n(&st->child, __ATOMIC_SEQ_CST);
	int64_t since = __atomic_load_n(&st->test_start_ns, __ATOMIC_SEQ_CST);
	struct status_block b;
	FILE *f;

	if (!usr1)
		return now + STATUS_NO_WAKE_NS;
	/* Written only when stderr takes it at once (status_emit). */
	f = status_open(&b);
	if (f) {
		fprintf(f, "rtlat suite: status after %.1f s of about %.0f s planned\n",
			(double)(now - st->start_ns) / 1e9, st->planned_s);
		status_list(f, st, running, true);
		if (running >= 0)
			fprintf(f, "rtlat suite: running: %s for %.1f s\n",
				st->tests[running]->name, (double)(now - since) / 1e9);
		else
			fprintf(f, "rtlat suite: running: none\n");
		status_list(f, st, running, false);
		status_emit(&b, &st->watch.dropped, "rtlat suite");
	}
	if (pid > 0)
		kill(pid, SIGUSR1);
	return now + STATUS_NO_WAKE_NS;
}

void suite_status_begin(struct suite_status *st,
			const struct test_ops *const *tests,
			unsigned long long runs, double planned_s)
{
	int i;

	st->tests = tests;
	st->runs = runs;
	st->planned_s = planned_s;
	st->running = -1;
	st->child = 0;
	for (i = 0; i < SUITE_STATUS_MAX; i++)
		st->done_rc[i] = -1;
	st->start_ns = clock_now_ns();
	/* Without the thread (one line said why not), SIGUSR1 stays
	 * blocked: the suite goes on, silent. */
	st->watching = !status_watch_start(&st->watch, suite_status, st,
					   st->start_ns + STATUS_NO_WAKE_NS);
	if (!st->watching)
		fprintf(stderr, "rtlat suite: cannot start the status thread; SIGUSR1 prints nothing\n");
}

void suite_status_running(struct suite_status *st, int i)
{
	__atomic_store_n(&st->test_start_ns, clock_now_ns(), __ATOMIC_SEQ_CST);
	__atomic_store_n(&st->running, i, __ATOMIC_SEQ_CST);
}

void suite_status_child(struct suite_status *st, pid_t pid)
{
	__atomic_store_n(&st->child, pid > 0 ? pid : 0, __ATOMIC_SEQ_CST);
}

void suite_status_done(struct suite_status *st, int i, int rc)
{
	if (i < SUITE_STATUS_MAX)
		__atomic_store_n(&st->done_rc[i], rc, __ATOMIC_SEQ_CST);
	__atomic_store_n(&st->running, -1, __ATOMIC_SEQ_CST);
}

void suite_status_end(struct suite_status *st)
{
	if (st->watching)
		status_watch_stop(&st->watch);
	st->watching = false;
}
