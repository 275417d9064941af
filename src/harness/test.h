/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * test.h - what every test is to the harness: a row of callbacks, run by
 * run_test() through one lifecycle (as rtla's run_tool, lmbench's benchmp):
 *
 *   program name, stop signals -> defaults, parse, check (exit 2) ->
 *   results_begin, cleanup_init, setup (exit 1 "cannot set up") ->
 *   rt_init, rt_apply -> measure (start, supervise, stop) -> report ->
 *   teardown, tracefs_close, rt_fini, cleanup_run -> fleet_end (exit 3
 *   if a threshold was exceeded; JUnit, OpenMetrics, LAVA lines).
 * With --iterations N the part from results_begin on runs N times
 * (fleet/fleet_iter.c). The fleet (fleet/fleet.h) is a layer below: the
 * run owns its struct fleet and hands it the test's name and series.
 *
 * Adding a test: one file with its struct test_ops, one row in tests[]
 * (src/registry.c).
 */
#ifndef RTLAT_TEST_H
#define RTLAT_TEST_H

#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include "fleet/fleet.h"
#include "measure/largest.h"
#include "util/opts.h"
#include "measure/record.h"
#include "harness/results.h"
#include "system/rtsetup.h"
#include "harness/checkpoint.h"
#include "system/outfile.h"
#include "harness/action.h"

/* The settings every test has, embedded in its config. */
struct test_common {
	const char *json;		/* --json */
	bool strict;			/* --strict */
	bool no_mlock;			/* --no-mlock */
	bool no_dma_latency;		/* --no-dma-latency */
	struct fleet_opts fleet;	/* thresholds, baseline, fleet outputs */
	bool explain;			/* --explain (TEST_EXPLAIN_OPTS) */
	long long explain_over_us;	/* --explain-over: 0 new maxima */
	const char *trace_out;		/* --trace-out DIR: NULL off */
	long long timeline_s;		/* --timeline: 0 off; OPT_AUTO: by length */
	long long largest;		/* --largest K: 0 off */
	long long checkpoint_s;		/* --checkpoint: 0 off, -1 default */
	const char *samples;		/* --samples FILE, or NULL */
	const char *on_threshold;	/* --on-threshold (action.h) */
};

/* --explain and --explain-over, in the tables of the tests that take them
 * (the test notes its spikes: run_explain_new()). */
#define TEST_EXPLAIN_OPTS(c)							\
	{ .long_name = "explain", .type = OPT_FLAG, .arg = OPT_ARG_NONE, \
	  .dest = &(c)->explain,					\
	  .help = "attribute the worst latencies to IRQs, softirqs, tasks, the wake-up or hardware, from tracepoints in rtlat's own tracefs instance, each with the kernel stack of what delayed the thread (the stacktrace trigger)" }, \
	{ .long_name = "explain-over", .type = OPT_INT, .arg = OPT_ARG_REQUIRED, \
	  .argname = "US", .max = 10000000, .dest = &(c)->explain_over_us, \
	  .help = "--explain: every sample over US (at most 5 a second); 0: each new maximum after the warm-up" }, \
	{ .long_name = "trace-out", .type = OPT_STRING, .arg = OPT_ARG_REQUIRED, \
	  .argname = "DIR", .dest = &(c)->trace_out,			\
	  .help = "--explain: save each explained spike's trace window (its CPU's events and kernel stacks from 20 ms before the expected wake-up to the actual one, with the figures, causes and the spike's stack) as text in DIR/rtlat-spike-N.txt, as rtla's -t; DIR must exist" }

/* The option-table entries that set a struct test_common *c. */
#define TEST_COMMON_OPTS(c, json_help)						\
	TEST_COMMON_ROWS(c, json_help),						\
	RUN_SAMPLES_OPT(c),							\
	OPT_ROW_VERSION

/* All of them but --samples, for a test whose --samples is its own (rtlat
 * request's: cycles per round); --samples-file names the file there. */
#define TEST_COMMON_OPTS_OWN_SAMPLES(c, json_help)				\
	TEST_COMMON_ROWS(c, json_help),						\
	OPT_ROW_VERSION

