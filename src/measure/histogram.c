// SPDX-License-Identifier: GPL-2.0-or-later
/* histogram.c - the log-linear histogram (see histogram.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "measure/histogram.h"

/* Octave k's first value in units (octave 0 holds 0 and 1). */
static uint64_t oct_start(int k)
{
	return k ? 1ULL << k : 0;
}

static uint64_t oct_size(int k)
{
	return k ? 1ULL << k : 2;
}

static int ceil_log2(uint64_t x)
{
	int k = 0;

	while (k < 63 && (1ULL << k) < x)
		k++;
	return k;
}

/* Fill the tables from origin, unit, sub_bits, cap_bits, cap_below. */
static void layout_fill(struct hist_layout *l)
{
	uint64_t span = (uint64_t)HIST_TOP_NS / l->unit + 1;
	int64_t base = 0;
	int k, top;

	top = ceil_log2(span);
	if (top < l->cap_below)
		top = l->cap_below;
	if (top < 1)
		top = 1;
	l->octaves = (uint8_t)top;
	l->top = 1ULL << top;
	memset(l->off, 0, sizeof(l->off));
	memset(l->shift, 0, sizeof(l->shift));
	for (k = 0; k < top; k++) {
		int sh = k >= l->sub_bits ? k - (l->sub_bits - 1) : 0;

		if (k < l->cap_below && sh > l->cap_bits)
			sh = l->cap_bits;
		l->shift[k] = (uint8_t)sh;
		l->off[k] = (int32_t)(base - (int64_t)(oct_start(k) >> sh));
		base += (int64_t)(oct_size(k) >> sh);
	}
	l->nbuckets = (uint32_t)base;
}

static void layout_linear(struct hist_layout *l, int64_t origin,
			  uint64_t width, uint32_t nlinear)
{
	memset(l, 0, sizeof(*l));
	l->origin = origin;
	l->unit = width ? width : 1;
	l->nlinear = nlinear;
	l->sub_bits = HIST_SUB_BITS;
	l->cap_bits = 0;
	l->cap_below = (uint8_t)ceil_log2(nlinear);
	layout_fill(l);
}

size_t hist_bytes(uint64_t width, uint32_t nlinear)
{
	struct hist_layout l;

	if (!nlinear)
		return 0;
	layout_linear(&l, 0, width, nlinear);
	return (size_t)l.nbuckets * sizeof(uint64_t);
}

static void hist_attach(struct histogram *h, uint64_t *storage)
{
	h->underflow = 0;
	h->overflow = 0;
	h->count = storage;
	h->owns = 0;
	if (storage)
		memset(storage, 0, (size_t)h->l.nbuckets * sizeof(uint64_t));
}

void hist_init_mem(struct histogram *h, int64_t origin, uint64_t width,
		   uint32_t nlinear, uint64_t *storage)
{
	layout_linear(&h->l, origin, width, nlinear);
	if (!nlinear || !storage) {
		/* No bucket: everything counts as overflow. */
		h->l.nbuckets = 0;
		h->l.top = 0;
	}
	hist_attach(h, storage);
}

static int hist_alloc(struct histogram *h)
{
	uint64_t *c = calloc(h->l.nbuckets, sizeof(*c));

	if (!c)
		return -ENOMEM;
	hist_attach(h, c);
	h->owns = 1;
	return 0;
}

int hist_init(struct histogram *h, int64_t origin, uint64_t width,
	      uint32_t nlinear)
{
	if (nlinear == 0 || nlinear > HIST_MAX_BUCKETS || width == 0)
		return -EINVAL;
	layout_linear(&h->l, origin, width, nlinear);
	return hist_alloc(h);
}

int hist_init_fine(struct histogram *h, int64_t origin)
{
	struct hist_layout *l = &h->l;

	memset(l, 0, sizeof(*l));
	l->origin = origin;
	l->unit = 1;
	l->sub_bits = HIST_SUB_BITS;
	l->cap_bits = 6;	/* 64 ns: today's 100 ns or finer ... */
	l->cap_below = 21;	/* ... below 2^21 ns, 2.1 ms */
	layout_fill(l);
	return hist_alloc(h);
}

int hist_init_like(struct histogram *h, const struct histogram *src)
{
	h->l = src->l;
	if (!h->l.nbuckets) {
		hist_attach(h, NULL);
		return 0;
	}
	return hist_alloc(h);
}

void hist_free(struct histogram *h)
{
	if (h->owns)
		free(h->count);
	h->count = NULL;
	h->l.nbuckets = 0;
	h->l.top = 0;
	h->owns = 0;
}

void hist_reset(struct histogram *h)
{
	h->underflow = 0;
	h->overflow = 0;
	if (h->count)
		memset(h->count, 0, (size_t)h->l.nbuckets * sizeof(uint64_t));
}

uint64_t hist_total(const struct histogram *h)
{
	uint64_t t = h->underflow + h->overflow;
	uint32_t i;

	for (i = 0; h->count && i < h->l.nbuckets; i++)
		t += h->count[i];
	return t;
}

uint64_t hist_past(const struct histogram *h)
{
	uint64_t t = h->overflow;
	uint32_t i;

	for (i = h->l.nlinear; h->count && i < h->l.nbuckets; i++)
		t += h->count[i];
	return t;
}

int hist_same_layout(const struct histogram *a, const struct histogram *b)
{
	const struct hist_layout *x = &a->l, *y = &b->l;

	return x->origin == y->origin && x->unit == y->unit &&
	       x->nbuckets == y->nbuckets && x->nlinear == y->nlinear &&
	       x->sub_bits == y->sub_bits && x->cap_bits == y->cap_bits &&
	       x->cap_below == y->cap_below && x->top == y->top;
}

int hist_merge(struct histogram *dst, const struct histogram *src)
{
	uint32_t i;

	if (!hist_same_layout(dst, src))
		return -EINVAL;
	dst->underflow += src->underflow;
	dst->overflow += src->overflow;
	for (i = 0; src->count && i < src->l.nbuckets; i++)
		dst->count[i] += src->count[i];
	return 0;
}

/* Bucket i's octave: the last whose first bucket is at or before i. */
static int bucket_octave(const struct hist_layout *l, uint32_t i)
{
	int k = l->octaves - 1;

	while (k > 0 && (int64_t)i < l->off[k] +
	       (int64_t)(oct_start(k) >> l->shift[k]))
		k--;
	return k;
}

int64_t hist_bucket_start(const struct histogram *h, uint32_t i)
{
	const struct hist_layout *l = &h->l;
	uint64_t q;
	int k;

	if (i >= l->nbuckets)
		return l->origin + (int64_t)(l->top * l->unit);
	k = bucket_octave(l, i);
	q = (uint64_t)((int64_t)i - l->off[k]) << l->shift[k];
	return l->origin + (int64_t)(q * l->unit);
}

uint64_t hist_bucket_width(const struct histogram *h, uint32_t i)
{
	const struct hist_layout *l = &h->l;

	if (i >= l->nbuckets)
		return l->unit;
	return l->unit << l->shift[bucket_octave(l, i)];
}
