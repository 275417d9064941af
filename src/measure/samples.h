/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * samples.h - every sample of one series, handed from its measuring
 * thread to the writer (--samples): a single-producer, single-consumer
 * ring of SMP_RING_ROWS rows in storage given at setup (shared memory
 * when the series is measured in a forked child).
 *
 * The measuring path (smp_push) pays two relaxed loads, one 16-byte store
 * and one release store; it never waits: when the writer has fallen a
 * whole ring behind, the sample is counted in dropped and left out. The
 * writer (the recorder's thread) pops what is there with smp_pop.
 */
#ifndef RTLAT_SAMPLES_H
#define RTLAT_SAMPLES_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

/* 1 MiB a series: 65536 samples, 0.65 s of a 100 kHz series between two
 * of the writer's passes (SMP_POLL_NS apart). */
#define SMP_RING_ROWS	(1u << 16)
#define SMP_POLL_NS	(20 * 1000 * 1000LL)

struct smp_row {
	int64_t t_ns;		/* monotonic time of the sample */
	int64_t ns;		/* the sample */
};

struct smp_ring {
	/* Producer and consumer counters on their own cache lines. */
	_Alignas(64) atomic_uint_fast64_t head;	/* rows pushed */
	_Alignas(64) atomic_uint_fast64_t tail;	/* rows popped */
	_Alignas(64) atomic_uint_fast64_t dropped;	/* rows the ring had no room for */
	struct smp_row row[SMP_RING_ROWS];
};

static inline void smp_push(struct smp_ring *s, int64_t t_ns, int64_t ns)
{
	uint_fast64_t h = atomic_load_explicit(&s->head, memory_order_relaxed);
	uint_fast64_t t = atomic_load_explicit(&s->tail, memory_order_acquire);

	if (h - t >= SMP_RING_ROWS) {
		atomic_fetch_add_explicit(&s->dropped, 1, memory_order_relaxed);
		return;
	}
	s->row[h & (SMP_RING_ROWS - 1)] = (struct smp_row){ t_ns, ns };
	atomic_store_explicit(&s->head, h + 1, memory_order_release);
}

void smp_init(struct smp_ring *s);
/* Up to max rows into out, oldest first; returns how many. The one
 * consumer only. */
size_t smp_pop(struct smp_ring *s, struct smp_row *out, size_t max);

#endif
