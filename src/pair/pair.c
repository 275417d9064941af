// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * pair.c - the pair-test harness: options, setup, the run and its end.
 * Every pair test is a PAIR_TEST row (pair.h) that run_test() runs.
 */
#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include "cleanup.h"
#include "clock.h"
#include "explain.h"
#include "opts.h"
#include "pair_internal.h"
#include "results.h"
#include "rtsetup.h"
#include "tracefs.h"

#define MAX_PAIRS	1024
#define MAX_INTERVAL_US	3600000000LL	/* one hour */
#define HIST_BUCKET_NS	100		/* 0.1 us resolution ... */
#define HIST_BUCKETS	20000		/* ... up to 2 ms, then overflow */
#define STOP_GRACE_NS	(3 * NSEC_PER_SEC)

/* The one run: the option table stores into pair_cfg. */
struct pair_config pair_cfg;
static struct pair_run run;

struct opt pair_opts[] = {
	{ 'a', "affinity", OPT_CPU, OPT_ARG_OPTIONAL, "CPU", 0, 0, -2, &pair_cfg.affinity,
	  "pin pair i to CPU i mod ncpus; with CPU, pin all to it", NULL, false },
	{ 'b', "breaktrace", OPT_INT, OPT_ARG_REQUIRED, "USEC", 1, MAX_INTERVAL_US, 0,
	  &pair_cfg.breaktrace_us, "stop ftrace and the test when a latency exceeds USEC", NULL, false },
	{ 'd', "distance", OPT_INT, OPT_ARG_REQUIRED, "DIST", 0, MAX_INTERVAL_US, 500,
	  &pair_cfg.distance_us, "interval distance between pairs in us", NULL, false },
	{ 'D', "duration", OPT_DURATION, OPT_ARG_REQUIRED, "TIME", 0, 3650LL * 86400, 0,
	  &pair_cfg.duration_s, "run for TIME (N[s|m|h|d]); 0: no limit", NULL, false },
	{ 'h', "help", OPT_HELP, OPT_ARG_NONE, NULL, 0, 0, 0, NULL,
	  "print this help", NULL, false },
	{ 'i', "interval", OPT_INT, OPT_ARG_REQUIRED, "INTV", 1, MAX_INTERVAL_US, 1000,
	  &pair_cfg.interval_us, "base interval in us", NULL, false },
	{ 'l', "loops", OPT_INT, OPT_ARG_REQUIRED, "LOOPS", 0, 1LL << 62, 0, &pair_cfg.loops,
	  "cycles per pair; 0: until stopped", NULL, false },
	{ 'p', "prio", OPT_INT, OPT_ARG_REQUIRED, "PRIO", 0, 99, 0, &pair_cfg.prio,
	  "SCHED_FIFO priority of pair 0, pair i gets PRIO-i; 0: SCHED_OTHER", NULL, false },
	{ 'q', "quiet", OPT_FLAG, OPT_ARG_NONE, NULL, 0, 0, 0, &pair_cfg.quiet,
	  "print only the final summary", NULL, false },
	{ 'S', "smp", OPT_FLAG, OPT_ARG_NONE, NULL, 0, 0, 0, &pair_cfg.smp,
	  "SMP testing: -a -t and the same priority for all pairs", NULL, false },
	{ 't', "threads", OPT_INT, OPT_ARG_OPTIONAL, "NUM", 1, MAX_PAIRS, 1, &pair_cfg.threads,
	  "number of pairs; without NUM, one per CPU", NULL, false },
	TEST_EXPLAIN_OPTS(&pair_cfg.common),
	TEST_COMMON_OPTS(&pair_cfg.common, "write results to FILE as JSON (rt-tests layout plus rtlat's)"),
	OPT_END
};

static int online_cpu(int i)
{
	cpu_set_t set;
	int c, k = 0, n;

	if (sched_getaffinity(0, sizeof(set), &set))
		return i % cpus_online();
	n = CPU_COUNT(&set);
	i %= n;
	for (c = 0; c < CPU_SETSIZE; c++)
		if (CPU_ISSET(c, &set) && k++ == i)
			return c;
	return 0;
}

