// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * cyclicdeadline_output.c - the cyclicdeadline face's text, in rt-tests
 * cyclicdeadline 2.40's layout: each thread's id and parameters, the
 * main thread's, and a T: line per thread (redrawn on a terminal, once
 * at the end otherwise and with -q). Figures in us, truncated, from the
 * seconds the display thread folded. Its --json as the original's
 * rt_write_json writes it: num_threads, resolution_in_ns and thread.N's
 * cycles, min, max (us) and avg (us, two decimals), from every sample;
 * rtlat's ns figures beside them.
 */
#include <math.h>
#include <stdio.h>
#include <unistd.h>
#include "measure/clock.h"
#include "util/json.h"
#include "harness/results.h"
#include "harness/test.h"
#include "deadline/deadline.h"

/* The rt-tests release whose layout the face writes (rt_test_version:). */
#define CD_RT_TESTS_VERSION "2.40"

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

static void json_thread(struct json *j, const struct timer_cpu *c)
{
	const struct stats *a = &c->all;
	char key[24];

	snprintf(key, sizeof(key), "%d", (int)(c - c->run->cpu));
	json_obj_open(j, key);
	json_uint(j, "cycles", a->n);
	json_int(j, "min", a->n ? us((double)a->min) : 0);
	json_int(j, "max", a->n ? us((double)a->max) : 0);
	json_double(j, "avg", round(stats_mean(a) / NSEC_PER_USEC * 100.0) / 100.0);
	/* rtlat's own, at full resolution (the original's readers skip them). */
	json_int(j, "min_ns", a->n ? a->min : 0);
	json_double(j, "avg_ns", stats_mean(a));
	json_int(j, "max_ns", a->n ? a->max : 0);
	json_obj_close(j);
}

int cd_json(struct test_run *t, struct dl_run *run, int status)
{
	struct json *j;
	int i;

	t->res.format_version = CD_RT_TESTS_VERSION;
	j = results_open(&t->res, status);
	if (!j)
		return run->t.cfg->common.json ? -1 : 0;
	json_int(j, "num_threads", run->t.ncpu);
	json_int(j, "resolution_in_ns", 0);
	json_obj_open(j, "thread");
	for (i = 0; i < run->t.ncpu; i++)
		json_thread(j, &run->t.cpu[i]);
	json_obj_close(j);
	return results_close(&t->res, j);
}
