/* SPDX-License-Identifier: GPL-2.0-or-later */
/* request_test.h - rtlat request's row in the registry (registry.c). */
#ifndef RTLAT_REQUEST_TEST_H
#define RTLAT_REQUEST_TEST_H

#include "harness/test.h"

extern const struct test_ops test_request;
#endif
