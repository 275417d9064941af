// SPDX-License-Identifier: GPL-2.0-or-later
/* test_record.c - long runs: the K largest samples, the time line, and
 * statistics that do not overflow at 10^12 samples or sums near 2^63. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "measure/histogram.h"
#include "measure/largest.h"
#include "measure/stats.h"
#include "measure/timeline.h"
#include "unit.h"

#define SEC 1000000000LL

UNIT_TEST(largest_keeps_exactly_top_k)
{
	struct largest_row store[8], out[8];
	struct largest l;
	uint64_t seen;
	uint32_t n, i;
	int64_t v;

	largest_init(&l, 8, store);
	/* 0..999 in a scrambled order (7 is coprime with 1000). */
	for (i = 0; i < 1000; i++) {
		v = (int64_t)((i * 7) % 1000);
		largest_add(&l, v, 1000 + i);
	}
	n = largest_snapshot(&l, out, &seen);
	CHECK_EQ_LL(n, 8);
	CHECK_EQ_LL(seen, 1000);
	for (i = 0; i < 8; i++)
		CHECK_EQ_LL(out[i].ns, 999 - i);
	/* 999 came at i = 857 (857 * 7 = 5999). */
	CHECK_EQ_LL(out[0].t_ns, 1000 + 857);
	CHECK_EQ_LL(l.floor, 992);
}

UNIT_TEST(largest_fewer_than_k)
{
	struct largest_row store[16], out[16];
	struct largest l;
	uint64_t seen;
	uint32_t n;

	largest_init(&l, 16, store);
	largest_add(&l, 5, 1);
	largest_add(&l, -3, 2);
	largest_add(&l, 9, 3);
	n = largest_snapshot(&l, out, &seen);
	CHECK_EQ_LL(n, 3);
	CHECK_EQ_LL(seen, 3);
	CHECK_EQ_LL(out[0].ns, 9);
	CHECK_EQ_LL(out[1].ns, 5);
	CHECK_EQ_LL(out[2].ns, -3);
	CHECK_EQ_LL(l.floor, INT64_MIN);
}

UNIT_TEST(largest_ties_keep_earliest)
{
	struct largest_row store[3], out[3];
	struct largest l;
	uint64_t seen;
	int i;

	largest_init(&l, 3, store);
	for (i = 0; i < 10; i++)
		largest_add(&l, 50, i);
	largest_snapshot(&l, out, &seen);
	CHECK_EQ_LL(out[0].t_ns, 0);
	CHECK_EQ_LL(out[1].t_ns, 1);
	CHECK_EQ_LL(out[2].t_ns, 2);
	/* A larger one pushes out the latest of the ties. */
	largest_add(&l, 60, 100);
	largest_snapshot(&l, out, &seen);
	CHECK_EQ_LL(out[0].ns, 60);
	CHECK_EQ_LL(out[1].t_ns, 0);
	CHECK_EQ_LL(out[2].t_ns, 1);
	CHECK_EQ_LL(seen, 11);
}

/* The snapshot's in-place heap sort gives largest_sort's order, ties
 * included, on a full heap of many equal samples at scrambled times. */
UNIT_TEST(largest_snapshot_order_is_largest_sort)
{
	static struct largest_row store[512], out[512], ref[512];
	struct largest l;
	uint64_t seen, x = 88172645463325252ULL;
	uint32_t n, i;

	largest_init(&l, 512, store);
	for (i = 0; i < 20000; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		largest_add(&l, (int64_t)(x % 97), (int64_t)(x >> 40));
	}
	memcpy(ref, store, sizeof(ref));
	largest_sort(ref, 512);
	n = largest_snapshot(&l, out, &seen);
	CHECK_EQ_LL(n, 512);
	CHECK(memcmp(out, ref, sizeof(ref)) == 0);
}

UNIT_TEST(largest_off)
{
	struct largest l;

	largest_init(&l, 0, NULL);
	largest_add(&l, 7, 0);
	CHECK_EQ_LL(l.n, 0);
	CHECK_EQ_LL(l.seen, 1);
}

