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
#include <time.h>
#include <sys/types.h>
#include "util/opts.h"

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
	{ .long_name = "max-latency", .type = OPT_STRING, .arg = OPT_ARG_REQUIRED, \
	  .argname = "[TEST[/SERIES]=]US,...", .dest = &(f)->max_latency, \
	  .help = "exit 3 if a maximum latency exceeds US microseconds (one number, or one per test or series: pmq=50,timer=30)" }, \
	{ .long_name = "max-p99", .type = OPT_STRING, .arg = OPT_ARG_REQUIRED, \
	  .argname = "[TEST[/SERIES]=]US,...", .dest = &(f)->max_p99,	\
	  .help = "exit 3 if a 99th percentile exceeds US microseconds (as --max-latency)" }, \
	{ .long_name = "junit", .type = OPT_PATH_OUT, .arg = OPT_ARG_REQUIRED, \
	  .argname = "FILE", .dest = &(f)->junit,			\
	  .help = "write a JUnit XML report to FILE" },			\
	{ .long_name = "openmetrics", .type = OPT_PATH_OUT, .arg = OPT_ARG_REQUIRED, \
	  .argname = "FILE", .dest = &(f)->openmetrics,			\
	  .help = "write the figures to FILE in the OpenMetrics text format" }, \
	{ .long_name = "lava", .type = OPT_FLAG, .arg = OPT_ARG_NONE,	\
	  .dest = &(f)->lava,						\
	  .help = "print a lava-test-case line per figure at the end" }

/* A test's, not rtlat suite's (which runs each test once). */
#define FLEET_BASELINE_ENTRIES(f)						\
	{ .long_name = "iterations", .type = OPT_INT, .arg = OPT_ARG_REQUIRED, \
	  .argname = "N", .min = 1, .max = 1000, .dflt = 1, .dest = &(f)->iterations, \
	  .help = "run the test N times, judge the median worst figure" }, \
	{ .long_name = "baseline", .type = OPT_STRING, .arg = OPT_ARG_REQUIRED, \
	  .argname = "FILE", .dest = &(f)->baseline,			\
	  .help = "exit 3 if the worst latency regresses against this earlier --json" }, \
	{ .long_name = "tolerance", .type = OPT_INT, .arg = OPT_ARG_REQUIRED, \
	  .argname = "PCT", .max = 10000, .dflt = 10, .dest = &(f)->tolerance_pct, \
	  .help = "regression allowed against --baseline, percent" }

/*
 * OpenMetrics histogram bounds: 25 a decade from 10 ns to 10 s, each
 * 10^(1/25) (9.6 %) above the one before, so that Prometheus'
 * histogram_quantile (linear within a bucket) lands within 10 % of the
 * quantile; the +Inf bucket is the count. fleet_le_ns10(k): bound k in
 * tenths of a nanosecond (exact: 13.2 ns is 132). The file has every
 * bound from FLEET_OM_LE_FIRST on (10 ns: the sub-microsecond tests,
 * bintime's and sync's costs, need the bounds below 1 us) for every
 * series, thread and CPU: a sum by (le) over them is exact.
 */
#define FLEET_LE_PER_DECADE 25
#define FLEET_NLE (9 * FLEET_LE_PER_DECADE + 1)
#define FLEET_OM_LE_FIRST 0
long long fleet_le_ns10(int k);
/* The longest line fleet_rec_format writes (every bound a count of its
 * own), with room to spare. */
#define FLEET_LINE_MAX 8192

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
	/* A checkpoint's (harness/checkpoint.h): the maximum of the last
	 * step_s seconds; step_s 0: none. */
	double step_s;
	long long step_max;
	/* Why the series is an error, not judged ("": it is not): a CPU of
	 * it could not be measured (harness/starve.h). Never pass nor skip. */
	char error[400];
};

/* Why a series that was asked for has no figures: it is still in every
 * output (JUnit <skipped>, LAVA skip, OpenMetrics count 0, JSON samples
 * 0), never left out. */
