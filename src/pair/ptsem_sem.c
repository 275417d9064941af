// SPDX-License-Identifier: GPL-2.0-or-later
/* ptsem_sem.c - ptsem --type sem: an unnamed sem_t per direction, in the
 * pair's shared memory: private to the process for threads, process-shared
 * (pshared 1) when the workers are forked (rtlat sync -f). */
#include <errno.h>
#include <semaphore.h>
#include "pair/ptsem.h"

struct sem_priv {
	sem_t sem[2];
};

static int sem_open_pair(struct pair *p)
{
	struct sem_priv *s = p->priv;
	int pshared = pair_is_fork(p);

	if (sem_init(&s->sem[0], pshared, 0))
		return -errno;
	if (sem_init(&s->sem[1], pshared, 0)) {
		int err = errno;

		sem_destroy(&s->sem[0]);
		return -err;
	}
	return 0;
}

static int sem_send(struct pair *p, enum pair_dir dir)
{
	struct sem_priv *s = p->priv;

	return sem_post(&s->sem[dir]) ? -errno : 0;
}

static int sem_receive(struct pair *p, enum pair_dir dir)
{
	struct sem_priv *s = p->priv;

	return sem_wait(&s->sem[dir]) ? -errno : 0;
}

static void sem_close_pair(struct pair *p)
{
	struct sem_priv *s = p->priv;

	sem_destroy(&s->sem[0]);
	sem_destroy(&s->sem[1]);
}

const struct transport_ops ptsem_sem = {
	.priv_size = sizeof(struct sem_priv),
	.open = sem_open_pair,
	.send = sem_send,
	.receive = sem_receive,
	.close = sem_close_pair,
};
