/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * request_net.h - the request test's listening and connecting sockets,
 * with errors phrased for the option that caused them (exit status 2).
 */
#ifndef RTLAT_REQUEST_NET_H
#define RTLAT_REQUEST_NET_H

#include <stddef.h>

struct req_net_error {
	int short_opt;			/* the option to blame: 'p', 'c'... */
	const char *long_opt;		/* or a long-only one: "bind" */
	char msg[400];
	int resource;			/* EMFILE, ENOBUFS...: an error, not bad input */
};

/* Listen on addr:port (numeric address). *where gets "addr:port". */
int req_net_listen(const char *addr, int port, int *fd, char *where,
		   size_t wlen, struct req_net_error *e);
/* Connect to host:port within a few seconds, TCP_NODELAY set. If where is
 * not NULL it gets "host (addr:port)". */
/* The port a listening socket got (port 0 asked: the kernel's pick);
 * where is rewritten as "addr:port". 0 on error. */
int req_net_bound_port(int fd, char *where, size_t wlen);
int req_net_connect(const char *host, int port, int *fd, char *where,
		    size_t wlen, struct req_net_error *e);

#endif
