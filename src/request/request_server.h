/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * request_server.h - the server (request_server.c): a process of its own
 * in local mode, the whole run in server-only mode.
 */
#ifndef RTLAT_REQUEST_SERVER_H
#define RTLAT_REQUEST_SERVER_H

#include "request/request_types.h"

/* The server settings of this run into s. */
void req_server_init(struct req_server *s, const struct req_run *run);
/* Serve until *stop. Returns 0, or -errno if the listener failed. */
int req_server_run(struct req_server *s);
/* The local server process: never returns. */
void req_server_child(struct req_run *run);

#endif
