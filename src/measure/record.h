/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * record.h - what a run records over its whole length, for every series
 * and thread: its time line (timeline.h, --timeline) and its K largest
 * samples (largest.h, --largest). One mechanism for every test.
 *
 * The test registers each series and thread at setup (record_series):
 * the producer's part (accumulator, hand-off ring, largest heap) is
 * preallocated in shared anonymous memory, so a series measured by a
 * forked child is recorded the same way. The measuring path calls
 * record_add() (inline, O(1), no lock, no allocation, no I/O).
 *
 * The recorder's own thread (started by record_start, non-real-time)
 * pops the closed steps every 100 ms into each series' store (private
 * memory, under rec->lock). record_stop() joins it and folds the open
 * steps once the measuring threads are done.
 *
 * Reading while the run goes on (a checkpoint): record_json() takes
 * rec->lock, so it sees the steps closed so far (never a half-folded
 * one; the open step appears at the next read), and copies each largest
 * heap with largest_snapshot() (retries while an insertion is under way).
 * It never touches the measuring threads' accumulators.
 */
#ifndef RTLAT_RECORD_H
#define RTLAT_RECORD_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdbool.h>
#include <stdint.h>
#include <time.h>
#include "util/json.h"
#include "measure/largest.h"
#include "measure/samples.h"
#include "measure/timeline.h"

/* The measuring side of one series and thread (shared memory). */
struct rec_series {
	bool tl_on;
	/* --on-threshold (harness/action.h): the largest sample over
	 * alarm_ns not yet taken (alarm_v 0: none) and its time, for the
	 * run's action thread (record_alarm_take). INT64_MAX: off. */
	int64_t alarm_ns;
	int64_t alarm_v, alarm_at;
	struct tl_prod tl;
	struct largest lg;	/* rows follow in the same mapping */
	struct smp_ring *smp;	/* --samples: in the same mapping; or NULL */
};

/* Rare (a sample over the threshold): noted for the action thread. The
 * time first, then the value that publishes it. */
static inline void record_alarm(struct rec_series *r, int64_t now, int64_t v)
{
	if (v <= __atomic_load_n(&r->alarm_v, __ATOMIC_RELAXED))
		return;
	__atomic_store_n(&r->alarm_at, now, __ATOMIC_RELAXED);
	__atomic_store_n(&r->alarm_v, v, __ATOMIC_RELEASE);
}

static inline void record_add(struct rec_series *r, int64_t now, int64_t v)
{
	if (!r)
		return;
	if (r->tl_on)
		timeline_add(&r->tl, now, v);
	if (v > r->alarm_ns)
		record_alarm(r, now, v);
	largest_add(&r->lg, v, now);
	if (r->smp)
		smp_push(r->smp, now, v);
}

/* The action thread: the sample noted since the last take (0: none),
 * its time in *at. */
static inline int64_t record_alarm_take(struct rec_series *r, int64_t *at)
{
	int64_t v = __atomic_exchange_n(&r->alarm_v, 0, __ATOMIC_ACQUIRE);

	*at = __atomic_load_n(&r->alarm_at, __ATOMIC_RELAXED);
	return v;
}

/* The recorder's side of one series (private memory). */
struct rec_entry {
	char test[24];
	char series[48];
	int thread;		/* -1: the whole series */
	int cpu;		/* -1: not pinned to one */
	int64_t threshold;	/* ns; INT64_MAX: none */
	struct rec_series *r;
	size_t bytes;		/* of the mapping r */
	struct tl_store store;
	const char *const *ctx_names;	/* its context columns, or NULL */
	uint32_t id;			/* its number in the --samples file */
	bool smp_declared;		/* its declaration block written */
	atomic_uint_fast64_t smp_written;	/* its samples written */
};

#define RECORD_MAX_SERIES 4096

struct recorder {
	int64_t step_ns;	/* --timeline: 0 off */
	uint32_t cap;		/* steps kept */
	uint32_t k;		/* --largest: 0 off */
	int64_t origin;		/* monotonic ns at record_start; 0 before */
	struct timespec origin_wall;	/* CLOCK_REALTIME then */
	pthread_mutex_t lock;	/* entries and stores */
	struct rec_entry *e[RECORD_MAX_SERIES];
	int n;
	pthread_t thread;
	bool running;
	pthread_mutex_t wake_lock;	/* stop, and the thread's wait */
	pthread_cond_t wake;
	int stop;			/* the thread ends */
	/* --samples (record_samples.c): the file every sample goes to,
	 * written by the recorder's thread; NULL: off. */
	FILE *smp_file;
	struct smp_row *smp_buf;	/* the writer's chunk */
	char smp_test[24];
	bool smp_begun;			/* the header written */
	bool smp_ended;			/* the end block written */
};

/* NULL when all are off (step_ns 0, k 0, no --samples) or no memory. */
struct recorder *record_new(int64_t step_ns, uint32_t cap, uint32_t k,
			    bool samples);
/* A series and thread to record; NULL when off or no memory (the run
 * then goes on unrecorded: record_add(NULL, ...) does nothing).
 * threshold_ns: INT64_MAX none. Call before a forked child starts. */
struct rec_series *record_series(struct recorder *rec, const char *test,
				 const char *series, int thread, int cpu,
				 int64_t threshold_ns);
/*
 * The series carries context columns (names: NULL-terminated, at most
 * TL_CTX_MAX, kept by the caller): counters read off the measuring path
 * (the timer's interrupts, softirqs, steal...) that record_context()
 * folds into its steps; the time line writes them beside the steps
 * ("context_columns", "context") and merges them with the steps. 0, or
 * -1 (off, or no memory: the series then has none).
 */
int record_context_columns(struct recorder *rec, const struct rec_series *r,
			   const char *const *names);
/* One reading of the counters' increase over c->seconds, taken at
 * monotonic ns now (within the span it covers), folded into the step
 * holding now. Not for the measuring path: it takes rec->lock. */
void record_context(struct recorder *rec, const struct rec_series *r,
		    int64_t now, const struct tl_ctx *c);
/* The measurement starts now (origin of t_s); starts the thread. */
int record_start(struct recorder *rec);
/* The measurement is over: join the thread, fold the open steps. */
void record_stop(struct recorder *rec);
/* "timeline" and "largest" keys (null when off or rec NULL). */
void record_json(struct recorder *rec, struct json *j);
void record_free(struct recorder *rec);

/*
 * --samples (record_samples.c): every sample of every series into f, in
 * the layout rtlat(1) documents (SAMPLES FILE): a header, a declaration
 * block for each series, blocks of (time, sample) rows as the recorder's
 * thread pops them from each series' ring every SMP_POLL_NS, and an end
 * block with the totals. Call after record_new(..., true), before any
 * series is registered; test names the run's test in the header. 0, or
 * -1 (no memory).
 */
int record_samples(struct recorder *rec, FILE *f, const char *test);
/* The recorder's thread and record_stop: write what the rings hold
 * (finish: and the end block). */
void record_samples_drain(struct recorder *rec, bool finish);
/* A series' "test", "series", "thread" and "cpu" keys. */
void record_json_head(struct json *j, const struct rec_entry *e);
/* The "samples" key: the file's totals per series (null when off). */
void record_samples_json(struct recorder *rec, struct json *j);
/* Bytes of the ring each series takes with --samples. */
size_t record_samples_bytes(const struct recorder *rec);

#endif
