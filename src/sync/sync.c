// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * sync.c - "rtlat sync": options, the three tests in turn, the report.
 */
#include <stdio.h>
#include <stdlib.h>
#include "harness/bench.h"
#include "core/clock.h"
#include "core/json.h"
#include "core/opts.h"
#include "harness/results.h"
#include "sync/sync.h"
#include "core/sysinfo.h"

struct sync_config sync_cfg;
static struct sync_result cost, sw;
static struct inv_result inv;
static const char *error;

static const char *const test_names[] = { "all", "cost", "switch", "inversion", NULL };
const char *const sync_type_names[] = { "posix", "named", "sysv", "mutex", NULL };
const char *const sync_proto_names[] = { "none", "inherit", "protect", NULL };

static struct opt sync_opts[] = {
	{ 'c', "cpu", OPT_CPU, OPT_ARG_REQUIRED, "CPU", 0, 0, -1, &sync_cfg.cpu,
	  "run every task on CPU (default: the last online CPU)", NULL, false },
	{ 'D', "duration", OPT_DURATION, OPT_ARG_REQUIRED, "TIME", 0, 3650LL * 86400, 0,
	  &sync_cfg.duration_s, "stop each test after TIME (N[s|m|h|d]); 0: none", NULL, false },
	{ 'f', "fork", OPT_FLAG, OPT_ARG_NONE, NULL, 0, 0, 0, &sync_cfg.fork,
	  "test 2 between two processes (needs --type sysv)", NULL, false },
	{ 'h', "help", OPT_HELP, OPT_ARG_NONE, NULL, 0, 0, 0, NULL, "print this help", NULL, false },
	{ 'l', "loops", OPT_INT, OPT_ARG_REQUIRED, "LOOPS", 0, 1LL << 40, 10000, &sync_cfg.loops,
	  "calls (test 1) and hand-offs (test 2); 0: until -D or stopped", NULL, false },
	{ 'p', "prio", OPT_INT, OPT_ARG_REQUIRED, "PRIO", 3, 98, 90, &sync_cfg.prio,
	  "SCHED_FIFO priority (test 3: high PRIO, medium PRIO-1, low PRIO-2)", NULL, false },
	{ 0, "test", OPT_CHOICE, OPT_ARG_REQUIRED, "TEST", 0, 0, 0, &sync_cfg.test,
	  "all, cost (test 1), switch (tests 1 and 2), inversion (test 3)", test_names, false },
	{ 0, "type", OPT_CHOICE, OPT_ARG_REQUIRED, "TYPE", 0, 0, 0, &sync_cfg.type,
	  "tests 1, 2: posix (unnamed sem_t), named (sem_open), sysv (semop), mutex",
	  sync_type_names, false },
	{ 0, "protocol", OPT_CHOICE, OPT_ARG_REQUIRED, "PROTO", 0, 0, 1, &sync_cfg.protocol,
	  "test 3: the mutex protocol: none, inherit, protect", sync_proto_names, false },
	{ 0, "rounds", OPT_INT, OPT_ARG_REQUIRED, "N", 1, 100000, 50, &sync_cfg.rounds,
	  "test 3: rounds", NULL, false },
	{ 0, "hog", OPT_INT, OPT_ARG_REQUIRED, "MS", 1, 100, 5, &sync_cfg.hog_ms,
	  "test 3: the medium task burns the CPU for MS ms a round", NULL, false },
	{ 0, "cs", OPT_INT, OPT_ARG_REQUIRED, "US", 10, 100000, 1000, &sync_cfg.cs_us,
	  "test 3: the low task's critical section, US us of CPU time", NULL, false },
	{ 0, "margin", OPT_INT, OPT_ARG_REQUIRED, "US", 0, 1000000, 500, &sync_cfg.margin_us,
	  "test 3: bounded means blocking <= critical section + US us", NULL, false },
	TEST_COMMON_OPTS(&sync_cfg.common, "write results to FILE as JSON"),
	OPT_END
};

static bool wants(enum sync_test t)
{
	return sync_cfg.test == SYNC_ALL || sync_cfg.test == t ||
	       (t == SYNC_COST && sync_cfg.test == SYNC_SWITCH);
}

static int sync_check(struct test_run *t)
{
	if (sync_cfg.fork && sync_cfg.type != TYPE_SYSV) {
		opts_error(t->prog, opts_find(t->opts, 'f', NULL),
			   "processes need a shared semaphore; accepted: -f with --type sysv");
		return -1;
	}
	if (sync_cfg.cpu < 0)
		sync_cfg.cpu = cpus_online() - 1;
	return 0;
}

static int sync_setup(struct test_run *t)
{
	if (!wants(SYNC_COST))
		return 0;
	return sync_pair_prepare(t->prog);
}

static int sync_rt_apply(struct test_run *t)
{
	(void)t;
	return rt_probe((int)sync_cfg.prio, (int)sync_cfg.cpu);
}

static int sync_measure(struct test_run *t)
{
	int64_t d = sync_cfg.duration_s * NSEC_PER_SEC;
	int status = 0;

	(void)t;
	if (wants(SYNC_COST) && !run_stop_requested)
		status = sync_cost(&cost, d ? clock_now_ns() + d : 0, &error);
	if (!status && wants(SYNC_SWITCH) && !run_stop_requested)
		status = sync_switch(&sw, &error);
	if (!status && wants(SYNC_INVERSION) && !run_stop_requested)
		status = sync_inversion(&inv, d ? clock_now_ns() + d : 0, &error);
	return status;
}

