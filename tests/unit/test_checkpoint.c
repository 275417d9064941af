// SPDX-License-Identifier: GPL-2.0-or-later
/* test_checkpoint.c - a checkpoint's copy of a series (harness/checkpoint.c):
 * exact when nothing is added, consistent while a thread adds. */
#include <pthread.h>
#include <stdint.h>
#include <string.h>
#include "measure/stats.h"
#include "harness/checkpoint.h"
#include "unit.h"

static uint64_t hist_sum(const struct histogram *h)
{
	uint64_t n = h->underflow + h->overflow;
	uint32_t i;

	for (i = 0; i < h->l.nbuckets; i++)
		n += h->count[i];
	return n;
}

UNIT_TEST(checkpoint_copy_is_exact_when_quiet)
{
	struct stats s, c;
	int k;

	CHECK(stats_init(&s, 0, 100, 10) == 0);
	for (k = 0; k < 1000; k++)
		stats_add(&s, k * 7 % 1300 - 50);	/* under- and overflow too */
	CHECK(checkpoint_stats_copy(&c, &s) == 0);
	CHECK(c.hist.count != s.hist.count);		/* its own buckets */
	CHECK_EQ_LL(c.n, s.n);
	CHECK_EQ_LL(c.min, s.min);
	CHECK_EQ_LL(c.max, s.max);
	CHECK_NEAR(stats_mean(&c), stats_mean(&s), 0);
	CHECK_EQ_LL(stats_percentile(&c, 99), stats_percentile(&s, 99));
	CHECK(!memcmp(c.hist.count, s.hist.count, 10 * sizeof(uint64_t)));
	checkpoint_stats_free(&c);
	stats_free(&s);
}

/* A sample counted in n but not yet in its bucket (the instant of the
 * copy): the copy's n is its histogram's, so percentiles walk a whole. */
UNIT_TEST(checkpoint_copy_n_is_its_histogram)
{
	struct stats s, c;
	int k;

	CHECK(stats_init(&s, 0, 100, 10) == 0);
	for (k = 0; k < 100; k++)
		stats_add(&s, 150);
	s.n += 3;
	CHECK(checkpoint_stats_copy(&c, &s) == 0);
	CHECK_EQ_LL(c.n, 100);
	CHECK_EQ_LL(stats_percentile(&c, 99.99), 150);
	checkpoint_stats_free(&c);
	stats_free(&s);
}

/* A histogram not set up yet (a test that sets one up while it runs):
 * copied with no bucket, never half. */
UNIT_TEST(checkpoint_copy_of_a_histogram_not_set_up)
{
	struct stats s, c;

	memset(&s, 0, sizeof(s));
	s.hist.l.nbuckets = 10;		/* torn: the number, not the buckets */
	CHECK(checkpoint_stats_copy(&c, &s) == 0);
	CHECK(c.hist.count == NULL && c.hist.l.nbuckets == 0);
	CHECK_EQ_LL(c.n, 0);
	checkpoint_stats_free(&c);
}

struct adder {
	struct stats *s;
	volatile int done;
};

static void *add_many(void *arg)
{
	struct adder *a = arg;
	int64_t k;

	for (k = 0; k < 2000000; k++)
		stats_add(a->s, k % 1000);
	__atomic_store_n(&a->done, 1, __ATOMIC_RELEASE);
	return NULL;
}

/* Copies taken while a thread adds (no lock on its side): each is a
 * histogram that sums to its n, n never goes back, min and max bound the
 * percentiles; the copy after the thread ended is exact. */
UNIT_TEST(checkpoint_copy_while_a_thread_adds)
{
	struct adder a;
	struct stats s, c;
	uint64_t last = 0;
	pthread_t t;
	int copies = 0, bad = 0;

	CHECK(stats_init(&s, 0, 10, 100) == 0);
	a.s = &s;
	a.done = 0;
	CHECK(pthread_create(&t, NULL, add_many, &a) == 0);
	while (!__atomic_load_n(&a.done, __ATOMIC_ACQUIRE)) {
		if (checkpoint_stats_copy(&c, &s))
			break;
		copies++;
		bad += c.n != hist_sum(&c.hist) || c.n < last;
		if (c.n)
			bad += stats_percentile(&c, 50) < c.min ||
			       stats_percentile(&c, 50) > c.max;
		last = c.n;
		checkpoint_stats_free(&c);
	}
	pthread_join(t, NULL);
	CHECK_EQ_LL(bad, 0);
	CHECK(copies > 0);
	CHECK(checkpoint_stats_copy(&c, &s) == 0);
	CHECK_EQ_LL(c.n, 2000000);
	CHECK_EQ_LL(c.max, 999);
	checkpoint_stats_free(&c);
	stats_free(&s);
}