#define FLEET_NO_SAMPLE "no sample was measured"

/* A series whose CPU could not be measured: its verdict "error" (JSON),
 * JUnit <error>, LAVA fail, whatever its figures. */
#define FLEET_ERROR_TYPE "starved"

/* What a series failed: each limit it exceeded (a bit each). */
#define FLEET_FAILED_MAX	(1 << 0)	/* --max-latency */
#define FLEET_FAILED_P99	(1 << 1)	/* --max-p99 */
#define FLEET_FAILED_BASE	(1 << 2)	/* --baseline */

/* Threshold and baseline judgement of one series: every limit it
 * exceeded, never only the first. */
struct fleet_judged {
	long long lat_us, p99_us;	/* the thresholds that applied; 0: none */
	const char *failure;		/* NULL: passed; else kinds */
	unsigned int failed;		/* FLEET_FAILED_* */
	char kinds[48];			/* "max-latency,max-p99" (JUnit's type) */
	char why[320];			/* each reason, "; " between */
	const char *error;		/* the record's error; NULL: none */
	long long worst_ns;		/* median over iterations of max */
	long long base_ns;		/* -1: no baseline for it */
};

/* The tests a run has, as thresholds may name them (data: the fleet
 * knows no registry): a test's name and its series, NULL-terminated. */
#define FLEET_TESTS_MAX 32
struct fleet_test {
	const char *name;
	const char *const *series;
};

/* Records of a run: a table that grows as they come (fleet.c). */
struct fleet_table {
	struct fleet_rec *rec;
	int n, cap;
};

/* One entry of --max-latency or --max-p99 (fleet_limits.c). */
#define FLEET_LIMITS_MAX 32
struct fleet_limit {
	char test[24];		/* "": any */
	char series[32];	/* "": any of the test's */
	long long us;
};

struct fleet_limits {
	struct fleet_limit l[FLEET_LIMITS_MAX];
	int n;
};

/* One series of --baseline (fleet_verdict.c). */
#define FLEET_BASE_MAX 64
struct fleet_base {
	char key[64];		/* "test/series" */
	long long max_ns;
};

/*
 * The fleet of one run: owned by the run (run_test, suite_main; on its
 * stack), begun with fleet_begin, freed with fleet_free, handed to every
 * function below. Nothing of it is kept elsewhere.
 */
struct fleet {
	const struct fleet_opts *opts;	/* by pointer; NULL: none */
	struct fleet_test known[FLEET_TESTS_MAX];
	int nknown;
	char test[24];			/* the run's: "pmq", "suite" */
	struct timespec started;
	struct fleet_table raw;		/* every iteration's */
	int *raw_merged;		/* raw.rec[i] is in merged.rec[raw_merged[i]] */
	struct fleet_table merged;	/* one per test, series and thread */
	int lost;			/* records not kept: no memory */
	struct fleet_limits lat, p99;
	struct fleet_base base[FLEET_BASE_MAX];
	int nbase;
	char host[256];			/* gethostname's at fleet_begin */
	bool rt_tests_names;		/* --lava as rt-tests' definitions name */
	bool partial;			/* a checkpoint's: the run goes on (verdict
					 * "incomplete", JUnit's run case an error) */
	bool checkpointed;		/* the run wrote checkpoints before */
	/* The run's id, OpenMetrics' run label: its start (Unix time) and
	 * pid, so that two runs' files never hold the same series. */
	char run_id[48];
};

/* The summary line (tab-separated, suite.c reads its first 7 fields). */
int fleet_rec_format(char *buf, size_t len, const struct fleet_rec *r);
int fleet_rec_parse(const char *line, const char *test, struct fleet_rec *r);
void fleet_rec_from_stats(struct fleet_rec *r, const char *test,
			  const char *series, const struct stats *s);

