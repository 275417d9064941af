// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * fleet_end.c - the verdict's lines, the fleet outputs (JUnit,
 * OpenMetrics, LAVA: fleet_out.c) and the final exit status. Above
 * fleet_verdict.c and fleet_out.c, which both judge through fleet_judge(fl, ).
 */
#include <stdbool.h>
#include <stdio.h>
#include "fleet/fleet.h"

/* "pmq/latency", or a thread's "pmq/latency t1 (CPU 0)". */
static void rec_name(char *buf, size_t len, const struct fleet_rec *r)
{
	int n = snprintf(buf, len, "%s/%s", r->test, r->series);

	if (r->thread >= 0 && n > 0 && (size_t)n < len)
		n += snprintf(buf + n, len - n, " t%d", r->thread);
	if (r->thread >= 0 && r->cpu >= 0 && n > 0 && (size_t)n < len)
		snprintf(buf + n, len - n, " (CPU %d)", r->cpu);
}

static void print_baseline(const struct fleet *fl, const char *prog, const char *name,
			   const struct fleet_rec *r, const struct fleet_judged *v)
{
	if (v->base_ns >= 0)
		fprintf(stderr, "%s: %s: worst %.3f us, baseline %.3f us\n",
			prog, name, v->worst_ns / 1e3, v->base_ns / 1e3);
	else if (fl->opts->baseline && r->thread < 0)
		fprintf(stderr, "%s: %s: not in the baseline, not judged against it\n",
			prog, name);
}

/*
 * One line per series or thread that failed, and one for the whole. A
 * series measured by one thread (one pair, one CPU) is that thread: its
 * part is judged for the fleet outputs but not said twice here. A run
 * that ended with an error (exit status 1: a worker failed) is an ERROR,
 * as in JUnit, whatever its figures: never a PASS.
 */
static void print_verdict(const struct fleet *fl, const char *prog, bool judged,
			  int status)
{
	const char *err = status == 1 ? "the run ended with an error; " : "";
	struct fleet_judged v;
	int i, nser = 0, failed = 0, nthr = 0, threads = 0;
	char name[96];

	for (i = 0; i < fleet_count(fl); i++) {
		const struct fleet_rec *r = fleet_get(fl, i);

		if (r->thread >= 0 && fleet_threads(fl, r) < 2)
			continue;
		fleet_judge(fl, i, &v);
		rec_name(name, sizeof(name), r);
		if (!r->n)
			fprintf(stderr, "%s: %s: %s, not judged\n", prog, name,
				FLEET_NO_SAMPLE);
		else
			print_baseline(fl, prog, name, r, &v);
		nser += r->thread < 0;
		nthr += r->thread >= 0;
		if (!v.failure)
			continue;
		if (r->thread < 0)
			failed++;
		else
			threads++;
		fprintf(stderr, "%s: %s: FAIL: %s\n", prog, name, v.why);
	}
	if (judged && !fleet_measured(fl))
		fprintf(stderr, "%s: verdict: %s (%sno series was measured)\n", prog,
			*err ? "ERROR" : "none", err);
	else if (judged && nthr)
		fprintf(stderr, "%s: verdict: %s (%s%d of %d series and %d of %d threads failed)\n",
			prog, *err ? "ERROR" : failed || threads ? "FAIL" : "PASS",
			err, failed, nser, threads, nthr);
	else if (judged)
		fprintf(stderr, "%s: verdict: %s (%s%d of %d series failed)\n", prog,
			*err ? "ERROR" : failed ? "FAIL" : "PASS", err, failed, nser);
}

int fleet_kept(const struct fleet *fl, const char *prog, int status)
{
	if (!fl->lost)
		return status;
	fprintf(stderr, "%s: %d records of the run could not be kept (out of memory): not judged\n",
		prog, fl->lost);
	return 1;
}

int fleet_end(struct fleet *fl, const char *prog, int status)
{
	const struct fleet_opts *o = fl->opts;
	bool judged;

	if (!o)
		return status;
	judged = o->max_latency || o->max_p99 || o->baseline;
	status = fleet_kept(fl, prog, status);
	if (judged || fleet_exceeded(fl))
		print_verdict(fl, prog, judged, status);
	if (o->junit && fleet_write_junit(fl, prog, o->junit, fleet_elapsed(fl), status))
		status = 1;
	if (o->openmetrics && fleet_write_openmetrics(fl, prog, o->openmetrics))
		status = 1;
	if (o->lava) {
		fflush(stdout);
		fleet_print_lava(fl, stdout, fl->test, status);
		fflush(stdout);
	}
	if (!status && fleet_exceeded(fl))
		status = 3;
	return status;
}
