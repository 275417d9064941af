// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * cyclic.c - "rtlat cyclictest" (and the compatible name "cyclictest"):
 * rt-tests' cyclictest options on the timer's samplers (timer.c), one
 * per thread. Every option of cyclictest 2.40's --help has a row: done
 * with its meaning and default, or refused by name (OPT_REFUSE), never
 * ignored. Its text and JSON are in cyclic_output.c.
 */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <sys/mman.h>
#include <unistd.h>
#include <stdio.h>
#include <string.h>
#include "measure/clock.h"
#include "util/opts.h"
#include "system/rtsetup.h"
#include "system/cleanup.h"
#include "system/msr.h"
#include "system/tracefs.h"
#include "timer/cyclic.h"
#include "timer/timer_run.h"
#include "timer/timer_test.h"

/* batch and idle run the threads SCHED_BATCH or SCHED_IDLE (not
 * real-time, as cyclictest's). */
static const char *const policy_names[] = { "fifo", "rr", "other", "normal", "batch",
					    "idle", NULL };
/* -c 1 (CLOCK_REALTIME) is accepted with a warning (cyclic_extra.c). */
static const char *const clocks[] = { "0", "1", NULL };

#define CYC(f) OPT_AT(struct cyc_config, f)
#define REFUSED(s, l, a, why)							\
	{ .short_name = (s), .long_name = (l), .type = OPT_REFUSE, .arg = (a),	\
	  .help = (why) }

