// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * registry.c - the registry: every test rtlat has, in the order --help lists
 * them and rtlat suite runs them. main.c dispatches from it (subcommand
 * and compatible name), rtlat suite takes its tests and their short
 * arguments from it, and "make install-compat" its compatible names
 * (rtlat --list-compat). rtlat --list writes every row as JSON, which
 * the suite leaves beside its results and every other list reads: the
 * pytest files, make cross-check, the autopkgtest, the kernel stage and
 * rtlat-report (shell scripts: rtlat --list-plain). A new test is one
 * folder and one row here; tests/test_main.py alone lists them by hand.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "util/json.h"
#include "bintime/bintime_test.h"
#include "deadline/deadline_test.h"
#include "doctor/doctor_test.h"
#include "hwlat/hwlat_test.h"
#include "pair/pair_test.h"
#include "request/request_test.h"
#include "response/response_test.h"
#include "sync/sync_test.h"
#include "timer/timer_test.h"
#include "registry.h"

const struct test_ops *const tests[] = {
	&test_pmq,
	&test_sigwait,
	&test_svsem,
	&test_ptsem,
	&test_timer,
	&test_request,
	&test_bintime,
	&test_response,
	&test_sync,
	&test_doctor,
	&test_cyclictest,
	&test_deadline,
	&test_cyclicdeadline,
	&test_hwlat,
	&test_osnoise,
	NULL,
};

const struct suite_registry registry = {
	.tests = tests,
	.list_json = tests_list_json,
};

const struct test_ops *test_find(const char *name)
{
	int i;

	for (i = 0; tests[i]; i++)
		if (!strcmp(tests[i]->name, name))
			return tests[i];
	return NULL;
}

/* The suite's arguments for t at its defaults (--duration, -p). */
static const char *suite_args_default(const struct test_ops *t, char *buf, size_t len)
{
	struct opt *tbl = suite_options(NULL, tests);

	buf[0] = '\0';
	if (!tbl)	/* out of memory: no arguments said */
		return buf;
	t->suite_args(buf, len, opts_find(tbl, 0, "duration")->dflt,
		      opts_find(tbl, 'p', NULL)->dflt);
	free(tbl);
	return buf;
}

/*
 * The option that sets how long t runs, "-D" or "-T" (buf), or NULL: its
 * table's first duration-typed option (request's length is its rounds).
 * Scripts that run any test for a time (lava/rtlat.sh) read it here.
 */
static const char *length_option(const struct test_ops *t, char *buf, size_t len)
{
	const struct opt *o = run_length_row(t->opts);

	if (!o)
		return NULL;
	if (o->short_name)
		snprintf(buf, len, "-%c", o->short_name);
	else
		snprintf(buf, len, "--%s", o->long_name);
	return buf;
}

static void list_one(struct json *j, const struct test_ops *t, int order)
{
	char buf[256];
	const char *length;
	int k;

	json_obj_open(j, NULL);
	json_str(j, "name", t->name);
	if (t->compat)
		json_str(j, "compat", t->compat);
	else
		json_null(j, "compat");
	json_str(j, "title", t->title);
	json_str(j, "family", t->family);
	json_bool(j, "explain", opts_find(t->opts, 0, "explain") != NULL);
	json_arr_open_inline(j, "series");
	for (k = 0; t->series && t->series[k]; k++)
		json_str(j, NULL, t->series[k]);
	json_arr_close(j);
	/* Its place in rtlat suite and its arguments there at the suite's
	 * defaults, or null: the suite does not run it. */
	if (t->suite_args) {
		json_int(j, "suite_order", order);
		json_str(j, "suite_args", suite_args_default(t, buf, sizeof(buf)));
	} else {
		json_null(j, "suite_order");
		json_null(j, "suite_args");
	}
	length = length_option(t, buf, sizeof(buf));
	if (length)
		json_str(j, "length_option", length);
	else
		json_null(j, "length_option");
	json_str(j, "check_args", t->check_args);
	json_str(j, "check_line", t->check_line);
	json_obj_close(j);
}

void tests_list_json(FILE *f)
{
	struct json j;
	int i, order = 0;

	json_init(&j, f);
	json_obj_open(&j, NULL);
	json_int(&j, "registry_version", 1);
	json_arr_open(&j, "tests");
	for (i = 0; tests[i]; i++)
		list_one(&j, tests[i], tests[i]->suite_args ? order++ : -1);
	json_arr_close(&j);
	json_obj_close(&j);
	fputc('\n', f);
}

/*
 * rtlat --list-plain: the registry for shell scripts, a test a line:
 * "NAME FAMILY SUITE_ORDER LENGTH_OPTION CHECK_ARGS...", SUITE_ORDER "-"
 * where the suite does not run it, LENGTH_OPTION "-" where no option sets
 * how long it runs (read -r name family order length args).
 */
void tests_list_plain(FILE *f)
{
	char buf[64];
	const char *length;
	int i, order = 0;

	for (i = 0; tests[i]; i++) {
		fprintf(f, "%s %s ", tests[i]->name, tests[i]->family);
		if (tests[i]->suite_args)
			fprintf(f, "%d", order++);
		else
			fputc('-', f);
		length = length_option(tests[i], buf, sizeof(buf));
		fprintf(f, " %s", length ? length : "-");
		fprintf(f, "%s%s\n", *tests[i]->check_args ? " " : "", tests[i]->check_args);
	}
}
