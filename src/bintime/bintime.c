// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * bintime.c - "rtlat bintime": options, the run and its report. The loop
 * is in bintime_loop.c.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "bintime/bintime_types.h"
#include "bintime/bintime_loop.h"
#include "measure/clock.h"
#include "explain/explain.h"
#include "util/json.h"
#include "util/opts.h"
#include "harness/results.h"
#include "harness/checkpoint.h"
#include "harness/test.h"
#include "bintime/bintime_test.h"

/* What results_summary() reports (rtlat --list). */
static const char *const bt_series[] = { "gap", NULL };

struct bt_config {
	long long duration_s, loops, prio, thresh_us, clock;
	struct cpu_list cpus;
	bool quiet;
	struct test_common common;
};

/* One run (t->state). */
struct bt_run {
	struct bt_cpu *cpus;
	struct bench_thread *threads;
	int ncpus;
	int64_t t_start;
	const char *error;
	struct tsc_cal tsc_cal;
};

enum { BT_CLOCK_MONO, BT_CLOCK_TSC };
static const char *const bt_clock_names[] = { "mono", "tsc", NULL };

static const struct opt bt_opts[] = {
	{ .short_name = 'a', .long_name = "cpus", .type = OPT_CPU_LIST,
	  .arg = OPT_ARG_REQUIRED, .argname = "LIST",
	  .dest = OPT_AT(struct bt_config, cpus),
	  .help = "one thread per CPU in LIST (\"0-1\", \"1,3\"); default: the last online CPU" },
	{ .long_name = "clock", .type = OPT_CHOICE, .arg = OPT_ARG_REQUIRED,
	  .argname = "CLOCK", .dflt = BT_CLOCK_MONO,
	  .dest = OPT_AT(struct bt_config, clock),
	  .help = "the clock read: mono (CLOCK_MONOTONIC), tsc (the CPU's counter, calibrated against mono at start: x86 invariant TSC, arm64 CNTVCT_EL0; on other CPUs only mono)",
	  .choices = bt_clock_names, .key = "clock" },
	OPT_ROW_DURATION(struct bt_config, duration_s, 10,
			 "run for TIME (N[s|m|h|d]); 0: until -l or stopped"),
	OPT_ROW_HELP,
	OPT_ROW_LOOPS(struct bt_config, loops, 1LL << 62, 0,
		      "clock reads per CPU; 0: until -D or stopped"),
	OPT_ROW_PRIO(struct bt_config, prio, 0, 99, 95,
		     "SCHED_FIFO priority; 0: SCHED_OTHER"),
	OPT_ROW_QUIET(struct bt_config, quiet,
		      "no header line"),
	{ .long_name = "threshold", .type = OPT_INT, .arg = OPT_ARG_REQUIRED,
	  .argname = "US", .min = 1, .max = 1000000, .dflt = 20,
	  .dest = OPT_AT(struct bt_config, thresh_us),
	  .help = "count the gaps longer than US microseconds", .key = "threshold_us" },
	TEST_EXPLAIN_OPTS(OPT_AT_STRUCT(struct bt_config, common)),
	TEST_COMMON_OPTS(OPT_AT_STRUCT(struct bt_config, common), "write results to FILE as JSON"),
	OPT_END
};

static int bt_check(struct test_run *t)
{
	const struct bt_config *c = t->cfg;

	if (c->clock == BT_CLOCK_TSC && !tsc_available()) {
		opts_error(t->prog, opts_find(t->opts, 0, "clock"),
			   TSC_NEEDS "; accepted: mono");
		return -1;
	}
	return 0;
}

static int bt_setup(struct test_run *t)
{
	const struct bt_config *cf = t->cfg;
	struct bt_run *r = t->state;
	int i;

	if (cf->clock == BT_CLOCK_TSC && tsc_calibrate(&r->tsc_cal)) {
		fprintf(stderr, "%s: --clock tsc: the counter's calibration against mono failed (out of range, or off the stated frequency); use --clock mono\n",
			t->prog);
		errno = EIO;
		return -1;
	}
	r->ncpus = cf->cpus.n ? cf->cpus.n : 1;
	r->cpus = calloc((size_t)r->ncpus, sizeof(*r->cpus));
	r->threads = calloc((size_t)r->ncpus, sizeof(*r->threads));
	if (!r->cpus || !r->threads)
		return -1;
	for (i = 0; i < r->ncpus; i++) {
		struct bt_cpu *c = &r->cpus[i];

		c->cpu = cf->cpus.n ? cf->cpus.cpu[i] : cpu_usable_last();
		r->threads[i].cpu = c->cpu;
		r->threads[i].prio = (int)cf->prio;
		r->threads[i].fn = bt_loop;
		r->threads[i].arg = c;
		c->loops = (uint64_t)cf->loops;
		c->thresh_ns = cf->thresh_us * NSEC_PER_USEC;
		c->use_tsc = cf->clock == BT_CLOCK_TSC;
		c->tsc = r->tsc_cal;
		c->rec = run_record(t, bt_series[0], i, c->cpu);
		if (stats_init(&c->slow, 0, BT_BUCKET_NS, BT_BUCKETS) ||
		    stats_init(&c->all, 0, BT_BUCKET_NS, BT_BUCKETS))
			return -1;
	}
	return 0;
}