static const struct opt cyc_opts[] = {
	{ .short_name = 'a', .long_name = "affinity", .type = OPT_CPU_LIST,
	  .arg = OPT_ARG_OPTIONAL, .argname = "CPUSET", .dest = CYC(affinity),
	  .help = "thread N on CPU N (the default too), or with CPUSET the threads on its CPUs in turn" },
	{ .short_name = 'A', .long_name = "aligned", .type = OPT_INT,
	  .arg = OPT_ARG_REQUIRED, .argname = "USEC", .max = 1000000,
	  .dest = CYC(aligned_us),
	  .help = "the threads' first wake-ups at one common time, thread N USEC * N after it" },
	{ .short_name = 'b', .long_name = "breaktrace", .type = OPT_INT,
	  .arg = OPT_ARG_REQUIRED, .argname = "USEC", .min = 1, .max = 100000000,
	  .dest = CYC(breaktrace_us),
	  .help = "stop, and mark the trace with --tracemark, when a latency exceeds USEC" },
	{ .short_name = 'c', .long_name = "clock", .type = OPT_CHOICE,
	  .arg = OPT_ARG_REQUIRED, .argname = "CLOCK", .dest = CYC(clock),
	  .help = "0: CLOCK_MONOTONIC; 1 (CLOCK_REALTIME) is measured on CLOCK_MONOTONIC, with a warning",
	  .choices = clocks },
	{ .long_name = "default-system", .type = OPT_FLAG, .arg = OPT_ARG_NONE,
	  .dest = CYC(default_system), .help = "do not hold /dev/cpu_dma_latency" },
	{ .short_name = 'd', .long_name = "distance", .type = OPT_INT,
	  .arg = OPT_ARG_REQUIRED, .argname = "DIST", .max = 1000000, .dflt = 500,
	  .dest = CYC(distance_us),
	  .help = "thread N's interval is INTV + N * DIST us; with -h or -H every thread is at INTV" },
	{ .long_name = "deepest-idle-state", .type = OPT_INT, .arg = OPT_ARG_REQUIRED,
	  .argname = "N", .min = -1, .max = 1000, .dflt = -1, .dest = CYC(deepest_idle),
	  .help = "for the run, disable the idle states deeper than N on the threads' CPUs (restored at the end); -1: leave them" },
	{ .short_name = 'D', .long_name = "duration", .type = OPT_DURATION,
	  .arg = OPT_ARG_REQUIRED, .argname = "TIME", .max = OPT_MAX_DURATION_S,
	  .dest = OPT_AT(struct cyc_config, t.duration_s),
	  .help = "run for TIME (N[s|m|h|d]); 0: until -l or stopped" },
	{ .short_name = 'F', .long_name = "fifo", .type = OPT_PATH_OUT,
	  .arg = OPT_ARG_REQUIRED, .argname = "PATH", .dest = CYC(fifo),
	  .help = "a named pipe at PATH: a reader gets the T: lines, every 100 ms (removed at the end)" },
	{ .short_name = 'h', .long_name = "histogram", .type = OPT_INT,
	  .arg = OPT_ARG_REQUIRED, .argname = "US", .min = 1, .max = CYC_MAX_HIST_US,
	  .dest = CYC(hist_us),
	  .help = "print a 1 us histogram up to US after the run" },
	{ .short_name = 'H', .long_name = "histofall", .type = OPT_INT,
	  .arg = OPT_ARG_REQUIRED, .argname = "US", .min = 1, .max = CYC_MAX_HIST_US,
	  .dest = CYC(histofall_us), .help = "as -h, with a column of all threads" },
	{ .long_name = "histfile", .type = OPT_PATH_OUT, .arg = OPT_ARG_REQUIRED,
	  .argname = "PATH", .dest = CYC(histfile),
	  .help = "write the -h histogram to PATH instead of stdout" },
	{ .short_name = 'i', .long_name = "interval", .type = OPT_INT,
	  .arg = OPT_ARG_REQUIRED, .argname = "INTV", .min = 10, .max = 1000000,
	  .dflt = 1000, .dest = CYC(interval_us),
	  .help = "base interval of the threads in us" },
	{ .long_name = "laptop", .type = OPT_FLAG, .arg = OPT_ARG_NONE,
	  .dest = CYC(laptop), .help = "do not hold /dev/cpu_dma_latency" },
	{ .long_name = "latency", .type = OPT_INT, .arg = OPT_ARG_REQUIRED,
	  .argname = "PM_QOS", .max = 2000000000, .dest = CYC(latency),
	  .help = "the /dev/cpu_dma_latency target in us, written and held for the run (0)" },
	{ .short_name = 'l', .long_name = "loops", .type = OPT_INT,
	  .arg = OPT_ARG_REQUIRED, .argname = "LOOPS", .max = 1LL << 40,
	  .dest = CYC(loops),
	  .help = "the run ends when the first thread has made LOOPS wake-ups (as cyclictest); 0: endless" },
	{ .long_name = "mainaffinity", .type = OPT_CPU_LIST, .arg = OPT_ARG_REQUIRED,
	  .argname = "CPUSET", .dest = CYC(mainaffinity),
	  .help = "run the main thread on CPUSET" },
	{ .short_name = 'm', .long_name = "mlockall", .type = OPT_FLAG,
	  .arg = OPT_ARG_NONE, .dest = CYC(mlock),
	  .help = "lock memory (rtlat always does, unless --no-mlock)" },
	{ .short_name = 'M', .long_name = "refresh_on_max", .type = OPT_FLAG,
	  .arg = OPT_ARG_NONE, .dest = CYC(refresh_on_max),
	  .help = "redraw the T: lines only when a thread's maximum rises" },
	{ .short_name = 'n', .long_name = "nanosleep", .type = OPT_FLAG,
	  .arg = OPT_ARG_NONE, .dest = CYC(nanosleep),
	  .help = "clock_nanosleep (the default)" },
	{ .short_name = 'N', .long_name = "nsecs", .type = OPT_FLAG,
	  .arg = OPT_ARG_NONE, .dest = CYC(nsecs),
	  .help = "print results in ns instead of us" },
	{ .short_name = 'o', .long_name = "oscope", .type = OPT_INT,
	  .arg = OPT_ARG_REQUIRED, .argname = "RED", .min = 1, .max = 1000000,
	  .dest = CYC(oscope),
	  .help = "with -v, one line per RED samples: their maximum (oscilloscope mode)" },
	{ .short_name = 'p', .long_name = "priority", .type = OPT_INT,
	  .arg = OPT_ARG_REQUIRED, .argname = "PRIO", .max = 99, .dest = CYC(prio),
	  .help = "priority of the highest priority thread; given, the policy is fifo (or rr); 0: threads + 1" },
	{ .long_name = "policy", .type = OPT_CHOICE, .arg = OPT_ARG_REQUIRED,
	  .argname = "NAME", .dflt = CYC_POLICY_OTHER, .dest = CYC(policy),
	  .help = "fifo, rr, other, normal, batch or idle; with fifo or rr and no -p, priority threads + 1",
	  .choices = policy_names },
	{ .long_name = "priospread", .type = OPT_FLAG, .arg = OPT_ARG_NONE,
	  .dest = CYC(priospread),
	  .help = "thread N at priority PRIO - N (0: SCHED_OTHER; at most PRIO + 1 threads)" },
	{ .short_name = 'q', .long_name = "quiet", .type = OPT_FLAG,
	  .arg = OPT_ARG_NONE, .dest = OPT_AT(struct cyc_config, t.quiet),
	  .help = "print the summary only, at the end" },
	{ .short_name = 'r', .long_name = "relative", .type = OPT_FLAG,
	  .arg = OPT_ARG_NONE, .dest = CYC(relative),
	  .help = "relative timer: nanosleep(interval) from each wake-up" },
	{ .short_name = 'R', .long_name = "resolution", .type = OPT_FLAG,
	  .arg = OPT_ARG_NONE, .dest = CYC(resolution),
	  .help = "check the clock's resolution (clock_getres against clock_gettime's steps); a warning where they differ" },
	{ .long_name = "secaligned", .type = OPT_INT, .arg = OPT_ARG_OPTIONAL,
	  .argname = "USEC", .max = 999999, .dest = CYC(secaligned_us),
	  .help = "the threads' first wake-ups at the next full second, USEC after it" },
	{ .short_name = 's', .long_name = "system", .type = OPT_FLAG,
	  .arg = OPT_ARG_NONE, .dest = CYC(sys),
	  .help = "the nanosleep system call: what rtlat calls anyway (glibc's is the call)" },
	{ .short_name = 'S', .long_name = "smp", .type = OPT_FLAG, .arg = OPT_ARG_NONE,
	  .dest = CYC(smp),
	  .help = "a thread per CPU, pinned, all at the same priority (-a -t; a -a or -t given is ignored with a warning)" },
	{ .long_name = "spike", .type = OPT_INT, .arg = OPT_ARG_REQUIRED,
	  .argname = "TRIGGER", .min = 1, .max = 100000000, .dest = CYC(spike_us),
	  .help = "record the latencies over TRIGGER us and print them at the end" },
	{ .long_name = "spike-nodes", .type = OPT_INT, .arg = OPT_ARG_REQUIRED,
	  .argname = "NUM", .min = 1, .max = 1000000, .dflt = 1024,
	  .dest = CYC(spike_nodes), .help = "spikes kept per thread" },
	{ .long_name = "smi", .type = OPT_FLAG, .arg = OPT_ARG_NONE, .dest = CYC(smi),
	  .help = "count each thread's CPU's System Management Interrupts (MSR_SMI_COUNT, Intel; /dev/cpu/N/msr, loading the msr module where missing): an SMI column; where it cannot be read, one line says so and the run goes on without it" },
	{ .short_name = 't', .long_name = "threads", .type = OPT_INT,
	  .arg = OPT_ARG_OPTIONAL, .argname = "NUM", .min = 1, .max = TIMER_MAX_CPUS,
	  .dest = CYC(threads), .help = "NUM threads; without NUM, one per CPU" },
	{ .long_name = "tracemark", .type = OPT_FLAG, .arg = OPT_ARG_NONE,
	  .dest = CYC(tracemark),
	  .help = "mark the trace and stop it when -b is exceeded" },
	{ .short_name = 'u', .long_name = "unbuffered", .type = OPT_FLAG,
	  .arg = OPT_ARG_NONE, .dest = CYC(unbuffered), .help = "unbuffered output" },
	{ .short_name = 'v', .long_name = "verbose", .type = OPT_FLAG,
	  .arg = OPT_ARG_NONE, .dest = CYC(verbose),
	  .help = "every sample on stdout as cyclictest's \"n:c:v\" (thread, cycle, us), printed by the display thread" },
	{ .long_name = "dbg_cyclictest", .type = OPT_FLAG, .arg = OPT_ARG_NONE,
	  .dest = CYC(dbg),
	  .help = "cyclictest's own debugging: accepted with a warning (rtlat has none such)" },
	{ .short_name = 'x', .long_name = "posix_timers", .type = OPT_FLAG,
	  .arg = OPT_ARG_NONE, .dest = CYC(posix_timers),
	  .help = "a POSIX timer instead of clock_nanosleep" },
	TEST_EXPLAIN_OPTS(OPT_AT_STRUCT(struct cyc_config, t.common)),
	TEST_COMMON_OPTS(OPT_AT_STRUCT(struct cyc_config, t.common),
			 "write the results to FILE in cyclictest's JSON layout"),
	{ .long_name = "help", .type = OPT_HELP, .arg = OPT_ARG_NONE,
	  .help = "print this help" },
	OPT_END
};

