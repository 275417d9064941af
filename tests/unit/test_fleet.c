// SPDX-License-Identifier: GPL-2.0-or-later
/* test_fleet.c - the fleet records on known inputs: OpenMetrics bucket
 * counts from a histogram, the summary line both ways, merging and the
 * median worst figure over iterations, thresholds. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "fleet/fleet.h"
#include "util/opts.h"
#include "measure/stats.h"
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
	/* bound 50 is 1 us: 700 (bucket 500..1000); 58 (2.09 us): + 1500,
	 * 1900; 70 (5.25 us): + 4000; 75 (10 us): + 9000 */
	CHECK_EQ_LL(fleet_le_ns10(50), 10000);
	CHECK_EQ_LL(r.le[49], 0);
	CHECK_EQ_LL(r.le[50], 1);
	CHECK_EQ_LL(r.le[58], 3);
	CHECK_EQ_LL(r.le[70], 4);
	CHECK_EQ_LL(r.le[75], 5);
	/* 63 us: 60 us, past the 100 linear buckets, in the log-linear
	 * tail (it overflowed the linear histogram) */
	CHECK_EQ_LL(r.le[95], 6);
	CHECK_EQ_LL(r.le[FLEET_NLE - 1], 6);
}

/* 25 bounds a decade from 10 ns to 10 s, each at most 10 % above the
 * one before: what keeps histogram_quantile within 10 % */
