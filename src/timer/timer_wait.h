/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * timer_wait.h - the sampler's wait methods (timer_wait.c).
 */
#ifndef RTLAT_TIMER_WAIT_H
#define RTLAT_TIMER_WAIT_H

#include "timer/timer_types.h"

extern const struct timer_wait_ops *const timer_methods[];
extern const char *const timer_method_names[];

#endif
