// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * stats_cost.c - what one recorded sample costs on the measuring path:
 * stats_add() into the pair tests' histogram geometry, and with the long
 * run's record_add() (--timeline 1s, --largest 2048) after it. bench/
 * overhead runs it under callgrind (instructions, repeatable) and
 * natively (ns).
 *
 *   stats_cost add N     N samples through stats_add
 *   stats_cost rec N     stats_add and record_add, a sample every 100 us
 *                        of made-up time (a step handed over every 1e4)
 *   stats_cost base N    the same loop without either (subtracted)
 *   stats_cost time N    ns per sample of add, measured with CLOCK_MONOTONIC
 *   stats_cost rectime N ns per sample of rec
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "measure/clock.h"
#include "measure/record.h"
#include "measure/stats.h"

/* Latency-like values: mostly a few µs, now and then far out. */
static inline int64_t next_value(uint64_t *x)
{
	*x = *x * 6364136223846793005ULL + 1442695040888963407ULL;
	return 2000 + (int64_t)((*x >> 33) % 8000) +
	       (((*x >> 20) & 1023) == 0 ? 5000000 : 0);
}

static volatile int64_t sink;

/* One series as record_series() sets it up: the heap's rows follow. */
static struct rec_series *rec_new(void)
{
	struct rec_series *r = calloc(1, sizeof(*r) +
				      largest_bytes(LARGEST_DEFAULT_K));

	if (!r)
		return NULL;
	r->tl_on = true;
	tl_prod_init(&r->tl, NSEC_PER_SEC, INT64_MAX);
	tl_prod_start(&r->tl, 0);
	largest_init(&r->lg, LARGEST_DEFAULT_K, (struct largest_row *)(r + 1));
	return r;
}

int main(int argc, char **argv)
{
	struct rec_series *r = NULL;
	struct stats s;
	uint64_t x = 1, i, n;
	int64_t t0, t1, v, acc = 0;
	bool rec;

	if (argc != 3) {
		fprintf(stderr, "usage: stats_cost add|rec|base|time|rectime N\n");
		return 2;
	}
	n = strtoull(argv[2], NULL, 10);
	if (stats_init(&s, 0, 100, 20000))
		return 1;
	rec = !strcmp(argv[1], "rec") || !strcmp(argv[1], "rectime");
	if (rec && !(r = rec_new()))
		return 1;
	t0 = clock_now_ns();
	if (!strcmp(argv[1], "base")) {
		for (i = 0; i < n; i++)
			acc += next_value(&x);
		sink = acc;
	} else if (rec) {
		for (i = 0; i < n; i++) {
			v = next_value(&x);
			stats_add(&s, v);
			record_add(r, (int64_t)i * 100000, v);
			/* The recorder's thread: it takes the steps handed over. */
			r->tl.tail = r->tl.head;
		}
	} else {
		for (i = 0; i < n; i++)
			stats_add(&s, next_value(&x));
	}
	t1 = clock_now_ns();
	if (!strcmp(argv[1], "time") || !strcmp(argv[1], "rectime"))
		printf("%.2f\n", (double)(t1 - t0) / (double)n);
	sink = (int64_t)s.n;
	stats_free(&s);
	free(r);
	return 0;
}
