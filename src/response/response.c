// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * response.c - "rtlat response": options, the run (calibrate, then time
 * each block) and its report. The works are in response_work.c.
 */
#include <stdio.h>
#include <stdlib.h>
#include "harness/bench.h"
#include "core/clock.h"
#include "core/json.h"
#include "core/opts.h"
#include "response/response.h"
#include "harness/results.h"
#include "core/stats.h"
#include "harness/test.h"

/* Histogram: 10000 buckets per block, up to four blocks. */
#define RESP_BUCKETS_PER_BLOCK	10000

struct resp_config {
	long long work, block_ms, loops, duration_s, prio, cpu;
	bool quiet;
	struct test_common common;
};

static struct resp_config cfg;
static struct stats times;
static struct bench_thread thread;
static uint64_t units;
static double ns_per_unit;
static volatile int calibrated;
static const char *error;

static struct opt resp_opts[] = {
	{ 'c', "cpu", OPT_CPU, OPT_ARG_REQUIRED, "CPU", 0, 0, -1, &cfg.cpu,
	  "run on CPU (default: the last online CPU)", NULL, false },
	{ 'D', "duration", OPT_DURATION, OPT_ARG_REQUIRED, "TIME", 0, 3650LL * 86400, 0,
	  &cfg.duration_s, "stop after TIME (N[s|m|h|d]); 0: none", NULL, false },
	{ 'h', "help", OPT_HELP, OPT_ARG_NONE, NULL, 0, 0, 0, NULL, "print this help", NULL, false },
	{ 'l', "loops", OPT_INT, OPT_ARG_REQUIRED, "LOOPS", 0, 1LL << 40, 100, &cfg.loops,
	  "blocks to run; 0: until -D or stopped", NULL, false },
	{ 'p', "prio", OPT_INT, OPT_ARG_REQUIRED, "PRIO", 0, 99, 95, &cfg.prio,
	  "SCHED_FIFO priority; 0: SCHED_OTHER", NULL, false },
	{ 'q', "quiet", OPT_FLAG, OPT_ARG_NONE, NULL, 0, 0, 0, &cfg.quiet,
	  "no calibration line", NULL, false },
	{ 0, "block", OPT_INT, OPT_ARG_REQUIRED, "MS", 1, 1000, 10, &cfg.block_ms,
	  "calibrate the block to about MS milliseconds", NULL, false },
	{ 0, "work", OPT_CHOICE, OPT_ARG_REQUIRED, "WORK", 0, 0, 0, &cfg.work,
	  "add (integer loop), copy (memcpy from a source larger than the LLC), whetstone (floating-point mix), fft",
	  work_names, false },
	TEST_COMMON_OPTS(&cfg.common, "write results to FILE as JSON"),
	OPT_END
};

static void resp_loop(struct bench_thread *bt)
{
	enum work_kind k = (enum work_kind)cfg.work;
	uint64_t i;
	int64_t t0;

	(void)bt;
	units = work_calibrate(k, cfg.block_ms * NSEC_PER_MSEC, &ns_per_unit);
	calibrated = 1;
	for (i = 0; !cfg.loops || i < (uint64_t)cfg.loops; i++) {
		if (bench_stop)
			break;
		t0 = clock_now_ns();
		work_run(k, units);
		stats_add(&times, clock_now_ns() - t0);
	}
}

static int resp_setup(struct test_run *t)
{
	int64_t block = cfg.block_ms * NSEC_PER_MSEC;

	(void)t;
	if (cfg.cpu < 0)
		cfg.cpu = cpus_online() - 1;
	thread.cpu = (int)cfg.cpu;
	thread.prio = (int)cfg.prio;
	thread.fn = resp_loop;
	if (work_init((enum work_kind)cfg.work))
		return -1;
	return stats_init(&times, 0, (uint64_t)block / RESP_BUCKETS_PER_BLOCK,
			  4 * RESP_BUCKETS_PER_BLOCK) ? -1 : 0;
}

static int resp_rt_apply(struct test_run *t)
{
	(void)t;
	return rt_probe((int)cfg.prio, (int)cfg.cpu);
}

static int resp_measure(struct test_run *t)
{
	int64_t end = cfg.duration_s ? clock_now_ns() + cfg.duration_s * NSEC_PER_SEC : 0;

	(void)t;
	if (bench_start(&thread, 1))
		error = "cannot start the measuring thread";
	if (bench_wait(&thread, 1, end) && !error)
		error = "the measuring thread could not apply its settings (--strict)";
	return error ? 1 : 0;
}

static double ratio(const struct stats *s)
{
	return s->n && s->min > 0 ? (double)s->max / (double)s->min : 0;
}

static void print_result(void)
{
	const struct stats *s = &times;
	double avg = stats_mean(s);

	printf("work %s: blocks %llu, min %.1f avg %.1f p50 %.1f p99 %.1f max %.1f us, stddev %.1f us (%.2f %%), max/min %.4f\n",
	       work_names[cfg.work], (unsigned long long)s->n, (double)s->min / 1e3,
	       avg / 1e3, (double)stats_percentile(s, 50) / 1e3,
	       (double)stats_percentile(s, 99) / 1e3, (double)s->max / 1e3,
	       stats_stddev(s) / 1e3, avg > 0 ? 100.0 * stats_stddev(s) / avg : 0.0,
	       ratio(s));
}

static void json_body(struct json *j, void *arg)
{
	(void)arg;
	json_obj_open(j, "settings");
	json_str(j, "work", work_names[cfg.work]);
	json_int(j, "block_ms", cfg.block_ms);
	json_int(j, "loops", cfg.loops);
	json_int(j, "duration_s", cfg.duration_s);
	json_int(j, "priority", cfg.prio);
	json_int(j, "cpu", cfg.cpu);
	json_obj_close(j);
	json_obj_open(j, "calibration");
	json_uint(j, "units", units);
	json_double(j, "ns_per_unit", ns_per_unit);
	json_double(j, "block_ns", (double)units * ns_per_unit);
	json_uint(j, "copy_bytes", work_copy_bytes());
	json_obj_close(j);
	json_double(j, "max_min_ratio", ratio(&times));
	results_stats(j, "times", &times, NULL);
}

static int resp_report(struct test_run *t, int status)
{
	if (t->error)
		error = t->error;
	if (!times.n && !error && run_stop_requested)
		error = "stopped by a signal before the first block";
	if (error)
		status = 1;
	if (calibrated && !cfg.quiet)
		printf("# response: work %s calibrated to %lld ms: %llu units of %.1f ns%s\n",
		       work_names[cfg.work], cfg.block_ms, (unsigned long long)units,
		       ns_per_unit, cfg.work == WORK_COPY ? " (64 KiB copies)" : "");
	if (times.n)
		print_result();
	fflush(stdout);
	if (error)
		fprintf(stderr, "%s: %s\n", t->prog, error);
	results_summary("time", &times);
	return bench_json(&t->res, status, error, json_body, NULL);
}

static void resp_teardown(struct test_run *t)
{
	(void)t;
	stats_free(&times);
	work_fini();
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
	.opts = resp_opts, .common = &cfg.common, .stop = STOP_BY_HANDLER,
	.suite_args = resp_suite_args, .setup = resp_setup, .rt_apply = resp_rt_apply,
	.measure = resp_measure, .report = resp_report, .teardown = resp_teardown,
};
