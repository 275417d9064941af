/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * suite_checkpoint.h - rtlat suite's results directory kept valid while
 * it runs (suite_checkpoint.c): index.json says which tests are done,
 * "complete": false until the end (the shared "checkpoint" object of
 * harness/checkpoint.h); with --checkpoint the suite's --junit and
 * --openmetrics are rewritten after each test, and it goes to each test.
 */
#ifndef RTLAT_SUITE_CHECKPOINT_H
#define RTLAT_SUITE_CHECKPOINT_H

#include <stdbool.h>
#include <stdint.h>

#define SUITE_CKPT_MAX 32

enum suite_ckpt_state { SC_PENDING, SC_RUNNING, SC_DONE, SC_NOT_RUN };

struct load_result;

struct suite_ckpt {
	const char *prog;	/* "rtlat suite", "rtlat qualify" */
	const char *dir;
	int64_t start_ns;
	double planned_s;
	bool outputs;		/* --checkpoint on: the fleet outputs too */
	int n;
	struct {
		const char *name;
		enum suite_ckpt_state state;
		int status;		/* its exit status, once done */
		const char *phase;	/* rtlat qualify's phase; NULL */
		const char *why;	/* not run, and why; NULL */
		const struct load_result *load;	/* the load beside it */
	} t[SUITE_CKPT_MAX];
};

struct fleet;

void suite_ckpt_begin(struct suite_ckpt *c, const char *dir, double planned_s);
/* A test (a phase of rtlat qualify: phase; why: it cannot run). */
void suite_ckpt_add(struct suite_ckpt *c, const char *name, const char *phase,
		    const char *why);
/* A test's new state (its exit status when done), then index.json and,
 * when it is done, the suite's fleet outputs so far. */
void suite_ckpt_set(struct suite_ckpt *c, struct fleet *fl, const char *name,
		    enum suite_ckpt_state state, int status);
/* The end: what did not run said so, "complete": true, and the suite's
 * verdicts (fleet_json's "fleet": its thresholds judged on every test's
 * series and threads; status 1: "error"). */
void suite_ckpt_end(struct suite_ckpt *c, const struct fleet *fl, int status);

#endif