static const char *const cyc_series[] = { "latency", NULL };

static int bad(const struct test_run *t, int s, const char *l, const char *msg)
{
	opts_error(t->prog, opts_find(t->opts, s, l), "%s", msg);
	return -1;
}

static int check_combinations(const struct test_run *t, const struct cyc_config *c)
{
	if (c->hist_us && c->histofall_us)
		return bad(t, 'H', NULL, "not with -h; accepted: one of -h US and -H US");
	if (c->histfile && !c->hist_us && !c->histofall_us)
		return bad(t, 0, "histfile", "needs -h or -H; accepted: -h US --histfile PATH");
	if (c->relative && c->posix_timers)
		return bad(t, 'r', NULL, "not with -x; accepted: one of -r and -x");
	if (c->tracemark && !c->breaktrace_us)
		return bad(t, 0, "tracemark", "needs -b; accepted: -b USEC --tracemark");
	return 0;
}

/* How many threads and where: -S, -t [NUM], -a [CPUSET]. */
static int nthreads(const struct cyc_config *c)
{
	if (c->smp || c->threads == OPT_AUTO)
		return cpus_usable(NULL, TIMER_MAX_CPUS);
	return c->threads > 0 ? (int)c->threads : 1;
}

/* cyclictest 2.40 pins every thread: to -a's CPUSET in turn, else to
 * the CPUs it may use in turn (-a alone, -S, and no -a at all). */
