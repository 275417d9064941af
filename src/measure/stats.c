// SPDX-License-Identifier: GPL-2.0-or-later
/* stats.c - streaming statistics and percentiles (see stats.h). */
#include <math.h>
#include <stdint.h>
#include "measure/stats.h"

const double stats_pct[STATS_NPCT] = { 50.0, 90.0, 99.0, 99.9, 99.99 };
const char *const stats_pct_name[STATS_NPCT] = {
	"p50", "p90", "p99", "p99.9", "p99.99"
};

void stats_reset(struct stats *s)
{
	s->n = 0;
	s->min = INT64_MAX;
	s->max = INT64_MIN;
	s->last = 0;
	s->mean = 0.0;
	s->m2 = 0.0;
}

int stats_init(struct stats *s, int64_t origin, uint64_t width,
	       uint32_t nbuckets)
{
	stats_reset(s);
	return hist_init(&s->hist, origin, width, nbuckets);
}

int stats_init_fine(struct stats *s)
{
	stats_reset(s);
	return hist_init_fine(&s->hist, 0);
}

void stats_free(struct stats *s)
{
	hist_free(&s->hist);
}

double stats_mean(const struct stats *s)
{
	return s->n ? s->mean : 0.0;
}

double stats_stddev(const struct stats *s)
{
	if (s->n < 2)
		return 0.0;
	return sqrt(s->m2 / (double)(s->n - 1));
}

double stats_stddev_about(const struct stats *s, double target)
{
	double off;

	if (s->n < 2)
		return 0.0;
	/* sum (x - t)^2 = M2 + n (mean - t)^2 */
	off = s->mean - target;
	return sqrt((s->m2 + (double)s->n * off * off) / (double)(s->n - 1));
}

static int64_t clamp(int64_t v, int64_t lo, int64_t hi)
{
	return v < lo ? lo : v > hi ? hi : v;
}

int64_t stats_percentile(const struct stats *s, double p)
{
	const struct histogram *h = &s->hist;
	uint64_t rank, cum;
	uint32_t i;

	if (!s->n)
		return 0;
	if (p >= 100.0)
		return s->max;
	rank = (uint64_t)ceil(p / 100.0 * (double)s->n);
	if (rank < 1)
		rank = 1;
	cum = h->underflow;
	if (cum >= rank)
		return s->min;
	for (i = 0; i < h->l.nbuckets; i++) {
		cum += h->count[i];
		if (cum >= rank)
			return clamp(hist_bucket_last(h, i), s->min, s->max);
	}
	return s->max;
}

int stats_merge(struct stats *dst, const struct stats *src)
{
	double n, d;

	if (!src->n)
		return 0;
	if (hist_merge(&dst->hist, &src->hist))
		return -1;
	if (!dst->n) {
		struct histogram keep = dst->hist;

		*dst = *src;
		dst->hist = keep;
		return 0;
	}
	n = (double)dst->n + (double)src->n;
	d = src->mean - dst->mean;
	dst->m2 += src->m2 + d * d * (double)dst->n * (double)src->n / n;
	dst->mean += d * (double)src->n / n;
	dst->n += src->n;
	if (src->min < dst->min)
		dst->min = src->min;
	if (src->max > dst->max)
		dst->max = src->max;
	dst->last = src->last;
	return 0;
}
