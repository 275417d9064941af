/* SPDX-License-Identifier: GPL-2.0-or-later */
/* bintime_test.h - rtlat bintime's row in the registry (registry.c). */
#ifndef RTLAT_BINTIME_TEST_H
#define RTLAT_BINTIME_TEST_H

#include "harness/test.h"

extern const struct test_ops test_bintime;
#endif
