// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * fleet_lava.c - LAVA's lava-test-case lines of the series kept in
 * fleet.c (--lava), one per series and thread, failed where rtlat judged
 * it so or could not measure it.
 */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include "fleet/fleet.h"

/*
 * lava-test-case NAME --result pass|fail --measurement X --units us: a
 * series' maximum carries the --max-latency and --baseline verdict, its
 * p99 the --max-p99 one; min, avg and p99.99 are measurements no option
 * judges. A series whole is TEST-SERIES-FIGURE, a thread's part (a pair,
 * a CPU's sampler) TEST-t<N>-FIGURE-latency: unique across the tests of
 * one LAVA job. Each has a case without a measurement too, TEST-SERIES
 * and TEST-t<N>-latency, that carries its verdict: SQUAD's LAVA backend
 * and test-runner's push keep a measured case as a metric only, so the
 * verdict reaches them as a test. Started under an rt-tests name
 * (pmqtest, cyclictest), the thread's cases are rt-tests' definitions'
 * t<N>-FIGURE-latency (min, avg, p99, max) and nothing more.
 */
static void lava_case(FILE *f, const char *id, bool failed, bool measured,
		      double us)
{
	if (!measured && failed)
		fprintf(f, "lava-test-case %s --result fail\n", id);
	else if (!measured)
		fprintf(f, "lava-test-case %s --result skip\n", id);
	else if (us < 0)
		fprintf(f, "lava-test-case %s --result %s\n", id,
			failed ? "fail" : "pass");
	else
		fprintf(f, "lava-test-case %s --result %s --measurement %.3f --units us\n",
			id, failed ? "fail" : "pass", us);
}

static void lava_rec(const struct fleet *fl, FILE *f, int i)
{
	static const char *const name[] = { "min", "avg", "p99", "p9999", "max" };
	const struct fleet_rec *r = fleet_get(fl, i);
	const double fig[] = { (double)r->min, r->avg, (double)r->p99,
			       (double)r->p9999, (double)r->max };
	bool p99_failed, max_failed;
	struct fleet_judged v;
	char id[96];
	int k;

	/* Nothing measured: the cases are there, skipped, with no
	 * measurement; lava-test-case has no room for a reason, so it is the
	 * comment line before them, in the job's log. */
	fleet_judge(fl, i, &v);
	if (v.error && r->thread < 0)
		fprintf(f, "# %s-%s: error: %s\n", r->test, r->series, v.error);
	else if (v.error)
		fprintf(f, "# %s-%s t%d: error: %s\n", r->test, r->series, r->thread,
			v.error);
	else if (!r->n && r->thread < 0)
		fprintf(f, "# %s-%s: skip: %s\n", r->test, r->series, FLEET_NO_SAMPLE);
	else if (!r->n)
		fprintf(f, "# %s-%s t%d: skip: %s\n", r->test, r->series, r->thread,
			FLEET_NO_SAMPLE);
	p99_failed = v.failed & FLEET_FAILED_P99;
	max_failed = v.failed & (FLEET_FAILED_MAX | FLEET_FAILED_BASE);
	for (k = 0; k < 5; k++) {
		if (r->thread >= 0 && fl->rt_tests_names && k == 3)
			continue;
		if (r->thread < 0)
			snprintf(id, sizeof(id), "%s-%s-%s", r->test, r->series, name[k]);
		else if (fl->rt_tests_names)
			snprintf(id, sizeof(id), "t%d-%s-latency", r->thread, name[k]);
		else
			snprintf(id, sizeof(id), "%s-t%d-%s-latency", r->test, r->thread,
				 name[k]);
		lava_case(f, id, v.error || (k == 2 && p99_failed) || (k == 4 && max_failed),
			  r->n, fig[k] / 1e3);
	}
	if (r->thread >= 0 && fl->rt_tests_names)
		return;
	if (r->thread < 0)
		snprintf(id, sizeof(id), "%s-%s", r->test, r->series);
	else
		snprintf(id, sizeof(id), "%s-t%d-latency", r->test, r->thread);
	lava_case(f, id, v.error || v.failure, r->n, -1);
}

void fleet_print_lava(const struct fleet *fl, FILE *f, const char *test,
		      int status)
{
	int i;

	for (i = 0; i < fleet_count(fl); i++)
		lava_rec(fl, f, i);
	/* The run itself: fail on an error, on nothing measured, and on a
	 * threshold or baseline exceeded (as the exit status 3). */
	fprintf(f, "lava-test-case %s-run --result %s\n", test,
		status == 1 || !fleet_measured(fl) || fleet_exceeded(fl) ? "fail" : "pass");
}
