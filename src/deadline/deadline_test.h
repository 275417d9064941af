/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * deadline_test.h - the registry's rows of the deadline folder: rtlat
 * deadline (deadline.c) and its cyclicdeadline face (cyclicdeadline.c).
 */
#ifndef RTLAT_DEADLINE_TEST_H
#define RTLAT_DEADLINE_TEST_H

#include "harness/test.h"

extern const struct test_ops test_deadline;
extern const struct test_ops test_cyclicdeadline;

#endif
