// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * hwlat.c - "rtlat hwlat", and hwlatdetect's face under that name: the
 * kernel's hwlat tracer spins with interrupts off on one CPU for --width
 * of every --window and records each gap in the time stamp counter
 * longer than --threshold: time the firmware (SMIs), the hypervisor or
 * the hardware took. Each event with its inner/outer gap, NMIs and time;
 * the count per hour with its exact interval; the SMI counts around the
 * run. Nothing of rtlat's measures: the tracer's own kernel thread does.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "hwlat/hwlat.h"
#include "hwlat/hwlat_test.h"
#include "measure/clock.h"
#include "system/tracefs.h"
#include "util/json.h"
#include "harness/results.h"
#include "harness/test.h"

static const char *const hwlat_series[] = { NULL };
static const char *const mode_choices[] = { "none", "round-robin", "per-cpu", NULL };

#define HWLAT_CONF 0.95

static const struct opt hwlat_opts[] = {
	OPT_ROW_DURATION(struct hwlat_config, duration_s, 120,
			 "total time to test for hardware latency (N[s|m|h|d]); 0: until stopped"),
	{ .long_name = "threshold", .type = OPT_INT, .arg = OPT_ARG_REQUIRED,
	  .argname = "US", .min = 1, .max = 1000000, .dflt = 10,
	  .dest = OPT_AT(struct hwlat_config, threshold_us),
	  .help = "a gap over US microseconds is a hardware latency (the tracer's tracing_thresh)",
	  .key = "threshold_us" },
	{ .long_name = "hardlimit", .type = OPT_INT, .arg = OPT_ARG_REQUIRED,
	  .argname = "US", .max = 10000000,
	  .dest = OPT_AT(struct hwlat_config, hardlimit_us),
	  .help = "exit 3 when the largest gap is over US microseconds (0: the threshold)",
	  .key = "hardlimit_us" },
	{ .long_name = "window", .type = OPT_INT, .arg = OPT_ARG_REQUIRED,
	  .argname = "US", .min = 2, .max = 100000000, .dflt = 1000000,
	  .dest = OPT_AT(struct hwlat_config, window_us),
	  .help = "one sample every US microseconds (hwlat_detector/window); below --width's default, the width is half of it",
	  .key = "window_us" },
	{ .long_name = "width", .type = OPT_INT, .arg = OPT_ARG_REQUIRED,
	  .argname = "US", .min = 1, .max = 100000000, .dflt = 500000,
	  .dest = OPT_AT(struct hwlat_config, width_us),
	  .help = "of each window, spin with interrupts off for US microseconds (hwlat_detector/width); past --window's default, the window is twice it",
	  .key = "width_us" },
	{ .short_name = 'c', .long_name = "cpu-list", .type = OPT_CPU_LIST,
	  .arg = OPT_ARG_REQUIRED, .argname = "LIST",
	  .dest = OPT_AT(struct hwlat_config, cpus),
	  .help = "the CPUs the detector moves across (tracing_cpumask: \"1-3\", \"0,2\"); default: every CPU as it is set" },
	{ .long_name = "mode", .type = OPT_CHOICE, .arg = OPT_ARG_REQUIRED,
	  .argname = "MODE", .dflt = HWLAT_MODE_RR,
	  .dest = OPT_AT(struct hwlat_config, mode),
	  .help = "hwlat_detector/mode: none (stay on one CPU), round-robin (the next CPU each window), per-cpu (a detector on every CPU at once; 5.14 and later)",
	  .choices = mode_choices, .key = "mode" },
	{ .long_name = "report", .type = OPT_PATH_OUT, .arg = OPT_ARG_REQUIRED,
	  .argname = "FILE", .dest = OPT_AT(struct hwlat_config, report),
	  .help = "write each event to FILE, a line each (hwlatdetect's sample data)" },
	{ .long_name = "debug", .type = OPT_FLAG, .arg = OPT_ARG_NONE,
	  .dest = OPT_AT(struct hwlat_config, debug),
	  .help = "say where the tracer runs and its settings once they are written" },
	OPT_ROW_QUIET(struct hwlat_config, quiet, "no output but the events (hwlatdetect's --quiet)"),
	{ .long_name = "watch", .type = OPT_FLAG, .arg = OPT_ARG_NONE,
	  .dest = OPT_AT(struct hwlat_config, watch),
	  .help = "print each event as it comes (else all of them at the end)" },
	OPT_ROW_HELP,
	TEST_COMMON_OPTS(OPT_AT_STRUCT(struct hwlat_config, common),
			 "write the settings, events, rate and SMI counts to FILE as JSON"),
	OPT_END
};