static int check_config(const char *prog, struct opt *tbl, struct pair_run *run)
{
	long long last;

	if (pair_cfg.smp) {
		if (!opts_find(tbl, 't', NULL)->given)
			pair_cfg.threads = -1;
		if (!opts_find(tbl, 'a', NULL)->given)
			pair_cfg.affinity = -1;
	}
	run->npairs = pair_cfg.threads == -1 ? cpus_online() : (int)pair_cfg.threads;
	if (run->npairs > MAX_PAIRS)
		run->npairs = MAX_PAIRS;
	last = pair_cfg.interval_us + (long long)(run->npairs - 1) * pair_cfg.distance_us;
	if (last > MAX_INTERVAL_US) {
		opts_error(prog, opts_find(tbl, 'd', NULL),
			   "the last pair's interval would be %lld us; accepted: intervals up to %lld us (1 hour)",
			   last, MAX_INTERVAL_US);
		return -1;
	}
	if (pair_cfg.breaktrace_us) {
		char err[256];

		if (tracefs_open(prog, err, sizeof(err))) {
			opts_error(prog, opts_find(tbl, 'b', NULL), "%s", err);
			return -1;
		}
	}
	return 0;
}

/* After parsing: the harness's checks, then the transport's. */
int pair_check(struct test_run *t)
{
	memset(&run, 0, sizeof(run));
	run.ops = t->ops->data;
	run.name = t->ops->name;
	run.prog = t->prog;
	if (check_config(t->prog, t->opts, &run))
		return -1;
	run.cfg = pair_cfg;
	if (run.ops->setup && run.ops->setup(&run))
		return -1;
	if (run.cfg.stream && run.cfg.common.explain) {
		opts_error(t->prog, opts_find(t->opts, 0, "explain"),
			   "explains latency spikes, not a stream's rate; accepted: --explain without --throughput");
		return -1;
	}
	return 0;
}

/* Pairs, histograms and transport state live in shared memory, so the
 * same code serves threads and forked processes. */
static int alloc_pairs(struct pair_run *run)
{
	size_t priv = (run->ops->priv_size + 63) & ~(size_t)63;
	uint64_t *hist;
	char *privs = NULL;
	int i;

	run->shared = shared_alloc(sizeof(*run->shared));
	run->pairs = shared_alloc(sizeof(struct pair) * run->npairs);
	hist = shared_alloc(hist_bytes(HIST_BUCKETS) * run->npairs);
	if (priv)
		privs = shared_alloc(priv * run->npairs);
	if (!run->shared || !run->pairs || !hist || (priv && !privs))
		return -ENOMEM;
	run_stop_flag(&run->shared->stop);
	for (i = 0; i < run->npairs; i++) {
		struct pair *p = &run->pairs[i];
		int prio = (int)run->cfg.prio;

		p->index = i;
		p->run = run;
		p->interval_ns = (run->cfg.interval_us + i * run->cfg.distance_us) *
				 NSEC_PER_USEC;
		p->loops = (uint64_t)run->cfg.loops;
		stats_reset(&p->lat);
		hist_init_mem(&p->lat.hist, 0, HIST_BUCKET_NS, HIST_BUCKETS,
			      hist + (size_t)HIST_BUCKETS * i);
		p->priv = privs ? privs + priv * i : NULL;
		if (prio > 0 && !run->cfg.smp)
			prio = prio - i > 1 ? prio - i : 1;
		p->w[ROLE_SENDER].prio = p->w[ROLE_RECEIVER].prio = prio;
		p->w[ROLE_SENDER].cpu = p->w[ROLE_RECEIVER].cpu =
			run->cfg.affinity == -2 ? -1 :
			run->cfg.affinity == -1 ? online_cpu(i) :
			(int)run->cfg.affinity;
		p->w[ROLE_SENDER].cur_cpu = p->w[ROLE_RECEIVER].cur_cpu = -1;
	}
	return 0;
}

static int start_thread(struct pair_run *run, struct pair *p, enum pair_role role)
{
	int err = run_thread(&p->w[role].thread,
			     role == ROLE_SENDER ? pair_sender : pair_receiver, p);

	if (err)
		snprintf(run->fail_msg, sizeof(run->fail_msg),
			 "cannot start a thread for pair %d: %s", p->index, strerror(err));
	else
		p->w[role].created = 1;
	return err ? -err : 0;
}

