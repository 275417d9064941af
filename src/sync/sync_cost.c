// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * sync_cost.c - test 1: one thread posts then waits on the same
 * semaphore (the pair transport's send then receive in one direction,
 * which never blocks), or locks then unlocks a mutex: the cost of the
 * calls with no context switch.
 */
#include <errno.h>
#include <pthread.h>
#include <string.h>
#include "determinism/bench.h"
#include "measure/clock.h"
#include "pair/pair_types.h"
#include "pair/pair_run.h"
#include "sync/sync_types.h"
#include "sync/sync_cost.h"

#define COST_BUCKET_NS	10
#define COST_BUCKETS	100000		/* 1 ms, then overflow */

/* What the measuring thread reads (bench_thread.arg). */
struct cost_ctx {
	const struct sync_config *c;
	struct pair_run *run;		/* test 1 uses the pair's transport */
	struct sync_result *res;
	int64_t end_ns;
};

/* -f: the kind of mutex test 2 passes between processes. */
static void cost_mutex(struct bench_thread *bt)
{
	pthread_mutex_t m;
	pthread_mutexattr_t a;
	const struct cost_ctx *x = bt->arg;
	uint64_t i, loops = (uint64_t)x->c->loops;
	int64_t t0, t1;

	pthread_mutexattr_init(&a);
	if (x->c->fork) {
		pthread_mutexattr_setpshared(&a, PTHREAD_PROCESS_SHARED);
		pthread_mutexattr_setrobust(&a, PTHREAD_MUTEX_ROBUST);
	}
	bt->err = pthread_mutex_init(&m, &a);
	pthread_mutexattr_destroy(&a);
	if (bt->err)
		return;

	for (i = 0; !loops || i < loops; i++) {
		if (bench_stopping() || (x->end_ns && clock_now_ns() >= x->end_ns))
			break;
		t0 = clock_now_ns();
		pthread_mutex_lock(&m);
		pthread_mutex_unlock(&m);
		t1 = clock_now_ns();
		stats_add(&x->res->s, t1 - t0);
		record_add(x->res->rec, t1, t1 - t0);
	}
	pthread_mutex_destroy(&m);
}

static void cost_sem(struct bench_thread *bt)
{
	const struct cost_ctx *x = bt->arg;
	struct pair_run *run = x->run;
	struct pair *p = &run->pairs[0];
	uint64_t i, loops = (uint64_t)x->c->loops;
	int64_t t0, t1;
	int err;

	for (i = 0; !loops || i < loops; i++) {
		if (bench_stopping() || (x->end_ns && clock_now_ns() >= x->end_ns))
			break;
		t0 = clock_now_ns();
		err = run->ops->send(p, DIR_FWD);
		if (!err)
			err = run->ops->receive(p, DIR_FWD);
		if (err) {
			bt->err = -err;
			break;
		}
		t1 = clock_now_ns();
		stats_add(&x->res->s, t1 - t0);
		record_add(x->res->rec, t1, t1 - t0);
	}
}

static int cost_open(const struct sync_config *c, struct pair_run *run)
{
	if (c->type == TYPE_MUTEX)
		return 0;
	if (run->ops->open(&run->pairs[0]))
		return -1;
	run->nopen = 1;
	return 0;
}

int sync_cost(const struct sync_config *c, struct test_run *pt, struct sync_result *r,
	      int64_t end, const char **err)
{
	struct cost_ctx x = { .c = c, .run = pt->state, .res = r, .end_ns = end };
	struct bench_thread bt = {
		.prio = (int)c->prio, .cpu = (int)c->cpu,
		.fn = c->type == TYPE_MUTEX ? cost_mutex : cost_sem, .arg = &x,
	};
	int status = 0;

	if (stats_init(&r->s, 0, COST_BUCKET_NS, COST_BUCKETS) || cost_open(c, x.run)) {
		*err = "test 1: cannot create the semaphore";
		return 1;
	}
	r->ran = true;
	if (bench_start(&bt, 1)) {
		*err = "test 1: cannot start the measuring thread";
		status = 1;
	}
	if (bench_wait(&bt, 1, end) && !status) {
		*err = bt.err == EPERM ? "test 1: the thread could not apply its settings (--strict)" :
		       "test 1: the semaphore call failed";
		status = 1;
	}
	if (c->type != TYPE_MUTEX)
		pair_transport_close(x.run);
	return status;
}
