// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * pair.c - the pair-test harness: options, setup, the run and its end.
 * Every transport (pmq, sigwait, svsem, ptsem) goes through pair_main().
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
#include "opts.h"
#include "pair_internal.h"
#include "results.h"
#include "rtsetup.h"
#include "stopsig.h"
#include "tracefs.h"

#define MAX_PAIRS	1024
#define MAX_INTERVAL_US	3600000000LL	/* one hour */
#define HIST_BUCKET_NS	100		/* 0.1 us resolution ... */
#define HIST_BUCKETS	20000		/* ... up to 2 ms, then overflow */
#define STOP_GRACE_NS	(3 * NSEC_PER_SEC)

static struct pair_config cfg;
static struct pair_shared *g_shared;

static struct opt pair_opts[] = {
	{ 'a', "affinity", OPT_CPU, OPT_ARG_OPTIONAL, "CPU", 0, 0, -1, &cfg.affinity,
	  "pin pair i to CPU i mod ncpus; with CPU, pin all to it", NULL, false },
	{ 'b', "breaktrace", OPT_INT, OPT_ARG_REQUIRED, "USEC", 1, MAX_INTERVAL_US, 0,
	  &cfg.breaktrace_us, "stop ftrace and the test when a latency exceeds USEC", NULL, false },
	{ 'd', "distance", OPT_INT, OPT_ARG_REQUIRED, "DIST", 0, MAX_INTERVAL_US, 0,
	  &cfg.distance_us, "interval distance between pairs in us (default 500)", NULL, false },
	{ 'D', "duration", OPT_DURATION, OPT_ARG_REQUIRED, "TIME", 0, 3650LL * 86400, 0,
	  &cfg.duration_s, "run for TIME (N[s|m|h|d]); 0: no limit", NULL, false },
	{ 'h', "help", OPT_HELP, OPT_ARG_NONE, NULL, 0, 0, 0, NULL,
	  "print this help", NULL, false },
	{ 'i', "interval", OPT_INT, OPT_ARG_REQUIRED, "INTV", 1, MAX_INTERVAL_US, 0,
	  &cfg.interval_us, "base interval in us (default 1000)", NULL, false },
	{ 0, "json", OPT_PATH_OUT, OPT_ARG_REQUIRED, "FILE", 0, 0, 0, &cfg.json,
	  "write results to FILE as JSON (rt-tests layout plus rtlat's)", NULL, false },
	{ 'l', "loops", OPT_INT, OPT_ARG_REQUIRED, "LOOPS", 0, 1LL << 62, 0, &cfg.loops,
	  "cycles per pair; 0: until stopped", NULL, false },
	{ 'p', "prio", OPT_INT, OPT_ARG_REQUIRED, "PRIO", 0, 99, 0, &cfg.prio,
	  "SCHED_FIFO priority of pair 0, pair i gets PRIO-i; 0: SCHED_OTHER", NULL, false },
	{ 'q', "quiet", OPT_FLAG, OPT_ARG_NONE, NULL, 0, 0, 0, &cfg.quiet,
	  "print only the final summary", NULL, false },
	{ 'S', "smp", OPT_FLAG, OPT_ARG_NONE, NULL, 0, 0, 0, &cfg.smp,
	  "SMP testing: -a -t and the same priority for all pairs", NULL, false },
	{ 't', "threads", OPT_INT, OPT_ARG_OPTIONAL, "NUM", 1, MAX_PAIRS, -1, &cfg.threads,
	  "number of pairs; without NUM, one per CPU (default 1)", NULL, false },
	RT_OPT_ENTRIES(&cfg.strict, &cfg.no_mlock, &cfg.no_dma_latency),
	OPT_END
};

bool pair_is_fork(const struct pair *p)
{
	return p->run->cfg.fork;
}

/* Set by a signal that arrives before the shared flags exist. */
static volatile sig_atomic_t stop_requested;

static void on_stop_signal(int sig)
{
	(void)sig;
	stop_requested = 1;
	if (g_shared)
		g_shared->stop = 1;
}

static void on_kick(int sig)
{
	(void)sig;
}

static void install_signals(void)
{
	stopsig_install(on_stop_signal);
	stopsig_catch(PAIR_KICK_SIGNAL, on_kick);
}

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

	if (cfg.smp) {
		if (!opts_find(tbl, 't', NULL)->given)
			cfg.threads = -1;
		if (!opts_find(tbl, 'a', NULL)->given)
			cfg.affinity = -1;
	}
	run->npairs = cfg.threads == -1 ? cpus_online() : (int)cfg.threads;
	if (run->npairs > MAX_PAIRS)
		run->npairs = MAX_PAIRS;
	last = cfg.interval_us + (long long)(run->npairs - 1) * cfg.distance_us;
	if (last > MAX_INTERVAL_US) {
		opts_error(prog, opts_find(tbl, 'd', NULL),
			   "the last pair's interval would be %lld us; accepted: intervals up to %lld us (1 hour)",
			   last, MAX_INTERVAL_US);
		return -1;
	}
	if (cfg.breaktrace_us) {
		char err[256];

		if (tracefs_open(err, sizeof(err))) {
			opts_error(prog, opts_find(tbl, 'b', NULL), "%s", err);
			return -1;
		}
	}
	return 0;
}

