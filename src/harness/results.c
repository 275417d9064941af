// SPDX-License-Identifier: GPL-2.0-or-later
/* results.c - the JSON result file shared by every subcommand. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "system/cleanup.h"
#include "fleet/fleet.h"
#include "util/json.h"
#include "util/opts.h"
#include "system/outfile.h"
#include "system/preflight.h"
#include "measure/record.h"
#include "util/rfc3339.h"
#include "explain/explain.h"
#include "harness/checkpoint.h"
#include "harness/results.h"
#include "system/rtsetup.h"
#include "measure/stats.h"
#include "system/sysinfo.h"
#include "util/version.h"


void results_begin(struct results *r, const char *prog, const char *path,
		   const char *test, int argc, char **argv)
{
	r->prog = prog;
	r->path = path;
	r->test = test;
	r->argc = argc;
	r->argv = argv;
	clock_gettime(CLOCK_REALTIME, &r->start_wall);
	r->start = r->start_wall.tv_sec;
	context_snap(&r->ctx_before);
	smi_snap_take(&r->smi_start, false);
}

static void put_time(struct json *j, const char *key, time_t t)
{
	char buf[64];
	struct tm tm;

	localtime_r(&t, &tm);
	strftime(buf, sizeof(buf), "%a, %d %b %Y %T %z", &tm);
	json_str(j, key, buf);
}

static void put_cmdline(struct json *j, const char *key, int argc, char **argv)
{
	size_t len = 1;
	char *s;
	int i;

	for (i = 0; i < argc; i++)
		len += strlen(argv[i]) + 1;
	s = calloc(len, 1);
	if (!s) {
		json_str(j, key, "");
		return;
	}
	for (i = 0; i < argc; i++) {
		if (i)
			strcat(s, " ");
		strcat(s, argv[i]);
	}
	json_str(j, key, s);
	free(s);
}

/*
 * The exit status the file gives: a run that ends well but over a
 * threshold exits 3 (fleet_end). A checkpoint's file is no end: it is
 * what stays of a run killed or crashed after it, so it never says 0
 * (rt-tests' readers take 0 for a run that passed); 1 until the final
 * write, or 3 already when a threshold was exceeded (a maximum only grows).
 */
static int file_return_code(const struct results *r, int return_code)
{
	if (return_code)
		return return_code;
	if (r->fleet && fleet_exceeded(r->fleet))
		return 3;
	return r->ckpt.on ? 1 : 0;
}

struct json *results_open(struct results *r, int return_code)
{
	FILE *f;

	if (!checkpoint_writes(&r->ckpt, r->path))
		return NULL;
	f = outfile_open(&r->out, r->prog, "--json", r->path);
	if (!f)
		return NULL;
	json_init(&r->jw, f);
	json_obj_open(&r->jw, NULL);
	/* rt-tests' keys, including its trailing colons, for its parsers. */
	json_int(&r->jw, "file_version", 1);
	put_cmdline(&r->jw, "cmdline:", r->argc, r->argv);
	json_str(&r->jw, "rt_test_version:",
		 r->format_version ? r->format_version : RTLAT_VERSION);
	put_time(&r->jw, "start_time", r->start);
	clock_gettime(CLOCK_REALTIME, &r->end_wall);
	put_time(&r->jw, "end_time", r->end_wall.tv_sec);
	r->return_code = return_code;
	json_int(&r->jw, "return_code", file_return_code(r, return_code));
	sysinfo_json_compat(&r->jw);
	checkpoint_json(&r->jw, &r->ckpt);
	return &r->jw;
}

static void doctor_json(struct json *j)
{
	preflight_json_short(j, "doctor");
}

/* Members rendered apart, as results_close writes them: at depth 1. */
static char *render(void (*fn)(struct json *j))
{
	struct json sub;
	char *buf = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&buf, &len);

	if (!m)
		return NULL;
	json_fragment_init(&sub, m, 1);
	fn(&sub);
	if (fclose(m)) {
		free(buf);
		return NULL;
	}
	return buf;
}

