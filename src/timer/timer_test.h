/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * timer_test.h - the rows of rtlat timer and rtlat cyclictest in the
 * registry (registry.c).
 */
#ifndef RTLAT_TIMER_TEST_H
#define RTLAT_TIMER_TEST_H

#include "harness/test.h"

extern const struct test_ops test_timer;
extern const struct test_ops test_cyclictest;
#endif
