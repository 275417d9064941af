// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * timer_summary.c - the seconds folded into what RTS, the histograms and
 * the JSON report: best, worst, the mean of per-second averages, and the
 * |min| / |max| histograms. Used by the display thread and the output.
 */
#include <string.h>
#include "timer/timer_summary.h"

int summary_init(struct timer_summary *t, uint64_t bucket, uint32_t cells)
{
	memset(t, 0, sizeof(*t));
	/* The per-second series keep moments only: a histogram without
	 * cells counts everything as overflow and needs no storage. */
	stats_reset(&t->sec_min);
	stats_reset(&t->sec_avg);
	stats_reset(&t->sec_max);
	hist_init_mem(&t->sec_min.hist, 0, 1, 0, NULL);
	hist_init_mem(&t->sec_avg.hist, 0, 1, 0, NULL);
	hist_init_mem(&t->sec_max.hist, 0, 1, 0, NULL);
	if (hist_init(&t->hmin, 0, bucket, cells) ||
	    hist_init(&t->hmax, 0, bucket, cells))
		return -1;
	return 0;
}

void summary_free(struct timer_summary *t)
{
	hist_free(&t->hmin);
	hist_free(&t->hmax);
}

void summary_add(struct timer_summary *t, const struct timer_second *s)
{
	if (!s->n)
		return;
	t->samples += s->n;
	t->lat_sum += (double)s->sum;
	t->last = s->last;
	t->overruns_end = s->overruns;
	t->msw_end = s->msw;
	if (s->partial) {	/* no RTD line: not in RTS nor min/max cells */
		t->partial++;
		return;
	}
	if (!t->seconds || s->min < t->min)
		t->min = s->min;
	if (!t->seconds || s->max > t->max)
		t->max = s->max;
	t->seconds++;
	t->avg_sum += (double)second_avg(s);
	t->overruns = s->overruns;
	t->msw = s->msw;
	stats_add(&t->sec_min, s->min);
	stats_add(&t->sec_avg, second_avg(s));
	stats_add(&t->sec_max, s->max);
	hist_add_abs(&t->hmin, s->min);
	hist_add_abs(&t->hmax, s->max);
}

void summary_merge(struct timer_summary *t, const struct timer_summary *o)
{
	t->samples += o->samples;
	t->lat_sum += o->lat_sum;
	t->partial += o->partial;
	t->overruns_end += o->overruns_end;
	t->msw_end += o->msw_end;
	if (!o->seconds)
		return;
	if (!t->seconds || o->min < t->min)
		t->min = o->min;
	if (!t->seconds || o->max > t->max)
		t->max = o->max;
	t->seconds += o->seconds;
	t->avg_sum += o->avg_sum;
	t->overruns += o->overruns;
	t->msw += o->msw;
	stats_merge(&t->sec_min, &o->sec_min);
	stats_merge(&t->sec_avg, &o->sec_avg);
	stats_merge(&t->sec_max, &o->sec_max);
	hist_merge(&t->hmin, &o->hmin);
	hist_merge(&t->hmax, &o->hmax);
}

/* RTS's average: the mean of the per-second averages. */
double summary_avg(const struct timer_summary *t)
{
	return t->seconds ? t->avg_sum / (double)t->seconds : 0.0;
}