UNIT_TEST(fleet_bounds_fine)
{
	int k;

	CHECK_EQ_LL(fleet_le_ns10(0), 100);
	CHECK_EQ_LL(fleet_le_ns10(3), 132);
	CHECK_EQ_LL(fleet_le_ns10(FLEET_NLE - 1), 100000000000LL);
	for (k = 1; k < FLEET_NLE; k++)
		CHECK(fleet_le_ns10(k) * 100 <= fleet_le_ns10(k - 1) * 110 &&
		      fleet_le_ns10(k) > fleet_le_ns10(k - 1));
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
	/* bucket counts that go down, or bounds out of order: refused */
	CHECK(fleet_rec_parse("r\t3\t1\t1.0\t1\t1\t1\t1\t5:3,6:2\t-1\t-1\t0", "x", &back) == -1);
	CHECK(fleet_rec_parse("r\t3\t1\t1.0\t1\t1\t1\t1\t6:1,5:3\t-1\t-1\t0", "x", &back) == -1);
	CHECK(fleet_rec_parse("r\t3\t1\t1.0\t1\t1\t1\t1\t5:1,6:3\t-1\t-1\t0", "x", &back) == 0);
	CHECK_EQ_LL(back.le[4], 0);
	CHECK_EQ_LL(back.le[5], 1);
	CHECK_EQ_LL(back.le[FLEET_NLE - 1], 3);
	CHECK(fleet_rec_parse("r\t0\t0\t0.0\t0\t0\t0\t0\t-\t-1\t-1\t0", "x", &back) == 0);
	CHECK_EQ_LL(back.le[FLEET_NLE - 1], 0);
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
static const struct fleet_test known[] = { { "pmq", pmq_series } };
/* The run's fleet, as run_test owns one. */
static struct fleet fl;

/* A run ends: its records freed, nothing known. */
static void end(void)
{
	fleet_free(&fl);
	fleet_begin(&fl, NULL, "", NULL, 0);
}

static int begin(const char *lat)
{
	memset(&fo, 0, sizeof(fo));
	fo.max_latency = lat;
	fo.tolerance_pct = 10;
	fleet_free(&fl);
	fleet_begin(&fl, &fo, "pmq", known, 1);
	return fleet_check(&fl, "unit", fleet_tbl);
}

UNIT_TEST(fleet_iterations_and_threshold)
{
	static const long long a[] = { 1000, 5000 }, b[] = { 1000, 30000 },
			       c[] = { 2000, 8000 };
	struct fleet_judged v;
	struct fleet_rec r;

	CHECK(begin("20") == 0);
	rec_of(&r, "latency", a, 2);
	fleet_add(&fl, &r);
	rec_of(&r, "latency", b, 2);
	fleet_add(&fl, &r);
	rec_of(&r, "latency", c, 2);
	fleet_add(&fl, &r);
	CHECK_EQ_LL(fleet_count(&fl), 1);
	CHECK_EQ_LL(fleet_get(&fl, 0)->n, 6);
	CHECK_EQ_LL(fleet_get(&fl, 0)->min, 1000);
	CHECK_EQ_LL(fleet_get(&fl, 0)->max, 30000);
	CHECK_NEAR(fleet_get(&fl, 0)->avg, 47000.0 / 6, 1e-6);
	CHECK_EQ_LL(fleet_worst(&fl, fleet_get(&fl, 0)), 8000);	/* median of 5, 30, 8 us */
	fleet_judge(&fl, 0, &v);
	CHECK(v.failure && !strcmp(v.failure, "max-latency"));
	CHECK(!strcmp(v.why, "max 30.000 us > --max-latency 20 us"));
	CHECK_EQ_LL(v.base_ns, -1);
	CHECK(fleet_exceeded(&fl));
	fo.max_latency = "40";
	CHECK(fleet_check(&fl, "unit", fleet_tbl) == 0);
	CHECK(!fleet_exceeded(&fl));
}

/* Both limits exceeded: both are said (the reasons, JUnit's type, each
 * LAVA case), not the first alone. */
UNIT_TEST(fleet_every_limit_exceeded_is_said)
{
	static const long long a[] = { 30000, 30000, 30000 };
	struct fleet_judged v;
	struct fleet_rec r;
	char *out = NULL;
	size_t len = 0;
	FILE *f;

	CHECK(begin("20") == 0);
	fo.max_p99 = "10";
	CHECK(fleet_check(&fl, "unit", fleet_tbl) == 0);
	rec_of(&r, "latency", a, 3);
	fleet_add(&fl, &r);
	fleet_judge(&fl, 0, &v);
	CHECK(v.failure && !strcmp(v.failure, "max-latency,max-p99"));
	CHECK_EQ_LL(v.failed, FLEET_FAILED_MAX | FLEET_FAILED_P99);
	CHECK(!strcmp(v.why, "max 30.000 us > --max-latency 20 us; p99 30.000 us > --max-p99 10 us"));
	f = open_memstream(&out, &len);
	CHECK(f != NULL);
	fleet_print_lava(&fl, f, "pmq", 3);
	fclose(f);
	CHECK(strstr(out, "lava-test-case pmq-latency-max --result fail") != NULL);
	CHECK(strstr(out, "lava-test-case pmq-latency-p99 --result fail") != NULL);
	CHECK(strstr(out, "lava-test-case pmq-latency-min --result pass") != NULL);
	free(out);
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
	fleet_limits(&fl, &r, &lat, &p99);
	CHECK_EQ_LL(lat, 20);
	CHECK_EQ_LL(p99, 0);
	snprintf(r.series, sizeof(r.series), "other");
	fleet_limits(&fl, &r, &lat, &p99);
	CHECK_EQ_LL(lat, 40);
	snprintf(r.test, sizeof(r.test), "timer");
	fleet_limits(&fl, &r, &lat, &p99);
	CHECK_EQ_LL(lat, 5);
	CHECK(begin("pmq=20") == 0);
	fleet_limits(&fl, &r, &lat, &p99);
	CHECK_EQ_LL(lat, 0);	/* a test with no entry is not judged */
	CHECK(begin("timer=20") == -1);
	CHECK(begin("pmq/nope=20") == -1);
	CHECK(begin("pmq=1,pmq=2") == -1);
	CHECK(begin("pmq=") == -1);
	CHECK(begin("0") == -1);
	CHECK(begin(",") == -1);
	end();
}

/* The threshold of pmq/latency after begin(spec) (0: none). */
static long long latency_limit(void)
{
	struct fleet_rec r;
	long long lat, p99;

	memset(&r, 0, sizeof(r));
	snprintf(r.test, sizeof(r.test), "pmq");
	snprintf(r.series, sizeof(r.series), "latency");
	fleet_limits(&fl, &r, &lat, &p99);
	return lat;
}

/* US is digits only; every entry is one (no empty one); the whole list
 * is read, however long (it was cut at 1023 characters). */
UNIT_TEST(fleet_limits_strict_and_whole)
{
	static char spec[4096];
	size_t i;

	CHECK(begin("pmq= 50") == -1);
	CHECK(begin("+50") == -1);
	CHECK(begin("pmq=+50") == -1);
	CHECK(begin(" 50") == -1);
	CHECK(begin("50 ") == -1);
	CHECK(begin("5e3") == -1);
	CHECK(begin("-5") == -1);
	CHECK(begin("") == -1);
	CHECK(begin("pmq=1,") == -1);
	CHECK(begin(",pmq=1") == -1);
	CHECK(begin("pmq=1,,pmq/other=2") == -1);
	CHECK(begin("pmq=1\n") == -1);
	CHECK(begin("1000000001") == -1);
	CHECK(begin("99999999999999999999") == -1);
	/* The boundaries: 1 and 10^9 us. */
	CHECK(begin("1") == 0);
	CHECK_EQ_LL(latency_limit(), 1);
	CHECK(begin("1000000000") == 0);
	CHECK_EQ_LL(latency_limit(), 1000000000);
	/* 1,100 commas before an entry: empty entries, refused (cut, the
	 * list was "pmq=1000000" alone). */
	i = (size_t)snprintf(spec, sizeof(spec), "pmq=1000000");
	memset(spec + i, ',', 1100);
	snprintf(spec + i + 1100, sizeof(spec) - i - 1100, "pmq/latency=1");
	CHECK(begin(spec) == -1);
	/* One entry past 1,023 characters: read to its end. */
	i = (size_t)snprintf(spec, sizeof(spec), "pmq/other=2,pmq/latency=");
	memset(spec + i, '0', 1100);
	snprintf(spec + i + 1100, sizeof(spec) - i - 1100, "7");
	CHECK(begin(spec) == 0);
	CHECK_EQ_LL(latency_limit(), 7);
	end();
}

/* The user's text in an error line: one line, whatever it holds. */
UNIT_TEST(fleet_error_text_quoted)
{
	char q[16];

	CHECK(!strcmp(opts_quote(q, sizeof(q), "a\nb\tc\\d\x01", 100),
		      "a\\nb\\tc\\\\d\\x01"));
	CHECK(!strcmp(opts_quote(q, sizeof(q), "pmq=1,pmq=2", 5), "pmq=1"));
	CHECK(!strcmp(opts_quote(q, sizeof(q), "0123456789abcdefgh", 100),
		      "0123456789ab..."));
	CHECK(!strcmp(opts_quote(q, sizeof(q), "0123456789abcde", 100),
		      "0123456789abcde"));
	CHECK(!strcmp(opts_quote(q, sizeof(q), "", 100), ""));
}

/* No table of a fixed size: 1,024 threads' parts and more, over more
 * iterations than 2,048 records held, are all kept and merged. */
UNIT_TEST(fleet_every_record_kept)
{
	static const long long v[] = { 1000, 2000, 3000 };
	struct fleet_rec r;
	int it, th, parts = 1100;
	uint64_t n = 0;

	CHECK(begin("1000") == 0);
	rec_of(&r, "latency", v, 3);
	for (it = 0; it < 3; it++)
		for (th = -1; th < parts; th++) {
			r.thread = th;
			r.max = it == 2 && th == parts - 1 ? 5000000 : 3000;
			fleet_add(&fl, &r);
		}
	CHECK_EQ_LL(fleet_raw_count(&fl), 3 * (parts + 1));
	CHECK_EQ_LL(fleet_count(&fl), parts + 1);
	for (it = 0; it < fleet_count(&fl); it++)
		n += fleet_get(&fl, it)->n;
	CHECK_EQ_LL(n, 3ULL * 3 * (parts + 1));
	CHECK_EQ_LL(fleet_threads(&fl, fleet_get(&fl, 0)), parts);
	/* The last thread of the last iteration: kept and judged. */
	CHECK_EQ_LL(fleet_get(&fl, parts)->thread, parts - 1);
	CHECK_EQ_LL(fleet_get(&fl, parts)->max, 5000000);
	CHECK(fleet_exceeded(&fl));
	CHECK_EQ_LL(fl.lost, 0);
	end();
	CHECK_EQ_LL(fleet_count(&fl), 0);
}

/*
 * OpenMetrics bounds are the same for every series: 10 ns to 10 s, all
 * of them (226), each count exact. A sample past them (200 s, past the
 * histogram's 100 s too) counts in +Inf only. *first, *nb: the first
 * bound and how many finite ones.
 */
static void om_last_bounds(const long long *v, int n, char *last, size_t len,
			   char *inf, size_t ilen, char *first, int *nb)
{
	char path[] = "/tmp/rtlat-unit-om-XXXXXX", line[512];
	struct fleet_rec r;
	FILE *f;
	int fd;

	CHECK(begin(NULL) == 0);
	rec_of(&r, "latency", v, n);
	fleet_add(&fl, &r);
	fd = mkstemp(path);
	CHECK(fd >= 0);
	close(fd);
	CHECK(fleet_write_openmetrics(&fl, "unit", path) == 0);
	f = fopen(path, "r");
	CHECK(f != NULL);
	last[0] = inf[0] = first[0] = '\0';
	*nb = 0;
	while (f && fgets(line, sizeof(line), f)) {
		if (strncmp(line, "rtlat_latency_seconds_bucket", 28))
			continue;
		CHECK(!strncmp(line, "rtlat_latency_seconds_bucket{run=\"", 34));
		if (strstr(line, "le=\"+Inf\"")) {
			snprintf(inf, ilen, "%s", strrchr(line, ' ') + 1);
			continue;
		}
		snprintf(last, len, "%s", strstr(line, "le=\""));
		if (!(*nb)++)
			snprintf(first, 64, "%s", strstr(line, "le=\""));
	}
	if (f)
		fclose(f);
	unlink(path);
	end();
}

UNIT_TEST(fleet_openmetrics_overflow_only_in_inf)
{
	static const long long over[] = { 700, 1500, 1900, 4000, 9000, 200000000000LL },
			       in[] = { 700, 1500, 1900, 4000, 9000 };
	char last[128], inf[32], first[64];
	int nb;

	om_last_bounds(over, 6, last, sizeof(last), inf, sizeof(inf), first, &nb);
	CHECK(!strcmp(last, "le=\"10\"} 5\n"));
	CHECK(!strcmp(inf, "6\n"));
	CHECK(!strcmp(first, "le=\"1e-08\"} 0\n"));
	CHECK_EQ_LL(nb, FLEET_NLE);
	om_last_bounds(in, 5, last, sizeof(last), inf, sizeof(inf), first, &nb);
	CHECK(!strcmp(last, "le=\"10\"} 5\n"));
	CHECK(!strcmp(inf, "5\n"));
	CHECK_EQ_LL(nb, FLEET_NLE);
}
