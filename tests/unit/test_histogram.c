// SPDX-License-Identifier: GPL-2.0-or-later
/* test_histogram.c - the log-linear histogram (measure/histogram.c): its
 * precision from 1 ns to 100 s, counts that do not overflow, merging, and
 * linear buckets (cyclictest's -h rows, Xenomai's cells) kept exact. */
#include <stdint.h>
#include <stdlib.h>
#include "measure/histogram.h"
#include "measure/stats.h"
#include "unit.h"

/* v's bucket holds v, and is at most 0.1 % of v wide, or (below 2 ms in
 * the 1 ns layout) at most 100 ns. */
static int bucket_fits(const struct histogram *h, int64_t v, int fine)
{
	int64_t i = hist_index(&h->l, v), lo;
	uint64_t w;

	if (i < 0)
		return 0;
	lo = hist_bucket_start(h, (uint32_t)i);
	w = hist_bucket_width(h, (uint32_t)i);
	if (v < lo || v > lo + (int64_t)w - 1)
		return 0;
	if (w > 1 && (double)w > 0.001 * (double)lo)
		return 0;
	return !fine || v >= 2000000 || w <= 100;
}

static uint64_t rnd(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

UNIT_TEST(hist_fine_relative_error_1ns_to_100s)
{
	struct histogram h;
	uint64_t seed = 88172645463325252ULL;
	int64_t v;
	int i, k;

	CHECK(hist_init_fine(&h, 0) == 0);
	/* Edges: every power of two and its neighbours, 1 ns to 100 s. */
	for (k = 0; k < 37; k++)
		for (v = (1LL << k) - 1; v <= (1LL << k) + 1; v++)
			if (v >= 1 && v <= HIST_TOP_NS)
				CHECK(bucket_fits(&h, v, 1));
	for (v = 1; v <= 100000000000LL; v *= 10) {
		CHECK(bucket_fits(&h, v, 1));
		CHECK(bucket_fits(&h, v - 1 ? v - 1 : 1, 1));
	}
	CHECK(bucket_fits(&h, HIST_TOP_NS, 1));
	CHECK(bucket_fits(&h, 1999999, 1));
	CHECK(bucket_fits(&h, 2097151, 1));
	CHECK(bucket_fits(&h, 2097152, 1));
	/* Random values, log-uniform over 1 ns .. 100 s. */
	for (i = 0; i < 200000; i++) {
		int e = (int)(rnd(&seed) % 37);

		v = (int64_t)(rnd(&seed) & ((1ULL << e) - 1)) + (1LL << e);
		if (v > HIST_TOP_NS)
			v = HIST_TOP_NS;
		CHECK(bucket_fits(&h, v, 1));
	}
	/* Buckets tile the range: each starts where the one before ends. */
	for (i = 1; i < (int)h.l.nbuckets; i++)
		CHECK(hist_bucket_start(&h, (uint32_t)i) ==
		      hist_bucket_start(&h, (uint32_t)i - 1) +
		      (int64_t)hist_bucket_width(&h, (uint32_t)i - 1));
	CHECK(hist_index(&h.l, HIST_TOP_NS * 2) == -2);
	CHECK(hist_index(&h.l, -1) == -1);
	CHECK(h.l.nbuckets * sizeof(uint64_t) <= 450 * 1024);
	hist_free(&h);
}

/* Linear layouts (100 ns, a face's 1 us): 0.1 % past their buckets too. */
UNIT_TEST(hist_linear_then_relative_error)
{
	struct histogram h;
	uint64_t seed = 2463534242ULL;
	int i;

	CHECK(hist_init(&h, 0, 1000, 400) == 0);
	for (i = 0; i < 400; i++) {
		CHECK(hist_index(&h.l, i * 1000LL) == i);
		CHECK(hist_index(&h.l, i * 1000LL + 999) == i);
	}
	for (i = 0; i < 100000; i++) {
		int64_t v = (int64_t)(rnd(&seed) % (uint64_t)HIST_TOP_NS) + 2048000;

		CHECK(bucket_fits(&h, v > HIST_TOP_NS ? HIST_TOP_NS : v, 0));
	}
	hist_free(&h);
}

/* 10^12 samples in one bucket and spread: counts are 64-bit, no wrap. */
UNIT_TEST(hist_10e12_samples_no_overflow)
{
	struct stats s;
	const uint64_t n = 1000000000000ULL;

	CHECK(stats_init_fine(&s) == 0);
	hist_add_n(&s.hist, 12345, n);
	hist_add_n(&s.hist, 50000000, n);	/* 50 ms */
	s.n = 2 * n;
	s.min = 12345;
	s.max = 50000000;
	CHECK(hist_total(&s.hist) == 2 * n);
	CHECK_EQ_LL(s.hist.overflow, 0);
	CHECK(stats_percentile(&s, 50) >= 12345 &&
	      stats_percentile(&s, 50) <= 12345 + 12);
	CHECK(stats_percentile(&s, 99) >= 50000000 * 0.999 &&
	      stats_percentile(&s, 99) <= 50000000);
	stats_free(&s);
}

/* Merging two histograms gives the histogram of both series. */
UNIT_TEST(hist_merge_equals_both)
{
	struct histogram a, b, all, odd;
	uint64_t seed = 1234567;
	uint32_t i;
	int k;

	CHECK(hist_init_fine(&a, 0) == 0);
	CHECK(hist_init_fine(&b, 0) == 0);
	CHECK(hist_init_fine(&all, 0) == 0);
	for (k = 0; k < 100000; k++) {
		int64_t x = (int64_t)(rnd(&seed) % 300000000000ULL) - 1000000000;
		int64_t y = (int64_t)(rnd(&seed) % 5000000);

		hist_add(&a, x);
		hist_add(&b, y);
		hist_add(&all, x);
		hist_add(&all, y);
	}
	CHECK(hist_merge(&a, &b) == 0);
	CHECK_EQ_LL(a.underflow, all.underflow);
	CHECK_EQ_LL(a.overflow, all.overflow);
	CHECK(a.overflow > 0 && a.underflow > 0);
	for (i = 0; i < a.l.nbuckets; i++)
		CHECK_EQ_LL(a.count[i], all.count[i]);
	/* Another layout does not merge. */
	CHECK(hist_init(&odd, 0, 100, 20000) == 0);
	CHECK(hist_merge(&a, &odd) != 0);
	hist_free(&odd);
	hist_free(&a);
	hist_free(&b);
	hist_free(&all);
}

/* A linear histogram's rows (as cyclictest's -h and Xenomai's cells were
 * counted before: value / width, past the last one overflow) come out
 * of the log-linear one exactly. */
UNIT_TEST(hist_linear_rows_derived_exactly)
{
	static const uint32_t cells[] = { 1, 10, 400, 1000, 20000 };
	uint64_t seed = 42;
	unsigned int c;

	for (c = 0; c < sizeof(cells) / sizeof(cells[0]); c++) {
		uint32_t n = cells[c], i;
		uint64_t *old = calloc(n + 1, sizeof(*old));
		struct histogram h;
		int k;

		if (!old || hist_init(&h, 0, 1000, n)) {
			CHECK(0);
			free(old);
			return;
		}
		for (k = 0; k < 20000; k++) {
			int64_t v = (int64_t)(rnd(&seed) % ((uint64_t)n * 2000 + 10));

			old[(uint64_t)v / 1000 < n ? (uint64_t)v / 1000 : n]++;
			hist_add(&h, v);
		}
		for (i = 0; i < n; i++)
			CHECK_EQ_LL(h.count[i], old[i]);
		CHECK_EQ_LL(hist_past(&h), old[n]);
		CHECK_EQ_LL(hist_bucket_start(&h, n), (int64_t)n * 1000);
		hist_free(&h);
		free(old);
	}
}