static void pair_defaults(void)
{
	memset(&cfg, 0, sizeof(cfg));
	cfg.interval_us = 1000;
	cfg.distance_us = 500;
	cfg.affinity = -2;
	cfg.threads = 1;
}

/* Parse and check everything before anything is created. */
static int pair_parse(struct pair_run *run, int argc, char **argv)
{
	const struct transport_ops *ops = run->ops;
	struct opt *tbl = opts_join(pair_opts, ops->opts);
	char synopsis[160];
	int ind, ret = -1;

	if (!tbl)
		return -1;

	snprintf(synopsis, sizeof(synopsis), "[OPTIONS]\n\n%s.", ops->title);
	ind = opts_parse(run->prog, synopsis, tbl, argc, argv);
	if (ind < 0)
		goto out;
	if (ind < argc) {
		fprintf(stderr, "%s: unexpected argument '%s'; see %s --help\n",
			run->prog, argv[ind], run->prog);
		goto out;
	}
	if (check_config(run->prog, tbl, run))
		goto out;
	run->cfg = cfg;
	if (ops->setup && ops->setup(run))
		goto out;
	ret = 0;
out:
	free(tbl);
	return ret;
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
	g_shared = run->shared;
	g_shared->stop = stop_requested;
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
	pthread_attr_t attr;
	int err = rt_thread_attr(&attr);

	if (!err)
		err = pthread_create(&p->w[role].thread, &attr,
				     role == ROLE_SENDER ? pair_sender : pair_receiver, p);
	pthread_attr_destroy(&attr);

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
		snprintf(run->fail_msg, sizeof(run->fail_msg),
			 "cannot fork for pair %d: %s", p->index, strerror(errno));
		return -errno;
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
		if (!run->pairs[i].w[0].finished || !run->pairs[i].w[1].finished)
			return false;
	return true;
}

static bool all_started(const struct pair_run *run)
{
	int i;

	for (i = 0; i < run->npairs; i++)
		if (!run->pairs[i].w[0].started || !run->pairs[i].w[1].started)
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
				 "pair %d: %s failed: %s", i, run->ops->name,
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

			if (w->finished)
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

	while (!run->shared->stop && !all_finished(run)) {
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
	run->shared->stop = 1;
	if (!run->cfg.quiet && !isatty(STDOUT_FILENO))
		progress(run, start, true);
}

/* Stop every worker: kick until all finished, then join or reap. */
static void stop_workers(struct pair_run *run)
{
	int64_t deadline = clock_now_ns() + STOP_GRACE_NS;
	int i, r;

	run->shared->stop = 1;
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
				 "cannot set up %s for pair %d: %s", run->ops->name,
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
	while (!all_started(run) && !run->shared->stop) {
		if (check_children(run) || worker_error(run) || all_finished(run))
			break;
		usleep(1000);
	}
	__atomic_store_n(&run->shared->go, 1, __ATOMIC_RELEASE);
}

static int run_pairs(struct pair_run *run)
{
	struct rt_options ro = {
		.no_mlock = run->cfg.no_mlock,
		.no_dma_latency = run->cfg.no_dma_latency,
		.strict = run->cfg.strict,
	};
	int first_cpu = run->pairs[0].w[0].cpu;

	if (rt_init(run->prog, &ro) || rt_probe(run->pairs[0].w[0].prio, first_cpu)) {
		snprintf(run->fail_msg, sizeof(run->fail_msg),
			 "a real-time setting could not be applied (--strict)");
		return -1;
	}
	if (open_transport(run))
		return -1;
	if (start_workers(run) == 0) {
		start_barrier(run);
		supervise(run);
	}
	stop_workers(run);
	check_children(run);
	worker_error(run);
	return 0;
}

/* All pairs as one series, for the suite's table. */
static void report_summary(const struct pair_run *run)
{
	struct stats all;
	int i;

	if (!getenv("RTLAT_SUMMARY_FD") || !run->pairs ||
	    stats_init(&all, 0, HIST_BUCKET_NS, HIST_BUCKETS))
		return;
	for (i = 0; i < run->npairs; i++)
		stats_merge(&all, &run->pairs[i].lat);
	results_summary("latency", &all);
	stats_free(&all);
}

int pair_main(const struct transport_ops *ops, int argc, char **argv)
{
	static struct pair_run run;
	struct results res;
	const char *slash = strrchr(argv[0], '/');

	memset(&run, 0, sizeof(run));
	run.ops = ops;
	run.prog = slash ? slash + 1 : argv[0];
	/* First: a signal from now on ends the run cleanly, with a summary. */
	install_signals();
	pair_defaults();
	if (pair_parse(&run, argc, argv))
		return OPTS_EXIT_USAGE;
	results_begin(&res, run.cfg.json, ops->name, argc, argv);
	if (cleanup_init() || alloc_pairs(&run)) {
		fprintf(stderr, "%s: cannot set up: %s\n", run.prog, strerror(ENOMEM));
		cleanup_run();
		return 1;
	}
	if (run_pairs(&run))
		run.failed = 1;
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
	pair_write_json(&run, &res);
	report_summary(&run);
	tracefs_close();
	rt_fini();
	cleanup_run();
	return run.failed ? 1 : 0;
}
