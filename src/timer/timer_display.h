/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * timer_display.h - the display thread (timer_display.c).
 */
#ifndef RTLAT_TIMER_DISPLAY_H
#define RTLAT_TIMER_DISPLAY_H

#include "timer/timer_types.h"

void *timer_display(void *arg);

#endif
