// SPDX-License-Identifier: GPL-2.0-or-later
/* test_stats.c - streaming statistics, histogram and percentiles against
 * inputs whose answers are known by hand. */
#include <math.h>
#include <stdint.h>
#include "measure/histogram.h"
#include "measure/stats.h"
#include "unit.h"

/* 100 ns buckets from 0, 10 buckets: values 0..999 ns, then overflow. */
static void small(struct stats *s)
{
	CHECK(stats_init(s, 0, 100, 10) == 0);
}

UNIT_TEST(stats_empty)
{
	struct stats s;

	small(&s);
	CHECK_EQ_LL(s.n, 0);
	CHECK_NEAR(stats_mean(&s), 0.0, 0);
	CHECK_NEAR(stats_stddev(&s), 0.0, 0);
	CHECK_NEAR(stats_stddev_about(&s, 5.0), 0.0, 0);
	CHECK_EQ_LL(stats_percentile(&s, 50), 0);
	CHECK_EQ_LL(stats_percentile(&s, 99.99), 0);
	CHECK_EQ_LL(hist_total(&s.hist), 0);
	stats_free(&s);
}

UNIT_TEST(stats_single_sample)
{
	struct stats s;
	int k;

	small(&s);
	stats_add(&s, 250);
	CHECK_EQ_LL(s.n, 1);
	CHECK_EQ_LL(s.min, 250);
	CHECK_EQ_LL(s.max, 250);
	CHECK_EQ_LL(s.last, 250);
	CHECK_NEAR(stats_mean(&s), 250.0, 1e-9);
	/* One sample has no spread: 0, never NaN. */
	CHECK_NEAR(stats_stddev(&s), 0.0, 0);
	/* Every percentile of one sample is that sample (clamped to max). */
	for (k = 0; k < STATS_NPCT; k++)
		CHECK_EQ_LL(stats_percentile(&s, stats_pct[k]), 250);
	stats_free(&s);
}

UNIT_TEST(stats_moments_known)
{
	/* 2 4 4 4 5 5 7 9: mean 5, sum of squares about the mean 32. */
	static const int64_t v[] = { 2, 4, 4, 4, 5, 5, 7, 9 };
	struct stats s;
	unsigned int i;

	small(&s);
	for (i = 0; i < sizeof(v) / sizeof(v[0]); i++)
		stats_add(&s, v[i]);
	CHECK_EQ_LL(s.n, 8);
	CHECK_EQ_LL(s.min, 2);
	CHECK_EQ_LL(s.max, 9);
	CHECK_NEAR(stats_mean(&s), 5.0, 1e-12);
	CHECK_NEAR(stats_stddev(&s), sqrt(32.0 / 7.0), 1e-12);
	/* About a target t: sqrt(sum (x-t)^2 / (n-1)); t = 3 gives 32 + 8*4. */
	CHECK_NEAR(stats_stddev_about(&s, 3.0), sqrt(64.0 / 7.0), 1e-12);
	CHECK_NEAR(stats_stddev_about(&s, 5.0), stats_stddev(&s), 1e-12);
	stats_free(&s);
}

UNIT_TEST(stats_large_offset_is_stable)
{
	/* Welford keeps precision where sum/sum-of-squares would not:
	 * 1 s plus 1, 2, 3 ns. */
	struct stats s;
	int64_t base = 1000000000LL;

	CHECK(stats_init(&s, 0, 1000, 4) == 0);
	stats_add(&s, base + 1);
	stats_add(&s, base + 2);
	stats_add(&s, base + 3);
	CHECK_NEAR(stats_mean(&s), (double)base + 2.0, 1e-6);
	CHECK_NEAR(stats_stddev(&s), 1.0, 1e-6);
	stats_free(&s);
}

UNIT_TEST(stats_percentiles_uniform)
{
	/* 1000 samples, 10 per ns value 0..99 ... spread as 0..999 ns:
	 * value i for i in 0..999, one each. Buckets of 100 ns hold 100 each. */
	struct stats s;
	int i;

	small(&s);
	for (i = 0; i < 1000; i++)
		stats_add(&s, i);
	CHECK_EQ_LL(hist_total(&s.hist), 1000);
	CHECK_EQ_LL(s.hist.overflow, 0);
	/* Rank 500 is the last sample of bucket 4 (400..499): upper bound 499. */
	CHECK_EQ_LL(stats_percentile(&s, 50), 499);
	CHECK_EQ_LL(stats_percentile(&s, 90), 899);
	/* Rank 990 is in bucket 9 (900..999). */
	CHECK_EQ_LL(stats_percentile(&s, 99), 999);
	CHECK_EQ_LL(stats_percentile(&s, 100), 999);
	stats_free(&s);
}

