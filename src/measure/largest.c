// SPDX-License-Identifier: GPL-2.0-or-later
/* largest.c - the K largest samples: a min-heap (see largest.h). */
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include "measure/largest.h"

size_t largest_bytes(uint32_t k)
{
	return (size_t)k * sizeof(struct largest_row);
}

void largest_init(struct largest *l, uint32_t k, struct largest_row *storage)
{
	memset(l, 0, sizeof(*l));
	l->k = storage ? k : 0;
	l->floor = INT64_MIN;
	l->row = storage;
}

/* Heap order: the smaller sample first; of equal ones the later, so the
 * later of two ties is the one pushed out. */
static int below(const struct largest_row *a, const struct largest_row *b)
{
	return a->ns < b->ns || (a->ns == b->ns && a->t_ns > b->t_ns);
}

static void sift_down(struct largest_row *h, uint32_t n, uint32_t i)
{
	struct largest_row v = h[i];

	for (;;) {
		uint32_t c = 2 * i + 1;

		if (c >= n)
			break;
		if (c + 1 < n && below(&h[c + 1], &h[c]))
			c++;
		if (!below(&h[c], &v))
			break;
		h[i] = h[c];
		i = c;
	}
	h[i] = v;
}

static void sift_up(struct largest_row *h, uint32_t i)
{
	struct largest_row v = h[i];

	while (i) {
		uint32_t p = (i - 1) / 2;

		if (!below(&v, &h[p]))
			break;
		h[i] = h[p];
		i = p;
	}
	h[i] = v;
}

void largest_insert(struct largest *l, int64_t ns, int64_t t_ns)
{
	struct largest_row r = { .ns = ns, .t_ns = t_ns, .cpu = sched_getcpu() };

	__atomic_store_n(&l->seq, l->seq + 1, __ATOMIC_RELAXED);
	__atomic_thread_fence(__ATOMIC_RELEASE);
	if (l->n < l->k) {
		l->row[l->n] = r;
		sift_up(l->row, l->n++);
	} else {
		l->row[0] = r;
		sift_down(l->row, l->n, 0);
	}
	if (l->n == l->k)
		l->floor = l->row[0].ns;
	__atomic_store_n(&l->seq, l->seq + 1, __ATOMIC_RELEASE);
}

static int by_ns_desc(const void *pa, const void *pb)
{
	const struct largest_row *a = pa, *b = pb;

	if (a->ns != b->ns)
		return a->ns < b->ns ? 1 : -1;
	return (a->t_ns > b->t_ns) - (a->t_ns < b->t_ns);
}

void largest_sort(struct largest_row *rows, uint32_t n)
{
	qsort(rows, n, sizeof(*rows), by_ns_desc);
}

/*
 * The copy is a heap already: sorting it in place by taking its smallest
 * row to the end, n times, gives largest_sort's order (the later of equal
 * samples is taken out first, so the earlier ends up first) with neither
 * qsort's comparison callback nor its temporary buffer: a checkpoint of
 * the status thread pays it per series.
 */
static void heap_sort(struct largest_row *h, uint32_t n)
{
	struct largest_row t;

	while (n > 1) {
		t = h[0];
		h[0] = h[--n];
		h[n] = t;
		sift_down(h, n, 0);
	}
}

uint32_t largest_snapshot(const struct largest *l, struct largest_row *out,
			  uint64_t *seen)
{
	uint64_t s1, s2;
	uint32_t n;

	do {
		s1 = __atomic_load_n(&l->seq, __ATOMIC_ACQUIRE);
		n = __atomic_load_n(&l->n, __ATOMIC_RELAXED);
		if (n > l->k)
			n = l->k;
		memcpy(out, l->row, largest_bytes(n));
		*seen = __atomic_load_n(&l->seen, __ATOMIC_RELAXED);
		__atomic_thread_fence(__ATOMIC_ACQUIRE);
		s2 = __atomic_load_n(&l->seq, __ATOMIC_RELAXED);
	} while ((s1 & 1) || s1 != s2);
	heap_sort(out, n);
	return n;
}
