// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * transport_ptsem.c - pthread mutex or POSIX semaphore hand-off
 * (ptsematest), threads only.
 *
 * --type mutex (default) measures what ptsematest measures, the wake-up of
 * a thread blocked in pthread_mutex_lock() when the owner unlocks, but
 * legally: ptsematest unlocks a mutex from a thread that does not own it,
 * which POSIX leaves undefined. Here three mutexes are passed round like a
 * baton. At rest the sender holds x and y, the receiver holds z and waits
 * for x. Sending is unlocking x (the receiver wakes owning it); the sender
 * then waits for z, which the receiver unlocks to send back, and the roles
 * of (x, y, z) rotate by one. Every unlock is by the owner.
 *
 * --type condvar: a mutex and a condition variable per direction;
 * --type sem: an unnamed sem_t; --type named-sem: a sem_open() semaphore.
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

enum ptsem_type { PT_MUTEX, PT_CONDVAR, PT_SEM, PT_NAMED };

#define BATONS 3

struct ptsem_priv {
	pthread_mutex_t baton[BATONS];	/* PT_MUTEX */
	bool held[2][BATONS];		/* per role: batons it owns */
	unsigned int turn[2];		/* per role: cycles it went through */
	pthread_mutex_t lock;		/* PT_CONDVAR */
	pthread_cond_t cond[2];
	int flag[2];
	sem_t sem[2];			/* PT_SEM */
	sem_t *named[2];		/* PT_NAMED */
};

/* How often a blocked condvar waiter looks at the stop flag. */
#define PTSEM_POLL_NS (100 * NSEC_PER_MSEC)

static long long type;
static const char *const type_names[] = {
	"mutex", "condvar", "sem", "named-sem", NULL
};

static struct opt ptsem_opts[] = {
	{ 0, "type", OPT_CHOICE, OPT_ARG_REQUIRED, "TYPE", 0, 0, 0, &type,
	  "hand-off: mutex (default; three mutexes passed as a baton), condvar, sem, named-sem",
	  type_names, false },
	OPT_END
};

static bool stopping(const struct pair *p)
{
	return p->run->shared->stop;
}

/* --- mutex: the baton (see the top of the file) --- */

static int open_batons(struct ptsem_priv *s)
{
	int i, err = 0;

	/* Default attributes, as ptsematest: the fast private futex path. */
	for (i = 0; i < BATONS && !err; i++)
		err = pthread_mutex_init(&s->baton[i], NULL);
	while (err && i-- > 1)
		pthread_mutex_destroy(&s->baton[i - 1]);
	return -err;
}

static void baton_lock(struct ptsem_priv *s, enum pair_role r, unsigned int i)
{
	pthread_mutex_lock(&s->baton[i % BATONS]);
	s->held[r][i % BATONS] = true;
}

static void baton_unlock(struct ptsem_priv *s, enum pair_role r, unsigned int i)
{
	s->held[r][i % BATONS] = false;
	pthread_mutex_unlock(&s->baton[i % BATONS]);
}

/* Before the start barrier: the sender takes x and y, the receiver z. */
static int baton_attach(struct ptsem_priv *s, enum pair_role r)
{
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
static int baton_send(struct ptsem_priv *s, enum pair_dir dir)
{
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
static int baton_receive(struct pair *p, struct ptsem_priv *s, enum pair_dir dir)
{
	enum pair_role r = dir == DIR_FWD ? ROLE_RECEIVER : ROLE_SENDER;
	unsigned int t = s->turn[r];

	baton_lock(s, r, dir == DIR_FWD ? t : t + 2);
	if (dir == DIR_BACK)
		s->turn[r] = t + 1;
	return stopping(p) ? -EINTR : 0;
}

static void baton_detach(struct ptsem_priv *s, enum pair_role r)
{
	int i;

	for (i = 0; i < BATONS; i++)
		if (s->held[r][i])
			baton_unlock(s, r, (unsigned int)i);
}

/* --- condvar --- */

static int open_condvar(struct ptsem_priv *s)
{
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

static int condvar_send(struct ptsem_priv *s, enum pair_dir dir)
{
	pthread_mutex_lock(&s->lock);
	s->flag[dir] = 1;
	pthread_cond_signal(&s->cond[dir]);
	pthread_mutex_unlock(&s->lock);
	return 0;
}

static int condvar_receive(struct pair *p, struct ptsem_priv *s, enum pair_dir dir)
{
	struct timespec ts;
	int ret = 0;

	pthread_mutex_lock(&s->lock);
	while (!s->flag[dir]) {
		if (stopping(p)) {
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

/* --- semaphores --- */

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

static sem_t *sem_of(struct ptsem_priv *s, enum pair_dir dir)
{
	return type == PT_NAMED ? s->named[dir] : &s->sem[dir];
}

/* --- the transport --- */

static int ptsem_open(struct pair *p)
{
	struct ptsem_priv *s = p->priv;

	switch (type) {
	case PT_MUTEX:
		return open_batons(s);
	case PT_CONDVAR:
		return open_condvar(s);
	case PT_NAMED:
		return open_named(p, s);
	default:
		/* Threads only (no -f): private semaphores. */
		if (sem_init(&s->sem[0], 0, 0) || sem_init(&s->sem[1], 0, 0))
			return -errno;
		return 0;
	}
}

static int ptsem_attach(struct pair *p, enum pair_role role)
{
	return type == PT_MUTEX ? baton_attach(p->priv, role) : 0;
}

static void ptsem_detach(struct pair *p, enum pair_role role)
{
	if (type == PT_MUTEX)
		baton_detach(p->priv, role);
}

static int ptsem_send(struct pair *p, enum pair_dir dir)
{
	struct ptsem_priv *s = p->priv;

	if (type == PT_MUTEX)
		return baton_send(s, dir);
	if (type == PT_CONDVAR)
		return condvar_send(s, dir);
	return sem_post(sem_of(s, dir)) ? -errno : 0;
}

static int ptsem_receive(struct pair *p, enum pair_dir dir)
{
	struct ptsem_priv *s = p->priv;

	if (type == PT_MUTEX)
		return baton_receive(p, s, dir);
	if (type == PT_CONDVAR)
		return condvar_receive(p, s, dir);
	return sem_wait(sem_of(s, dir)) ? -errno : 0;
}

static void ptsem_close(struct pair *p)
{
	struct ptsem_priv *s = p->priv;
	int d;

	for (d = 0; d < BATONS && type == PT_MUTEX; d++)
		pthread_mutex_destroy(&s->baton[d]);
	for (d = 0; d < 2; d++) {
		if (type == PT_CONDVAR)
			pthread_cond_destroy(&s->cond[d]);
		else if (type == PT_SEM)
			sem_destroy(&s->sem[d]);
		else if (type == PT_NAMED && s->named[d])
			sem_close(s->named[d]);
	}
	if (type == PT_CONDVAR)
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
	.attach = ptsem_attach,
	.detach = ptsem_detach,
	.send = ptsem_send,
	.receive = ptsem_receive,
	.close = ptsem_close,
};

int ptsem_main(int argc, char **argv)
{
	return pair_main(&transport_ptsem, argc, argv);
}
