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
 */
#ifndef RTLAT_EXPLAIN_H
#define RTLAT_EXPLAIN_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

struct json;

/* One parsed trace event. */
enum xev_type {
	XEV_NONE, XEV_IRQ_ENTRY, XEV_IRQ_EXIT, XEV_SOFTIRQ_ENTRY, XEV_SOFTIRQ_EXIT,
	XEV_VEC_ENTRY, XEV_VEC_EXIT, XEV_SWITCH, XEV_WAKEUP,
};

#define XEV_NAME 24

struct xev {
	int64_t ts;		/* ns, trace_clock mono (= CLOCK_MONOTONIC) */
	int type;
	int cpu;
	int num;		/* irq number, softirq vector */
	int pid;		/* switch: next pid; wakeup: the woken pid */
	int prio;		/* switch: next prio (kernel's 0..139) */
	char name[XEV_NAME];	/* handler, softirq action, vector, next comm */
};

/* Parse one line of trace text: 0, or -1 if it is no event we use. */
int xev_parse(const char *line, struct xev *ev);

enum xcause_kind {
	XC_IRQ, XC_SOFTIRQ, XC_TASK, XC_WAKEUP, XC_LATE, XC_UNEXPLAINED, XC_NKINDS
};
extern const char *const xcause_kind_names[];

#define XCAUSE_LABEL 96
#define XCAUSE_MAX 8

struct xcause {
	int kind;
	char label[XCAUSE_LABEL];
	int64_t ns;
};

struct xattr {
	int n;			/* causes, largest first */
	struct xcause c[XCAUSE_MAX];	/* the last one takes any overflow */
	int events;		/* events inside the window */
};

/*
 * Attribute the window [exp, act] of CPU cpu to its causes, from the
 * events ev[0..n) sorted by time (those before exp set the state: who
 * runs, which interrupt is in progress). The causes sum to act - exp.
 */
void xattr_window(const struct xev *ev, int n, int cpu, int sampler,
		  int64_t exp, int64_t act, struct xattr *out);

/* Largest first. */
void xcause_sort(struct xcause *c, int n);

#define EXPLAIN_QSLOTS 16
#define EXPLAIN_TOP 5
#define EXPLAIN_CAUSES 32
#define EXPLAIN_LOG 100

struct xspike {
	int64_t exp, lat;
	int64_t steal_ms;	/* the VM's steal on the CPU that second */
	struct xattr a;
};

struct explain {
	/* Set before the run. */
	int cpu;
	int64_t over_ns;	/* 0: a new maximum */
	int64_t start_ns;	/* time origin for the output */
	/* Written by the measuring thread only. */
	volatile int sampler;	/* its tid */
	int64_t max_seen, last_note;
	uint64_t qhead, skipped;
	struct { int64_t exp, lat; } q[EXPLAIN_QSLOTS];
	/* Written by the explaining thread only. */
	uint64_t qtail;
	uint64_t events, explained;
	struct xspike top[EXPLAIN_TOP];
	int ntop;
	struct xcause total[EXPLAIN_CAUSES];
	int ntotal;
	int64_t total_ns;
	int64_t other_ns;	/* causes beyond the table */
	struct xlog {		/* the first EXPLAIN_LOG spikes, their main cause */
		int64_t exp, lat;
		struct xcause top;
	} log[EXPLAIN_LOG];
	int nlog;
	/* Private to explain.c. */
	pthread_t thread;
	bool started;
	volatile int stop;
	int64_t stop_ns;
	int fd;
	char dir[160];
};

/* Minimum time between two noted spikes: at most 5 a second. */
#define EXPLAIN_MIN_GAP_NS 200000000LL

/* Measuring thread, after the warm-up: O(1), no I/O, no lock. */
static inline void explain_note(struct explain *x, int64_t exp, int64_t lat)
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
	__atomic_store_n(&x->qhead, h + 1, __ATOMIC_RELEASE);
}

/* Create the instance and start the explaining thread (not on cpu).
 * Returns 0, or -1 with one line in err. */
int explain_start(struct explain *x, int cpu, int64_t over_ns, char *err, size_t len);
/* Attribute what is queued, stop, remove the instance. Idempotent. */
void explain_stop(struct explain *x);
void explain_print(FILE *f, const struct explain *x);
void explain_json(struct json *j, const char *key, const struct explain *x);
/* Fold one spike's causes into the run-wide table (explain.c). */
void explain_add(struct explain *x, const struct xspike *s);

/* The always-on layer: per-second system counters for one CPU. */
#define LAYER_MAX_SECONDS 3600
#define LAYER_SOFTIRQS 10

struct layer_sec {
	uint64_t index;
	int64_t min_ns, avg_ns, max_ns;	/* the second's latencies */
	uint64_t irqs, softirq[LAYER_SOFTIRQS];
	int64_t steal_ms;
	int64_t psi_some_us;	/* -1: no /proc/pressure/cpu */
	uint64_t nivcsw;
};

struct layer {
	int cpu;
	struct layer_sec prev;	/* the counters at the last second */
	uint64_t prev_msw;
	uint64_t n, dropped;	/* kept, not kept (after LAYER_MAX_SECONDS) */
	struct layer_sec *sec;
};

int layer_begin(struct layer *l, int cpu);
/* A second ended (non-RT thread): its maximum and the thread's
 * involuntary switches so far. */
/* One second of the measurement: its min/avg/max beside the counters. */
void layer_second(struct layer *l, uint64_t index, const int64_t lat[3],
		  uint64_t msw);
void layer_json(struct json *j, const char *key, const struct layer *l);
void layer_free(struct layer *l);
/* The VM's steal time on cpu since boot, ms (/proc/stat). */
int64_t layer_steal_ms(int cpu);

#endif
