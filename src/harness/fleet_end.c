// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * fleet_end.c - the verdict's lines, the fleet outputs (JUnit,
 * OpenMetrics, LAVA: fleet_out.c) and the final exit status. Above
 * fleet_verdict.c and fleet_out.c, which both judge through fleet_judge().
 */
#include <stdbool.h>
#include <stdio.h>
#include "harness/fleet.h"

/* One line per series that failed, and one for the whole when judged. */
static void print_verdict(const char *prog, bool judged)
{
	struct fleet_judged v;
	int i, failed = 0;

	for (i = 0; i < fleet_count(); i++) {
		fleet_judge(i, &v);
		if (v.base_ns >= 0)
			fprintf(stderr, "%s: %s/%s: worst %.3f us, baseline %.3f us\n",
				prog, fleet_get(i)->test, fleet_get(i)->series,
				v.worst_ns / 1e3, v.base_ns / 1e3);
		else if (fleet_opts()->baseline)
			fprintf(stderr, "%s: %s/%s: not in the baseline, not judged against it\n",
				prog, fleet_get(i)->test, fleet_get(i)->series);
		if (!v.failure)
			continue;
		failed++;
		fprintf(stderr, "%s: %s/%s: FAIL: %s\n", prog, fleet_get(i)->test,
			fleet_get(i)->series, v.why);
	}
	if (judged && !fleet_count())
		fprintf(stderr, "%s: verdict: none (no series was measured)\n", prog);
	else if (judged)
		fprintf(stderr, "%s: verdict: %s (%d of %d series failed)\n", prog,
			failed ? "FAIL" : "PASS", failed, fleet_count());
}

int fleet_end(const char *prog, int status)
{
	const struct fleet_opts *o = fleet_opts();
	bool judged;

	if (!o)
		return status;
	judged = o->max_latency_us || o->max_p99_us || o->baseline;
	if (judged || fleet_exceeded())
		print_verdict(prog, judged);
	if (o->junit && fleet_write_junit(prog, o->junit, fleet_elapsed_s(), status))
		status = 1;
	if (o->openmetrics && fleet_write_openmetrics(prog, o->openmetrics))
		status = 1;
	if (o->lava) {
		fflush(stdout);
		fleet_print_lava(stdout, fleet_test(), status);
		fflush(stdout);
	}
	if (!status && fleet_exceeded())
		status = 3;
	return status;
}
