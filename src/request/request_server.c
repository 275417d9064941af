// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * request_server.c - the request test's server: one thread per
 * connection, up to max_clients at once, each running at the SCHED_FIFO
 * priority its client's frames ask for (capped at max_prio), or at the
 * server's own with --server-priority fixed. Per request: poll, read the
 * whole 8-byte frame, take t1 (the request has been received, as the
 * design), nanosleep, take t2, reply with (t1, t2). It is a
 * network service, so it trusts nothing: a malformed, truncated,
 * oversized or wrong-version frame, a priority out of range, a client
 * that goes silent or one past the limit get one log line on stderr and a
 * closed connection, that client only; every read and write is bounded in
 * time, so it never hangs. At the descriptor limit (or out of memory)
 * accept() fails: one line every 5 s at most, and the client is closed
 * with a descriptor kept in reserve for that, or the listener pauses
 * 0.1 s: it never spins.
 */
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>
#include "measure/clock.h"
#include "request/request_types.h"
#include "request/request_child.h"
#include "request/request_server.h"
#include "request/request_proto.h"
#include "system/rtsetup.h"

/* A reply (or a refusal) must be sent within this. A request's frame
 * has no deadline of its own: a frame that stops half-way is held until
 * the client has been silent for --timeout, as an idle one is, so a
 * client stalled on a loaded machine is not cut off mid-frame. */
#define FRAME_DEADLINE_NS	NSEC_PER_SEC
/* Read this much at once, so an oversized frame shows in one read. */
#define READ_CHUNK		64
/* A failing accept(): one line at most this often, and a pause before
 * the listener is polled again when the client could not be closed. */
#define ACCEPT_SAY_NS		(5 * NSEC_PER_SEC)
#define ACCEPT_BACKOFF_US	100000

enum { SLOT_FREE, SLOT_RUNNING, SLOT_DONE };

struct req_conn {
	struct req_server *s;
	pthread_t tid;
	int64_t last_ns;	/* last bytes or request, for the silence limit */
	int fd;
	size_t have;		/* bytes of a frame read so far */
	uint8_t part[READ_CHUNK];
	int prio;		/* the thread's SCHED_FIFO priority now */
	int state;		/* SLOT_*, atomic */
	char peer[96];
};
#define conn req_conn

static void count(uint64_t *c)
{
	__atomic_fetch_add(c, 1, __ATOMIC_RELAXED);
}

