// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * transport_svsem.c - System V semaphores (svsematest): one set of two
 * semaphores per pair; semop +1 releases, semop -1 acquires.
 */
#include <errno.h>
#include <sys/sem.h>
#include "system/cleanup.h"
#include "util/opts.h"
#include "pair/pair_types.h"
#include "pair/pair_test.h"

struct svsem_priv {
	int semid;
};

struct svsem_config {
	bool fork;
};

static const struct opt svsem_opts[] = {
	{ .short_name = 'f', .long_name = "fork", .type = OPT_FLAG,
	  .arg = OPT_ARG_OPTIONAL, .argname = "OPT",
	  .dest = OPT_AT(struct svsem_config, fork),
	  .help = "fork two processes per pair instead of creating threads" },
	OPT_END
};

static int svsem_setup(struct pair_run *run)
{
	const struct svsem_config *tc = run->tcfg;

	run->cfg->fork = tc->fork;
	return 0;
}

static int svsem_open(struct pair *p)
{
	struct svsem_priv *s = p->priv;
	unsigned short zero[2] = { 0, 0 };

	/* IPC_PRIVATE always makes a new set: two runs never share one. */
	s->semid = semget(IPC_PRIVATE, 2, IPC_CREAT | IPC_EXCL | 0600);
	if (s->semid < 0)
		return -errno;
	cleanup_add_sysv_sem(s->semid);
	return semctl(s->semid, 0, SETALL, zero) ? -errno : 0;
}

static int svsem_op(struct pair *p, enum pair_dir dir, short delta)
{
	struct svsem_priv *s = p->priv;
	struct sembuf op = { .sem_num = (unsigned short)dir, .sem_op = delta };

	return semop(s->semid, &op, 1) ? -errno : 0;
}

static int svsem_send(struct pair *p, enum pair_dir dir)
{
	return svsem_op(p, dir, 1);
}

static int svsem_receive(struct pair *p, enum pair_dir dir)
{
	return svsem_op(p, dir, -1);
}

static const struct transport_ops svsem_transport = {
	.priv_size = sizeof(struct svsem_priv),
	.setup = svsem_setup,
	.open = svsem_open,
	.send = svsem_send,
	.receive = svsem_receive,
};

const struct test_ops test_svsem = PAIR_TEST("svsem", "svsematest",
	"System V semaphore hand-off latency", &svsem_transport, svsem_opts,
	struct svsem_config, "-l 200");