UNIT_TEST(stats_overflow_counted_and_max_exact)
{
	struct stats s;
	int i;

	small(&s);
	for (i = 0; i < 98; i++)
		stats_add(&s, 150);		/* bucket 1 */
	stats_add(&s, 5000);			/* past the 10 buckets */
	stats_add(&s, 123456);			/* past the 10 buckets */
	CHECK_EQ_LL(hist_past(&s.hist), 2);
	CHECK_EQ_LL(s.hist.overflow, 0);	/* kept in the log-linear tail */
	CHECK_EQ_LL(hist_total(&s.hist), 100);
	CHECK_EQ_LL(s.max, 123456);
	CHECK_EQ_LL(stats_percentile(&s, 50), 199);
	/* Rank 99 is 5000's bucket (5000..5099), rank 100 the exact max. */
	CHECK_EQ_LL(stats_percentile(&s, 99), 5099);
	CHECK_EQ_LL(stats_percentile(&s, 99.99), 123456);
	/* Past the top (100 s): overflow, the exact max. */
	stats_add(&s, 200 * 1000000000LL);
	CHECK_EQ_LL(s.hist.overflow, 1);
	CHECK_EQ_LL(stats_percentile(&s, 99.99), 200 * 1000000000LL);
	stats_free(&s);
}

UNIT_TEST(stats_underflow_negative_values)
{
	struct stats s;

	small(&s);
	stats_add(&s, -40);
	stats_add(&s, 10);
	CHECK_EQ_LL(s.hist.underflow, 1);
	CHECK_EQ_LL(s.min, -40);
	/* Rank 1 lies in the underflow: the exact min. */
	CHECK_EQ_LL(stats_percentile(&s, 50), -40);
	CHECK_EQ_LL(stats_percentile(&s, 90), 10);
	stats_free(&s);
}

UNIT_TEST(stats_merge_equals_one_series)
{
	struct stats a, b, all;
	int i;

	small(&a);
	small(&b);
	small(&all);
	for (i = 0; i < 50; i++) {
		int64_t x = (i * 37) % 1200, y = (i * 53) % 800;

		stats_add(&a, x);
		stats_add(&b, y);
		stats_add(&all, x);
		stats_add(&all, y);
	}
	CHECK(stats_merge(&a, &b) == 0);
	CHECK_EQ_LL(a.n, all.n);
	CHECK_EQ_LL(a.min, all.min);
	CHECK_EQ_LL(a.max, all.max);
	CHECK_NEAR(stats_mean(&a), stats_mean(&all), 1e-9);
	CHECK_NEAR(stats_stddev(&a), stats_stddev(&all), 1e-9);
	CHECK_EQ_LL(a.hist.overflow, all.hist.overflow);
	for (i = 0; i < 10; i++)
		CHECK_EQ_LL(a.hist.count[i], all.hist.count[i]);
	stats_free(&a);
	stats_free(&b);
	stats_free(&all);
}

UNIT_TEST(stats_merge_into_empty_and_geometry)
{
	struct stats a, b, odd;

	small(&a);
	small(&b);
	CHECK(stats_init(&odd, 0, 50, 10) == 0);
	stats_add(&b, 300);
	CHECK(stats_merge(&a, &b) == 0);
	CHECK_EQ_LL(a.n, 1);
	CHECK_EQ_LL(a.min, 300);
	CHECK_EQ_LL(a.hist.count[3], 1);
	/* a kept its own histogram storage, not b's. */
	CHECK(a.hist.count != b.hist.count);
	stats_add(&odd, 1);
	CHECK(stats_merge(&a, &odd) != 0);
	stats_free(&a);
	stats_free(&b);
	stats_free(&odd);
}

UNIT_TEST(hist_bounds_and_edges)
{
	struct histogram h;

	CHECK(hist_init(&h, 0, 0, 10) != 0);
	CHECK(hist_init(&h, 0, 10, 0) != 0);
	CHECK(hist_init(&h, 0, 10, HIST_MAX_BUCKETS + 1) != 0);
	CHECK(hist_init(&h, -100, 10, 20) == 0);
	hist_add(&h, -101);	/* underflow */
	hist_add(&h, -100);	/* bucket 0 */
	hist_add(&h, -91);	/* bucket 0 */
	hist_add(&h, -90);	/* bucket 1 */
	hist_add(&h, 99);	/* bucket 19 */
	hist_add(&h, 100);	/* past the 20 linear buckets */
	hist_add(&h, HIST_TOP_NS * 2);	/* overflow: past the top */
	CHECK_EQ_LL(h.underflow, 1);
	CHECK_EQ_LL(h.count[0], 2);
	CHECK_EQ_LL(h.count[1], 1);
	CHECK_EQ_LL(h.count[19], 1);
	CHECK_EQ_LL(h.overflow, 1);
	CHECK_EQ_LL(hist_past(&h), 2);
	CHECK_EQ_LL(h.count[20], 1);
	CHECK_EQ_LL(hist_total(&h), 7);
	CHECK_EQ_LL(hist_bucket_start(&h, 19), 90);
	hist_reset(&h);
	CHECK_EQ_LL(hist_total(&h), 0);
	hist_free(&h);
}
