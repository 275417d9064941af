/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * largest.h - the K largest samples of one series, exactly, with their
 * time and CPU (issue 34: the tail past a histogram's range).
 *
 * A min-heap of K rows in storage given at setup (shared memory when the
 * series is measured in a forked child). The measuring path pays one
 * comparison per sample against the K-th largest kept (largest_add); the
 * rare insertion is O(log K) and allocates nothing. Among samples equal
 * to the K-th largest, the earliest are kept.
 *
 * Readers on another thread or process (a checkpoint) take a consistent
 * copy with largest_snapshot(): a sequence count, odd while an insertion
 * is under way, tells them to retry.
 */
#ifndef RTLAT_LARGEST_H
#define RTLAT_LARGEST_H

#include <stddef.h>
#include <stdint.h>

#define LARGEST_DEFAULT_K	2048
#define LARGEST_MAX_K		(1 << 20)

struct largest_row {
	int64_t ns;		/* the sample */
	int64_t t_ns;		/* its monotonic time */
	int32_t cpu;		/* where it was measured; -1 unknown */
	int32_t pad;
};

struct largest {
	uint32_t k;		/* rows kept at most; 0: off */
	uint32_t n;		/* rows kept */
	uint64_t seen;		/* samples offered */
	int64_t floor;		/* the K-th largest once full; INT64_MIN before */
	uint64_t seq;		/* odd while an insertion is under way */
	struct largest_row *row;	/* the min-heap, k rows */
};

size_t largest_bytes(uint32_t k);
/* Use storage of largest_bytes(k) bytes; k 0: keeps nothing. */
void largest_init(struct largest *l, uint32_t k, struct largest_row *storage);
/* The rare part of largest_add: the sample goes into the heap. */
void largest_insert(struct largest *l, int64_t ns, int64_t t_ns);

static inline void largest_add(struct largest *l, int64_t ns, int64_t t_ns)
{
	l->seen++;
	if (ns > l->floor && l->k)
		largest_insert(l, ns, t_ns);
}

/*
 * Copy the rows into out (room for l->k), sorted by ns descending (ties
 * by time); *seen gets the samples offered. Safe against a writer on
 * another thread or process. Returns the rows copied.
 */
uint32_t largest_snapshot(const struct largest *l, struct largest_row *out,
			  uint64_t *seen);
/* Sort rows by ns descending, ties earliest first. */
void largest_sort(struct largest_row *rows, uint32_t n);

#endif
