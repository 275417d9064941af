// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * response.c - "rtlat response": options, the run (calibrate, then time
 * each block) and its report. The works are in response_work.c.
 */
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <stdlib.h>
#include "determinism/bench.h"
#include "measure/clock.h"
#include "util/json.h"
#include "util/opts.h"
#include "response/response_types.h"
#include "response/response_work.h"
#include "harness/results.h"
#include "measure/stats.h"
#include "harness/checkpoint.h"
#include "harness/test.h"
#include "response/response_test.h"

/* Histogram: 10000 buckets per block, up to four blocks. */
#define RESP_BUCKETS_PER_BLOCK	10000

/* What results_summary() reports (rtlat --list). */
static const char *const resp_series[] = { "time", NULL };

struct resp_config {
	long long work, block_ms, loops, duration_s, prio, cpu, fft_points;
	bool quiet;
	struct test_common common;
};

/* One run (t->state); the thread reads cfg and writes the rest. */
struct resp_run {
	const struct resp_config *cfg;
	const struct opt *opts;		/* the run's table: the settings */
	struct stats times;
	struct rec_series *rec;		/* --timeline, --largest; or NULL */
	struct bench_thread thread;
	uint64_t units;
	double ns_per_unit;
	atomic_int calibrated;	/* the measuring thread writes, main reads */
	struct work work;
	const char *error;
};

static const struct opt resp_opts[] = {
	{ .short_name = 'c', .long_name = "cpu", .type = OPT_CPU,
	  .arg = OPT_ARG_REQUIRED, .argname = "CPU", .dflt = -1,
	  .dest = OPT_AT(struct resp_config, cpu),
	  .help = "run on CPU (default: the last online CPU)", .key = "cpu" },
	OPT_ROW_DURATION(struct resp_config, duration_s, 0,
			 "stop after TIME (N[s|m|h|d]); 0: none"),
	OPT_ROW_HELP,
	OPT_ROW_LOOPS(struct resp_config, loops, 1LL << 40, 100,
		      "blocks to run; 0: until -D or stopped"),
	OPT_ROW_PRIO(struct resp_config, prio, 0, 99, 95,
		     "SCHED_FIFO priority; 0: SCHED_OTHER"),
	OPT_ROW_QUIET(struct resp_config, quiet,
		      "no calibration line"),
	{ .long_name = "block", .type = OPT_INT, .arg = OPT_ARG_REQUIRED,
	  .argname = "MS", .min = 1, .max = 1000, .dflt = 10,
	  .dest = OPT_AT(struct resp_config, block_ms),
	  .help = "calibrate the block to about MS milliseconds", .key = "block_ms" },
	{ .long_name = "work", .type = OPT_CHOICE, .arg = OPT_ARG_REQUIRED,
	  .argname = "WORK", .dest = OPT_AT(struct resp_config, work),
	  .help = "add (integer loop), copy (memcpy from a source larger than the LLC), whetstone (floating-point mix), fft",
	  .choices = work_names, .key = "work" },
	{ .long_name = "fft-points", .type = OPT_INT, .arg = OPT_ARG_REQUIRED,
	  .argname = "N", .max = (long long)WORK_FFT_MAX_POINTS,
	  .dest = OPT_AT(struct resp_config, fft_points),
	  .help = "fft: transform size, a power of two from 1024 to 67108864; 0: the smallest whose data and twiddles (32 bytes a point) exceed the last-level cache",
	  .key = "fft_points" },
	TEST_COMMON_OPTS(OPT_AT_STRUCT(struct resp_config, common), "write results to FILE as JSON"),
	OPT_END
};

static void resp_loop(struct bench_thread *bt)
{
	struct resp_run *r = bt->arg;
	const struct resp_config *c = r->cfg;
	uint64_t i;
	int64_t t0, t1;

	r->units = work_calibrate(&r->work, c->block_ms * NSEC_PER_MSEC, &r->ns_per_unit);
	r->calibrated = 1;
	for (i = 0; !c->loops || i < (uint64_t)c->loops; i++) {
		if (bench_stopping())
			break;
		t0 = clock_now_ns();
		work_run(&r->work, r->units);
		t1 = clock_now_ns();
		stats_add(&r->times, t1 - t0);
		record_add(r->rec, t1, t1 - t0);
	}
}

static int resp_check(struct test_run *t)
{
	const struct resp_config *c = t->cfg;
	unsigned long long n = (unsigned long long)c->fft_points;

	if (n && (n < WORK_FFT_MIN_POINTS || (n & (n - 1)))) {
		opts_error(t->prog, opts_find(t->opts, 0, "fft-points"),
			   "%llu is not a power of two from %llu to %llu; accepted: such a power of two, or 0 for the default",
			   n, WORK_FFT_MIN_POINTS, WORK_FFT_MAX_POINTS);
		return -1;
	}
	return 0;
}

static int resp_setup(struct test_run *t)
{
	struct resp_config *c = t->cfg;
	struct resp_run *r = t->state;
	int64_t block = c->block_ms * NSEC_PER_MSEC;

	r->cfg = c;
	r->opts = t->opts;
	r->thread.arg = r;
	if (c->cpu < 0)
		c->cpu = cpu_usable_last();
	r->thread.cpu = (int)c->cpu;
	r->thread.prio = (int)c->prio;
	r->thread.fn = resp_loop;
	if (work_init(&r->work, (enum work_kind)c->work, (uint64_t)c->fft_points))
		return -1;
	r->rec = run_record(t, resp_series[0], 0, (int)c->cpu);
	return stats_init(&r->times, 0, (uint64_t)block / RESP_BUCKETS_PER_BLOCK,
			  4 * RESP_BUCKETS_PER_BLOCK) ? -1 : 0;
}