static int bt_rt_apply(struct test_run *t)
{
	const struct bt_config *c = t->cfg;
	const struct bt_run *r = t->state;

	return rt_probe((int)c->prio, r->cpus[0].cpu);
}

/* --explain: each CPU's loop is a source; it runs at the gap's start. */
static int explain_loops(struct test_run *t)
{
	struct bt_run *r = t->state;
	struct explain *x = run_explain_new(t, r->ncpus);
	int i;

	for (i = 0; i < explain_count(x); i++)
		explain_src_set(x, i, r->cpus[i].cpu, NULL, true, "loop %d", i);
	if (run_explain_start(t))
		return -1;
	for (i = 0; i < r->ncpus; i++)
		r->cpus[i].xsrc = explain_source(t->explain, i);
	return 0;
}

static int bt_measure(struct test_run *t)
{
	const struct bt_config *c = t->cfg;
	struct bt_run *r = t->state;
	int64_t end = 0;
	int i, err;

	if (explain_loops(t))
		return 1;
	r->t_start = clock_now_ns();
	if (c->duration_s)
		end = r->t_start + c->duration_s * NSEC_PER_SEC;
	for (i = 0; i < r->ncpus; i++)
		r->cpus[i].end_ns = end;
	err = bench_start(r->threads, r->ncpus);
	if (err)
		r->error = "cannot start a measuring thread";
	if (bench_wait(r->threads, r->ncpus, end) && !r->error)
		r->error = "a measuring thread could not apply its settings (--strict)";
	return r->error ? 1 : 0;
}

static double ns_per_iter(const struct bt_cpu *c)
{
	return c->all.n ? (double)(c->t_last - c->t_first) / (double)c->all.n : 0;
}

static void print_cpu(const struct bt_cpu *c, long long thresh_us)
{
	const struct stats *s = &c->all;
	double avg = stats_mean(s);

	printf("CPU%d: reads %llu, %.2f ns/read, gap min %lld avg %.1f p50 %lld p99 %lld p99.99 %lld max %lld ns, blocking %.0f ns, over %lld us: %llu (%lld ns)\n",
	       c->cpu, (unsigned long long)s->n, ns_per_iter(c),
	       s->n ? (long long)s->min : 0, avg,
	       (long long)stats_percentile(s, 50), (long long)stats_percentile(s, 99),
	       (long long)stats_percentile(s, 99.99), s->n ? (long long)s->max : 0,
	       s->n ? (double)s->max - avg : 0.0, thresh_us,
	       (unsigned long long)c->over_n, (long long)c->over_total);
}

static void print_header(const struct bt_config *c, const struct bt_run *r)
{
	printf("# bintime: %d CPU(s), SCHED_FIFO %lld, threshold %lld us, clock %s",
	       r->ncpus, c->prio, c->thresh_us, bt_clock_names[c->clock]);
	if (c->clock == BT_CLOCK_TSC)
		printf(" %.3f MHz (calibrated: %d windows of %d ms, spread %.1f ppm)",
		       r->tsc_cal.hz / 1e6, r->tsc_cal.windows, TSC_CAL_WINDOW_MS,
		       r->tsc_cal.spread_ppm);
	putchar('\n');
}

