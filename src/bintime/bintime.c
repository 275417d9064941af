// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * bintime.c - "rtlat bintime": options, the run and its report. The loop
 * is in bintime_loop.c.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "bintime/bintime.h"
#include "core/clock.h"
#include "explain/explain.h"
#include "core/json.h"
#include "core/opts.h"
#include "harness/results.h"
#include "harness/test.h"

struct bt_config {
	long long duration_s, loops, prio, thresh_us, clock;
	struct cpu_list cpus;
	bool quiet;
	struct test_common common;
};

static struct bt_config cfg;
static struct bt_cpu *cpus;
static struct bench_thread *threads;
static int ncpus;
static int64_t t_start;
static const char *error;
static struct tsc_cal tsc_cal;

enum { BT_CLOCK_MONO, BT_CLOCK_TSC };
static const char *const bt_clock_names[] = { "mono", "tsc", NULL };

static struct opt bt_opts[] = {
	{ 'a', "cpus", OPT_CPU_LIST, OPT_ARG_REQUIRED, "LIST", 0, 0, 0, &cfg.cpus,
	  "one thread per CPU in LIST (\"0-1\", \"1,3\"); default: the last online CPU", NULL, false },
	{ 0, "clock", OPT_CHOICE, OPT_ARG_REQUIRED, "CLOCK", 0, 0, BT_CLOCK_MONO, &cfg.clock,
	  "the clock read: mono (CLOCK_MONOTONIC), tsc (x86 invariant TSC, calibrated against mono at start)",
	  bt_clock_names, false },
	{ 'D', "duration", OPT_DURATION, OPT_ARG_REQUIRED, "TIME", 0, 3650LL * 86400, 10,
	  &cfg.duration_s, "run for TIME (N[s|m|h|d]); 0: until -l or stopped", NULL, false },
	{ 'h', "help", OPT_HELP, OPT_ARG_NONE, NULL, 0, 0, 0, NULL, "print this help", NULL, false },
	{ 'l', "loops", OPT_INT, OPT_ARG_REQUIRED, "LOOPS", 0, 1LL << 62, 0, &cfg.loops,
	  "clock reads per CPU; 0: until -D or stopped", NULL, false },
	{ 'p', "prio", OPT_INT, OPT_ARG_REQUIRED, "PRIO", 0, 99, 95, &cfg.prio,
	  "SCHED_FIFO priority; 0: SCHED_OTHER", NULL, false },
	{ 'q', "quiet", OPT_FLAG, OPT_ARG_NONE, NULL, 0, 0, 0, &cfg.quiet,
	  "no header line", NULL, false },
	{ 0, "threshold", OPT_INT, OPT_ARG_REQUIRED, "US", 1, 1000000, 20, &cfg.thresh_us,
	  "count the gaps longer than US microseconds", NULL, false },
	TEST_EXPLAIN_OPTS(&cfg.common),
	TEST_COMMON_OPTS(&cfg.common, "write results to FILE as JSON"),
	OPT_END
};

static int bt_check(struct test_run *t)
{
	if (cfg.clock == BT_CLOCK_TSC && !tsc_available()) {
		opts_error(t->prog, opts_find(t->opts, 0, "clock"),
			   "tsc needs an x86 CPU with an invariant TSC (CPUID 0x80000007 EDX bit 8), and this one has none; accepted: mono");
		return -1;
	}
	return 0;
}

static int bt_setup(struct test_run *t)
{
	int i;

	(void)t;
	if (cfg.clock == BT_CLOCK_TSC && tsc_calibrate(&tsc_cal))
		return -1;
	ncpus = cfg.cpus.n ? cfg.cpus.n : 1;
	cpus = calloc((size_t)ncpus, sizeof(*cpus));
	threads = calloc((size_t)ncpus, sizeof(*threads));
	if (!cpus || !threads)
		return -1;
	for (i = 0; i < ncpus; i++) {
		struct bt_cpu *c = &cpus[i];

		c->cpu = cfg.cpus.n ? cfg.cpus.cpu[i] : cpus_online() - 1;
		threads[i].cpu = c->cpu;
		threads[i].prio = (int)cfg.prio;
		threads[i].fn = bt_loop;
		threads[i].arg = c;
		c->loops = (uint64_t)cfg.loops;
		c->thresh_ns = cfg.thresh_us * NSEC_PER_USEC;
		c->use_tsc = cfg.clock == BT_CLOCK_TSC;
		c->tsc = tsc_cal;
		if (stats_init(&c->slow, 0, BT_BUCKET_NS, BT_BUCKETS) ||
		    stats_init(&c->all, 0, BT_BUCKET_NS, BT_BUCKETS))
			return -1;
	}
	return 0;
}

static int bt_rt_apply(struct test_run *t)
{
	(void)t;
	return rt_probe((int)cfg.prio, cpus[0].cpu);
}

/* --explain: each CPU's loop is a source; it runs at the gap's start. */
static int explain_loops(struct test_run *t)
{
	struct explain *x = run_explain_new(t, ncpus);
	int i;

	for (i = 0; x && i < x->nsrc; i++)
		explain_src_set(x, i, cpus[i].cpu, NULL, true, "loop %d", i);
	if (run_explain_start(t))
		return -1;
	for (i = 0; t->explain && i < t->explain->nsrc; i++)
		cpus[i].xsrc = &t->explain->src[i];
	return 0;
}

static int bt_measure(struct test_run *t)
{
	int64_t end = 0;
	int i, err;

	if (explain_loops(t))
		return 1;
	t_start = clock_now_ns();
	if (cfg.duration_s)
		end = t_start + cfg.duration_s * NSEC_PER_SEC;
	for (i = 0; i < ncpus; i++)
		cpus[i].end_ns = end;
	err = bench_start(threads, ncpus);
	if (err)
		error = "cannot start a measuring thread";
	if (bench_wait(threads, ncpus, end) && !error)
		error = "a measuring thread could not apply its settings (--strict)";
	return error ? 1 : 0;
}