static int resp_rt_apply(struct test_run *t)
{
	const struct resp_config *c = t->cfg;

	return rt_probe((int)c->prio, (int)c->cpu);
}

static int resp_measure(struct test_run *t)
{
	const struct resp_config *c = t->cfg;
	struct resp_run *r = t->state;
	int64_t end = c->duration_s ? clock_now_ns() + c->duration_s * NSEC_PER_SEC : 0;

	if (bench_start(&r->thread, 1))
		r->error = "cannot start the measuring thread";
	if (bench_wait(&r->thread, 1, end) && !r->error)
		r->error = "the measuring thread could not apply its settings (--strict)";
	return r->error ? 1 : 0;
}

static double ratio(const struct stats *s)
{
	return s->n && s->min > 0 ? (double)s->max / (double)s->min : 0;
}

static void print_result(const struct resp_config *c, const struct resp_run *r)
{
	const struct stats *s = &r->times;
	double avg = stats_mean(s);

	printf("work %s: blocks %llu, min %.1f avg %.1f p50 %.1f p99 %.1f max %.1f us, stddev %.1f us (%.2f %%), max/min %.4f\n",
	       work_names[c->work], (unsigned long long)s->n, (double)s->min / 1e3,
	       avg / 1e3, (double)stats_percentile(s, 50) / 1e3,
	       (double)stats_percentile(s, 99) / 1e3, (double)s->max / 1e3,
	       stats_stddev(s) / 1e3, avg > 0 ? 100.0 * stats_stddev(s) / avg : 0.0,
	       ratio(s));
}

static void json_body(struct json *j, void *arg)
{
	const struct resp_run *r = arg;

	json_obj_open(j, "settings");
	results_settings(j, r->opts, NULL);
	json_obj_close(j);
	json_obj_open(j, "calibration");
	json_uint(j, "units", r->units);
	json_double(j, "ns_per_unit", r->ns_per_unit);
	json_double(j, "block_ns", (double)r->units * r->ns_per_unit);
	json_uint(j, "copy_bytes", r->work.copy_bytes);
	json_uint(j, "fft_points", r->work.fft_points);
	json_uint(j, "fft_bytes", r->work.fft_points * WORK_FFT_BYTES_PER_POINT);
	json_uint(j, "llc_bytes", r->work.llc_bytes);
	json_obj_close(j);
	json_double(j, "max_min_ratio", ratio(&r->times));
	results_stats(j, "times", &r->times, NULL);
}

static int resp_report(struct test_run *t, int status)
{
	const struct resp_config *c = t->cfg;
	struct resp_run *r = t->state;

	if (t->error)
		r->error = t->error;
	if (!r->times.n && !r->error && run_stop_requested)
		r->error = "stopped by a signal before the first block";
	if (r->error)
		status = 1;
	if (r->calibrated && !c->quiet) {
		printf("# response: work %s calibrated to %lld ms: %llu units of %.1f ns",
		       work_names[c->work], c->block_ms, (unsigned long long)r->units,
		       r->ns_per_unit);
		if (c->work == WORK_COPY)
			printf(" (64 KiB copies)");
		else if (c->work == WORK_FFT)
			printf(" (%d butterflies of a %llu-point transform)", WORK_FFT_UNIT,
			       (unsigned long long)r->work.fft_points);
		printf("\n");
	}
	if (r->times.n)
		print_result(c, r);
	fflush(stdout);
	if (r->error)
		fprintf(stderr, "%s: %s\n", t->prog, r->error);
	results_summary(&t->res, resp_series[0], &r->times);
	return bench_json(&t->res, status, r->error, json_body, r);
}

/* --checkpoint: the blocks' times so far, copied (checkpoint.c). */
static void resp_checkpoint(struct test_run *t)
{
	const struct resp_run *r = t->state;
	struct resp_run snap = *r;

	memset(&snap.times.hist, 0, sizeof(snap.times.hist));
	if (checkpoint_stats_copy(&snap.times, &r->times))
		return;
	results_summary(&t->res, resp_series[0], &snap.times);
	bench_json(&t->res, 0, r->error, json_body, &snap);
	checkpoint_stats_free(&snap.times);
}

static void resp_teardown(struct test_run *t)
{
	struct resp_run *r = t->state;

	stats_free(&r->times);
	work_fini(&r->work);
}

static long long resp_suite_args(char *buf, size_t len, long long d, long long prio)
{
	(void)d;
	snprintf(buf, len, "-p %lld -l 50 --block 10", prio);
	return 1;
}

const struct test_ops test_response = {
	.name = "response", .compat = NULL,
	.title = "execution-time variation of a calibrated block of work",
	.family = "determinism", .series = resp_series,
	.opts = resp_opts, .common = OPT_AT_STRUCT(struct resp_config, common),
	.cfg_size = sizeof(struct resp_config), .run_size = sizeof(struct resp_run), .stop = STOP_BY_HANDLER,
	.check_args = "-l 20",
	.check_line = "^work add: blocks 20, min [\\d.]+ avg ",
	.suite_args = resp_suite_args, .check = resp_check, .setup = resp_setup, .rt_apply = resp_rt_apply,
	.measure = resp_measure, .report = resp_report, .teardown = resp_teardown,
	.checkpoint = resp_checkpoint,
};