#define TEST_COMMON_ROWS(c, json_help)						\
	{ .long_name = "json", .type = OPT_PATH_OUT, .arg = OPT_ARG_REQUIRED, \
	  .argname = "FILE", .dest = &(c)->json, .help = json_help },	\
	RT_OPT_ENTRIES(&(c)->strict, &(c)->no_mlock, &(c)->no_dma_latency),	\
	CHECKPOINT_OPT_ENTRY(&(c)->checkpoint_s),				\
	FLEET_OPT_ENTRIES(&(c)->fleet),						\
	RUN_RECORD_OPTS(c),							\
	RUN_SAMPLES_FILE_OPT(c),						\
	ACTION_OPT_ENTRY(&(c)->on_threshold)

/* --timeline and --largest (run_record.c): what a long run keeps over
 * its whole length, for every series and thread. */
#define RUN_RECORD_OPTS(c)							\
	{ .long_name = "timeline", .type = OPT_DURATION, .arg = OPT_ARG_REQUIRED, \
	  .argname = "TIME", .max = OPT_MAX_DURATION_S, .dflt = OPT_AUTO, \
	  .dest = &(c)->timeline_s,					\
	  .help = "keep each TIME step's count, min, avg, max, p99 and count over --max-latency, per series and thread, in the JSON's \"timeline\" (N[s|m|h|d]; 0: off; default 1m when the run is planned for over an hour or until stopped, else off; the timer: 1s up to an hour or until stopped, each step with its CPU's interrupts, softirqs, steal, pressure and involuntary switches; past 10000 steps, steps merge two by two)", \
	  .key = "timeline_s" },					\
	{ .long_name = "largest", .type = OPT_INT, .arg = OPT_ARG_REQUIRED, \
	  .argname = "K", .max = LARGEST_MAX_K, .dflt = LARGEST_DEFAULT_K, \
	  .dest = &(c)->largest,					\
	  .help = "keep the K largest samples of each series and thread with their time and CPU, in the JSON's \"largest\" (0: off)", \
	  .key = "largest" }

/* --samples-file (run_record.c, measure/record_samples.c): every sample;
 * --samples the same where the test has no --samples of its own. */
#define RUN_SAMPLES_FILE_OPT(c)							\
	{ .long_name = "samples-file", .type = OPT_PATH_OUT, .arg = OPT_ARG_REQUIRED, \
	  .argname = "FILE", .dest = &(c)->samples,			\
	  .help = "write every sample of every series and thread (its time and latency in ns) to FILE, in the binary layout of the SAMPLES FILE section, from a ring per series that the measuring thread never waits on (a full ring is counted as dropped, in the JSON's \"samples\"); rtlat-report samples FILE reads it", \
	  .key = "samples_file" }
#define RUN_SAMPLES_OPT(c)							\
	{ .long_name = "samples", .type = OPT_PATH_OUT, .arg = OPT_ARG_REQUIRED, \
	  .argname = "FILE", .dest = &(c)->samples,			\
	  .help = "the same as --samples-file FILE" }

/* Interrupts a worker's blocking call so it sees the stop flag. */
#define RUN_KICK_SIGNAL (SIGRTMAX)

/* How the stop signals (SIGINT, SIGTERM, SIGHUP) reach the test. */
enum test_stop {
	/* A handler sets run_stop_requested and the flag run_stop_flag()
	 * named; blocking calls return EINTR. */
	STOP_BY_HANDLER,
	/* Blocked in every thread; the test polls run_stop_wait(). */
	STOP_BY_SIGWAIT,
};

struct test_run;
struct explain;

