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
#include <sys/utsname.h>
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
	{ .short_name = 'p', .type = OPT_INT, .arg = OPT_ARG_REQUIRED,
	  .argname = "PERIOD_US", .min = MIN_PERIOD_US, .max = MAX_PERIOD_US,
	  .dflt = 100, .dest = OPT_AT(struct timer_config, period_us),
	  .help = "sampling period in us", .key = "period_us" },
	{ .short_name = 'T', .type = OPT_DURATION, .arg = OPT_ARG_REQUIRED,
	  .argname = "SECONDS", .max = MAX_DURATION_S,
	  .dest = OPT_AT(struct timer_config, duration_s),
	  .help = "test duration after the 1 s warm-up (N[s|m|h|d]); 0: until ^C",
	  .key = "duration_s" },
	{ .short_name = 'h', .type = OPT_FLAG, .arg = OPT_ARG_NONE,
	  .dest = OPT_AT(struct timer_config, hist),
	  .help = "print histograms of min, avg, max latencies" },
	{ .short_name = 's', .type = OPT_FLAG, .arg = OPT_ARG_NONE,
	  .dest = OPT_AT(struct timer_config, stats),
	  .help = "print statistics of min, avg, max latencies" },
	{ .short_name = 'g', .type = OPT_PATH_OUT, .arg = OPT_ARG_REQUIRED,
	  .argname = "FILE", .dest = OPT_AT(struct timer_config, gnuplot),
	  .help = "dump the histogram to FILE in gnuplot format (-: stdout)" },
	{ .short_name = 'H', .type = OPT_INT, .arg = OPT_ARG_REQUIRED,
	  .argname = "CELLS", .min = 1, .max = MAX_CELLS, .dflt = 200,
	  .dest = OPT_AT(struct timer_config, cells),
	  .help = "histogram size; the last cell takes the overflow; increase it if the last cell is full",
	  .key = "histogram_cells" },
	{ .short_name = 'B', .type = OPT_INT, .arg = OPT_ARG_REQUIRED, .argname = "NS",
	  .min = 1, .max = NSEC_PER_SEC, .dflt = 1000,
	  .dest = OPT_AT(struct timer_config, bucket_ns),
	  .help = "histogram bucket size in ns", .key = "bucket_ns" },
	{ .short_name = 'l', .type = OPT_INT, .arg = OPT_ARG_REQUIRED,
	  .argname = "LINES", .max = 1000000, .dflt = 21,
	  .dest = OPT_AT(struct timer_config, lines),
	  .help = "data lines per header; 0: no headers", .key = "data_lines" },
	{ .short_name = 'q', .type = OPT_FLAG, .arg = OPT_ARG_NONE,
	  .dest = OPT_AT(struct timer_config, quiet),
	  .help = "no RTT/RTH/RTD lines, only the summary (only with -T: without it, a warning and the lines)",
	  .key = "quiet" },
	{ .short_name = 'c', .type = OPT_CPU_LIST, .arg = OPT_ARG_REQUIRED,
	  .argname = "LIST", .dest = OPT_AT(struct timer_config, cpus),
	  .help = "a sampling thread pinned to each CPU of LIST (3, 0-3,6 or all) [default 0]" },
	{ .short_name = 'P', .type = OPT_INT, .arg = OPT_ARG_REQUIRED,
	  .argname = "PRIO", .min = 1, .max = 99, .dflt = 99,
	  .dest = OPT_AT(struct timer_config, prio),
	  .help = "SCHED_FIFO priority of the sampling thread", .key = "priority" },
	{ .short_name = 'D', .type = OPT_CHOICE, .arg = OPT_ARG_REQUIRED,
	  .argname = "DEVICE", .dest = OPT_AT(struct timer_config, device),
	  .help = "testing device number, as in Xenomai's latency: Linux has one, 0 (the POSIX clock's timers)",
	  .choices = timer_device_names },
	{ .short_name = 't', .type = OPT_INT, .arg = OPT_ARG_REQUIRED,
	  .argname = "MODE", .max = 3, .dest = OPT_AT(struct timer_config, mode),
	  .help = "0: user task, 1: in-kernel task, 2: timer IRQ, 3: user task on timerlat's wake-ups (timerlat_fd, Linux 6.5+: the IRQ, thread and return-to-user latency of each, a thread on each CPU of -c; 1-3: the kernel's timerlat tracer; 1 and 2: one CPU)",
	  .key = "mode" },
	{ .short_name = 'f', .type = OPT_FLAG, .arg = OPT_ARG_NONE,
	  .dest = OPT_AT(struct timer_config, freeze),
	  .help = "freeze the trace at each new maximum: ftrace marker, trace snapshot (the largest's kept)",
	  .key = "freeze_trace" },
	{ .short_name = 'b', .type = OPT_FLAG, .arg = OPT_ARG_NONE,
	  .dest = OPT_AT(struct timer_config, break_switch),
	  .help = "break upon mode switch: stop when the sampler is preempted (msw)",
	  .key = "break_on_switch" },
	{ .long_name = "method", .type = OPT_CHOICE, .arg = OPT_ARG_REQUIRED,
	  .argname = "METHOD", .dest = OPT_AT(struct timer_config, method),
	  .help = "how the sampler waits: abs-nanosleep, rel-nanosleep, timerfd, posix-timer",
	  .choices = timer_method_names },
	{ .long_name = "user-work", .type = OPT_INT, .arg = OPT_ARG_REQUIRED,
	  .argname = "US", .max = 1000000, .dest = OPT_AT(struct timer_config, user_work_us),
	  .help = "-t 3: the user thread's workload, US microseconds of CPU spin after each wake-up, before it waits again (its time shows in the user_ret context)",
	  .key = "user_work_us" },
	{ .long_name = "histfile", .type = OPT_PATH_OUT, .arg = OPT_ARG_REQUIRED,
	  .argname = "FILE", .dest = OPT_AT(struct timer_config, histfile),
	  .help = "write the latency histogram to FILE in cyclictest's -h layout" },
	LOAD_OPT_ENTRIES(OPT_AT_STRUCT(struct timer_config, load), LOAD_NONE),
	TEST_EXPLAIN_OPTS(OPT_AT_STRUCT(struct timer_config, common)),
	TEST_COMMON_OPTS(OPT_AT_STRUCT(struct timer_config, common), "write results to FILE as JSON"),
	{ .long_name = "help", .type = OPT_HELP, .arg = OPT_ARG_NONE,
	  .help = "print this help" },
	OPT_END
};

