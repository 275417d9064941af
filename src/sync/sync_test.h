/* SPDX-License-Identifier: GPL-2.0-or-later */
/* sync_test.h - rtlat sync's row in the registry (registry.c). */
#ifndef RTLAT_SYNC_TEST_H
#define RTLAT_SYNC_TEST_H

#include "harness/test.h"

extern const struct test_ops test_sync;
#endif
