// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * pair.c - the pair-test harness: options, setup, the run and its end.
 * Every pair test is a PAIR_TEST row (pair.h) that run_test() runs.
 */
#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include "system/cleanup.h"
#include "measure/clock.h"
#include "explain/explain.h"
#include "util/opts.h"
#include "pair/pair_types.h"
#include "pair/pair_output.h"
#include "pair/pair_run.h"
#include "pair/pair_stream.h"
#include "pair/pair_test.h"
#include "harness/results.h"
#include "system/rtsetup.h"
#include "system/tracefs.h"

#define MAX_PAIRS	1024
#define MAX_INTERVAL_US	3600000000LL	/* one hour */
#define HIST_BUCKET_NS	100		/* 0.1 us resolution ... */
#define HIST_BUCKETS	20000		/* ... up to 2 ms, then overflow */

const char *const pair_series[] = { "latency", NULL };

/* The rows store into the run's struct pair_config (t->cfg). */
const struct opt pair_opts[] = {
	{ .short_name = 'a', .long_name = "affinity", .type = OPT_CPU,
	  .arg = OPT_ARG_OPTIONAL, .argname = "CPU", .dflt = -2,
	  .dest = OPT_AT(struct pair_config, affinity),
	  .help = "pin pair i to CPU i mod ncpus; with CPU, pin all to it" },
	{ .short_name = 'b', .long_name = "breaktrace", .type = OPT_INT,
	  .arg = OPT_ARG_REQUIRED, .argname = "USEC", .min = 1, .max = MAX_INTERVAL_US,
	  .dest = OPT_AT(struct pair_config, breaktrace_us),
	  .help = "stop ftrace and the test when a latency exceeds USEC",
	  .key = "breaktrace_us" },
	{ .short_name = 'd', .long_name = "distance", .type = OPT_INT,
	  .arg = OPT_ARG_REQUIRED, .argname = "DIST", .max = MAX_INTERVAL_US,
	  .dflt = 500, .dest = OPT_AT(struct pair_config, distance_us),
	  .help = "interval distance between pairs in us", .key = "distance_us" },
	OPT_ROW_DURATION(struct pair_config, duration_s, 0,
			 "run for TIME (N[s|m|h|d]); 0: no limit"),
	OPT_ROW_HELP,
	{ .short_name = 'i', .long_name = "interval", .type = OPT_INT,
	  .arg = OPT_ARG_REQUIRED, .argname = "INTV", .min = 1, .max = MAX_INTERVAL_US,
	  .dflt = 1000, .dest = OPT_AT(struct pair_config, interval_us),
	  .help = "base interval in us", .key = "interval_us" },
	OPT_ROW_LOOPS(struct pair_config, loops, 1LL << 62, 0,
		      "cycles per pair; under the rt-tests name the run ends when the first pair has done them; 0: until stopped"),
	OPT_ROW_PRIO(struct pair_config, prio, 0, 99, 0,
		     "SCHED_FIFO priority of pair 0, pair i gets PRIO-i; 0: SCHED_OTHER"),
	OPT_ROW_QUIET(struct pair_config, quiet,
		      "print only the final summary"),
	{ .short_name = 'S', .long_name = "smp", .type = OPT_FLAG, .arg = OPT_ARG_NONE,
	  .dest = OPT_AT(struct pair_config, smp),
	  .help = "SMP testing: -a -t and the same priority for all pairs",
	  .key = "same_priority" },
	{ .short_name = 't', .long_name = "threads", .type = OPT_INT,
	  .arg = OPT_ARG_OPTIONAL, .argname = "NUM", .min = 1, .max = MAX_PAIRS,
	  .dflt = 1, .dest = OPT_AT(struct pair_config, threads),
	  .help = "number of pairs; without NUM, one per CPU" },
	TEST_EXPLAIN_OPTS(OPT_AT_STRUCT(struct pair_config, common)),
	TEST_COMMON_OPTS(OPT_AT_STRUCT(struct pair_config, common), "write results to FILE as JSON (rt-tests layout plus rtlat's)"),
	OPT_END
};

static int check_config(const struct test_run *t, struct pair_config *c,
			struct pair_run *run)
{
	const char *prog = t->prog;
	struct opt *tbl = t->opts;
	long long last;

