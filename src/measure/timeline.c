// SPDX-License-Identifier: GPL-2.0-or-later
/* timeline.c - a series' time line: producer hand-off, consumer store
 * (see timeline.h). */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "measure/timeline.h"

int64_t tl_bin_top(unsigned int b)
{
	unsigned int e, sub;

	if (b < 4)
		return (int64_t)b;
	e = b / 4U + 1U;
	sub = b % 4U;
	if (e >= 62U && sub == 3U)
		return INT64_MAX;
	return (int64_t)((((uint64_t)(4U + sub + 1U)) << (e - 2U)) - 1U);
}

void tl_acc_reset(struct tl_acc *a, int64_t t0)
{
	memset(a, 0, sizeof(*a));
	a->t0 = t0;
	a->min = INT64_MAX;
	a->max = INT64_MIN;
}

void tl_prod_init(struct tl_prod *p, int64_t step, int64_t threshold)
{
	memset(p, 0, sizeof(*p));
	p->step = step > 0 ? step : 1;
	p->threshold = threshold;
	p->end = INT64_MAX;	/* no step before tl_prod_start */
	tl_acc_reset(&p->cur, 0);
}

void tl_prod_start(struct tl_prod *p, int64_t origin)
{
	p->origin = origin;
	tl_acc_reset(&p->cur, 0);
	__atomic_store_n(&p->end, origin + p->step, __ATOMIC_RELEASE);
}

void tl_prod_turn(struct tl_prod *p, int64_t now)
{
	int64_t idx = now > p->origin ? (now - p->origin) / p->step : 0;
	uint64_t head = p->head;

	p->end = p->origin + (idx + 1) * p->step;
	if (!p->cur.n) {
		p->cur.t0 = idx * p->step;
		return;
	}
	if (head - __atomic_load_n(&p->tail, __ATOMIC_ACQUIRE) >= TL_RING)
		return;	/* full: the samples stay in the step they started in */
	p->slot[head & (TL_RING - 1)] = p->cur;
	__atomic_store_n(&p->head, head + 1, __ATOMIC_RELEASE);
	tl_acc_reset(&p->cur, idx * p->step);
}

static int64_t clamp(int64_t v, int64_t lo, int64_t hi)
{
	return v < lo ? lo : v > hi ? hi : v;
}

int64_t tl_acc_p99(const struct tl_acc *a)
{
	uint64_t rank, cum = 0;
	unsigned int b;

	if (!a->n)
		return 0;
	rank = (uint64_t)ceil(0.99 * (double)a->n);
	if (rank < 1)
		rank = 1;
	for (b = 0; b < TL_BINS; b++) {
		cum += a->bin[b];
		if (cum >= rank)
			return clamp(tl_bin_top(b), a->min, a->max);
	}
	return a->max;
}

void tl_store_init(struct tl_store *st, int64_t step, uint32_t cap)
{
	memset(st, 0, sizeof(*st));
	st->step = step > 0 ? step : 1;
	st->cap = cap < 2 ? 2 : cap + (cap & 1);
}

void tl_store_free(struct tl_store *st)
{
	free(st->s);
	free(st->ctx);
	st->s = NULL;
	st->ctx = NULL;
	st->alloc = st->len = 0;
}

/* The context rows to n (> alloc) steps, zeroed past alloc. */
static int ctx_grow(struct tl_store *st, uint32_t n)
{
	struct tl_ctx *c;

	if (!st->nctx)
		return 0;
	c = realloc(st->ctx, (size_t)n * sizeof(*c));
	if (!c)
		return -1;
	memset(c + st->alloc, 0, (size_t)(n - st->alloc) * sizeof(*c));
	st->ctx = c;
	return 0;
}

/* Room for step idx (< cap): 0, or -1 when memory is short. */
static int store_grow(struct tl_store *st, uint32_t idx)
{
	uint32_t n = st->alloc ? st->alloc : 64;
	struct tl_step *s;

	while (n <= idx)
		n *= 2;
	if (n > st->cap)
		n = st->cap;
	if (ctx_grow(st, n))
		return -1;
	s = realloc(st->s, (size_t)n * sizeof(*s));
	if (!s)
		return -1;
	memset(s + st->alloc, 0, (size_t)(n - st->alloc) * sizeof(*s));
	st->s = s;
	st->alloc = n;
	return 0;
}