static double ns_per_iter(const struct bt_cpu *c)
{
	return c->all.n ? (double)(c->t_last - c->t_first) / (double)c->all.n : 0;
}

static void print_cpu(const struct bt_cpu *c)
{
	const struct stats *s = &c->all;
	double avg = stats_mean(s);

	printf("CPU%d: reads %llu, %.2f ns/read, gap min %lld avg %.1f p50 %lld p99 %lld p99.99 %lld max %lld ns, blocking %.0f ns, over %lld us: %llu (%lld ns)\n",
	       c->cpu, (unsigned long long)s->n, ns_per_iter(c),
	       s->n ? (long long)s->min : 0, avg,
	       (long long)stats_percentile(s, 50), (long long)stats_percentile(s, 99),
	       (long long)stats_percentile(s, 99.99), s->n ? (long long)s->max : 0,
	       s->n ? (double)s->max - avg : 0.0, cfg.thresh_us,
	       (unsigned long long)c->over_n, (long long)c->over_total);
}

static void print_header(void)
{
	printf("# bintime: %d CPU(s), SCHED_FIFO %lld, threshold %lld us, clock %s",
	       ncpus, cfg.prio, cfg.thresh_us, bt_clock_names[cfg.clock]);
	if (cfg.clock == BT_CLOCK_TSC)
		printf(" %.3f MHz (calibrated: %d windows of %d ms, spread %.1f ppm)",
		       tsc_cal.hz / 1e6, tsc_cal.windows, TSC_CAL_WINDOW_MS,
		       tsc_cal.spread_ppm);
	putchar('\n');
}

static void json_body(struct json *j, void *arg)
{
	char key[16];
	int i;

	(void)arg;
	json_obj_open(j, "settings");
	json_int(j, "duration_s", cfg.duration_s);
	json_int(j, "loops", cfg.loops);
	json_int(j, "priority", cfg.prio);
	json_int(j, "threshold_us", cfg.thresh_us);
	json_str(j, "clock", bt_clock_names[cfg.clock]);
	json_obj_close(j);
	if (cfg.clock == BT_CLOCK_TSC) {
		json_obj_open(j, "tsc");
		json_double(j, "hz", tsc_cal.hz);
		json_double(j, "spread_ppm", tsc_cal.spread_ppm);
		json_int(j, "windows", tsc_cal.windows);
		json_int(j, "window_ms", TSC_CAL_WINDOW_MS);
		json_obj_close(j);
	}
	json_obj_open(j, "cpus");
	for (i = 0; i < ncpus; i++) {
		const struct bt_cpu *c = &cpus[i];

		snprintf(key, sizeof(key), "%d", c->cpu);
		json_obj_open(j, key);
		json_double(j, "ns_per_read", ns_per_iter(c));
		json_double(j, "reads_per_s", ns_per_iter(c) > 0 ? 1e9 / ns_per_iter(c) : 0);
		json_double(j, "blocking_ns", c->all.n ? (double)c->all.max - stats_mean(&c->all) : 0);
		json_uint(j, "over_threshold", c->over_n);
		json_int(j, "over_threshold_total_ns", c->over_total);
		results_stats(j, "gaps", &c->all, NULL);
		json_obj_close(j);
	}
	json_obj_close(j);
}

static void summary(void)
{
	struct stats m;
	int i;

	if (stats_init(&m, 0, BT_BUCKET_NS, BT_BUCKETS))
		return;
	for (i = 0; i < ncpus; i++)
		stats_merge(&m, &cpus[i].all);
	results_summary("gap", &m);
	stats_free(&m);
}

static int bt_report(struct test_run *t, int status)
{
	uint64_t n = 0;
	int i;

	if (t->error)
		error = t->error;
	for (i = 0; i < ncpus; i++) {
		bt_fold(&cpus[i].all, cpus[i].fast, BT_FAST,
			cpus[i].use_tsc ? tsc_cal.ns_per_cycle : 1.0,
			&cpus[i].slow);
		n += cpus[i].all.n;
	}
	if (!n && !error && run_stop_requested)
		error = "stopped by a signal before the first sample";
	if (error)
		status = 1;
	if (!cfg.quiet)
		print_header();
	for (i = 0; n && i < ncpus; i++)
		print_cpu(&cpus[i]);
	fflush(stdout);
	if (error)
		fprintf(stderr, "%s: %s\n", t->prog, error);
	summary();
	return bench_json(&t->res, status, error, json_body, NULL);
}

static void bt_teardown(struct test_run *t)
{
	int i;

	(void)t;
	for (i = 0; cpus && i < ncpus; i++) {
		stats_free(&cpus[i].slow);
		stats_free(&cpus[i].all);
	}
	free(cpus);
	free(threads);
	cpus = NULL;
	threads = NULL;
}

static long long bt_suite_args(char *buf, size_t len, long long d, long long prio)
{
	d = d < 2 ? d : 2;
	snprintf(buf, len, "-q -p %lld -D %lld", prio, d);
	return d;
}

const struct test_ops test_bintime = {
	.name = "bintime", .compat = NULL,
	.title = "longest time the kernel kept a busy SCHED_FIFO thread from running",
	.opts = bt_opts, .common = &cfg.common, .stop = STOP_BY_HANDLER,
	.suite_args = bt_suite_args, .check = bt_check, .setup = bt_setup, .rt_apply = bt_rt_apply,
	.measure = bt_measure, .report = bt_report, .teardown = bt_teardown,
};
