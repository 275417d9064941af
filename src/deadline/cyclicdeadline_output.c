// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * cyclicdeadline_output.c - the cyclicdeadline face's text, in rt-tests
 * cyclicdeadline 2.40's layout: each thread's id and parameters, the
 * main thread's, and a T: line per thread (redrawn on a terminal, once
 * at the end otherwise and with -q). Figures in us, truncated, from the
 * seconds the display thread folded.
 */
#include <stdio.h>
#include <unistd.h>
#include "measure/clock.h"
#include "deadline/deadline.h"

static long long us(double ns)
{
	return (long long)(ns / NSEC_PER_USEC);
}

static void t_line(FILE *f, const struct timer_cpu *c)
{
	const struct timer_summary *s = &c->sum;
	uint64_t n = s->samples;

	fprintf(f, "T:%2d (%5d) I:%lld C:%7llu Min:%7lld Act:%5lld Avg:%5lld Max:%8lld\n",
		(int)(c - c->run->cpu), __atomic_load_n(&c->tid, __ATOMIC_ACQUIRE),
		(long long)(c->plan.period_ns / NSEC_PER_USEC), (unsigned long long)n,
		n ? us((double)s->min) : 0, n ? us((double)s->last) : 0,
		n ? us(s->lat_sum / (double)n) : 0, n ? us((double)s->max) : 0);
}

/* Once every thread has its id: the lines the original's threads and
 * main print as they start. */
static void announce(struct dl_run *run)
{
	int i;

	if (run->announced)
		return;
	for (i = 0; i < run->t.ncpu; i++)
		if (!__atomic_load_n(&run->t.cpu[i].tid, __ATOMIC_ACQUIRE))
			return;
	for (i = 0; i < run->t.ncpu; i++)
		printf("deadline thread %d\n", run->t.cpu[i].tid);
	for (i = 0; i < run->t.ncpu; i++)
		printf("thread[%d] runtime=%lldus deadline=%lldus\n", run->t.cpu[i].tid,
		       (long long)(run->th[i].runtime_ns / NSEC_PER_USEC),
		       (long long)(run->th[i].deadline_ns / NSEC_PER_USEC));
	printf("main thread %d\n", (int)getpid());
	fflush(stdout);
	run->announced = true;
}

static void block(struct dl_run *run)
{
	int i;

	if (run->drawn)
		printf("\033[%dA", run->t.ncpu);
	for (i = 0; i < run->t.ncpu; i++)
		t_line(stdout, &run->t.cpu[i]);
	run->drawn = true;
	fflush(stdout);
}

void cd_draw(struct timer_run *tr, bool final)
{
	struct dl_run *run = (struct dl_run *)tr;

	announce(run);
	if (final || !run->announced || tr->cfg->quiet || !isatty(STDOUT_FILENO) ||
	    !tr->cpu[0].sum.samples)
		return;
	block(run);
}

void cd_final(struct timer_run *tr)
{
	struct dl_run *run = (struct dl_run *)tr;

	announce(run);
	block(run);
}