static void slog(const struct req_server *s, const struct conn *c,
		 const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static void slog(const struct req_server *s, const struct conn *c,
		 const char *fmt, ...)
{
	char msg[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	fprintf(stderr, "%s: server: %s: %s\n", s->prog, c->peer, msg);
}

static void drop(struct req_server *s, struct conn *c, bool error)
{
	if (error)
		count(&s->errors);
	/* The slot is free for the next client before it sees the close. */
	__atomic_fetch_sub(&s->nactive, 1, __ATOMIC_SEQ_CST);
	close(c->fd);
	c->fd = -1;
}

/* Read what poll said is there into the connection's frame.
 * Returns 0 with a whole frame in c->part, 1 if it is not whole yet (or
 * nothing was there after all), -1 to drop the client on an error, -2
 * when it hung up. */
static int read_request(struct req_server *s, struct conn *c, uint32_t *seq)
{
	/* A started frame reads only its rest, so what follows a frame
	 * that arrived in parts is not taken for an oversized one. */
	size_t room = c->have ? REQ_REQUEST_LEN - c->have : sizeof(c->part);
	char why[160];
	ssize_t n;
	int err;

	n = recv(c->fd, c->part + c->have, room, MSG_DONTWAIT);
	if (n < 0 && (errno == EAGAIN || errno == EINTR))
		return 1;
	if (n <= 0 && c->have) {
		slog(s, c, "truncated frame (%zu of %d bytes, then %s); connection closed",
		     c->have, REQ_REQUEST_LEN, n ? strerror(errno) : "end of stream");
		return -1;
	}
	if (n <= 0) {
		if (n < 0 || s->verbose)
			slog(s, c, "disconnected%s%s", n < 0 ? ": " : "",
			     n < 0 ? strerror(errno) : "");
		return n < 0 ? -1 : -2;
	}
	c->have += (size_t)n;
	err = req_server_frame(c->part, c->have, seq, why, sizeof(why));
	if (err > 0) {
		c->last_ns = clock_now_ns();
		return 1;
	}
	c->have = 0;
	if (err) {
		slog(s, c, "%s; connection closed", why);
		return -1;
	}
	return 0;
}

static void sleep_ns(int64_t ns)
{
	struct timespec ts = ns_to_timespec(ns);

	/* A signal may cut it short: sleep what is left. */
	while (ns > 0 && nanosleep(&ts, &ts) && errno == EINTR)
		;
}

/* Refuse a priority out of range, to this client only. */
static int refuse_prio(struct req_server *s, struct conn *c, int asked)
{
	uint8_t out[REQ_REPLY_LEN];
	int hi = sched_get_priority_max(SCHED_FIFO);

	slog(s, c, "priority %d asked is out of range; accepted: 1 to %d; connection closed",
	     asked, hi);
	req_encode_refusal(out, REQ_REFUSE_PRIORITY, (uint32_t)asked, 1,
			   (uint32_t)hi);
	req_write_full(c->fd, out, sizeof(out), clock_now_ns() + FRAME_DEADLINE_NS);
	return -1;
}

/* Run at the priority the frame asks (-1: the server's own), capped at
 * max_prio; the system call only when it changes. */
static int take_prio(struct req_server *s, struct conn *c, int asked)
{
	struct sched_param sp;
	int want = asked;

	if (asked >= 0 && (asked < 1 || asked > sched_get_priority_max(SCHED_FIFO)))
		return refuse_prio(s, c, asked);
	if (asked < 0 || s->fixed)
		want = s->own_prio;
	if (want > s->max_prio)
		want = s->max_prio;
	if (want == c->prio || want < 1)
		return 0;
	sp.sched_priority = want;
	/* Not permitted (no RT rights) is not retried per request: the
	 * thread stays where it is, as the server's own setting does. */
	pthread_setschedparam(pthread_self(), SCHED_FIFO, &sp);
	c->prio = want;
	return 0;
}

/*
 * One request. t1 is taken once the whole frame has been read (and the
 * thread runs at the priority it asks): the read is part of Send Time,
 * not of the server's sleep, as the design's "receive, then t1".
 */
static void serve_one(struct req_server *s, struct conn *c)
{
	uint8_t out[REQ_REPLY_LEN];
	uint32_t seq;
	int64_t t1, t2;
	int err;

	err = read_request(s, c, &seq);
	if (!err)
		err = take_prio(s, c, req_request_prio(c->part));
	if (err) {
		if (err < 0)
			drop(s, c, err == -1);
		return;
	}
	t1 = clock_now_ns();
	sleep_ns(s->sleep_ns);
	t2 = clock_now_ns();
	req_encode_reply(out, seq, t1, t2);
	err = req_write_full(c->fd, out, sizeof(out), t2 + FRAME_DEADLINE_NS);
	if (err) {
		slog(s, c, "cannot reply: %s; connection closed",
		     err == -ETIMEDOUT ? "client does not read" : strerror(-err));
		drop(s, c, true);
		return;
	}
	count(&s->served);
	c->last_ns = t2;
}

static void tune(int fd)
{
	int one = 1;

	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
}

static int poll_timeout_ms(const struct req_server *s, const struct conn *c)
{
	int64_t left = c->last_ns + s->idle_ns - clock_now_ns();

	if (left <= 0)
		return 0;
	return left > NSEC_PER_SEC ? 1000 : (int)(left / NSEC_PER_MSEC) + 1;
}

/* A connection's thread: serve until it ends or the server stops. */
static void *conn_thread(void *arg)
{
	struct conn *c = arg;
	struct req_server *s = c->s;
	struct pollfd p[2] = {
		{ .fd = c->fd, .events = POLLIN },
		{ .fd = s->wake, .events = POLLIN },
	};
	int n;

	prctl(PR_SET_NAME, "rtlat-conn");
	while (c->fd >= 0) {
		p[0].revents = p[1].revents = 0;
		n = poll(p, 2, poll_timeout_ms(s, c));
		if (p[1].revents || (n < 0 && errno != EINTR))
			break;
		if (n > 0 && p[0].revents)
			serve_one(s, c);
		if (c->fd >= 0 && clock_now_ns() - c->last_ns >= s->idle_ns) {
			if (c->have)
				slog(s, c, "truncated frame (%zu of %d bytes, then silent for %lld s); connection closed",
				     c->have, REQ_REQUEST_LEN,
				     (long long)(s->idle_ns / NSEC_PER_SEC));
			else
				slog(s, c, "silent for %lld s; connection closed",
				     (long long)(s->idle_ns / NSEC_PER_SEC));
			drop(s, c, true);
		}
	}
	if (c->fd >= 0)
		drop(s, c, false);
	__atomic_store_n(&c->state, SLOT_DONE, __ATOMIC_RELEASE);
	return NULL;
}

/* Join the threads that ended (all, waiting for them, if all). */
static void reap(struct req_server *s, bool all)
{
	int i;

	for (i = 0; i < 2 * s->max_clients; i++) {
		int st = __atomic_load_n(&s->conns[i].state, __ATOMIC_ACQUIRE);

		if (st == SLOT_DONE || (all && st == SLOT_RUNNING)) {
			pthread_join(s->conns[i].tid, NULL);
			s->conns[i].state = SLOT_FREE;
		}
	}
}

static void refuse(struct req_server *s, int fd, const struct sockaddr *sa)
{
	struct conn other = { .fd = fd };

	req_addr_str(sa, other.peer, sizeof(other.peer));
	if (s->max_clients == 1)
		slog(s, &other, "refused: a client is being served (--max-clients 1); connection closed");
	else
		slog(s, &other, "refused: %d clients are being served (--max-clients %d); connection closed",
		     s->max_clients, s->max_clients);
	count(&s->refused);
	close(fd);
}

/* Threads get no signal: the listener alone sees stops and kicks. */
static int start_thread(struct conn *c)
{
	pthread_attr_t attr;
	int err = rt_thread_attr(&attr);

	if (err)
		return err;
	err = rt_thread_create_quiet(&c->tid, &attr, conn_thread, c);
	pthread_attr_destroy(&attr);
	return err;
}

/* Why accept() failed, with the limit to raise where there is one. */
static void accept_said(struct req_server *s, int err, bool closed)
{
	int64_t now = clock_now_ns();
	struct rlimit rl;
	char limit[96] = "";

	if (s->said_ns && now - s->said_ns < ACCEPT_SAY_NS) {
		s->unsaid++;
		return;
	}
	if (err == EMFILE && !getrlimit(RLIMIT_NOFILE, &rl))
		snprintf(limit, sizeof(limit), " (RLIMIT_NOFILE %llu: ulimit -n)",
			 (unsigned long long)rl.rlim_cur);
	else if (err == ENFILE)
		snprintf(limit, sizeof(limit), " (the system's limit: fs.file-max)");
	fprintf(stderr, "%s: server: cannot accept a connection: %s%s; %s",
		s->prog, strerror(err), limit,
		closed ? "the client was closed" : "retrying in 0.1 s");
	if (s->unsaid)
		fprintf(stderr, " (%llu more since the last such line)",
			(unsigned long long)s->unsaid);
	fputc('\n', stderr);
	s->said_ns = now;
	s->unsaid = 0;
}

/*
 * The descriptor limit (or memory) is reached: the waiting client would
 * stay in the backlog and poll() say the listener is readable at once,
 * a spin at SCHED_FIFO. The spare descriptor is given up for one
 * accept() that closes the client cleanly; failing that, a pause.
 */
static void accept_shed(struct req_server *s, int err)
{
	int fd = -1;

	if (s->reserve_fd >= 0) {
		close(s->reserve_fd);
		fd = accept4(s->listen_fd, NULL, NULL, SOCK_CLOEXEC);
		if (fd >= 0) {
			close(fd);
			count(&s->refused);
		}
		s->reserve_fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
	}
	accept_said(s, err, fd >= 0);
	if (fd < 0)
		usleep(ACCEPT_BACKOFF_US);
}

/* accept() failed: 0 to go on, or -errno when the listener is broken. */
static int accept_failed(struct req_server *s, int err)
{
	switch (err) {
	case EINTR: case EAGAIN: case ECONNABORTED:
	/* A network error pending on the new connection (accept(2)):
	 * that connection is gone, the listener is fine. */
	case EPROTO: case ENETDOWN: case ENOPROTOOPT: case EHOSTDOWN:
	case ENONET: case EHOSTUNREACH: case EOPNOTSUPP: case ENETUNREACH:
		return 0;
	case EMFILE: case ENFILE: case ENOBUFS: case ENOMEM:
		accept_shed(s, err);
		return 0;
	case EBADF: case EINVAL: case ENOTSOCK: case EFAULT:
		return -err;
	default:	/* EPERM (a firewall rule), and what else may come */
		accept_said(s, err, false);
		usleep(ACCEPT_BACKOFF_US);
		return 0;
	}
}

/* Take one connection: 0, or -errno when the listener is broken. */
static int accept_one(struct req_server *s)
{
	struct sockaddr_storage ss;
	socklen_t sl = sizeof(ss);
	struct conn *c = NULL;
	int fd, i;

	fd = accept4(s->listen_fd, (struct sockaddr *)&ss, &sl, SOCK_CLOEXEC);
	if (fd < 0)
		return accept_failed(s, errno);
	reap(s, false);
	for (i = 0; i < 2 * s->max_clients && !c; i++)
		if (__atomic_load_n(&s->conns[i].state, __ATOMIC_ACQUIRE) == SLOT_FREE)
			c = &s->conns[i];
	if (!c || __atomic_load_n(&s->nactive, __ATOMIC_SEQ_CST) >= s->max_clients) {
		refuse(s, fd, (struct sockaddr *)&ss);
		return 0;
	}
	memset(c, 0, sizeof(*c));
	c->s = s;
	c->fd = fd;
	c->prio = s->own_prio;
	req_addr_str((struct sockaddr *)&ss, c->peer, sizeof(c->peer));
	c->last_ns = clock_now_ns();
	tune(fd);
	c->state = SLOT_RUNNING;
	__atomic_fetch_add(&s->nactive, 1, __ATOMIC_SEQ_CST);
	if (start_thread(c)) {
		slog(s, c, "cannot start a thread: connection closed");
		c->state = SLOT_FREE;
		drop(s, c, true);
		return 0;
	}
	count(&s->connections);
	if (s->verbose)
		slog(s, c, "connected");
	return 0;
}

int req_server_run(struct req_server *s)
{
	struct req_conn slots[2 * REQ_MAX_CLIENTS];
	const uint64_t one = 1;
	struct pollfd p;
	int n, err = 0;

	memset(slots, 0, sizeof(slots));
	/* An eventfd, not a pipe: one descriptor fewer at the limit. */
	s->wake = eventfd(0, EFD_CLOEXEC);
	if (s->wake < 0)
		return -errno;
	s->conns = slots;
	s->reserve_fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
	while (!*s->stop && !err) {
		p.fd = s->listen_fd;
		p.events = POLLIN;
		p.revents = 0;
		n = poll(&p, 1, 1000);
		if (n < 0 && errno != EINTR)
			err = -errno;
		else if (n > 0 && (p.revents & POLLNVAL))
			err = -EBADF;
		else if (n > 0 && (p.revents & POLLIN))
			err = accept_one(s);
		reap(s, false);
	}
	/* Every connection's thread sees the eventfd readable and ends. */
	if (write(s->wake, &one, sizeof(one)) < 0)
		err = err ? err : -errno;
	reap(s, true);
	close(s->wake);
	if (s->reserve_fd >= 0)
		close(s->reserve_fd);
	s->reserve_fd = -1;
	s->conns = NULL;
	return err;
}

void req_server_init(struct req_server *s, const struct req_run *run)
{
	memset(s, 0, sizeof(*s));
	s->prog = run->prog;
	s->listen_fd = run->listen_fd;
	s->sleep_ns = run->tg.sleep_ns;
	s->idle_ns = run->cfg->timeout_s * NSEC_PER_SEC;
	s->own_prio = run->layout.server_prio;
	s->max_prio = run->layout.client_prio;
	s->fixed = run->cfg->server_prio_mode == REQ_PRIO_FIXED;
	s->max_clients = (int)run->cfg->max_clients;
	/* The local test serves its own clients, and no one else. */
	if (run->mode == REQ_LOCAL && !run->max_clients_given)
		s->max_clients = (int)run->cfg->clients;
}

static void on_kick(int sig)
{
	(void)sig;
}

void req_server_child(struct req_run *run)
{
	struct req_server s;
	struct sigaction sa;
	int err;

	req_server_init(&s, run);
	s.stop = &run->sh->server_stop;
	s.verbose = run->cfg->debug;
	/* Main's kick interrupts poll (no SA_RESTART) to see server_stop. */
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_kick;
	sigaction(REQ_SIG_TIMER, &sa, NULL);
	req_child_begin(run, "rtlat-server", run->listen_fd, SCHED_FIFO, run->layout.server_prio,
			run->layout.server_cpu);
	err = req_server_run(&s);
	if (err)
		req_fail(run->sh, "server: %s", strerror(-err));
	_exit(err ? 1 : 0);
}
