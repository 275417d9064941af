// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * fleet_limits.c - the thresholds of --max-latency and --max-p99: one
 * number for every series, or one per test or per series
 * ("pmq=50,timer=30,sync/blocking=2000,100"), since the suite's series
 * are unlike (response times ~10 ms of work, sync's blocking ~800 us): one
 * number for all of them fails on any machine. The most specific entry
 * applies to a series and to its threads.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "fleet/fleet.h"

#define LIMIT_US_MAX 1000000000LL

static const struct fleet_test *find_test(const struct fleet *fl, const char *name)
{
	int i;

	for (i = 0; i < fl->nknown; i++)
		if (!strcmp(fl->known[i].name, name))
			return &fl->known[i];
	return NULL;
}

static bool has_series(const struct fleet_test *t, const char *series)
{
	const char *const *s;

	for (s = t->series; s && *s; s++)
		if (!strcmp(*s, series))
			return true;
	return false;
}

/* What the tests and their series are called, for the error line. */
static void names(const struct fleet *fl, char *buf, size_t len)
{
	const struct fleet_test *t = fl->known;
	size_t at = 0;
	int i;

	buf[0] = '\0';
	for (i = 0; i < fl->nknown && at < len; i++)
		if (t[i].series && t[i].series[0])
			at += (size_t)snprintf(buf + at, len - at, "%s%s",
					       at ? ", " : "", t[i].name);
}

/* US: digits only (not " 50", "+50" or "5e3"), 1 to LIMIT_US_MAX. */
static const char *parse_us(const char *s, long long *us)
{
	if (!*s || s[strspn(s, "0123456789")])
		return "is not a number of microseconds in digits";
	if (parse_ll(s, us) || *us < 1 || *us > LIMIT_US_MAX)
		return "is not a number of microseconds";
	return NULL;
}

/* One entry "[TEST[/SERIES]=]US" into *l; NULL, or what is wrong. */
static const char *parse_entry(const struct fleet *fl, char *item,
			       struct fleet_limit *l)
{
	char *eq = strchr(item, '='), *slash;
	const struct fleet_test *t;

	memset(l, 0, sizeof(*l));
	if (!*item)
		return "is empty";
	if (eq) {
		*eq = '\0';
		slash = strchr(item, '/');
		if (slash)
			*slash = '\0';
		t = find_test(fl, item);
		if (!t || strlen(item) >= sizeof(l->test))
			return "names no test of this run";
		if (slash && (!has_series(t, slash + 1) ||
			      strlen(slash + 1) >= sizeof(l->series)))
			return "names no series of that test";
		snprintf(l->test, sizeof(l->test), "%s", item);
		if (slash)
			snprintf(l->series, sizeof(l->series), "%s", slash + 1);
		item = eq + 1;
	}
	return parse_us(item, &l->us);
}

static bool same_key(const struct fleet_limit *a, const struct fleet_limit *b)
{
	return !strcmp(a->test, b->test) && !strcmp(a->series, b->series);
}

/* The whole list, however long, entry by entry: NULL, or what is wrong
 * with the entry at spec + *at (*len bytes). */
static const char *parse_list(const struct fleet *fl, char *buf,
			      struct fleet_limits *out, size_t *at, size_t *len)
{
	char *item, *next;
	const char *bad = NULL;
	int i;

	for (item = buf; item && !bad; item = next) {
		next = strchr(item, ',');
		if (next)
			*next++ = '\0';
		*at = (size_t)(item - buf);
		*len = strlen(item);
		if (out->n == FLEET_LIMITS_MAX)
			return "is one entry too many";
		bad = parse_entry(fl, item, &out->l[out->n]);
		for (i = 0; !bad && i < out->n; i++)
			if (same_key(&out->l[i], &out->l[out->n]))
				bad = "is given twice";
		out->n += !bad;
	}
	return bad;
}

static int parse(const struct fleet *fl, const char *prog, struct opt *o,
		 const char *spec, struct fleet_limits *out)
{
	char why[320], known[256], all[256], cur[128], *buf;
	const char *bad;
	size_t at = 0, len = 0;

	out->n = 0;
	if (!spec)
		return 0;
	buf = strdup(spec);
	if (!buf) {
		opts_error(prog, o, "cannot be read: out of memory");
		return -1;
	}
	bad = parse_list(fl, buf, out, &at, &len);
	free(buf);
	if (!bad)
		return 0;
	out->n = 0;
	names(fl, known, sizeof(known));
	/* One entry: the value is the whole story; in a list, which one. */
	if (!strpbrk(spec, ",="))
		snprintf(why, sizeof(why), "; ");
	else
		snprintf(why, sizeof(why), " ('%s' %s); ",
			 opts_quote(cur, sizeof(cur), spec + at, len), bad);
	opts_error(prog, o, "'%s' is not accepted%saccepted: an integer from 1 to %lld (microseconds), or a comma-separated list of [TEST[/SERIES]=]US with TEST one of: %s",
		   opts_quote(all, sizeof(all), spec, strlen(spec)), why,
		   LIMIT_US_MAX, known);
	return -1;
}

int fleet_limits_check(struct fleet *fl, const char *prog, struct opt *tbl)
{
	const struct fleet_opts *o = fl->opts;

	if (!o)
		return 0;
	if (parse(fl, prog, opts_find(tbl, 0, "max-latency"), o->max_latency,
		  &fl->lat))
		return -1;
	return parse(fl, prog, opts_find(tbl, 0, "max-p99"), o->max_p99, &fl->p99);
}

/* The most specific entry: TEST/SERIES, then TEST, then a bare number. */
static long long lookup(const struct fleet_limits *ls, const struct fleet_rec *r)
{
	int i, best = -1, rank, best_rank = -1;

	for (i = 0; i < ls->n; i++) {
		const struct fleet_limit *l = &ls->l[i];

		if ((l->test[0] && strcmp(l->test, r->test) != 0) ||
		    (l->series[0] && strcmp(l->series, r->series) != 0))
			continue;
		rank = !!l->test[0] + !!l->series[0];
		if (rank > best_rank) {
			best = i;
			best_rank = rank;
		}
	}
	return best < 0 ? 0 : ls->l[best].us;
}

void fleet_limits(const struct fleet *fl, const struct fleet_rec *r,
		  long long *lat_us, long long *p99_us)
{
	*lat_us = lookup(&fl->lat, r);
	*p99_us = lookup(&fl->p99, r);
}
