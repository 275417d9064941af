// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * timer_ckpt.c - --checkpoint for rtlat timer and the cyclictest face: a
 * snapshot of the run (harness/checkpoint.h), written by the face's own
 * writers while the samplers go on.
 */
#include <stdlib.h>
#include <string.h>
#include "measure/clock.h"
#include "harness/checkpoint.h"
#include "timer/cyclic.h"
#include "timer/timer_ckpt.h"
#include "timer/timer_json.h"
#include "timer/timer_output.h"
#include "timer/timer_run.h"

/* What a report reads of a sampler and folds, copied; the rest (its
 * settings) is read where it is; the per-second counters are the time
 * line's (record_json). */
static int cpu_copy(struct timer_cpu *dst, const struct timer_cpu *live)
{
	const struct timer_summary *s = &live->sum;

	*dst = *live;
	memset(&dst->all.hist, 0, sizeof(dst->all.hist));
	memset(&dst->avg, 0, sizeof(dst->avg));
	memset(&dst->sum.hmin, 0, sizeof(dst->sum.hmin));
	memset(&dst->sum.hmax, 0, sizeof(dst->sum.hmax));
	if (checkpoint_stats_copy(&dst->all, &live->all) ||
	    checkpoint_hist_copy(&dst->avg, &live->avg, false) ||
	    checkpoint_hist_copy(&dst->sum.hmin, &s->hmin, false) ||
	    checkpoint_hist_copy(&dst->sum.hmax, &s->hmax, false))
		return -1;
	return 0;
}

static void cpu_copy_free(struct timer_cpu *c)
{
	checkpoint_stats_free(&c->all);
	hist_free(&c->avg);
	hist_free(&c->sum.hmin);
	hist_free(&c->sum.hmax);
}

static void snap_free(struct timer_run *snap, int ncpu)
{
	int i;

	for (i = 0; i < ncpu; i++)
		cpu_copy_free(&snap->cpu[i]);
	if (snap->whole == &snap->merged)
		cpu_copy_free(&snap->merged);
	free(snap->cpu);
}

/* A copy of run, folded as the report folds it; -1: no memory. */
static int snap_take(struct timer_run *snap, const struct timer_run *run)
{
	int i, err = 0;

	*snap = *run;
	snap->cpu = calloc((size_t)run->ncpu, sizeof(*snap->cpu));
	if (!snap->cpu)
		return -1;
	for (i = 0; i < run->ncpu; i++)
		err |= cpu_copy(&snap->cpu[i], &run->cpu[i]);
	/* Several CPUs: the whole is folded into merged, empty until the
	 * report; one CPU: the whole is that CPU. */
	if (run->whole == &run->merged) {
		snap->whole = &snap->merged;
		err |= cpu_copy(&snap->merged, &run->merged);
	} else {
		snap->whole = &snap->cpu[0];
	}
	if (err) {
		snap_free(snap, i);
		return -1;
	}
	timer_fold(snap);
	return 0;
}

void timer_checkpoint_with(struct test_run *t,
			   void (*write)(struct test_run *t, struct timer_run *snap))
{
	const struct timer_run *run = t->state;
	struct timer_run snap;

	/* Nothing measured yet (the warm-up): nothing to write over. */
	if (!run->cpu || !__atomic_load_n(&run->cpu[0].start_ns, __ATOMIC_ACQUIRE))
		return;
	if (snap_take(&snap, run))
		return;
	write(t, &snap);
	snap_free(&snap, snap.ncpu);
}

static void timer_ckpt_write(struct test_run *t, struct timer_run *snap)
{
	long long actual = timer_actual_seconds(snap, clock_now_ns());
	long long requested = snap->cfg->duration_s ? snap->cfg->duration_s : actual;

	if (checkpoint_writes(&t->res.ckpt, snap->cfg->histfile))
		timer_write_histfile(snap);
	if (checkpoint_writes(&t->res.ckpt, snap->cfg->gnuplot))
		timer_write_gnuplot(snap, actual);
	timer_summary(&t->res, snap, t->ops->series[0]);
	timer_write_json(snap, &t->res, actual, requested, 0);
}

void timer_checkpoint(struct test_run *t)
{
	timer_checkpoint_with(t, timer_ckpt_write);
}
