// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * timer_display.c - the non-RT display thread: takes each finished second
 * from the ring, folds it into the run's summary (timer_summary.c) and
 * prints its RTD line (timer_output.c).
 */
#include <stdio.h>
#include <sys/prctl.h>
#include <unistd.h>
#include "core/clock.h"
#include "timer/timer_display.h"
#include "timer/timer_output.h"
#include "timer/timer_summary.h"

#define DISPLAY_POLL_NS	(100 * NSEC_PER_MSEC)

/* -q on a terminal: elapsed, remaining and worst on stderr instead. */
static void progress(const struct timer_cpu *c, const struct timer_second *s,
		     bool final)
{
	const struct timer_run *run = c->run;
	int64_t worst = c->sum.max;
	int i;

	if (!run->cfg->quiet || !isatty(STDERR_FILENO))
		return;
	for (i = 0; i < run->ncpu; i++)
		if (run->cpu[i].sum.max > worst)
			worst = run->cpu[i].sum.max;
	if (final)
		fprintf(stderr, "\r\033[K");
	else
		fprintf(stderr, "\r\033[K%s: elapsed %llus, remaining %llus, worst %.3f us",
			run->prog, (unsigned long long)s->index,
			(unsigned long long)run->cfg->duration_s - s->index,
			(double)worst / NSEC_PER_USEC);
}

/* Take everything one sampler has published; print full seconds. */
static bool drain(struct timer_cpu *c)
{
	struct timer_run *run = c->run;
	struct timer_second s;
	bool any = false;

	while (ring_pop(&c->ring, &s)) {
		int64_t lat[3] = { s.min, s.n ? s.sum / (int64_t)s.n : 0, s.max };

		summary_add(&c->sum, &s);
		layer_second(&c->layer, s.index, lat, s.msw);
		progress(c, &s, false);
		/* The cyclictest face draws its own (face.draw). */
		if (run->cfg->quiet || s.partial || run->face.draw)
			continue;
		timer_print_second(stdout, c, &s, run->printed++);
		any = true;
	}
	return any;
}

static void drain_all(struct timer_run *run)
{
	bool any = false;
	int i;

	for (i = 0; i < run->ncpu; i++)
		any |= drain(&run->cpu[i]);
	if (any)
		fflush(stdout);
}

void *timer_display(void *arg)
{
	struct timer_run *run = arg;

	prctl(PR_SET_NAME, "rtlat-display");
	while (!__atomic_load_n(&run->display_stop, __ATOMIC_ACQUIRE)) {
		drain_all(run);
		if (run->face.draw)
			run->face.draw(run, false);
		if (run->face.status) {
			int bits = run_status_take();

			if (bits)
				run->face.status(run, bits);
		}
		clock_sleep_until(clock_now_ns() + DISPLAY_POLL_NS);
	}
	drain_all(run);
	progress(&run->cpu[0], NULL, true);
	return NULL;
}
