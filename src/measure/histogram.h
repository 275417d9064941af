/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * histogram.h - bounded linear histogram of int64 nanosecond values.
 *
 * Bucket i holds values in [origin + i*width, origin + (i+1)*width).
 * Values below origin are counted as underflow, values at or past the last
 * bucket as overflow: nothing is dropped. Memory is fixed at init.
 */
#ifndef RTLAT_HISTOGRAM_H
#define RTLAT_HISTOGRAM_H

#include <stddef.h>
#include <stdint.h>

/* Upper bound on buckets so a typo cannot ask for gigabytes. */
#define HIST_MAX_BUCKETS	(1U << 22)

struct histogram {
	int64_t origin;		/* start of bucket 0, ns */
	uint64_t width;		/* bucket width, ns (>= 1) */
	uint32_t nbuckets;
	uint64_t underflow;
	uint64_t overflow;
	uint64_t *count;	/* nbuckets counters */
	int owns;		/* count was allocated by hist_init */
};

/* Allocate (zeroed) storage. Returns 0 or -errno. */
int hist_init(struct histogram *h, int64_t origin, uint64_t width,
	      uint32_t nbuckets);
/* Use caller storage of hist_bytes(nbuckets) bytes (e.g. shared memory). */
void hist_init_mem(struct histogram *h, int64_t origin, uint64_t width,
		   uint32_t nbuckets, uint64_t *storage);
size_t hist_bytes(uint32_t nbuckets);
void hist_free(struct histogram *h);
void hist_reset(struct histogram *h);

static inline void hist_add(struct histogram *h, int64_t v)
{
	uint64_t off;

	if (v < h->origin) {
		h->underflow++;
		return;
	}
	/* Unsigned: v - origin would overflow int64 near its ends. */
	off = ((uint64_t)v - (uint64_t)h->origin) / h->width;
	if (off >= h->nbuckets)
		h->overflow++;
	else
		h->count[off]++;
}

/* Samples in buckets plus underflow and overflow. */
uint64_t hist_total(const struct histogram *h);
/* Add every count of src into dst (same geometry required: -EINVAL). */
int hist_merge(struct histogram *dst, const struct histogram *src);
static inline int64_t hist_bucket_start(const struct histogram *h, uint32_t i)
{
	return h->origin + (int64_t)(i * h->width);
}

#endif