void results_cache_system(struct results *r)
{
	results_cache_free(r);
	r->cache_system = render(sysinfo_json);
	r->cache_doctor = render(doctor_json);
}

void results_cache_free(struct results *r)
{
	free(r->cache_system);
	free(r->cache_doctor);
	r->cache_system = r->cache_doctor = NULL;
}

/* At a checkpoint, the text rendered before the measurement; else now. */
static void put_section(struct json *j, const struct results *r,
			const char *cached, void (*fn)(struct json *j))
{
	if (r->ckpt.on && cached && j->depth == 1)
		json_fragment_put(j, cached);
	else
		fn(j);
}

int results_close(struct results *r, struct json *j)
{
	char t[RFC3339_LEN];

	json_obj_open(j, "rtlat");
	json_str(j, "version", RTLAT_VERSION);
	json_str(j, "test", r->test);
	put_cmdline(j, "cmdline", r->argc, r->argv);
	json_str(j, "clock", "CLOCK_MONOTONIC");
	json_str(j, "unit", "ns");
	json_str(j, "start_rfc3339", rfc3339_format(t, sizeof(t), &r->start_wall));
	json_str(j, "end_rfc3339", rfc3339_format(t, sizeof(t), &r->end_wall));
	/* Where it ran: bare metal, container, VM (system/context.c). */
	context_json(j, "context", &r->ctx_before);
	json_obj_close(j);
	if (r->explain && !r->ckpt.on)	/* the explaining thread's, still running */
		explain_json(j, "explain", r->explain);
	else if (r->explain_unavailable[0])
		json_str(j, "explain_unavailable", r->explain_unavailable);
	if (r->fleet)
		fleet_json(r->fleet, j, r->return_code);
	record_json(r->rec, j);
	smi_json(j, &r->smi_start);
	put_section(j, r, r->cache_system, sysinfo_json);
	rt_json(j, "rt");
	/* rtlat doctor's verdicts, short: can these results be trusted? */
	put_section(j, r, r->cache_doctor, doctor_json);
	json_obj_close(j);
	return outfile_close(&r->out, r->prog);
}

/* One row's value under its key, as its type stores it. */
static void setting(struct json *j, const struct opt *o)
{
	long long v;

	switch (o->type) {
	case OPT_FLAG:
		json_bool(j, o->key, *(const bool *)o->dest);
		break;
	case OPT_INT: case OPT_DURATION: case OPT_CPU:
		json_int(j, o->key, *(const long long *)o->dest);
		break;
	case OPT_CHOICE:
		v = *(const long long *)o->dest;
		json_str(j, o->key, v >= 0 ? o->choices[v] : NULL);
		break;
	case OPT_STRING: case OPT_PATH_OUT: case OPT_DIR_OUT:
		json_str(j, o->key, *(const char *const *)o->dest);
		break;
	default:
		break;
	}
}

static bool skipped(const char *key, const char *const *skip)
{
	while (skip && *skip)
		if (!strcmp(*skip++, key))
			return true;
	return false;
}

void results_settings(struct json *j, const struct opt *tbl, const char *const *skip)
{
	int i;

	for (i = 0; tbl[i].short_name || tbl[i].long_name; i++)
		if (tbl[i].key && tbl[i].dest && !skipped(tbl[i].key, skip))
			setting(j, &tbl[i]);
}

void results_stats(struct json *j, const char *key, const struct stats *s,
		   const double *target)
{
	const struct histogram *h = &s->hist;
	int k;

	json_obj_open(j, key);
	json_uint(j, "samples", s->n);
	json_int(j, "min_ns", s->n ? s->min : 0);
	json_double(j, "avg_ns", stats_mean(s));
	json_int(j, "max_ns", s->n ? s->max : 0);
	if (target) {
		json_double(j, "target_ns", *target);
		json_double(j, "stddev_ns", stats_stddev_about(s, *target));
	} else {
		json_double(j, "stddev_ns", stats_stddev(s));
	}
	json_obj_open(j, "percentiles_ns");
	for (k = 0; k < STATS_NPCT; k++)
		json_int(j, stats_pct_name[k], stats_percentile(s, stats_pct[k]));
	json_obj_close(j);
	results_hist(j, h);
	json_obj_close(j);
}

