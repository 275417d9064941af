// SPDX-License-Identifier: GPL-2.0-or-later
/* suite_checkpoint.c - rtlat suite's index.json (suite_checkpoint.h). */
#include <stdio.h>
#include <string.h>
#include <time.h>
#include "measure/clock.h"
#include "util/json.h"
#include "system/outfile.h"
#include "fleet/fleet.h"
#include "harness/results.h"
#include "harness/checkpoint.h"
#include "suite/suite_checkpoint.h"
#include "system/load.h"

static const char *const state_names[] = {
	"pending", "running", "done", "not run"
};

void suite_ckpt_begin(struct suite_ckpt *c, const char *dir, double planned_s)
{
	memset(c, 0, sizeof(*c));
	c->prog = "rtlat suite";
	c->dir = dir;
	c->planned_s = planned_s;
	c->start_ns = clock_now_ns();
}

void suite_ckpt_add(struct suite_ckpt *c, const char *name, const char *phase,
		    const char *why)
{
	if (c->n == SUITE_CKPT_MAX)
		return;
	memset(&c->t[c->n], 0, sizeof(c->t[c->n]));
	c->t[c->n].name = name;
	c->t[c->n].state = why ? SC_NOT_RUN : SC_PENDING;
	c->t[c->n].phase = phase;
	c->t[c->n].why = why;
	c->n++;
}

/* rtlat qualify's phase, why it did not run, the load beside it. */
static void write_extra(struct json *j, const struct suite_ckpt *c, int i)
{
	if (c->t[i].phase)
		json_str(j, "phase", c->t[i].phase);
	if (c->t[i].why)
		json_str(j, "why", c->t[i].why);
	if (c->t[i].load)
		load_json(j, c->t[i].load);
}

/*
 * index.json, written aside, fsynced and renamed (outfile.c). With the
 * suite's records (fl), its "fleet" object too: every test's series and
 * threads as the suite judged them (--max-latency, --max-p99), the same
 * object as each test's own --json holds, so a reader of the directory has
 * the verdicts the tests' files cannot (each test runs without them).
 * status: the suite's so far (1: a test failed or a stop signal came).
 */
static void write_index(const struct suite_ckpt *c, const struct fleet *fl,
			bool complete, int status)
{
	struct results_ckpt ck = {
		.on = !complete,
		.covered_s = (double)(clock_now_ns() - c->start_ns) / 1e9,
		.planned_s = c->planned_s,
	};
	char path[4200], file[64];
	struct outfile of;
	struct json j;
	FILE *f;
	int i;

	clock_gettime(CLOCK_REALTIME, &ck.at);
	snprintf(path, sizeof(path), "%s/index.json", c->dir);
	f = outfile_open(&of, c->prog, "-o", path);
	if (!f)
		return;
	json_init(&j, f);
	json_obj_open(&j, NULL);
	if (c->prog && strcmp(c->prog, "rtlat suite") != 0)
		json_str(&j, "command", c->prog + strlen("rtlat "));
	checkpoint_json(&j, &ck);
	json_arr_open(&j, "tests");
	for (i = 0; i < c->n; i++) {
		json_obj_open(&j, NULL);
		json_str(&j, "name", c->t[i].name);
		json_str(&j, "state", state_names[c->t[i].state]);
		if (c->t[i].state == SC_DONE)
			json_int(&j, "exit_status", c->t[i].status);
		else
			json_null(&j, "exit_status");
		snprintf(file, sizeof(file), "%s.json", c->t[i].name);
		json_str(&j, "json", file);
		snprintf(file, sizeof(file), "%s.txt", c->t[i].name);
		json_str(&j, "log", file);
		write_extra(&j, c, i);
		json_obj_close(&j);
	}
	json_arr_close(&j);
	if (fl)
		fleet_json(fl, &j, status);
	json_obj_close(&j);
	outfile_close(&of, c->prog);
}

void suite_ckpt_set(struct suite_ckpt *c, struct fleet *fl, const char *name,
		    enum suite_ckpt_state state, int status)
{
	const struct fleet_opts *o = fl ? fl->opts : NULL;
	int i;

	for (i = 0; i < c->n; i++)
		if (!strcmp(c->t[i].name, name)) {
			c->t[i].state = state;
			c->t[i].status = status;
		}
	if (!fl) {	/* before the first test: no record yet */
		write_index(c, NULL, false, 0);
		return;
	}
	/* What is written now is partial: the index's verdict "incomplete",
	 * OpenMetrics' rtlat_run_complete 0, JUnit's run case an error; the
	 * end writes the final ones (suite_ckpt_end, fleet_end). */
	fl->partial = true;
	write_index(c, fl, false, 0);
	if (state == SC_DONE && o && c->outputs) {
		if (o->junit && outfile_rewritable(o->junit))
			fleet_write_junit(fl, "rtlat suite", o->junit, fleet_elapsed(fl), 0);
		if (o->openmetrics && outfile_rewritable(o->openmetrics))
			fleet_write_openmetrics(fl, "rtlat suite", o->openmetrics);
		fl->checkpointed = true;
	}
	fl->partial = false;
}

void suite_ckpt_end(struct suite_ckpt *c, const struct fleet *fl, int status)
{
	int i;

	for (i = 0; i < c->n; i++)
		if (c->t[i].state != SC_DONE)
			c->t[i].state = SC_NOT_RUN;
	write_index(c, fl, true, status);
}
