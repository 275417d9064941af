// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * sync.c - "rtlat sync": options, the three tests in turn, the report.
 */
#include <stdio.h>
#include <string.h>
#include <stdlib.h>
#include "determinism/bench.h"
#include "measure/clock.h"
#include "util/json.h"
#include "util/opts.h"
#include "harness/results.h"
#include "sync/sync_types.h"
#include "sync/sync_cost.h"
#include "sync/sync_inversion.h"
#include "sync/sync_switch.h"
#include "system/sysinfo.h"
#include "sync/sync_test.h"

/* What results_summary() reports (rtlat --list). */
static const char *const sync_series[] = { "cost", "handoff", "blocking", NULL };


static const char *const test_names[] = { "all", "cost", "switch", "inversion", NULL };
static const char *const sync_type_names[] = { "posix", "named", "sysv", "mutex", NULL };
static const char *const sync_proto_names[] = { "none", "inherit", "protect", NULL };

static const struct opt sync_opts[] = {
	{ .short_name = 'c', .long_name = "cpu", .type = OPT_CPU,
	  .arg = OPT_ARG_REQUIRED, .argname = "CPU", .dflt = -1,
	  .dest = OPT_AT(struct sync_config, cpu),
	  .help = "run every task on CPU (default: the last online CPU)", .key = "cpu" },
	OPT_ROW_DURATION(struct sync_config, duration_s, 0,
			 "stop each test after TIME (N[s|m|h|d]); 0: none"),
	{ .short_name = 'f', .long_name = "fork", .type = OPT_FLAG, .arg = OPT_ARG_NONE,
	  .dest = OPT_AT(struct sync_config, fork),
	  .help = "tests 1, 2: process-shared objects, test 2 between two processes" },
	OPT_ROW_HELP,
	OPT_ROW_LOOPS(struct sync_config, loops, 1LL << 40, 10000,
		      "calls (test 1) and hand-offs (test 2); 0: until -D or stopped"),
	OPT_ROW_PRIO(struct sync_config, prio, 3, 98, 90,
		     "SCHED_FIFO priority (test 3: high PRIO, medium PRIO-1, low PRIO-2)"),
	{ .long_name = "test", .type = OPT_CHOICE, .arg = OPT_ARG_REQUIRED,
	  .argname = "TEST", .dest = OPT_AT(struct sync_config, test),
	  .help = "all, cost (test 1), switch (tests 1 and 2), inversion (test 3)",
	  .choices = test_names, .key = "test" },
	{ .long_name = "type", .type = OPT_CHOICE, .arg = OPT_ARG_REQUIRED,
	  .argname = "TYPE", .dest = OPT_AT(struct sync_config, type),
	  .help = "tests 1, 2: posix (unnamed sem_t), named (sem_open), sysv (semop), mutex",
	  .choices = sync_type_names, .key = "type" },
	{ .long_name = "protocol", .type = OPT_CHOICE, .arg = OPT_ARG_REQUIRED,
	  .argname = "PROTO", .dflt = 1, .dest = OPT_AT(struct sync_config, protocol),
	  .help = "test 3: the mutex protocol: none, inherit, protect",
	  .choices = sync_proto_names, .key = "protocol" },
	{ .long_name = "rounds", .type = OPT_INT, .arg = OPT_ARG_REQUIRED,
	  .argname = "N", .min = 1, .max = 100000, .dflt = 50,
	  .dest = OPT_AT(struct sync_config, rounds), .help = "test 3: rounds",
	  .key = "rounds" },
	{ .long_name = "hog", .type = OPT_INT, .arg = OPT_ARG_REQUIRED, .argname = "MS",
	  .min = 1, .max = 100, .dflt = 5, .dest = OPT_AT(struct sync_config, hog_ms),
	  .help = "test 3: the medium task burns the CPU for MS ms a round",
	  .key = "hog_ms" },
	{ .long_name = "cs", .type = OPT_INT, .arg = OPT_ARG_REQUIRED, .argname = "US",
	  .min = 10, .max = 100000, .dflt = 1000,
	  .dest = OPT_AT(struct sync_config, cs_us),
	  .help = "test 3: the low task's critical section, US us of CPU time",
	  .key = "cs_us" },
	{ .long_name = "margin", .type = OPT_INT, .arg = OPT_ARG_REQUIRED,
	  .argname = "US", .max = 1000000, .dflt = 500,
	  .dest = OPT_AT(struct sync_config, margin_us),
	  .help = "test 3: bounded means blocking <= critical section + US us",
	  .key = "margin_us" },
	TEST_COMMON_OPTS(OPT_AT_STRUCT(struct sync_config, common), "write results to FILE as JSON"),
	OPT_END
};

static bool wants(const struct sync_config *c, enum sync_test t)
{
	return c->test == SYNC_ALL || c->test == t ||
	       (t == SYNC_COST && c->test == SYNC_SWITCH);
}

