// SPDX-License-Identifier: GPL-2.0-or-later
/* test_determinism.c - the pure math of bintime, response and sync. */
#include <math.h>
#include <string.h>
#include "bintime/bintime_types.h"
#include "bintime/bintime_loop.h"
#include "response/response_types.h"
#include "response/response_work.h"
#include "measure/fft.h"
#include "sync/sync_types.h"
#include "sync/sync_switch.h"
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

	CHECK(work_init(&w, WORK_ADD, 0) == 0);
	u = work_calibrate(&w, 1000000, &per);
	work_fini(&w);

	CHECK(u >= 1 && per > 0);
	/* The scale is the probe's: units * ns/unit is the target. */
	CHECK(fabs((double)u * per - 1e6) <= per);
}

/* The smallest power of two whose 32 bytes a point exceed the cache. */
UNIT_TEST(response_fft_default_exceeds_llc)
{
	CHECK_EQ_LL(work_fft_default_points(0), 1024);
	/* 1.5 MiB: 49152 points would do, 65536 is the next power of two. */
	CHECK_EQ_LL(work_fft_default_points(3 << 19), 65536);
	/* 48 MiB: 2^21 points are 64 MiB, 2^20 only 32 MiB. */
	CHECK_EQ_LL(work_fft_default_points(48 << 20), 1 << 21);
	/* Exactly 32 MiB is not exceeded by 2^20 points. */
	CHECK_EQ_LL(work_fft_default_points(32 << 20), 1 << 21);
	CHECK_EQ_LL(work_fft_default_points(1ULL << 40), WORK_FFT_MAX_POINTS);
}

/* The walk: a forward pass is fft_forward in bit-reversed order, and a
 * forward-inverse cycle gives the input back, however it is cut. */
UNIT_TEST(fft_walk_matches_and_returns)
{
	enum { N = 64, LOG = 6 };
	double re[N], im[N], fr[N], fi[N];
	struct fft_plan p;
	struct fft_walk w;
	unsigned long long done = 0, cut = 7;
	int j, rev, b;

	CHECK_EQ_LL(fft_plan_init(&p, N), 0);
	for (j = 0; j < N; j++) {
		re[j] = fr[j] = sin(0.3 * j) + 0.25 * j;
		im[j] = fi[j] = cos(0.7 * j);
	}
	fft_forward(&p, fr, fi);
	CHECK_EQ_LL(fft_walk_init(&w, N), 0);
	while (done < (unsigned long long)N / 2 * LOG) {
		unsigned long long m = done + cut > N / 2 * LOG ? N / 2 * LOG - done : cut;

		fft_walk_steps(&w, re, im, m);
		done += m;
	}
	for (j = 0; j < N; j++) {
		for (rev = 0, b = 0; b < LOG; b++)
			rev |= ((j >> b) & 1) << (LOG - 1 - b);
		CHECK_NEAR(re[rev], fr[j], 1e-9);
		CHECK_NEAR(im[rev], fi[j], 1e-9);
	}
	fft_walk_steps(&w, re, im, N / 2 * LOG);
	for (j = 0; j < N; j++) {
		CHECK_NEAR(re[j], sin(0.3 * j) + 0.25 * j, 1e-9);
		CHECK_NEAR(im[j], cos(0.7 * j), 1e-9);
	}
	/* The next cycle starts over: forward again. */
	CHECK(!w.inverse && w.len == N && w.i == 0 && w.k == 0);
	fft_walk_free(&w);
	fft_plan_free(&p);
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
