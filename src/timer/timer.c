// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * timer.c - "rtlat timer" (and "latency"): options, setup, the run and
 * its end. The sampling thread is in timer_sample.c, the display thread
 * in timer_display.c, the wait methods in timer_wait.c, the formats in
 * timer_output.c and timer_json.c.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "core/cleanup.h"
#include "core/clock.h"
#include "core/opts.h"
#include "harness/results.h"
#include "core/rtsetup.h"
#include "timer/timer.h"
#include "core/tracefs.h"

#define MAX_PERIOD_US	1000000LL	/* 1 s, as the original */
#define MIN_PERIOD_US	10LL
#define MAX_CELLS	1000000LL
#define MAX_DURATION_S	(3650LL * 86400)
#define KICK_SIGNAL	RUN_KICK_SIGNAL
#define STOP_GRACE_NS	(3 * NSEC_PER_SEC)

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

void timer_plan_cpus(struct timer_run *run)
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

/* The face's buffers, sized once: nothing grows while it runs. */
static int face_alloc(struct timer_cpu *c)
{
	const struct timer_face *f = &c->run->face;

	if (f->spike_ns && !(c->spikes = calloc(f->spike_max, sizeof(*c->spikes))))
		return -ENOMEM;
	if (f->over_max && !(c->over_cycle = calloc(f->over_max, sizeof(*c->over_cycle))))
		return -ENOMEM;
	return 0;
}

static int cpu_init(struct timer_cpu *c, struct timer_run *run,
		    const struct timer_plan *plan)
{
	const struct timer_face *f = &run->face;
	uint32_t cells = (uint32_t)run->cfg->cells;
	uint64_t b = (uint64_t)run->cfg->bucket_ns;

	c->run = run;
	c->plan = *plan;
	c->cpu = plan->cpu;
	c->wait.ops = timer_methods[run->cfg->method];
	if (stats_init(&c->all, 0, f->fine_width ? (uint64_t)f->fine_width : TIMER_FINE_NS,
		       f->fine_buckets ? f->fine_buckets : TIMER_FINE_BUCKETS) ||
	    hist_init(&c->avg, 0, b, cells) || summary_init(&c->sum, b, cells))
		return -ENOMEM;
	return face_alloc(c);
}

static void cpu_free(struct timer_cpu *c)
{
	free(c->spikes);
	free(c->over_cycle);
	c->spikes = NULL;
	c->over_cycle = NULL;
	stats_free(&c->all);
	hist_free(&c->avg);
	summary_free(&c->sum);
	layer_free(&c->layer);
}

/* SIGRTMIN belongs to the posix-timer method: blocked before any thread
 * starts (they inherit the mask), taken with sigwaitinfo. Memory: a
 * sampler's series per CPU, whatever the run's length. */
int timer_setup(struct test_run *t)
{
	struct timer_run *run = t->state;
	sigset_t rt;
	int i;

	sigemptyset(&rt);
	sigaddset(&rt, SIGRTMIN);
	pthread_sigmask(SIG_BLOCK, &rt, NULL);
	run->cpu = calloc((size_t)run->ncpu, sizeof(*run->cpu));
	if (!run->cpu)
		return -ENOMEM;
	for (i = 0; i < run->ncpu; i++)
		if (cpu_init(&run->cpu[i], run, &run->plan[i]))
			return -ENOMEM;
	run->whole = &run->cpu[0];
	if (run->ncpu == 1)
		return 0;
	run->whole = &run->merged;
	return cpu_init(&run->merged, run, &run->plan[0]);
}

void timer_teardown(struct test_run *t)
{
	struct timer_run *run = t->state;
	int i;

	for (i = 0; run->cpu && i < run->ncpu; i++)
		cpu_free(&run->cpu[i]);
	if (run->whole == &run->merged)
		cpu_free(&run->merged);
	free(run->cpu);
	run->cpu = NULL;
}

static int start_thread(pthread_t *t, void *(*fn)(void *), void *arg,
			const char *prog)
{
	int err = run_thread(t, fn, arg);

	if (err)
		fprintf(stderr, "%s: cannot start a thread: %s\n", prog, strerror(err));
	return err;
}

static bool all_done(const struct timer_run *run)
{
	int i;

	for (i = 0; i < run->ncpu; i++)
		if (run->cpu[i].sampler_started &&
		    !__atomic_load_n(&run->cpu[i].sampler_done, __ATOMIC_ACQUIRE))
			return false;
	return true;
}