/* The width and window as hwlatdetect sets them: one given alone moves
 * the other where the kernel would refuse it (width below window). */
static int hwlat_check(struct test_run *t)
{
	struct hwlat_config *c = t->cfg;
	struct hwlat_run *r = t->state;
	bool window = opts_given(t->opts, t->given, 0, "window");
	bool width = opts_given(t->opts, t->given, 0, "width");

	r->window_us = c->window_us;
	r->width_us = c->width_us;
	if (window && !width && r->width_us >= r->window_us)
		r->width_us = r->window_us / 2;
	if (width && !window && r->width_us >= r->window_us)
		r->window_us = r->width_us * 2;
	if (r->width_us >= r->window_us) {
		opts_error(t->prog, opts_find(t->opts, 0, "width"),
			   "%lld is not below --window %lld; accepted: 1 to %lld",
			   r->width_us, r->window_us, r->window_us - 1);
		return -1;
	}
	if (!c->hardlimit_us)
		c->hardlimit_us = c->threshold_us;
	return 0;
}

static bool compat(const struct test_run *t)
{
	return run_compat(t);
}

static void say(const struct test_run *t, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* hwlatdetect's info(): stdout, but not with --quiet. */
static void say(const struct test_run *t, const char *fmt, ...)
{
	const struct hwlat_config *c = t->cfg;
	va_list ap;

	if (c->quiet)
		return;
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
}

static void print_event(const struct test_run *t, const struct hwlat_event *e)
{
	printf("ts: %lld.%09lld, inner:%lld, outer:%lld", e->wall_s, e->wall_ns,
	       e->inner_us, e->outer_us);
	if (!compat(t)) {
		printf(", cpu:%d", e->cpu);
		if (e->nmi_count)
			printf(", nmi:%d", e->nmi_count);
		if (e->nmi_total_us >= 0)
			printf(" (%lld us)", e->nmi_total_us);
	}
	putchar('\n');
}

static void on_event(struct hwlat_run *r, const struct hwlat_event *e, void *arg)
{
	const struct test_run *t = arg;
	const struct hwlat_config *c = t->cfg;
	long long gap = e->inner_us > e->outer_us ? e->inner_us : e->outer_us;

	r->events++;
	if (gap > r->max_us)
		r->max_us = gap;
	if (c->watch) {
		print_event(t, e);
		fflush(stdout);
	}
	if (r->nev == r->cap && r->cap < HWLAT_KEEP) {
		size_t cap = r->cap ? r->cap * 2 : 64;
		struct hwlat_event *ev = realloc(r->ev, cap * sizeof(*ev));

		if (!ev)
			return;	/* counted, not kept */
		r->ev = ev;
		r->cap = cap;
	}
	if (r->nev < r->cap)
		r->ev[r->nev++] = *e;
}

static void print_header(const struct test_run *t)
{
	const struct hwlat_config *c = t->cfg;
	const struct hwlat_run *r = t->state;
	char list[256] = "None";

	if (c->cpus.n)
		cpu_list_text(c->cpus.cpu, c->cpus.n, list, sizeof(list));
	say(t, "%s:  test duration %lld seconds", compat(t) ? "hwlatdetect" : t->prog,
	    c->duration_s);
	say(t, "   detector: tracer");
	say(t, "   parameters:");
	say(t, "        CPU list:          %s", list);
	say(t, "        Latency threshold: %lldus", c->threshold_us);
	say(t, "        Sample window:     %lldus", r->window_us);
	say(t, "        Sample width:      %lldus", r->width_us);
	say(t, "     Non-sampling period:  %lldus", r->window_us - r->width_us);
	say(t, "        Output File:       %s", c->report ? c->report : "None");
	if (!compat(t))
		say(t, "        Mode:              %s", mode_choices[c->mode]);
	say(t, "\nStarting test");
	fflush(stdout);
}

/* Where tracefs or the tracer is missing: why, else NULL. */
static const char *no_tracer(struct test_run *t)
{
	struct hwlat_run *r = t->state;

	if (!tracefs_need(t->prog, r->why, sizeof(r->why)))
		return r->why;
	if (!tracefs_has_tracer("hwlat")) {
		snprintf(r->why, sizeof(r->why), "this kernel has no hwlat tracer (CONFIG_HWLAT_TRACER): not run");
		return r->why;
	}
	return NULL;
}

static int hwlat_measure(struct test_run *t)
{
	const struct hwlat_config *c = t->cfg;
	struct hwlat_run *r = t->state;
	char err[400];
	int64_t end;

	r->skipped = no_tracer(t);
	if (r->skipped) {
		printf("Skipped: %s\n", r->skipped);
		return 0;
	}
	/* The results' count at the start, the msr module loaded for it. */
	if (!t->res.smi_start.n && smi_snap_take(&t->res.smi_start, true) && !compat(t))
		fprintf(stderr, "%s: SMI counts: %s; not counted\n", t->prog,
			t->res.smi_start.why);
	print_header(t);
	if (hwlat_start(r, c, err, sizeof(err))) {
		fprintf(stderr, "%s: %s\n", t->prog, err);
		r->error = "the hwlat tracer could not be set up";
		return 1;
	}
	if (c->debug)
		printf("tracer hwlat on %s: window %lldus, width %lldus, threshold %lldus\n",
		       tracefs_dir(), r->window_us, r->width_us, c->threshold_us);
	r->t_start = clock_now_ns();
	end = c->duration_s ? r->t_start + c->duration_s * NSEC_PER_SEC : 0;
	while (!run_stop_requested && (!end || clock_now_ns() < end)) {
		int got = hwlat_read(r, on_event, t);

		if (got < 0) {
			r->error = "reading trace_pipe failed";
			break;
		}
		if (!got)
			tpipe_wait();
	}
	hwlat_read(r, on_event, t);
	r->t_end = clock_now_ns();
	hwlat_stop(r);
	if (t->res.smi_start.n)
		smi_snap_take(&r->smi_end, false);
	return r->error ? 1 : 0;
}

static double covered_s(const struct hwlat_run *r)
{
	return r->t_end > r->t_start ? (double)(r->t_end - r->t_start) / NSEC_PER_SEC : 0;
}

/* hwlatdetect's "N SMIs occured on cpu N" and its total. */
static void print_smi(const struct test_run *t)
{
	const struct hwlat_run *r = t->state;
	const struct smi_snap *s = &t->res.smi_start;
	long long d, total = 0;
	int i;

	if (!s->n || !r->smi_end.n)
		return;
	for (i = 0; i < s->n; i++) {
		d = smi_delta(s, &r->smi_end, s->cpu[i]);
		if (d > 0) {
			total += d;
			printf("%lld SMIs occured on cpu %d\n", d, s->cpu[i]);
		}
	}
	say(t, "SMIs during run: %lld", total);
}

/* rtlat's own lines: the rate per hour with its interval, the NMIs. */
static void print_rate(const struct test_run *t)
{
	const struct hwlat_run *r = t->state;
	double h = covered_s(r) / 3600, lo, hi;
	long long nmis = 0, nmi_us = 0;
	size_t i;

	if (compat(t) || h <= 0)
		return;
	poisson_interval(r->events, HWLAT_CONF, &lo, &hi);
	say(t, "Events per hour: %.1f [%.1f-%.1f] (95 %%, %llu in %.0f s)",
	    (double)r->events / h, lo / h, hi / h, (unsigned long long)r->events,
	    covered_s(r));
	for (i = 0; i < r->nev; i++) {
		nmis += r->ev[i].nmi_count;
		nmi_us += r->ev[i].nmi_total_us > 0 ? r->ev[i].nmi_total_us : 0;
	}
	if (nmis)
		say(t, "NMIs during events: %lld (%lld us)", nmis, nmi_us);
}

static void print_summary(const struct test_run *t)
{
	const struct hwlat_run *r = t->state;

	if (run_stop_requested)
		printf("interrupted\n");
	say(t, "test finished");
	if (!r->max_us)
		say(t, "Max Latency: Below threshold");
	else
		say(t, "Max Latency: %lldus", r->max_us);
	say(t, "Samples recorded: %llu", (unsigned long long)r->events);
	say(t, "Samples exceeding threshold: %llu", (unsigned long long)r->events);
	print_smi(t);
	print_rate(t);
}

/* --report: hwlatdetect's sample data, an event a line. */
static int write_report(const struct test_run *t)
{
	const struct hwlat_config *c = t->cfg;
	const struct hwlat_run *r = t->state;
	struct outfile o;
	size_t i;
	FILE *f = outfile_open(&o, t->prog, "--report", c->report);

	if (!f)
		return -1;
	for (i = 0; i < r->nev; i++)
		fprintf(f, "ts: %lld.%09lld, inner:%lld, outer:%lld\n", r->ev[i].wall_s,
			r->ev[i].wall_ns, r->ev[i].inner_us, r->ev[i].outer_us);
	if (outfile_close(&o, t->prog))
		return -1;
	printf("report saved to %s (%zu samples)\n", c->report, r->nev);
	return 0;
}

static void json_event(struct json *j, const struct hwlat_event *e)
{
	char wall[48];

	json_obj_open(j, NULL);
	json_uint(j, "seq", e->seq);
	json_int(j, "cpu", e->cpu);
	snprintf(wall, sizeof(wall), "%lld.%09lld", e->wall_s, e->wall_ns);
	json_str(j, "ts", wall);
	json_int(j, "inner_us", e->inner_us);
	json_int(j, "outer_us", e->outer_us);
	if (e->count >= 0)
		json_int(j, "count", e->count);
	else
		json_null(j, "count");
	json_int(j, "nmi_count", e->nmi_count);
	if (e->nmi_total_us >= 0)
		json_int(j, "nmi_total_us", e->nmi_total_us);
	else
		json_null(j, "nmi_total_us");
	json_obj_close(j);
}

static void json_summary(struct json *j, const struct test_run *t)
{
	const struct hwlat_config *c = t->cfg;
	const struct hwlat_run *r = t->state;
	double h = covered_s(r) / 3600, lo, hi;

	json_obj_open(j, "summary");
	json_uint(j, "events", r->events);
	json_uint(j, "kept", r->nev);
	json_int(j, "max_us", r->max_us);
	json_int(j, "hardlimit_us", c->hardlimit_us);
	json_bool(j, "over_hardlimit", r->max_us > c->hardlimit_us);
	json_double(j, "covered_s", covered_s(r));
	if (h > 0) {
		poisson_interval(r->events, HWLAT_CONF, &lo, &hi);
		json_obj_open(j, "per_hour");
		json_double(j, "estimate", (double)r->events / h);
		json_double(j, "lo", lo / h);
		json_double(j, "hi", hi / h);
		json_double(j, "conf", HWLAT_CONF);
		json_obj_close(j);
	} else {
		json_null(j, "per_hour");
	}
	json_obj_close(j);
}

static void json_body(struct json *j, void *arg)
{
	const struct test_run *t = arg;
	const struct hwlat_config *c = t->cfg;
	const struct hwlat_run *r = t->state;
	size_t i;

	json_obj_open(j, "settings");
	results_settings(j, t->opts, NULL);
	json_obj_close(j);
	json_obj_open(j, "tracer");
	json_int(j, "window_us", r->window_us);
	json_int(j, "width_us", r->width_us);
	json_int(j, "threshold_us", c->threshold_us);
	json_str(j, "mode", mode_choices[c->mode]);
	json_obj_close(j);
	if (r->skipped)
		json_str(j, "skipped", r->skipped);
	else
		json_null(j, "skipped");
	json_summary(j, t);
	json_arr_open(j, "events");
	for (i = 0; i < r->nev; i++)
		json_event(j, &r->ev[i]);
	json_arr_close(j);
}

static int hwlat_report(struct test_run *t, int status)
{
	const struct hwlat_config *c = t->cfg;
	struct hwlat_run *r = t->state;
	struct json *j;
	size_t i;

	if (t->error && !r->error)
		r->error = t->error;
	if (r->error)
		status = 1;
	if (!r->skipped && !r->error) {
		print_summary(t);
		if (c->report && write_report(t))
			status = 1;
		for (i = 0; !c->watch && i < r->nev; i++)
			print_event(t, &r->ev[i]);
		if (!status && r->max_us > c->hardlimit_us)
			status = 3;
	}
	fflush(stdout);
	j = results_open(&t->res, status);
	if (!j)
		return t->res.path ? 1 : status;
	json_body(j, t);
	if (r->error)
		json_str(j, "error", r->error);
	if (results_close(&t->res, j))
		return 1;
	return status;
}

static void hwlat_teardown(struct test_run *t)
{
	struct hwlat_run *r = t->state;

	hwlat_stop(r);
	free(r->ev);
	r->ev = NULL;
}

#define HWLAT_MAN_OUTPUT							\
	"hwlatdetect's lines: the parameters (\"hwlatdetect:  test duration 120 seconds\", "	\
	"\"   detector: tracer\", CPU list, latency threshold, sample window and width, "	\
	"non-sampling period, output file), \"Starting test\", \"test finished\", "	\
	"\"Max Latency: 25us\" (or \"Below threshold\"), \"Samples recorded: N\", "	\
	"\"Samples exceeding threshold: N\", where MSR_SMI_COUNT is readable \"N SMIs "	\
	"occured on cpu N\" and \"SMIs during run: N\", then each event \"ts: "	\
	"1581527484.343962693, inner:25, outer:3\" (with --watch as it comes instead).\n"	\
	"As rtlat hwlat also the mode, the events' CPU and NMIs (\", cpu:0, nmi:1 (7 "	\
	"us)\"), \"Events per hour: 10.8 [2.2-31.6] (95 %, 3 in 1000 s)\" (the exact "	\
	"Poisson interval rtlat-report gives spike rates) and \"NMIs during events: N (N "	\
	"us)\". Where the kernel has no hwlat tracer: \"Skipped: ...\" alone, exit 0; "	\
	"where no SMI count can be read, one line on stderr (rtlat hwlat only). The "	\
	"tracer's settings (current_tracer, tracing_on, tracing_thresh, "		\
	"tracing_cpumask, hwlat_detector/window, width, mode) are given back as they "	\
	"were. Exit 3 when the largest gap is over --hardlimit (hwlatdetect: 1)."
#define HWLAT_MAN_JSON								\
	"\"settings\", \"tracer\" (window_us, width_us, threshold_us, mode as set), "	\
	"\"skipped\" (why nothing ran, or null), \"summary\" (events, kept, max_us, "	\
	"hardlimit_us, over_hardlimit, covered_s, per_hour: estimate, lo, hi, conf), "	\
	"\"events\" (each: seq, cpu, ts, inner_us, outer_us, count, nmi_count, "	\
	"nmi_total_us; the first 100000), and \"error\" where the tracer could not "	\
	"be set up. \"smi\" (every result's) has the SMI counts the summary gives."

const struct test_ops test_hwlat = {
	.name = "hwlat", .compat = "hwlatdetect",
	.title = "gaps the hardware, firmware (SMI) or hypervisor took, from the kernel's hwlat tracer",
	.family = "hardware", .series = hwlat_series,
	.opts = hwlat_opts, .common = OPT_AT_STRUCT(struct hwlat_config, common),
	.cfg_size = sizeof(struct hwlat_config), .run_size = sizeof(struct hwlat_run),
	.stop = STOP_BY_HANDLER,
	.check_args = "-D 1 --window 100000 --width 50000",
	.check_line = "^(Samples recorded: \\d+|Skipped: .*hwlat tracer.*)$",
	.man_output = HWLAT_MAN_OUTPUT, .man_json = HWLAT_MAN_JSON,
	.check = hwlat_check, .setup = tracer_test_setup, .measure = hwlat_measure,
	.report = hwlat_report, .teardown = hwlat_teardown,
};
