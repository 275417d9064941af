// SPDX-License-Identifier: GPL-2.0-or-later
/* test_determinism.c - the pure math of bintime, response and sync. */
#include <math.h>
#include <string.h>
#include "bintime/bintime.h"
#include "response/response.h"
#include "sync/sync.h"
#include "unit.h"

UNIT_TEST(response_units_scale_to_target)
{
	/* 1024 units in 2.5 ms: 10 ms is 4096 units. */
	CHECK_EQ_LL(work_units_for(1024, 2500000, 10000000), 4096);
	/* Rounded to nearest: 3 units in 1000 ns, target 1500 ns: 4.5 -> 5. */
	CHECK_EQ_LL(work_units_for(3, 1000, 1500), 5);
	/* Never below one unit, and nothing from a bad probe. */
	CHECK_EQ_LL(work_units_for(8, 80000000, 10000000), 1);
	CHECK_EQ_LL(work_units_for(8, 10000000, 1), 1);
	CHECK_EQ_LL(work_units_for(8, 0, 10000000), 1);
	CHECK_EQ_LL(work_units_for(0, 100, 10000000), 1);
}

UNIT_TEST(response_calibrates_add_near_target)
{
	struct work w;
	double per;
	uint64_t u;

	CHECK(work_init(&w, WORK_ADD) == 0);
	u = work_calibrate(&w, 1000000, &per);
	work_fini(&w);

	CHECK(u >= 1 && per > 0);
	/* The scale is the probe's: units * ns/unit is the target. */
	CHECK(fabs((double)u * per - 1e6) <= per);
}

UNIT_TEST(sync_context_switch_estimate)
{
	/* Design text: round trip / 2 - test 1. */
	CHECK(sync_ctx_estimate(10000.0, 1500.0) == 3500.0);
	CHECK(sync_ctx_estimate(3000.0, 1500.0) == 0.0);
	CHECK(sync_ctx_estimate(2000.0, 1500.0) == -500.0);
}

/*
 * Gaps 20 ns x 6, 40 ns x 2 (fast counters, one per scale ns), 1000 ns
 * and 3000 ns (slow): the same series whatever the scale.
 */
static void check_fold(double scale)
{
	static uint64_t fast[BT_FAST];
	struct stats slow, all;

	memset(fast, 0, sizeof(fast));
	CHECK(stats_init(&slow, 0, BT_BUCKET_NS, BT_BUCKETS) == 0);
	CHECK(stats_init(&all, 0, BT_BUCKET_NS, BT_BUCKETS) == 0);
	fast[lround(20 / scale)] = 6;
	fast[lround(40 / scale)] = 2;
	stats_add(&slow, 1000);
	stats_add(&slow, 3000);
	bt_fold(&all, fast, BT_FAST, scale, &slow);
	CHECK_EQ_LL(all.n, 10);
	CHECK_EQ_LL(all.min, 20);
	CHECK_EQ_LL(all.max, 3000);
	/* (120 + 80 + 4000) / 10 */
	CHECK(fabs(stats_mean(&all) - 420.0) < 1e-9);
	/* Sample variance of the ten values, computed by hand: sum of
	 * squares 6*400 + 2*1600 + 1e6 + 9e6 = 10005600, n*mean^2 = 1764000. */
	CHECK(fabs(stats_stddev(&all) - sqrt((10005600.0 - 1764000.0) / 9)) < 1e-6);
	CHECK_EQ_LL(hist_total(&all.hist), 10);
	CHECK_EQ_LL(all.hist.count[2], 6);
	CHECK_EQ_LL(all.hist.count[4], 2);
	CHECK_EQ_LL(stats_percentile(&all, 50), 29);
	/* Folding again starts over. */
	bt_fold(&all, fast, BT_FAST, scale, &slow);
	CHECK_EQ_LL(all.n, 10);
	stats_free(&slow);
	stats_free(&all);
}

UNIT_TEST(bintime_fold_fast_and_slow)
{
	check_fold(1.0);
	/* --clock tsc at 2.5 GHz: counters of cycles, 0.4 ns each. */
	check_fold(0.4);
}

UNIT_TEST(bintime_fold_rounds_cycles_to_ns)
{
	static uint64_t fast[BT_FAST];
	struct stats slow, all;

	CHECK(stats_init(&slow, 0, BT_BUCKET_NS, BT_BUCKETS) == 0);
	CHECK(stats_init(&all, 0, BT_BUCKET_NS, BT_BUCKETS) == 0);
	/* 25 cycles at 2.445 GHz are 10.22 ns: counted as 10, so the mean
	 * is not above the max. */
	fast[25] = 3;
	bt_fold(&all, fast, BT_FAST, 1 / 2.445, &slow);
	CHECK_EQ_LL(all.n, 3);
	CHECK_EQ_LL(all.min, 10);
	CHECK_EQ_LL(all.max, 10);
	CHECK(stats_mean(&all) == 10.0 && stats_stddev(&all) == 0.0);
	stats_free(&slow);
	stats_free(&all);
}

UNIT_TEST(bintime_fold_empty)
{
	static uint64_t fast[BT_FAST];
	struct stats slow, all;

	CHECK(stats_init(&slow, 0, BT_BUCKET_NS, BT_BUCKETS) == 0);
	CHECK(stats_init(&all, 0, BT_BUCKET_NS, BT_BUCKETS) == 0);
	bt_fold(&all, fast, BT_FAST, 1.0, &slow);
	CHECK_EQ_LL(all.n, 0);
	CHECK(stats_mean(&all) == 0.0);
	stats_free(&slow);
	stats_free(&all);
}