static int start_child(struct pair_run *run, struct pair *p, enum pair_role role)
{
	pid_t pid;

	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		int err = errno;

		snprintf(run->fail_msg, sizeof(run->fail_msg),
			 "cannot fork for pair %d: %s%s", p->index, strerror(err),
			 err == EAGAIN ? " (RLIMIT_NPROC: ulimit -u)" : "");
		return -err;
	}
	if (pid == 0)
		pair_child(p, role);
	p->w[role].pid = pid;
	cleanup_add_child(pid);
	return 0;
}

static int start_workers(struct pair_run *run)
{
	int i, r, err;

	for (i = 0; i < run->npairs; i++)
		for (r = ROLE_SENDER; r <= ROLE_RECEIVER; r++) {
			err = run->cfg.fork ? start_child(run, &run->pairs[i], r) :
			      start_thread(run, &run->pairs[i], r);
			if (err)
				return err;
			run->started_any = 1;
		}
	return 0;
}

static const char *role_name(enum pair_role r)
{
	return r == ROLE_SENDER ? "sender" : "receiver";
}

/* Fork mode: a worker that exits before it finished is an error. */
static bool check_children(struct pair_run *run)
{
	int i, r, status;

	if (!run->cfg.fork)
		return false;
	for (i = 0; i < run->npairs; i++)
		for (r = 0; r < 2; r++) {
			struct pair_worker *w = &run->pairs[i].w[r];

			if (!w->pid || waitpid(w->pid, &status, WNOHANG) != w->pid)
				continue;
			cleanup_del_child(w->pid);
			w->pid = 0;
			if (w->finished && WIFEXITED(status) && !WEXITSTATUS(status))
				continue;
			if (!run->fail_msg[0]) {
				if (WIFSIGNALED(status))
					snprintf(run->fail_msg, sizeof(run->fail_msg),
						 "pair %d %s (pid %d) was killed by signal %d (%s)",
						 i, role_name(r), w->tid, WTERMSIG(status),
						 strsignal(WTERMSIG(status)));
				else
					snprintf(run->fail_msg, sizeof(run->fail_msg),
						 "pair %d %s (pid %d) exited with status %d",
						 i, role_name(r), w->tid, WEXITSTATUS(status));
			}
			run->failed = 1;
			return true;
		}
	return false;
}

static bool all_finished(const struct pair_run *run)
{
	int i;

	for (i = 0; i < run->npairs; i++)
		if (!__atomic_load_n(&run->pairs[i].w[0].finished, __ATOMIC_ACQUIRE) ||
		    !__atomic_load_n(&run->pairs[i].w[1].finished, __ATOMIC_ACQUIRE))
			return false;
	return true;
}

static bool all_started(const struct pair_run *run)
{
	int i;

	for (i = 0; i < run->npairs; i++)
		if (!__atomic_load_n(&run->pairs[i].w[0].started, __ATOMIC_ACQUIRE) ||
		    !__atomic_load_n(&run->pairs[i].w[1].started, __ATOMIC_ACQUIRE))
			return false;
	return true;
}

static int worker_error(struct pair_run *run)
{
	int i;

	for (i = 0; i < run->npairs; i++) {
		struct pair *p = &run->pairs[i];

		if (p->error && !run->fail_msg[0])
			snprintf(run->fail_msg, sizeof(run->fail_msg),
				 "pair %d: %s failed: %s", i, run->name,
				 strerror(p->error));
		if (p->error)
			return 1;
	}
	return 0;
}

static void kick(const struct pair_run *run)
{
	int i, r;

	for (i = 0; i < run->npairs; i++)
		for (r = 0; r < 2; r++) {
			const struct pair_worker *w = &run->pairs[i].w[r];

			if (__atomic_load_n(&w->finished, __ATOMIC_ACQUIRE))
				continue;
			if (run->cfg.fork && w->pid)
				kill(w->pid, PAIR_KICK_SIGNAL);
			else if (!run->cfg.fork && w->created)
				pthread_kill(w->thread, PAIR_KICK_SIGNAL);
		}
}

/* Lines of the live block on the terminal, redrawn in place. */
static int live_lines;

