/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * fleet.h - what labs and CI read from a run, for every test alike:
 * thresholds (--max-latency, --max-p99) and a baseline (--baseline,
 * --tolerance, --iterations) that turn into exit status 3, and the fleet
 * outputs (--junit, --openmetrics, --lava).
 *
 * It works from the headline series each test already reports with
 * results_summary(): every series is kept as a struct fleet_rec here. So a
 * test gets all of this with no code of its own; rtlat suite gets the same
 * records from its tests through RTLAT_SUMMARY_FD (fleet_rec_format and
 * fleet_rec_parse are both ends of that line).
 */
#ifndef RTLAT_FLEET_H
#define RTLAT_FLEET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdint.h>
#include "core/opts.h"

struct stats;
struct json;

/* The settings, embedded in struct test_common (and rtlat suite's). */
struct fleet_opts {
	const char *max_latency;	/* [TEST[/SERIES]=]US,...; NULL: none */
	const char *max_p99;		/* the same for 99th percentiles */
	const char *junit;
	const char *openmetrics;
	bool lava;
	long long iterations;
	const char *baseline;
	long long tolerance_pct;
};

#define FLEET_OPT_ENTRIES(f)							\
	FLEET_VERDICT_ENTRIES(f), FLEET_BASELINE_ENTRIES(f)

/* Thresholds and outputs: every test and rtlat suite. */
#define FLEET_VERDICT_ENTRIES(f)							\
	{ 0, "max-latency", OPT_STRING, OPT_ARG_REQUIRED, "[TEST[/SERIES]=]US,...", \
	  0, 0, 0, &(f)->max_latency,						\
	  "exit 3 if a maximum latency exceeds US microseconds (one number, or one per test or series: pmq=50,timer=30)", \
	  NULL, NULL },								\
	{ 0, "max-p99", OPT_STRING, OPT_ARG_REQUIRED, "[TEST[/SERIES]=]US,...", \
	  0, 0, 0, &(f)->max_p99,						\
	  "exit 3 if a 99th percentile exceeds US microseconds (as --max-latency)", \
	  NULL, NULL },								\
	{ 0, "junit", OPT_PATH_OUT, OPT_ARG_REQUIRED, "FILE", 0, 0, 0,		\
	  &(f)->junit, "write a JUnit XML report to FILE", NULL, NULL },	\
	{ 0, "openmetrics", OPT_PATH_OUT, OPT_ARG_REQUIRED, "FILE", 0, 0, 0,	\
	  &(f)->openmetrics,							\
	  "write the figures to FILE in the OpenMetrics text format", NULL, NULL }, \
	{ 0, "lava", OPT_FLAG, OPT_ARG_NONE, NULL, 0, 0, 0, &(f)->lava,		\
	  "print a lava-test-case line per figure at the end", NULL, NULL }

/* A test's, not rtlat suite's (which runs each test once). */
#define FLEET_BASELINE_ENTRIES(f)						\
	{ 0, "iterations", OPT_INT, OPT_ARG_REQUIRED, "N", 1, 1000, 1,		\
	  &(f)->iterations, "run the test N times, judge the median worst figure", \
	  NULL, NULL },							\
	{ 0, "baseline", OPT_STRING, OPT_ARG_REQUIRED, "FILE", 0, 0, 0,		\
	  &(f)->baseline,							\
	  "exit 3 if the worst latency regresses against this earlier --json", \
	  NULL, NULL },							\
	{ 0, "tolerance", OPT_INT, OPT_ARG_REQUIRED, "PCT", 0, 10000, 10,	\
	  &(f)->tolerance_pct, "regression allowed against --baseline, percent", \
	  NULL, NULL }

/* OpenMetrics histogram bounds (ns); the +Inf bucket is the count. */
#define FLEET_NLE 16
extern const long long fleet_le_ns[FLEET_NLE];

/*
 * One headline series of one run (of one test: rtlat suite has many), or
 * one thread's (a pair's, a CPU's) part of it: thread >= 0.
 */
