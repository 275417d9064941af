/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * stats.h - streaming statistics of one latency series.
 *
 * O(1) per sample, memory fixed at init: count, exact min and max,
 * Welford mean and M2 (so the standard deviation about the mean or about
 * any target comes out without a second pass), and a bounded histogram
 * from which percentiles are derived.
 */
#ifndef RTLAT_STATS_H
#define RTLAT_STATS_H

#include <stdint.h>
#include "measure/histogram.h"

struct stats {
	uint64_t n;
	int64_t min;
	int64_t max;
	int64_t last;
	double mean;
	double m2;
	struct histogram hist;
};

/* The percentiles every series reports, in this order. */
#define STATS_NPCT 5
extern const double stats_pct[STATS_NPCT];	/* 50, 90, 99, 99.9, 99.99 */
extern const char *const stats_pct_name[STATS_NPCT]; /* "p50"... "p99.99" */

/* Reset the moments; the histogram must be set up by the caller. */
void stats_reset(struct stats *s);
/* Reset moments and allocate a histogram. Returns 0 or -errno. */
int stats_init(struct stats *s, int64_t origin, uint64_t width,
	       uint32_t nbuckets);
/* Reset moments, allocate the 1 ns layout (hist_init_fine). */
int stats_init_fine(struct stats *s);
void stats_free(struct stats *s);

static inline void stats_add(struct stats *s, int64_t v)
{
	double d;

	s->n++;
	s->last = v;
	if (v < s->min)
		s->min = v;
	if (v > s->max)
		s->max = v;
	d = (double)v - s->mean;
	s->mean += d / (double)s->n;
	s->m2 += d * ((double)v - s->mean);
	hist_add(&s->hist, v);
}

/* Mean, 0 when empty. */
double stats_mean(const struct stats *s);
/* Sample (n-1) standard deviation about the mean; 0 when n < 2. */
double stats_stddev(const struct stats *s);
/* Sample standard deviation about a target value; 0 when n < 2. */
double stats_stddev_about(const struct stats *s, double target);
/*
 * Percentile p (0 < p <= 100) as an upper bound: the top of the bucket
 * holding the ceil(p/100 * n)-th sample, clamped to [min, max]. A rank in
 * the overflow gives the exact max. 0 when empty.
 */
int64_t stats_percentile(const struct stats *s, double p);
/* Fold src into dst (moments by Chan's formula, histograms added). */
int stats_merge(struct stats *dst, const struct stats *src);

#endif
