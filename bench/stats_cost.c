// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * stats_cost.c - what one recorded sample costs on the measuring path:
 * stats_add() into the pair tests' histogram geometry. bench/overhead runs
 * it under callgrind (instructions, repeatable) and natively (ns).
 *
 *   stats_cost add N    N samples through stats_add
 *   stats_cost base N   the same loop without stats_add (subtracted)
 *   stats_cost time N   ns per sample, measured with CLOCK_MONOTONIC
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "core/clock.h"
#include "core/stats.h"

/* Latency-like values: mostly a few µs, now and then far out. */
static inline int64_t next_value(uint64_t *x)
{
	*x = *x * 6364136223846793005ULL + 1442695040888963407ULL;
	return 2000 + (int64_t)((*x >> 33) % 8000) +
	       (((*x >> 20) & 1023) == 0 ? 5000000 : 0);
}

static volatile int64_t sink;

int main(int argc, char **argv)
{
	struct stats s;
	uint64_t x = 1, i, n;
	int64_t t0, t1, acc = 0;

	if (argc != 3) {
		fprintf(stderr, "usage: stats_cost add|base|time N\n");
		return 2;
	}
	n = strtoull(argv[2], NULL, 10);
	if (stats_init(&s, 0, 100, 20000))
		return 1;
	t0 = clock_now_ns();
	if (!strcmp(argv[1], "base")) {
		for (i = 0; i < n; i++)
			acc += next_value(&x);
		sink = acc;
	} else {
		for (i = 0; i < n; i++)
			stats_add(&s, next_value(&x));
	}
	t1 = clock_now_ns();
	if (!strcmp(argv[1], "time"))
		printf("%.2f\n", (double)(t1 - t0) / (double)n);
	sink = (int64_t)s.n;
	stats_free(&s);
	return 0;
}
