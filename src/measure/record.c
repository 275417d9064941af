// SPDX-License-Identifier: GPL-2.0-or-later
/* record.c - a run's time lines and largest samples (see record.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include "measure/clock.h"
#include "measure/record.h"

#define RECORD_POLL_NS	(100 * NSEC_PER_MSEC)
#define RECORD_STACK	(128 * 1024)

struct recorder *record_new(int64_t step_ns, uint32_t cap, uint32_t k,
			    bool samples)
{
	struct recorder *rec;
	pthread_condattr_t ca;

	if (step_ns <= 0 && !k && !samples)
		return NULL;
	rec = calloc(1, sizeof(*rec));
	if (!rec)
		return NULL;
	rec->step_ns = step_ns > 0 ? step_ns : 0;
	rec->cap = cap ? cap : TL_CAP_DEFAULT;
	rec->k = k;
	pthread_mutex_init(&rec->lock, NULL);
	pthread_mutex_init(&rec->wake_lock, NULL);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&rec->wake, &ca);
	pthread_condattr_destroy(&ca);
	return rec;
}

struct rec_series *record_series(struct recorder *rec, const char *test,
				 const char *series, int thread, int cpu,
				 int64_t threshold_ns)
{
	struct rec_entry *e;
	size_t bytes;
	void *m;

	if (!rec)
		return NULL;
	e = calloc(1, sizeof(*e));
	if (!e)
		return NULL;
	bytes = sizeof(struct rec_series) + largest_bytes(rec->k);
	/* The ring after the rows, on its own cache lines. */
	bytes = (bytes + 63) & ~(size_t)63;
	bytes += record_samples_bytes(rec);
	m = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (m == MAP_FAILED) {
		free(e);
		return NULL;
	}
	e->r = m;
	e->bytes = bytes;
	snprintf(e->test, sizeof(e->test), "%s", test);
	snprintf(e->series, sizeof(e->series), "%s", series);
	e->thread = thread;
	e->cpu = cpu;
	e->threshold = threshold_ns;
	e->r->tl_on = rec->step_ns > 0;
	e->r->alarm_ns = INT64_MAX;
	tl_prod_init(&e->r->tl, rec->step_ns, threshold_ns);
	tl_store_init(&e->store, rec->step_ns, rec->cap);
	largest_init(&e->r->lg, rec->k, (struct largest_row *)(e->r + 1));
	if (rec->smp_file) {
		e->r->smp = (struct smp_ring *)((char *)m + bytes - sizeof(struct smp_ring));
		smp_init(e->r->smp);
	}
	atomic_init(&e->smp_written, 0);
	pthread_mutex_lock(&rec->lock);
	if (rec->n >= RECORD_MAX_SERIES) {
		pthread_mutex_unlock(&rec->lock);
		munmap(m, bytes);
		free(e);
		return NULL;
	}
	e->id = (uint32_t)rec->n;
	if (rec->origin)
		tl_prod_start(&e->r->tl, rec->origin);
	rec->e[rec->n++] = e;
	pthread_mutex_unlock(&rec->lock);
	return e->r;
}

/* The entry of r (rec->lock held); NULL when not one of rec's. */
static struct rec_entry *entry_of(struct recorder *rec, const struct rec_series *r)
{
	int i;

	for (i = 0; i < rec->n; i++)
		if (rec->e[i]->r == r)
			return rec->e[i];
	return NULL;
}

int record_context_columns(struct recorder *rec, const struct rec_series *r,
			   const char *const *names)
{
	struct rec_entry *e;
	uint32_t n = 0;
	int err = -1;

	if (!rec || !r || !rec->step_ns)
		return -1;
	while (names[n])
		n++;
	pthread_mutex_lock(&rec->lock);
	e = entry_of(rec, r);
	if (e && !tl_store_context_init(&e->store, n)) {
		e->ctx_names = names;
		err = 0;
	}
	pthread_mutex_unlock(&rec->lock);
	return err;
}

void record_context(struct recorder *rec, const struct rec_series *r,
		    int64_t now, const struct tl_ctx *c)
{
	struct rec_entry *e;

	if (!rec || !r || !rec->step_ns)
		return;
	pthread_mutex_lock(&rec->lock);
	e = entry_of(rec, r);
	if (e && rec->origin)
		tl_store_context(&e->store, now - rec->origin, c);
	pthread_mutex_unlock(&rec->lock);
}

static void drain_all(struct recorder *rec, bool finish)
{
	int i;

	pthread_mutex_lock(&rec->lock);
	for (i = 0; i < rec->n && rec->step_ns; i++) {
		if (finish)
			tl_store_finish(&rec->e[i]->store, &rec->e[i]->r->tl);
		else
			tl_store_drain(&rec->e[i]->store, &rec->e[i]->r->tl);
	}
	pthread_mutex_unlock(&rec->lock);
}

