/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * timer_ckpt.h - --checkpoint for the timer and the cyclictest face
 * (timer_ckpt.c): the run copied while the samplers go on.
 */
#ifndef RTLAT_TIMER_CKPT_H
#define RTLAT_TIMER_CKPT_H

#include "harness/test.h"
#include "timer/timer_types.h"

/* rtlat timer's .checkpoint. */
void timer_checkpoint(struct test_run *t);
/* Take a snapshot of t's run and have write write it (the face's). */
void timer_checkpoint_with(struct test_run *t,
			   void (*write)(struct test_run *t, struct timer_run *snap));

#endif
