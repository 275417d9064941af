// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * run_record.c - --timeline and --largest for every test: the automatic
 * --timeline resolved from the run's planned length (over an hour: 1
 * minute; else off, or the test's own short step: the timer's 1 s, which
 * carries its per-second counters), the recorder made,
 * each series and thread registered with its --max-latency threshold.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "measure/clock.h"
#include "measure/record.h"
#include "harness/test.h"

#define RUN_TIMELINE_AUTO_S	60	/* the step of a long run by default */
#define RUN_TIMELINE_LONG_S	3600	/* a long run: over an hour */

/* The value of a row the table binds, or -1 when it has no such row. */
static long long row_value(const struct opt *tbl, const char *name)
{
	const struct opt *o = opts_find(tbl, 0, name);

	return o && o->dest ? *(const long long *)o->dest : -1;
}

const struct opt *run_length_row(const struct opt *tbl)
{
	const struct opt *o;

	for (o = tbl; o->short_name || o->long_name; o++)
		if (o->type == OPT_DURATION &&
		    !(o->long_name && (!strcmp(o->long_name, "timeline") ||
				       !strcmp(o->long_name, "checkpoint"))))
			return o;
	return NULL;
}

/*
 * The planned length in seconds: the test's length row's (-D, the
 * timer's -T); 0 when it runs until stopped (no duration and no loop
 * count); -1 when bounded by a count (-l, request's rounds and samples)
 * and so not known in time.
 */
static long long planned_s(const struct test_run *t)
{
	const struct opt *o = run_length_row(t->opts);
	long long loops = row_value(t->opts, "loops");

	if (!o || !o->dest)
		return -1;
	if (*(const long long *)o->dest > 0)
		return *(const long long *)o->dest;
	return loops > 0 ? -1 : 0;
}

/* A debug knob for the tests of merging (not in --help): the steps kept. */
static uint32_t timeline_cap(void)
{
	const char *s = getenv("RTLAT_TIMELINE_CAP");
	long v = s ? strtol(s, NULL, 10) : 0;

	return v >= 2 && v <= 1000000 ? (uint32_t)v : TL_CAP_DEFAULT;
}

long long run_timeline_default_s(long long planned_s)
{
	return planned_s == 0 || planned_s > RUN_TIMELINE_LONG_S ?
		RUN_TIMELINE_AUTO_S : 0;
}

int run_record_begin(struct test_run *t)
{
	struct test_common *c = t->common;

	if (c->timeline_s == OPT_AUTO) {
		long long p = planned_s(t);

		c->timeline_s = run_timeline_default_s(p);
		if (t->ops->timeline_short_s && p <= RUN_TIMELINE_LONG_S) {
			c->timeline_s = t->ops->timeline_short_s;
			/* A short run's record, not a long run's time line:
			 * no checkpoints unless asked, as before (a run until
			 * stopped keeps them). */
			if (p != 0 && c->checkpoint_s < 0)
				c->checkpoint_s = 0;
		}
	}
	/* No memory: the run goes on unrecorded (null keys). */
	t->rec = record_new(c->timeline_s * NSEC_PER_SEC, timeline_cap(),
			    (uint32_t)c->largest, c->samples != NULL);
	t->res.rec = t->rec;
	if (!c->samples)
		return 0;
	if (!t->rec) {
		fprintf(stderr, "%s: --samples %s: cannot set up: out of memory\n",
			t->prog, c->samples);
		return -1;
	}
	FILE *f = outfile_open(&t->smp_out, t->prog, "--samples", c->samples);

	if (!f)
		return -1;
	t->smp_open = true;
	if (record_samples(t->rec, f, t->ops->name)) {
		fprintf(stderr, "%s: --samples %s: cannot set up: out of memory\n",
			t->prog, c->samples);
		return -1;
	}
	return 0;
}

int run_samples_end(struct test_run *t, int status, bool discard)
{
	if (!t->smp_open)
		return status;
	t->smp_open = false;
	if (discard) {
		outfile_discard(&t->smp_out);
		return status;
	}
	/* Every ring emptied and the end block written first. */
	record_stop(t->rec);
	if (outfile_close(&t->smp_out, t->prog))
		return 1;
	return status;
}

struct rec_series *run_record(struct test_run *t, const char *series,
			      int thread, int cpu)
{
	struct fleet_rec r;
	struct rec_series *rs;
	long long lat_us = 0, p99_us = 0;

	if (!t->rec)
		return NULL;
	memset(&r, 0, sizeof(r));
	snprintf(r.test, sizeof(r.test), "%s", t->ops->name);
	snprintf(r.series, sizeof(r.series), "%s", series);
	r.thread = thread;
	r.cpu = cpu;
	if (t->res.fleet)
		fleet_limits(t->res.fleet, &r, &lat_us, &p99_us);
	rs = record_series(t->rec, t->ops->name, series, thread, cpu,
			   lat_us > 0 ? lat_us * NSEC_PER_USEC : INT64_MAX);
	/* --on-threshold: the measuring thread notes what exceeds it. */
	if (rs && t->act_spec.buf && lat_us > 0)
		rs->alarm_ns = lat_us * NSEC_PER_USEC;
	return rs;
}