static void progress(const struct pair_run *run, int64_t start, bool final)
{
	int64_t worst = 0, el = (clock_now_ns() - start) / NSEC_PER_SEC;
	int i;

	if (run->cfg.quiet)
		return;
	if (isatty(STDOUT_FILENO)) {
		if (live_lines)
			printf("\033[%dA", live_lines);
		pair_print_block(stdout, run);
		live_lines = 2 * run->npairs;
		fflush(stdout);
		return;
	}
	if (!isatty(STDERR_FILENO))
		return;
	for (i = 0; i < run->npairs; i++)
		if (run->pairs[i].lat.n && run->pairs[i].lat.max > worst)
			worst = run->pairs[i].lat.max;
	/* Plain carriage returns and blank padding: stdout is a file or a
	 * pipe here, and no escape code is written when it is not a terminal. */
	if (final)
		fprintf(stderr, "\r%*s\r", 78, "");
	else if (run->cfg.duration_s)
		fprintf(stderr, "\r%s: elapsed %llds, remaining %llds, worst %lld us   ",
			run->prog, (long long)el, run->cfg.duration_s - (long long)el,
			ns_to_us_round((double)worst));
	else
		fprintf(stderr, "\r%s: elapsed %llds, worst %lld us   ",
			run->prog, (long long)el, ns_to_us_round((double)worst));
}

/* Wait for the end: loops done, duration, signal, error or child death. */
static void supervise(struct pair_run *run)
{
	int64_t start = clock_now_ns(), last_draw = 0, now;
	int64_t end = run->cfg.duration_s ? start + run->cfg.duration_s * NSEC_PER_SEC : 0;

	while (!pair_stopping(run) && !all_finished(run)) {
		if (check_children(run) || worker_error(run))
			break;
		now = clock_now_ns();
		if (end && now >= end)
			break;
		if (now - last_draw >= 100 * NSEC_PER_MSEC) {
			progress(run, start, false);
			last_draw = now;
		}
		usleep(10000);
	}
	pair_stop(run);
	if (!run->cfg.quiet && !isatty(STDOUT_FILENO))
		progress(run, start, true);
}

/* Stop every worker: kick until all finished, then join or reap. */
static void stop_workers(struct pair_run *run)
{
	int64_t deadline = clock_now_ns() + STOP_GRACE_NS;
	int i, r;

	pair_stop(run);
	while (!all_finished(run) && clock_now_ns() < deadline) {
		kick(run);
		check_children(run);
		usleep(5000);
	}
	for (i = 0; i < run->npairs; i++)
		for (r = 0; r < 2; r++) {
			struct pair_worker *w = &run->pairs[i].w[r];

			if (run->cfg.fork && w->pid) {
				if (!w->finished)
					kill(w->pid, SIGKILL);
				waitpid(w->pid, NULL, 0);
				cleanup_del_child(w->pid);
				w->pid = 0;
			} else if (!run->cfg.fork && w->created && w->finished) {
				pthread_join(w->thread, NULL);
			}
		}
}

static int open_transport(struct pair_run *run)
{
	int i, err;

	if (!run->ops->open)
		return 0;
	for (i = 0; i < run->npairs; i++) {
		err = run->ops->open(&run->pairs[i]);
		if (err) {
			run->nopen = i;
			snprintf(run->fail_msg, sizeof(run->fail_msg),
				 "cannot set up %s for pair %d: %s", run->name,
				 i, strerror(-err));
			return err;
		}
	}
	run->nopen = run->npairs;
	return 0;
}

static void close_transport(struct pair_run *run)
{
	int i;

	for (i = 0; run->ops->close && i < run->nopen; i++)
		run->ops->close(&run->pairs[i]);
}

/* Release the workers once every one of them is set up. */
static void start_barrier(struct pair_run *run)
{
	while (!all_started(run) && !pair_stopping(run)) {
		if (check_children(run) || worker_error(run) || all_finished(run))
			break;
		usleep(1000);
	}
	__atomic_store_n(&run->shared->go, 1, __ATOMIC_RELEASE);
}

int pair_setup(struct test_run *t)
{
	(void)t;
	return alloc_pairs(&run);
}

int pair_rt_apply(struct test_run *t)
{
	(void)t;
	return rt_probe(run.pairs[0].w[0].prio, run.pairs[0].w[0].cpu);
}

