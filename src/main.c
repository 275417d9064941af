// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * main.c - rtlat's entry: "rtlat SUBCOMMAND ..." or a compatible name
 * (argv[0] basename: pmqtest, sigwaittest, svsematest, ptsematest,
 * latency, trltp) that behaves as that subcommand.
 */
#include <stdio.h>
#include <string.h>
#include "opts.h"
#include "subcommands.h"

struct subcommand {
	const char *name;
	const char *compat;
	int (*main)(int argc, char **argv);
	const char *what;
};

static const struct subcommand subcommands[] = {
	{ "pmq", "pmqtest", pmq_main, "POSIX message queue hand-off latency" },
	{ "sigwait", "sigwaittest", sigwait_main, "signal to sigwait latency" },
	{ "svsem", "svsematest", svsem_main, "System V semaphore hand-off latency" },
	{ "ptsem", "ptsematest", ptsem_main, "pthread mutex / POSIX semaphore hand-off latency" },
	{ "timer", "latency", timer_main, "periodic timer wake-up latency (Xenomai latency)" },
	{ "request", "trltp", request_main, "two-way request latency over TCP with load" },
	{ "suite", NULL, suite_main, "every test with short defaults, one table" },
	{ NULL, NULL, NULL, NULL },
};

static void usage(FILE *f)
{
	const struct subcommand *s;

	fprintf(f, "usage: rtlat SUBCOMMAND [OPTIONS]   (rtlat SUBCOMMAND --help)\n\n");
	for (s = subcommands; s->name; s++)
		fprintf(f, "  %-9s %s%s%s%s\n", s->name, s->what,
			s->compat ? " (as " : "", s->compat ? s->compat : "",
			s->compat ? ")" : "");
}

static const char *base_name(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash ? slash + 1 : path;
}

int main(int argc, char **argv)
{
	const char *me = base_name(argv[0]);
	static char prog[64];
	const struct subcommand *s;

	for (s = subcommands; s->name; s++)
		if (s->compat && !strcmp(me, s->compat))
			return s->main(argc, argv);
	if (argc < 2) {
		usage(stderr);
		return OPTS_EXIT_USAGE;
	}
	if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")) {
		usage(stdout);
		return 0;
	}
	for (s = subcommands; s->name; s++) {
		if (strcmp(argv[1], s->name) != 0)
			continue;
		/* Messages and the recorded command line say "rtlat pmq". */
		snprintf(prog, sizeof(prog), "rtlat %s", s->name);
		argv[1] = prog;
		return s->main(argc - 1, argv + 1);
	}
	fprintf(stderr, "rtlat: unknown subcommand '%s'; accepted: pmq, sigwait, svsem, ptsem, timer, request, suite\n",
		argv[1]);
	return OPTS_EXIT_USAGE;
}
