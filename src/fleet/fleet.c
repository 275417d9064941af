// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * fleet.c - thresholds, baseline and the verdict over the headline series
 * every test reports (see fleet.h). The records are few (a handful of
 * series per iteration) and all judging happens after the measurement.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "fleet/fleet.h"
#include "util/json.h"
#include "measure/stats.h"

/*
 * Records: a series and its threads' parts (a pair's, a CPU's), for every
 * iteration (raw), and one per test, series and thread (merged). No fixed
 * table: how many threads a run reports (cyclictest -t 1024, timer -c
 * all) and how many iterations it has are the options', so the tables
 * grow as the records come. They come only when a run reports, after its
 * measurement (results_summary), or from an iteration's child or a suite's
 * test that has ended: never while measuring. The option ranges bound
 * them (1000 iterations of series of up to 1024 threads); a record that
 * finds no memory is counted and the run fails (fleet_end), never dropped
 * silently.
 */
/* 10^(k/25) times 100, to three figures (158.5 up: no step over 10 %). */
static const short le_mantissa[FLEET_LE_PER_DECADE] = {
	100, 110, 120, 132, 145, 159, 174, 191, 209, 229, 251, 275, 302,
	331, 363, 398, 437, 479, 525, 575, 631, 692, 759, 832, 912,
};

long long fleet_le_ns10(int k)
{
	long long v = le_mantissa[k % FLEET_LE_PER_DECADE];
	int d;

	for (d = 0; d < k / FLEET_LE_PER_DECADE; d++)
		v *= 10;
	return v;
}

/*
 * The bucket counts of a line: "K:COUNT,K:COUNT..." where the cumulative
 * count changes (bound K holds COUNT, and so do the bounds after it up
 * to the next entry), "-" when it never does: a line holds the few
 * bounds where a series has samples, not all FLEET_NLE.
 */
static int le_format(char *buf, size_t len, const struct fleet_rec *r)
{
	unsigned long long last = 0;
	int n = 0, i;

	for (i = 0; i < FLEET_NLE && n >= 0 && (size_t)n < len; i++) {
		if (r->le[i] == last)
			continue;
		last = r->le[i];
		n += snprintf(buf + n, len - n, "%s%d:%llu", n ? "," : "", i, last);
	}
	if (!n)
		n = snprintf(buf, len, "-");
	return n >= 0 && (size_t)n < len ? n : -1;
}

static int le_parse(const char *p, struct fleet_rec *r, int *used)
{
	unsigned long long last = 0, c;
	int i = 0, k, u, start = 0;

	if (*p == '-') {
		*used = 1;
		return 0;
	}
	while (sscanf(p + start, "%d:%llu%n", &k, &c, &u) == 2) {
		if (k < i || k >= FLEET_NLE || c < last)
			return -1;
		while (i < k)
			r->le[i++] = last;
		last = c;
		start += u;
		if (p[start] != ',')
			break;
		start++;
	}
	if (!start)
		return -1;
	while (i < FLEET_NLE)
		r->le[i++] = last;
	*used = start;
	return 0;
}

int fleet_rec_format(char *buf, size_t len, const struct fleet_rec *r)
{
	int n, i;

	n = snprintf(buf, len, "%s\t%llu\t%lld\t%.1f\t%lld\t%lld\t%lld\t%lld",
		     r->series, (unsigned long long)r->n, r->min, r->avg, r->max,
		     r->p99, r->p9999, r->p50);
	if (n > 0 && (size_t)n + 1 < len) {
		buf[n++] = '\t';
		i = le_format(buf + n, len - n, r);
		n = i < 0 ? -1 : n + i;
	}
	if (n > 0 && (size_t)n < len)
		n += snprintf(buf + n, len - n, "\t%d\t%d\t%.3f", r->thread, r->cpu,
			      r->secs);
	/* The error last, when there is one (one line: no tab, no newline). */
	if (r->error[0] && n > 0 && (size_t)n < len) {
		int at = n;

		n += snprintf(buf + n, len - n, "\t%s", r->error);
		for (at++; at < n && (size_t)at < len; at++)
			if (buf[at] == '\t' || buf[at] == '\n')
				buf[at] = ' ';
	}
	if (n > 0 && (size_t)n + 1 < len) {
		buf[n++] = '\n';
		buf[n] = '\0';
	}
	return n > 0 && (size_t)n < len ? n : -1;
}

