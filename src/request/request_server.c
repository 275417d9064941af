// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * request_server.c - the request test's server: one client at a time.
 * Per request: poll, take t1, read the 8-byte frame, nanosleep, take t2,
 * reply with (t1, t2). It is a network service, so it trusts nothing: a
 * malformed, truncated, oversized or wrong-version frame, a client that
 * goes silent or a second client get one log line on stderr and a closed
 * connection; every read and write is bounded in time, so it never hangs.
 */
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>
#include "clock.h"
#include "request.h"
#include "request_proto.h"

/* A started frame must be complete within this; replies sent within it. */
#define FRAME_DEADLINE_NS	NSEC_PER_SEC
/* Read this much at once, so an oversized frame shows in one read. */
#define READ_CHUNK		64

struct conn {
	int fd;
	char peer[96];
	int64_t last_ns;	/* last request, for the silence limit */
};

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
		s->errors++;
	close(c->fd);
	c->fd = -1;
}

/* Read one frame; t1 was taken when poll said it is there.
 * Returns 0, 1 if nothing was there after all, -1 to drop the client on
 * an error, -2 when it hung up. */
static int read_request(struct req_server *s, struct conn *c,
			uint8_t *b, uint32_t *seq)
{
	size_t got, more = 0;
	char why[160];
	ssize_t n;
	int err;

	n = recv(c->fd, b, READ_CHUNK, MSG_DONTWAIT);
	if (n < 0 && (errno == EAGAIN || errno == EINTR))
		return 1;
	if (n <= 0) {
		if (n < 0 || s->verbose)
			slog(s, c, "disconnected%s%s", n < 0 ? ": " : "",
			     n < 0 ? strerror(errno) : "");
		return n < 0 ? -1 : -2;
	}
	got = (size_t)n;
	err = req_server_frame(b, got, seq, why, sizeof(why));
	if (err > 0) {
		err = req_read_full(c->fd, b + got, REQ_REQUEST_LEN - got,
				    clock_now_ns() + FRAME_DEADLINE_NS, &more);
		got += more;
		if (err) {
			slog(s, c, "truncated frame (%zu of %d bytes, then %s); connection closed",
			     got, REQ_REQUEST_LEN,
			     err == -ETIMEDOUT ? "silence" : err == -EPIPE ?
			     "end of stream" : strerror(-err));
			return -1;
		}
		err = req_server_frame(b, got, seq, why, sizeof(why));
	}
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

static void serve_one(struct req_server *s, struct conn *c, int64_t t1)
{
	uint8_t in[READ_CHUNK], out[REQ_REPLY_LEN];
	uint32_t seq;
	int64_t t2;
	int err;

	err = read_request(s, c, in, &seq);
	if (err) {
		if (err < 0)
			drop(s, c, err == -1);
		return;
	}
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
	s->served++;
	c->last_ns = t2;
}

static void tune(int fd)
{
	int one = 1;

	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
}

static void accept_one(struct req_server *s, struct conn *c)
{
	struct sockaddr_storage ss;
	socklen_t sl = sizeof(ss);
	struct conn other = { .fd = -1 };
	int fd;

	fd = accept4(s->listen_fd, (struct sockaddr *)&ss, &sl, SOCK_CLOEXEC);
	if (fd < 0)
		return;
	if (c->fd >= 0) {
		other.fd = fd;
		req_addr_str((struct sockaddr *)&ss, other.peer, sizeof(other.peer));
		slog(s, &other, "refused: a client (%s) is being served; connection closed",
		     c->peer);
		s->refused++;
		close(fd);
		return;
	}
	c->fd = fd;
	req_addr_str((struct sockaddr *)&ss, c->peer, sizeof(c->peer));
	c->last_ns = clock_now_ns();
	tune(fd);
	s->connections++;
	if (s->verbose)
		slog(s, c, "connected");
}

static int poll_timeout_ms(const struct req_server *s, const struct conn *c)
{
	int64_t left;

	if (c->fd < 0)
		return 1000;
	left = c->last_ns + s->idle_ns - clock_now_ns();
	if (left <= 0)
		return 0;
	return left > NSEC_PER_SEC ? 1000 : (int)(left / NSEC_PER_MSEC) + 1;
}

int req_server_run(struct req_server *s)
{
	struct conn c = { .fd = -1 };
	struct pollfd p[2];
	int64_t t1;
	int n, err = 0;

	while (!*s->stop) {
		p[0].fd = s->listen_fd;
		p[0].events = POLLIN;
		p[1].fd = c.fd;
		p[1].events = POLLIN;
		p[0].revents = p[1].revents = 0;
		n = poll(p, c.fd >= 0 ? 2 : 1, poll_timeout_ms(s, &c));
		t1 = clock_now_ns();
		if (n < 0 && errno != EINTR) {
			err = -errno;
			break;
		}
		if (n > 0 && c.fd >= 0 && p[1].revents)
			serve_one(s, &c, t1);
		if (n > 0 && (p[0].revents & POLLIN))
			accept_one(s, &c);
		if (c.fd >= 0 && clock_now_ns() - c.last_ns >= s->idle_ns) {
			slog(s, &c, "silent for %lld s; connection closed",
			     (long long)(s->idle_ns / NSEC_PER_SEC));
			drop(s, &c, true);
		}
	}
	if (c.fd >= 0)
		close(c.fd);
	return err;
}

static void on_kick(int sig)
{
	(void)sig;
}

void req_server_child(struct req_run *run)
{
	struct req_server s = {
		.prog = run->prog,
		.listen_fd = run->listen_fd,
		.sleep_ns = run->tg.sleep_ns,
		.idle_ns = run->cfg.timeout_s * NSEC_PER_SEC,
		.stop = &run->sh->server_stop,
		.verbose = run->cfg.debug,
	};
	struct sigaction sa;
	int err;

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
