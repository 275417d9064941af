// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * fleet_verdict.c - judging the series against --max-latency, --max-p99
 * and --baseline, and the verdict's JSON (its lines and the outputs are
 * fleet_end.c's).
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "fleet/fleet.h"
#include "util/json.h"
#include "system/context.h"
#include "util/jsonread.h"

#define BASE_FILE_MAX (256L << 20)

/* A series of the baseline's "fleet" object: its test, series and max_ns
 * (null: it measured nothing, so it is no baseline for anything). 1:
 * kept; 0: not a figure; -1: not the shape rtlat writes. */
static int base_series(struct fleet *fl, const struct jr_value *v)
{
	const struct jr_value *test = jr_get(v, "test"), *series = jr_get(v, "series"),
			      *max = jr_get(v, "max_ns");
	struct fleet_base *b = &fl->base[fl->nbase];

	if (!test || test->type != JR_STRING || !series || series->type != JR_STRING ||
	    !max || (max->type != JR_NULL && (max->type != JR_NUMBER || !max->is_int)))
		return -1;
	if (max->type == JR_NULL || fl->nbase >= FLEET_BASE_MAX ||
	    snprintf(b->key, sizeof(b->key), "%s/%s", test->s, series->s) >=
	    (int)sizeof(b->key))
		return 0;
	b->max_ns = max->i;
	fl->nbase++;
	return 1;
}

/*
 * The "fleet" object rtlat writes into every --json (fleet_json below),
 * read as JSON whatever its layout (rtlat's, jq -c's, another tool's
 * indentation, keys in any order): its "series" (the whole series; their
 * threads are not a baseline). Only "fleet" is kept, 4 levels deep: the
 * rest of the file (histograms, per-second records) is checked, not
 * stored, so its size costs no memory. NULL: taken; else why not.
 */
static const char *parse_baseline(struct fleet *fl, const char *text, size_t len,
				  char *why, size_t wlen)
{
	const struct jr_value *fleet, *series, *v;
	struct jr_doc d;
	const char *ret = NULL;

	fl->nbase = 0;
	if (jr_parse_only(&d, text, len, "fleet", 4)) {
		snprintf(why, wlen, "not JSON (%s)", d.error);
		ret = why;
	}
	fleet = ret ? NULL : jr_get(d.root, "fleet");
	series = jr_get(fleet, "series");
	if (!ret && (!series || series->type != JR_ARRAY))
		ret = "no rtlat figures in it";
	for (v = series ? series->first : NULL; !ret && v; v = v->next)
		if (base_series(fl, v) < 0)
			ret = "a \"fleet\" series not as rtlat writes it";
	if (!ret && !fl->nbase)
		ret = "no rtlat figures in it";
	jr_free(&d);
	return ret;
}

static int load_baseline(struct fleet *fl, const char *prog, struct opt *o,
			 const char *path)
{
	FILE *f = fopen(path, "r");
	const char *why = NULL;
	char *text = NULL, buf[160];
	long size = -1;

	if (f && !fseek(f, 0, SEEK_END))
		size = ftell(f);
	if (size >= 0 && size < BASE_FILE_MAX && !fseek(f, 0, SEEK_SET))
		text = calloc(1, (size_t)size + 1);
	if (!f)
		why = strerror(errno);
	else if (size >= BASE_FILE_MAX)
		why = "larger than 256 MiB";
	else if (!text || fread(text, 1, (size_t)size, f) != (size_t)size)
		why = "cannot be read";
	else
		why = parse_baseline(fl, text, (size_t)size, buf, sizeof(buf));
	if (!why)
		context_baseline_warn(prog, text, (size_t)size);
	if (why)
		opts_error(prog, o, "cannot use '%s': %s; accepted: a --json file of an earlier run of this rtlat",
			   path, why);
	if (f)
		fclose(f);
	free(text);
	return why ? -1 : 0;
}

int fleet_check(struct fleet *fl, const char *prog, struct opt *tbl)
{
	const struct fleet_opts *o = fl->opts;

	if (fleet_limits_check(fl, prog, tbl))
		return -1;
	if (!o || !o->baseline)
		return 0;
	return load_baseline(fl, prog, opts_find(tbl, 0, "baseline"), o->baseline);
}

static long long base_of(const struct fleet *fl, const struct fleet_rec *r)
{
	char key[64];
	int i;

	if (r->thread >= 0)
		return -1;	/* a baseline holds whole series */
	snprintf(key, sizeof(key), "%s/%s", r->test, r->series);
	for (i = 0; i < fl->nbase; i++)
		if (!strcmp(fl->base[i].key, key))
			return fl->base[i].max_ns;
	return -1;
}

/* One limit exceeded: its bit, its name to kinds and its reason to why. */
static void judged_add(struct fleet_judged *v, unsigned int bit, const char *kind,
		       const char *fmt, ...) __attribute__((format(printf, 4, 5)));
static void judged_add(struct fleet_judged *v, unsigned int bit, const char *kind,
		       const char *fmt, ...)
{
	size_t k = strlen(v->kinds), w = strlen(v->why);
	va_list ap;

	v->failed |= bit;
	snprintf(v->kinds + k, sizeof(v->kinds) - k, "%s%s", k ? "," : "", kind);
	if (w && w + 2 < sizeof(v->why))
		w += (size_t)snprintf(v->why + w, sizeof(v->why) - w, "; ");
	va_start(ap, fmt);
	vsnprintf(v->why + w, sizeof(v->why) - w, fmt, ap);
	va_end(ap);
	v->failure = v->kinds;
}

