// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * request_client.c - the measured process. A POSIX interval timer at -C Hz
 * sends REQ_SIG_TIMER, waited for with sigwaitinfo. Per tick: t0, send the
 * 8-byte request, block for the 16-byte reply, t3; then the series go into
 * the current round's statistics in shared memory (and, as trltp with -l,
 * the design's histograms of the round). Nothing else happens on
 * that path: no allocation, no I/O but the socket under test.
 */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>
#include "measure/clock.h"
#include "explain/explain.h"
#include "request/request_types.h"
#include "request/request_child.h"
#include "request/request_client.h"
#include "system/rtsetup.h"
#include "request/request_proto.h"

/* The server sleeps --sleep; a reply later than this plus the sleep is a
 * dead server, not a latency. */
#define REPLY_TIMEOUT_NS	(2 * NSEC_PER_SEC)

struct client {
	struct req_run *run;
	int index;
	int fd;
	int ask_prio;		/* carried in each frame; -1: none (one client) */
	struct req_targets tg;
	timer_t timer;
	sigset_t set;
	uint32_t seq;
	char name[16];		/* "client" or "client 3", for messages */
	struct explain_src *xsrc;	/* --explain, or NULL */
};

long long req_client_rate(const struct req_run *run, int i)
{
	return run->orb && i == 0 ? run->cfg->rate0_hz : run->cfg->rate_hz;
}

int req_client_prio(const struct req_run *run, int i)
{
	int p = run->layout.client_prio - (run->orb ? i : 0);

	return p < 1 ? 1 : p;
}

void req_client_targets(const struct req_run *run, int i,
			struct req_targets *tg)
{
	*tg = run->tg;
	tg->period_ns = NSEC_PER_SEC / req_client_rate(run, i);
}

static int call(struct client *c, struct req_stamps *st)
{
	uint8_t q[REQ_REQUEST_LEN], a[REQ_REPLY_LEN];
	size_t got = 0;
	ssize_t n;
	char why[96];
	int err;

	req_encode_request_prio(q, c->seq, c->ask_prio);
	st->t0 = clock_now_ns();
	n = send(c->fd, q, sizeof(q), MSG_NOSIGNAL);
	if (n != (ssize_t)sizeof(q)) {
		req_fail(c->run->sh, "%s: cannot send to %s: %s", c->name, c->run->where,
			 n < 0 ? strerror(errno) : "short write");
		return -1;
	}
	while (got < sizeof(a)) {
		n = recv(c->fd, a + got, sizeof(a) - got, MSG_WAITALL);
		if (n > 0)
			got += (size_t)n;
		else if (n < 0 && errno == EINTR)
			continue;
		else
			break;
	}
	st->t3 = clock_now_ns();
	if (got < sizeof(a)) {
		req_fail(c->run->sh, "%s: no reply from %s: %s", c->name, c->run->where,
			 n == 0 ? "connection closed by the server (busy with other clients, see --max-clients, or stopped)" :
			 errno == EAGAIN ? "timed out" : strerror(errno));
		return -1;
	}
	err = req_decode_reply(a, c->seq, &st->t1, &st->t2);
	if (err) {
		req_fail(c->run->sh, "%s: %s from %s: %s", c->name,
			 err == REQ_FRAME_REFUSED ? "request" : "bad reply", c->run->where,
			 req_frame_strerror(err, a, why, sizeof(why)));
		return -1;
	}
	c->seq++;
	return 0;
}

/*
 * Client 0 ends the round when it has its samples; the others record
 * until then. busy and done are read and written in the opposite order
 * (sequentially consistent), so once main saw done set and busy clear, no
 * client writes the round's statistics any more.
 */
static void record(struct client *c, int k, const struct req_stamps *st,
		   int overrun)
{
	struct req_shared *sh = c->run->sh;
	struct req_round *r = &sh->rounds[k];
	struct histogram *dh = req_design_hist(c->run, c->index);
	struct req_cstat *cs;
	int64_t v[RS_N];
	int i;

	if (c->index >= r->nclients)
		return;
	atomic_store_explicit(&sh->busy[c->index], 1, memory_order_seq_cst);
	if (atomic_load_explicit(&r->done, memory_order_seq_cst))
		goto out;
	cs = &r->c[c->index];
	req_series_compute(st, &c->tg, v);
	for (i = 0; i < RS_N; i++) {
		stats_add(&cs->s[i], v[i]);
		if (dh)
			hist_add(&dh[i], v[i]);
	}
	record_add(c->run->rec[c->index][0], st->t3, v[RS_RESPONSE]);
	record_add(c->run->rec[c->index][1], st->t3, v[RS_JITTER]);
	cs->overruns += (uint64_t)overrun;
	if (c->index == 0 && cs->s[RS_RESPONSE].n >= (uint64_t)c->run->cfg->samples)
		atomic_store_explicit(&r->done, 1, memory_order_seq_cst);
out:
	atomic_store_explicit(&sh->busy[c->index], 0, memory_order_seq_cst);
}