int tl_store_context_init(struct tl_store *st, uint32_t nctx)
{
	if (!nctx || nctx > TL_CTX_MAX || st->nctx)
		return st->nctx == nctx ? 0 : -1;
	if (st->alloc) {
		st->ctx = calloc(st->alloc, sizeof(*st->ctx));
		if (!st->ctx)
			return -1;
	}
	st->nctx = nctx;
	return 0;
}

static void step_fold(void *dst, const void *src)
{
	struct tl_step *d = dst;
	const struct tl_step *s = src;

	if (!s->n)
		return;
	if (!d->n) {
		*d = *s;
		return;
	}
	d->n += s->n;
	d->over += s->over;
	d->sum += s->sum;
	if (s->min < d->min)
		d->min = s->min;
	if (s->max > d->max)
		d->max = s->max;
	if (s->p99 > d->p99)
		d->p99 = s->p99;
}

size_t tl_halve(void *rows, size_t n, size_t size,
		void (*fold)(void *dst, const void *src))
{
	char *r = rows;
	size_t i;

	for (i = 0; 2 * i < n; i++) {
		if (i)
			memcpy(r + i * size, r + 2 * i * size, size);
		if (2 * i + 1 < n)
			fold(r + i * size, r + (2 * i + 1) * size);
	}
	return i;
}

/* A context row into another: seconds and counters add; a column
 * unknown in either stays unknown. */
static void ctx_fold(void *dst, const void *src)
{
	struct tl_ctx *d = dst;
	const struct tl_ctx *s = src;
	int i;

	if (!s->seconds)
		return;
	if (!d->seconds) {
		*d = *s;
		return;
	}
	d->seconds += s->seconds;
	for (i = 0; i < TL_CTX_MAX; i++)
		d->v[i] = d->v[i] < 0 || s->v[i] < 0 ? -1 : d->v[i] + s->v[i];
}

void tl_store_merge(struct tl_store *st)
{
	uint32_t len = (uint32_t)tl_halve(st->s, st->len, sizeof(*st->s), step_fold);

	if (st->nctx)
		tl_halve(st->ctx, st->len, sizeof(*st->ctx), ctx_fold);
	if (st->len) {
		memset(&st->s[len], 0, (size_t)(st->len - len) * sizeof(*st->s));
		if (st->nctx)
			memset(&st->ctx[len], 0,
			       (size_t)(st->len - len) * sizeof(*st->ctx));
	}
	st->len = len;
	st->step *= 2;
	st->merges++;
}

/* The step holding t (ns from the origin), room made for it: past the
 * cap, or with no memory for more steps, the steps merge (coarser). */
static uint32_t store_slot(struct tl_store *st, int64_t t)
{
	int64_t idx = (t > 0 ? t : 0) / st->step;

	while (idx >= (int64_t)st->cap ||
	       (idx >= (int64_t)st->alloc && store_grow(st, (uint32_t)idx))) {
		tl_store_merge(st);
		idx = (t > 0 ? t : 0) / st->step;
	}
	if ((uint32_t)idx + 1 > st->len)
		st->len = (uint32_t)idx + 1;
	return (uint32_t)idx;
}

void tl_store_fold(struct tl_store *st, const struct tl_acc *a)
{
	struct tl_step s = {
		.n = a->n, .over = a->over, .min = a->min, .max = a->max,
		.p99 = tl_acc_p99(a), .sum = a->sum,
	};
	uint32_t idx;

	if (!a->n)
		return;
	idx = store_slot(st, a->t0);	/* may move st->s */
	step_fold(&st->s[idx], &s);
}

void tl_store_context(struct tl_store *st, int64_t t, const struct tl_ctx *c)
{
	struct tl_ctx row = { .seconds = c->seconds };
	uint32_t i, idx;

	if (!st->nctx || c->seconds <= 0)
		return;
	for (i = 0; i < st->nctx; i++)
		row.v[i] = c->v[i];
	idx = store_slot(st, t);	/* may move st->ctx */
	ctx_fold(&st->ctx[idx], &row);
}

int tl_store_drain(struct tl_store *st, struct tl_prod *p)
{
	uint64_t tail = p->tail;
	int k = 0;

	while (tail != __atomic_load_n(&p->head, __ATOMIC_ACQUIRE)) {
		tl_store_fold(st, &p->slot[tail & (TL_RING - 1)]);
		__atomic_store_n(&p->tail, ++tail, __ATOMIC_RELEASE);
		k++;
	}
	return k;
}

void tl_store_finish(struct tl_store *st, struct tl_prod *p)
{
	tl_store_drain(st, p);
	tl_store_fold(st, &p->cur);
	tl_acc_reset(&p->cur, p->cur.t0);
}