static int check_freeze(const struct test_run *t)
{
	opts_error(t->prog, opts_find(t->opts, 'f', NULL),
		   "stopping the trace would stop timerlat's samples; accepted: -f with -t 0");
	return -1;
}

/*
 * -t 3 needs timerlat's user-space interface, osnoise/per_cpu/cpuN/
 * timerlat_fd (Linux 6.5): where it is missing (6.1, or no timerlat at
 * all) one line, as -t 1 and 2 on a kernel without timerlat.
 */
static int check_timerlat_fd(const struct test_run *t, const struct timer_config *cfg,
			     const char *dir, const char *why)
{
	struct opt *o = opts_find(t->opts, 't', NULL);
	int cpu = cfg->cpus.n ? cfg->cpus.cpu[0] : 0;
	struct utsname u;
	char path[320];

	if (uname(&u))
		snprintf(u.release, sizeof(u.release), "?");
	if (!dir) {
		opts_error(t->prog, o, "mode 3 (%s) needs timerlat_fd (Linux 6.5+): %s; accepted: 0, or 1 and 2 with the timerlat tracer",
			   timer_mode_names[MODE_TIMERLAT_USER], why);
		return -1;
	}
	snprintf(path, sizeof(path), "%s/osnoise/per_cpu/cpu%d/timerlat_fd", dir, cpu);
	if (access(path, R_OK)) {
		opts_error(t->prog, o, "mode 3 (%s) needs timerlat_fd (Linux 6.5+): this kernel (%s) has no %s%s; accepted: 0%s",
			   timer_mode_names[MODE_TIMERLAT_USER], u.release, path,
			   tracefs_has_tracer("timerlat") ? "" : " (nor the timerlat tracer)",
			   tracefs_has_tracer("timerlat") ? ", 1 or 2" : "");
		return -1;
	}
	return cfg->freeze ? check_freeze(t) : 0;
}

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
	if (cfg->mode == MODE_TIMERLAT_USER)
		return check_timerlat_fd(t, cfg, dir, why);
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
	return cfg->freeze ? check_freeze(t) : 0;
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
	if (cfg->mode && cfg->mode != MODE_TIMERLAT_USER && cfg->cpus.n > 1) {
		opts_error(t->prog, opts_find(t->opts, 'c', NULL),
			   "%d CPUs with -t %lld; accepted: one CPU with -t 1 or 2 (several with -t 0 or 3)",
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

	if (cfg->user_work_us && cfg->mode != MODE_TIMERLAT_USER) {
		opts_error(prog, opts_find(t->opts, 0, "user-work"),
			   "is the -t 3 thread's workload; accepted: --user-work US with -t 3");
		return -1;
	}
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

	if (check_config(t, cfg) || load_check(t->prog, &cfg->load, t->opts))
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

	timer_load_stop(run);
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
