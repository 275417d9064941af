/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * histogram.h - the one histogram of every series: log-linear (the idea
 * of HdrHistogram), int64 nanosecond values, memory fixed at setup.
 *
 * A value v is first put in units: q = (v - origin) / unit. Its octave is
 * k = floor(log2(q)) (q = 0 and 1: octave 0), and the octave is cut into
 * equal buckets 2^shift[k] units wide: shift[k] = k - (sub_bits - 1) past
 * the first sub_bits octaves (so 2^(sub_bits-1) buckets an octave: with
 * sub_bits = 11, a bucket is at most 1/1024 of its values, under 0.1 %),
 * 0 before; below the octave cap_below, no bucket is wider than
 * 2^cap_bits units. The top is the first power of two of units at or past
 * HIST_TOP_NS (100 s). Values below origin count as underflow, at or past
 * the top as overflow: nothing is dropped.
 *
 * Two layouts are used:
 * - hist_init_fine(): unit 1 ns, sub_bits 11, buckets at most 64 ns
 *   below 2^21 ns (2.1 ms): relative error under 0.1 % from 1 ns, and
 *   under 100 ns below 2 ms (55,296 buckets, 432 KiB).
 * - hist_init(origin, width, nlinear): exact buckets `width` wide for
 *   the first nlinear (and on to the next power of two), then 0.1 %: the
 *   first nlinear buckets are a linear histogram's (cyclictest's 1 us
 *   rows up to -h, Xenomai's -H cells), the samples past them are
 *   hist_past().
 *
 * Per sample: a division by the unit, a count-leading-zeros, two table
 * loads, a shift and an add (hist_add). No allocation, no lock.
 */
#ifndef RTLAT_HISTOGRAM_H
#define RTLAT_HISTOGRAM_H

#include <stddef.h>
#include <stdint.h>

/* Upper bound on linear buckets so a typo cannot ask for gigabytes. */
#define HIST_MAX_BUCKETS	(1U << 22)
#define HIST_TOP_NS		100000000000LL	/* covered at least: 100 s */
#define HIST_SUB_BITS		11		/* 1024 buckets an octave */
#define HIST_OCTAVES		64

struct hist_layout {
	int64_t origin;		/* start of bucket 0, ns */
	uint64_t unit;		/* the narrowest bucket, ns (>= 1) */
	uint64_t top;		/* in units: from it on, overflow */
	uint32_t nlinear;	/* the caller's linear buckets (hist_init) */
	uint32_t nbuckets;
	uint8_t sub_bits, cap_bits, cap_below, octaves;
	int32_t off[HIST_OCTAVES];	/* bucket = off[k] + (q >> shift[k]) */
	uint8_t shift[HIST_OCTAVES];
};

struct histogram {
	struct hist_layout l;
	uint64_t underflow;
	uint64_t overflow;
	uint64_t *count;	/* l.nbuckets counters */
	int owns;		/* count was allocated by hist_init */
};

/* Linear buckets first (see above); allocate zeroed storage. 0 or -errno. */
int hist_init(struct histogram *h, int64_t origin, uint64_t width,
	      uint32_t nlinear);
/* The 1 ns layout of a series' full-resolution histogram. */
int hist_init_fine(struct histogram *h, int64_t origin);
/* The same layout as src, allocated and zeroed. */
int hist_init_like(struct histogram *h, const struct histogram *src);
/* hist_init's layout in caller storage of hist_bytes(width, nlinear)
 * bytes (e.g. shared memory); nlinear 0: no bucket, all overflow. */
void hist_init_mem(struct histogram *h, int64_t origin, uint64_t width,
		   uint32_t nlinear, uint64_t *storage);
size_t hist_bytes(uint64_t width, uint32_t nlinear);
void hist_free(struct histogram *h);
void hist_reset(struct histogram *h);

/* v's bucket; -1: underflow, -2: overflow. */
static inline int64_t hist_index(const struct hist_layout *l, int64_t v)
{
	uint64_t q;
	int k;

	if (v < l->origin)
		return -1;
	/* Unsigned: v - origin would overflow int64 near its ends. */
	q = ((uint64_t)v - (uint64_t)l->origin) / l->unit;
	if (q >= l->top)
		return -2;
	k = 63 - __builtin_clzll(q | 1);
	return l->off[k] + (int64_t)(q >> l->shift[k]);
}

static inline void hist_add_n(struct histogram *h, int64_t v, uint64_t n)
{
	int64_t i = hist_index(&h->l, v);

	if (i >= 0)
		h->count[i] += n;
	else if (i == -1)
		h->underflow += n;
	else
		h->overflow += n;
}

static inline void hist_add(struct histogram *h, int64_t v)
{
	hist_add_n(h, v, 1);
}

/* Samples in buckets plus underflow and overflow. */
uint64_t hist_total(const struct histogram *h);
/* Samples at or past the linear buckets' end (hist_init's nlinear): a
 * linear histogram's overflow. */
uint64_t hist_past(const struct histogram *h);
/* Add every count of src into dst (same layout required: -EINVAL). */
int hist_merge(struct histogram *dst, const struct histogram *src);
int hist_same_layout(const struct histogram *a, const struct histogram *b);
/* Bucket i's first value and width, ns (i == nbuckets: the top). */
int64_t hist_bucket_start(const struct histogram *h, uint32_t i);
uint64_t hist_bucket_width(const struct histogram *h, uint32_t i);
/* The largest value bucket i holds. */
static inline int64_t hist_bucket_last(const struct histogram *h, uint32_t i)
{
	return hist_bucket_start(h, i) + (int64_t)hist_bucket_width(h, i) - 1;
}

#endif