struct test_ops {
	const char *name;		/* "pmq": rtlat pmq */
	const char *compat;		/* "pmqtest": argv[0] name; NULL: none */
	const char *title;		/* one line for --help */
	/* rtlat --list, the suite's registry.json and the report: the
	 * family ("pair", "timer", "request", "determinism", "doctor") and
	 * the series results_summary() reports, NULL-terminated. */
	const char *family;
	const char *const *series;
	const struct opt *opts;		/* OPT_END-terminated, with TEST_COMMON_OPTS */
	const struct opt *extra_opts;	/* appended (a pair mechanism's); or NULL */
	/* Where TEST_COMMON_OPTS store: its offset in the config
	 * (OPT_AT_STRUCT(struct foo_config, common)). */
	struct test_common *common;
	/*
	 * The test's config, owned by the run (as rtla's tool->data):
	 * run_test allocates cfg_size zeroed bytes for each run, binds the
	 * rows of opts (OPT_AT: offsets, the one way a table stores) to it
	 * and hands it to every callback as t->cfg.
	 */
	size_t cfg_size;
	/* The test's run state (its threads, series, errors), allocated
	 * zeroed with the config and handed over as t->state; 0: none.
	 * With --iterations each iteration runs in a forked child (a crash
	 * is that iteration's failure), so it starts from the state check()
	 * left, never from the last iteration's. */
	size_t run_size;
	/* The config extra_opts store into, bound by offset the same way
	 * (a pair mechanism's): t->extra; 0: no extra_opts. */
	size_t extra_size;
	enum test_stop stop;
	bool kick;			/* catch RUN_KICK_SIGNAL: only EINTR */
	/* STOP_BY_SIGWAIT: the test prints its own status (as cyclictest's),
	 * taken with run_status_take(): SIGUSR1 from the run's status
	 * thread (harness/status.h), SIGUSR2 from run_stop_wait. Without
	 * it, SIGUSR1 prints the harness's status lines. */
	bool status_signals;
	/* --timeline's default step (s) for a run planned for an hour or
	 * less or until stopped; 0: off there, as most tests (the timer:
	 * 1, its per-second counters are the time line's context). */
	int timeline_short_s;
	const void *data;		/* the test's own (pair: its transport) */
	/* Started under the compat name: adjust the run's copy of the
	 * option table (a default, a range the original clamps) before
	 * parsing. NULL: the same table under both names. */
	void (*compat_opts)(struct opt *tbl);
	/*
	 * rtlat suite: write the test's short arguments for d seconds at
	 * SCHED_FIFO prio into buf; return about how long it runs (s).
	 */
	long long (*suite_args)(char *buf, size_t len, long long d, long long prio);
	/*
	 * The checks' short run of the test (make cross-check under
	 * emulation, the autopkgtest, the kernel stage): its arguments,
	 * plain words split on spaces ("": none), ending within seconds on
	 * any machine; and a line its standard output then has, a regular
	 * expression (Python's re, matched against each line). Every row
	 * has both: rtlat --list writes them, the checks read them there.
	 */
	const char *check_args;
	const char *check_line;
	/* Its man page's OUTPUT and JSON KEYS paragraphs (one a line);
	 * NULL: manpage.c's table has them. */
	const char *man_output, *man_json;

	/* After parsing: cross-option checks; print the line, return -1
	 * (exit 2, nothing run), or 1 for an error that is not the input's
	 * (a resource limit found before the run: exit 1). */
	int (*check)(struct test_run *t);
	/* Allocate: -1 is "cannot set up" (exit 1). */
	int (*setup)(struct test_run *t);
	/* After rt_init: apply or probe the main thread's real-time
	 * settings; -1 when --strict and one failed. */
	int (*rt_apply)(struct test_run *t);
	/* Start, supervise, stop. Returns the status so far (0 or 1). */
	int (*measure)(struct test_run *t);
	/* Print and write the results (also after a failed start).
	 * Returns the final exit status. */
	int (*report)(struct test_run *t, int status);
	/*
	 * --checkpoint (harness/checkpoint.h): write the outputs of the run
	 * so far, on the checkpoint thread while the test measures, from a
	 * snapshot of its state (the test's own writers, results_open in
	 * checkpoint mode, results_summary for each series as .report does);
	 * nothing on stdout. NULL: the test does not checkpoint.
	 */
	void (*checkpoint)(struct test_run *t);
	/* Free what setup allocated (always, after report). */
	void (*teardown)(struct test_run *t);
};

struct test_run {
	const struct test_ops *ops;
	const char *prog;		/* argv[0]'s base name */
	struct opt *opts;		/* the table parsed (opts + extra_opts),
					 * the run's copy, bound to its config */
	bool *given;			/* the rows the command line set */
	void *cfg;			/* the test's config (cfg_size) */
	void *state;			/* the test's run state (run_size), or NULL */
	void *extra;			/* extra_opts' config (extra_size), or NULL */
	struct test_common *common;	/* the options every test has */
	struct results res;
	/* Why the harness did not measure (a --strict real-time setting
	 * failed): the report prints it and puts it in the JSON. */
	const char *error;
	/* --explain: the spikes the test notes; NULL when off. */
	struct explain *explain;
	/* --timeline, --largest: NULL when both are off (run_record.c). */
	struct recorder *rec;
	/* --checkpoint's thread and state while measuring; NULL: none. */
	struct checkpoint *ckpt;
	/* --samples' file while open (run_record.c). */
	struct outfile smp_out;
	bool smp_open;
	/* --on-threshold read (action_check), and its thread while
	 * measuring (NULL: none). */
	struct action_spec act_spec;
	struct action *act;
	int argc;
	char **argv;
};

