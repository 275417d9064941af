// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * pair_run.c - one run of the workers: open the transport, start the
 * pairs (threads or forked processes), release them together, supervise
 * (progress, children, errors, the end), stop them. pair.c runs it once,
 * pair_stream.c once per size; both call down into it.
 */
#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include "system/cleanup.h"
#include "measure/clock.h"
#include "pair/pair_types.h"
#include "pair/pair_output.h"
#include "pair/pair_run.h"
#include "pair/pair_worker.h"

#define STOP_GRACE_NS	(3 * NSEC_PER_SEC)

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
			err = run->cfg->fork ? start_child(run, &run->pairs[i], r) :
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

	if (!run->cfg->fork)
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
		if (!atomic_load_explicit(&run->pairs[i].w[0].finished, memory_order_acquire) ||
		    !atomic_load_explicit(&run->pairs[i].w[1].finished, memory_order_acquire))
			return false;
	return true;
}

/* Stopping: every worker finished, or (fork mode) already reaped: a
 * child that died will never say it finished, so the grace period is not
 * waited out for it. */
static bool all_ended(const struct pair_run *run)
{
	int i, r;

	for (i = 0; i < run->npairs; i++)
		for (r = 0; r < 2; r++) {
			const struct pair_worker *w = &run->pairs[i].w[r];

			if (!atomic_load_explicit(&w->finished, memory_order_acquire) &&
			    !(run->cfg->fork && !w->pid))
				return false;
		}
	return true;
}

static bool all_started(const struct pair_run *run)
{
	int i;

	for (i = 0; i < run->npairs; i++)
		if (!atomic_load_explicit(&run->pairs[i].w[0].started, memory_order_acquire) ||
		    !atomic_load_explicit(&run->pairs[i].w[1].started, memory_order_acquire))
			return false;
	return true;
}

/* A worker's transport error (pair_fail) fails the run: exit 1. */
static int worker_error(struct pair_run *run)
{
	int i;

	for (i = 0; i < run->npairs; i++) {
		struct pair *p = &run->pairs[i];

		if (p->error && !run->fail_msg[0])
			snprintf(run->fail_msg, sizeof(run->fail_msg),
				 "pair %d: %s failed: %s", i, run->name,
				 strerror(p->error));
		if (p->error) {
			run->failed = 1;
			return 1;
		}
	}
	return 0;
}

static void kick(const struct pair_run *run)
{
	int i, r;

	for (i = 0; i < run->npairs; i++)
		for (r = 0; r < 2; r++) {
			const struct pair_worker *w = &run->pairs[i].w[r];

			if (atomic_load_explicit(&w->finished, memory_order_acquire))
				continue;
			if (run->cfg->fork && w->pid)
				kill(w->pid, RUN_KICK_SIGNAL);
			else if (!run->cfg->fork && w->created)
				pthread_kill(w->thread, RUN_KICK_SIGNAL);
		}
}

/* Lines of the live block on the terminal, redrawn in place. */

static void progress(struct pair_run *run, int64_t start, bool final)
{
	int64_t worst = 0, el = (clock_now_ns() - start) / NSEC_PER_SEC;
	int i;

	if (run->cfg->quiet)
		return;
	if (isatty(STDOUT_FILENO)) {
		if (run->live_lines)
			printf("\033[%dA", run->live_lines);
		pair_print_block(stdout, run);
		run->live_lines = 2 * run->npairs;
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
	else if (run->cfg->duration_s)
		fprintf(stderr, "\r%s: elapsed %llds, remaining %llds, worst %lld us   ",
			run->prog, (long long)el, run->cfg->duration_s - (long long)el,
			ns_to_us_round((double)worst));
	else
		fprintf(stderr, "\r%s: elapsed %llds, worst %lld us   ",
			run->prog, (long long)el, ns_to_us_round((double)worst));
}

/* Wait for the end: loops done, duration, signal, error or child death. */
static void supervise(struct pair_run *run)
{
	int64_t start = clock_now_ns(), last_draw = 0, now;
	int64_t end = run->cfg->duration_s ? start + run->cfg->duration_s * NSEC_PER_SEC : 0;

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
	if (!run->cfg->quiet && !isatty(STDOUT_FILENO))
		progress(run, start, true);
}

/* Stop every worker: kick until all finished, then join or reap. */
static void stop_workers(struct pair_run *run)
{
	int64_t deadline = clock_now_ns() + STOP_GRACE_NS;
	int i, r;

	pair_stop(run);
	while (!all_ended(run) && clock_now_ns() < deadline) {
		kick(run);
		check_children(run);
		usleep(5000);
	}
	for (i = 0; i < run->npairs; i++)
		for (r = 0; r < 2; r++) {
			struct pair_worker *w = &run->pairs[i].w[r];

			if (run->cfg->fork && w->pid) {
				if (!w->finished)
					kill(w->pid, SIGKILL);
				waitpid(w->pid, NULL, 0);
				cleanup_del_child(w->pid);
				w->pid = 0;
			} else if (!run->cfg->fork && w->created && w->finished) {
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

/* Release the workers once every one of them is set up. */
static void start_barrier(struct pair_run *run)
{
	while (!all_started(run) && !pair_stopping(run)) {
		if (check_children(run) || worker_error(run) || all_finished(run))
			break;
		usleep(1000);
	}
	atomic_store_explicit(&run->shared->go, 1, memory_order_release);
}

int pair_measure_once(struct pair_run *run)
{
	/* An earlier phase of the same run (sync's test 1, a bench) may have
	 * pointed the stop signal at its own flag: take it back. */
	run_stop_flag(&run->shared->stop);
	if (open_transport(run))
		return 1;
	/* A worker that could not start (fork's EAGAIN under RLIMIT_NPROC,
	 * found by tests/test_exhaustion.py) is an error: exit 1. */
	if (start_workers(run) == 0) {
		start_barrier(run);
		supervise(run);
	} else {
		run->failed = 1;
	}
	stop_workers(run);
	check_children(run);
	worker_error(run);
	return run->failed;
}

void pair_transport_close(struct pair_run *run)
{
	int i;

	for (i = 0; run->ops->close && i < run->nopen; i++)
		run->ops->close(&run->pairs[i]);
	run->nopen = 0;
}