/* Pops the closed steps every RECORD_POLL_NS until record_stop wakes it. */
static void *recorder_thread(void *arg)
{
	struct recorder *rec = arg;
	struct timespec until;

	int64_t poll = rec->smp_file ? SMP_POLL_NS : RECORD_POLL_NS;

	pthread_mutex_lock(&rec->wake_lock);
	while (!rec->stop) {
		pthread_mutex_unlock(&rec->wake_lock);
		drain_all(rec, false);
		record_samples_drain(rec, false);
		until = ns_to_timespec(clock_now_ns() + poll);
		pthread_mutex_lock(&rec->wake_lock);
		if (!rec->stop)
			pthread_cond_timedwait(&rec->wake, &rec->wake_lock, &until);
	}
	pthread_mutex_unlock(&rec->wake_lock);
	return NULL;
}

int record_start(struct recorder *rec)
{
	pthread_attr_t attr;
	int i, err;

	if (!rec)
		return 0;
	pthread_mutex_lock(&rec->lock);
	clock_gettime(CLOCK_REALTIME, &rec->origin_wall);
	rec->origin = clock_now_ns();
	for (i = 0; i < rec->n; i++)
		tl_prod_start(&rec->e[i]->r->tl, rec->origin);
	pthread_mutex_unlock(&rec->lock);
	if (!rec->step_ns && !rec->smp_file)
		return 0;
	/* A small stack: mlockall (rt_init, after this) makes it resident. */
	pthread_attr_init(&attr);
	pthread_attr_setstacksize(&attr, RECORD_STACK);
	err = pthread_create(&rec->thread, &attr, recorder_thread, rec);
	pthread_attr_destroy(&attr);
	rec->running = !err;
	return -err;
}

void record_stop(struct recorder *rec)
{
	if (!rec)
		return;
	if (rec->running) {
		pthread_mutex_lock(&rec->wake_lock);
		rec->stop = 1;
		pthread_cond_signal(&rec->wake);
		pthread_mutex_unlock(&rec->wake_lock);
		pthread_join(rec->thread, NULL);
		rec->running = false;
	}
	drain_all(rec, true);
	record_samples_drain(rec, true);
}

/* RFC 3339 UTC with microseconds of the origin's wall time plus ns. */
static void wall(char *buf, size_t len, const struct timespec *origin, int64_t ns)
{
	int64_t t = (int64_t)origin->tv_sec * NSEC_PER_SEC + origin->tv_nsec + ns;
	time_t s = (time_t)(t / NSEC_PER_SEC);
	struct tm tm;
	char day[40];

	gmtime_r(&s, &tm);
	strftime(day, sizeof(day), "%Y-%m-%dT%H:%M:%S", &tm);
	snprintf(buf, len, "%s.%06lldZ", day, (long long)(t % NSEC_PER_SEC / 1000));
}

static void put_step(struct json *j, const struct recorder *rec,
		     const struct rec_entry *e, uint32_t i)
{
	const struct tl_step *s = &e->store.s[i];
	int64_t t0 = (int64_t)i * e->store.step;
	char buf[64];

	json_arr_open_inline(j, NULL);
	json_seconds_ns(j, NULL, t0);
	wall(buf, sizeof(buf), &rec->origin_wall, t0);
	json_str(j, NULL, buf);
	json_uint(j, NULL, s->n);
	if (s->n) {
		json_int(j, NULL, s->min);
		json_double(j, NULL, s->sum / (double)s->n);
		json_int(j, NULL, s->max);
		json_int(j, NULL, s->p99);
	} else {
		json_null(j, NULL);
		json_null(j, NULL);
		json_null(j, NULL);
		json_null(j, NULL);
	}
	if (e->threshold == INT64_MAX)
		json_null(j, NULL);
	else
		json_uint(j, NULL, s->over);
	json_arr_close(j);
}

static void put_columns(struct json *j, const char *const *c)
{
	json_arr_open_inline(j, "columns");
	for (; *c; c++)
		json_str(j, NULL, *c);
	json_arr_close(j);
}

/* A series' context beside its steps, row for row: [seconds, value...];
 * a step with no reading has seconds 0 and nulls. */
