// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * qualify.c - "rtlat qualify": one command, one verdict, as rteval and
 * cnf-tests qualify a board. The doctor first (a verdict that prevents
 * real time stops it, unless --force), then a short hwlat phase (where
 * the registry has an "hwlat" test), then the timer on every CPU idle and
 * under load (system/load.c), into one results directory written by the
 * suite's machinery (suite.c): index.json with each phase and its load,
 * every test's JSON and text, JUnit, OpenMetrics, LAVA and checkpoints.
 */
#include <stdio.h>
#include <string.h>
#include "util/opts.h"
#include "harness/checkpoint.h"
#include "harness/test.h"
#include "suite/suite.h"
#include "suite/suite_run.h"

const char qualify_title[] = "one verdict for a board: doctor, hwlat, the timer idle and under load";

static const struct opt qualify_opts[] = {
	{ .long_name = "duration", .type = OPT_DURATION, .arg = OPT_ARG_REQUIRED,
	  .argname = "TIME", .min = 3, .max = OPT_MAX_DURATION_S, .dflt = 3600,
	  .dest = OPT_AT(struct suite_run, duration_s),
	  .help = "the whole qualification (N[s|m|h|d]): the hwlat phase, then the rest shared by the idle and the loaded phase" },
	{ .long_name = "idle-time", .type = OPT_DURATION, .arg = OPT_ARG_REQUIRED,
	  .argname = "TIME", .max = OPT_MAX_DURATION_S,
	  .dest = OPT_AT(struct suite_run, q.idle_s),
	  .help = "the idle phase's length (default: half of what --duration leaves after hwlat)" },
	{ .long_name = "load-time", .type = OPT_DURATION, .arg = OPT_ARG_REQUIRED,
	  .argname = "TIME", .max = OPT_MAX_DURATION_S,
	  .dest = OPT_AT(struct suite_run, q.load_s),
	  .help = "the loaded phase's length (default: what --duration leaves after hwlat and the idle phase)" },
	{ .long_name = "hwlat-time", .type = OPT_DURATION, .arg = OPT_ARG_REQUIRED,
	  .argname = "TIME", .max = OPT_MAX_DURATION_S,
	  .dest = OPT_AT(struct suite_run, q.hwlat_s),
	  .help = "the hwlat phase's length (default: a twentieth of --duration, 1s to 60s; skipped where rtlat has no hwlat test)" },
	{ .short_name = 'p', .long_name = "prio", .type = OPT_INT,
	  .arg = OPT_ARG_REQUIRED, .argname = "PRIO", .min = 1, .max = 99, .dflt = 99,
	  .dest = OPT_AT(struct suite_run, prio),
	  .help = "SCHED_FIFO priority of the measuring threads" },
	{ .long_name = "force", .type = OPT_FLAG, .arg = OPT_ARG_NONE,
	  .dest = OPT_AT(struct suite_run, q.force),
	  .help = "measure even where the doctor finds what prevents real-time work" },
	SUITE_SHARED_ROWS(LOAD_DEFAULT),
	OPT_ROW_VERSION,
	OPT_ROW_HELP,
	OPT_END
};

struct opt *qualify_options(void *cfg)
{
	return opts_bind(qualify_opts, cfg, NULL, NULL);
}

/* The registry's index of a test, -1 if it has none. */
static int reg_index(const struct suite_run *s, const char *name)
{
	int i;

	for (i = 0; s->reg->tests[i]; i++)
		if (!strcmp(s->reg->tests[i]->name, name))
			return i;
	return -1;
}

static long long clamp(long long v, long long lo, long long hi)
{
	return v < lo ? lo : v > hi ? hi : v;
}

/* The phases: hwlat (or why not), the timer idle, the timer loaded. */
static int qualify_plan(struct suite_run *s)
{
	int hw = reg_index(s, "hwlat"), timer = reg_index(s, "timer");
	long long hw_s = 0, rest, idle_s, load_s;
	bool loaded = load_asked(&s->load);
	struct suite_item *it;

	if (timer < 0)
		return 1;
	if (hw >= 0 && (s->reg->tests[hw]->suite_args ||
			run_length_row(s->reg->tests[hw]->opts)))
		hw_s = s->q.hwlat_s ? s->q.hwlat_s : clamp(s->duration_s / 20, 1, 60);
	rest = s->duration_s > hw_s + 2 ? s->duration_s - hw_s : 2;
	idle_s = s->q.idle_s ? s->q.idle_s : loaded ? rest / 2 : rest;
	load_s = s->q.load_s ? s->q.load_s : clamp(rest - idle_s, 1, rest);
	if (hw_s) {
		it = suite_item_add(s, hw, "hwlat", hw_s);
		it->phase = "hwlat";
		/*
		 * Its events are findings for the report, not its end: left
		 * to itself hwlat exits 3 at any gap over its 10 us threshold
		 * (every VM has them), which the suite took for an error.
		 */
		it->extra = "--hardlimit=10000000";
	} else {
		/* Written so that it runs once the registry has hwlat. */
		it = suite_item_add(s, timer, "hwlat", 0);
		it->phase = "hwlat";
		it->why = "this rtlat has no hwlat test";
		fprintf(stderr, "%s: no hwlat phase: %s\n", s->prog, it->why);
	}
	it = suite_item_add(s, timer, "timer-idle", idle_s);
	it->phase = "idle";
	it = suite_item_add(s, timer, "timer-load", load_s);
	it->phase = "load";
	it->load = loaded;
	if (!loaded)
		it->why = "--load none and no --load-cmd";
	return 0;
}

/* The doctor, into DIR/doctor.json: 0 to go on, else the exit status. */
static int qualify_doctor(struct suite_run *s, const char *dir)
{
	char json[4200], path[4200];
	char *av[] = { "rtlat", "doctor", json, NULL };
	int rc;

	if (reg_index(s, "doctor") < 0)
		return 0;
	snprintf(json, sizeof(json), "--json=%s/doctor.json", dir);
	snprintf(path, sizeof(path), "%s/doctor.txt", dir);
	if (!s->quiet)
		fprintf(stderr, "%s: running the doctor\n", s->prog);
	rc = suite_child(s, av, path);
	if (rc == 0)
		return 0;
	if (rc == 1 && s->q.force) {
		fprintf(stderr, "%s: the doctor finds what prevents real-time work (see %s); measuring anyway (--force)\n",
			s->prog, path);
		return 0;
	}
	if (rc == 1)
		fprintf(stderr, "%s: the doctor finds what prevents real-time work (see %s): not measured; --force measures anyway\n",
			s->prog, path);
	else
		fprintf(stderr, "%s: the doctor exited with status %d (see %s)\n",
			s->prog, rc, path);
	return 1;
}

/* rtlat qualify's face: its name, title, table and phases. */
static struct opt *qualify_face(struct suite_run *s)
{
	s->prog = "rtlat qualify";
	s->title = qualify_title;
	s->plan = qualify_plan;
	s->before = qualify_doctor;
	return qualify_options(s);
}

int qualify_main(const struct suite_registry *reg, int argc, char **argv)
{
	return suite_start(reg, argc, argv, qualify_face);
}