UNIT_TEST(timeline_bins_bound_their_values)
{
	int64_t v;
	unsigned int b;

	for (v = -5; v < 100000; v += 7) {
		b = tl_bin(v);
		CHECK(b < TL_BINS);
		CHECK(tl_bin_top(b) >= v);
		if (b > 4)
			CHECK(tl_bin_top(b - 1) < v);
	}
	CHECK_EQ_LL(tl_bin(INT64_MAX), TL_BINS - 1);
	CHECK_EQ_LL(tl_bin_top(TL_BINS - 1), INT64_MAX);
	/* 4 bins an octave: a bin's top is within 25 % of its values. */
	CHECK(tl_bin_top(tl_bin(1000000)) <= 1250000);
}

/* Feed n samples per step for steps steps, one sample per ms; drain as a
 * consumer would after every step. */
static void feed(struct tl_prod *p, struct tl_store *st, int steps, int per,
		 int64_t base)
{
	int s, i;

	for (s = 0; s < steps; s++) {
		for (i = 0; i < per; i++)
			timeline_add(p, base + s * SEC + i * (SEC / per), 1000 + i);
		tl_store_drain(st, p);
	}
}

UNIT_TEST(timeline_steps_add_up)
{
	static struct tl_prod p;
	struct tl_store st;
	uint64_t total = 0;
	uint32_t i;

	tl_prod_init(&p, SEC, 1089);
	tl_store_init(&st, SEC, 100);
	tl_prod_start(&p, 5 * SEC);
	feed(&p, &st, 10, 100, 5 * SEC);
	tl_store_finish(&st, &p);
	CHECK_EQ_LL(st.len, 10);
	for (i = 0; i < st.len; i++) {
		total += st.s[i].n;
		CHECK_EQ_LL(st.s[i].min, 1000);
		CHECK_EQ_LL(st.s[i].max, 1099);
		CHECK_EQ_LL(st.s[i].over, 10);
		CHECK_NEAR(st.s[i].sum / (double)st.s[i].n, 1049.5, 1e-9);
		/* rank 99 of 1000..1099 is 1098, in the bin [1024, 1151]:
		 * its top clamped to the max. */
		CHECK_EQ_LL(st.s[i].p99, 1099);
	}
	CHECK_EQ_LL(total, 1000);
	CHECK_EQ_LL(st.merges, 0);
	tl_store_free(&st);
}

UNIT_TEST(timeline_merges_two_by_two_past_cap)
{
	static struct tl_prod p;
	struct tl_store st;
	uint64_t total = 0;
	uint32_t i;

	tl_prod_init(&p, SEC, INT64_MAX);
	tl_store_init(&st, SEC, 4);
	tl_prod_start(&p, 0);
	feed(&p, &st, 9, 10, 0);	/* 9 steps of 1 s into 4 kept */
	tl_store_finish(&st, &p);
	CHECK_EQ_LL(st.merges, 2);
	CHECK_EQ_LL(st.step, 4 * SEC);
	CHECK_EQ_LL(st.len, 3);	/* [0,4) [4,8) [8,12) */
	CHECK_EQ_LL(st.s[0].n, 40);
	CHECK_EQ_LL(st.s[1].n, 40);
	CHECK_EQ_LL(st.s[2].n, 10);
	for (i = 0; i < st.len; i++)
		total += st.s[i].n;
	CHECK_EQ_LL(total, 90);
	tl_store_free(&st);
}

UNIT_TEST(timeline_full_ring_loses_nothing)
{
	static struct tl_prod p;
	struct tl_store st;
	uint64_t total = 0;
	uint32_t i;
	int s;

	tl_prod_init(&p, SEC, INT64_MAX);
	tl_store_init(&st, SEC, 100);
	tl_prod_start(&p, 0);
	/* No consumer for 40 steps: the ring holds 16. */
	for (s = 0; s < 40; s++)
		timeline_add(&p, s * SEC, s);
	tl_store_finish(&st, &p);
	for (i = 0; i < st.len; i++)
		total += st.s[i].n;
	CHECK_EQ_LL(total, 40);
	CHECK_EQ_LL(st.s[16].max, 39);	/* steps 0-15 in the ring, the rest stayed in step 16 */
	tl_store_free(&st);
}

/* 10^12 samples (counts added directly) and values near 2^63 through the
 * statistics: count, mean, variance, percentiles stay right. */