/* A run begins (no records yet): its settings (kept by pointer), the
 * test's name and the tests whose series thresholds may name (known[0..n-1],
 * copied: the tests the run has). */
void fleet_begin(struct fleet *fl, const struct fleet_opts *o, const char *test,
		 const struct fleet_test *known, int nknown);
/* Release the records (the run's end). */
void fleet_free(struct fleet *fl);
/* Keep a record (results_summary does it for every test, after the
 * measurement: the tables grow here). */
void fleet_add(struct fleet *fl, const struct fleet_rec *r);
/* status, or 1 after a line when a record was not kept (no memory). */
int fleet_kept(const struct fleet *fl, const char *prog, int status);
/* Check the option values together: 0, or -1 after the line (exit 2). */
int fleet_check(struct fleet *fl, const char *prog, struct opt *tbl);
/* The "fleet" object of the JSON file, if thresholds or a baseline are set. */
/* status: the run's exit status; a run that ended with an error (1) is
 * "error" whatever its figures, never "pass". */
void fleet_json(const struct fleet *fl, struct json *j, int status);
/* Its "verdict": error, fail, incomplete (a checkpoint's, fl->partial:
 * the run goes on, or was killed after it), pass or none (nothing
 * measured). */
const char *fleet_verdict(const struct fleet *fl, int status);
/* Judge, print the verdict, write the outputs: the final exit status
 * (status, or 3 when it was 0 and a threshold was exceeded, or 1 when an
 * output could not be written or a record kept). */
int fleet_end(struct fleet *fl, const char *prog, int status);
/* Would fleet_end give 3? (for the JSON's return_code) */
bool fleet_exceeded(const struct fleet *fl);
/* Seconds since fleet_begin (the JUnit suite's and cases' time). */
double fleet_elapsed(const struct fleet *fl);

/* For the writers (fleet_out.c). */
int fleet_count(const struct fleet *fl);
/* Has any series a sample? (no: the run measured nothing) */
bool fleet_measured(const struct fleet *fl);
const struct fleet_rec *fleet_get(const struct fleet *fl, int i);
void fleet_judge(const struct fleet *fl, int i, struct fleet_judged *v);
const char *fleet_host(const struct fleet *fl);
/* m: fleet_get()'s */
long long fleet_worst(const struct fleet *fl, const struct fleet_rec *m);
/* Every iteration's records, in the order they came. */
int fleet_raw_count(const struct fleet *fl);
const struct fleet_rec *fleet_raw(const struct fleet *fl, int i);
int fleet_threads(const struct fleet *fl, const struct fleet_rec *r);

/* fleet_limits.c: --max-latency and --max-p99 read (0, or -1 after the
 * line: exit 2) and the threshold of a record (us; 0: none). */
int fleet_limits_check(struct fleet *fl, const char *prog, struct opt *tbl);
void fleet_limits(const struct fleet *fl, const struct fleet_rec *r,
		  long long *lat_us, long long *p99_us);

/* fleet_out.c */
int fleet_write_junit(const struct fleet *fl, const char *prog, const char *path,
		      double secs, int status);
int fleet_write_openmetrics(const struct fleet *fl, const char *prog,
			    const char *path);
void fleet_print_lava(const struct fleet *fl, FILE *f, const char *test,
		      int status);

/*
 * fleet_iter.c: --iterations N. Iterations 1..N-1 each run once() in a
 * forked child, whose records come back through a pipe; the last runs
 * here. stop_seen waits a little (about 10 ms) and says whether a stop
 * signal came: the iteration running is then stopped, and no other run.
 */
struct fleet_iter {
	const char *prog;
	int (*once)(void *arg);
	bool (*stop_seen)(void *arg);
	/* While an iteration's child runs (NULL: nothing): pass it what
	 * it should have (SIGUSR1, the status: harness/status.h). */
	void (*forward)(void *arg, pid_t child);
	void *arg;
};
int fleet_iterate(struct fleet *fl, const struct fleet_iter *it);

#endif
