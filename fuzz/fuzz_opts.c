// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * fuzz_opts.c - libFuzzer harness for the option parser, over every
 * subcommand's table: the registry's tests (src/registry.c) and rtlat suite.
 *
 * Input: byte 0 picks the table; the rest, split at NUL bytes, is argv.
 * The parser runs on a private copy of the table where --help and
 * --version are plain flags (they would exit) and output paths are plain strings (checking them
 * creates and removes files: fuzz input must not write anywhere; the
 * integration tests cover those checks). After a successful parse every
 * given number must lie in its table's range.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "util/opts.h"
#include "harness/test.h"
#include "suite/suite.h"
#include "registry.h"

#define MAX_ARGS 24

static bool help_seen;
static const struct opt empty[] = { OPT_END };

/* A test's rows bound by offset store into cfg, as in run_test. */
static struct opt *private_table(const struct opt *a, void *cfg, const struct opt *b,
				 void *extra)
{
	struct opt *t = opts_bind(a, cfg, b ? b : empty, extra);
	int i;

	for (i = 0; t && (t[i].short_name || t[i].long_name); i++) {
		if (t[i].type == OPT_HELP || t[i].type == OPT_VERSION) {
			t[i].type = OPT_FLAG;
			t[i].dest = &help_seen;
		} else if (t[i].type == OPT_PATH_OUT || t[i].type == OPT_DIR_OUT) {
			t[i].type = OPT_STRING;
		}
	}
	return t;
}

static void check_ranges(const struct opt *t, const bool *given)
{
	int i;

	for (i = 0; t[i].short_name || t[i].long_name; i++) {
		long long v;

		if (!given[i] || (t[i].type != OPT_INT && t[i].type != OPT_DURATION))
			continue;
		v = *(long long *)t[i].dest;
		if (t[i].arg == OPT_ARG_OPTIONAL && v == OPT_AUTO)
			continue;
		if (v < t[i].min || v > t[i].max)
			abort();
	}
}

static int split_args(char *buf, size_t len, char **argv)
{
	int argc = 1;
	size_t i, start = 0;

	argv[0] = "rtlat";
	for (i = 0; i <= len && argc < MAX_ARGS; i++) {
		if (i == len || buf[i] == '\0') {
			buf[i] = '\0';
			argv[argc++] = buf + start;
			start = i + 1;
		}
	}
	argv[argc] = NULL;
	return argc;
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	/* Error lines are expected by the thousand; sanitizers write to fd 2
	 * directly, so their reports still show. */
	stderr = fopen("/dev/null", "w");
	stdout = stderr;
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *argv[MAX_ARGS + 1], *buf;
	int ntests = 0, pick, argc;
	const struct test_ops *ops;
	void *cfg = NULL, *extra = NULL;
	struct opt *t, *suite = NULL;
	bool *given;

	if (size < 1)
		return 0;
	while (tests[ntests])
		ntests++;
	pick = data[0] % (ntests + 1);
	ops = pick < ntests ? tests[pick] : NULL;
	if (ops && ops->cfg_size && !(cfg = calloc(1, ops->cfg_size)))
		abort();
	if (!ops && (!(cfg = calloc(1, suite_config_size)) ||
		     !(suite = suite_options(NULL, tests))))
		abort();
	if (ops && ops->extra_size && !(extra = calloc(1, ops->extra_size)))
		abort();
	t = ops ? private_table(ops->opts, cfg, ops->extra_opts, extra) :
		  private_table(suite, cfg, NULL, NULL);
	buf = malloc(size);
	if (!t || !buf)
		abort();
	memcpy(buf, data + 1, size - 1);
	argc = split_args(buf, size - 1, argv);
	given = calloc((size_t)opts_count(t) + 1, sizeof(bool));
	if (!given)
		abort();
	if (run_parse("rtlat", "fuzz", t, given, argc, argv) == 0)
		check_ranges(t, given);
	free(given);
	free(buf);
	free(t);
	free(suite);
	free(cfg);
	free(extra);
	return 0;
}