UNIT_TEST(stats_trillion_samples)
{
	struct stats a, b;
	const uint64_t half = 500000000000ULL;	/* 5e11 each */

	CHECK(stats_init(&a, 0, 1000, 100) == 0);
	CHECK(stats_init(&b, 0, 1000, 100) == 0);
	/* a: 5e11 samples of 10 us; b: 5e11 samples of 30 us. */
	a.n = half; a.min = a.max = 10000; a.mean = 10000; a.m2 = 0;
	a.hist.count[10] = half;
	b.n = half; b.min = b.max = 30000; b.mean = 30000; b.m2 = 0;
	b.hist.count[30] = half;
	CHECK(stats_merge(&a, &b) == 0);
	CHECK_EQ_LL(a.n, 1000000000000ULL);
	CHECK_EQ_LL(hist_total(&a.hist), 1000000000000ULL);
	CHECK_NEAR(stats_mean(&a), 20000.0, 1e-6);
	/* Population variance 1e8; sample variance n/(n-1) of it. */
	CHECK_NEAR(stats_stddev(&a), 10000.0, 1e-3);
	CHECK_EQ_LL(stats_percentile(&a, 50), 10999);
	CHECK_EQ_LL(stats_percentile(&a, 50.0000001), 30000);
	CHECK_EQ_LL(stats_percentile(&a, 99.99), 30000);
	/* One more sample keeps adding. */
	stats_add(&a, 30000);
	CHECK_EQ_LL(a.n, 1000000000001ULL);
	stats_free(&a);
	stats_free(&b);
}

UNIT_TEST(stats_values_near_2_63)
{
	struct stats s;
	const int64_t big = INT64_MAX - 10;
	int i;

	/* A negative origin: v - origin would overflow int64. */
	CHECK(stats_init(&s, -1000, 1000, 10) == 0);
	for (i = 0; i < 1000; i++)
		stats_add(&s, big - (i % 2));
	stats_add(&s, INT64_MIN + 1);
	CHECK_EQ_LL(s.n, 1001);
	CHECK_EQ_LL(s.max, big);
	CHECK_EQ_LL(s.min, INT64_MIN + 1);
	CHECK_EQ_LL(s.hist.overflow, 1000);
	CHECK_EQ_LL(s.hist.underflow, 1);
	CHECK(isfinite(stats_mean(&s)));
	CHECK(isfinite(stats_stddev(&s)));
	CHECK_EQ_LL(stats_percentile(&s, 50), big);
	stats_free(&s);
}

UNIT_TEST(timeline_sums_near_2_63)
{
	static struct tl_prod p;
	struct tl_store st;
	int i;

	tl_prod_init(&p, SEC, INT64_MAX - 1);
	tl_store_init(&st, SEC, 4);
	tl_prod_start(&p, 0);
	for (i = 0; i < 1000; i++)
		timeline_add(&p, i, INT64_MAX);
	tl_store_finish(&st, &p);
	CHECK_EQ_LL(st.s[0].n, 1000);
	CHECK_EQ_LL(st.s[0].over, 1000);
	CHECK_EQ_LL(st.s[0].p99, INT64_MAX);
	CHECK_NEAR(st.s[0].sum / 1000.0 / (double)INT64_MAX, 1.0, 1e-12);
	tl_store_free(&st);
}

static void add_int(void *dst, const void *src)
{
	*(int *)dst += *(const int *)src;
}

/* The one merging rule (the time line's steps and their context
 * columns): pairs fold in place, an odd last row stays alone. */
UNIT_TEST(halve_folds_pairs_in_place)
{
	int v[7] = { 1, 2, 3, 4, 5, 6, 7 };
	size_t n = tl_halve(v, 7, sizeof(v[0]), add_int);

	CHECK_EQ_LL(n, 4);
	CHECK_EQ_LL(v[0], 3);
	CHECK_EQ_LL(v[1], 7);
	CHECK_EQ_LL(v[2], 11);
	CHECK_EQ_LL(v[3], 7);
	n = tl_halve(v, n, sizeof(v[0]), add_int);
	CHECK_EQ_LL(n, 2);
	CHECK_EQ_LL(v[0], 10);
	CHECK_EQ_LL(v[1], 18);
}
