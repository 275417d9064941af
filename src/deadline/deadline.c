// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * deadline.c - "rtlat deadline": SCHED_DEADLINE threads (runtime,
 * deadline, period) on the timer's samplers, one by default, -t N of
 * them, or one pinned to each CPU of -c. Each wake-up is measured from
 * its period's start (deadline_wait.c); each job's deadline misses and
 * runtime overruns are counted. The timer's outputs carry it: its RTD
 * and RTS lines, its JSON (with each CPU's "deadline" counts), the fleet
 * (JUnit, OpenMetrics, LAVA) through results_summary.
 */
#include <stdio.h>
#include <string.h>
#include "measure/clock.h"
#include "util/json.h"
#include "util/opts.h"
#include "timer/timer_output.h"
#include "timer/timer_ckpt.h"
#include "timer/timer_run.h"
#include "deadline/deadline.h"
#include "deadline/deadline_test.h"
#include "deadline/deadline_wait.h"

#define DL(f) OPT_AT(struct dl_config, f)

static const char *const dl_series[] = { "latency", NULL };

static const struct opt dl_opts[] = {
	{ .short_name = 'p', .long_name = "period", .type = OPT_INT,
	  .arg = OPT_ARG_REQUIRED, .argname = "US", .min = 100, .max = 4000000,
	  .dflt = 1000, .dest = DL(t.period_us),
	  .help = "the period in us (the kernel's sched_deadline_period_min_us and _max_us bound it)",
	  .key = "period_us" },
	{ .short_name = 'r', .long_name = "runtime", .type = OPT_INT,
	  .arg = OPT_ARG_REQUIRED, .argname = "US", .max = 4000000,
	  .dest = DL(runtime_us),
	  .help = "the runtime a period in us; 0: 60 % of the deadline, as cyclicdeadline",
	  .key = "runtime_us" },
	{ .short_name = 'd', .long_name = "deadline", .type = OPT_INT,
	  .arg = OPT_ARG_REQUIRED, .argname = "US", .max = 4000000,
	  .dest = DL(deadline_us),
	  .help = "the relative deadline in us; 0: the period", .key = "deadline_us" },
	{ .short_name = 't', .long_name = "threads", .type = OPT_INT,
	  .arg = OPT_ARG_REQUIRED, .argname = "N", .min = 1, .max = TIMER_MAX_CPUS,
	  .dflt = 1, .dest = DL(threads),
	  .help = "N deadline threads, each free to run on every CPU (global EDF)",
	  .key = "threads" },
	{ .short_name = 'c', .long_name = "cpus", .type = OPT_CPU_LIST,
	  .arg = OPT_ARG_REQUIRED, .argname = "LIST", .dest = DL(t.cpus),
	  .help = "a thread pinned to each CPU of LIST: each CPU must be a root domain of its own (an exclusive cpuset partition)" },
	{ .short_name = 'w', .long_name = "work", .type = OPT_INT,
	  .arg = OPT_ARG_REQUIRED, .argname = "US", .max = 4000000,
	  .dest = DL(work_us),
	  .help = "busy-wait US each job before it yields (over the runtime: overruns)",
	  .key = "work_us" },
	OPT_ROW_DURATION(struct dl_config, t.duration_s, 0,
			 "run for TIME (N[s|m|h|d]); 0: until stopped"),
	OPT_ROW_QUIET(struct dl_config, t.quiet, "the summary only, at the end"),
	TEST_EXPLAIN_OPTS(OPT_AT_STRUCT(struct dl_config, t.common)),
	TEST_COMMON_OPTS(OPT_AT_STRUCT(struct dl_config, t.common),
			 "write results to FILE as JSON (the timer's layout, each CPU's deadline counts)"),
	{ .long_name = "help", .type = OPT_HELP, .arg = OPT_ARG_NONE,
	  .help = "print this help" },
	OPT_END
};

static int bad(const struct test_run *t, int s, const char *msg)
{
	opts_error(t->prog, opts_find(t->opts, s, NULL), "%s", msg);
	return -1;
}

/* runtime <= deadline <= period, as the kernel admits (checked first:
 * bad input is one line and exit 2, not the kernel's EINVAL). */
static int check_params(const struct test_run *t, struct dl_config *c)
{
	char msg[160];

	if (!c->deadline_us)
		c->deadline_us = c->t.period_us;
	if (!c->runtime_us)
		c->runtime_us = c->deadline_us * 60 / 100;
	if (c->deadline_us > c->t.period_us) {
		snprintf(msg, sizeof(msg), "a deadline of %lld us is over the period, %lld us; accepted: -r <= -d <= -p",
			 c->deadline_us, c->t.period_us);
		return bad(t, 'd', msg);
	}
	if (c->runtime_us > c->deadline_us || c->runtime_us < 2) {
		snprintf(msg, sizeof(msg), "a runtime of %lld us with a deadline of %lld us; accepted: 2 us <= -r <= -d <= -p",
			 c->runtime_us, c->deadline_us);
		return bad(t, 'r', msg);
	}
	if (c->t.cpus.n && opts_given(t->opts, t->given, 't', NULL))
		return bad(t, 't', "not with -c (a thread per CPU of -c); accepted: one of -t N and -c LIST");
	if (cpu_list_repeat(c->t.cpus.cpu, c->t.cpus.n) >= 0)
		return bad(t, 'c', "a CPU listed twice; accepted: each CPU once");
	return 0;
}

/* What the timer's run reads, for threads at the same parameters. */
void dl_timer_settings(struct dl_run *run, struct dl_config *c)
{
	struct timer_face *f = &run->t.face;

	c->t.cells = 200;
	c->t.bucket_ns = 1000;
	c->t.lines = 21;
	f->no_warmup = true;
	f->wait_ops = &dl_wait_ops;
	f->test = "deadline";
	f->json = dl_json;
}

static int dl_check(struct test_run *t)
{
	struct dl_config *c = t->cfg;
	struct dl_run *run = t->state;
	int i;

	if (check_params(t, c))
		return -1;
	run->t.prog = t->prog;
	run->t.cfg = &c->t;
	run->t.opts = t->opts;
	run->t.ncpu = c->t.cpus.n ? c->t.cpus.n : (int)c->threads;
	for (i = 0; i < run->t.ncpu; i++) {
		run->t.plan[i] = (struct timer_plan){
			.cpu = c->t.cpus.n ? c->t.cpus.cpu[i] : -1,
			.period_ns = c->t.period_us * NSEC_PER_USEC,
			.policy = SCHED_OTHER,	/* until sched_setattr */
		};
		dl_thread_init(&run->th[i], c->runtime_us, c->deadline_us,
			       c->t.period_us, c->work_us);
		run->th[i].pinned = c->t.cpus.n > 0;
	}
	dl_timer_settings(run, c);
	return 0;
}

/* rtlat timer's RTS line, then each thread's counts. */
static void dl_text(struct dl_run *run, long long actual_s, long long requested_s)
{
	timer_print_rts(stdout, &run->t, actual_s, requested_s);
	dl_print_counts(stdout, run);
}

static int dl_report(struct test_run *t, int status)
{
	return dl_report_with(t, status, dl_text, NULL);
}

const struct test_ops test_deadline = {
	.name = "deadline",
	.title = "SCHED_DEADLINE wake-up latency, deadline misses, runtime overruns",
	.family = "timer", .series = dl_series,
	.opts = dl_opts,
	.common = OPT_AT_STRUCT(struct dl_config, t.common),
	.cfg_size = sizeof(struct dl_config),
	.run_size = sizeof(struct dl_run),
	.stop = STOP_BY_SIGWAIT,
	.kick = true,
	.check_args = "-q -D 1",
	.check_line = "^deadline: thread 0: \\d+ jobs, \\d+ deadline misses, \\d+ runtime overruns$",
	.check = dl_check,
	.setup = dl_setup,
	.rt_apply = timer_rt_apply,
	.measure = timer_measure,
	.report = dl_report,
	.checkpoint = timer_checkpoint,
	.teardown = timer_teardown,
};