void fleet_judge(const struct fleet *fl, int i, struct fleet_judged *v)
{
	const struct fleet_opts *o = fl->opts;
	const struct fleet_rec *r = fleet_get(fl, i);
	long long tol = o ? o->tolerance_pct : 0;

	v->failure = NULL;
	v->error = r->error[0] ? r->error : NULL;
	v->failed = 0;
	v->kinds[0] = '\0';
	v->why[0] = '\0';
	v->worst_ns = fleet_worst(fl, r);
	v->base_ns = base_of(fl, r);
	fleet_limits(fl, r, &v->lat_us, &v->p99_us);
	if (v->lat_us && r->max > v->lat_us * 1000)
		judged_add(v, FLEET_FAILED_MAX, "max-latency",
			   "max %.3f us > --max-latency %lld us", r->max / 1e3, v->lat_us);
	if (v->p99_us && r->p99 > v->p99_us * 1000)
		judged_add(v, FLEET_FAILED_P99, "max-p99",
			   "p99 %.3f us > --max-p99 %lld us", r->p99 / 1e3, v->p99_us);
	if (v->base_ns >= 0 &&
	    (double)v->worst_ns > (double)v->base_ns * (1.0 + tol / 100.0))
		judged_add(v, FLEET_FAILED_BASE, "baseline",
			   "worst %.3f us > baseline %.3f us + %lld%%",
			   v->worst_ns / 1e3, v->base_ns / 1e3, tol);
}

bool fleet_exceeded(const struct fleet *fl)
{
	struct fleet_judged v;
	int i;

	for (i = 0; i < fleet_count(fl); i++) {
		fleet_judge(fl, i, &v);
		if (v.failure)
			return true;
	}
	return false;
}

static void json_limit(struct json *j, const char *key, long long us)
{
	if (us)
		json_int(j, key, us);
	else
		json_null(j, key);
}

/* A figure of a series; null when it measured nothing (never a made-up 0). */
static void json_figure(struct json *j, const char *key,
			const struct fleet_rec *r, long long ns)
{
	if (r->n)
		json_int(j, key, ns);
	else
		json_null(j, key);
}

static void json_series(const struct fleet *fl, struct json *j, int i)
{
	const struct fleet_rec *r = fleet_get(fl, i);
	struct fleet_judged v;

	fleet_judge(fl, i, &v);
	json_obj_open(j, NULL);
	json_str(j, "test", r->test);
	json_str(j, "series", r->series);
	if (r->thread >= 0) {
		json_int(j, "thread", r->thread);
		json_int(j, "cpu", r->cpu);
	}
	json_uint(j, "samples", r->n);
	json_double(j, "seconds", r->secs);
	json_figure(j, "min_ns", r, r->min);
	if (r->n)
		json_double(j, "avg_ns", r->avg);
	else
		json_null(j, "avg_ns");
	json_figure(j, "max_ns", r, r->max);
	json_figure(j, "p99_ns", r, r->p99);
	json_figure(j, "p99.99_ns", r, r->p9999);
	json_figure(j, "worst_ns", r, v.worst_ns);
	json_limit(j, "max_latency_us", v.lat_us);
	json_limit(j, "max_p99_us", v.p99_us);
	if (v.base_ns >= 0)
		json_int(j, "baseline_max_ns", v.base_ns);
	else
		json_null(j, "baseline_max_ns");
	json_str(j, "result", v.error ? "error" : v.failure ? "fail" : r->n ? "pass" : "skip");
	if (v.error)
		json_str(j, "error", v.error);
	if (v.failure)
		json_str(j, "failure", v.why);
	else if (!r->n && !v.error)
		json_str(j, "skipped", FLEET_NO_SAMPLE);
	json_obj_close(j);
}

/* The whole series, then their threads' parts (flat objects both). */
static void json_records(const struct fleet *fl, struct json *j, const char *key,
			 bool threads)
{
	int i;

	json_arr_open(j, key);
	for (i = 0; i < fleet_count(fl); i++)
		if ((fleet_get(fl, i)->thread >= 0) == threads)
			json_series(fl, j, i);
	json_arr_close(j);
}

static void json_spec(struct json *j, const char *key, const char *spec)
{
	if (spec)
		json_str(j, key, spec);
	else
		json_null(j, key);
}

/* One number for every series: that number; none: 0; a list: null. */
static void json_bare(struct json *j, const char *key, const char *spec)
{
	char *end;
	long long us;

	if (!spec) {
		json_int(j, key, 0);
		return;
	}
	us = strtoll(spec, &end, 10);
	if (end != spec && !*end)
		json_int(j, key, us);
	else
		json_null(j, key);
}

const char *fleet_verdict(const struct fleet *fl, int status)
{
	if (status == 1)
		return "error";
	if (fleet_exceeded(fl))
		return "fail";	/* for good: a maximum only grows */
	/* A checkpoint's: no pass (nor "none") before the end. */
	if (fl->partial)
		return "incomplete";
	return fleet_measured(fl) ? "pass" : "none";
}

void fleet_json(const struct fleet *fl, struct json *j, int status)
{
	const struct fleet_opts *o = fl->opts;

	if (!fleet_count(fl))
		return;
	json_obj_open(j, "fleet");
	json_str(j, "verdict", fleet_verdict(fl, status));
	json_int(j, "iterations", o ? o->iterations : 1);
	json_spec(j, "max_latency", o ? o->max_latency : NULL);
	json_spec(j, "max_p99", o ? o->max_p99 : NULL);
	/* The keys of before per-test thresholds, for the readers of then. */
	json_bare(j, "max_latency_us", o ? o->max_latency : NULL);
	json_bare(j, "max_p99_us", o ? o->max_p99 : NULL);
	json_spec(j, "baseline", o ? o->baseline : NULL);
	json_int(j, "tolerance_pct", o ? o->tolerance_pct : 0);
	json_records(fl, j, "series", false);
	json_records(fl, j, "threads", true);
	json_obj_close(j);
}
