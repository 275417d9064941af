// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * sync_inversion.c - test 3, priority inversion on one CPU. Each round
 * of a fixed timetable: at T the low task takes the lock and computes
 * for --cs us of CPU time; at T + cs/4 the high task needs the lock; at
 * T + cs/2 the medium task burns the CPU for --hog ms (wall clock, so it
 * always ends). Without a protocol the medium task keeps the low one,
 * and so the high one, off the CPU for the hog; with inherit or protect
 * the low task runs at the high priority until it unlocks. The high
 * task's blocking is from T + cs/4 until it holds the lock.
 */
#include <errno.h>
#include <pthread.h>
#include <time.h>
#include "determinism/bench.h"
#include "measure/clock.h"
#include "sync/sync_types.h"
#include "sync/sync_inversion.h"

#define INV_BUCKET_NS	1000
#define INV_BUCKETS	200000		/* 200 ms, then overflow */
#define INV_START_NS	(20 * NSEC_PER_MSEC)

/* One test 3: the timetable, the lock and the result the tasks share
 * (each task's bench_thread.arg). */
struct inv_ctx {
	pthread_mutex_t lock;
	int64_t base, period, cs_ns, hog_ns;
	/* The last round the low task took the lock in: under protect the
	 * high task may only run once it is released again. The high task
	 * reads it before it asks for the lock (to skip a round the low one
	 * did not take it in), so not under the lock: atomic. */
	long long taken;
	struct inv_result *res;
	uint64_t rounds;
	int64_t end_ns;
};

static int64_t at(const struct inv_ctx *x, uint64_t k, int64_t off)
{
	return x->base + (int64_t)k * x->period + off;
}

static bool round_starts(const struct inv_ctx *x, uint64_t k, int64_t off)
{
	if (k >= x->rounds || (x->end_ns && at(x, k, 0) >= x->end_ns))
		return false;
	return bench_sleep_until(at(x, k, off));
}

static int64_t cpu_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return timespec_to_ns(&ts);
}

static void low_task(struct bench_thread *bt)
{
	struct inv_ctx *x = bt->arg;
	uint64_t k;
	int64_t c0;

	for (k = 0; round_starts(x, k, 0); k++) {
		pthread_mutex_lock(&x->lock);
		__atomic_store_n(&x->taken, (long long)k, __ATOMIC_RELEASE);
		c0 = cpu_now();
		/* CPU time, not wall time: preempted, it still owes the rest. */
		while (!bench_stopping() && cpu_now() - c0 < x->cs_ns)
			;
		pthread_mutex_unlock(&x->lock);
	}
}

static void medium_task(struct bench_thread *bt)
{
	const struct inv_ctx *x = bt->arg;
	uint64_t k;

	for (k = 0; round_starts(x, k, x->cs_ns / 2); k++)
		bench_spin_until(at(x, k, x->cs_ns / 2) + x->hog_ns);
}

static void high_task(struct bench_thread *bt)
{
	struct inv_ctx *x = bt->arg;
	struct inv_result *res = x->res;
	int64_t t1, need;
	uint64_t k;

	for (k = 0; round_starts(x, k, x->cs_ns / 4); k++) {
		if (__atomic_load_n(&x->taken, __ATOMIC_ACQUIRE) != (long long)k) {
			res->skipped++;
			continue;
		}
		need = at(x, k, x->cs_ns / 4);
		pthread_mutex_lock(&x->lock);
		t1 = clock_now_ns();
		pthread_mutex_unlock(&x->lock);
		stats_add(&res->s, t1 - need);
		record_add(res->rec, t1, t1 - need);
		if (t1 - need <= res->bound_ns)
			res->bounded++;
	}
}

static int inv_lock_init(pthread_mutex_t *lock, const struct sync_config *c)
{
	static const int proto[] = { PTHREAD_PRIO_NONE, PTHREAD_PRIO_INHERIT, PTHREAD_PRIO_PROTECT };
	pthread_mutexattr_t a;
	int err;

	pthread_mutexattr_init(&a);
	err = pthread_mutexattr_setprotocol(&a, proto[c->protocol]);
#if SYNC_HAVE_PRIOCEILING
	if (!err && c->protocol == PROTO_PROTECT)
		err = pthread_mutexattr_setprioceiling(&a, (int)c->prio);
#endif
	if (!err)
		err = pthread_mutex_init(lock, &a);
	pthread_mutexattr_destroy(&a);
	return err;
}

int sync_inversion(const struct sync_config *c, struct inv_result *r, int64_t end, const char **err)
{
	struct inv_ctx x = {
		.taken = -1, .res = r, .rounds = (uint64_t)c->rounds, .end_ns = end,
		.cs_ns = c->cs_us * NSEC_PER_USEC, .hog_ns = c->hog_ms * NSEC_PER_MSEC,
	};
	struct bench_thread bt[3] = {
		{ .prio = (int)c->prio - 2, .fn = low_task, .arg = &x },
		{ .prio = (int)c->prio - 1, .fn = medium_task, .arg = &x },
		{ .prio = (int)c->prio, .fn = high_task, .arg = &x },
	};
	int i, status = 0;

	x.period = 2 * (x.cs_ns + x.hog_ns) + NSEC_PER_MSEC;
	r->bound_ns = x.cs_ns + c->margin_us * NSEC_PER_USEC;
	if (stats_init(&r->s, 0, INV_BUCKET_NS, INV_BUCKETS) || inv_lock_init(&x.lock, c)) {
		*err = "test 3: cannot create the mutex";
		return 1;
	}
	r->ran = true;
	for (i = 0; i < 3; i++)
		bt[i].cpu = (int)c->cpu;
	x.base = clock_now_ns() + INV_START_NS;
	if (bench_start(bt, 3)) {
		*err = "test 3: cannot start the tasks";
		status = 1;
	}
	if (bench_wait(bt, 3, 0) && !status) {
		*err = "test 3: a task could not apply its priority (--strict)";
		status = 1;
	}
	pthread_mutex_destroy(&x.lock);
	return status;
}
