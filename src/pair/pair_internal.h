/* SPDX-License-Identifier: GPL-2.0-or-later */
/* pair_internal.h - shared by pair.c, pair_worker.c and pair_output.c. */
#ifndef RTLAT_PAIR_INTERNAL_H
#define RTLAT_PAIR_INTERNAL_H

#include <stdio.h>
#include "pair.h"

struct results;

#define PAIR_KICK_SIGNAL RUN_KICK_SIGNAL

/* pair_worker.c */
void *pair_sender(void *arg);
void *pair_receiver(void *arg);
/* Run a role in a forked child; never returns. */
void pair_child(struct pair *p, enum pair_role role);

/* pair_output.c */
void pair_print_block(FILE *f, const struct pair_run *run);
void pair_write_json(struct pair_run *run, struct results *res);
/* µs rounded to nearest, as rt-tests' integer columns. */
long long ns_to_us_round(double ns);

#endif