int fleet_rec_parse(const char *line, const char *test, struct fleet_rec *r)
{
	unsigned long long n;
	const char *p;
	int used;

	memset(r, 0, sizeof(*r));
	snprintf(r->test, sizeof(r->test), "%s", test);
	if (sscanf(line, "%31[^\t]\t%llu\t%lld\t%lf\t%lld\t%lld\t%lld\t%lld%n",
		   r->series, &n, &r->min, &r->avg, &r->max, &r->p99, &r->p9999,
		   &r->p50, &used) != 8)
		return -1;
	r->n = n;
	p = line + used;
	if (*p++ != '\t' || le_parse(p, r, &used))
		return -1;
	p += used;
	if (sscanf(p, "\t%d\t%d\t%lf%n", &r->thread, &r->cpu, &r->secs, &used) != 3)
		return -1;
	p += used;
	if (*p == '\t')
		snprintf(r->error, sizeof(r->error), "%.*s", (int)strcspn(p + 1, "\n"), p + 1);
	return 0;
}

void fleet_rec_from_stats(struct fleet_rec *r, const char *test,
			  const char *series, const struct stats *s)
{
	const struct histogram *h = &s->hist;
	uint64_t sum = h->underflow;
	uint32_t b;
	int i;

	memset(r, 0, sizeof(*r));
	snprintf(r->test, sizeof(r->test), "%s", test ? test : "");
	snprintf(r->series, sizeof(r->series), "%s", series);
	r->thread = -1;
	r->cpu = -1;
	r->n = s->n;
	r->min = s->n ? s->min : 0;
	r->max = s->n ? s->max : 0;
	r->avg = stats_mean(s);
	r->p50 = stats_percentile(s, 50.0);
	r->p99 = stats_percentile(s, 99.0);
	r->p9999 = stats_percentile(s, 99.99);
	/* A bucket counts under a bound when all of it is at or below the
	 * bound: samples are whole ns, so its last is start + width - 1
	 * (underflow: below the first bucket). One pass over the buckets. */
	for (i = 0, b = 0; i < FLEET_NLE; i++) {
		while (b < h->l.nbuckets &&
		       hist_bucket_last(h, b) * 10 <= fleet_le_ns10(i))
			sum += h->count[b++];
		r->le[i] = h->l.origin * 10 <= fleet_le_ns10(i) ? sum : 0;
	}
}

static int room(struct fleet_table *t, int **index, int cap);

/*
 * Room, before any test locks its memory, for the records a run usually
 * makes: each known series, whole and per CPU. A record is 2.4 KiB (its
 * histogram); grown later, under mlockall's MCL_FUTURE and a container's
 * 8 MiB RLIMIT_MEMLOCK, the table's realloc failed and a 2-second bintime
 * ended "not judged". More records (threads past the CPUs) still grow.
 */
static void reserve(struct fleet *fl)
{
	long cpus = sysconf(_SC_NPROCESSORS_CONF);
	int i, want = 0;
	const char *const *s;

	if (cpus < 1 || cpus > 4096)
		cpus = 1;
	for (i = 0; i < fl->nknown; i++)
		for (s = fl->known[i].series; s && *s; s++)
			want += (int)cpus + 1;
	if (!room(&fl->raw, &fl->raw_merged, want))
		room(&fl->merged, NULL, want);
}

void fleet_begin(struct fleet *fl, const struct fleet_opts *o, const char *test,
		 const struct fleet_test *known, int nknown)
{
	int i;

	memset(fl, 0, sizeof(*fl));
	fl->opts = o;
	for (i = 0; i < nknown && i < FLEET_TESTS_MAX; i++)
		fl->known[fl->nknown++] = known[i];
	clock_gettime(CLOCK_MONOTONIC, &fl->started);
	snprintf(fl->run_id, sizeof(fl->run_id), "%lld-%d",
		 (long long)time(NULL), (int)getpid());
	snprintf(fl->test, sizeof(fl->test), "%s", test);
	if (gethostname(fl->host, sizeof(fl->host) - 1))
		snprintf(fl->host, sizeof(fl->host), "unknown");
	reserve(fl);
}

void fleet_free(struct fleet *fl)
{
	free(fl->raw.rec);
	free(fl->raw_merged);
	free(fl->merged.rec);
	fl->raw.rec = fl->merged.rec = NULL;
	fl->raw_merged = NULL;
	fl->raw.n = fl->raw.cap = fl->merged.n = fl->merged.cap = 0;
}

double fleet_elapsed(const struct fleet *fl)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return (double)(now.tv_sec - fl->started.tv_sec) +
	       (double)(now.tv_nsec - fl->started.tv_nsec) / 1e9;
}

static bool same_series(const struct fleet_rec *a, const struct fleet_rec *b)
{
	return a->thread == b->thread && !strcmp(a->test, b->test) &&
	       !strcmp(a->series, b->series);
}

