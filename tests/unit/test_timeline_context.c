// SPDX-License-Identifier: GPL-2.0-or-later
/* test_timeline_context.c - the timer's per-second counters as context
 * columns of its time line: one store, merged with the steps by the one
 * rule (counters and seconds add, unknown stays unknown; the steps' n
 * adds, min takes the min, max the max), the whole span kept. */
#include <stdint.h>
#include <string.h>
#include "measure/timeline.h"
#include "explain/explain.h"
#include "unit.h"

#define SEC 1000000000LL

/* A closed step of n samples at t0: min lo, max hi, avg (lo + hi) / 2. */
static void fold_step(struct tl_store *st, int64_t t0, uint64_t n,
		      int64_t lo, int64_t hi)
{
	static struct tl_acc a;

	tl_acc_reset(&a, t0);
	a.n = n;
	a.min = lo;
	a.max = hi;
	a.sum = (double)(lo + hi) / 2 * (double)n;
	a.bin[tl_bin(hi)] = n;
	tl_store_fold(st, &a);
}

static void fold_ctx(struct tl_store *st, int64_t t, int64_t a, int64_t b,
		     int64_t c)
{
	struct tl_ctx x = { .seconds = 1, .v = { a, b, c } };

	tl_store_context(st, t, &x);
}

/* 11 seconds into a store of 8 steps: one merge, steps of 2 s; each
 * merged step holds its two seconds' latency and counters. */
UNIT_TEST(context_merges_with_the_steps_by_one_rule)
{
	struct tl_store st;
	int64_t i, k;

	tl_store_init(&st, SEC, 8);
	CHECK(tl_store_context_init(&st, 3) == 0);
	for (i = 0; i < 11; i++) {
		fold_step(&st, i * SEC, 10, 1000 + i, i == 5 ? 999999 : 3000 + i);
		fold_ctx(&st, i * SEC + SEC / 2, i, 1, i == 7 ? -1 : 2);
	}
	CHECK_EQ_LL(st.merges, 1);
	CHECK_EQ_LL(st.step, 2 * SEC);
	CHECK_EQ_LL(st.len, 6);
	for (k = 0; k < 6; k++) {
		int64_t a = 2 * k, b = 2 * k + 1 < 11 ? 2 * k + 1 : -1;
		const struct tl_ctx *c = &st.ctx[k];

		CHECK_EQ_LL(st.s[k].n, b < 0 ? 10 : 20);
		CHECK_EQ_LL(st.s[k].min, 1000 + a);			/* min */
		CHECK_EQ_LL(st.s[k].max, k == 2 ? 999999 : 3000 + (b < 0 ? a : b)); /* max */
		CHECK_EQ_LL(c->seconds, b < 0 ? 1 : 2);		/* seconds add */
		CHECK_EQ_LL(c->v[0], a + (b < 0 ? 0 : b));		/* counters add */
		CHECK_EQ_LL(c->v[1], b < 0 ? 1 : 2);
		CHECK_EQ_LL(c->v[2], k == 3 ? -1 : b < 0 ? 2 : 4);	/* unknown stays */
	}
	tl_store_free(&st);
}

/* A month of seconds into 16 steps: the whole span kept, every second
 * counted once, the step a power of two of the base. */
UNIT_TEST(context_keeps_the_whole_span_under_the_cap)
{
	const int64_t n = 30 * 24 * 3600;
	struct tl_store st;
	int64_t i, secs = 0, irqs = 0;
	uint32_t k;

	tl_store_init(&st, SEC, 16);
	CHECK(tl_store_context_init(&st, 3) == 0);
	for (i = 0; i < n; i++)
		fold_ctx(&st, i * SEC + SEC / 2, 3, 0, 0);
	CHECK(st.len <= 16);
	CHECK(st.len * st.step >= n * SEC);
	CHECK((int64_t)(st.len - 1) * st.step < n * SEC);
	CHECK_EQ_LL(st.step, SEC << st.merges);
	for (k = 0; k < st.len; k++) {
		secs += st.ctx[k].seconds;
		irqs += st.ctx[k].v[0];
		CHECK_EQ_LL(st.s[k].n, 0);	/* context only: no samples */
	}
	CHECK_EQ_LL(secs, n);
	CHECK_EQ_LL(irqs, 3 * n);
	tl_store_free(&st);
}

/* Context columns added to a store that already has steps; a store
 * without them ignores readings; too many columns are refused. */
UNIT_TEST(context_columns_join_a_store_late)
{
	struct tl_store st;

	tl_store_init(&st, SEC, 100);
	fold_ctx(&st, SEC / 2, 5, 5, 5);	/* no columns: ignored */
	CHECK_EQ_LL(st.len, 0);
	fold_step(&st, 0, 4, 10, 20);
	CHECK(tl_store_context_init(&st, TL_CTX_MAX + 1) == -1);
	CHECK(tl_store_context_init(&st, LAYER_COLUMNS) == 0);
	CHECK_EQ_LL(st.ctx[0].seconds, 0);
	fold_ctx(&st, 70 * SEC, 1, 2, 3);	/* grows both arrays */
	CHECK_EQ_LL(st.len, 71);
	CHECK_EQ_LL(st.ctx[70].v[2], 3);
	CHECK_EQ_LL(st.s[0].n, 4);
	CHECK_EQ_LL(st.s[70].n, 0);
	tl_store_free(&st);
}

/* The layer's columns, named once, fit a context row; an unbegun layer
 * (the cyclictest face's, --timeline 0) reads nothing. */
UNIT_TEST(layer_columns_named_once)
{
	struct layer l;
	struct tl_ctx row;
	int n = 0;

	while (layer_columns[n])
		n++;
	CHECK_EQ_LL(n, LAYER_COLUMNS);
	CHECK(LAYER_COLUMNS <= TL_CTX_MAX);
	CHECK(!strcmp(layer_columns[0], "irqs"));
	memset(&l, 0, sizeof(l));
	CHECK(!layer_second(&l, 0, &row));
	layer_begin(&l, 0);
	CHECK(layer_second(&l, 3, &row));
	CHECK_EQ_LL(row.seconds, 1);
	CHECK_EQ_LL(row.v[LAYER_SOFTIRQS + 3], 3);	/* involuntary switches */
}
