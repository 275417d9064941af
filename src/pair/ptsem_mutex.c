// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * ptsem_mutex.c - ptsem --type mutex (the default): what ptsematest
 * measures, the wake-up of a thread blocked in pthread_mutex_lock() when
 * the owner unlocks, but legally: ptsematest unlocks a mutex from a thread
 * that does not own it, which POSIX leaves undefined. Here three mutexes
 * are passed round like a baton. At rest the sender holds x and y, the
 * receiver holds z and waits for x. Sending is unlocking x (the receiver
 * wakes owning it); the sender then waits for z, which the receiver
 * unlocks to send back, and the roles of (x, y, z) rotate by one. Every
 * unlock is by the owner. The batons live in the pair's shared memory, so
 * forked workers pass them too (rtlat sync -f).
 */
#include <errno.h>
#include <pthread.h>
#include "pair/ptsem.h"

#define BATONS 3

struct baton_priv {
	pthread_mutex_t baton[BATONS];
	bool held[2][BATONS];		/* per role: batons it owns */
	unsigned int turn[2];		/* per role: cycles it went through */
};

/*
 * Threads: default attributes, as ptsematest (the fast private futex
 * path). Forked workers (rtlat sync -f): process-shared, and robust, so
 * that a worker that dies holding a baton wakes its partner (EOWNERDEAD)
 * rather than leaving it blocked.
 */
static int baton_open(struct pair *p)
{
	struct baton_priv *s = p->priv;
	pthread_mutexattr_t a;
	int i, err;

	err = pthread_mutexattr_init(&a);
	if (!err && pair_is_fork(p))
		err = pthread_mutexattr_setpshared(&a, PTHREAD_PROCESS_SHARED);
	if (!err && pair_is_fork(p))
		err = pthread_mutexattr_setrobust(&a, PTHREAD_MUTEX_ROBUST);
	for (i = 0; i < BATONS && !err; i++)
		err = pthread_mutex_init(&s->baton[i], &a);
	while (err && i-- > 1)
		pthread_mutex_destroy(&s->baton[i - 1]);
	pthread_mutexattr_destroy(&a);
	return -err;
}

/* 0, or -EOWNERDEAD: the partner died holding it (the baton is ours). */
static int baton_lock(struct baton_priv *s, enum pair_role r, unsigned int i)
{
	int err = pthread_mutex_lock(&s->baton[i % BATONS]);

	if (err == EOWNERDEAD)
		pthread_mutex_consistent(&s->baton[i % BATONS]);
	s->held[r][i % BATONS] = true;
	return -err;
}

static void baton_unlock(struct baton_priv *s, enum pair_role r, unsigned int i)
{
	s->held[r][i % BATONS] = false;
	pthread_mutex_unlock(&s->baton[i % BATONS]);
}

/* Before the start barrier: the sender takes x and y, the receiver z. */
static int baton_attach(struct pair *p, enum pair_role r)
{
	struct baton_priv *s = p->priv;

	s->turn[r] = 0;
	if (r == ROLE_SENDER) {
		baton_lock(s, r, 0);
		baton_lock(s, r, 1);
	} else {
		baton_lock(s, r, 2);
	}
	return 0;
}

/* Sender on DIR_FWD unlocks x; receiver on DIR_BACK unlocks z. */
static int baton_send(struct pair *p, enum pair_dir dir)
{
	struct baton_priv *s = p->priv;
	enum pair_role r = dir == DIR_FWD ? ROLE_SENDER : ROLE_RECEIVER;
	unsigned int t = s->turn[r];

	if (dir == DIR_FWD) {
		baton_unlock(s, r, t);
	} else {
		baton_unlock(s, r, t + 2);
		s->turn[r] = t + 1;
	}
	return 0;
}

/*
 * Receiver on DIR_FWD locks x; sender on DIR_BACK locks z. A plain lock,
 * as ptsematest: at the end the partner's detach() unlocks what it holds,
 * so a waiter always wakes; it then sees the stop flag and reports no
 * sample.
 */
static int baton_receive(struct pair *p, enum pair_dir dir)
{
	struct baton_priv *s = p->priv;
	enum pair_role r = dir == DIR_FWD ? ROLE_RECEIVER : ROLE_SENDER;
	unsigned int t = s->turn[r];
	int err = baton_lock(s, r, dir == DIR_FWD ? t : t + 2);

	if (dir == DIR_BACK)
		s->turn[r] = t + 1;
	return ptsem_stopping(p) ? -EINTR : err;
}

static void baton_detach(struct pair *p, enum pair_role r)
{
	struct baton_priv *s = p->priv;
	int i;

	for (i = 0; i < BATONS; i++)
		if (s->held[r][i])
			baton_unlock(s, r, (unsigned int)i);
}

static void baton_close(struct pair *p)
{
	struct baton_priv *s = p->priv;
	int i;

	for (i = 0; i < BATONS; i++)
		pthread_mutex_destroy(&s->baton[i]);
}

const struct transport_ops ptsem_mutex = {
	.priv_size = sizeof(struct baton_priv),
	.open = baton_open,
	.attach = baton_attach,
	.detach = baton_detach,
	.send = baton_send,
	.receive = baton_receive,
	.close = baton_close,
};
