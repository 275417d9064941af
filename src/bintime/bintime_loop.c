// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * bintime_loop.c - the tight loop: read the clock, count the gap. The
 * common case is a subtraction, a compare and an increment; only gaps of
 * BT_FAST ns and more go through the streaming statistics.
 */
#include "bintime.h"
#include "clock.h"
#include "explain.h"

static void bt_slow(struct bt_cpu *c, int64_t t, int64_t gap)
{
	stats_add(&c->slow, gap);
	if (c->xsrc)
		explain_note(c->xsrc, t - gap, gap);
	if (gap > c->thresh_ns) {
		c->over_n++;
		c->over_total += gap;
	}
}

void bt_loop(struct bench_thread *bt)
{
	struct bt_cpu *c = bt->arg;
	uint64_t i, limit = c->loops ? c->loops : UINT64_MAX;
	int64_t prev, t, gap, end = c->end_ns;

	explain_attach(c->xsrc);
	prev = clock_now_ns();
	c->t_first = prev;
	for (i = 0; i < limit; i++) {
		t = clock_now_ns();
		gap = t - prev;
		prev = t;
		if (__builtin_expect((uint64_t)gap < BT_FAST, 1)) {
			c->fast[gap]++;
			/* The end is looked at every 1024 reads only. */
			if (__builtin_expect(i & 1023, 1))
				continue;
		} else {
			bt_slow(c, t, gap);
		}
		if ((end && t >= end) || bench_stop)
			break;
	}
	c->t_last = prev;
}

static void fold_fast(struct stats *all, const uint64_t *fast, int nfast)
{
	double sum = 0, m2 = 0, mean;
	uint64_t n = 0;
	int i;

	for (i = 0; i < nfast; i++) {
		if (!fast[i])
			continue;
		if (!n)
			all->min = i;
		all->max = i;
		n += fast[i];
		sum += (double)fast[i] * i;
		all->hist.count[(uint64_t)i / all->hist.width] += fast[i];
	}
	if (!n)
		return;
	mean = sum / (double)n;
	for (i = 0; i < nfast; i++)
		if (fast[i])
			m2 += (double)fast[i] * (i - mean) * (i - mean);
	all->n = n;
	all->mean = mean;
	all->m2 = m2;
	all->last = all->max;
}

void bt_fold(struct stats *all, const uint64_t *fast, int nfast,
	     const struct stats *slow)
{
	stats_reset(all);
	hist_reset(&all->hist);
	fold_fast(all, fast, nfast);
	stats_merge(all, slow);
}
