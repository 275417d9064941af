// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * pair_worker.c - the sender and receiver loops, the same for every
 * transport and for threads or processes. The measuring path is: take
 * t_send, send(); receive(), take t_recv, stats_add(). Nothing else runs
 * between the two clock reads but the mechanism under test.
 */
#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>
#include "measure/clock.h"
#include "system/cleanup.h"
#include "explain/explain.h"
#include "pair/pair_types.h"
#include "pair/pair_worker.h"
#include "system/rtsetup.h"
#include "system/tracefs.h"

static struct pair_shared *shared_of(const struct pair *p)
{
	return p->run->shared;
}

static bool stopping(const struct pair *p)
{
	return pair_stopping(p->run);
}

void pair_fail(struct pair *p, int err)
{
	if (!p->error)
		p->error = err;
	pair_stop(p->run);
}

/* Block the process-level signals so they reach the main thread. */
static void worker_signals(const struct pair *p)
{
	sigset_t set;

	if (pair_is_fork(p))
		return;
	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGHUP);
	pthread_sigmask(SIG_BLOCK, &set, NULL);
}

static int worker_start(struct pair *p, enum pair_role role)
{
	struct pair_worker *w = &p->w[role];
	const struct transport_ops *ops = p->run->ops;
	int err;

	worker_signals(p);
	w->pid = getpid();
	w->tid = (pid_t)syscall(SYS_gettid);
	w->thread = pthread_self();
	if (rt_thread_setup(w->prio, w->cpu))
		return -EPERM;
	pair_note_cpu(w);
	if (ops->attach) {
		err = ops->attach(p, role);
		if (err)
			return err;
	}
	atomic_store_explicit(&w->started, 1, memory_order_release);
	while (!atomic_load_explicit(&shared_of(p)->go, memory_order_acquire)) {
		if (stopping(p))
			return -EINTR;
		usleep(1000);
	}
	return 0;
}

/* Receive, retrying while not stopping. Returns 0, -EINTR at stop, or an
 * error. Timeouts are counted (pmq -T) and retried. */
int pair_receive(struct pair *p, enum pair_dir dir)
{
	int err;

	for (;;) {
		err = p->run->ops->receive(p, dir);
		if (!err)
			return 0;
		if (err == -ETIMEDOUT) {
			pair_count(&p->timeouts);
			continue;
		}
		if (err != -EINTR)
			return err;
		if (stopping(p))
			return -EINTR;
	}
}

/* Stream mode (pair_stream.c): as fast as the mechanism takes them. */
void pair_stream_send(struct pair *p)
{
	uint64_t i;
	int err;

	for (i = 0; !p->loops || i < p->loops; i++) {
		if (p->run->shared->stop)
			break;
		err = p->run->ops->send(p, DIR_FWD);
		if (err == -EINTR)
			continue;
		if (err) {
			pair_fail(p, -err);
			break;
		}
	}
}

void pair_stream_receive(struct pair *p)
{
	uint64_t i;
	int64_t t;

	for (i = 0; !p->loops || i < p->loops; i++) {
		if (!pair_next(p))
			break;
		t = clock_now_ns();
		if (!atomic_load_explicit(&p->cycles, memory_order_relaxed))
			atomic_store_explicit(&p->t_first, t, memory_order_relaxed);
		atomic_store_explicit(&p->t_last, t, memory_order_relaxed);
		pair_count(&p->cycles);
	}
}

static bool sleep_until(const struct pair *p, int64_t t)
{
	while (clock_sleep_until(t) == EINTR)
		if (stopping(p))
			return false;
	return !stopping(p);
}

static void sender_loop(struct pair *p)
{
	const struct transport_ops *ops = p->run->ops;
	uint64_t i;
	int err;

	for (i = 0; !p->loops || i < p->loops; i++) {
		if (stopping(p))
			break;
		if (ops->send_delay_ns && ops->send_delay_ns(p) > 0 &&
		    !sleep_until(p, clock_now_ns() + ops->send_delay_ns(p)))
			break;
		atomic_store_explicit(&p->t_send, clock_now_ns(), memory_order_relaxed);
		err = ops->send(p, DIR_FWD);
		if (!err)
			err = pair_receive(p, DIR_BACK);
		if (err == -EINTR)
			break;
		if (err) {
			pair_fail(p, -err);
			break;
		}
		pair_note_cpu(&p->w[ROLE_SENDER]);
	}
}

static void breaktrace(struct pair *p, int64_t lat)
{
	char msg[96];

	snprintf(msg, sizeof(msg), "rtlat: pair %d latency %lld us > breaktrace\n",
		 p->index, (long long)(lat / NSEC_PER_USEC));
	tracefs_break(msg);
	atomic_store_explicit(&shared_of(p)->break_pair, p->index, memory_order_relaxed);
	atomic_store_explicit(&shared_of(p)->break_ns, lat, memory_order_relaxed);
	/* Release: who reads break_hit (acquire) sees the pair and time. */
	atomic_store_explicit(&shared_of(p)->break_hit, 1, memory_order_release);
	pair_stop(p->run);
}

static void receiver_loop(struct pair *p)
{
	const struct transport_ops *ops = p->run->ops;
	int64_t bt = p->run->cfg->breaktrace_us * NSEC_PER_USEC;
	int64_t t_recv, lat, next = 0;
	uint64_t i;
	int err;

	explain_attach(p->xsrc);
	for (i = 0; !p->loops || i < p->loops; i++) {
		if (!pair_next(p))
			break;
		t_recv = clock_now_ns();
		lat = t_recv - atomic_load_explicit(&p->t_send, memory_order_relaxed);
		stats_add(&p->lat, lat);
		record_add(p->rec, t_recv, lat);
		pair_count(&p->cycles);
		if (p->xsrc)
			explain_note(p->xsrc, t_recv - lat, lat);
		if (bt && lat > bt)
			breaktrace(p, lat);
		pair_note_cpu(&p->w[ROLE_RECEIVER]);
		/* Pace on absolute times; after an overrun, restart from now. */
		next = next ? next + p->interval_ns : t_recv + p->interval_ns;
		if (next < t_recv)
			next = t_recv + p->interval_ns;
		if ((!p->loops || i + 1 < p->loops) && !sleep_until(p, next))
			break;
		err = ops->send(p, DIR_BACK);
		if (err) {
			pair_fail(p, -err);
			break;
		}
	}
	/* rt-tests' names: this pair's loops done, every pair stops. */
	if (p->loops && i == p->loops && p->run->cfg->first_ends)
		pair_stop(p->run);
}

static void run_role(struct pair *p, enum pair_role role)
{
	int err = worker_start(p, role);

	if (err && err != -EINTR)
		pair_fail(p, -err);
	else if (!err && p->run->cfg->stream && role == ROLE_SENDER)
		pair_stream_send(p);
	else if (!err && p->run->cfg->stream)
		pair_stream_receive(p);
	else if (!err && role == ROLE_SENDER)
		sender_loop(p);
	else if (!err)
		receiver_loop(p);
	if (p->w[role].started && p->run->ops->detach)
		p->run->ops->detach(p, role);
	atomic_store_explicit(&p->w[role].finished, 1, memory_order_release);
}

void *pair_sender(void *arg)
{
	run_role(arg, ROLE_SENDER);
	return NULL;
}

void *pair_receiver(void *arg)
{
	run_role(arg, ROLE_RECEIVER);
	return NULL;
}

void pair_child(struct pair *p, enum pair_role role)
{
	if (cleanup_child_setup())
		_exit(1);
	rt_child_init();
	run_role(p, role);
	_exit(0);
}