struct fleet_rec {
	char test[24];
	char series[32];
	int thread;				/* -1: the whole series */
	int cpu;				/* -1: several or unknown */
	double secs;				/* from the run's start to the figure */
	uint64_t n;
	long long min, max, p50, p99, p9999;	/* ns */
	double avg;
	uint64_t le[FLEET_NLE];			/* cumulative counts */
};

/* Why a series that was asked for has no figures: it is still in every
 * output (JUnit <skipped>, LAVA skip, OpenMetrics count 0, JSON samples
 * 0), never left out. */
#define FLEET_NO_SAMPLE "no sample was measured"

/* Threshold and baseline judgement of one series. */
struct fleet_judged {
	long long lat_us, p99_us;	/* the thresholds that applied; 0: none */
	const char *failure;		/* NULL: passed */
	char why[160];
	long long worst_ns;		/* median over iterations of max */
	long long base_ns;		/* -1: no baseline for it */
};

/* The summary line (tab-separated, suite.c reads its first 7 fields). */
int fleet_rec_format(char *buf, size_t len, const struct fleet_rec *r);
int fleet_rec_parse(const char *line, const char *test, struct fleet_rec *r);
void fleet_rec_from_stats(struct fleet_rec *r, const char *test,
			  const char *series, const struct stats *s);

/* A run begins (no records yet): its settings (kept by pointer), the
 * test's name and the tests whose series thresholds may name
 * (NULL-terminated: the tests the run has). */
struct test_ops;
void fleet_begin(const struct fleet_opts *o, const char *test,
		 const struct test_ops *const *known);
/* Keep a record (results_summary does it for every test, after the
 * measurement: the tables grow here). */
void fleet_add(const struct fleet_rec *r);
/* Records fleet_add could not keep (no memory): fleet_end fails the run. */
int fleet_lost(void);
/* status, or 1 after a line when a record was not kept. */
int fleet_kept(const char *prog, int status);
/* Check the option values together: 0, or -1 after the line (exit 2). */
int fleet_check(const char *prog, struct opt *tbl);
/* The "fleet" object of the JSON file, if thresholds or a baseline are set. */
/* status: the run's exit status; a run that ended with an error (1) is
 * "error" whatever its figures, never "pass". */
void fleet_json(struct json *j, int status);
/* Judge, print the verdict, write the outputs: the final exit status
 * (status, or 3 when it was 0 and a threshold was exceeded, or 1 when an
 * output could not be written or a record kept). */
int fleet_end(const char *prog, int status);
/* Would fleet_end give 3? (for the JSON's return_code) */
bool fleet_exceeded(void);
/* Seconds since fleet_begin (the JUnit suite's and cases' time). */
double fleet_elapsed(void);

/* For the writers (fleet_out.c). */
int fleet_count(void);
/* Has any series a sample? (no: the run measured nothing) */
bool fleet_measured(void);
const struct fleet_rec *fleet_get(int i);
void fleet_judge(int i, struct fleet_judged *v);
const char *fleet_host(void);
long long fleet_worst(const struct fleet_rec *m);	/* m: fleet_get()'s */
/* Every iteration's records, in the order they came. */
int fleet_raw_count(void);
const struct fleet_rec *fleet_raw(int i);
const struct fleet_opts *fleet_opts(void);
int fleet_threads(const struct fleet_rec *r);
const struct test_ops *const *fleet_known(void);

/* fleet_limits.c: --max-latency and --max-p99 read (0, or -1 after the
 * line: exit 2) and the threshold of a record (us; 0: none). */
int fleet_limits_check(const char *prog, struct opt *tbl);
void fleet_limits(const struct fleet_rec *r, long long *lat_us, long long *p99_us);

/* fleet_out.c */
int fleet_write_junit(const char *prog, const char *path, double secs,
		      int status);
int fleet_write_openmetrics(const char *prog, const char *path);
void fleet_print_lava(FILE *f, const char *test, int status);
const char *fleet_test(void);

/* fleet_iter.c: run once per --iterations in a child, the last one here;
 * once() is the rest of the lifecycle. */
struct test_run;
int fleet_iterate(struct test_run *t, int (*once)(struct test_run *));

#endif
