// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * bintime_loop.c - the tight loop: read the clock, count the gap. The
 * common case is a subtraction, a compare and an increment; only gaps of
 * BT_FAST units (ns, or TSC cycles) and more go through the streaming
 * statistics, in ns.
 */
#include <math.h>
#include "bintime/bintime_types.h"
#include "bintime/bintime_loop.h"
#include "measure/clock.h"
#include "explain/explain.h"

/*
 * --timeline, --largest: the fast gaps counted since the last hand-over,
 * into the step under way (its last ns: they were counted in it) and the
 * largest samples (copies, at most K, largest first, at time now).
 */
static void bt_fast_flush(struct bt_cpu *c, int64_t now)
{
	struct rec_series *r = c->rec;
	double scale = c->use_tsc ? c->tsc.ns_per_cycle : 1.0;
	int64_t at = r->tl_on && r->tl.end > now ? r->tl.end - 1 : now;
	uint64_t d, k;
	int64_t v;
	int i;

	for (i = BT_FAST - 1; i >= 0; i--) {
		d = c->fast[i] - c->fast_rec[i];
		if (!d)
			continue;
		c->fast_rec[i] = c->fast[i];
		v = (int64_t)llround(i * scale);
		if (r->tl_on)
			timeline_add_n(&r->tl, at, v, d);
		r->lg.seen += d;
		for (k = 0; k < d && k < r->lg.k && v > r->lg.floor; k++)
			largest_insert(&r->lg, v, at);
	}
}

/* Every 1024 reads and before a slow gap (t in ns): at a step's end, the
 * fast gaps go into the step they were counted in. */
static inline void bt_tick(struct bt_cpu *c, int64_t t)
{
	if (c->rec && c->rec->tl_on && t >= c->rec->tl.end)
		bt_fast_flush(c, t);
}

static void bt_tick_tsc(struct bt_cpu *c, int64_t t)
{
	if (c->rec)
		bt_tick(c, c->ns0 + tsc_cycles_to_ns(&c->tsc, t - c->tsc0));
}

static void bt_slow(struct bt_cpu *c, int64_t t, int64_t gap)
{
	bt_tick(c, t);
	stats_add(&c->slow, gap);
	record_add(c->rec, t, gap);
	if (c->xsrc)
		explain_note(c->xsrc, t - gap, gap);
	if (gap > c->thresh_ns) {
		c->over_n++;
		c->over_total += gap;
	}
}

/*
 * A slow gap in cycles, to ns. rdtsc is not fenced (see bt_loop_tsc):
 * two reads could come out of the pipeline a few cycles swapped, and such
 * a gap is 0, not a negative one.
 */
static void bt_slow_tsc(struct bt_cpu *c, int64_t t, int64_t cycles)
{
	bt_slow(c, c->ns0 + tsc_cycles_to_ns(&c->tsc, t - c->tsc0),
		cycles > 0 ? tsc_cycles_to_ns(&c->tsc, cycles) : 0);
}

/*
 * The loop for one clock: read() in units, fast[] one counter per unit,
 * end in units (0: none). Always inlined with constant read and slow, so
 * each clock gets its own loop with the read inlined, no indirect call.
 * Returns the first and the last read.
 */
static inline __attribute__((always_inline)) void
bt_spin(struct bt_cpu *c, int64_t (*read)(void),
	void (*slow)(struct bt_cpu *c, int64_t t, int64_t gap),
	void (*tick)(struct bt_cpu *c, int64_t t), int64_t end,
	int64_t *first, int64_t *last)
{
	uint64_t i, limit = c->loops ? c->loops : UINT64_MAX;
	int64_t prev, t, gap;

	prev = read();
	*first = prev;
	for (i = 0; i < limit; i++) {
		t = read();
		gap = t - prev;
		prev = t;
		if (__builtin_expect((uint64_t)gap < BT_FAST, 1)) {
			c->fast[gap]++;
			/* The end is looked at every 1024 reads only. */
			if (__builtin_expect(i & 1023, 1))
				continue;
		} else {
			slow(c, t, gap);
		}
		tick(c, t);
		if ((end && t >= end) || bench_stopping())
			break;
	}
	*last = prev;
}

/*
 * No fence around rdtsc: the loop measures gaps between its own reads,
 * as oslat does, not code between two reads, so nothing needs ordering
 * against loads and stores. An unfenced read may run a few cycles early
 * (the out-of-order window, tens of ns at most), which cannot hide or
 * make a gap of the size looked for (us), and lfence or rdtscp would add
 * their cost to every read.
 */
static void bt_loop_tsc(struct bt_cpu *c)
{
	int64_t ns0 = clock_now_ns(), tsc0 = tsc_now(), end = 0, first, last;

	c->ns0 = ns0;
	c->tsc0 = tsc0;
	if (c->end_ns)
		end = tsc0 + tsc_ns_to_cycles(&c->tsc, c->end_ns - ns0);
	if (c->end_ns && end <= 0)
		end = 1;
	bt_spin(c, tsc_now, bt_slow_tsc, bt_tick_tsc, end, &first, &last);
	c->t_first = ns0 + tsc_cycles_to_ns(&c->tsc, first - tsc0);
	c->t_last = ns0 + tsc_cycles_to_ns(&c->tsc, last - tsc0);
}

void bt_loop(struct bench_thread *bt)
{
	struct bt_cpu *c = bt->arg;

	explain_attach(c->xsrc);
	if (c->use_tsc)
		bt_loop_tsc(c);
	else
		bt_spin(c, clock_now_ns, bt_slow, bt_tick, c->end_ns, &c->t_first,
			&c->t_last);
	if (c->rec)
		bt_fast_flush(c, c->t_last);
}

/*
 * Counter i is a gap of i * scale ns (scale 1: ns; ns per cycle: TSC),
 * rounded to the ns as the slow path's gaps are: every gap is then a
 * whole ns, and min <= mean <= max holds for any mix.
 */
static void fold_fast(struct stats *all, const uint64_t *fast, int nfast,
		      double scale)
{
	struct histogram *h = &all->hist;
	double sum = 0, m2 = 0, mean, v;
	uint64_t n = 0;
	int i;

	for (i = 0; i < nfast; i++) {
		if (!fast[i])
			continue;
		v = (double)llround(i * scale);
		if (!n)
			all->min = (int64_t)v;
		all->max = (int64_t)v;
		n += fast[i];
		sum += (double)fast[i] * v;
		hist_add_n(h, all->max, fast[i]);
	}
	if (!n)
		return;
	mean = sum / (double)n;
	for (i = 0; i < nfast; i++) {
		if (!fast[i])
			continue;
		v = (double)llround(i * scale) - mean;
		m2 += (double)fast[i] * v * v;
	}
	all->n = n;
	all->mean = mean;
	all->m2 = m2;
	all->last = all->max;
}

void bt_fold(struct stats *all, const uint64_t *fast, int nfast, double scale,
	     const struct stats *slow)
{
	stats_reset(all);
	hist_reset(&all->hist);
	fold_fast(all, fast, nfast, scale);
	stats_merge(all, slow);
}
