// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * timer.c - "rtlat timer" (and "latency"): its options, their checks,
 * its report and test_ops. The run (setup, threads, end) is in
 * timer_run.c, shared with the cyclictest face; the sampling thread is
 * in timer_sample.c, the display thread in timer_display.c, the wait
 * methods in timer_wait.c, the formats in timer_output.c and
 * timer_json.c.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "system/cleanup.h"
#include "measure/clock.h"
#include "util/opts.h"
#include "harness/results.h"
#include "system/rtsetup.h"
#include "timer/timer_json.h"
#include "timer/timer_output.h"
#include "timer/timer_run.h"
#include "timer/timer_ckpt.h"
#include "timer/timer_wait.h"
#include "system/tracefs.h"
#include "timer/timer_test.h"

#define MAX_PERIOD_US	1000000LL	/* 1 s, as the original */
#define MIN_PERIOD_US	10LL
#define MAX_CELLS	1000000LL
#define MAX_DURATION_S	(3650LL * 86400)

/* What results_summary() reports (rtlat --list). */
static const char *const timer_series[] = { "latency", NULL };

/* -D: the devices there are (Xenomai numbers its RTDM timer devices). */
static const char *const timer_device_names[] = { "0", NULL };

static const struct opt timer_opts[] = {
	{ 'p', NULL, OPT_INT, OPT_ARG_REQUIRED, "PERIOD_US", MIN_PERIOD_US, MAX_PERIOD_US, 100,
	  OPT_AT(struct timer_config, period_us), "sampling period in us", NULL, "period_us" },
	{ 'T', NULL, OPT_DURATION, OPT_ARG_REQUIRED, "SECONDS", 0, MAX_DURATION_S, 0,
	  OPT_AT(struct timer_config, duration_s), "test duration after the 1 s warm-up (N[s|m|h|d]); 0: until ^C", NULL, "duration_s" },
	{ 'h', NULL, OPT_FLAG, OPT_ARG_NONE, NULL, 0, 0, 0, OPT_AT(struct timer_config, hist),
	  "print histograms of min, avg, max latencies", NULL, NULL },
	{ 's', NULL, OPT_FLAG, OPT_ARG_NONE, NULL, 0, 0, 0, OPT_AT(struct timer_config, stats),
	  "print statistics of min, avg, max latencies", NULL, NULL },
	{ 'g', NULL, OPT_PATH_OUT, OPT_ARG_REQUIRED, "FILE", 0, 0, 0, OPT_AT(struct timer_config, gnuplot),
	  "dump the histogram to FILE in gnuplot format (-: stdout)", NULL, NULL },
	{ 'H', NULL, OPT_INT, OPT_ARG_REQUIRED, "CELLS", 1, MAX_CELLS, 200, OPT_AT(struct timer_config, cells),
	  "histogram size; the last cell takes the overflow; increase it if the last cell is full", NULL, "histogram_cells" },
	{ 'B', NULL, OPT_INT, OPT_ARG_REQUIRED, "NS", 1, NSEC_PER_SEC, 1000, OPT_AT(struct timer_config, bucket_ns),
	  "histogram bucket size in ns", NULL, "bucket_ns" },
	{ 'l', NULL, OPT_INT, OPT_ARG_REQUIRED, "LINES", 0, 1000000, 21, OPT_AT(struct timer_config, lines),
	  "data lines per header; 0: no headers", NULL, "data_lines" },
	{ 'q', NULL, OPT_FLAG, OPT_ARG_NONE, NULL, 0, 0, 0, OPT_AT(struct timer_config, quiet),
	  "no RTT/RTH/RTD lines, only the summary (only with -T: without it, a warning and the lines)", NULL, "quiet" },
	{ 'c', NULL, OPT_CPU_LIST, OPT_ARG_REQUIRED, "LIST", 0, 0, 0, OPT_AT(struct timer_config, cpus),
	  "a sampling thread pinned to each CPU of LIST (3, 0-3,6 or all) [default 0]", NULL, NULL },
	{ 'P', NULL, OPT_INT, OPT_ARG_REQUIRED, "PRIO", 1, 99, 99, OPT_AT(struct timer_config, prio),
	  "SCHED_FIFO priority of the sampling thread", NULL, "priority" },
	{ 'D', NULL, OPT_CHOICE, OPT_ARG_REQUIRED, "DEVICE", 0, 0, 0, OPT_AT(struct timer_config, device),
	  "testing device number, as in Xenomai's latency: Linux has one, 0 (the POSIX clock's timers)",
	  timer_device_names, NULL },
	{ 't', NULL, OPT_INT, OPT_ARG_REQUIRED, "MODE", 0, 2, 0, OPT_AT(struct timer_config, mode),
	  "0: user task, 1: in-kernel task, 2: timer IRQ (1, 2: the kernel's timerlat tracer)", NULL, "mode" },
	{ 'f', NULL, OPT_FLAG, OPT_ARG_NONE, NULL, 0, 0, 0, OPT_AT(struct timer_config, freeze),
	  "freeze the trace at each new maximum: ftrace marker, trace snapshot (the largest's kept)", NULL, "freeze_trace" },
	{ 'b', NULL, OPT_FLAG, OPT_ARG_NONE, NULL, 0, 0, 0, OPT_AT(struct timer_config, break_switch),
	  "break upon mode switch: stop when the sampler is preempted (msw)", NULL, "break_on_switch" },
	{ 0, "method", OPT_CHOICE, OPT_ARG_REQUIRED, "METHOD", 0, 0, 0, OPT_AT(struct timer_config, method),
	  "how the sampler waits: abs-nanosleep, rel-nanosleep, timerfd, posix-timer",
	  timer_method_names, NULL },
	{ 0, "histfile", OPT_PATH_OUT, OPT_ARG_REQUIRED, "FILE", 0, 0, 0, OPT_AT(struct timer_config, histfile),
	  "write the latency histogram to FILE in cyclictest's -h layout", NULL, NULL },
	TEST_EXPLAIN_OPTS(OPT_AT_STRUCT(struct timer_config, common)),
	TEST_COMMON_OPTS(OPT_AT_STRUCT(struct timer_config, common), "write results to FILE as JSON"),
	{ 0, "help", OPT_HELP, OPT_ARG_NONE, NULL, 0, 0, 0, NULL,
	  "print this help", NULL, NULL },
	OPT_END
};