static int thread_cpu(const struct cyc_config *c, int i)
{
	if (!c->smp && c->affinity.n > 0)
		return c->affinity.cpu[i % c->affinity.n];
	return cpu_usable_nth(i);
}

/* What cyclictest says on stderr about the options it adjusts, in its
 * order; said once the options are known good (bad input stays one line). */
enum { NOTE_T_SMP = 1, NOTE_A_SMP = 2, NOTE_DISTANCE = 4, NOTE_PRIO = 8,
       NOTE_POLICY = 16 };

static void say_notes(unsigned int notes, const struct cyc_config *c)
{
	if (notes & NOTE_T_SMP)
		fprintf(stderr, "WARN: -t ignored due to smp mode\n");
	if (notes & NOTE_A_SMP)
		fprintf(stderr, "WARN: -a ignored due to smp mode\n");
	if (notes & NOTE_DISTANCE)
		fprintf(stderr, "WARN: distance is ignored and set to 0, if histogram enabled\n");
	if (notes & NOTE_PRIO)
		fprintf(stderr, "defaulting realtime priority to %lld\n", c->prio);
	if (notes & NOTE_POLICY)
		fprintf(stderr, "policy and priority don't match: setting policy to SCHED_FIFO\n");
}

/* -S is every usable CPU: -t and -a are dropped, with cyclictest's
 * warnings (it refuses -a before -S outright; one rule here). */
static unsigned int smp_overrides(const struct test_run *t, const struct cyc_config *c)
{
	unsigned int notes = 0;

	if (c->smp && opts_given(t->opts, t->given, 't', NULL))
		notes |= NOTE_T_SMP;
	if (c->smp && opts_given(t->opts, t->given, 'a', NULL))
		notes |= NOTE_A_SMP;
	return notes;
}

/* A histogram adds the threads' rows up, so, as in cyclictest, -h and -H
 * give every thread the same interval: -d is dropped (with cyclictest's
 * warning when it was given). */
static int64_t distance_ns(const struct test_run *t, const struct cyc_config *c,
			   unsigned int *notes)
{
	if (!c->hist_us && !c->histofall_us)
		return c->distance_us * NSEC_PER_USEC;
	if (opts_given(t->opts, t->given, 'd', NULL))
		*notes |= NOTE_DISTANCE;
	return 0;
}

/*
 * cyclictest's rules for the policy and the priority, with its lines on
 * stderr: -p makes the policy fifo (rr stays); --priospread, or fifo or
 * rr, without a priority default it to threads + 1; a priority makes
 * other fifo. (cyclictest decides -p against --policy by their order;
 * one rule here: both given and at odds, its message.) Each thread at
 * priority 0 then runs SCHED_OTHER, as its policy line says.
 */
