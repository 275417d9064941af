/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * suite_run.h - the run rtlat suite and rtlat qualify share (suite.c):
 * a list of items, each a test run as a child "rtlat SUBCOMMAND" into one
 * results directory, judged by one fleet. The suite's items are the
 * registry's tests; qualify's are its phases (qualify.c), which it hands
 * in through plan and before: suite.c calls nothing of qualify.c.
 */
#ifndef RTLAT_SUITE_RUN_H
#define RTLAT_SUITE_RUN_H

#include <limits.h>
#include <stdbool.h>
#include "fleet/fleet.h"
#include "util/opts.h"
#include "suite/suite.h"
#include "suite/suite_checkpoint.h"
#include "system/load.h"
#include "suite/suite_status.h"

#define SUITE_MAX_ROWS 64

struct row {
	char test[24];
	char line[512];
};

/* One test the run runs: the suite's, or a phase of rtlat qualify. */
struct suite_item {
	const struct test_ops *t;
	int reg;		/* its index in the registry (the status line) */
	char name[24];		/* its files' and records' name: "timer-load" */
	const char *phase;	/* qualify's "hwlat", "idle", "load"; NULL */
	const char *why;	/* not run, and why (index.json); NULL */
	const char *extra;	/* more of its options ("--a=b --c=d"); NULL */
	long long secs;		/* its length (the suite's --duration) */
	bool load;		/* the load runs beside it */
	struct load_result done;	/* what the load did */
};

/*
 * rtlat suite's (or qualify's) run, owned by suite_main (qualify_main):
 * its options (the table's rows bound by offset, as every test's config)
 * and what it keeps while it runs.
 */
struct suite_run {
	const char *prog;	/* "rtlat suite", "rtlat qualify" */
	const char *title;	/* its --help's */
	long long duration_s, prio;
	const char *outdir;
	bool report;
	bool explain;
	bool quiet;
	/* The registry's table and list, handed down by main.c: the
	 * suite sits below the registry, which reads the suite's options. */
	const struct suite_registry *reg;
	unsigned long long only;	/* bit i: tests[i]; 0: all */
	struct fleet_opts fleet;	/* judged on the tests' summaries */
	long long checkpoint_s;		/* --checkpoint, given to each test */
	struct {			/* --timeline, --largest: to each test */
		long long timeline_s, largest;
	} rec;
	struct load_opts load;		/* --load, --load-cmd, ... */
	struct {			/* rtlat qualify's own options */
		bool force;
		long long idle_s, load_s, hwlat_s;
	} q;
	/* The items: made after the options are checked (0, or the exit
	 * status); before: qualify's doctor, once the directory is made. */
	int (*plan)(struct suite_run *s);
	int (*before)(struct suite_run *s, const char *dir);
	struct suite_item items[SUITE_CKPT_MAX];
	int nitems;
	struct suite_status status;	/* SIGUSR1 */
	struct suite_ckpt ckpt;		/* index.json */
	struct opt *opts;		/* the table, bound to this run */
	char report_tool[PATH_MAX];
	struct row rows[SUITE_MAX_ROWS];
	int nrows;
	char text[1 << 18];		/* a test's records, as read */
};

/* The rows rtlat suite's and qualify's tables share, after their own
 * (def_load: --load's default). */
#define SUITE_SHARED_ROWS(def_load) \
	{ .short_name = 'o', .long_name = "results", .type = OPT_DIR_OUT, \
	  .arg = OPT_ARG_REQUIRED, .argname = "DIR", \
	  .dest = OPT_AT(struct suite_run, outdir), \
	  .help = "results directory (default results/rtlat-DATE-TIME)" }, \
	{ .long_name = "report", .type = OPT_FLAG, .arg = OPT_ARG_NONE, \
	  .dest = OPT_AT(struct suite_run, report), \
	  .help = "write report.html into the results directory with rtlat-report" }, \
	{ .long_name = "explain", .type = OPT_FLAG, .arg = OPT_ARG_NONE, \
	  .dest = OPT_AT(struct suite_run, explain), \
	  .help = "run the tests that take --explain with it: their worst spikes attributed to causes, in the results and the report" }, \
	{ .short_name = 'q', .long_name = "quiet", .type = OPT_FLAG, \
	  .arg = OPT_ARG_NONE, .dest = OPT_AT(struct suite_run, quiet), \
	  .help = "no \"running TEST\" line before each test: the table only" }, \
	FLEET_VERDICT_ENTRIES(OPT_AT_STRUCT(struct suite_run, fleet)), \
	CHECKPOINT_OPT_ENTRY(OPT_AT(struct suite_run, checkpoint_s)), \
	RUN_RECORD_OPTS(OPT_AT_STRUCT(struct suite_run, rec)), \
	LOAD_OPT_ENTRIES(OPT_AT_STRUCT(struct suite_run, load), def_load)

/* An item more (NULL: the list is full). */
struct suite_item *suite_item_add(struct suite_run *s, int reg, const char *name,
				  long long secs);
/* A run of face's (its name, title and plan set, its table bound to s,
 * NULL: no memory): parsed, planned, run and judged; the exit status. */
int suite_start(const struct suite_registry *reg, int argc, char **argv,
		struct opt *(*face)(struct suite_run *s));
/* A child "rtlat ARGS..." with its output into path: its exit status
 * (128+signal), -1 if it could not be run. */
int suite_child(struct suite_run *s, char **av, const char *path);
/* --report (suite_report.c): rtlat-report found (s->report_tool), and
 * run on dir: 0, or -1 after a line. */
bool suite_find_report(struct suite_run *s);
int suite_write_report(const struct suite_run *s, const char *dir);

#endif
