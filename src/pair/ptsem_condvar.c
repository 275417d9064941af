// SPDX-License-Identifier: GPL-2.0-or-later
/* ptsem_condvar.c - ptsem --type condvar: a mutex (priority inheritance)
 * and a condition variable per direction. */
#include <errno.h>
#include <pthread.h>
#include "measure/clock.h"
#include "pair/ptsem.h"

/* How often a blocked waiter looks at the stop flag. */
#define POLL_NS (100 * NSEC_PER_MSEC)

struct condvar_priv {
	pthread_mutex_t lock;
	pthread_cond_t cond[2];
	int flag[2];
};

static int condvar_open(struct pair *p)
{
	struct condvar_priv *s = p->priv;
	pthread_mutexattr_t ma;
	pthread_condattr_t ca;
	int d, err;

	pthread_mutexattr_init(&ma);
	pthread_mutexattr_setprotocol(&ma, PTHREAD_PRIO_INHERIT);
	err = pthread_mutex_init(&s->lock, &ma);
	pthread_mutexattr_destroy(&ma);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	for (d = 0; d < 2 && !err; d++)
		err = pthread_cond_init(&s->cond[d], &ca);
	pthread_condattr_destroy(&ca);
	return -err;
}

static int condvar_send(struct pair *p, enum pair_dir dir)
{
	struct condvar_priv *s = p->priv;

	pthread_mutex_lock(&s->lock);
	s->flag[dir] = 1;
	pthread_cond_signal(&s->cond[dir]);
	pthread_mutex_unlock(&s->lock);
	return 0;
}

static int condvar_receive(struct pair *p, enum pair_dir dir)
{
	struct condvar_priv *s = p->priv;
	struct timespec ts;
	int ret = 0;

	pthread_mutex_lock(&s->lock);
	while (!s->flag[dir]) {
		if (ptsem_stopping(p)) {
			ret = -EINTR;
			goto out;
		}
		ts = ns_to_timespec(clock_now_ns() + POLL_NS);
		pthread_cond_timedwait(&s->cond[dir], &s->lock, &ts);
	}
	s->flag[dir] = 0;
out:
	pthread_mutex_unlock(&s->lock);
	return ret;
}

static void condvar_close(struct pair *p)
{
	struct condvar_priv *s = p->priv;

	pthread_cond_destroy(&s->cond[0]);
	pthread_cond_destroy(&s->cond[1]);
	pthread_mutex_destroy(&s->lock);
}

const struct transport_ops ptsem_condvar = {
	.priv_size = sizeof(struct condvar_priv),
	.open = condvar_open,
	.send = condvar_send,
	.receive = condvar_receive,
	.close = condvar_close,
};
