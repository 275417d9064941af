// SPDX-License-Identifier: GPL-2.0-or-later
/* test_opts.c - number and duration parsing, and the option table. */
#include <sched.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "util/opts.h"
#include "harness/test.h"
#include "suite/suite.h"
#include "registry.h"
#include "unit.h"

UNIT_TEST(parse_ll_strict)
{
	long long v = 7;

	CHECK(parse_ll("0", &v) == 0 && v == 0);
	CHECK(parse_ll("-12", &v) == 0 && v == -12);
	CHECK(parse_ll("9223372036854775807", &v) == 0);
	CHECK(parse_ll("9223372036854775808", &v) != 0);
	CHECK(parse_ll("", &v) != 0);
	CHECK(parse_ll(" 5", &v) != 0);
	CHECK(parse_ll("5 ", &v) != 0);
	CHECK(parse_ll("12abc", &v) != 0);
	CHECK(parse_ll("0x10", &v) != 0);
	CHECK(parse_ll(NULL, &v) != 0);
}

UNIT_TEST(parse_duration_suffixes)
{
	long long s = -1;

	CHECK(parse_duration("90", &s) == 0 && s == 90);
	CHECK(parse_duration("90s", &s) == 0 && s == 90);
	CHECK(parse_duration("5m", &s) == 0 && s == 300);
	CHECK(parse_duration("2h", &s) == 0 && s == 7200);
	CHECK(parse_duration("1d", &s) == 0 && s == 86400);
	CHECK(parse_duration("0", &s) == 0 && s == 0);
}

UNIT_TEST(parse_duration_rejects)
{
	long long s = 42;

	CHECK(parse_duration("10x", &s) != 0);
	CHECK(parse_duration("-5", &s) != 0);
	CHECK(parse_duration("", &s) != 0);
	CHECK(parse_duration("m", &s) != 0);
	CHECK(parse_duration("5ms", &s) != 0);
	CHECK(parse_duration("1.5h", &s) != 0);
	CHECK(parse_duration("99999999999999999999", &s) != 0);
	CHECK(parse_duration("9223372036854775807d", &s) != 0);
	CHECK_EQ_LL(s, 42);	/* untouched on error */
}

static long long t_int, t_opt;
static bool t_flag;

static struct opt *table(void)
{
	static struct opt tbl[] = {
		{ .short_name = 'i', .long_name = "interval", .type = OPT_INT,
		  .arg = OPT_ARG_REQUIRED, .argname = "US", .min = 1, .max = 100,
		  .dest = &t_int, .help = "interval" },
		{ .short_name = 't', .long_name = "threads", .type = OPT_INT,
		  .arg = OPT_ARG_OPTIONAL, .argname = "NUM", .min = 1, .max = 8,
		  .dflt = -1, .dest = &t_opt, .help = "threads" },
		{ .short_name = 'q', .long_name = "quiet", .type = OPT_FLAG,
		  .arg = OPT_ARG_NONE, .dest = &t_flag, .help = "quiet" },
		OPT_END
	};
	t_int = t_opt = 0;
	t_flag = false;
	return tbl;
}

static int parse(int argc, char **argv)
{
	FILE *saved = stderr;
	int ret;

	/* The error lines are the integration tests' business. */
	stderr = fopen("/dev/null", "w");
	ret = opts_parse("test", NULL, table(), NULL, argc, argv);
	fclose(stderr);
	stderr = saved;
	return ret;
}

UNIT_TEST(opts_table_parses)
{
	char *ok[] = { "p", "-i", "50", "-t", "-q", NULL };
	char *attached[] = { "p", "--interval=7", "-t3", NULL };
	char *spaced[] = { "p", "-t", "4", "rest", NULL };

	CHECK_EQ_LL(parse(5, ok), 5);
	CHECK_EQ_LL(t_int, 50);
	CHECK_EQ_LL(t_opt, -1);		/* optional without value: default */
	CHECK(t_flag);
	CHECK_EQ_LL(parse(3, attached), 3);
	CHECK_EQ_LL(t_int, 7);
	CHECK_EQ_LL(t_opt, 3);
	/* rt-tests' "-t 4": a number after an optional-argument option. */
	CHECK_EQ_LL(parse(4, spaced), 3);
	CHECK_EQ_LL(t_opt, 4);
}

