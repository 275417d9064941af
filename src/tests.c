// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * tests.c - the registry: every test rtlat has, in the order --help lists
 * them and rtlat suite runs them. main.c dispatches from it (subcommand
 * and compatible name), rtlat suite takes its tests and their short
 * arguments from it, and "make install-compat" its compatible names
 * (rtlat --list-compat). A new test is one file and one row here.
 */
#include <string.h>
#include "harness/test.h"

extern const struct test_ops test_pmq, test_sigwait, test_svsem, test_ptsem;
extern const struct test_ops test_timer, test_request;
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
