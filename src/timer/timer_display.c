// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * timer_display.c - the non-RT display thread: takes each finished second
 * from the ring, folds it into the run's summary (timer_summary.c) and
 * prints its RTD line (timer_output.c).
 */
#include <stdatomic.h>
#include <stdio.h>
#include <sys/prctl.h>
#include <unistd.h>
#include "measure/clock.h"
#include "measure/record.h"
#include "measure/timeline.h"
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

/* The CPU's counters over the second, into the time line's step that
 * holds the second's middle (the time line keeps them). */
static void context(struct timer_cpu *c, const struct timer_second *s)
{
	uint64_t k = s->index - (c->run->face.no_warmup ? 1 : 0);
	struct tl_ctx ctx;

	if (layer_second(&c->layer, s->msw, &ctx))
		record_context(c->run->recorder, c->rec, c->start_ns +
			       (int64_t)k * NSEC_PER_SEC + NSEC_PER_SEC / 2, &ctx);
}

/* Take everything one sampler has published; print full seconds. */
static bool drain(struct timer_cpu *c)
{
	struct timer_run *run = c->run;
	struct timer_second s;
	bool any = false;

	while (ring_pop(&c->ring, &s)) {
		summary_add(&c->sum, &s);
		context(c, &s);
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
	while (!atomic_load_explicit(&run->display_stop, memory_order_acquire)) {
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
