/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * pair_test.h - the pair harness's side of every pair test (pair.c):
 * what a transport's file (transport_*.c) and rtlat sync use.
 */
#ifndef RTLAT_PAIR_TEST_H
#define RTLAT_PAIR_TEST_H

#include "util/opts.h"
#include "harness/test.h"
#include "pair/pair_types.h"

extern const struct opt pair_opts[];
/* The pair tests' rows in the registry (registry.c), rtlat sync's too. */
extern const struct test_ops test_pmq, test_sigwait, test_svsem, test_ptsem;
int pair_check(struct test_run *t);
int pair_setup(struct test_run *t);
int pair_rt_apply(struct test_run *t);
int pair_measure(struct test_run *t);
int pair_report(struct test_run *t, int status);
/* The series whole and per pair, to results_summary (the report's). */
void pair_summary(struct results *res, const struct pair_run *run);
/* --checkpoint (harness/checkpoint.h; pair_ckpt.c). */
void pair_checkpoint(struct test_run *t);
void pair_teardown(struct test_run *t);
long long pair_suite_args(char *buf, size_t len, long long d, long long prio);

/*
 * A pair test's row: struct test_ops NAME = PAIR_TEST("pmq", "pmqtest",
 * "one-line title", &transport, extra_opts, struct foo_config, "-l 200"):
 * the transport's rows store by offset (OPT_AT) into its struct
 * foo_config, which it reads as run->tcfg; the last, the checks' short
 * run (test.h), whose quiet summary is PAIR_CHECK_LINE.
 */
/* What results_summary() reports (rtlat --list). */
extern const char *const pair_series[];

#define PAIR_CHECK_LINE \
	"^#1 -> #0, Min +\\d+, Cur +\\d+, Avg +\\d+, Max +\\d+$"

#define PAIR_TEST(tname, tcompat, ttitle, transport, topts, tcfg, tcheck) \
	{								\
		.name = tname, .compat = tcompat, .title = ttitle,	\
		.family = "pair", .series = pair_series,		\
		.opts = pair_opts, .extra_opts = topts,			\
		.common = OPT_AT_STRUCT(struct pair_config, common),	\
		.cfg_size = sizeof(struct pair_config),			\
		.run_size = sizeof(struct pair_run),			\
		.extra_size = sizeof(tcfg),				\
		.stop = STOP_BY_HANDLER,				\
		.kick = true, .data = transport,			\
		.suite_args = pair_suite_args, .check = pair_check,	\
		.check_args = tcheck, .check_line = PAIR_CHECK_LINE,	\
		.setup = pair_setup, .rt_apply = pair_rt_apply,		\
		.measure = pair_measure, .report = pair_report,		\
		.checkpoint = pair_checkpoint,				\
		.teardown = pair_teardown,				\
	}

#endif
