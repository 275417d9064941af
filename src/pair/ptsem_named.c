// SPDX-License-Identifier: GPL-2.0-or-later
/* ptsem_named.c - ptsem --type named-sem: a sem_open() semaphore per
 * direction, unlinked at once so nothing is left in /dev/shm. */
#include <errno.h>
#include <fcntl.h>
#include <semaphore.h>
#include "core/cleanup.h"
#include "pair/ptsem.h"

struct named_priv {
	sem_t *named[2];
};

static int named_open(struct pair *p)
{
	struct named_priv *s = p->priv;
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

static int named_send(struct pair *p, enum pair_dir dir)
{
	struct named_priv *s = p->priv;

	return sem_post(s->named[dir]) ? -errno : 0;
}

static int named_receive(struct pair *p, enum pair_dir dir)
{
	struct named_priv *s = p->priv;

	return sem_wait(s->named[dir]) ? -errno : 0;
}

static void named_close(struct pair *p)
{
	struct named_priv *s = p->priv;
	int d;

	for (d = 0; d < 2; d++)
		if (s->named[d])
			sem_close(s->named[d]);
}

const struct transport_ops ptsem_named = {
	.priv_size = sizeof(struct named_priv),
	.open = named_open,
	.send = named_send,
	.receive = named_receive,
	.close = named_close,
};