/* -t 1 and 2 need the kernel's timerlat tracer. */
static int check_mode(const struct test_run *t, const struct timer_config *cfg)
{
	const char *prog = t->prog;
	struct opt *o = opts_find(t->opts, 't', NULL);
	const char *dir;
	char why[256];

	if (!cfg->mode)
		return 0;
	dir = tracefs_probe(why, sizeof(why));
	if (!dir) {
		opts_error(prog, o, "mode %lld (%s) needs the kernel's timerlat tracer: %s; accepted: 0",
			   cfg->mode, timer_mode_names[cfg->mode], why);
		return -1;
	}
	if (!tracefs_has_tracer("timerlat")) {
		opts_error(prog, o, "mode %lld (%s) needs the kernel's timerlat tracer: this kernel lacks CONFIG_TIMERLAT_TRACER (not in %s/available_tracers); accepted: 0",
			   cfg->mode, timer_mode_names[cfg->mode], dir);
		return -1;
	}
	if (cfg->freeze) {
		opts_error(prog, opts_find(t->opts, 'f', NULL),
			   "stopping the trace would stop timerlat's samples; accepted: -f with -t 0");
		return -1;
	}
	return 0;
}

/* A sampler per CPU: a CPU listed twice would have two, each labelled
 * with it. timerlat's samples of several CPUs would need sorting by CPU
 * first. */
static int check_cpus(const struct test_run *t, const struct timer_config *cfg)
{
	int twice = cpu_list_repeat(cfg->cpus.cpu, cfg->cpus.n);

	if (twice >= 0) {
		opts_error(t->prog, opts_find(t->opts, 'c', NULL),
			   "CPU %d is listed twice; accepted: each CPU once (a sampler per CPU), e.g. 0-3,6 or all",
			   twice);
		return -1;
	}
	if (cfg->mode && cfg->cpus.n > 1) {
		opts_error(t->prog, opts_find(t->opts, 'c', NULL),
			   "%d CPUs with -t %lld; accepted: one CPU with -t 1 or 2 (several with -t 0)",
			   cfg->cpus.n, cfg->mode);
		return -1;
	}
	return 0;
}

static int check_explain(const struct test_run *t, const struct timer_config *cfg)
{
	if (cfg->common.explain && cfg->mode) {
		opts_error(t->prog, opts_find(t->opts, 0, "explain"),
			   "explains the user task's wake-ups; accepted: --explain with -t 0");
		return -1;
	}
	return 0;
}

