/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * timer_json.h - the timer's JSON (timer_json.c).
 */
#ifndef RTLAT_TIMER_JSON_H
#define RTLAT_TIMER_JSON_H

#include "harness/results.h"
#include "timer/timer_types.h"

struct results;

int timer_write_json(struct timer_run *run, struct results *res,
		     long long actual_s, long long requested_s, int status);

#endif
