/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * checkpoint.h - --checkpoint TIME: every output file the run was asked
 * for (--json, the histfile, --junit, --openmetrics) rewritten complete
 * and valid while the run measures, so that a run killed at hour 23 of 24
 * (SIGKILL, a crash, a power cut) leaves its results up to the last
 * checkpoint. Each file is written aside, fsynced, renamed over the last
 * one and its directory fsynced (system/outfile.c). The JSON says
 * "complete": false and "checkpoint": {"at_wall", "covered_s",
 * "planned_s"}; the final write "complete": true, "checkpoint": null.
 *
 * The writing is done by a thread of its own (SCHED_OTHER, every signal
 * blocked), never by a measuring thread: it calls the test's .checkpoint,
 * which writes from a snapshot of its state (checkpoint_stats_copy). With
 * --openmetrics the file is also refreshed every CHECKPOINT_OM_S seconds
 * for runs planned longer than a minute (a live view for node_exporter's
 * textfile collector), with each series' maximum of the last refresh.
 * The same thread is the run's status watch (harness/status.h): every
 * run has it, checkpoints or not, and it answers SIGUSR1 with the
 * figures so far on stderr (every test but the cyclictest face, whose
 * display thread prints cyclictest's own status block); the run goes on.
 */
#ifndef RTLAT_CHECKPOINT_H
#define RTLAT_CHECKPOINT_H

#include <stdbool.h>
#include <stdint.h>
#include "util/opts.h"

#define CHECKPOINT_DEFAULT_S	600	/* when the run is planned > 1 h */
#define CHECKPOINT_LONG_S	3600
#define CHECKPOINT_OM_S		10	/* --openmetrics' refresh */
#define CHECKPOINT_OM_LONG_S	60	/* ... for runs planned longer */

#define CHECKPOINT_OPT_ENTRY(where)						\
	{ .long_name = "checkpoint", .type = OPT_DURATION, .arg = OPT_ARG_REQUIRED, \
	  .argname = "TIME", .max = OPT_MAX_DURATION_S, .dflt = -1, .dest = where, \
	  .help = "every TIME (N[s|m|h|d]) rewrite every output file asked for, complete and marked incomplete, so that a run killed or crashed leaves its results so far (stdout and FIFOs: the final write only); 0: off; default 10m when the time line is on (--timeline; not the timer's 1s one of a run up to an hour), else off", \
	  .key = "checkpoint_s" }

struct test_run;
struct stats;
struct histogram;
struct fleet_rec;
struct checkpoint;
struct json;
struct results_ckpt;

/*
 * Before measure: resolve the default of --checkpoint from the run's
 * time line and start the run's status thread (checkpoints when the test
 * has .checkpoint and an output file was asked for; SIGUSR1 always).
 * Returns 0, or -1 after a message (the thread could not start: the run
 * goes on without checkpoints or status).
 */
int checkpoint_begin(struct test_run *t);
/* After measure: stop and join the thread, free its state. */
void checkpoint_end(struct test_run *t);
/* Checkpoints will rewrite the output files (not only the live view). */
bool checkpoint_writes_files(const struct test_run *t);
/* --checkpoint's default for a run (or rtlat suite) whose --timeline is
 * timeline_s: CHECKPOINT_DEFAULT_S when the time line is on, else 0. */
long long checkpoint_default_s(long long timeline_s);

/*
 * A copy of a series that measuring threads may be adding to, into dst
 * (its own histogram, allocated; checkpoint_stats_free). Returns 0 or
 * -ENOMEM. See checkpoint.c for why what it reads is valid.
 */
int checkpoint_stats_copy(struct stats *dst, const struct stats *live);
void checkpoint_stats_free(struct stats *s);
/* A histogram's copy (zero: same buckets, every count 0). */
int checkpoint_hist_copy(struct histogram *dst, const struct histogram *live,
			 bool zero);

/*
 * Whether the output at path (NULL: not asked) is written now: always at
 * the end (ck off); at a checkpoint that rewrites the files, if it can be
 * rewritten whole (outfile_rewritable: stdout, a FIFO or a device get the
 * final write only). Every writer called at a checkpoint asks this.
 */
bool checkpoint_writes(const struct results_ckpt *ck, const char *path);
/* results_open: "complete" and "checkpoint" (null on the final write). */
void checkpoint_json(struct json *j, const struct results_ckpt *ck);
/* results_summary in checkpoint mode: the series' maximum since the last
 * checkpoint or refresh into r (step_max, step_s). */
void checkpoint_step(struct checkpoint *c, struct fleet_rec *r,
		     const struct stats *s);

#endif
