/* SPDX-License-Identifier: GPL-2.0-or-later */
/* doctor_test.h - rtlat doctor's row in the registry (registry.c). */
#ifndef RTLAT_DOCTOR_TEST_H
#define RTLAT_DOCTOR_TEST_H

#include "harness/test.h"

extern const struct test_ops test_doctor;
#endif
