// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * cyclicdeadline.c - "rtlat cyclicdeadline" (and the compatible name
 * cyclicdeadline): rt-tests' cyclicdeadline 2.40 options and text on
 * rtlat deadline's threads. Thread N's deadline and period are -i + N *
 * -s us, its runtime 60 % of that (80 % of the CPUs shared out when the
 * threads outnumber them), as the original. cyclicdeadline pins its
 * threads by making an exclusive cpuset of -a's CPUs (a root domain: a
 * deadline thread's affinity must span its root domain) and moving every
 * other task out; rtlat changes no cpuset: without -a, or with -a and no
 * CPUSET, its threads may run on every CPU (the original's "-a"), and
 * with -a CPUSET each is pinned to a CPU of it, which the kernel admits
 * only where that CPU is already a root domain (the refusal says so).
 */
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/syscall.h>
#include "measure/clock.h"
#include "util/opts.h"
#include "system/tracefs.h"
#include "timer/timer_ckpt.h"
#include "timer/timer_run.h"
#include "deadline/deadline.h"
#include "deadline/deadline_test.h"

#define CD(f) OPT_AT(struct dl_config, f)

static const char *const cd_series[] = { "latency", NULL };

static const struct opt cd_opts[] = {
	{ .short_name = 'a', .long_name = "affinity", .type = OPT_CPU_LIST,
	  .arg = OPT_ARG_OPTIONAL, .argname = "CPUSET", .dest = CD(affinity),
	  .help = "pin the threads to CPUSET's CPUs in turn (each must be a root domain of its own); without CPUSET, every CPU" },
	{ .short_name = 'b', .long_name = "breaktrace", .type = OPT_INT,
	  .arg = OPT_ARG_REQUIRED, .argname = "USEC", .min = 1, .max = 100000000,
	  .dest = CD(breaktrace_us),
	  .help = "stop, and mark the trace with --tracemark, when a latency exceeds USEC" },
	OPT_ROW_DURATION(struct dl_config, t.duration_s, 0,
			 "run for TIME (N[s|m|h|d]); 0: until stopped"),
	OPT_ROW_HELP,
	{ .short_name = 'i', .long_name = "interval", .type = OPT_INT,
	  .arg = OPT_ARG_REQUIRED, .argname = "INTV", .min = 100, .max = 4000000,
	  .dflt = 1000, .dest = CD(interval_us),
	  .help = "the shortest deadline (and period) of the threads in us" },
	{ .short_name = 's', .long_name = "step", .type = OPT_INT,
	  .arg = OPT_ARG_REQUIRED, .argname = "STEP", .max = 1000000,
	  .dflt = 500, .dest = CD(step_us),
	  .help = "the deadline's increase from one thread to the next in us" },
	{ .short_name = 't', .long_name = "threads", .type = OPT_INT,
	  .arg = OPT_ARG_REQUIRED, .argname = "NUM", .min = 1, .max = TIMER_MAX_CPUS,
	  .dest = CD(threads), .help = "NUM deadline threads (1; with -a, one per CPU)" },
	{ .short_name = 'q', .long_name = "quiet", .type = OPT_FLAG,
	  .arg = OPT_ARG_NONE, .dest = CD(t.quiet),
	  .help = "print a summary only on exit" },
	{ .long_name = "tracemark", .type = OPT_FLAG, .arg = OPT_ARG_NONE,
	  .dest = CD(tracemark),
	  .help = "mark the trace and stop it when -b is exceeded" },
	TEST_COMMON_OPTS(OPT_AT_STRUCT(struct dl_config, t.common),
			 "write the results to FILE as JSON (rtlat deadline's layout)"),
	OPT_END
};

/* As the original: -a makes the threads one per CPU unless -t said. */
static int cd_threads(const struct test_run *t, const struct dl_config *c)
{
	if (opts_given(t->opts, t->given, 't', NULL))
		return (int)c->threads;
	if (opts_given(t->opts, t->given, 'a', NULL))
		return cpus_usable(NULL, TIMER_MAX_CPUS);
	return 1;
}

/* Runtime: 60 % of the deadline; 80 % of the CPUs spread when the
 * threads outnumber the CPUs, as cyclicdeadline shares them. */
static long long percent(int threads)
{
	int ncpu = cpus_usable(NULL, TIMER_MAX_CPUS);

	return threads > ncpu ? (long long)ncpu * 80 / threads : 60;
}

static void cd_face(struct dl_run *run, struct dl_config *c)
{
	struct timer_face *f = &run->t.face;

	dl_timer_settings(run, c);
	f->draw = cd_draw;
	f->break_ns = c->breaktrace_us * NSEC_PER_USEC;
	f->tracemark = c->tracemark;
}

static int cd_check(struct test_run *t)
{
	struct dl_config *c = t->cfg;
	struct dl_run *run = t->state;
	bool pin = c->affinity.n > 0;
	long long d, pc;
	char err[256];
	int i;

	if (c->tracemark && !c->breaktrace_us) {
		opts_error(t->prog, opts_find(t->opts, 0, "tracemark"), "needs -b; accepted: -b USEC --tracemark");
		return -1;
	}
	if (c->tracemark && tracefs_open(t->prog, err, sizeof(err))) {
		opts_error(t->prog, opts_find(t->opts, 0, "tracemark"), "%s", err);
		return -1;
	}
	run->t.prog = t->prog;
	run->t.cfg = &c->t;
	run->t.opts = t->opts;
	run->t.ncpu = cd_threads(t, c);
	pc = percent(run->t.ncpu);
	c->t.period_us = c->interval_us;
	for (i = 0; i < run->t.ncpu; i++) {
		d = c->interval_us + i * c->step_us;
		run->t.plan[i] = (struct timer_plan){
			.cpu = pin ? c->affinity.cpu[i % c->affinity.n] : -1,
			.period_ns = d * NSEC_PER_USEC, .policy = SCHED_OTHER,
		};
		dl_thread_init(&run->th[i], d * pc / 100, d, d, 0);
		run->th[i].pinned = pin;
	}
	cd_face(run, c);
	return 0;
}

/* The original's lines before the run: each thread's parameters and the
 * test that a job fits its runtime (here: rtlat's bookkeeping of one
 * wake-up, two clock reads apart). */
static int cd_measure(struct test_run *t)
{
	struct dl_run *run = t->state;
	int64_t a, b;
	int i;

	for (i = 0; i < run->t.ncpu; i++) {
		printf("interval: %lld:%lld\n",
		       (long long)(run->th[i].runtime_ns / NSEC_PER_USEC),
		       (long long)(run->th[i].deadline_ns / NSEC_PER_USEC));
		a = clock_now_ns();
		b = clock_now_ns();
		printf("  Tested at %lldus of %lldus\n", (long long)((b - a) / NSEC_PER_USEC),
		       (long long)(run->th[i].runtime_ns / NSEC_PER_USEC));
	}
	fflush(stdout);
	return timer_measure(t);
}

static void cd_text(struct dl_run *run, long long actual_s, long long requested_s)
{
	(void)actual_s;
	(void)requested_s;
	cd_final(&run->t);
}

static int cd_report(struct test_run *t, int status)
{
	return dl_report_with(t, status, cd_text, cd_json);
}

/* rtlat suite runs rtlat deadline's figures; the face is for scripts. */
const struct test_ops test_cyclicdeadline = {
	.name = "cyclicdeadline",
	.compat = "cyclicdeadline",
	.title = "rt-tests' cyclicdeadline on rtlat deadline's threads",
	.family = "timer", .series = cd_series,
	.opts = cd_opts,
	.common = OPT_AT_STRUCT(struct dl_config, t.common),
	.cfg_size = sizeof(struct dl_config),
	.run_size = sizeof(struct dl_run),
	.stop = STOP_BY_SIGWAIT,
	.kick = true,
	.check_args = "-q -D 1 -i 4000",
	.check_line = "^T: 0 \\( *\\d+\\) I:4000 C: +\\d+ Min: +\\d+ Act: +\\d+ Avg: +\\d+ Max: +\\d+$",
	.check = cd_check,
	.setup = dl_setup,
	.rt_apply = timer_rt_apply,
	.measure = cd_measure,
	.report = cd_report,
	.checkpoint = timer_checkpoint,
	.teardown = timer_teardown,
};