/* --explain: each receiver is a source; before its wake-up, the
 * hand-off is on the sender's side. */
static int explain_receivers(struct test_run *t)
{
	struct explain *x = run_explain_new(t, run.npairs);
	int i;

	for (i = 0; x && i < x->nsrc; i++)
		explain_src_set(x, i, run.pairs[i].w[ROLE_RECEIVER].cpu,
				"the sender's side: its send and the hand-off", false,
				"pair %d", i);
	if (run_explain_start(t))
		return -1;
	for (i = 0; t->explain && i < t->explain->nsrc; i++)
		run.pairs[i].xsrc = &t->explain->src[i];
	return 0;
}

int pair_measure(struct test_run *t)
{
	if (run.cfg.stream)
		return pair_stream_measure(&run);
	if (explain_receivers(t))
		return 1;
	return pair_measure_once();
}

int pair_measure_once(void)
{
	/* An earlier phase of the same run (sync's test 1, a bench) may have
	 * pointed the stop signal at its own flag: take it back. */
	run_stop_flag(&run.shared->stop);
	if (open_transport(&run))
		return 1;
	/* A worker that could not start (fork's EAGAIN under RLIMIT_NPROC,
	 * found by tests/test_exhaustion.py) is an error: exit 1. */
	if (start_workers(&run) == 0) {
		start_barrier(&run);
		supervise(&run);
	} else {
		run.failed = 1;
	}
	stop_workers(&run);
	check_children(&run);
	worker_error(&run);
	return run.failed;
}

/* All pairs as one series: the suite's table, the fleet outputs, the
 * JSON's "fleet" (a later --baseline). */
static void report_summary(const struct pair_run *run)
{
	struct stats all;
	int i;

	if (!run->pairs ||
	    stats_init(&all, 0, HIST_BUCKET_NS, HIST_BUCKETS))
		return;
	for (i = 0; i < run->npairs; i++)
		stats_merge(&all, &run->pairs[i].lat);
	results_summary("latency", &all);
	stats_free(&all);
}

/*
 * A stop signal is a normal ending (as in rt-tests), but one that came
 * before any pair recorded a sample leaves nothing to report: exit 1.
 */
static void check_delivered(struct pair_run *r)
{
	uint64_t n = 0;
	int i;

	if (!run_stop_requested || r->failed || !r->pairs)
		return;
	for (i = 0; i < r->npairs; i++)
		n += r->pairs[i].lat.n;
	if (n)
		return;
	r->failed = 1;
	snprintf(r->fail_msg, sizeof(r->fail_msg),
		 "stopped by a signal before the first sample");
}

int pair_report(struct test_run *t, int status)
{
	if (run.cfg.stream)
		return pair_stream_report(t, &run, status);
	if (status)
		run.failed = 1;
	check_delivered(&run);
	if (t->error && !run.fail_msg[0])
		snprintf(run.fail_msg, sizeof(run.fail_msg), "%s", t->error);
	close_transport(&run);
	if (run.started_any || !run.failed) {
		/* The final block replaces the live one on a terminal. */
		if (live_lines)
			printf("\033[%dA", live_lines);
		pair_print_block(stdout, &run);
	}
	fflush(stdout);
	if (run.fail_msg[0])
		fprintf(stderr, "%s: %s\n", run.prog, run.fail_msg);
	if (run.shared && run.shared->break_hit)
		fprintf(stderr, "%s: breaktrace: pair %d latency %lld us > %lld us; tracing stopped\n",
			run.prog, run.shared->break_pair,
			ns_to_us_round((double)run.shared->break_ns), run.cfg.breaktrace_us);
	report_summary(&run);
	pair_write_json(&run, &t->res);
	return run.failed ? 1 : 0;
}

/* rtlat suite: every pair on its own CPU, one priority, one interval. */
long long pair_suite_args(char *buf, size_t len, long long d, long long prio)
{
	snprintf(buf, len, "-S -p %lld -i 1000 -d 0 -q -D %lld", prio, d);
	return d;
}

/* rtlat sync runs the harness inside its own test (see pair.h). */
struct pair_run *pair_current(void)
{
	return &run;
}

void pair_close(void)
{
	close_transport(&run);
	run.nopen = 0;
}