static void client_loop(struct client *c)
{
	struct req_shared *sh = c->run->sh;
	struct req_stamps st = { 0 };
	int cur = -1, have_prev = 0, k;
	siginfo_t si;

	while (!sh->stop) {
		if (sigwaitinfo(&c->set, &si) < 0)
			continue;
		/* Main kicks with the same signal to make us see stop. */
		if (si.si_code != SI_TIMER)
			continue;
		if (call(c, &st))
			return;
		if (c->xsrc)
			explain_note(c->xsrc, st.t0, st.t3 - st.t0);
		k = atomic_load_explicit(&sh->round, memory_order_acquire);
		if (k != cur) {
			/* The previous tick belongs to the last round. */
			cur = k;
			have_prev = 0;
		}
		if (cur >= 0 && have_prev)
			record(c, cur, &st, si.si_overrun);
		st.t0_prev = st.t0;
		have_prev = 1;
	}
}

static int start_timer(struct client *c)
{
	struct sigevent ev;
	struct itimerspec its;
	int64_t period = c->tg.period_ns;

	memset(&ev, 0, sizeof(ev));
	ev.sigev_notify = SIGEV_SIGNAL;
	ev.sigev_signo = REQ_SIG_TIMER;
	if (timer_create(CLOCK_MONOTONIC, &ev, &c->timer))
		return -errno;
	its.it_interval = ns_to_timespec(period);
	its.it_value = ns_to_timespec(clock_now_ns() + period);
	if (timer_settime(c->timer, TIMER_ABSTIME, &its, NULL))
		return -errno;
	return 0;
}

static void socket_setup(struct client *c)
{
	struct timeval tv = {
		.tv_sec = (REPLY_TIMEOUT_NS + c->run->tg.sleep_ns) / NSEC_PER_SEC,
	};

	setsockopt(c->fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	setsockopt(c->fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
	if (c->run->cfg->async) {
		/* -a as the original: the socket raises SIGIO on input.
		 * Ignored, so only the kernel's cost of raising it counts. */
		signal(SIGIO, SIG_IGN);
		fcntl(c->fd, F_SETOWN, getpid());
		fcntl(c->fd, F_SETFL, fcntl(c->fd, F_GETFL) | O_ASYNC);
	}
}

void req_client_child(struct req_run *run, int i)
{
	const struct req_layout *l = &run->layout;
	struct client c = { .run = run, .index = i, .fd = run->conn_fd };
	int err;

	c.ask_prio = run->orb ? req_client_prio(run, i) : -1;
	req_client_targets(run, i, &c.tg);
	if (run->orb)
		snprintf(c.name, sizeof(c.name), "client %d", i);
	else
		snprintf(c.name, sizeof(c.name), "client");
	sigemptyset(&c.set);
	sigaddset(&c.set, REQ_SIG_TIMER);
	sigprocmask(SIG_BLOCK, &c.set, NULL);
	req_child_begin(run, "rtlat-client", run->conn_fd, SCHED_FIFO,
			req_client_prio(run, i), l->client_cpu);
	socket_setup(&c);
	err = start_timer(&c);
	if (err) {
		char hint[256] = "";

		if (err == -EAGAIN)
			rt_sigpending_hint(hint, sizeof(hint));
		req_fail(run->sh, "%s: cannot start the POSIX timer: %s%s%s",
			 c.name, strerror(-err), *hint ? ": " : "", hint);
		_exit(1);
	}
	c.xsrc = explain_source(run->explain, i);
	explain_attach(c.xsrc);
	atomic_store_explicit(&run->sh->client_ready[i], 1, memory_order_release);
	client_loop(&c);
	timer_delete(c.timer);
	close(c.fd);
	_exit(0);
}