/* Until the samplers are done (-T), a stop signal, or the grace is over. */
static void supervise(struct timer_run *run, int64_t t0)
{
	int64_t end = 0;

	if (run->cfg->duration_s)
		end = t0 + (run->cfg->duration_s +
			     (run->face.no_warmup ? 0 : TIMER_WARMUP_S)) * NSEC_PER_SEC +
		      STOP_GRACE_NS;
	while (!all_done(run)) {
		if (run_stop_wait(100 * NSEC_PER_MSEC))
			break;
		if (end && clock_now_ns() > end)
			break;
		/* -b on one CPU ends them all. */
		if (__atomic_load_n(&run->stop, __ATOMIC_RELAXED))
			break;
	}
}

static void stop_sampler(struct timer_cpu *c)
{
	if (!c->sampler_started)
		return;
	while (!__atomic_load_n(&c->sampler_done, __ATOMIC_ACQUIRE)) {
		pthread_kill(c->sampler, KICK_SIGNAL);
		usleep(1000);
	}
	pthread_join(c->sampler, NULL);
	c->sampler_started = false;
}

static void stop_threads(struct timer_run *run)
{
	int i;

	__atomic_store_n(&run->stop, 1, __ATOMIC_RELAXED);
	for (i = 0; run->cpu && i < run->ncpu; i++)
		stop_sampler(&run->cpu[i]);
	__atomic_store_n(&run->display_stop, 1, __ATOMIC_RELEASE);
	if (run->display_started)
		pthread_join(run->display, NULL);
	run->display_started = false;
}

int timer_rt_apply(struct test_run *t)
{
	const struct timer_run *run = t->state;

	return rt_probe(run->plan[0].prio, run->plan[0].cpu);
}

/* Each sampler is a source; its wake-ups come from its own timer. */
static int start_explain(struct test_run *t, struct timer_run *run)
{
	struct explain *x = run_explain_new(t, run->ncpu);
	int i;

	for (i = 0; x && i < run->ncpu; i++)
		explain_src_set(x, i, run->cpu[i].cpu, NULL, false,
				run->ncpu > 1 ? "sampler %d" : "sampler", run->cpu[i].cpu);
	if (run_explain_start(t))
		return -1;
	for (i = 0; t->explain && i < run->ncpu; i++)
		run->cpu[i].explain = &t->explain->src[i];
	return 0;
}

static int start_samplers(struct timer_run *run)
{
	int i;

	for (i = 0; i < run->ncpu; i++) {
		struct timer_cpu *c = &run->cpu[i];

		if (start_thread(&c->sampler, run->cfg->mode ? timer_kernel_reader :
				 timer_sampler, c, run->prog))
			return -1;
		c->sampler_started = true;
	}
	return 0;
}

static int start_threads(struct test_run *t, struct timer_run *run)
{
	char err[256];
	int64_t t0;
	int i;

	/* First: a tracer refused is one line, before the banner. */
	if (run->cfg->mode && timerlat_start(&run->cpu[0], err, sizeof(err))) {
		fprintf(stderr, "%s: %s\n", run->prog, err);
		snprintf(run->tl.error, sizeof(run->tl.error), "%s", err);
		return -1;
	}
	if (!run->face.draw) {	/* the cyclictest face has its own */
		timer_banner(stdout, run);
		fflush(stdout);
		if (run->cfg->quiet)
			fprintf(stderr, "running quietly for %lld seconds\n",
				run->cfg->duration_s);
	}
	/* The per-second counters (irqs, softirqs, steal, PSI) read /proc
	 * once a second: the timer's JSON has them, the cyclictest face's
	 * has not, so it does not pay for them. */
	for (i = 0; i < run->ncpu && !run->face.draw; i++)
		if (run->cpu[i].cpu >= 0 &&
		    layer_begin(&run->cpu[i].layer, run->cpu[i].cpu))
			return -1;
	if (start_explain(t, run))
		return -1;
	t0 = clock_now_ns();
	if (start_thread(&run->display, timer_display, run, run->prog))
		return -1;
	run->display_started = true;
	if (start_samplers(run))
		return -1;
	supervise(run, t0);
	return 0;
}

/* The first sampler's error, or 0. */
static int first_error(const struct timer_run *run, const struct timer_cpu **at)
{
	int i;

	for (i = 0; run->cpu && i < run->ncpu; i++)
		if (run->cpu[i].error) {
			*at = &run->cpu[i];
			return run->cpu[i].error;
		}
	return 0;
}

