// SPDX-License-Identifier: GPL-2.0-or-later
/* test_samples.c - --samples: the ring between a measuring thread and the
 * writer (order, wrap-around, a full ring counted and never waited on,
 * a producer and a consumer on two threads), and the file the recorder
 * writes: header, one declaration per series, every sample, the end. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "measure/record.h"
#include "measure/samples.h"
#include "unit.h"

static struct smp_ring *ring_new(void)
{
	struct smp_ring *s = aligned_alloc(64, sizeof(*s));

	smp_init(s);
	return s;
}

UNIT_TEST(samples_ring_keeps_order_across_wrap)
{
	struct smp_ring *s = ring_new();
	struct smp_row out[1000];
	uint64_t next = 0, got = 0, i;
	size_t n, k;

	/* 3.5 rings' worth, popped in pieces: every row once, in order. */
	for (i = 0; i < SMP_RING_ROWS * 7ull / 2; i++) {
		smp_push(s, (int64_t)i, (int64_t)(i * 3));
		if (i % 997 == 0)
			while ((n = smp_pop(s, out, 1000)))
				for (k = 0; k < n; k++, got++) {
					CHECK_EQ_LL(out[k].t_ns, (long long)next);
					CHECK_EQ_LL(out[k].ns, (long long)next * 3);
					next++;
				}
	}
	while ((n = smp_pop(s, out, 1000)))
		got += n;
	CHECK_EQ_LL(got, SMP_RING_ROWS * 7ull / 2);
	CHECK_EQ_LL(atomic_load(&s->dropped), 0);
	free(s);
}

UNIT_TEST(samples_full_ring_drops_and_counts)
{
	struct smp_ring *s = ring_new();
	struct smp_row out[16];
	uint64_t i;

	for (i = 0; i < SMP_RING_ROWS + 5; i++)
		smp_push(s, (int64_t)i, 1);
	CHECK_EQ_LL(atomic_load(&s->dropped), 5);
	/* The oldest rows stay: those were there first. */
	CHECK_EQ_LL(smp_pop(s, out, 16), 16);
	CHECK_EQ_LL(out[0].t_ns, 0);
	CHECK_EQ_LL(out[15].t_ns, 15);
	/* Room again: the next push is kept. */
	smp_push(s, 42, 42);
	CHECK_EQ_LL(atomic_load(&s->dropped), 5);
	free(s);
}

#define TWO_THREADS_N 3000000ull

static void *producer(void *arg)
{
	struct smp_ring *s = arg;
	uint64_t i;

	for (i = 0; i < TWO_THREADS_N; i++)
		smp_push(s, (int64_t)i, (int64_t)i);
	return NULL;
}

UNIT_TEST(samples_ring_two_threads)
{
	struct smp_ring *s = ring_new();
	static struct smp_row out[4096];
	uint64_t got = 0, last = 0;
	bool ordered = true, first = true;
	pthread_t t;
	size_t n, k;

	CHECK_EQ_LL(pthread_create(&t, NULL, producer, s), 0);
	for (;;) {
		n = smp_pop(s, out, 4096);
		for (k = 0; k < n; k++) {
			/* Rows the ring dropped are skipped; never reordered,
			 * never torn (t and ns written together). */
			if ((!first && (uint64_t)out[k].t_ns <= last) ||
			    out[k].t_ns != out[k].ns)
				ordered = false;
			last = (uint64_t)out[k].t_ns;
			first = false;
		}
		got += n;
		if (!n && got + atomic_load(&s->dropped) == TWO_THREADS_N)
			break;
	}
	pthread_join(t, NULL);
	CHECK(ordered);
	CHECK_EQ_LL(got + atomic_load(&s->dropped), TWO_THREADS_N);
	free(s);
}

struct file_head {
	char magic[8];
	uint32_t order, version;
	int64_t origin, wall;
	uint32_t ring, zero;
	char test[24];
};

struct block_head {
	uint32_t kind, series, rows, zero;
};

UNIT_TEST(samples_file_holds_every_sample)
{
	struct recorder *rec = record_new(0, 0, 0, true);
	struct rec_series *a, *b;
	struct file_head h;
	struct block_head bh;
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	int64_t rows[2] = { 0, 0 }, sum = 0, tot[2] = { 0, 0 };
	size_t off;
	int i, decl = 0, end = 0;

	CHECK(rec && f);
	CHECK_EQ_LL(record_samples(rec, f, "timer"), 0);
	a = record_series(rec, "timer", "latency", 0, 0, INT64_MAX);
	b = record_series(rec, "timer", "latency", 1, 1, 50000);
	CHECK(a && b && a->smp && b->smp);
	CHECK_EQ_LL(record_start(rec), 0);
	for (i = 0; i < 10000; i++) {
		record_add(a, rec->origin + i, 7);
		if (i % 2)
			record_add(b, rec->origin + i, i);
	}
	record_stop(rec);
	fclose(f);
	CHECK(len >= sizeof(h));
	memcpy(&h, buf, sizeof(h));
	CHECK(!memcmp(h.magic, "RTLATSMP", 8));
	CHECK_EQ_LL(h.order, 0x01020304);
	CHECK_EQ_LL(h.version, 1);
	CHECK(!strcmp(h.test, "timer"));
	for (off = 64; off + sizeof(bh) <= len;) {
		memcpy(&bh, buf + off, sizeof(bh));
		off += sizeof(bh);
		if (bh.kind == 1) {
			decl++;
			off += 88;
		} else if (bh.kind == 2) {
			CHECK(bh.series < 2);
			if (bh.series < 2)
				rows[bh.series] += bh.rows;
			for (i = 0; i < (int)bh.rows; i++) {
				int64_t r[2];

				memcpy(r, buf + off + 16 * (size_t)i, 16);
				sum += r[1];
			}
			off += 16 * (size_t)bh.rows;
		} else {
			CHECK_EQ_LL(bh.kind, 3);
			memcpy(tot, buf + off, 16);
			off += 16;
			end++;
		}
	}
	CHECK_EQ_LL(off, len);
	CHECK_EQ_LL(decl, 2);
	CHECK_EQ_LL(end, 1);
	CHECK_EQ_LL(rows[0], 10000);
	CHECK_EQ_LL(rows[1], 5000);
	CHECK_EQ_LL(tot[0], 15000);
	CHECK_EQ_LL(tot[1], 0);
	/* 7 * 10000 + the odd numbers below 10000 (5000^2). */
	CHECK_EQ_LL(sum, 70000 + 25000000);
	record_free(rec);
	free(buf);
}