static void resolve_policy(const struct test_run *t, struct cyc_config *c, int n,
			   unsigned int *notes)
{
	bool rt = c->policy == CYC_POLICY_FIFO || c->policy == CYC_POLICY_RR;

	if (!rt && opts_given(t->opts, t->given, 'p', NULL) &&
	    !(c->prio && opts_given(t->opts, t->given, 0, "policy"))) {
		c->policy = CYC_POLICY_FIFO;
		rt = true;
	}
	if (c->priospread && !c->prio) {
		*notes |= NOTE_PRIO;
		c->prio = n + 1;
	}
	if (c->prio && !rt) {
		*notes |= NOTE_POLICY;
		c->policy = CYC_POLICY_FIFO;
		rt = true;
	}
	if (rt && !c->prio) {
		*notes |= NOTE_PRIO;
		c->prio = n + 1;
	}
}

static void plan(const struct test_run *t, struct timer_run *run,
		 struct cyc_config *c, unsigned int *notes)
{
	int64_t dist = distance_ns(t, c, notes);
	int i, prio;

	run->ncpu = nthreads(c);
	resolve_policy(t, c, run->ncpu, notes);
	for (i = 0; i < run->ncpu; i++) {
		prio = (int)c->prio;
		/* As cyclictest: thread N at PRIO - N, down to 0 (that
		 * thread then SCHED_OTHER); below 0, check_spread refuses. */
		if (c->priospread && prio > 0)
			prio -= i;
		run->plan[i].cpu = thread_cpu(c, i);
		run->plan[i].period_ns = c->interval_us * NSEC_PER_USEC + i * dist;
		run->plan[i].prio = prio;
		run->plan[i].policy = c->policy == CYC_POLICY_RR ? SCHED_RR :
				      c->policy == CYC_POLICY_BATCH ? SCHED_BATCH :
				      c->policy == CYC_POLICY_IDLE ? SCHED_IDLE : SCHED_FIFO;
	}
}

/* cyclictest stops with "FATAL: failed to set priority to -1" there. */
static int check_spread(const struct test_run *t, const struct cyc_config *c,
			const struct timer_run *run)
{
	int last = run->ncpu - 1;
	char msg[160];

	if (run->plan[last].prio >= 0)
		return 0;
	snprintf(msg, sizeof(msg), "thread %d would be at priority %d; accepted: at most %lld threads with -p %lld",
		 last, run->plan[last].prio, c->prio + 1, c->prio);
	return bad(t, 0, "priospread", msg);
}

/* What the timer's lifecycle reads: its config and the face. */
static void timer_settings(struct cyc_config *c, struct timer_run *run)
{
	int64_t hist = c->hist_us ? c->hist_us : c->histofall_us;
	struct timer_face *f = &run->face;

	c->t.period_us = c->interval_us;
	c->t.prio = c->prio;
	c->t.cells = 300;
	c->t.bucket_ns = 1000;
	c->t.method = c->relative ? METHOD_REL_NANOSLEEP :
		      c->posix_timers ? METHOD_POSIX_TIMER : METHOD_ABS_NANOSLEEP;
	if (c->laptop || c->default_system)
		c->t.common.no_dma_latency = true;
	f->no_warmup = true;
	f->loops = (uint64_t)c->loops;
	f->break_ns = c->breaktrace_us * NSEC_PER_USEC;
	f->tracemark = c->tracemark;
	f->spike_ns = c->spike_us * NSEC_PER_USEC;
	f->spike_max = (uint32_t)c->spike_nodes;
	if (hist) {
		/* -h's rows are its 1 us buckets; from US on, overflow. */
		f->fine_width = NSEC_PER_USEC;
		f->fine_buckets = (uint32_t)hist;
		f->over_ns = hist * NSEC_PER_USEC;
		f->over_max = hist < 1024 ? (uint32_t)hist : 1024;
	}
	f->draw = cyc_draw;
	f->status = cyc_status;
	f->status_fd = -1;		/* cyc_measure opens it */
}

