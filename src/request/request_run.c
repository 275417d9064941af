// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * request_run.c - a run of the request test in the main process: start
 * server and client, the rounds with one more load process each, and the
 * end, whatever causes it (last round, SIGINT/SIGTERM, a process dying):
 * stop and reap every process, print and write what was measured.
 */
#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include "system/cleanup.h"
#include "measure/clock.h"
#include "request/request_types.h"
#include "request/request_client.h"
#include "request/request_load.h"
#include "request/request_output.h"
#include "request/request_run.h"
#include "request/request_server.h"
#include "request/request_spawn.h"
#include "request/request_net.h"
#include "harness/results.h"
#include "system/rtsetup.h"
#include "harness/test.h"

/* What results_summary() reports (rtlat --list). */
const char *const req_series[] = { "response", "total_jitter", NULL };

#define STOP_GRACE_NS	(3 * NSEC_PER_SEC)
#define READY_LIMIT_NS	(5 * NSEC_PER_SEC)
#define POLL_US		20000
#define PROGRESS_NS	(500 * NSEC_PER_MSEC)

static void debug(const struct req_run *run, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void debug(const struct req_run *run, const char *fmt, ...)
{
	va_list ap;

	if (!run->cfg->debug)
		return;
	fprintf(stderr, "%s: debug: ", run->prog);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

static void fail(struct req_run *run, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void fail(struct req_run *run, const char *fmt, ...)
{
	va_list ap;

	run->failed = 1;
	if (run->fail_msg[0])
		return;
	va_start(ap, fmt);
	vsnprintf(run->fail_msg, sizeof(run->fail_msg), fmt, ap);
	va_end(ap);
}

/* A process, forked by the spawner (request_spawn.c); fd goes with it. */
static pid_t spawn(struct req_run *run, enum req_child_kind kind, int index,
		   int fd)
{
	pid_t pid = req_spawn(run, kind, index, fd);

	if (pid < 0) {
		fail(run, "cannot start a process: %s", strerror((int)-pid));
		return -1;
	}
	cleanup_add_child(pid);
	return pid;
}

/* Reap a child if it ended; before a stop that is a failure. */
static bool reap_one(struct req_run *run, pid_t *pid, const char *what)
{
	int status;

	if (*pid <= 0 || !req_spawned_ended(run, *pid, &status, false))
		return false;
	cleanup_del_child(*pid);
	if (!run->sh->stop) {
		if (run->sh->error)
			fail(run, "%s", run->sh->msg);
		else if (WIFSIGNALED(status))
			fail(run, "the %s (pid %d) was killed by signal %d (%s)",
			     what, *pid, WTERMSIG(status), strsignal(WTERMSIG(status)));
		else
			fail(run, "the %s (pid %d) exited with status %d", what,
			     *pid, WEXITSTATUS(status));
	}
	*pid = 0;
	return true;
}

/* The server first: if it died, the client's broken call is the effect. */
static bool reap_all(struct req_run *run)
{
	bool ended = reap_one(run, &run->server_pid, "server");
	char what[16];
	int i;

	for (i = 0; i < run->nloads; i++)
		ended |= reap_one(run, &run->load_pid[i], "load process");
	for (i = 0; i < run->nclients; i++) {
		snprintf(what, sizeof(what), run->orb ? "client %d" : "client", i);
		ended |= reap_one(run, &run->client_pid[i], what);
	}
	if (req_spawner_lost(run) && !run->sh->stop) {
		fail(run, "the process that starts the others (rtlat-spawn) ended");
		ended = true;
	}
	return ended;
}

static bool any_client(const struct req_run *run)
{
	int i;

	for (i = 0; i < run->nclients; i++)
		if (run->client_pid[i] > 0)
			return true;
	return false;
}

static bool any_child(const struct req_run *run)
{
	int i;

	for (i = 0; i < run->nloads; i++)
		if (run->load_pid[i] > 0)
			return true;
	return any_client(run) || run->server_pid > 0;
}

static void progress_clear(struct req_run *run)
{
	if (run->progress_shown)
		fprintf(stderr, "\r\033[K");
	run->progress_shown = false;
}

/* Round k of N, elapsed, remaining: only on a terminal. */
static void progress(struct req_run *run, int k)
{
	uint64_t n = k >= 0 ? req_cs(run, k, 0)->s[RS_RESPONSE].n : 0;
	long long left, el;

	if (k < 0 || run->cfg->quiet || !isatty(STDERR_FILENO))
		return;
	left = run->cfg->samples - (long long)n +
	       (run->cfg->rounds - k - 1) * run->cfg->samples;
	el = (clock_now_ns() - run->t_start) / NSEC_PER_SEC;
	fprintf(stderr, "\r\033[K%s: round %d of %lld, elapsed %llds, remaining about %llds",
		run->prog, k + 1, run->cfg->rounds, el, left / req_client_rate(run, 0));
	run->progress_shown = true;
}

typedef bool (*done_fn)(const struct req_run *run, int arg);

static bool client_ready(const struct req_run *run, int i)
{
	return atomic_load_explicit(&run->sh->client_ready[i], memory_order_acquire);
}

static bool load_ready(const struct req_run *run, int i)
{
	return atomic_load_explicit(&run->sh->load_ready[i], memory_order_acquire);
}

static bool round_done(const struct req_run *run, int k)
{
	return atomic_load_explicit(&run->sh->rounds[k].done, memory_order_seq_cst);
}

/* After done: until no client is inside record() (see there). */
#define QUIET_LIMIT_NS	(200 * NSEC_PER_MSEC)
static void round_quiet(const struct req_run *run)
{
	int i;

	int64_t deadline = clock_now_ns() + QUIET_LIMIT_NS;

	/*
	 * Sleep, not sched_yield(): main runs at the highest priority, where
	 * a yield lets no lower-priority task run on its CPU. Bounded: a
	 * client killed inside record() never clears its flag.
	 */
	for (i = 0; i < run->nclients; i++)
		while (atomic_load_explicit(&run->sh->busy[i], memory_order_seq_cst) &&
		       run->client_pid[i] > 0 && clock_now_ns() < deadline)
			usleep(50);
}

/*
 * Wait until done(run, arg): 0. A stop request: 1. A process failed or
 * limit_ns (0: none) passed: -1, with the reason in fail_msg.
 */
static int wait_for(struct req_run *run, done_fn done, int arg,
		    int64_t limit_ns, const char *what)
{
	int64_t start = clock_now_ns(), drawn = 0, now;

	for (;;) {
		if (done(run, arg))
			return 0;
		if (run->sh->stop)
			return 1;
		if (reap_all(run) || run->failed)
			return -1;
		now = clock_now_ns();
		if (limit_ns && now - start > limit_ns) {
			fail(run, "the %s did not get ready within %lld s", what,
			     (long long)(limit_ns / NSEC_PER_SEC));
			return -1;
		}
		if (now - drawn >= PROGRESS_NS) {
			progress(run, run->rounds_begun - 1);
			drawn = now;
		}
		usleep(POLL_US);
	}
}

static int start_load(struct req_run *run, int i)
{
	pid_t pid = spawn(run, REQ_CHILD_LOAD, i, -1);
	int r;

	if (pid < 0)
		return -1;
	run->load_pid[i] = pid;
	run->nloads = i + 1;
	r = wait_for(run, load_ready, i, READY_LIMIT_NS, "load process");
	if (r)
		return r;
	if (kill(pid, REQ_SIG_LOAD)) {
		char hint[256] = "";

		if (errno == EAGAIN)
			rt_sigpending_hint(hint, sizeof(hint));
		fail(run, "cannot start load process %d: %s%s%s", i,
		     strerror(errno), *hint ? ": " : "", hint);
		return -1;
	}
	debug(run, "load process %d started: pid %d, CPU %d, SCHED_RR %d",
	      i, pid, req_load_cpu(&run->layout, i), run->layout.load_prio);
	return 0;
}

static void print_round(struct req_run *run, int k)
{
	progress_clear(run);
	if (!run->cfg->quiet)
		req_print_round(stdout, run, k);
	req_log_round(run->log, run, k);
	run->rounds_printed = k + 1;
}

static int start_client(struct req_run *run, int i);

/* trltp -l: the design's histograms start empty each round. No client
 * writes them now: the last round is done and quiet, the next not set. */
static void design_reset(struct req_run *run)
{
	int i;

	for (i = 0; run->design_hist && i < RS_N * run->cfg->clients; i++)
		hist_reset(&run->design_hist[i]);
}

static int run_rounds(struct req_run *run)
{
	int k, r;

	for (k = 0; k < run->cfg->rounds; k++) {
		const struct req_round *rd = &run->sh->rounds[k];

		while (run->nloads < rd->nloads) {
			r = start_load(run, run->nloads);
			if (r)
				return r;
		}
		while (run->nclients < rd->nclients) {
			r = start_client(run, run->nclients);
			if (r)
				return r;
		}
		design_reset(run);
		atomic_store_explicit(&run->sh->round, k, memory_order_release);
		run->rounds_begun = k + 1;
		debug(run, "round %d: %d load process%s, %d client%s", k, rd->nloads,
		      rd->nloads == 1 ? "" : "es", rd->nclients,
		      rd->nclients == 1 ? "" : "s");
		r = wait_for(run, round_done, k, 0, NULL);
		round_quiet(run);
		if (r)
			return r;
		print_round(run, k);
	}
	return 0;
}

static void kill_rest(struct req_run *run, pid_t *pid)
{
	int status;

	if (*pid <= 0)
		return;
	kill(*pid, SIGKILL);
	req_spawned_ended(run, *pid, &status, true);
	cleanup_del_child(*pid);
	*pid = 0;
}

/* Client first, so it never sees the server go away; then the rest. */
static void stop_all(struct req_run *run)
{
	int64_t deadline = clock_now_ns() + STOP_GRACE_NS;
	int i;

	run->sh->stop = 1;
	while (any_client(run) && clock_now_ns() < deadline) {
		for (i = 0; i < run->nclients; i++)
			if (run->client_pid[i] > 0)
				kill(run->client_pid[i], REQ_SIG_TIMER);
		reap_all(run);
		usleep(2000);
	}
	run->sh->server_stop = 1;
	while (any_child(run) && clock_now_ns() < deadline) {
		if (run->server_pid > 0)
			kill(run->server_pid, REQ_SIG_TIMER);
		reap_all(run);
		usleep(5000);
	}
	for (i = 0; i < run->nclients; i++)
		kill_rest(run, &run->client_pid[i]);
	kill_rest(run, &run->server_pid);
	for (i = 0; i < run->nloads; i++)
		kill_rest(run, &run->load_pid[i]);
}

static int make_tmpdir(struct req_run *run)
{
	const char *base = getenv("TMPDIR");

	/* The path must fit the cleanup registry's names (120 bytes). */
	snprintf(run->tmpdir, sizeof(run->tmpdir), "%s/rtlat-request-XXXXXX",
		 base && *base && strlen(base) < 96 ? base : "/tmp");
	if (!mkdtemp(run->tmpdir)) {
		fail(run, "cannot create a temporary directory %s: %s",
		     run->tmpdir, strerror(errno));
		return -1;
	}
	cleanup_add_dir(run->tmpdir);
	return 0;
}

static int open_log(struct req_run *run)
{
	if (!run->cfg->log)
		return 0;
	run->log = outfile_open(&run->log_file, run->prog, "-l", run->cfg->log);
	return run->log ? 0 : -1;
}

/* Client 0 uses the connection checked before the run; the others
 * connect as they start (a sweep starts them round by round). */
static int start_client(struct req_run *run, int i)
{
	struct req_net_error e = { 0 };
	pid_t pid;

	if (i > 0 && req_net_connect(run->mode == REQ_LOCAL ? "127.0.0.1" :
				     run->cfg->host, (int)run->cfg->port,
				     &run->conn_fd, NULL, 0, &e)) {
		fail(run, "client %d: %s", i, e.msg);
		return -1;
	}
	pid = spawn(run, REQ_CHILD_CLIENT, i, run->conn_fd);
	close(run->conn_fd);
	run->conn_fd = -1;
	if (pid < 0)
		return -1;
	run->client_pid[i] = pid;
	run->nclients = i + 1;
	if (wait_for(run, client_ready, i, READY_LIMIT_NS, "client"))
		return -1;
	if (run->orb)
		debug(run, "client %d: pid %d, CPU %d, SCHED_FIFO %d, %lld Hz", i,
		      pid, run->layout.client_cpu, req_client_prio(run, i),
		      req_client_rate(run, i));
	else
		debug(run, "client: pid %d, CPU %d, SCHED_FIFO %d, %lld Hz", pid,
		      run->layout.client_cpu, req_client_prio(run, i),
		      req_client_rate(run, i));
	return 0;
}

static int start_server(struct req_run *run)
{
	if (run->mode != REQ_LOCAL)
		return 0;
	run->server_pid = spawn(run, REQ_CHILD_SERVER, 0, -1);
	if (run->server_pid < 0)
		return -1;
	debug(run, "server: pid %d, CPU %d, SCHED_FIFO %d, %s",
	      run->server_pid, run->layout.server_cpu,
	      run->layout.server_prio, run->where);
	close(run->listen_fd);
	run->listen_fd = -1;
	return 0;
}

/* The headline of the most loaded round measured, for rtlat suite and
 * the fleet outputs; with no round measured, the series with no sample
 * (skipped there, never gone). */
static void suite_summary(struct results *res, const struct req_run *run)
{
	static const struct stats none;
	const struct stats *resp = &none, *jit = &none;
	int k;

	for (k = run->rounds_begun - 1; k >= 0; k--) {
		const struct req_cstat *r = req_cs(run, k, 0);

		if (!r->s[RS_RESPONSE].n)
			continue;
		resp = &r->s[RS_RESPONSE];
		jit = &r->s[RS_JITTER];
		break;
	}
	results_summary(res, req_series[0], resp);
	results_summary(res, req_series[1], jit);
}

/*
 * --checkpoint: the rounds so far, read where the clients keep them (in
 * shared memory, as checkpoint.c explains for a live series), from a
 * copy of the run so that a failed write is not the run's failure.
 */
void req_checkpoint(struct test_run *t)
{
	struct req_run snap = *(const struct req_run *)t->state;

	if (!snap.sh || snap.mode == REQ_SERVER_ONLY)
		return;
	suite_summary(&t->res, &snap);
	req_write_json(&snap, &t->res);
}

/* Print and write what was measured, however the run ended. */
int req_report(struct req_run *run, struct results *res)
{
	if (run->mode == REQ_SERVER_ONLY) {
		fflush(stdout);
		if (run->fail_msg[0])
			fprintf(stderr, "%s: %s\n", run->prog, run->fail_msg);
		req_write_json(run, res);
		return run->failed ? 1 : 0;
	}
	/* The round under way when the run ended, done or partial. */
	while (run->rounds_printed < run->rounds_begun)
		print_round(run, run->rounds_printed);
	progress_clear(run);
	/* The design prints no table: as trltp, the rounds alone. */
	if (run->rounds_begun && !run->compat) {
		req_print_table(stdout, run);
		req_log_table(run->log, run);
	}
	fflush(stdout);
	if (run->fail_msg[0])
		fprintf(stderr, "%s: %s\n", run->prog, run->fail_msg);
	if (run->log && outfile_close(&run->log_file, run->prog))
		run->failed = 1;
	run->log = NULL;
	suite_summary(res, run);
	req_write_json(run, res);
	return run->failed ? 1 : 0;
}

int req_measure(struct req_run *run)
{
	run->t_start = clock_now_ns();
	if (make_tmpdir(run) || open_log(run))
		goto out;
	if (!run->cfg->quiet)
		req_print_layout(stdout, run);
	fflush(stdout);
	if (start_server(run))
		goto out;
	run_rounds(run);
out:
	stop_all(run);
	/* A child's failure just before the stop (req_fail refuses those
	 * after it), its process reaped only then: still the run's error. */
	if (atomic_load_explicit(&run->sh->error, memory_order_seq_cst))
		fail(run, "%s", run->sh->msg);
	return run->failed ? 1 : 0;
}

int req_serve(struct req_run *run)
{
	const struct req_layout *l = &run->layout;
	struct req_server *sp = calloc(1, sizeof(*sp));
	int err;

	if (!sp) {
		fail(run, "server: %s", strerror(ENOMEM));
		return 1;
	}
	/* The run's own: its counters go into the JSON; teardown frees it. */
	run->server = sp;
	req_server_init(sp, run);
	sp->stop = &run_stop_requested;
	sp->verbose = true;
	printf("%s: server listening on %s (TCP), CPU%d SCHED_FIFO %d, up to %d clients, each served at %s; stop with SIGINT or SIGTERM\n",
	       run->prog, run->where, l->server_cpu, l->server_prio, sp->max_clients,
	       sp->fixed ? "the server's priority" : "the priority its frames ask");
	fflush(stdout);
	err = req_server_run(sp);
	if (err)
		fail(run, "server: %s", strerror(-err));
	printf("%s: server stopped: %llu requests served, %llu connections, %llu refused, %llu closed on errors\n",
	       run->prog, (unsigned long long)sp->served,
	       (unsigned long long)sp->connections,
	       (unsigned long long)sp->refused, (unsigned long long)sp->errors);
	return run->failed ? 1 : 0;
}
