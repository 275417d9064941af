// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * doctor.c - "rtlat doctor": the preflight checks (src/system/preflight.c)
 * with a verdict and a fix each. Exit 0 when nothing prevents real-time
 * work, 1 otherwise. The checks run in setup, before rtlat's own
 * real-time settings (mlockall, cpu_dma_latency) are applied.
 */
#include <stdio.h>
#include "util/json.h"
#include "system/preflight.h"
#include "harness/results.h"
#include "harness/test.h"
#include "system/tracefs.h"
#include "doctor/doctor_context.h"
#include "doctor/doctor_test.h"

/* What results_summary() reports (rtlat --list). */
static const char *const doctor_series[] = { NULL };

struct doctor_config {
	struct test_common common;
	struct cpu_list cpus;
};

#define DOCTOR_NITEMS (PF_NITEMS + DOCTOR_CTX_NITEMS + 1)

/* One run: the checks (the system's, then where it runs: container and
 * guest, then the busy real-time tasks) and their worst verdict
 * (t->state). */
struct doctor_run {
	struct pf_item items[DOCTOR_NITEMS];
	enum verdict worst;
};

static const struct opt doctor_opts[] = {
	{ .short_name = 'c', .long_name = "cpus", .type = OPT_CPU_LIST,
	  .arg = OPT_ARG_REQUIRED, .argname = "LIST",
	  .dest = OPT_AT(struct doctor_config, cpus),
	  .help = "the CPUs a test will measure on (\"1\", \"2-3\"): the doctor checks that the cpuset it got holds them",
	  .key = "cpus" },
	TEST_COMMON_OPTS(OPT_AT_STRUCT(struct doctor_config, common),
			 "write the checks to FILE as JSON"),
	{ .long_name = "help", .type = OPT_HELP, .arg = OPT_ARG_NONE,
	  .help = "print this help" },
	OPT_END
};

static int doctor_setup(struct test_run *t)
{
	struct doctor_run *d = t->state;
	const struct doctor_config *cfg = t->cfg;
	struct doctor_want want = { cfg->cpus.cpu, cfg->cpus.n > 0 ? cfg->cpus.n : 0 };
	enum verdict ctx;
	char why[256];

	/* The tracing check reads tracefs: mounted here where it is not. */
	tracefs_need(t->prog, why, sizeof(why));
	d->worst = preflight_run(d->items);
	ctx = doctor_context_run(d->items + PF_NITEMS, &want);
	if (ctx > d->worst)
		d->worst = ctx;
	doctor_hogs_check(&d->items[PF_NITEMS + DOCTOR_CTX_NITEMS], &want);
	if (d->items[PF_NITEMS + DOCTOR_CTX_NITEMS].verdict > d->worst)
		d->worst = d->items[PF_NITEMS + DOCTOR_CTX_NITEMS].verdict;
	/* Nothing is measured: rtlat's own real-time settings stay off. */
	t->common->no_mlock = true;
	t->common->no_dma_latency = true;
	return 0;
}

static int doctor_measure(struct test_run *t)
{
	(void)t;
	return 0;
}

static int doctor_report(struct test_run *t, int status)
{
	struct doctor_run *d = t->state;
	struct json *j;

	preflight_print_n(stdout, d->items, DOCTOR_NITEMS);
	printf("verdict: %s\n", verdict_names[d->worst]);
	fflush(stdout);
	if (d->worst == V_PREVENTS)
		status = 1;
	j = results_open(&t->res, status);
	if (j) {
		json_str(j, "verdict", verdict_names[d->worst]);
		preflight_json_n(j, "checks", d->items, DOCTOR_NITEMS);
		if (results_close(&t->res, j))
			status = 1;
	} else if (t->common->json) {
		status = 1;
	}
	return status;
}

const struct test_ops test_doctor = {
	.name = "doctor",
	.title = "check the system for what adds latency or prevents real-time work",
	.family = "doctor", .series = doctor_series,
	.opts = doctor_opts,
	.common = OPT_AT_STRUCT(struct doctor_config, common),
	.cfg_size = sizeof(struct doctor_config),
	.run_size = sizeof(struct doctor_run),
	.stop = STOP_BY_HANDLER,
	.check_args = "",
	.check_line = "^RLIMIT_RTPRIO / capabilities +\\w",
	.setup = doctor_setup,
	.measure = doctor_measure,
	.report = doctor_report,
};
