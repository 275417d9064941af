/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * bench.h - what the determinism benchmarks (bintime, response, sync)
 * share: measuring threads started at a priority on a CPU, waited for
 * until they finish, the duration ends or a stop signal comes; busy
 * loops bounded by time; the JSON file around a test's own body.
 */
#ifndef RTLAT_BENCH_H
#define RTLAT_BENCH_H

#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

struct json;
struct results;

struct bench_thread {
	pthread_t th;
	bool created;
	atomic_int done;	/* the thread writes, the main thread reads */
	int prio;		/* SCHED_FIFO; 0: SCHED_OTHER */
	int cpu;		/* -1: any */
	int err;		/* errno of a failure in the thread */
	void (*fn)(struct bench_thread *bt);
	void *arg;
};

/* The run's stop flag: a stop signal, the duration, an error. Set by a
 * signal handler, the main thread or a measuring one and polled by all:
 * read and written through these, atomic (no data race for TSan, and a
 * plain load on the measuring path). */
extern atomic_int bench_stop;

static inline bool bench_stopping(void)
{
	return atomic_load_explicit(&bench_stop, memory_order_relaxed);
}

static inline void bench_set_stop(int v)
{
	atomic_store_explicit(&bench_stop, v, memory_order_relaxed);
}

/* Start n threads: each blocks the stop signals, applies its prio and
 * CPU, then runs fn. Returns 0 or an errno (the started ones run on). */
int bench_start(struct bench_thread *bt, int n);
/* Wait until all are done, end_ns (0: none) passes or bench_stop; then
 * set bench_stop and join. Returns the first thread error (errno), 0. */
int bench_wait(struct bench_thread *bt, int n, int64_t end_ns);
/* Spin until CLOCK_MONOTONIC reaches end_ns or bench_stop. */
void bench_spin_until(int64_t end_ns);
/* Sleep until an absolute time; false if stopping. */
bool bench_sleep_until(int64_t t_ns);
/*
 * Write the JSON file (if --json was given): header, "settings" and the
 * test's body by body(j, arg), "error" if any, trailer. Returns status,
 * or 1 if the file was asked for and could not be written.
 */
int bench_json(struct results *res, int status, const char *error,
	       void (*body)(struct json *j, void *arg), void *arg);

#endif
