/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * request_client.h - a client process (request_client.c).
 */
#ifndef RTLAT_REQUEST_CLIENT_H
#define RTLAT_REQUEST_CLIENT_H

#include "request/request_types.h"

/* Client i; never returns. */
void req_client_child(struct req_run *run, int i);
/* Client i's rate, priority and targets. */
long long req_client_rate(const struct req_run *run, int i);
int req_client_prio(const struct req_run *run, int i);
void req_client_targets(const struct req_run *run, int i,
			struct req_targets *tg);

#endif
