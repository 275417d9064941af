// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * sync_switch.c - the pair harness inside rtlat sync: --type picks the
 * pair test and its hand-off (posix: ptsem sem, named: ptsem named-sem,
 * sysv: svsem, mutex: ptsem mutex), test 1 uses its transport from one
 * thread, test 2 runs it as a pair: two threads (or, -f, processes) on
 * one CPU hand off and back, so every hand-off is a context switch. With
 * -f every type is made process-shared: an unnamed sem_t with pshared 1
 * and robust PTHREAD_PROCESS_SHARED mutexes in shared anonymous memory,
 * a named semaphore each process opens by its name, a System V set.
 */
#include <stdio.h>
#include <stdlib.h>
#include "util/opts.h"
#include "pair/pair_types.h"
#include "pair/pair_run.h"
#include "pair/pair_test.h"
#include "sync/sync_types.h"
#include "sync/sync_switch.h"

#define SWITCH_INTERVAL_US 10

/* The pair test's own option, as if given on its command line. */
static int pair_type_opts(const struct sync_config *c, const char *prog,
			  struct test_run *pt)
{
	static const char *const ptsem_types[] = { "sem", "named-sem", NULL, "mutex" };
	char *argv[4] = { (char *)prog, NULL, NULL, NULL };
	const struct test_ops *ops = pt->ops;
	struct opt *tbl = opts_bind(ops->extra_opts, pt->extra, NULL, NULL);
	int argc = 1, ret;

	if (!tbl)
		return -1;
	opts_defaults(tbl);
	if (ops == &test_ptsem) {
		argv[argc++] = "--type";
		argv[argc++] = (char *)ptsem_types[c->type];
	} else if (c->fork) {
		argv[argc++] = "-f";
	}
	ret = opts_parse(prog, "", tbl, NULL, argc, argv) < 0 ? -1 : 0;
	free(tbl);
	return ret;
}

/* One pair on sync's CPU and priority (sync.h). */
int sync_pair_prepare(const struct sync_config *c, const char *prog,
		      struct test_run *pt)
{
	const struct test_ops *ops = c->type == TYPE_SYSV ? &test_svsem : &test_ptsem;
	struct pair_config *pc;

	if (run_nested(pt, ops, prog))
		return -1;
	pc = pt->cfg;
	pc->loops = c->loops;
	pc->duration_s = c->duration_s;
	pc->prio = c->prio;
	pc->affinity = c->cpu;
	pc->threads = 1;
	pc->interval_us = SWITCH_INTERVAL_US;
	pc->quiet = true;
	/* svsem takes -f as an option, the ptsem types from here. */
	pc->fork = c->fork;
	if (pair_type_opts(c, prog, pt) || pair_check(pt))
		return -1;
	return pair_setup(pt) ? -1 : 0;
}

const struct stats *sync_switch_live(const struct test_run *pt,
				     const struct sync_result *r)
{
	const struct pair_run *run = pt->state;

	/* A status during test 2 said "no sample was measured" while it
	 * measured: its series is the pair's until it ends. */
	if (r->ran || !run || !run->pairs || run->cfg->stream ||
	    !run->started_any)
		return &r->s;
	return &run->pairs[0].lat;
}

double sync_ctx_estimate(double round_trip_ns, double cost_ns)
{
	return round_trip_ns / 2.0 - cost_ns;
}

int sync_switch(struct test_run *pt, struct sync_result *r, const char **err)
{
	struct pair_run *run = pt->state;
	static char msg[300];
	int status;

	run->pairs[0].rec = r->rec;
	status = pair_measure(pt);
	pair_transport_close(run);
	r->ran = true;
	r->s = run->pairs[0].lat;
	if (status || run->failed) {
		snprintf(msg, sizeof(msg), "test 2: %s", run->fail_msg[0] ? run->fail_msg : "failed");
		*err = msg;
		return 1;
	}
	return 0;
}
