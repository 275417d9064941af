/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * timer_run.h - the timer's run (timer_run.c), shared by rtlat timer
 * (timer.c) and the cyclictest face (cyclic.c).
 */
#ifndef RTLAT_TIMER_RUN_H
#define RTLAT_TIMER_RUN_H

#include <stdint.h>
#include "harness/test.h"
#include "timer/timer_types.h"

int timer_setup(struct test_run *t);
int timer_rt_apply(struct test_run *t);
int timer_measure(struct test_run *t);
void timer_teardown(struct test_run *t);
/* --load beside the samplers: started by setup (0, or -1 after a line),
 * stopped by the report and teardown (idempotent). */
int timer_load_start(struct timer_run *run);
void timer_load_stop(struct timer_run *run);
/* The first sampler moved off its CPU (face.watch_cpu), or NULL. */
const struct timer_cpu *timer_first_moved(const struct timer_run *run);
/* The CPUs a moved sampler may run on now, as "0-3,6". */
void timer_moved_text(const struct timer_cpu *c, char *buf, size_t len);
/* After the run: every CPU folded into run->whole (several CPUs). */
void timer_fold(struct timer_run *run);
long long timer_actual_seconds(const struct timer_run *run, int64_t end);
/* The run's failures and -b/-f, one line each on stderr. */
void timer_report_end(struct timer_run *run);
/* Its headline series, whole and per sampler (results_summary_part). */
void timer_summary(struct results *res, const struct timer_run *run,
		   const char *series);

#endif
