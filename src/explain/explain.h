/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * explain.h - --explain: why a latency spike happened, from kernel
 * tracepoints in rtlat's own tracefs instance (instances/rtlat-<pid>,
 * trace_clock mono, events of the measuring CPU only). The measuring
 * thread only notes (expected, latency) in a lock-free queue; a non-RT
 * thread reads the instance's trace_pipe into a fixed ring of events and
 * attributes each noted spike (explain_attr.c, a pure function) to
 * interrupts, softirqs, other tasks, the wake-up itself and the
 * unexplained rest (hypervisor, SMI or hardware).
 *
 * The always-on layer (explain_layer.c) needs no tracefs: per-second
 * deltas of /proc/interrupts, /proc/softirqs, steal, /proc/pressure/cpu.
 *
 * This is the face the tests use: a measuring thread's source, the run's
 * struct explain (opaque), its life and outputs, and the layer. The
 * tracer's internals are in explain_internal.h and the headers of each
 * file, included only inside src/explain/.
 */
#ifndef RTLAT_EXPLAIN_H
#define RTLAT_EXPLAIN_H

#include <sched.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>
#include <unistd.h>

struct json;
struct explain;

#define EXPLAIN_QSLOTS 16

/*
 * One measuring thread (a timer sampler, a pair's receiver, a bintime
 * CPU, a request client). In shared memory: a forked worker notes into it.
 */
struct explain_src {
	/* Set before the start. */
	int cpu;		/* -1: not pinned, the CPU is read at the note */
	int64_t over_ns;	/* 0: a new maximum */
	char name[24];		/* "pair 0", "client 1", "CPU 3" */
	const char *remote;	/* an idle CPU before the wake-up means it */
	bool running;		/* the thread spins (bintime) */
	/* Written by the measuring thread only. */
	atomic_int tid;	/* the measuring thread writes, the explaining one reads */
	int64_t max_seen, last_note;
	uint64_t qhead, skipped;
	struct { int64_t exp, lat; int cpu; } q[EXPLAIN_QSLOTS];
	/* Written by the explaining thread only. */
	uint64_t qtail;
};

/* Minimum time between two noted spikes of a source: at most 5 a second. */
#define EXPLAIN_MIN_GAP_NS 200000000LL

/* Measuring thread, after the warm-up: O(1), no I/O, no lock. */
static inline void explain_note(struct explain_src *x, int64_t exp, int64_t lat)
{
	bool over = x->over_ns ? lat > x->over_ns : lat > x->max_seen;
	uint64_t h = x->qhead;

	if (lat > x->max_seen)
		x->max_seen = lat;
	if (!over || exp - x->last_note < EXPLAIN_MIN_GAP_NS)
		return;
	if (h - __atomic_load_n(&x->qtail, __ATOMIC_ACQUIRE) >= EXPLAIN_QSLOTS) {
		x->skipped++;
		return;
	}
	x->last_note = exp;
	x->q[h % EXPLAIN_QSLOTS].exp = exp;
	x->q[h % EXPLAIN_QSLOTS].lat = lat;
	/* Rare (a spike): an unpinned thread asks where it runs. */
	x->q[h % EXPLAIN_QSLOTS].cpu = x->cpu >= 0 ? x->cpu : sched_getcpu();
	__atomic_store_n(&x->qhead, h + 1, __ATOMIC_RELEASE);
}

/* The measuring thread, once before its loop. */
static inline void explain_attach(struct explain_src *x)
{
	if (x)
		x->tid = (int)gettid();
}

/* nsrc sources (at most 64, the first ones) in shared
 * memory, each cpu -1, trigger over_ns (0: a new maximum); the caller
 * describes each (explain_src_set). NULL: no memory. */
struct explain *explain_new(int nsrc, int64_t over_ns);
/* Describe source i (nothing past x's sources): its CPU (-1: not pinned), what an idle CPU before
 * its wake-up means ("the sender's side"; NULL: nothing in the kernel),
 * whether it spins, its name. */
void explain_src_set(struct explain *x, int i, int cpu, const char *remote,
		     bool running, const char *fmt, ...)
	__attribute__((format(printf, 6, 7)));
/* Create the instance for the sources' CPUs and start the explaining
 * thread (away from them). Returns 0, or -1 with one line in err. */
/* prog names the program in the one line said when tracefs is mounted. */
int explain_start(struct explain *x, const char *prog, char *err, size_t len);
/* --trace-out: each explained spike's window as text in dir (kept by
 * the caller), the files headed with prog. Before explain_start. */
void explain_set_trace_out(struct explain *x, const char *dir, const char *prog);
/* Attribute what is queued, stop, remove the instance. Idempotent. */
void explain_stop(struct explain *x);
void explain_free(struct explain *x);
/* How many sources x has (0: no x). */
int explain_count(const struct explain *x);
/* Source i of x, or NULL (no x, or i past its sources). */
struct explain_src *explain_source(struct explain *x, int i);
/* The time origin of the output: the measurement's start. */
void explain_set_start(struct explain *x, int64_t start_ns);
void explain_print(FILE *f, const struct explain *x);
void explain_json(struct json *j, const char *key, const struct explain *x);

struct tl_ctx;

/*
 * The always-on layer: system counters for one CPU, read once a second by
 * a non-RT thread, each second's increase handed to the caller as a time
 * line context row (measure/timeline.h: the time line keeps and merges them
 * with its steps; no store of the layer's own).
 */
#define LAYER_SOFTIRQS 10
/* irqs, the softirq vectors, steal, CPU pressure, involuntary switches */
#define LAYER_COLUMNS (LAYER_SOFTIRQS + 4)

/* The context columns' names, NULL-terminated (record_context_columns). */
extern const char *const layer_columns[LAYER_COLUMNS + 1];

struct layer_sec {
	uint64_t irqs, softirq[LAYER_SOFTIRQS];
	int64_t steal_ms;
	int64_t psi_some_us;	/* -1: no /proc/pressure/cpu */
};

struct layer {
	bool on;		/* layer_begin with a CPU */
	int cpu;
	struct layer_sec prev;	/* the counters at the last second */
	uint64_t prev_msw;
};

/* Off (zeroed) until begun; a cpu < 0 leaves it off. */
void layer_begin(struct layer *l, int cpu);
/* A second of the measurement ended (non-RT thread): msw, the measuring
 * thread's involuntary switches so far. Fills row (seconds 1, the
 * LAYER_COLUMNS increases since the last call); false when off. */
bool layer_second(struct layer *l, uint64_t msw, struct tl_ctx *row);

#endif
