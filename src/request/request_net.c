// SPDX-License-Identifier: GPL-2.0-or-later
/* request_net.c - listen and connect for the request test. */
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>
#include "request/request_net.h"
#include "request/request_proto.h"

#define CONNECT_LIMIT_MS	5000

static void blame(struct req_net_error *e, int short_opt, const char *long_opt)
{
	e->short_opt = short_opt;
	e->long_opt = long_opt;
}

static struct addrinfo *resolve(const char *host, int port, int flags,
				struct req_net_error *e)
{
	struct addrinfo hints, *ai = NULL;
	char serv[16];
	int err;

	memset(&hints, 0, sizeof(hints));
	hints.ai_family = AF_UNSPEC;
	hints.ai_socktype = SOCK_STREAM;
	hints.ai_flags = flags;
	snprintf(serv, sizeof(serv), "%d", port);
	err = getaddrinfo(host, serv, &hints, &ai);
	if (err) {
		/* A long name is cut so the accepted form stays on the line. */
		snprintf(e->msg, sizeof(e->msg), "cannot resolve '%.64s%s': %s; accepted: %s",
			 host, strlen(host) > 64 ? "..." : "", gai_strerror(err),
			 flags & AI_NUMERICHOST ?
			 "an IPv4 or IPv6 address of this host (e.g. 127.0.0.1, 0.0.0.0, ::1)" :
			 "a host name or IPv4/IPv6 address where rtlat request -s runs");
		return NULL;
	}
	return ai;
}

int req_net_listen(const char *addr, int port, int *fd, char *where,
		   size_t wlen, struct req_net_error *e)
{
	struct addrinfo *ai;
	int s, one = 1, err;

	blame(e, 0, "bind");
	ai = resolve(addr, port, AI_PASSIVE | AI_NUMERICHOST, e);
	if (!ai)
		return -1;
	req_addr_str(ai->ai_addr, where, wlen);
	s = socket(ai->ai_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (s < 0) {
		e->resource = errno;
		snprintf(e->msg, sizeof(e->msg), "cannot open a socket for %s: %s",
			 where, strerror(errno));
		goto fail;
	}
	setsockopt(s, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(s, ai->ai_addr, ai->ai_addrlen) || listen(s, 4)) {
		err = errno;
		if (err == EADDRINUSE || err == EACCES) {
			blame(e, 'p', NULL);
			snprintf(e->msg, sizeof(e->msg), "port %d %s on %s; accepted: a free port from 1 to 65535",
				 port, err == EADDRINUSE ? "is in use" : strerror(err), addr);
		} else {
			snprintf(e->msg, sizeof(e->msg), "cannot listen on %s port %d: %s; accepted: an address of this host",
				 addr, port, strerror(err));
		}
		close(s);
		goto fail;
	}
	freeaddrinfo(ai);
	*fd = s;
	return 0;
fail:
	freeaddrinfo(ai);
	return -1;
}

int req_net_bound_port(int fd, char *where, size_t wlen)
{
	union {
		struct sockaddr sa;
		struct sockaddr_in in;
		struct sockaddr_in6 in6;
	} a;
	socklen_t len = sizeof(a);

	memset(&a, 0, sizeof(a));
	if (getsockname(fd, &a.sa, &len))
		return 0;
	req_addr_str(&a.sa, where, wlen);
	return ntohs(a.sa.sa_family == AF_INET6 ? a.in6.sin6_port : a.in.sin_port);
}

/* Connect within CONNECT_LIMIT_MS: 0 or an errno. */
static int connect_bounded(int s, const struct addrinfo *a)
{
	struct pollfd p = { .fd = s, .events = POLLOUT };
	socklen_t len = sizeof(int);
	int flags = fcntl(s, F_GETFL), err = 0;

	fcntl(s, F_SETFL, flags | O_NONBLOCK);
	if (connect(s, a->ai_addr, a->ai_addrlen) == 0)
		goto out;
	if (errno != EINPROGRESS) {
		err = errno;
		goto out;
	}
	if (poll(&p, 1, CONNECT_LIMIT_MS) != 1)
		err = ETIMEDOUT;
	else if (getsockopt(s, SOL_SOCKET, SO_ERROR, &err, &len))
		err = errno;
out:
	fcntl(s, F_SETFL, flags);
	return err;
}

int req_net_connect(const char *host, int port, int *fd, char *where,
		    size_t wlen, struct req_net_error *e)
{
	struct addrinfo *ai, *a;
	char tried[200] = "", one[80];
	int s = -1, err = 0, on = 1;

	blame(e, where ? 'c' : 'p', NULL);
	ai = resolve(host, port, 0, e);
	if (!ai)
		return -1;
	for (a = ai; a; a = a->ai_next) {
		req_addr_str(a->ai_addr, one, sizeof(one));
		snprintf(tried + strlen(tried), sizeof(tried) - strlen(tried),
			 "%s%s", tried[0] ? ", " : "", one);
		s = socket(a->ai_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
		if (s < 0) {
			err = e->resource = errno;
			continue;
		}
		err = connect_bounded(s, a);
		if (!err)
			break;
		close(s);
		s = -1;
	}
	freeaddrinfo(ai);
	if (s < 0) {
		snprintf(e->msg, sizeof(e->msg), "cannot connect to %.64s port %d (tried %.120s): %.40s; accepted: a host where rtlat request -s listens",
			 host, port, tried, strerror(err));
		return -1;
	}
	setsockopt(s, IPPROTO_TCP, TCP_NODELAY, &on, sizeof(on));
	if (where)
		snprintf(where, wlen, "%s (%s)", host, one);
	*fd = s;
	return 0;
}
