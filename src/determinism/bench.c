// SPDX-License-Identifier: GPL-2.0-or-later
/* bench.c - threads, waits and JSON shared by bintime, response, sync. */
#include <errno.h>
#include <signal.h>
#include <stdatomic.h>
#include <unistd.h>
#include "determinism/bench.h"
#include "measure/clock.h"
#include "util/json.h"
#include "harness/results.h"
#include "system/rtsetup.h"
#include "harness/test.h"

/* The run's stop flag (bench.h): the stop handler, main and the
 * measuring threads write it, all read it. */
atomic_int bench_stop;

static void *bench_main(void *arg)
{
	struct bench_thread *bt = arg;
	sigset_t set;

	/* Stop signals go to the main thread, which ends the run. */
	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGHUP);
	pthread_sigmask(SIG_BLOCK, &set, NULL);
	if (rt_thread_setup(bt->prio, bt->cpu))
		bt->err = EPERM;
	else
		bt->fn(bt);
	if (bt->err)
		bench_set_stop(1);
	atomic_store_explicit(&bt->done, 1, memory_order_release);
	return NULL;
}

int bench_start(struct bench_thread *bt, int n)
{
	int i, err;

	/* A new phase (sync runs three); a stop signal already seen sets
	 * the flag again in run_stop_flag. */
	bench_set_stop(0);
	run_stop_flag(&bench_stop);
	for (i = 0; i < n; i++) {
		err = run_thread(&bt[i].th, bench_main, &bt[i]);
		if (err)
			return err;
		bt[i].created = true;
	}
	return 0;
}

static bool all_done(const struct bench_thread *bt, int n)
{
	int i;

	for (i = 0; i < n; i++)
		if (bt[i].created && !atomic_load_explicit(&bt[i].done, memory_order_acquire))
			return false;
	return true;
}

int bench_wait(struct bench_thread *bt, int n, int64_t end_ns)
{
	int i, err = 0;

	while (!bench_stopping() && !all_done(bt, n)) {
		if (end_ns && clock_now_ns() >= end_ns)
			break;
		usleep(5000);
	}
	bench_set_stop(1);
	for (i = 0; i < n; i++) {
		if (!bt[i].created)
			continue;
		pthread_join(bt[i].th, NULL);
		bt[i].created = false;
		if (bt[i].err && !err)
			err = bt[i].err;
	}
	return err;
}

void bench_spin_until(int64_t end_ns)
{
	while (!bench_stopping() && clock_now_ns() < end_ns)
		;
}

bool bench_sleep_until(int64_t t_ns)
{
	while (!bench_stopping() && clock_sleep_until(t_ns) == EINTR)
		;
	return !bench_stopping();
}

int bench_json(struct results *res, int status, const char *error,
	       void (*body)(struct json *j, void *arg), void *arg)
{
	struct json *j = results_open(res, status);

	if (!j)
		return res->path ? 1 : status;
	body(j, arg);
	if (error)
		json_str(j, "error", error);
	if (results_close(res, j))
		return 1;
	return status;
}