static int sync_check(struct test_run *t)
{
	struct sync_config *c = t->cfg;

	if (c->fork && !wants(c, SYNC_COST)) {
		opts_error(t->prog, opts_find(t->opts, 'f', NULL),
			   "forks the processes of tests 1 and 2; accepted: -f with --test all, cost or switch");
		return -1;
	}
	if (!SYNC_HAVE_PRIOCEILING && c->protocol == PROTO_PROTECT && wants(c, SYNC_INVERSION)) {
		opts_error(t->prog, opts_find(t->opts, 0, "protocol"),
			   "protect needs pthread_mutexattr_setprioceiling, which this build's C library lacks; accepted: none, inherit");
		return -1;
	}
	if (c->cpu < 0)
		c->cpu = cpu_usable_last();
	return 0;
}

static int sync_setup(struct test_run *t)
{
	const struct sync_config *c = t->cfg;
	struct sync_run *r = t->state;
	int cpu = (int)c->cpu;

	if (wants(c, SYNC_COST))
		r->cost.rec = run_record(t, sync_series[0], 0, cpu);
	if (wants(c, SYNC_SWITCH))
		r->sw.rec = run_record(t, sync_series[1], 0, cpu);
	if (wants(c, SYNC_INVERSION))
		r->inv.rec = run_record(t, sync_series[2], 0, cpu);
	if (!wants(c, SYNC_COST))
		return 0;
	return sync_pair_prepare(c, t->prog, &((struct sync_run *)t->state)->pair);
}

static int sync_rt_apply(struct test_run *t)
{
	const struct sync_config *c = t->cfg;

	return rt_probe((int)c->prio, (int)c->cpu);
}

static int sync_measure(struct test_run *t)
{
	const struct sync_config *c = t->cfg;
	struct sync_run *r = t->state;
	int64_t d = c->duration_s * NSEC_PER_SEC;
	int status = 0;

	if (wants(c, SYNC_COST) && !run_stop_requested)
		status = sync_cost(c, &r->pair, &r->cost, d ? clock_now_ns() + d : 0, &r->error);
	if (!status && wants(c, SYNC_SWITCH) && !run_stop_requested)
		status = sync_switch(&r->pair, &r->sw, &r->error);
	if (!status && wants(c, SYNC_INVERSION) && !run_stop_requested)
		status = sync_inversion(c, &r->inv, d ? clock_now_ns() + d : 0, &r->error);
	return status;
}

static void print_series(const char *what, const struct stats *s, double div, const char *unit)
{
	printf("%s %llu, min %.1f avg %.1f p50 %.1f p99 %.1f max %.1f %s",
	       what, (unsigned long long)s->n, (double)s->min / div, stats_mean(s) / div,
	       (double)stats_percentile(s, 50) / div, (double)stats_percentile(s, 99) / div,
	       (double)s->max / div, unit);
}

static void print_inversion(const struct sync_config *c, const struct sync_run *r)
{
	const struct stats *s = &r->inv.s;

	printf("test 3 inversion (%s, cs %lld us, hog %lld ms): ",
	       sync_proto_names[c->protocol], c->cs_us, c->hog_ms);
	print_series("rounds", s, 1e3, "us blocked");
	printf("; bounded %llu/%llu (<= %lld us): %s",
	       (unsigned long long)r->inv.bounded, (unsigned long long)s->n,
	       (long long)(r->inv.bound_ns / NSEC_PER_USEC),
	       s->n && r->inv.bounded == s->n ? "yes" : "no");
	if (r->inv.skipped)
		printf(", %llu rounds skipped (low task late)", (unsigned long long)r->inv.skipped);
	printf("\n");
	if (s->max > c->cs_us * NSEC_PER_USEC + c->hog_ms * NSEC_PER_MSEC +
		     5 * NSEC_PER_MSEC)
		printf("# note: blocked past critical section + hog: RT throttling (sched_rt_runtime_us %lld) or other real-time tasks on CPU %lld\n",
		       sysinfo_read_ll("/proc/sys/kernel/sched_rt_runtime_us"), c->cpu);
}

static void print_results(const struct sync_config *c, const struct sync_run *r)
{
	printf("# sync: CPU %lld, SCHED_FIFO %lld\n", c->cpu, c->prio);
	/* A test that ran has its line, also when stopped before its first
	 * sample (its JSON section is there too). */
	if (r->cost.ran) {
		printf("test 1 cost (%s): ", sync_type_names[c->type]);
		if (r->cost.s.n)
			print_series("calls", &r->cost.s, 1, "ns\n");
		else
			printf("calls 0: stopped before the first\n");
	}
	if (r->sw.ran) {
		double rt = 2 * stats_mean(&r->sw.s);

		printf("test 2 switch (%s, %s): ", sync_type_names[c->type],
		       c->fork ? "processes" : "threads");
		if (r->sw.s.n) {
			print_series("hand-offs", &r->sw.s, 1, "ns");
			printf("; round trip %.1f ns, context switch %.1f ns\n", rt,
			       sync_ctx_estimate(rt, stats_mean(&r->cost.s)));
		} else {
			printf("hand-offs 0: stopped before the first\n");
		}
	}
	if (r->inv.ran)
		print_inversion(c, r);
}

static void json_settings(struct json *j, const struct test_run *t)
{
	const struct sync_config *c = t->cfg;

	json_obj_open(j, "settings");
	results_settings(j, t->opts, NULL);
	json_str(j, "mode", c->fork ? "processes" : "threads");
	json_obj_close(j);
}