const struct timer_cpu *timer_first_moved(const struct timer_run *run)
{
	int i;

	for (i = 0; run->cpu && i < run->ncpu; i++)
		if (__atomic_load_n(&run->cpu[i].moved, __ATOMIC_ACQUIRE))
			return &run->cpu[i];
	return NULL;
}

int timer_measure(struct test_run *t)
{
	struct timer_run *run = t->state;
	const struct timer_cpu *at;
	int status = 0;

	if (start_threads(t, run))
		status = 1;
	stop_threads(run);
	timerlat_stop(run);
	/* A CPU of -c lost: the run is not what was asked (an error). */
	if (first_error(run, &at) || timer_first_moved(run))
		status = 1;
	return status;
}

/* Seconds measured after the warm-up, whole, as the original reports. */
long long timer_actual_seconds(const struct timer_run *run, int64_t end)
{
	int64_t start = run->cpu ? run->cpu[0].start_ns : 0;
	long long s;

	if (!start)
		return 0;
	s = (end - start) / NSEC_PER_SEC - (run->face.no_warmup ? 0 : TIMER_WARMUP_S);
	if (s < 0)
		s = 0;
	if (run->cfg->duration_s && s > run->cfg->duration_s)
		s = run->cfg->duration_s;
	return s;
}

void timer_moved_text(const struct timer_cpu *c, char *buf, size_t len)
{
	int cpus[CPU_LIST_MAX], n = 0, k;

	for (k = 0; k < CPU_SETSIZE && n < CPU_LIST_MAX; k++)
		if (CPU_ISSET(k, &c->moved_set))
			cpus[n++] = k;
	cpu_list_text(cpus, n, buf, len);
}

void timer_report_end(struct timer_run *run)
{
	const struct timer_cpu *c = NULL;
	int err = first_error(run, &c), i;
	char cpus[256];

	if (err)
		fprintf(stderr, "%s: %s failed: %s\n", run->prog,
			run->cfg->mode ? "reading timerlat's trace_pipe" :
			timer_method_names[run->cfg->method], strerror(err));
	for (i = 0; i < run->ncpu; i++) {
		c = &run->cpu[i];
		if (c->switched)
			fprintf(stderr, "%s: -b: the sampling thread%s was preempted (involuntary context switch); stopped\n",
				run->prog, run->ncpu > 1 ? " of a CPU" : "");
		if (c->moved) {
			timer_moved_text(c, cpus, sizeof(cpus));
			fprintf(stderr, "%s: -c: CPU %d went offline or its sampler was unpinned (now on CPUs %s) after %llu s measured: that sampler stopped and its figures are not CPU %d's alone\n",
				run->prog, c->cpu, cpus, (unsigned long long)c->moved_s, c->cpu);
		}
	}
	timer_freeze_report(run);
	if (run->tl.lost)
		fprintf(stderr, "%s: timerlat's trace lost %llu samples (its buffer overflowed: the reader fell behind); the figures leave them out\n",
			run->prog, (unsigned long long)run->tl.lost);
}

/* Several CPUs: every CPU's figures folded, for RTS's last line, -g, the
 * JSON's top level and the fleet's one series. */
void timer_fold(struct timer_run *run)
{
	int i;

	if (run->whole != &run->merged)
		return;
	for (i = 0; i < run->ncpu; i++) {
		stats_merge(&run->merged.all, &run->cpu[i].all);
		hist_merge(&run->merged.avg, &run->cpu[i].avg);
		summary_merge(&run->merged.sum, &run->cpu[i].sum);
		run->merged.ring.dropped += run->cpu[i].ring.dropped;
	}
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
	/* Spike times count from the measurement's start, as per_second. */
	if (t->explain && run->cpu[0].start_ns)
		t->explain->start_ns = run->cpu[0].start_ns;
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

void timer_summary(struct results *res, const struct timer_run *run,
		   const char *series)
{
	int i;

	results_summary(res, series, &run->whole->all);
	/* A sampler moved off its CPU measured no CPU alone: -1. */
	for (i = 0; i < run->ncpu; i++)
		results_summary_part(res, series, i,
				     run->cpu[i].moved ? -1 : run->cpu[i].cpu,
				     &run->cpu[i].all);
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
	.suite_args = timer_suite_args,
	.check_args = "-q -T 1",
	.check_line = "^RTS\\|( +[\\d.]+\\|){3} +\\d+\\| +\\d+\\| +00:00:01/00:00:01$",
	.check = timer_check,
	.setup = timer_setup,
	.rt_apply = timer_rt_apply,
	.measure = timer_measure,
	.report = timer_report,
	.teardown = timer_teardown,
};
