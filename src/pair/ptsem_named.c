// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * ptsem_named.c - ptsem --type named-sem: a sem_open() semaphore per
 * direction, under a unique name (pid-based, O_EXCL). Threads share the
 * main process's handle, and the name is unlinked at once. Forked workers
 * (rtlat sync -f) each open it by its name, as unrelated processes would:
 * the name then lives until close(), registered with the cleanup so that
 * every ending (a signal, the janitor after SIGKILL) unlinks it.
 */
#include <errno.h>
#include <fcntl.h>
#include <semaphore.h>
#include <stdio.h>
#include "system/cleanup.h"
#include "pair/ptsem.h"

#define NAME_LEN 64

struct named_priv {
	sem_t *named[2];		/* the main process's, per direction */
	/* Forked workers: each role's own handles (valid in its process
	 * only), and the names while they exist. */
	sem_t *role[2][2];
	char name[2][NAME_LEN];
};

static void named_unlink(struct named_priv *s, int d)
{
	if (!s->name[d][0])
		return;
	sem_unlink(s->name[d]);
	cleanup_del_sem_named(s->name[d]);
	s->name[d][0] = '\0';
}

static void named_close(struct pair *p)
{
	struct named_priv *s = p->priv;
	int d;

	for (d = 0; d < 2; d++) {
		if (s->named[d])
			sem_close(s->named[d]);
		s->named[d] = NULL;
		named_unlink(s, d);
	}
}

static int named_open(struct pair *p)
{
	struct named_priv *s = p->priv;
	int d;

	for (d = 0; d < 2; d++) {
		s->role[ROLE_SENDER][d] = s->role[ROLE_RECEIVER][d] = NULL;
		cleanup_unique_name(s->name[d], NAME_LEN, d ? "sem-back" : "sem", p->index);
		cleanup_add_sem_named(s->name[d]);
		s->named[d] = sem_open(s->name[d], O_CREAT | O_EXCL, 0600, 0);
		if (s->named[d] == SEM_FAILED) {
			int err = errno;

			s->named[d] = NULL;
			cleanup_del_sem_named(s->name[d]);
			s->name[d][0] = '\0';
			/* The harness closes only pairs that opened fully. */
			named_close(p);
			return -err;
		}
		/* Threads: the mapping stays usable; nothing is left in
		 * /dev/shm. */
		if (!pair_is_fork(p))
			named_unlink(s, d);
	}
	return 0;
}

/* A forked worker opens both directions by name before the start. */
static int named_attach(struct pair *p, enum pair_role r)
{
	struct named_priv *s = p->priv;
	int d;

	if (!pair_is_fork(p))
		return 0;
	for (d = 0; d < 2; d++) {
		s->role[r][d] = sem_open(s->name[d], 0);
		if (s->role[r][d] == SEM_FAILED) {
			s->role[r][d] = NULL;
			return -errno;
		}
	}
	return 0;
}

static void named_detach(struct pair *p, enum pair_role r)
{
	struct named_priv *s = p->priv;
	int d;

	for (d = 0; pair_is_fork(p) && d < 2; d++)
		if (s->role[r][d])
			sem_close(s->role[r][d]);
}

/* The handle of whoever calls: a forked role's own, else the main's. */
static sem_t *named_sem(const struct pair *p, enum pair_role r, enum pair_dir dir)
{
	const struct named_priv *s = p->priv;

	return pair_is_fork(p) && s->role[r][dir] ? s->role[r][dir] : s->named[dir];
}

static int named_send(struct pair *p, enum pair_dir dir)
{
	enum pair_role r = dir == DIR_FWD ? ROLE_SENDER : ROLE_RECEIVER;

	return sem_post(named_sem(p, r, dir)) ? -errno : 0;
}

static int named_receive(struct pair *p, enum pair_dir dir)
{
	enum pair_role r = dir == DIR_FWD ? ROLE_RECEIVER : ROLE_SENDER;

	return sem_wait(named_sem(p, r, dir)) ? -errno : 0;
}

const struct transport_ops ptsem_named = {
	.priv_size = sizeof(struct named_priv),
	.open = named_open,
	.attach = named_attach,
	.detach = named_detach,
	.send = named_send,
	.receive = named_receive,
	.close = named_close,
};
