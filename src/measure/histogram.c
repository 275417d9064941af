// SPDX-License-Identifier: GPL-2.0-or-later
/* histogram.c - bounded linear histogram (see histogram.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "measure/histogram.h"

size_t hist_bytes(uint32_t nbuckets)
{
	return (size_t)nbuckets * sizeof(uint64_t);
}

void hist_init_mem(struct histogram *h, int64_t origin, uint64_t width,
		   uint32_t nbuckets, uint64_t *storage)
{
	h->origin = origin;
	h->width = width ? width : 1;
	h->nbuckets = nbuckets;
	h->underflow = 0;
	h->overflow = 0;
	h->count = storage;
	h->owns = 0;
	if (storage)
		memset(storage, 0, hist_bytes(nbuckets));
}

int hist_init(struct histogram *h, int64_t origin, uint64_t width,
	      uint32_t nbuckets)
{
	uint64_t *c;

	if (nbuckets == 0 || nbuckets > HIST_MAX_BUCKETS || width == 0)
		return -EINVAL;
	c = calloc(nbuckets, sizeof(*c));
	if (!c)
		return -ENOMEM;
	hist_init_mem(h, origin, width, nbuckets, c);
	h->owns = 1;
	return 0;
}

void hist_free(struct histogram *h)
{
	if (h->owns)
		free(h->count);
	h->count = NULL;
	h->nbuckets = 0;
	h->owns = 0;
}

void hist_reset(struct histogram *h)
{
	h->underflow = 0;
	h->overflow = 0;
	if (h->count)
		memset(h->count, 0, hist_bytes(h->nbuckets));
}

uint64_t hist_total(const struct histogram *h)
{
	uint64_t t = h->underflow + h->overflow;
	uint32_t i;

	for (i = 0; i < h->nbuckets; i++)
		t += h->count[i];
	return t;
}

int hist_merge(struct histogram *dst, const struct histogram *src)
{
	uint32_t i;

	if (dst->origin != src->origin || dst->width != src->width ||
	    dst->nbuckets != src->nbuckets)
		return -EINVAL;
	dst->underflow += src->underflow;
	dst->overflow += src->overflow;
	for (i = 0; i < src->nbuckets; i++)
		dst->count[i] += src->count[i];
	return 0;
}