static void json_body(struct json *j, void *arg)
{
	const struct test_run *t = arg;
	const struct bt_config *cf = t->cfg;
	const struct bt_run *r = t->state;
	char key[16];
	int i;

	json_obj_open(j, "settings");
	results_settings(j, t->opts, NULL);
	json_obj_close(j);
	if (cf->clock == BT_CLOCK_TSC) {
		json_obj_open(j, "tsc");
		json_double(j, "hz", r->tsc_cal.hz);
		json_double(j, "spread_ppm", r->tsc_cal.spread_ppm);
		json_int(j, "windows", r->tsc_cal.windows);
		json_int(j, "window_ms", TSC_CAL_WINDOW_MS);
		json_obj_close(j);
	}
	json_obj_open(j, "cpus");
	for (i = 0; i < r->ncpus; i++) {
		const struct bt_cpu *c = &r->cpus[i];

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

static void summary(struct results *res, const struct bt_run *r)
{
	struct stats m;
	int i;

	if (stats_init(&m, 0, BT_BUCKET_NS, BT_BUCKETS))
		return;
	for (i = 0; i < r->ncpus; i++)
		stats_merge(&m, &r->cpus[i].all);
	results_summary(res, bt_series[0], &m);
	stats_free(&m);
}

static int bt_report(struct test_run *t, int status)
{
	const struct bt_config *c = t->cfg;
	struct bt_run *r = t->state;
	uint64_t n = 0;
	int i;

	if (t->error)
		r->error = t->error;
	for (i = 0; i < r->ncpus; i++) {
		bt_fold(&r->cpus[i].all, r->cpus[i].fast, BT_FAST,
			r->cpus[i].use_tsc ? r->tsc_cal.ns_per_cycle : 1.0,
			&r->cpus[i].slow);
		n += r->cpus[i].all.n;
	}
	if (!n && !r->error && run_stop_requested)
		r->error = "stopped by a signal before the first sample";
	if (r->error)
		status = 1;
	if (!c->quiet)
		print_header(c, r);
	for (i = 0; n && i < r->ncpus; i++)
		print_cpu(&r->cpus[i], c->thresh_us);
	fflush(stdout);
	if (r->error)
		fprintf(stderr, "%s: %s\n", t->prog, r->error);
	summary(&t->res, r);
	return bench_json(&t->res, status, r->error, json_body, t);
}

/* --checkpoint: each CPU's gaps so far, folded in a copy. The fast
 * counts are words the loop increments, read as checkpoint.c explains. */
static void bt_checkpoint(struct test_run *t)
{
	const struct bt_run *r = t->state;
	struct test_run tt = *t;
	struct bt_run snap = *r;
	int i, err = 0;

	if (!r->cpus)
		return;
	snap.cpus = calloc((size_t)r->ncpus, sizeof(*snap.cpus));
	if (!snap.cpus)
		return;
	for (i = 0; i < r->ncpus && !err; i++) {
		snap.cpus[i] = r->cpus[i];
		memset(&snap.cpus[i].slow.hist, 0, sizeof(snap.cpus[i].slow.hist));
		err = checkpoint_stats_copy(&snap.cpus[i].slow, &r->cpus[i].slow) ||
		      checkpoint_hist_copy(&snap.cpus[i].all.hist, &r->cpus[i].all.hist, true);
		stats_reset(&snap.cpus[i].all);
		if (!err)
			bt_fold(&snap.cpus[i].all, snap.cpus[i].fast, BT_FAST,
				snap.cpus[i].use_tsc ? r->tsc_cal.ns_per_cycle : 1.0,
				&snap.cpus[i].slow);
	}
	tt.state = &snap;
	if (!err) {
		summary(&t->res, &snap);
		bench_json(&t->res, 0, r->error, json_body, &tt);
	}
	while (i-- > 0) {
		checkpoint_stats_free(&snap.cpus[i].slow);
		hist_free(&snap.cpus[i].all.hist);
	}
	free(snap.cpus);
}

static void bt_teardown(struct test_run *t)
{
	struct bt_run *r = t->state;
	int i;

	for (i = 0; r->cpus && i < r->ncpus; i++) {
		stats_free(&r->cpus[i].slow);
		stats_free(&r->cpus[i].all);
	}
	free(r->cpus);
	free(r->threads);
	r->cpus = NULL;
	r->threads = NULL;
}

/*
 * In the suite: SCHED_FIFO 1, below every measuring test, whatever the
 * suite's -p. Its busy loop holds its CPU for its whole run; at the
 * suite's 99 nothing else real-time ran there for that long (a timer
 * beside it saw a 2 s latency). At 1 every other real-time task
 * preempts it (and its time shows as gaps) and it still runs above
 * every SCHED_OTHER task, so the kernel's own interruptions are what
 * it measures.
 */
#define BT_SUITE_PRIO	1

static long long bt_suite_args(char *buf, size_t len, long long d, long long prio)
{
	(void)prio;
	d = d < 2 ? d : 2;
	snprintf(buf, len, "-q -p %d -D %lld", BT_SUITE_PRIO, d);
	return d;
}

const struct test_ops test_bintime = {
	.name = "bintime", .compat = NULL,
	.title = "longest time the kernel kept a busy SCHED_FIFO thread from running",
	.family = "determinism", .series = bt_series,
	.opts = bt_opts, .common = OPT_AT_STRUCT(struct bt_config, common),
	.cfg_size = sizeof(struct bt_config), .run_size = sizeof(struct bt_run), .stop = STOP_BY_HANDLER,
	.check_args = "-l 20000 -p 0",
	.check_line = "^CPU\\d+: reads 20000, [\\d.]+ ns/read, gap min ",
	.suite_args = bt_suite_args, .check = bt_check, .setup = bt_setup, .rt_apply = bt_rt_apply,
	.measure = bt_measure, .report = bt_report, .teardown = bt_teardown,
	.checkpoint = bt_checkpoint,
};
