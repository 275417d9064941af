// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * timer_run.c - the timer's run, shared by "rtlat timer" (timer.c) and
 * the cyclictest face (cyclic.c): setup, the samplers and the display
 * thread started and stopped, the run's end folded and reported.
 */
#include <errno.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "system/cleanup.h"
#include "measure/clock.h"
#include "util/opts.h"
#include "system/rtsetup.h"
#include "system/tracefs.h"
#include "harness/results.h"
#include "timer/timer_display.h"
#include "timer/timer_kernel.h"
#include "timer/timer_output.h"
#include "timer/timer_run.h"
#include "timer/timer_sample.h"
#include "timer/timer_summary.h"
#include "timer/timer_tlu.h"
#include "timer/timer_wait.h"

#define KICK_SIGNAL	RUN_KICK_SIGNAL
#define STOP_GRACE_NS	(3 * NSEC_PER_SEC)

/* The face's buffers, sized once: nothing grows while it runs. */
static int face_alloc(struct timer_cpu *c)
{
	const struct timer_face *f = &c->run->face;

	if (f->spike_ns && !(c->spikes = calloc(f->spike_max, sizeof(*c->spikes))))
		return -ENOMEM;
	if (f->over_max && !(c->over_cycle = calloc(f->over_max, sizeof(*c->over_cycle))))
		return -ENOMEM;
	if (f->verbose && !(c->vring = calloc(1, sizeof(*c->vring))))
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
	c->wait.ops = f->wait_ops ? f->wait_ops : timer_methods[run->cfg->method];
	/* A face's rows (cyclictest's 1 us to -h) and --histfile's 100 ns
	 * come from linear buckets first; else the 1 ns layout. */
	if (f->fine_width || run->cfg->histfile) {
		if (stats_init(&c->all, 0, f->fine_width ? (uint64_t)f->fine_width : TIMER_FINE_NS,
			       f->fine_buckets ? f->fine_buckets : TIMER_FINE_BUCKETS))
			return -ENOMEM;
	} else if (stats_init_fine(&c->all)) {
		return -ENOMEM;
	}
	if (hist_init(&c->avg, 0, b, cells) || summary_init(&c->sum, b, cells))
		return -ENOMEM;
	return face_alloc(c);
}

static void cpu_free(struct timer_cpu *c)
{
	free(c->spikes);
	free(c->over_cycle);
	free(c->vring);
	c->vring = NULL;
	c->spikes = NULL;
	c->over_cycle = NULL;
	stats_free(&c->all);
	hist_free(&c->avg);
	summary_free(&c->sum);
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
	for (i = 0; i < run->ncpu; i++) {
		if (cpu_init(&run->cpu[i], run, &run->plan[i]))
			return -ENOMEM;
		run->cpu[i].rec = run_record(t, t->ops->series[0], i, run->cpu[i].cpu);
	}
	run->whole = &run->cpu[0];
	if (run->ncpu > 1) {
		run->whole = &run->merged;
		if (cpu_init(&run->merged, run, &run->plan[0]))
			return -ENOMEM;
	}
	return timer_load_start(run);
}

/* --load: started before the samplers (and before mlockall: the load's
 * processes are forked from a small, unlocked rtlat), for -T plus the
 * warm-up; without -T (until stopped, or -l) stress-ng has no end of its
 * own and rtlat stops it. */
int timer_load_start(struct timer_run *run)
{
	const struct load_opts *o = &run->cfg->load;
	long long secs = run->cfg->duration_s ? run->cfg->duration_s + 1 : 0;

	if (!load_asked(o))
		return 0;
	if (load_start(&run->load, o, run->prog, secs)) {
		int err = errno;

		load_stop(&run->load, &run->load_done);
		errno = err;	/* the reason run_setup says */
		return -1;
	}
	run->load_running = true;
	return 0;
}

/* Every ending: the load stopped, reaped, its temp files gone. */
void timer_load_stop(struct timer_run *run)
{
	if (!run->load_running)
		return;
	load_stop(&run->load, &run->load_done);
	run->load_running = false;
}

void timer_teardown(struct test_run *t)
{
	struct timer_run *run = t->state;
	int i;

	timer_load_stop(run);
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
		    !atomic_load_explicit(&run->cpu[i].sampler_done, memory_order_acquire))
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
		if (atomic_load_explicit(&run->stop, memory_order_relaxed))
			break;
	}
}

static void stop_sampler(struct timer_cpu *c)
{
	if (!c->sampler_started)
		return;
	while (!atomic_load_explicit(&c->sampler_done, memory_order_acquire)) {
		pthread_kill(c->sampler, KICK_SIGNAL);
		usleep(1000);
	}
	pthread_join(c->sampler, NULL);
	c->sampler_started = false;
}

static void stop_threads(struct timer_run *run)
{
	int i;

	atomic_store_explicit(&run->stop, 1, memory_order_relaxed);
	tlu_stop(run);	/* its failure is in run->tl.error */
	for (i = 0; run->cpu && i < run->ncpu; i++)
		stop_sampler(&run->cpu[i]);
	atomic_store_explicit(&run->display_stop, 1, memory_order_release);
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
	for (i = 0; i < run->ncpu; i++)
		run->cpu[i].explain = explain_source(t->explain, i);
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
	/* -t 3: rtlat's thread takes timerlat's wake-ups on each CPU. */
	for (i = 0; run->cfg->mode == MODE_TIMERLAT_USER && i < run->ncpu; i++)
		if (tlu_start(&run->cpu[i]))
			return -1;
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
		/* Xenomai's line for a run of its own; in a suite, whose -q
		 * means the table only, the suite has said what runs. */
		if (run->cfg->quiet && !run_in_suite())
			fprintf(stderr, "running quietly for %lld seconds\n",
				run->cfg->duration_s);
	}
	/* The per-second counters (irqs, softirqs, steal, PSI) read /proc
	 * once a second into the time line's context columns, where the
	 * time line is on: the timer's JSON has them, the cyclictest face's
	 * has not, so it does not pay for them. */
	run->recorder = t->rec;
	for (i = 0; i < run->ncpu && !run->face.draw; i++)
		if (run->cpu[i].cpu >= 0 &&
		    !record_context_columns(t->rec, run->cpu[i].rec, layer_columns))
			layer_begin(&run->cpu[i].layer, run->cpu[i].cpu);
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
		if (atomic_load_explicit(&run->cpu[i].moved, memory_order_acquire))
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
	if (first_error(run, &at) || timer_first_moved(run) ||
	    run->tl.error[0])
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
	uint64_t lost = 0;
	char cpus[256];

	if (err)
		fprintf(stderr, "%s: %s failed: %s\n", run->prog,
			run->cfg->mode ? "reading timerlat's trace_pipe" :
			c->wait.ops->name, strerror(err));
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
	for (i = 0; i < run->ncpu; i++)
		lost += run->cpu[i].tlr.lost;
	if (lost)
		fprintf(stderr, "%s: timerlat's trace lost %llu samples (its buffer overflowed: the reader fell behind); the figures leave them out\n",
			run->prog, (unsigned long long)lost);
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
		run->merged.tlr.lost += run->cpu[i].tlr.lost;
	}
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

