// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * transport_ptsem.c - pthread mutex or POSIX semaphore hand-off
 * (ptsematest). --type mutex hands off with a mutex and a condition
 * variable: the waker locks, sets a flag, signals and unlocks, so every
 * unlock is by the owner. (ptsematest unlocks a mutex from a thread that
 * does not own it, which POSIX leaves undefined.) --type sem uses an
 * unnamed process-shared sem_t, --type named-sem a sem_open() semaphore.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <semaphore.h>
#include <string.h>
#include "clock.h"
#include "cleanup.h"
#include "opts.h"
#include "pair.h"
#include "subcommands.h"

enum ptsem_type { PT_MUTEX, PT_SEM, PT_NAMED };

struct ptsem_priv {
	pthread_mutex_t lock;
	pthread_cond_t cond[2];
	int flag[2];
	sem_t sem[2];
	sem_t *named[2];
};

/* How often a blocked condvar waiter looks at the stop flag. */
#define PTSEM_POLL_NS (100 * NSEC_PER_MSEC)

static long long type;
static const char *const type_names[] = { "mutex", "sem", "named-sem", NULL };

static struct opt ptsem_opts[] = {
	{ 0, "type", OPT_CHOICE, OPT_ARG_REQUIRED, "TYPE", 0, 0, 0, &type,
	  "hand-off: mutex (mutex+condvar, default), sem, named-sem", type_names, false },
	OPT_END
};

static int open_mutex(struct ptsem_priv *s)
{
	pthread_mutexattr_t ma;
	pthread_condattr_t ca;
	int d, err;

	pthread_mutexattr_init(&ma);
	pthread_mutexattr_setpshared(&ma, PTHREAD_PROCESS_SHARED);
	pthread_mutexattr_setprotocol(&ma, PTHREAD_PRIO_INHERIT);
	err = pthread_mutex_init(&s->lock, &ma);
	pthread_mutexattr_destroy(&ma);
	pthread_condattr_init(&ca);
	pthread_condattr_setpshared(&ca, PTHREAD_PROCESS_SHARED);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	for (d = 0; d < 2 && !err; d++)
		err = pthread_cond_init(&s->cond[d], &ca);
	pthread_condattr_destroy(&ca);
	return -err;
}

static int open_named(struct pair *p, struct ptsem_priv *s)
{
	char name[64];
	int d;

	for (d = 0; d < 2; d++) {
		cleanup_unique_name(name, sizeof(name), d ? "sem-back" : "sem", p->index);
		cleanup_add_sem_named(name);
		s->named[d] = sem_open(name, O_CREAT | O_EXCL, 0600, 0);
		if (s->named[d] == SEM_FAILED) {
			int err = errno;

			s->named[d] = NULL;
			cleanup_del_sem_named(name);
			/* The harness closes only pairs that opened fully. */
			if (d)
				sem_close(s->named[0]);
			s->named[0] = NULL;
			return -err;
		}
		/* The mapping stays usable; nothing is left in /dev/shm. */
		sem_unlink(name);
		cleanup_del_sem_named(name);
	}
	return 0;
}

static int ptsem_open(struct pair *p)
{
	struct ptsem_priv *s = p->priv;

	if (type == PT_MUTEX)
		return open_mutex(s);
	if (type == PT_NAMED)
		return open_named(p, s);
	if (sem_init(&s->sem[0], 1, 0) || sem_init(&s->sem[1], 1, 0))
		return -errno;
	return 0;
}

static int mutex_send(struct ptsem_priv *s, enum pair_dir dir)
{
	pthread_mutex_lock(&s->lock);
	s->flag[dir] = 1;
	pthread_cond_signal(&s->cond[dir]);
	pthread_mutex_unlock(&s->lock);
	return 0;
}

static int mutex_receive(struct pair *p, struct ptsem_priv *s, enum pair_dir dir)
{
	struct timespec ts;
	int ret = 0;

	pthread_mutex_lock(&s->lock);
	while (!s->flag[dir]) {
		if (p->run->shared->stop) {
			ret = -EINTR;
			goto out;
		}
		ts = ns_to_timespec(clock_now_ns() + PTSEM_POLL_NS);
		pthread_cond_timedwait(&s->cond[dir], &s->lock, &ts);
	}
	s->flag[dir] = 0;
out:
	pthread_mutex_unlock(&s->lock);
	return ret;
}

static int ptsem_send(struct pair *p, enum pair_dir dir)
{
	struct ptsem_priv *s = p->priv;

	if (type == PT_MUTEX)
		return mutex_send(s, dir);
	return sem_post(type == PT_NAMED ? s->named[dir] : &s->sem[dir]) ? -errno : 0;
}

static int ptsem_receive(struct pair *p, enum pair_dir dir)
{
	struct ptsem_priv *s = p->priv;

	if (type == PT_MUTEX)
		return mutex_receive(p, s, dir);
	return sem_wait(type == PT_NAMED ? s->named[dir] : &s->sem[dir]) ? -errno : 0;
}

static void ptsem_close(struct pair *p)
{
	struct ptsem_priv *s = p->priv;
	int d;

	for (d = 0; d < 2; d++) {
		if (type == PT_MUTEX)
			pthread_cond_destroy(&s->cond[d]);
		else if (type == PT_SEM)
			sem_destroy(&s->sem[d]);
		else if (s->named[d])
			sem_close(s->named[d]);
	}
	if (type == PT_MUTEX)
		pthread_mutex_destroy(&s->lock);
}

const struct transport_ops transport_ptsem = {
	.name = "ptsem",
	.compat = "ptsematest",
	.title = "pthread mutex / POSIX semaphore hand-off latency",
	.priv_size = sizeof(struct ptsem_priv),
	.opts = ptsem_opts,
	.can_fork = false,
	.open = ptsem_open,
	.send = ptsem_send,
	.receive = ptsem_receive,
	.close = ptsem_close,
};

int ptsem_main(int argc, char **argv)
{
	return pair_main(&transport_ptsem, argc, argv);
}
