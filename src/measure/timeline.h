/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * timeline.h - the time line of one series (issue 33): for each step of
 * the run, its sample count, min, sum (avg), max, p99 and the count over
 * a threshold, bounded in memory however long the run.
 *
 * Two halves. The producer (struct tl_prod, the measuring thread's, in
 * storage given at setup: shared memory when a forked child measures)
 * adds each sample to the current step's accumulator in O(1): a compare
 * with the step's end, the moments, and one counter of a small fixed
 * log-scaled histogram (4 bins an octave) from which the step's p99 comes.
 * When a sample falls past the step's end the producer hands the
 * accumulator over through a fixed single-producer single-consumer ring
 * (a copy into a preallocated slot, nothing allocated, no lock, no I/O)
 * and starts the next step.
 *
 * Why a hand-off, not closing on the measuring thread: closing a step
 * means the p99 search over the bins and, at the cap, merging every step
 * kept two by two (O(cap)); that work and the store it writes belong to a
 * non-measuring thread (the recorder's, record.c), which pops the ring
 * (tl_store_drain). The measuring thread pays a 2 KiB copy once a step.
 * If the ring is ever full (the consumer stalled for 16 steps) the
 * producer keeps adding to the same accumulator: the samples then count
 * in the step it started in, never lost.
 *
 * The consumer's store (struct tl_store) keeps at most cap steps, grown
 * by the consumer as the run goes (never on the measuring thread); past
 * the cap, or when memory is short, adjacent steps merge two by two and
 * the step doubles. A merged
 * step's p99 is the larger of the two (an upper bound): the bins are not
 * kept per stored step.
 *
 * A series may carry context columns beside its steps (the timer's
 * interrupts, softirqs, steal, CPU pressure and involuntary switches of
 * the measuring CPU): counters read off the measuring path, once in a
 * while, by the thread that reads them (tl_store_context), each reading
 * the counters' increase over the seconds it covers. They live in the
 * same store, step by step, and merge with the steps by the same rule in
 * the same call: counters and seconds add; unknown (< 0) stays unknown.
 */
#ifndef RTLAT_TIMELINE_H
#define RTLAT_TIMELINE_H

#include <stddef.h>
#include <stdint.h>

#define TL_BINS		248	/* 4 per octave up to 2^62 ns */
#define TL_RING		16	/* power of two */
#define TL_CAP_DEFAULT	10000

struct tl_acc {
	int64_t t0;		/* the step's start, ns from the origin */
	uint64_t n, over;
	int64_t min, max;
	double sum;		/* a double: no sum overflows */
	uint64_t bin[TL_BINS];
};

struct tl_prod {
	int64_t origin;		/* monotonic ns of the run's start */
	int64_t step;		/* the producer's step, ns (the base step) */
	int64_t end;		/* monotonic ns the current step ends */
	int64_t threshold;	/* over: samples > threshold; INT64_MAX none */
	uint64_t head;		/* written by the producer */
	uint64_t tail;		/* written by the consumer */
	struct tl_acc cur;
	struct tl_acc slot[TL_RING];
};

/* A step as the store keeps it. n 0: nothing measured in it. */
struct tl_step {
	uint64_t n, over;
	int64_t min, max, p99;
	double sum;
};

/* A step's context: the seconds of readings folded in (0: none) and
 * their counters' increase, column by column; < 0: unknown. */
#define TL_CTX_MAX	14
struct tl_ctx {
	int64_t seconds;
	int64_t v[TL_CTX_MAX];
};

struct tl_store {
	int64_t step;		/* ns: the base step << merges */
	uint32_t cap;		/* steps kept at most (even, >= 2) */
	uint32_t len;		/* steps 0..len-1 in use */
	uint32_t alloc;		/* steps allocated (<= cap) */
	uint32_t merges;
	struct tl_step *s;
	uint32_t nctx;		/* context columns; 0: none (ctx NULL) */
	struct tl_ctx *ctx;	/* alloc rows beside s, when nctx */
};

/* Bin of a sample: 0..3 exact below 4 ns (negative in 0), then 4 an octave. */
static inline unsigned int tl_bin(int64_t v)
{
	unsigned int e;

	if (v < 4)
		return v < 0 ? 0 : (unsigned int)v;
	e = 63U - (unsigned int)__builtin_clzll((unsigned long long)v);
	return 4U * (e - 1U) + (unsigned int)(((uint64_t)v >> (e - 2U)) & 3U);
}
/* The largest value bin b holds. */
int64_t tl_bin_top(unsigned int b);

void tl_acc_reset(struct tl_acc *a, int64_t t0);
/* Set up a producer: step ns, threshold (INT64_MAX none); origin later. */
void tl_prod_init(struct tl_prod *p, int64_t step, int64_t threshold);
/* The measurement starts: steps count from origin (monotonic ns). */
void tl_prod_start(struct tl_prod *p, int64_t origin);
/* The rare part of timeline_add: hand the step over, start the next. */
void tl_prod_turn(struct tl_prod *p, int64_t now);

/* The measuring path: O(1), no allocation, no lock. */
static inline void timeline_add(struct tl_prod *p, int64_t now, int64_t v)
{
	struct tl_acc *a = &p->cur;

	if (now >= p->end)
		tl_prod_turn(p, now);
	a->n++;
	a->sum += (double)v;
	if (v < a->min)
		a->min = v;
	if (v > a->max)
		a->max = v;
	if (v > p->threshold)
		a->over++;
	a->bin[tl_bin(v)]++;
}

/* count samples of one value at once, e.g. from a test's own counters of
 * small values (bintime's); O(1). */
static inline void timeline_add_n(struct tl_prod *p, int64_t now, int64_t v,
				  uint64_t count)
{
	struct tl_acc *a = &p->cur;

	if (!count)
		return;
	if (now >= p->end)
		tl_prod_turn(p, now);
	a->n += count;
	a->sum += (double)v * (double)count;
	if (v < a->min)
		a->min = v;
	if (v > a->max)
		a->max = v;
	if (v > p->threshold)
		a->over += count;
	a->bin[tl_bin(v)] += count;
}

/* The p99 of an accumulator: the top of the bin holding rank
 * ceil(0.99 n), clamped to [min, max]. */
int64_t tl_acc_p99(const struct tl_acc *a);

/*
 * Merge adjacent rows two by two in place: n rows of size bytes become
 * (n + 1) / 2, row i the fold of rows 2i and 2i + 1 (fold(dst, src) adds
 * src into dst). Returns the new count. The one rule that bounds every
 * series over time rtlat keeps: a store's steps and their context
 * columns (the timer's per-second counters) halve in the same call.
 */
size_t tl_halve(void *rows, size_t n, size_t size,
		void (*fold)(void *dst, const void *src));

/* An empty store (cap made even, >= 2); its steps are allocated as they
 * come, by the consumer. */
void tl_store_init(struct tl_store *st, int64_t step, uint32_t cap);
void tl_store_free(struct tl_store *st);
/* Fold one accumulator in at its t0 (merging two by two past the cap). */
void tl_store_fold(struct tl_store *st, const struct tl_acc *a);
/* The series has nctx (<= TL_CTX_MAX) context columns: 0, or -1 when
 * memory is short (it then has none). */
int tl_store_context_init(struct tl_store *st, uint32_t nctx);
/* Fold one reading of the context counters in at t (ns from the origin,
 * within the seconds it covers): c->seconds and its nctx values. */
void tl_store_context(struct tl_store *st, int64_t t, const struct tl_ctx *c);
/* Merge adjacent steps (and their context) two by two: the step doubles. */
void tl_store_merge(struct tl_store *st);
/* Consumer: fold every step the producer handed over. Returns how many. */
int tl_store_drain(struct tl_store *st, struct tl_prod *p);
/* After the producer stopped for good: drain, then fold its open step. */
void tl_store_finish(struct tl_store *st, struct tl_prod *p);

#endif
