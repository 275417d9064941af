// SPDX-License-Identifier: GPL-2.0-or-later
/* test_fleet.c - the fleet records on known inputs: OpenMetrics bucket
 * counts from a histogram, the summary line both ways, merging and the
 * median worst figure over iterations, thresholds. */
#include <stdio.h>
#include <string.h>
#include "harness/fleet.h"
#include "harness/test.h"
#include "core/opts.h"
#include "core/stats.h"
#include "unit.h"

/* 500 ns buckets from 0, 100 buckets (0..50 us), values given in ns. */
static void rec_of(struct fleet_rec *r, const char *series, const long long *v, int n)
{
	struct stats s;
	int i;

	CHECK(stats_init(&s, 0, 500, 100) == 0);
	for (i = 0; i < n; i++)
		stats_add(&s, v[i]);
	fleet_rec_from_stats(r, "pmq", series, &s);
	stats_free(&s);
}

UNIT_TEST(fleet_buckets_and_figures)
{
	static const long long v[] = { 700, 1500, 1900, 4000, 9000, 60000 };
	struct fleet_rec r;

	rec_of(&r, "latency", v, 6);
	CHECK_EQ_LL(r.n, 6);
	CHECK_EQ_LL(r.min, 700);
	CHECK_EQ_LL(r.max, 60000);
	/* <= 1 us: 700 (bucket 500..1000); <= 2 us: + 1500, 1900 */
	CHECK_EQ_LL(r.le[0], 1);
	CHECK_EQ_LL(r.le[1], 3);
	CHECK_EQ_LL(r.le[2], 4);	/* <= 5 us */
	CHECK_EQ_LL(r.le[3], 5);	/* <= 10 us */
	CHECK_EQ_LL(r.le[5], 5);	/* <= 50 us: 60 us overflowed */
	CHECK_EQ_LL(r.le[FLEET_NLE - 1], 5);
}

UNIT_TEST(fleet_line_round_trip)
{
	static const long long v[] = { 1000, 2000, 3000 };
	struct fleet_rec r, back;
	char line[512];
	int i;

	rec_of(&r, "response", v, 3);
	CHECK(fleet_rec_format(line, sizeof(line), &r) > 0);
	CHECK(line[strlen(line) - 1] == '\n');
	CHECK(!strncmp(line, "response\t3\t1000\t2000.0\t3000\t", 28));
	CHECK(fleet_rec_parse(line, "request", &back) == 0);
	CHECK(!strcmp(back.test, "request") && !strcmp(back.series, "response"));
	CHECK_EQ_LL(back.n, 3);
	CHECK_EQ_LL(back.max, 3000);
	CHECK_EQ_LL(back.p99, r.p99);
	for (i = 0; i < FLEET_NLE; i++)
		CHECK_EQ_LL(back.le[i], r.le[i]);
	CHECK(fleet_rec_parse("response\t3\t1000", "x", &back) == -1);
	CHECK(fleet_rec_format(line, 20, &r) == -1);
}

/* The fleet rows of a table, as every test's has them. */
static struct fleet_opts fo;
static struct opt fleet_tbl[] = {
	FLEET_VERDICT_ENTRIES(&fo),
	{ 0 }
};

/* A test that declares two series, as thresholds may name them. */
static const char *const pmq_series[] = { "latency", "other", NULL };
static const struct test_ops pmq_ops = { .name = "pmq", .series = pmq_series };
static const struct test_ops *const known[] = { &pmq_ops, NULL };

static int begin(const char *lat)
{
	memset(&fo, 0, sizeof(fo));
	fo.max_latency = lat;
	fo.tolerance_pct = 10;
	fleet_begin(&fo, "pmq", known);
	return fleet_check("unit", fleet_tbl);
}

UNIT_TEST(fleet_iterations_and_threshold)
{
	static const long long a[] = { 1000, 5000 }, b[] = { 1000, 30000 },
			       c[] = { 2000, 8000 };
	struct fleet_judged v;
	struct fleet_rec r;

	CHECK(begin("20") == 0);
	rec_of(&r, "latency", a, 2);
	fleet_add(&r);
	rec_of(&r, "latency", b, 2);
	fleet_add(&r);
	rec_of(&r, "latency", c, 2);
	fleet_add(&r);
	CHECK_EQ_LL(fleet_count(), 1);
	CHECK_EQ_LL(fleet_get(0)->n, 6);
	CHECK_EQ_LL(fleet_get(0)->min, 1000);
	CHECK_EQ_LL(fleet_get(0)->max, 30000);
	CHECK_NEAR(fleet_get(0)->avg, 47000.0 / 6, 1e-6);
	CHECK_EQ_LL(fleet_worst(fleet_get(0)), 8000);	/* median of 5, 30, 8 us */
	fleet_judge(0, &v);
	CHECK(v.failure && !strcmp(v.failure, "max-latency"));
	CHECK(!strcmp(v.why, "max 30.000 us > --max-latency 20 us"));
	CHECK_EQ_LL(v.base_ns, -1);
	CHECK(fleet_exceeded());
	fo.max_latency = "40";
	CHECK(fleet_check("unit", fleet_tbl) == 0);
	CHECK(!fleet_exceeded());
}

/* The most specific entry applies: TEST/SERIES, then TEST, then a bare
 * number; a thread's part takes its series' number. */
UNIT_TEST(fleet_limits_per_test_and_series)
{
	struct fleet_rec r;
	long long lat, p99;

	CHECK(begin("5,pmq=20,pmq/other=40") == 0);
	memset(&r, 0, sizeof(r));
	snprintf(r.test, sizeof(r.test), "pmq");
	snprintf(r.series, sizeof(r.series), "latency");
	r.thread = 3;
	fleet_limits(&r, &lat, &p99);
	CHECK_EQ_LL(lat, 20);
	CHECK_EQ_LL(p99, 0);
	snprintf(r.series, sizeof(r.series), "other");
	fleet_limits(&r, &lat, &p99);
	CHECK_EQ_LL(lat, 40);
	snprintf(r.test, sizeof(r.test), "timer");
	fleet_limits(&r, &lat, &p99);
	CHECK_EQ_LL(lat, 5);
	CHECK(begin("pmq=20") == 0);
	fleet_limits(&r, &lat, &p99);
	CHECK_EQ_LL(lat, 0);	/* a test with no entry is not judged */
	CHECK(begin("timer=20") == -1);
	CHECK(begin("pmq/nope=20") == -1);
	CHECK(begin("pmq=1,pmq=2") == -1);
	CHECK(begin("pmq=") == -1);
	CHECK(begin("0") == -1);
	CHECK(begin(",") == -1);
	fleet_begin(NULL, "", NULL);
}
