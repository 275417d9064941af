/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * results.h - the JSON result file common to every subcommand: rt-tests'
 * header keys (file_version 1, cmdline, start/end time, return_code,
 * sysinfo), then the subcommand's body, then rtlat's own system and RT
 * records. Written to PATH.tmp and renamed, so a reader never sees half.
 */
#ifndef RTLAT_RESULTS_H
#define RTLAT_RESULTS_H

#include <sched.h>
#include <stdbool.h>
#include <time.h>
#include "system/context.h"
#include "util/json.h"
#include "system/msr.h"
#include "system/outfile.h"

struct stats;
struct explain;
struct fleet;
struct recorder;

/* A checkpoint being written (harness/checkpoint.h); on false: the final. */
struct results_ckpt {
	bool on;		/* "complete": false, "checkpoint": {...} */
	bool files;		/* this one writes every file, else --openmetrics only */
	struct timespec at;	/* "at_wall" (CLOCK_REALTIME) */
	double covered_s;	/* measured so far */
	double planned_s;	/* < 0: not known (null) */
	struct checkpoint *owner;
};

/* The CPUs whose measuring thread could not run (harness/starve.h). */
#define RESULTS_STARVED_MAX	16	/* with their reason; more: counted */
#define RESULTS_STARVED_WHY	400

struct results_starved {
	int cpu;
	char why[RESULTS_STARVED_WHY];	/* "CPU 1 could not be measured: ..." */
};

struct results {
	const char *prog;	/* for messages: "rtlat cyclictest"... */
	const char *path;	/* NULL: no JSON asked */
	const char *test;	/* "pmq", "timer"... */
	/* "rt_test_version:": the rt-tests version whose format a face
	 * follows ("2.40"); NULL: rtlat's own (rtlat.version has it always) */
	const char *format_version;
	int argc;
	char **argv;
	time_t start;
	/* CLOCK_REALTIME at results_begin and at results_open: "rtlat"'s
	 * "start_rfc3339" and "end_rfc3339" */
	struct timespec start_wall, end_wall;
	const struct explain *explain;	/* --explain, written at the end */
	/* --explain asked but not possible: why ("explain_unavailable") */
	char explain_unavailable[300];
	struct outfile out;	/* the file being written (results_open) */
	int return_code;	/* the run's exit status, as results_open had it */
	/* The run's fleet (run_test's): the series results_summary reports
	 * are kept there; NULL: not kept (a test inside another). */
	struct fleet *fleet;
	/* --timeline, --largest: written by results_close; NULL: null keys */
	struct recorder *rec;
	struct json jw;
	/* Steal time and throttling at results_begin: "context" gives
	 * their change over the run. */
	struct ctx_snap ctx_before;
	struct results_ckpt ckpt;
	/*
	 * "system" and "doctor" as rendered before the measurement, for the
	 * checkpoints (results_cache_system); NULL: rendered at each write.
	 * The doctor forks a child (can it be SCHED_FIFO?), and a fork while
	 * the measuring threads run holds their address space's lock and
	 * makes their pages copy-on-write: page faults on the measuring path
	 * at every checkpoint. The final write, after they stopped, renders
	 * both afresh.
	 */
	char *cache_system, *cache_doctor;
	/*
	 * The CPUs found starved (harness/starve.c): each series of such a
	 * CPU, and each whole series, is an error (results_summary_part),
	 * and the run's exit status is 1. Written by the status thread,
	 * read by it at a checkpoint and by the run after joining it.
	 */
	cpu_set_t starved;
	int nstarved;
	struct results_starved starved_cpu[RESULTS_STARVED_MAX];
	/* MSR_SMI_COUNT of each CPU at results_begin: "smi" gives it and
	 * the count at each write (system/msr.h). */
	struct smi_snap smi_start;
};

void results_begin(struct results *r, const char *prog, const char *path,
		   const char *test, int argc, char **argv);
/* Open the file and write the header; returns NULL if no file was asked
 * or it cannot be written (message printed). */
struct json *results_open(struct results *r, int return_code);
/* Write the trailer ("rtlat" object, "system", "rt") and close.
 * Returns 0 or -1 (message printed). */
int results_close(struct results *r, struct json *j);
/* Render "system" and "doctor" now, for the checkpoints to come. */
void results_cache_system(struct results *r);
void results_cache_free(struct results *r);
struct opt;
/* The "settings" rows of a parsed table: every row with a key, its value
 * as the run's config holds it (opts.h: struct opt's key), but for the
 * keys in skip (NULL-terminated, or NULL): those the mode does not use. */
void results_settings(struct json *j, const struct opt *tbl, const char *const *skip);
/* A stats object: count, min/avg/max/stddev in ns, percentiles, histogram.
 * target: NULL for deviation about the mean. */
struct histogram;
/* A histogram object ("histogram": its layout and non-empty buckets). */
void results_hist(struct json *j, const struct histogram *h);
void results_stats(struct json *j, const char *key, const struct stats *s,
		   const double *target);

/*
 * Report a headline series: kept for the thresholds, baseline and fleet
 * outputs (fleet.h) and the JSON's "fleet" object, and for "rtlat suite":
 * when RTLAT_SUMMARY_FD names a pipe, one tab-separated line "name samples
 * min avg max p99 p99.99 p50 le..." (ns, fleet_rec_format) is written to it.
 */
void results_summary(struct results *r, const char *series,
		     const struct stats *s);
/* One thread's part of a series (a pair's, a CPU's sampler), reported
 * after or before the whole: per-thread cases (LAVA t<N>-...), the cpu
 * label of OpenMetrics. cpu -1: not pinned to one. */
void results_summary_part(struct results *r, const char *series, int thread,
			  int cpu, const struct stats *s);

#endif
