/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * pair_worker.h - the sender and receiver, threads or processes
 * (pair_worker.c).
 */
#ifndef RTLAT_PAIR_WORKER_H
#define RTLAT_PAIR_WORKER_H

#include <errno.h>
#include <stdbool.h>
#include "pair/pair_types.h"

int pair_receive(struct pair *p, enum pair_dir dir);
void pair_fail(struct pair *p, int err);
/*
 * A receiver's wait for the next hand-off: true when one arrived; false
 * when the loop must end (a stop, which is not an error, or a failure,
 * recorded for the pair).
 */
static inline bool pair_next(struct pair *p)
{
	int err = pair_receive(p, DIR_FWD);

	if (err && err != -EINTR)
		pair_fail(p, -err);
	return !err;
}

void *pair_sender(void *arg);
void *pair_receiver(void *arg);
/* Run a role in a forked child; never returns. */
void pair_child(struct pair *p, enum pair_role role);

/* pair_worker.c: stream mode's loops. */
void pair_stream_send(struct pair *p);
void pair_stream_receive(struct pair *p);

#endif