UNIT_TEST(opts_table_rejects)
{
	char *range[] = { "p", "-i", "101", NULL };
	char *zero[] = { "p", "-i", "0", NULL };
	char *junk[] = { "p", "-i", "5x", NULL };
	char *missing[] = { "p", "-i", NULL };
	char *unknown[] = { "p", "-z", NULL };
	char *unknown_long[] = { "p", "--bogus", NULL };
	char *opt_range[] = { "p", "-t9", NULL };

	CHECK(parse(3, range) < 0);
	CHECK(parse(3, zero) < 0);
	CHECK(parse(3, junk) < 0);
	CHECK(parse(2, missing) < 0);
	CHECK(parse(2, unknown) < 0);
	CHECK(parse(2, unknown_long) < 0);
	CHECK(parse(2, opt_range) < 0);
}

UNIT_TEST(cpu_list_text_runs_and_holes)
{
	const int holes[] = { 0, 1, 2, 3, 4, 6, 7, 65, 67, 68 };
	const int one[] = { 5 }, pair[] = { 1, 2 };
	char buf[64];

	cpu_list_text(holes, 10, buf, sizeof(buf));
	CHECK(!strcmp(buf, "0-4,6-7,65,67-68"));
	cpu_list_text(one, 1, buf, sizeof(buf));
	CHECK(!strcmp(buf, "5"));
	cpu_list_text(pair, 2, buf, sizeof(buf));
	CHECK(!strcmp(buf, "1-2"));
	cpu_list_text(one, 0, buf, sizeof(buf));
	CHECK(!strcmp(buf, ""));
	cpu_list_text(holes, 10, buf, 6);	/* cut, still a string */
	CHECK(strlen(buf) == 5);
}

UNIT_TEST(usable_cpus_are_this_process_affinity)
{
	int cpus[CPU_LIST_MAX], n = cpus_usable(cpus, CPU_LIST_MAX), i;
	cpu_set_t set;

	CHECK(!sched_getaffinity(0, sizeof(set), &set));
	CHECK(n == CPU_COUNT(&set) && n == cpus_usable(NULL, CPU_LIST_MAX));
	for (i = 0; i < n; i++)
		CHECK(CPU_ISSET(cpus[i], &set) && (!i || cpus[i] > cpus[i - 1]));
	CHECK(cpu_usable_last() == cpus[n - 1]);
	CHECK(cpu_usable_nth(n) == cpus[0] && cpu_usable_nth(n - 1) == cpus[n - 1]);
	/* The kernel's online list, read with -c's grammar. */
	CHECK(cpus_online_list(cpus, CPU_LIST_MAX) == cpus_online());
}

/* Every row of t that stores, an offset inside a config of size bytes. */
static bool rows_are_offsets(const struct opt *t, size_t size)
{
	int i;

	for (i = 0; t && (t[i].short_name || t[i].long_name); i++)
		if (t[i].type != OPT_HELP && t[i].type != OPT_REFUSE &&
		    (uintptr_t)t[i].dest >= size)
			return false;
	return t != NULL;
}

/* One way to store: every table, the suite's too, is bound by offset to
 * a config the run owns (no row holds an address). */
UNIT_TEST(every_table_bound_by_offset)
{
	struct opt *suite = suite_options(NULL, tests);
	int i;

	for (i = 0; tests[i]; i++) {
		const struct test_ops *t = tests[i];

		CHECK(t->cfg_size >= (uintptr_t)t->common + sizeof(struct test_common));
		CHECK(rows_are_offsets(t->opts, t->cfg_size));
		CHECK(!t->extra_opts || rows_are_offsets(t->extra_opts, t->extra_size));
	}
	CHECK(rows_are_offsets(suite, suite_config_size));
	CHECK(opts_find(suite, 0, "only")->choices[0] != NULL);
	free(suite);
}