static void json_body(struct json *j, void *arg)
{
	const struct test_run *t = arg;
	const struct sync_run *r = t->state;

	json_settings(j, t);
	if (r->cost.ran)
		results_stats(j, "cost", &r->cost.s, NULL);
	if (r->sw.ran) {
		json_obj_open(j, "switch");
		if (r->sw.s.n) {
			json_double(j, "round_trip_ns", 2 * stats_mean(&r->sw.s));
			json_double(j, "context_switch_ns",
				    sync_ctx_estimate(2 * stats_mean(&r->sw.s),
						      stats_mean(&r->cost.s)));
		} else {	/* stopped before the first hand-off */
			json_null(j, "round_trip_ns");
			json_null(j, "context_switch_ns");
		}
		results_stats(j, "handoff", &r->sw.s, NULL);
		json_obj_close(j);
	}
	if (r->inv.ran) {
		json_obj_open(j, "inversion");
		json_int(j, "bound_ns", r->inv.bound_ns);
		json_uint(j, "bounded_rounds", r->inv.bounded);
		json_bool(j, "bounded", r->inv.s.n && r->inv.bounded == r->inv.s.n);
		json_uint(j, "skipped_rounds", r->inv.skipped);
		results_stats(j, "blocking", &r->inv.s, NULL);
		json_obj_close(j);
	}
}

static int sync_report(struct test_run *t, int status)
{
	struct sync_run *r = t->state;

	if (t->error)
		r->error = t->error;
	if (!r->cost.s.n && !r->sw.s.n && !r->inv.s.n && !r->error && run_stop_requested)
		r->error = "stopped by a signal before the first sample";
	if (r->error)
		status = 1;
	print_results(t->cfg, r);
	fflush(stdout);
	if (r->error)
		fprintf(stderr, "%s: %s\n", t->prog, r->error);
	/* Every series the tests asked for, measured or not: one with no
	 * sample is still a case of the fleet outputs (skipped), never gone. */
	if (wants(t->cfg, SYNC_COST))
		results_summary(&t->res, sync_series[0], &r->cost.s);
	if (wants(t->cfg, SYNC_SWITCH))
		results_summary(&t->res, sync_series[1], &r->sw.s);
	if (wants(t->cfg, SYNC_INVERSION))
		results_summary(&t->res, sync_series[2], &r->inv.s);
	return bench_json(&t->res, status, r->error, json_body, t);
}

/* --checkpoint: the series so far, copied (checkpoint.c). */
static void sync_checkpoint(struct test_run *t)
{
	const struct sync_run *r = t->state;
	const struct stats *const s[] = { &r->cost.s, sync_switch_live(&r->pair, &r->sw),
					  &r->inv.s };
	struct test_run tt = *t;
	struct sync_run snap = *r;
	struct stats *const d[] = { &snap.cost.s, &snap.sw.s, &snap.inv.s };
	int i, err = 0;

	for (i = 0; i < 3 && !err; i++) {
		memset(&d[i]->hist, 0, sizeof(d[i]->hist));
		err = checkpoint_stats_copy(d[i], s[i]);
	}
	tt.state = &snap;
	if (!err) {
		if (wants(t->cfg, SYNC_COST))
			results_summary(&t->res, sync_series[0], d[0]);
		if (wants(t->cfg, SYNC_SWITCH))
			results_summary(&t->res, sync_series[1], d[1]);
		if (wants(t->cfg, SYNC_INVERSION))
			results_summary(&t->res, sync_series[2], d[2]);
		bench_json(&t->res, 0, r->error, json_body, &tt);
	}
	while (i-- > 0)
		checkpoint_stats_free(d[i]);
}

static void sync_teardown(struct test_run *t)
{
	struct sync_run *r = t->state;

	stats_free(&r->cost.s);
	run_nested_free(&r->pair);
	stats_free(&r->inv.s);
}

static long long sync_suite_args(char *buf, size_t len, long long d, long long prio)
{
	(void)d;
	snprintf(buf, len, "-p %lld -l 2000 --rounds 20", prio > 98 ? 98 : prio);
	return 1;
}

const struct test_ops test_sync = {
	.name = "sync", .compat = NULL,
	.title = "semaphore cost, context switch and priority inversion",
	.family = "determinism", .series = sync_series,
	.opts = sync_opts, .common = OPT_AT_STRUCT(struct sync_config, common),
	.cfg_size = sizeof(struct sync_config), .run_size = sizeof(struct sync_run), .stop = STOP_BY_HANDLER,
	/* Under emulation the low task can be late and a round skipped. */
	.check_args = "-l 200 --rounds 3",
	.check_line = "^test 3 inversion \\(inherit, cs 1000 us, hog 5 ms\\): rounds \\d+, ",
	.kick = true, .suite_args = sync_suite_args, .check = sync_check,
	.setup = sync_setup, .rt_apply = sync_rt_apply, .measure = sync_measure,
	.report = sync_report, .teardown = sync_teardown,
	.checkpoint = sync_checkpoint,
};