static int cyc_check(struct test_run *t)
{
	struct cyc_config *c = t->cfg;
	struct timer_run *run = t->state;
	unsigned int notes;
	char err[256];

	if (check_combinations(t, c) || cyc_extra_check(t, c))
		return -1;
	if (c->tracemark && tracefs_open(t->prog, err, sizeof(err))) {
		opts_error(t->prog, opts_find(t->opts, 0, "tracemark"), "%s", err);
		return -1;
	}
	run->prog = t->prog;
	run->cfg = &c->t;
	run->opts = t->opts;
	notes = smp_overrides(t, c);
	plan(t, run, c, &notes);
	if (check_spread(t, c, run))
		return -1;
	say_notes(notes, c);
	timer_settings(c, run);
	return 0;
}

static int cyc_rt_apply(struct test_run *t)
{
	const struct cyc_config *c = t->cfg;
	cpu_set_t set;
	int i;

	if (timer_rt_apply(t))
		return -1;
	/* --latency N: the request rt_init holds, at N (the banner says it). */
	if (c->latency && rt_dma_held() && rt_dma_set((int32_t)c->latency))
		rt_warn("--latency: cannot write /dev/cpu_dma_latency: %s", strerror(errno));
	/* Where cyclictest says why it leaves the latency target alone. */
	if (c->laptop)
		fprintf(stderr, "WARN: not setting cpu_dma_latency to save battery power\n");
	else if (c->default_system)
		fprintf(stderr, "WARN: not setting cpu_dma_latency from cyclictest\n");
	if (c->unbuffered)
		setvbuf(stdout, NULL, _IONBF, 0);
	if (c->mainaffinity.n <= 0)
		return 0;
	CPU_ZERO(&set);
	for (i = 0; i < c->mainaffinity.n; i++)
		CPU_SET(c->mainaffinity.cpu[i], &set);
	if (sched_setaffinity(0, sizeof(set), &set))
		rt_warn("--mainaffinity: %s", strerror(errno));
	return 0;
}

/*
 * /dev/shm/cyclictest<pid>, as cyclictest makes it, for SIGUSR2's status
 * (get_cyclictest_snapshot finds runs by it); removed on every way out.
 * Without it (no /dev/shm) SIGUSR2 does nothing, as without a reader.
 */
static void status_file(struct timer_run *run)
{
	char name[64];
	int fd;

	snprintf(name, sizeof(name), "/cyclictest%d", (int)getpid());
	fd = shm_open(name, O_CREAT | O_EXCL | O_RDWR | O_CLOEXEC, 0644);
	if (fd >= 0 && cleanup_add_shm(name)) {
		close(fd);
		shm_unlink(name);
		fd = -1;
	}
	run->face.status_fd = fd;
}

/* --smi: the counts at the start (the results', read again with the msr
 * module loaded where they could not be), or one line. */
static void smi_column(struct test_run *t, struct timer_run *run)
{
	struct smi_snap *s = &t->res.smi_start;

	if (!s->n)
		smi_snap_take(s, true);
	if (s->n)
		run->face.smi = s;
	else
		fprintf(stderr, "%s: --smi: %s; no SMI column\n", t->prog, s->why);
}

static int cyc_measure(struct test_run *t)
{
	struct timer_run *run = t->state;

	if (((const struct cyc_config *)t->cfg)->smi)
		smi_column(t, run);
	status_file(run);
	cyc_banner(run);
	cyc_extra_start(run);
	return timer_measure(t);
}

/* rtlat suite runs the timer; the face is for scripts that call it. */
const struct test_ops test_cyclictest = {
	.name = "cyclictest",
	.compat = "cyclictest",
	.title = "rt-tests' cyclictest on rtlat's timer samplers",
	.family = "timer",
	.series = cyc_series,
	.opts = cyc_opts,
	.common = OPT_AT_STRUCT(struct cyc_config, t.common),
	.cfg_size = sizeof(struct cyc_config),
	.run_size = sizeof(struct timer_run),
	.stop = STOP_BY_SIGWAIT,
	.kick = true,
	.status_signals = true,
	.check_args = "-l 200 -q",
	.check_line = "^T: 0 \\( *\\d+\\) P: 0 I:1000 C: +200 Min: +\\d+ Act: +\\d+ Avg: +\\d+ Max: +\\d+$",
	.check = cyc_check,
	.setup = timer_setup,
	.rt_apply = cyc_rt_apply,
	.measure = cyc_measure,
	.report = cyc_report,
	.checkpoint = cyc_checkpoint,
	.teardown = timer_teardown,
};