	if (c->smp) {
		if (!opts_given(tbl, t->given, 't', NULL))
			c->threads = -1;
		if (!opts_given(tbl, t->given, 'a', NULL))
			c->affinity = -1;
	}
	run->npairs = c->threads == -1 ? cpus_usable(NULL, MAX_PAIRS) : (int)c->threads;
	if (run->npairs > MAX_PAIRS)
		run->npairs = MAX_PAIRS;
	last = c->interval_us + (long long)(run->npairs - 1) * c->distance_us;
	if (last > MAX_INTERVAL_US) {
		opts_error(prog, opts_find(tbl, 'd', NULL),
			   "the last pair's interval would be %lld us; accepted: intervals up to %lld us (1 hour)",
			   last, MAX_INTERVAL_US);
		return -1;
	}
	if (c->breaktrace_us) {
		char err[256];

		if (tracefs_open(prog, err, sizeof(err))) {
			opts_error(prog, opts_find(tbl, 'b', NULL), "%s", err);
			return -1;
		}
	}
	return 0;
}

/* After parsing: the harness's checks, then the transport's. */
int pair_check(struct test_run *t)
{
	struct pair_run *run = t->state;

	memset(run, 0, sizeof(*run));
	run->ops = t->ops->data;
	run->name = t->ops->name;
	run->prog = t->prog;
	run->cfg = t->cfg;
	run->opts = t->opts;
	run->tcfg = t->extra;
	run->cfg->first_ends = run_compat(t);
	if (check_config(t, t->cfg, run))
		return -1;
	if (run->ops->setup && run->ops->setup(run))
		return -1;
	if (run->cfg->stream && run->cfg->common.explain) {
		opts_error(t->prog, opts_find(t->opts, 0, "explain"),
			   "explains latency spikes, not a stream's rate; accepted: --explain without --throughput");
		return -1;
	}
	return 0;
}

/* Pairs, histograms and transport state live in shared memory, so the
 * same code serves threads and forked processes. */
static int alloc_pairs(struct pair_run *run)
{
	size_t priv = (run->ops->priv_size + 63) & ~(size_t)63;
	uint64_t *hist;
	size_t words;
	char *privs = NULL;
	int i;

	run->shared = shared_alloc(sizeof(*run->shared));
	run->pairs = shared_alloc(sizeof(struct pair) * run->npairs);
	words = hist_bytes(HIST_BUCKET_NS, HIST_BUCKETS) / sizeof(*hist);
	hist = shared_alloc(words * sizeof(*hist) * run->npairs);
	if (priv)
		privs = shared_alloc(priv * run->npairs);
	if (!run->shared || !run->pairs || !hist || (priv && !privs))
		return -ENOMEM;
	run_stop_flag(&run->shared->stop);
	for (i = 0; i < run->npairs; i++) {
		struct pair *p = &run->pairs[i];
		int prio = (int)run->cfg->prio;

		p->index = i;
		p->run = run;
		p->interval_ns = (run->cfg->interval_us + i * run->cfg->distance_us) *
				 NSEC_PER_USEC;
		p->loops = (uint64_t)run->cfg->loops;
		stats_reset(&p->lat);
		hist_init_mem(&p->lat.hist, 0, HIST_BUCKET_NS, HIST_BUCKETS,
			      hist + words * i);
		p->priv = privs ? privs + priv * i : NULL;
		if (prio > 0 && !run->cfg->smp)
			prio = prio - i > 1 ? prio - i : 1;
		p->w[ROLE_SENDER].prio = p->w[ROLE_RECEIVER].prio = prio;
		p->w[ROLE_SENDER].cpu = p->w[ROLE_RECEIVER].cpu =
			run->cfg->affinity == -2 ? -1 :
			run->cfg->affinity == -1 ? cpu_usable_nth(i) :
			(int)run->cfg->affinity;
		p->w[ROLE_SENDER].cur_cpu = p->w[ROLE_RECEIVER].cur_cpu = -1;
	}
	return 0;
}

int pair_setup(struct test_run *t)
{
	struct pair_run *run = t->state;
	int i, err = alloc_pairs(run);

	/* Shared memory: recorded the same by a forked receiver. */
	for (i = 0; !err && i < run->npairs; i++)
		run->pairs[i].rec = run_record(t, pair_series[0], i,
					       run->pairs[i].w[ROLE_RECEIVER].cpu);
	return err;
}

