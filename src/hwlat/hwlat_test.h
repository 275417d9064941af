/* SPDX-License-Identifier: GPL-2.0-or-later */
/* hwlat_test.h - rtlat hwlat's and rtlat osnoise's rows in the registry (registry.c). */
#ifndef RTLAT_HWLAT_TEST_H
#define RTLAT_HWLAT_TEST_H

#include "harness/test.h"

extern const struct test_ops test_hwlat;
extern const struct test_ops test_osnoise;
#endif