static int check_config(const struct test_run *t, const struct timer_config *cfg)
{
	const char *prog = t->prog;
	char err[256];

	if (check_mode(t, cfg) || check_cpus(t, cfg) || check_explain(t, cfg))
		return -1;
	if (cfg->freeze && tracefs_open(prog, err, sizeof(err))) {
		opts_error(prog, opts_find(t->opts, 'f', NULL), "%s", err);
		return -1;
	}
	if (cfg->freeze && tracefs_open_snapshot())
		fprintf(stderr, "%s: -f: no trace snapshot here (CONFIG_TRACER_SNAPSHOT, or a latency tracer has it): tracing stops at the first new maximum\n",
			prog);
	return 0;
}

/* -c, -p and -P: one sampler per CPU. */
static void timer_plan_cpus(struct timer_run *run)
{
	const struct cpu_list *l = &run->cfg->cpus;
	int i;

	for (i = 0; i < run->ncpu; i++) {
		run->plan[i].cpu = l->n ? l->cpu[i] : 0;
		run->plan[i].period_ns = run->cfg->period_us * NSEC_PER_USEC;
		run->plan[i].prio = (int)run->cfg->prio;
		run->plan[i].policy = SCHED_FIFO;
	}
}

static int timer_check(struct test_run *t)
{
	struct timer_config *cfg = t->cfg;
	struct timer_run *run = t->state;

	/* As the original: -q without -T is a warning, and the lines stay. */
	if (cfg->quiet && !cfg->duration_s) {
		fprintf(stderr, "%s: -q only works with -T SECONDS; printing the RTD lines until ^C\n",
			t->prog);
		cfg->quiet = false;
	}

	if (check_config(t, cfg))
		return -1;
	run->prog = t->prog;
	run->cfg = cfg;
	run->opts = t->opts;
	run->ncpu = cfg->cpus.n ? cfg->cpus.n : 1;
	run->face.watch_cpu = true;
	timer_plan_cpus(run);
	return 0;
}

static int timer_report(struct test_run *t, int status)
{
	struct timer_run *run = t->state;
	long long actual = timer_actual_seconds(run, clock_now_ns());
	long long requested = run->cfg->duration_s ? run->cfg->duration_s : actual;

	if (t->error)
		fprintf(stderr, "%s: %s\n", run->prog, t->error);
	if (!run->cpu)
		return status;
	timer_fold(run);
	/* Spike times count from the measurement's start, as the seconds. */
	if (t->explain && run->cpu[0].start_ns)
		explain_set_start(t->explain, run->cpu[0].start_ns);
	timer_print_hist(stdout, run);
	if (timer_write_gnuplot(run, actual))
		status = 1;
	if (!run_compat(t))	/* latency's is Xenomai's */
		timer_print_jitter(stdout, run);
	timer_print_rts(stdout, run, actual, requested);
	fflush(stdout);
	timer_report_end(run);
	if (timer_write_histfile(run))
		status = 1;
	timer_summary(&t->res, run, timer_series[0]);
	if (timer_write_json(run, &t->res, actual, requested, status))
		status = 1;
	return status;
}

/* rtlat suite: one more second for the warm-up, summary only, every
 * online CPU (a system is as good as its worst CPU). */
static long long timer_suite_args(char *buf, size_t len, long long d, long long prio)
{
	snprintf(buf, len, "-q -T %lld -P %lld -c all", d + 1, prio);
	return d + 1;
}

const struct test_ops test_timer = {
	.name = "timer",
	.compat = "latency",
	.title = "periodic timer wake-up latency (Xenomai latency)",
	.family = "timer", .series = timer_series,
	.opts = timer_opts,
	.common = OPT_AT_STRUCT(struct timer_config, common),
	.cfg_size = sizeof(struct timer_config),
	.run_size = sizeof(struct timer_run),
	.stop = STOP_BY_SIGWAIT,
	.kick = true,
	.timeline_short_s = 1,
	.suite_args = timer_suite_args,
	.check_args = "-q -T 1",
	.check_line = "^RTS\\|( +[\\d.]+\\|){3} +\\d+\\| +\\d+\\| +00:00:01/00:00:01$",
	.check = timer_check,
	.setup = timer_setup,
	.rt_apply = timer_rt_apply,
	.measure = timer_measure,
	.report = timer_report,
	.checkpoint = timer_checkpoint,
	.teardown = timer_teardown,
};
