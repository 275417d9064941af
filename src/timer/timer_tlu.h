/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * timer_tlu.h - -t 3: rtlat's own thread on timerlat's wake-ups
 * (timer_tlu.c).
 */
#ifndef RTLAT_TIMER_TLU_H
#define RTLAT_TIMER_TLU_H

#include "timer/timer_kernel.h"
#include "timer/timer_types.h"

struct json;

/* The reader, for each sample line of -t 3: its context's figures. */
void tlu_context(struct timer_cpu *c, const struct timerlat_sample *s);
/* Once the tracer runs: the thread on c's timerlat_fd. 0 or -1 (said). */
int tlu_start(struct timer_cpu *c);
/* The run is over (run->stop set): the thread stopped and joined.
 * -1 when it failed (said in one line): the run's error. */
int tlu_stop(struct timer_run *run);
/* "timerlat_contexts": each context's samples, min, avg and max (-t 3). */
void tlu_json(struct json *j, const struct timer_run *run);

#endif