static void print_series(const char *what, const struct stats *s, double div, const char *unit)
{
	printf("%s %llu, min %.1f avg %.1f p50 %.1f p99 %.1f max %.1f %s",
	       what, (unsigned long long)s->n, (double)s->min / div, stats_mean(s) / div,
	       (double)stats_percentile(s, 50) / div, (double)stats_percentile(s, 99) / div,
	       (double)s->max / div, unit);
}

static void print_inversion(void)
{
	const struct stats *s = &inv.s;

	printf("test 3 inversion (%s, cs %lld us, hog %lld ms): ",
	       sync_proto_names[sync_cfg.protocol], sync_cfg.cs_us, sync_cfg.hog_ms);
	print_series("rounds", s, 1e3, "us blocked");
	printf("; bounded %llu/%llu (<= %lld us): %s",
	       (unsigned long long)inv.bounded, (unsigned long long)s->n,
	       (long long)(inv.bound_ns / NSEC_PER_USEC),
	       s->n && inv.bounded == s->n ? "yes" : "no");
	if (inv.skipped)
		printf(", %llu rounds skipped (low task late)", (unsigned long long)inv.skipped);
	printf("\n");
	if (s->max > sync_cfg.cs_us * NSEC_PER_USEC + sync_cfg.hog_ms * NSEC_PER_MSEC +
		     5 * NSEC_PER_MSEC)
		printf("# note: blocked past critical section + hog: RT throttling (sched_rt_runtime_us %lld) or other real-time tasks on CPU %lld\n",
		       sysinfo_read_ll("/proc/sys/kernel/sched_rt_runtime_us"), sync_cfg.cpu);
}

static void print_results(void)
{
	printf("# sync: CPU %lld, SCHED_FIFO %lld\n", sync_cfg.cpu, sync_cfg.prio);
	if (cost.s.n) {
		printf("test 1 cost (%s): ", sync_type_names[sync_cfg.type]);
		print_series("calls", &cost.s, 1, "ns\n");
	}
	if (sw.s.n) {
		double rt = 2 * stats_mean(&sw.s);

		printf("test 2 switch (%s, %s): ", sync_type_names[sync_cfg.type],
		       sync_cfg.fork ? "processes" : "threads");
		print_series("hand-offs", &sw.s, 1, "ns");
		printf("; round trip %.1f ns, context switch %.1f ns\n", rt,
		       sync_ctx_estimate(rt, stats_mean(&cost.s)));
	}
	if (inv.ran)
		print_inversion();
}

static void json_settings(struct json *j)
{
	json_obj_open(j, "settings");
	json_str(j, "test", test_names[sync_cfg.test]);
	json_str(j, "type", sync_type_names[sync_cfg.type]);
	json_str(j, "mode", sync_cfg.fork ? "processes" : "threads");
	json_str(j, "protocol", sync_proto_names[sync_cfg.protocol]);
	json_int(j, "cpu", sync_cfg.cpu);
	json_int(j, "priority", sync_cfg.prio);
	json_int(j, "loops", sync_cfg.loops);
	json_int(j, "rounds", sync_cfg.rounds);
	json_int(j, "duration_s", sync_cfg.duration_s);
	json_int(j, "hog_ms", sync_cfg.hog_ms);
	json_int(j, "cs_us", sync_cfg.cs_us);
	json_int(j, "margin_us", sync_cfg.margin_us);
	json_obj_close(j);
}

static void json_body(struct json *j, void *arg)
{
	(void)arg;
	json_settings(j);
	if (cost.ran)
		results_stats(j, "cost", &cost.s, NULL);
	if (sw.ran) {
		json_obj_open(j, "switch");
		json_double(j, "round_trip_ns", 2 * stats_mean(&sw.s));
		json_double(j, "context_switch_ns",
			    sync_ctx_estimate(2 * stats_mean(&sw.s), stats_mean(&cost.s)));
		results_stats(j, "handoff", &sw.s, NULL);
		json_obj_close(j);
	}
	if (inv.ran) {
		json_obj_open(j, "inversion");
		json_int(j, "bound_ns", inv.bound_ns);
		json_uint(j, "bounded_rounds", inv.bounded);
		json_bool(j, "bounded", inv.s.n && inv.bounded == inv.s.n);
		json_uint(j, "skipped_rounds", inv.skipped);
		results_stats(j, "blocking", &inv.s, NULL);
		json_obj_close(j);
	}
}

static int sync_report(struct test_run *t, int status)
{
	if (t->error)
		error = t->error;
	if (!cost.s.n && !sw.s.n && !inv.s.n && !error && run_stop_requested)
		error = "stopped by a signal before the first sample";
	if (error)
		status = 1;
	print_results();
	fflush(stdout);
	if (error)
		fprintf(stderr, "%s: %s\n", t->prog, error);
	if (cost.s.n)
		results_summary("cost", &cost.s);
	if (sw.s.n)
		results_summary("handoff", &sw.s);
	if (inv.s.n)
		results_summary("blocking", &inv.s);
	return bench_json(&t->res, status, error, json_body, NULL);
}

static void sync_teardown(struct test_run *t)
{
	(void)t;
	stats_free(&cost.s);
	stats_free(&inv.s);
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
	.opts = sync_opts, .common = &sync_cfg.common, .stop = STOP_BY_HANDLER,
	.kick = true, .suite_args = sync_suite_args, .check = sync_check,
	.setup = sync_setup, .rt_apply = sync_rt_apply, .measure = sync_measure,
	.report = sync_report, .teardown = sync_teardown,
};
