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
#include <sched.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>
#include <unistd.h>

struct json;
struct explain_reader;

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
	int prev_pid;		/* switch: the task switched from */
	bool preempted;		/* switch: it was still runnable */
	char name[XEV_NAME];	/* handler, softirq action, vector, next comm */
};

/* Parse one line of trace text: 0, or -1 if it is no event we use
 * (canned trace text for the tests; the run reads the binary buffers). */
int xev_parse(const char *line, struct xev *ev);

/* The binary buffers (explain_raw.c): where an event's fields are. */
struct xraw_field {
	int off, size;		/* size 0: the event has no such field */
};

struct xraw_event {
	int id;			/* common_type */
	int type;		/* XEV_* */
	char vector[XEV_NAME];	/* irq_vectors: "local_timer" */
	struct xraw_field pid, prio, comm, prev_pid, prev_state, num, name;
};

#define XRAW_EVENTS 16

struct xraw {
	int ts_off, commit_off, commit_size, data_off;	/* header_page */
	int n;
	struct xraw_event ev[XRAW_EVENTS];
};

/* events/header_page's text: 0, or -1 if a field is missing. */
int xraw_header(struct xraw *r, const char *text);
/* An event's format file: its id and fields; vector names an irq vector
 * event. 0, or -1 without an id. */
int xraw_format(struct xraw_event *e, int type, const char *vector, const char *text);
/* The events we know on one page read from cpu's trace_pipe_raw, at most
 * max; a page that follows lost events counts in *lost. */
int xraw_page(const struct xraw *r, const uint8_t *pg, size_t len, int cpu,
	      struct xev *out, int max, uint64_t *lost);

enum xcause_kind {
	XC_IRQ, XC_SOFTIRQ, XC_TASK, XC_WAKEUP, XC_LATE, XC_UNEXPLAINED,
	XC_SELF, XC_REMOTE, XC_THROTTLE,
	XC_OTHER,	/* the smaller causes folded into one */
	XC_NKINDS
};
extern const char *const xcause_kind_names[];

#define XCAUSE_LABEL 128
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
 * remote: what an idle CPU before the sampler's wake-up means, e.g. "the
 * sender's side (another CPU)"; NULL: nothing in the kernel explains it
 * (a timer's expiry that came late: hypervisor, SMI or hardware).
 */
struct xwin {
	int cpu, sampler;
	int64_t exp, act;
	const char *remote;
	bool running;		/* the sampler runs at exp (bintime) */
	bool task_softirqs;	/* PREEMPT_RT: softirqs run in tasks, preemptible */
};
void xattr_window(const struct xev *ev, int n, const struct xwin *w,
		  struct xattr *out);

/* Largest first. */
void xcause_sort(struct xcause *c, int n);

#define EXPLAIN_QSLOTS 16
#define EXPLAIN_TOP 5
#define EXPLAIN_CAUSES 32
#define EXPLAIN_LOG 100
#define EXPLAIN_MAX_SRC 64
#define EXPLAIN_MAX_CPU 1024

struct xspike {
	int64_t exp, lat;
	int64_t steal_ms;	/* the VM's steal on the CPU that second */
	int src, cpu;
	struct xattr a;
};

/*
 * One measuring thread (a timer sampler, a pair's receiver, a bintime
 * CPU, a request client). In shared memory: a forked worker notes into it.
 */
struct explain_src {
	/* Set before the start. */
	int cpu;		/* -1: not pinned, the CPU is read at the note */
	int64_t over_ns;	/* 0: a new maximum */
	char name[24];		/* "pair 0", "client 1", "CPU 3" */
	const char *remote;	/* see struct xwin */
	bool running;		/* see struct xwin */
	/* Written by the measuring thread only. */
	volatile int tid;
	int64_t max_seen, last_note;
	uint64_t qhead, skipped;
	struct { int64_t exp, lat; int cpu; } q[EXPLAIN_QSLOTS];
	/* Written by the explaining thread only. */
	uint64_t qtail;
};

struct explain {
	int nsrc;
	struct explain_src *src;	/* shared memory, nsrc of them */
	int64_t over_ns;	/* 0: a new maximum */
	int64_t start_ns;	/* time origin for the output */
	char cpus[64];		/* the traced CPUs, as a list */
	/* Written by the explaining thread only. */
	uint64_t events, explained, skipped;
	uint64_t lost_pages;	/* buffer pages after lost events */
	struct xspike top[EXPLAIN_TOP];
	int ntop;
	struct xcause total[EXPLAIN_CAUSES];
	int ntotal;
	int64_t total_ns;
	int64_t other_ns;	/* causes beyond the table */
	struct xlog {		/* the first EXPLAIN_LOG spikes, their main cause */
		int64_t exp, lat;
		int src, cpu;
		struct xcause top;
	} log[EXPLAIN_LOG];
	int nlog;
	/* Private to explain.c. */
	struct explain_reader *rd;	/* explain_start to explain_stop */
	bool task_softirqs;	/* see struct xwin */
	pthread_t thread;
	bool started;
	volatile int stop;
	int64_t stop_ns;
	char dir[160];
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

/* nsrc sources (at most EXPLAIN_MAX_SRC, the first ones) in shared
 * memory, each cpu -1, trigger over_ns (0: a new maximum); the caller
 * describes each (explain_src_set). NULL: no memory. */
struct explain *explain_new(int nsrc, int64_t over_ns);
/* Describe source i: its CPU (-1: not pinned), what an idle CPU before
 * its wake-up means (see struct xwin), whether it spins, its name. */
void explain_src_set(struct explain *x, int i, int cpu, const char *remote,
		     bool running, const char *fmt, ...)
	__attribute__((format(printf, 6, 7)));
/* Create the instance for the sources' CPUs and start the explaining
 * thread (away from them). Returns 0, or -1 with one line in err. */
/* prog names the program in the one line said when tracefs is mounted. */
int explain_start(struct explain *x, const char *prog, char *err, size_t len);
/* Attribute what is queued, stop, remove the instance. Idempotent. */
void explain_stop(struct explain *x);
void explain_free(struct explain *x);
void explain_print(FILE *f, const struct explain *x);
void explain_json(struct json *j, const char *key, const struct explain *x);
/* Fold one spike's causes into the run-wide table (explain.c). */
void explain_add(struct explain *x, const struct xspike *s);

/* One run's buffers, read into rings of events (explain_trace.c). */
struct xtrace;

/* NULL: no memory. */
struct xtrace *xtrace_new(void);
/* The events enabled in the instance dir, their layouts learnt (what:
 * the file that failed); then the traced CPUs' buffers opened. The
 * explaining thread reads them. */
int xtrace_enable(struct xtrace *t, const char *dir, const char **what);
int xtrace_open(struct xtrace *t, const char *dir, const bool *on, int ncpu,
		char *err, size_t len);
/* Read every traced CPU's buffer until empty: the events read. */
uint64_t xtrace_read(struct xtrace *t);
/* cpu's events in [from, to] (the latest max of them) into win. */
int xtrace_window(const struct xtrace *t, int cpu, int64_t from, int64_t to,
		  struct xev *win, int max);
/* Was everything cpu recorded up to at read? */
bool xtrace_settled(const struct xtrace *t, int cpu, int64_t at);
uint64_t xtrace_lost(const struct xtrace *t);
/* Close the buffers, free t (NULL: nothing). */
void xtrace_free(struct xtrace *t);

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
