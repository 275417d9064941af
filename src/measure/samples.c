// SPDX-License-Identifier: GPL-2.0-or-later
/* samples.c - the --samples ring's consumer side (see samples.h). */
#include <string.h>
#include "measure/samples.h"

void smp_init(struct smp_ring *s)
{
	atomic_init(&s->head, 0);
	atomic_init(&s->tail, 0);
	atomic_init(&s->dropped, 0);
}

size_t smp_pop(struct smp_ring *s, struct smp_row *out, size_t max)
{
	uint_fast64_t t = atomic_load_explicit(&s->tail, memory_order_relaxed);
	uint_fast64_t h = atomic_load_explicit(&s->head, memory_order_acquire);
	size_t n = (size_t)(h - t), i;

	if (n > max)
		n = max;
	for (i = 0; i < n; i++)
		out[i] = s->row[(t + i) & (SMP_RING_ROWS - 1)];
	/* The rows are copied before the producer may reuse them. */
	atomic_store_explicit(&s->tail, t + n, memory_order_release);
	return n;
}