static void put_context(struct json *j, const struct rec_entry *e)
{
	const struct tl_store *st = &e->store;
	uint32_t i, k;

	json_arr_open_inline(j, "context_columns");
	json_str(j, NULL, "seconds");
	for (k = 0; k < st->nctx; k++)
		json_str(j, NULL, e->ctx_names[k]);
	json_arr_close(j);
	json_arr_open(j, "context");
	for (i = 0; i < st->len; i++) {
		const struct tl_ctx *c = &st->ctx[i];

		json_arr_open_inline(j, NULL);
		json_int(j, NULL, c->seconds);
		for (k = 0; k < st->nctx; k++)
			if (c->seconds && c->v[k] >= 0)
				json_int(j, NULL, c->v[k]);
			else
				json_null(j, NULL);
		json_arr_close(j);
	}
	json_arr_close(j);
}

static void timeline_json(struct recorder *rec, struct json *j)
{
	static const char *const cols[] = {
		"t_s", "wall", "n", "min_ns", "avg_ns", "max_ns", "p99_ns", "over", NULL,
	};
	int64_t step = rec->step_ns;
	uint32_t merges = 0, i;
	char buf[64];
	int k;

	/* Each store merged when its own steps passed the cap: bring them
	 * all to the coarsest step, so one step_s holds for every series. */
	for (k = 0; k < rec->n; k++)
		if (rec->e[k]->store.step > step)
			step = rec->e[k]->store.step;
	for (k = 0; k < rec->n; k++) {
		while (rec->e[k]->store.step < step)
			tl_store_merge(&rec->e[k]->store);
		merges = rec->e[k]->store.merges;
	}
	json_obj_open(j, "timeline");
	json_double(j, "step_s", (double)step / NSEC_PER_SEC);
	json_uint(j, "merges", merges);
	json_uint(j, "cap", rec->cap);
	wall(buf, sizeof(buf), &rec->origin_wall, 0);
	json_str(j, "start_wall", buf);
	json_int(j, "start_monotonic_ns", rec->origin);
	put_columns(j, cols);
	json_arr_open(j, "series");
	for (k = 0; k < rec->n; k++) {
		const struct rec_entry *e = rec->e[k];

		json_obj_open(j, NULL);
		record_json_head(j, e);
		if (e->threshold == INT64_MAX)
			json_null(j, "threshold_ns");
		else
			json_int(j, "threshold_ns", e->threshold);
		json_arr_open(j, "steps");
		for (i = 0; i < e->store.len; i++)
			put_step(j, rec, e, i);
		json_arr_close(j);
		if (e->store.nctx)
			put_context(j, e);
		json_obj_close(j);
	}
	json_arr_close(j);
	json_obj_close(j);
}

static void largest_json(struct recorder *rec, struct json *j)
{
	static const char *const cols[] = { "ns", "t_s", "cpu", NULL };
	struct largest_row *rows = malloc(largest_bytes(rec->k));
	uint32_t i, n;
	uint64_t seen;
	int k;

	if (!rows) {
		json_null(j, "largest");
		return;
	}
	json_obj_open(j, "largest");
	json_uint(j, "k", rec->k);
	put_columns(j, cols);
	json_arr_open(j, "series");
	for (k = 0; k < rec->n; k++) {
		const struct rec_entry *e = rec->e[k];

		n = largest_snapshot(&e->r->lg, rows, &seen);
		json_obj_open(j, NULL);
		record_json_head(j, e);
		json_uint(j, "seen", seen);
		json_arr_open(j, "rows");
		for (i = 0; i < n; i++) {
			json_arr_open_inline(j, NULL);
			json_int(j, NULL, rows[i].ns);
			json_seconds_ns(j, NULL, rows[i].t_ns - rec->origin);
			if (rows[i].cpu >= 0)
				json_int(j, NULL, rows[i].cpu);
			else
				json_null(j, NULL);
			json_arr_close(j);
		}
		json_arr_close(j);
		json_obj_close(j);
	}
	json_arr_close(j);
	json_obj_close(j);
	free(rows);
}

void record_json(struct recorder *rec, struct json *j)
{
	if (!rec) {
		json_null(j, "timeline");
		json_null(j, "largest");
		json_null(j, "samples");
		return;
	}
	pthread_mutex_lock(&rec->lock);
	if (rec->step_ns)
		timeline_json(rec, j);
	else
		json_null(j, "timeline");
	if (rec->k)
		largest_json(rec, j);
	else
		json_null(j, "largest");
	record_samples_json(rec, j);
	pthread_mutex_unlock(&rec->lock);
}

void record_free(struct recorder *rec)
{
	int i;

	if (!rec)
		return;
	record_stop(rec);
	for (i = 0; i < rec->n; i++) {
		munmap(rec->e[i]->r, rec->e[i]->bytes);
		tl_store_free(&rec->e[i]->store);
		free(rec->e[i]);
	}
	free(rec->smp_buf);
	pthread_mutex_destroy(&rec->lock);
	pthread_mutex_destroy(&rec->wake_lock);
	pthread_cond_destroy(&rec->wake);
	free(rec);
}