/* The one entry of every test: returns the exit status. */
int run_test(const struct test_ops *ops, int argc, char **argv);

/* Set once a stop signal arrived (STOP_BY_HANDLER). */
/* The stop handler writes it (a lock-free atomic: async-signal-safe),
 * every thread reads it. */
extern atomic_int run_stop_requested;
/* Also set *flag on a stop signal (and now, if one came already). */
void run_stop_flag(atomic_int *flag);
/* STOP_BY_SIGWAIT: wait up to ns for a stop signal; true if one came.
 * A status signal that came meanwhile is noted for run_status_take. */
bool run_stop_wait(int64_t ns);
#define RUN_STATUS_USR1	1
#define RUN_STATUS_USR2	2
/* The status signals noted since the last call (RUN_STATUS_* bits). */
int run_status_take(void);
/* Note a status signal for run_status_take (the status thread's, for a
 * test with status_signals: SIGUSR1, harness/status.h). */
void run_status_note(int bits);
/* run_test's first step: install or block the stop signals as ops->stop
 * says (run_stop.c). */
void run_signals(const struct test_ops *ops);

/*
 * --explain for nsrc measuring threads: NULL when not asked (or no
 * memory). The test sets each source's cpu, name, remote and running,
 * then calls run_explain_start() before its threads start; the lifecycle
 * stops it after measure, writes it into the JSON, prints it after the
 * report and frees it.
 */
struct explain *run_explain_new(struct test_run *t, int nsrc);
/* Without tracefs the run goes on unexplained (one line; t->explain is
 * then NULL), unless --strict: -1. */
int run_explain_start(struct test_run *t);

/*
 * --timeline and --largest (run_record.c). run_record_begin resolves the
 * automatic --timeline and makes t->rec; the test registers each series
 * and thread it measures at setup (before a child is forked) with
 * run_record and calls record_add(r, now_ns, sample_ns) beside its
 * stats_add. The lifecycle starts, stops and frees the recorder; the JSON
 * gets its "timeline" and "largest" from results_close.
 */
int run_record_begin(struct test_run *t);
struct rec_series *run_record(struct test_run *t, const char *series,
			      int thread, int cpu);
/* --timeline's default for a run planned for planned_s seconds (0:
 * until stopped; -1: not known in time): 1 min over an hour or until
 * stopped, else off (0). rtlat suite decides it for its whole run. */
long long run_timeline_default_s(long long planned_s);
/* The row that sets how long a test runs (its first duration-typed row
 * but --timeline), or NULL. */
const struct opt *run_length_row(const struct opt *tbl);
/* --samples: write the file out after record_stop (status 1 when it
 * could not be written), or discard it (the run was refused, exit 2).
 * Returns the status. */
int run_samples_end(struct test_run *t, int status, bool discard);

/*
 * After setup, before anything is locked (run_memory.c): the memory the
 * run will lock against RLIMIT_MEMLOCK, its memory cgroups and
 * MemAvailable. -1 after one line naming the options (--largest,
 * --timeline, the threads) and what would fit: the run is refused
 * (exit 2); 0: it goes on.
 */
int run_memory_check(struct test_run *t);

/* Start a measuring thread (small stack, see rt_thread_attr): 0 or an
 * errno. */
int run_thread(pthread_t *t, void *(*fn)(void *), void *arg);

/*
 * A test inside another (rtlat sync runs a pair test): t as run_test sets
 * it up, its config at the defaults, nothing parsed; 0 or -1 after the
 * message. run_nested_free releases what run_test would.
 */
int run_nested(struct test_run *t, const struct test_ops *ops, const char *prog);
void run_nested_free(struct test_run *t);

/* Defaults, parse, and no operands left: 0, or -1 after the message. */
int run_parse(const char *prog, const char *title, struct opt *tbl,
	      bool *given, int argc, char **argv);
/* "rtlat pmq": the base name of a path. */
const char *run_base_name(const char *path);
/* Started under the test's compatible name (argv[0] "trltp", "pmqtest"):
 * behave and print as the original. */
bool run_compat(const struct test_run *t);
/* Run by rtlat suite (its summary pipe, RTLAT_SUMMARY_FD): the suite
 * says what runs, the test's own "running" lines are left out. */
bool run_in_suite(void);

#endif
