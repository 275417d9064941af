// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * record_samples.c - --samples: every sample of a run into one binary
 * file, written by the recorder's thread (never the measuring one) from
 * each series' ring (samples.h). The layout, in the byte order of the
 * machine that wrote it (byte_order tells a reader which), as rtlat(1)'s
 * SAMPLES FILE section documents it:
 *
 *   header, 64 bytes: "RTLATSMP", u32 byte_order 0x01020304, u32 version
 *     1, i64 origin (CLOCK_MONOTONIC ns of the run's start), i64 the same
 *     instant in CLOCK_REALTIME ns, u32 ring rows, u32 0, char test[24];
 *   then blocks, each a 16-byte head: u32 kind, u32 series, u32 rows,
 *     u32 0, then
 *     kind 1 (a series, once, before its samples): i32 thread (-1: the
 *       whole series), i32 cpu (-1: not pinned), i64 threshold ns (-1:
 *       none), char test[24], char series[48];
 *     kind 2 (samples): rows x (i64 ns since origin, i64 sample ns);
 *     kind 3 (the end, last): u64 samples written, u64 samples dropped
 *       (the ring was full: the writer fell behind).
 * A file without the end block was cut short (the process was killed).
 */
#include <stdlib.h>
#include <string.h>
#include "measure/record.h"

#define SMP_CHUNK	4096	/* rows a block holds at most */

enum { SMP_SERIES = 1, SMP_ROWS = 2, SMP_END = 3 };

struct smp_head {
	uint32_t kind, series, rows, zero;
};

struct smp_decl {
	int32_t thread, cpu;
	int64_t threshold;
	char test[24];
	char series[48];
};

size_t record_samples_bytes(const struct recorder *rec)
{
	return rec && rec->smp_file ? sizeof(struct smp_ring) : 0;
}

int record_samples(struct recorder *rec, FILE *f, const char *test)
{
	if (!rec || !f)
		return 0;
	rec->smp_buf = malloc(SMP_CHUNK * sizeof(*rec->smp_buf));
	if (!rec->smp_buf)
		return -1;
	rec->smp_file = f;
	snprintf(rec->smp_test, sizeof(rec->smp_test), "%s", test);
	return 0;
}

/* A failed write sets the stream's error: outfile_close says it. */
static void put(struct recorder *rec, const void *p, size_t n)
{
	(void)fwrite(p, n, 1, rec->smp_file);
}

static void put_head(struct recorder *rec, uint32_t kind, uint32_t id, uint32_t rows)
{
	struct smp_head h = { kind, id, rows, 0 };

	put(rec, &h, sizeof(h));
}

/* The file's header, at the first drain (after record_start's origin). */
static void put_header(struct recorder *rec)
{
	struct {
		char magic[8];
		uint32_t order, version;
		int64_t origin, origin_wall;
		uint32_t ring, zero;
		char test[24];
	} h;

	memset(&h, 0, sizeof(h));
	memcpy(h.magic, "RTLATSMP", 8);
	h.order = 0x01020304;
	h.version = 1;
	h.origin = rec->origin;
	h.origin_wall = (int64_t)rec->origin_wall.tv_sec * 1000000000LL +
			rec->origin_wall.tv_nsec;
	h.ring = SMP_RING_ROWS;
	memcpy(h.test, rec->smp_test, sizeof(h.test));
	put(rec, &h, sizeof(h));
}

static void declare(struct recorder *rec, struct rec_entry *e)
{
	struct smp_decl d;

	memset(&d, 0, sizeof(d));
	d.thread = e->thread;
	d.cpu = e->cpu;
	d.threshold = e->threshold == INT64_MAX ? -1 : e->threshold;
	memcpy(d.test, e->test, sizeof(d.test));
	memcpy(d.series, e->series, sizeof(d.series));
	put_head(rec, SMP_SERIES, e->id, 0);
	put(rec, &d, sizeof(d));
	e->smp_declared = true;
}

static void drain_one(struct recorder *rec, struct rec_entry *e)
{
	size_t n, i;

	if (!e->smp_declared)
		declare(rec, e);
	while ((n = smp_pop(e->r->smp, rec->smp_buf, SMP_CHUNK))) {
		for (i = 0; i < n; i++)
			rec->smp_buf[i].t_ns -= rec->origin;
		put_head(rec, SMP_ROWS, e->id, (uint32_t)n);
		put(rec, rec->smp_buf, n * sizeof(*rec->smp_buf));
		atomic_fetch_add_explicit(&e->smp_written, n, memory_order_relaxed);
		if (n < SMP_CHUNK)
			break;
	}
}

static uint64_t dropped_of(const struct rec_entry *e)
{
	return atomic_load_explicit(&e->r->smp->dropped, memory_order_relaxed);
}

void record_samples_drain(struct recorder *rec, bool finish)
{
	uint64_t tot[2] = { 0, 0 };
	int i, n;

	if (!rec || !rec->smp_file || rec->smp_ended)
		return;
	pthread_mutex_lock(&rec->lock);
	n = rec->n;
	pthread_mutex_unlock(&rec->lock);
	/* Entries are only ever appended: the first n stay as they are. */
	if (!rec->smp_begun) {
		put_header(rec);
		rec->smp_begun = true;
	}
	for (i = 0; i < n; i++)
		drain_one(rec, rec->e[i]);
	if (!finish) {
		fflush(rec->smp_file);
		return;
	}
	for (i = 0; i < n; i++) {
		tot[0] += atomic_load_explicit(&rec->e[i]->smp_written, memory_order_relaxed);
		tot[1] += dropped_of(rec->e[i]);
	}
	put_head(rec, SMP_END, 0, 0);
	put(rec, tot, sizeof(tot));
	fflush(rec->smp_file);
	rec->smp_ended = true;
}

void record_samples_json(struct recorder *rec, struct json *j)
{
	int k;

	if (!rec->smp_file) {
		json_null(j, "samples");
		return;
	}
	json_obj_open(j, "samples");
	json_str(j, "format", "rtlat-samples-1");
	json_uint(j, "ring_rows", SMP_RING_ROWS);
	json_bool(j, "complete", rec->smp_ended);
	json_arr_open(j, "series");
	for (k = 0; k < rec->n; k++) {
		const struct rec_entry *e = rec->e[k];

		json_obj_open(j, NULL);
		record_json_head(j, e);
		json_uint(j, "written",
			  atomic_load_explicit(&e->smp_written, memory_order_relaxed));
		json_uint(j, "dropped", dropped_of(e));
		json_obj_close(j);
	}
	json_arr_close(j);
	json_obj_close(j);
}