int pair_rt_apply(struct test_run *t)
{
	struct pair_run *run = t->state;

	return rt_probe(run->pairs[0].w[0].prio, run->pairs[0].w[0].cpu);
}

/* --explain: each receiver is a source; before its wake-up, the
 * hand-off is on the sender's side. */
static int explain_receivers(struct test_run *t)
{
	struct pair_run *run = t->state;
	struct explain *x = run_explain_new(t, run->npairs);
	int i;

	for (i = 0; i < explain_count(x); i++)
		explain_src_set(x, i, run->pairs[i].w[ROLE_RECEIVER].cpu,
				"the sender's side: its send and the hand-off", false,
				"pair %d", i);
	if (run_explain_start(t))
		return -1;
	for (i = 0; i < run->npairs; i++)
		run->pairs[i].xsrc = explain_source(t->explain, i);
	return 0;
}

int pair_measure(struct test_run *t)
{
	struct pair_run *run = t->state;

	if (run->cfg->stream)
		return pair_stream_measure(run);
	if (explain_receivers(t))
		return 1;
	return pair_measure_once(run);
}

/* All pairs as one series: the suite's table, the fleet outputs, the
 * JSON's "fleet" (a later --baseline). */
void pair_summary(struct results *res, const struct pair_run *run)
{
	struct stats all;
	int i;

	if (!run->pairs ||
	    stats_init(&all, 0, HIST_BUCKET_NS, HIST_BUCKETS))
		return;
	for (i = 0; i < run->npairs; i++)
		stats_merge(&all, &run->pairs[i].lat);
	results_summary(res, pair_series[0], &all);
	stats_free(&all);
	/* Each pair's own, measured on its receiver's CPU (rt-tests'
	 * definitions report them per thread). */
	for (i = 0; i < run->npairs; i++)
		results_summary_part(res, pair_series[0], i,
				     run->pairs[i].w[ROLE_RECEIVER].cpu,
				     &run->pairs[i].lat);
}

/*
 * A stop signal is a normal ending (as in rt-tests), but one that came
 * before any pair recorded a sample leaves nothing to report: exit 1.
 */
static void check_delivered(struct pair_run *r)
{
	uint64_t n = 0;
	int i;

	if (!run_stop_requested || r->failed || !r->pairs)
		return;
	for (i = 0; i < r->npairs; i++)
		n += r->pairs[i].lat.n;
	if (n)
		return;
	r->failed = 1;
	snprintf(r->fail_msg, sizeof(r->fail_msg),
		 "stopped by a signal before the first sample");
}

int pair_report(struct test_run *t, int status)
{
	struct pair_run *run = t->state;

	if (run->cfg->stream)
		return pair_stream_report(t, run, status);
	if (status)
		run->failed = 1;
	check_delivered(run);
	if (t->error && !run->fail_msg[0])
		snprintf(run->fail_msg, sizeof(run->fail_msg), "%s", t->error);
	if (run->started_any || !run->failed) {
		/* The final block replaces the live one on a terminal. */
		if (run->live_lines)
			printf("\033[%dA", run->live_lines);
		pair_print_block(stdout, run);
	}
	fflush(stdout);
	if (run->fail_msg[0])
		fprintf(stderr, "%s: %s\n", run->prog, run->fail_msg);
	if (run->shared && run->shared->break_hit)
		fprintf(stderr, "%s: breaktrace: pair %d latency %lld us > %lld us; tracing stopped\n",
			run->prog, run->shared->break_pair,
			ns_to_us_round((double)run->shared->break_ns), run->cfg->breaktrace_us);
	pair_summary(&t->res, run);
	pair_write_json(run, &t->res);
	return run->failed ? 1 : 0;
}

/* What setup and measure opened (the IPC objects), whatever happened. */
void pair_teardown(struct test_run *t)
{
	pair_transport_close(t->state);
}

/* rtlat suite: every pair on its own CPU, one priority, one interval. */
long long pair_suite_args(char *buf, size_t len, long long d, long long prio)
{
	snprintf(buf, len, "-S -p %lld -i 1000 -d 0 -q -D %lld", prio, d);
	return d;
}
