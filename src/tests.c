// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * tests.c - the registry: every test rtlat has, in the order --help lists
 * them and rtlat suite runs them. main.c dispatches from it (subcommand
 * and compatible name), rtlat suite takes its tests and their short
 * arguments from it, and "make install-compat" its compatible names
 * (rtlat --list-compat); rtlat --list writes it as JSON, which the
 * suite leaves beside its results and the tests and rtlat-report read.
 * A new test is one folder and one row here.
 */
#include <stdio.h>
#include <string.h>
#include "core/json.h"
#include "harness/test.h"

extern const struct test_ops test_pmq, test_sigwait, test_svsem, test_ptsem;
extern const struct test_ops test_timer, test_cyclictest, test_request;
extern const struct test_ops test_bintime, test_response, test_sync;
extern const struct test_ops test_doctor;

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
	NULL,
};

const struct test_ops *test_find(const char *name)
{
	int i;

	for (i = 0; tests[i]; i++)
		if (!strcmp(tests[i]->name, name))
			return tests[i];
	return NULL;
}

static void list_one(struct json *j, const struct test_ops *t, int order)
{
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
	/* Its place in rtlat suite, or null: the suite does not run it. */
	if (t->suite_args)
		json_int(j, "suite_order", order);
	else
		json_null(j, "suite_order");
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
