// SPDX-License-Identifier: GPL-2.0-or-later
/* test_tsc.c - the TSC clock's pure math: window frequency, the median
 * and spread of the calibration windows, cycles <-> ns. */
#include <math.h>
#include "measure/tsc.h"
#include "unit.h"

UNIT_TEST(tsc_window_frequency)
{
	/* 48.9 M cycles in 20 ms: 2.445 GHz. */
	CHECK_NEAR(tsc_window_hz(48900000, 20000000), 2.445e9, 1e-3);
	CHECK(tsc_window_hz(1000, 0) == 0.0);
	CHECK(tsc_window_hz(1000, -5) == 0.0);
}

UNIT_TEST(tsc_calibration_median_and_spread)
{
	double odd[] = { 3e9 + 300, 3e9 - 300, 3e9, 3e9 + 600, 3e9 - 150 };
	double even[] = { 4e9, 2e9 };
	struct tsc_cal c;

	CHECK(tsc_cal_from(&c, odd, 5) == 0);
	CHECK(c.hz == 3e9);
	CHECK_EQ_LL(c.windows, 5);
	/* (3e9 + 600 - (3e9 - 300)) / 3e9 = 0.3 ppm */
	CHECK_NEAR(c.spread_ppm, 0.3, 1e-9);
	CHECK_NEAR(c.ns_per_cycle, 1.0 / 3, 1e-15);
	/* Sorted in place. */
	CHECK(odd[0] == 3e9 - 300 && odd[4] == 3e9 + 600);
	/* Even count: the mean of the middle two. */
	CHECK(tsc_cal_from(&c, even, 2) == 0);
	CHECK(c.hz == 3e9);
	CHECK_NEAR(c.spread_ppm, 2e9 / 3e9 * 1e6, 1e-6);
	/* One window: no spread. */
	CHECK(tsc_cal_from(&c, even, 1) == 0 && c.spread_ppm == 0.0);
}

UNIT_TEST(tsc_calibration_rejects_nonsense)
{
	double zero[] = { 0, 0, 0 };
	double huge[] = { 1e12 };
	double nan_hz[] = { NAN };
	struct tsc_cal c;

	CHECK(tsc_cal_from(&c, zero, 0) == -1);
	CHECK(tsc_cal_from(&c, zero, 3) == -1);
	CHECK(tsc_cal_from(&c, huge, 1) == -1);
	CHECK(tsc_cal_from(&c, nan_hz, 1) == -1);
}

UNIT_TEST(tsc_cycles_ns_conversion)
{
	double hz[] = { 2.5e9 };
	struct tsc_cal c;

	CHECK(tsc_cal_from(&c, hz, 1) == 0);
	CHECK_EQ_LL(tsc_cycles_to_ns(&c, 2500), 1000);
	CHECK_EQ_LL(tsc_cycles_to_ns(&c, 0), 0);
	/* 0.4 ns rounds down, 0.8 ns up. */
	CHECK_EQ_LL(tsc_cycles_to_ns(&c, 1), 0);
	CHECK_EQ_LL(tsc_cycles_to_ns(&c, 2), 1);
	CHECK_EQ_LL(tsc_cycles_to_ns(&c, -2500), -1000);
	/* An hour of cycles stays exact. */
	CHECK_EQ_LL(tsc_cycles_to_ns(&c, 9000000000000LL), 3600000000000LL);
	CHECK_EQ_LL(tsc_ns_to_cycles(&c, 1000), 2500);
	CHECK_EQ_LL(tsc_ns_to_cycles(&c, 20000), 50000);
	CHECK_EQ_LL(tsc_ns_to_cycles(&c, 3600000000000LL), 9000000000000LL);
}

UNIT_TEST(tsc_calibrates_where_available)
{
	struct tsc_cal c;

	if (!tsc_available()) {
		CHECK(tsc_calibrate(&c) == -1);
		return;
	}
	CHECK(tsc_calibrate(&c) == 0);
	CHECK_EQ_LL(c.windows, TSC_CAL_WINDOWS);
	CHECK(c.hz >= TSC_HZ_MIN && c.hz <= TSC_HZ_MAX && c.spread_ppm >= 0);
	/* The counter runs. */
	CHECK(tsc_now() > 0);
}

UNIT_TEST(tsc_calibration_against_nominal)
{
	double hz[] = { 25.002e6 };
	struct tsc_cal c;

	CHECK(tsc_cal_from(&c, hz, 1) == 0);
	/* 80 ppm off the 25 MHz CNTFRQ_EL0 of an arm64 board. */
	CHECK(tsc_near_nominal(&c, 25e6, 100));
	CHECK(!tsc_near_nominal(&c, 25e6, 50));
	CHECK(!tsc_near_nominal(&c, 0, 1e6));
}
