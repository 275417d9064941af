// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * main.c - rtlat's entry: "rtlat SUBCOMMAND ..." for every test in the
 * registry (registry.c) and the suite, or a test's compatible name (argv[0]
 * basename: pmqtest, latency, ...) that behaves as that test.
 */
#include <stdio.h>
#include <string.h>
#include "manpage.h"
#include "util/opts.h"
#include "harness/test.h"
#include "suite/suite.h"
#include "registry.h"

static void usage(FILE *f)
{
	int i;

	fprintf(f, "usage: rtlat SUBCOMMAND [OPTIONS]   (rtlat SUBCOMMAND --help)\n"
		"       rtlat --version | --list | --list-plain | --list-compat | --completion | --man NAME\n\n");
	for (i = 0; tests[i]; i++)
		fprintf(f, "  %-9s %s%s%s%s\n", tests[i]->name, tests[i]->title,
			tests[i]->compat ? " (as " : "",
			tests[i]->compat ? tests[i]->compat : "",
			tests[i]->compat ? ")" : "");
	fprintf(f, "  %-9s %s\n", "suite", suite_title);
	fprintf(f, "  %-9s %s\n", "qualify", qualify_title);
}

/* rtlat --list-compat: the names "make install-compat" links. */
static void list_compat(void)
{
	int i;

	for (i = 0; tests[i]; i++)
		if (tests[i]->compat)
			printf("%s\n", tests[i]->compat);
}

static void unknown(const char *what)
{
	int i;

	fprintf(stderr, "rtlat: unknown subcommand '%s'; accepted: ", what);
	for (i = 0; tests[i]; i++)
		fprintf(stderr, "%s, ", tests[i]->name);
	fprintf(stderr, "suite, qualify\n");
}

/* Global options; -1 when argv[1] is none. */
static int global_option(const char *arg)
{
	if (!strcmp(arg, "-h") || !strcmp(arg, "--help"))
		usage(stdout);
	else if (!strcmp(arg, "--version"))
		opts_version(stdout);
	else if (!strcmp(arg, "--list-compat"))
		list_compat();
	else if (!strcmp(arg, "--list"))
		tests_list_json(stdout);
	else if (!strcmp(arg, "--list-plain"))
		tests_list_plain(stdout);
	else
		return -1;
	return 0;
}

int main(int argc, char **argv)
{
	const char *me = run_base_name(argv[0]);
	static char prog[64];
	const struct test_ops *t;
	int i;

	for (i = 0; tests[i]; i++)
		if (tests[i]->compat && !strcmp(me, tests[i]->compat))
			return run_test(tests[i], argc, argv);
	if (argc < 2) {
		usage(stderr);
		return OPTS_EXIT_USAGE;
	}
	if (!strcmp(argv[1], "--man") || !strcmp(argv[1], "--completion"))
		return manpage_main(argc, argv);
	if (global_option(argv[1]) == 0)
		return 0;
	t = test_find(argv[1]);
	if (!t && strcmp(argv[1], "suite") != 0 && strcmp(argv[1], "qualify") != 0) {
		unknown(argv[1]);
		return OPTS_EXIT_USAGE;
	}
	/* Messages and the recorded command line say "rtlat pmq". */
	snprintf(prog, sizeof(prog), "rtlat %s", argv[1]);
	argv[1] = prog;
	if (t)
		return run_test(t, argc - 1, argv + 1);
	if (!strcmp(argv[1] + strlen("rtlat "), "qualify"))
		return qualify_main(&registry, argc - 1, argv + 1);
	return suite_main(&registry, argc - 1, argv + 1);
}
