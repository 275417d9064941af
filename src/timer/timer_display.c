// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * timer_display.c - the non-RT display thread: takes each finished second
 * from the ring, folds it into the run's summary and the per-second
 * min/max histograms, and prints its RTD line.
 */
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>
#include "clock.h"
#include "timer.h"

#define DISPLAY_POLL_NS	(100 * NSEC_PER_MSEC)

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
	if (!t->seconds || s->min < t->min)
		t->min = s->min;
	if (!t->seconds || s->max > t->max)
		t->max = s->max;
	t->seconds++;
	if (!s->partial)
		t->full_seconds++;
	t->avg_sum += (double)second_avg(s);
	t->overruns = s->overruns;
	t->msw = s->msw;
	stats_add(&t->sec_min, s->min);
	stats_add(&t->sec_avg, second_avg(s));
	stats_add(&t->sec_max, s->max);
	hist_add_abs(&t->hmin, s->min);
	hist_add_abs(&t->hmax, s->max);
}

/* RTS's average: the mean of the per-second averages. */
double summary_avg(const struct timer_summary *t)
{
	return t->seconds ? t->avg_sum / (double)t->seconds : 0.0;
}

/* -q on a terminal: elapsed, remaining and worst on stderr instead. */
static void progress(const struct timer_run *run, const struct timer_second *s,
		     bool final)
{
	if (!run->cfg.quiet || !isatty(STDERR_FILENO))
		return;
	if (final)
		fprintf(stderr, "\r\033[K");
	else
		fprintf(stderr, "\r\033[K%s: elapsed %llus, remaining %llus, worst %.3f us",
			run->prog, (unsigned long long)s->index,
			(unsigned long long)run->cfg.duration_s - s->index,
			(double)run->sum.max / NSEC_PER_USEC);
}

/* Take everything the sampler has published; print full seconds. */
static void drain(struct timer_run *run)
{
	struct timer_second s;
	bool any = false;

	while (ring_pop(&run->ring, &s)) {
		summary_add(&run->sum, &s);
		progress(run, &s, false);
		if (run->cfg.quiet || s.partial)
			continue;
		timer_print_second(stdout, run, &s, run->printed++);
		any = true;
	}
	if (any)
		fflush(stdout);
}

void *timer_display(void *arg)
{
	struct timer_run *run = arg;

	prctl(PR_SET_NAME, "rtlat-display");
	while (!__atomic_load_n(&run->display_stop, __ATOMIC_ACQUIRE)) {
		drain(run);
		clock_sleep_until(clock_now_ns() + DISPLAY_POLL_NS);
	}
	drain(run);
	progress(run, NULL, true);
	return NULL;
}