static void merge(struct fleet_rec *m, const struct fleet_rec *r)
{
	uint64_t n = m->n + r->n;
	int i;

	if (r->n && (!m->n || r->min < m->min))
		m->min = r->min;
	if (r->max > m->max)
		m->max = r->max;
	/* Percentiles of merged runs: the worst iteration's (an upper bound). */
	if (r->p50 > m->p50)
		m->p50 = r->p50;
	if (r->p99 > m->p99)
		m->p99 = r->p99;
	if (r->p9999 > m->p9999)
		m->p9999 = r->p9999;
	m->avg = n ? (m->avg * (double)m->n + r->avg * (double)r->n) / (double)n : 0;
	m->n = n;
	/* Iterations one after another: their times add up. */
	m->secs += r->secs;
	if (m->cpu != r->cpu)
		m->cpu = -1;
	for (i = 0; i < FLEET_NLE; i++)
		m->le[i] += r->le[i];
	/* An iteration's error is the series' (the first one's reason). */
	if (!m->error[0] && r->error[0])
		memcpy(m->error, r->error, sizeof(m->error));
}

/* Room for cap records; -1: no memory. */
static int room(struct fleet_table *t, int **index, int cap)
{
	struct fleet_rec *rec;
	int *ix;

	if (cap <= 0 || cap <= t->cap)
		return 0;
	rec = realloc(t->rec, (size_t)cap * sizeof(*rec));
	if (!rec)
		return -1;
	t->rec = rec;
	if (index) {
		ix = realloc(*index, (size_t)cap * sizeof(*ix));
		if (!ix)
			return -1;
		*index = ix;
	}
	t->cap = cap;
	return 0;
}

/* Room for one more record (doubling: few reallocations); -1: none. */
static int grow(struct fleet_table *t, int **index)
{
	if (t->n < t->cap)
		return 0;
	if (t->cap > INT_MAX / 2)
		return -1;
	return room(t, index, t->cap ? 2 * t->cap : 64);
}

void fleet_add(struct fleet *fl, const struct fleet_rec *r)
{
	struct fleet_table *raw = &fl->raw, *merged = &fl->merged;
	struct fleet_rec *k;
	int i;

	if (grow(raw, &fl->raw_merged) || grow(merged, NULL)) {
		fl->lost++;
		return;
	}
	k = &raw->rec[raw->n];
	*k = *r;
	if (!k->test[0])
		snprintf(k->test, sizeof(k->test), "%s", fl->test);
	for (i = 0; i < merged->n; i++)
		if (same_series(&merged->rec[i], k))
			break;
	fl->raw_merged[raw->n++] = i;
	if (i == merged->n)
		merged->rec[merged->n++] = *k;
	else
		merge(&merged->rec[i], k);
}

int fleet_count(const struct fleet *fl)
{
	return fl->merged.n;
}

bool fleet_measured(const struct fleet *fl)
{
	int i;

	for (i = 0; i < fl->merged.n; i++)
		if (fl->merged.rec[i].n)
			return true;
	return false;
}

const struct fleet_rec *fleet_get(const struct fleet *fl, int i)
{
	return &fl->merged.rec[i];
}

const char *fleet_host(const struct fleet *fl)
{
	return fl->host;
}

static int cmp_ll(const void *a, const void *b)
{
	long long x = *(const long long *)a, y = *(const long long *)b;

	return (x > y) - (x < y);
}

/*
 * The worst figure of a series over the iterations: the median of their
 * maxima (the upper one of an even count), so a run fails the baseline
 * when half the iterations or more regress, as Linaro's wrappers judge.
 */
long long fleet_worst(const struct fleet *fl, const struct fleet_rec *m)
{
	long long *v, worst;
	int i, n = 0, at = (int)(m - fl->merged.rec);

	for (i = 0; i < fl->raw.n; i++)
		n += fl->raw_merged[i] == at;
	v = n ? malloc((size_t)n * sizeof(*v)) : NULL;
	if (!v)
		return m->max;	/* the worst of all: never below the median */
	for (i = 0, n = 0; i < fl->raw.n; i++)
		if (fl->raw_merged[i] == at)
			v[n++] = fl->raw.rec[i].max;
	qsort(v, n, sizeof(v[0]), cmp_ll);
	worst = v[n / 2];
	free(v);
	return worst;
}

int fleet_raw_count(const struct fleet *fl)
{
	return fl->raw.n;
}

const struct fleet_rec *fleet_raw(const struct fleet *fl, int i)
{
	return &fl->raw.rec[i];
}

/* How many threads' parts the series of r has (0: reported whole only). */
int fleet_threads(const struct fleet *fl, const struct fleet_rec *r)
{
	const struct fleet_rec *m = fl->merged.rec;
	int i, n = 0;

	for (i = 0; i < fl->merged.n; i++)
		n += m[i].thread >= 0 && !strcmp(m[i].test, r->test) &&
		     !strcmp(m[i].series, r->series);
	return n;
}
