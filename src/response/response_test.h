/* SPDX-License-Identifier: GPL-2.0-or-later */
/* response_test.h - rtlat response's row in the registry (registry.c). */
#ifndef RTLAT_RESPONSE_TEST_H
#define RTLAT_RESPONSE_TEST_H

#include "harness/test.h"

extern const struct test_ops test_response;
#endif
