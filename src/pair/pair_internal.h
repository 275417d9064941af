/* SPDX-License-Identifier: GPL-2.0-or-later */
/* pair_internal.h - shared by pair.c, pair_stream.c, pair_run.c,
 * pair_worker.c and pair_output.c. */
#ifndef RTLAT_PAIR_INTERNAL_H
#define RTLAT_PAIR_INTERNAL_H

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include "pair/pair.h"

struct results;

#define PAIR_KICK_SIGNAL RUN_KICK_SIGNAL

/* pair_worker.c */
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

/* pair_run.c: open, start, supervise, stop the workers once. */
int pair_measure_once(struct pair_run *run);

/* pair_stream.c: stream mode (pmq --throughput), one run per size. */
int pair_stream_measure(struct pair_run *run);
int pair_stream_report(struct test_run *t, struct pair_run *run, int status);

/* pair_output.c */
void pair_print_block(FILE *f, const struct pair_run *run);
void pair_write_json(struct pair_run *run, struct results *res);
/* µs rounded to nearest, as rt-tests' integer columns. */
long long ns_to_us_round(double ns);

#endif
