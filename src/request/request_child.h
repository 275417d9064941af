/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * request_child.h - what every forked process does first (request_child.c).
 */
#ifndef RTLAT_REQUEST_CHILD_H
#define RTLAT_REQUEST_CHILD_H

#include "request/request_types.h"

/* keep_fd is the one socket it uses (-1: none). */
void req_child_begin(struct req_run *run, const char *name, int keep_fd,
		     int policy, int prio, int cpu);
void req_fail(struct req_shared *sh, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

#endif