/*
 * The log-linear layout named (histogram.h), so that a reader computes
 * any bucket's width from its start without a table: above origin_ns,
 * a value v is in units q = (v - origin_ns) / unit_ns; the octave
 * k = floor(log2 q) (0 for q < 2) is cut into buckets 2^s units wide,
 * s = max(0, k - (sub_bucket_bits - 1)), at most max_width_ns below
 * max_width_until_ns; from top_ns on, overflow. The rows keep the linear
 * histogram's key, counts, so that a reader summing them goes on working.
 */
void results_hist(struct json *j, const struct histogram *h)
{
	const struct hist_layout *l = &h->l;
	uint32_t i;

	json_obj_open(j, "histogram");
	json_str(j, "layout", "log-linear");
	json_int(j, "origin_ns", l->origin);
	json_uint(j, "unit_ns", l->unit);
	json_uint(j, "sub_bucket_bits", l->sub_bits);
	json_uint(j, "max_width_ns", l->unit << l->cap_bits);
	json_uint(j, "max_width_until_ns", l->unit << l->cap_below);
	json_uint(j, "top_ns", l->top * l->unit);
	json_uint(j, "underflow", h->underflow);
	json_uint(j, "overflow", h->overflow);
	/* Non-empty buckets only, as [start_ns, count] rows. */
	json_arr_open(j, "counts");
	for (i = 0; h->count && i < l->nbuckets; i++) {
		if (!h->count[i])
			continue;
		json_arr_open_inline(j, NULL);
		json_int(j, NULL, hist_bucket_start(h, i));
		json_uint(j, NULL, h->count[i]);
		json_arr_close(j);
	}
	json_arr_close(j);
	json_obj_close(j);
}

/* A series of a starved CPU is an error, and so is a whole series one of
 * whose CPUs was (harness/starve.h), and a thread's part that has no one
 * CPU (not pinned, or moved off its CPU: as the starved thread is, so
 * that it can end). */
static void starved_error(const struct results *res, struct fleet_rec *r)
{
	int i;

	if (!res->nstarved)
		return;
	if (r->cpu >= 0 && r->cpu < CPU_SETSIZE && !CPU_ISSET(r->cpu, &res->starved))
		return;
	snprintf(r->error, sizeof(r->error), "CPU %d could not be measured",
		 res->starved_cpu[0].cpu);
	for (i = 0; i < res->nstarved && i < RESULTS_STARVED_MAX; i++)
		if (r->cpu < 0 ? i == 0 : res->starved_cpu[i].cpu == r->cpu)
			/* The reason cut to leave room for the note. */
			snprintf(r->error, sizeof(r->error), "%.380s%s", res->starved_cpu[i].why,
				 r->cpu < 0 && res->nstarved > 1 ? " (and other CPUs)" : "");
}

void results_summary_part(struct results *res, const char *series, int thread,
			  int cpu, const struct stats *s)
{
	const char *env = getenv("RTLAT_SUMMARY_FD");
	struct fleet_rec r;
	char line[FLEET_LINE_MAX];
	long long fd;
	int n;

	/* Kept for the verdict, the fleet outputs and the JSON's "fleet". */
	fleet_rec_from_stats(&r, NULL, series, s);
	r.thread = thread;
	r.cpu = cpu;
	r.secs = res->fleet ? fleet_elapsed(res->fleet) : 0;
	starved_error(res, &r);
	if (res->ckpt.on)
		checkpoint_step(res->ckpt.owner, &r, s);
	if (res->fleet)
		fleet_add(res->fleet, &r);
	if (!env || res->ckpt.on || parse_ll(env, &fd) || fd < 0)
		return;
	n = fleet_rec_format(line, sizeof(line), &r);
	if (n > 0 && write((int)fd, line, (size_t)n) < 0)
		return;
}

void results_summary(struct results *r, const char *series,
		     const struct stats *s)
{
	results_summary_part(r, series, -1, -1, s);
}
