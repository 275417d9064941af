// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * timer_json.c - the timer's JSON result: settings in force, every sample
 * (ns, percentiles, fine histogram), the RTS figures, the three Xenomai
 * histograms; header and trailer (system snapshot, RT record, the time
 * line with each step's context counters) come from results.c.
 */
#include "measure/clock.h"
#include "util/json.h"
#include "harness/results.h"
#include "timer/timer_tlu.h"
#include "timer/timer_json.h"
#include "timer/timer_output.h"
#include "timer/timer_run.h"
#include "timer/timer_summary.h"
#include "timer/timer_wait.h"

static void json_settings(struct json *j, const struct timer_run *run)
{
	const struct timer_config *c = run->cfg;
	int i;

	json_obj_open(j, "settings");
	json_str(j, "test", run->face.test ? run->face.test : "timer");
	results_settings(j, run->opts, NULL);
	json_str(j, "mode_name", timer_mode_names[c->mode]);
	json_str(j, "method", c->mode ? "timerlat" : run->cpu[0].wait.ops->name);
	json_int(j, "device", c->device);	/* a number, as Xenomai's */
	json_int(j, "cpu", run->cpu[0].cpu);	/* the first, as before lists */
	json_arr_open_inline(j, "cpus");
	for (i = 0; i < run->ncpu; i++)
		json_int(j, NULL, run->cpu[i].cpu);
	json_arr_close(j);
	json_int(j, "warmup_s", run->face.no_warmup ? 0 : TIMER_WARMUP_S);
	json_str(j, "msw", "involuntary context switches of the sampling thread");
	json_obj_close(j);
}

static void json_moments(struct json *j, const char *key, const struct stats *s)
{
	json_obj_open(j, key);
	json_int(j, "min_ns", s->n ? s->min : 0);
	json_double(j, "avg_ns", stats_mean(s));
	json_int(j, "max_ns", s->n ? s->max : 0);
	json_double(j, "stddev_ns", stats_stddev(s));
	json_obj_close(j);
}

static void json_seconds(struct json *j, const struct timer_cpu *c)
{
	const struct timer_summary *t = &c->sum;

	json_obj_open(j, "seconds");
	json_uint(j, "count", t->seconds + t->partial);
	json_uint(j, "full", t->seconds);
	json_uint(j, "dropped", c->ring.dropped);
	json_moments(j, "min", &t->sec_min);
	json_moments(j, "avg", &t->sec_avg);
	json_moments(j, "max", &t->sec_max);
	json_obj_close(j);
}

static void json_xeno_hist(struct json *j, const char *key,
			   const struct histogram *h)
{
	uint64_t count, c;
	double avg, sd;
	uint32_t n;

	xeno_hist_stats(h, &count, &avg, &sd);
	json_obj_open(j, key);
	json_uint(j, "samples", count);
	json_double(j, "average_cells", avg);
	json_double(j, "stddev_cells", sd);
	json_uint(j, "overflow", hist_past(h));
	/* [cell, count] rows of non-empty cells; the last takes the overflow. */
	json_arr_open(j, "counts");
	for (n = 0; n < h->l.nlinear; n++) {
		c = xeno_cell(h, n);
		if (!c)
			continue;
		json_arr_open_inline(j, NULL);
		json_uint(j, NULL, n);
		json_uint(j, NULL, c);
		json_arr_close(j);
	}
	json_arr_close(j);
	json_obj_close(j);
}

static void json_histograms(struct json *j, const struct timer_cpu *c)
{
	json_obj_open(j, "histograms");
	json_int(j, "bucket_ns", c->run->cfg->bucket_ns);
	json_int(j, "cells", c->run->cfg->cells);
	json_str(j, "value", "|latency| / bucket_ns");
	json_xeno_hist(j, "min", &c->sum.hmin);
	json_xeno_hist(j, "avg", &c->avg);
	json_xeno_hist(j, "max", &c->sum.hmax);
	json_obj_close(j);
}

static void json_rts(struct json *j, const struct timer_cpu *c,
		     long long actual_s, long long requested_s)
{
	const struct timer_summary *t = &c->sum;

	json_obj_open(j, "summary");
	json_int(j, "min_ns", t->seconds ? t->min : 0);
	json_double(j, "avg_ns", summary_avg(t));
	json_int(j, "max_ns", t->seconds ? t->max : 0);
	/* The jitter, as the design's timer test: max - min. */
	json_int(j, "jitter_ns", t->seconds ? t->max - t->min : 0);
	json_uint(j, "overruns", t->overruns);
	json_uint(j, "msw", t->msw);
	json_int(j, "actual_s", actual_s);
	json_int(j, "requested_s", requested_s);
	if (c->run->cfg->mode)	/* timerlat's, see timer_report_end */
		json_uint(j, "lost_samples", c->tlr.lost);
	json_obj_close(j);
}

/* One CPU's figures (sampler i), or every CPU's folded (the top level,
 * i -1). */
static void json_figures(struct json *j, const struct timer_cpu *c, int i,
			 long long actual_s, long long requested_s)
{
	results_stats(j, "latency", &c->all, NULL);
	json_uint(j, "overruns", c->sum.overruns_end);
	json_uint(j, "msw", c->sum.msw_end);
	json_rts(j, c, actual_s, requested_s);
	json_seconds(j, c);
	json_histograms(j, c);
	if (c->run->face.json)
		c->run->face.json(j, c, i);
}

/* A sampler moved off its CPU: its figures are not the CPU's alone. */
static void json_moved(struct json *j, const struct timer_cpu *c)
{
	char cpus[256];

	if (!c->moved)
		return;
	timer_moved_text(c, cpus, sizeof(cpus));
	json_obj_open(j, "moved");
	json_uint(j, "after_s", c->moved_s);
	json_str(j, "affinity", cpus);
	json_str(j, "why", "the CPU went offline or the sampler was unpinned; the sampler stopped");
	json_obj_close(j);
}

static void json_cpus(struct json *j, const struct timer_run *run,
		      long long actual_s, long long requested_s)
{
	int i;

	json_arr_open(j, "cpus");
	for (i = 0; i < run->ncpu; i++) {
		json_obj_open(j, NULL);
		json_int(j, "cpu", run->cpu[i].cpu);
		json_moved(j, &run->cpu[i]);
		json_figures(j, &run->cpu[i], i, actual_s, requested_s);
		json_obj_close(j);
	}
	json_arr_close(j);
	if (run->ncpu > 1)
		json_int(j, "worst_cpu", timer_worst_cpu(run));
}

int timer_write_json(struct timer_run *run, struct results *res,
		     long long actual_s, long long requested_s, int status)
{
	struct json *j = results_open(res, status);
	int i;

	if (!j)
		return run->cfg->common.json ? -1 : 0;
	json_settings(j, run);
	json_figures(j, run->whole, -1, actual_s, requested_s);
	json_cpus(j, run, actual_s, requested_s);
	tlu_json(j, run);
	/* What the load did is known once it is stopped: a checkpoint (a copy
	 * of the run while it measures) has no "load" yet. */
	if (load_asked(&run->cfg->load) && !run->load_running)
		load_json(j, &run->load_done);
	for (i = 0; i < run->ncpu && !run->cpu[i].error; i++)
		;
	if (run->tl.error[0])
		json_str(j, "error", run->tl.error);
	else if (i < run->ncpu)
		json_str(j, "error", "the wait method failed");
	else if (timer_first_moved(run))
		json_str(j, "error", "a CPU of -c was lost (offline or unpinned): see cpus[].moved");
	for (i = 0; i < run->ncpu && !run->cpu[i].switched; i++)
		;
	if (i < run->ncpu)
		json_str(j, "stopped_by", "-b: involuntary context switch");
	return results_close(res, j);
}
