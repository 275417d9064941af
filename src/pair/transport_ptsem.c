// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * transport_ptsem.c - pthread mutex or POSIX semaphore hand-off
 * (ptsematest), threads (rtlat sync -f: processes): --type picks one of four ops tables
 * (ptsem.h), one file each.
 */
#include "util/opts.h"
#include "pair/pair_types.h"
#include "pair/pair_test.h"
#include "pair/ptsem.h"

struct ptsem_config {
	long long type;
};
static const char *const type_names[] = {
	"mutex", "condvar", "sem", "named-sem", NULL
};
static const struct transport_ops *const types[] = {
	&ptsem_mutex, &ptsem_condvar, &ptsem_sem, &ptsem_named,
};

static const struct opt ptsem_opts[] = {
	{ .long_name = "type", .type = OPT_CHOICE, .arg = OPT_ARG_REQUIRED,
	  .argname = "TYPE", .dest = OPT_AT(struct ptsem_config, type),
	  .help = "hand-off: mutex (three mutexes passed as a baton), condvar, sem, named-sem",
	  .choices = type_names },
	OPT_END
};

/* From here on the harness sees the type's own table. */
static int ptsem_setup(struct pair_run *run)
{
	const struct ptsem_config *tc = run->tcfg;

	run->ops = types[tc->type];
	return 0;
}

static const struct transport_ops ptsem_transport = {
	.setup = ptsem_setup,
};

const struct test_ops test_ptsem = PAIR_TEST("ptsem", "ptsematest",
	"pthread mutex / POSIX semaphore hand-off latency", &ptsem_transport, ptsem_opts,
	struct ptsem_config, "-l 200");
