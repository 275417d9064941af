/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * timer_types.h - "rtlat timer" (Xenomai latency): a SCHED_FIFO sampling thread
 * wakes at start + k*period and records wake-up - expected. Per-second
 * results go to a non-RT display thread through a lock-free ring; the
 * sampling thread never formats or writes.
 *
 * The folder's model: the types and inline helpers every file of it
 * shares, no function of its own. Each .c declares what it offers the
 * others in its own header (timer_run.h, timer_output.h, ...); timer.c
 * and cyclic.c, the two faces' options and test_ops, sit on top.
 */
#ifndef RTLAT_TIMER_TYPES_H
#define RTLAT_TIMER_TYPES_H

#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <time.h>
#include "explain/explain.h"
#include "measure/histogram.h"
#include "measure/stats.h"
#include "harness/test.h"
#include "system/load.h"

struct json;

#define TIMER_WARMUP_S		1
#define TIMER_MAX_CPUS		CPU_LIST_MAX	/* -c LIST */
#define TIMER_RING_SLOTS	64	/* power of two */
/* The full-resolution series behind the JSON percentiles and --histfile:
 * 100 ns buckets up to 2 ms, beyond that overflow with the exact max. */
#define TIMER_FINE_NS		100
#define TIMER_FINE_BUCKETS	20000

/* 3: rtlat's own thread takes timerlat's wake-ups (timerlat_fd). */
enum timer_mode {
	MODE_USER = 0, MODE_KERNEL_TASK = 1, MODE_TIMER_IRQ = 2,
	MODE_TIMERLAT_USER = 3,
};
/* timerlat's sample contexts: its trace's "irq", "thread", "user-ret". */
enum { TL_CTX_IRQ, TL_CTX_THREAD, TL_CTX_URET, TL_CTXS };

enum timer_method {
	METHOD_ABS_NANOSLEEP, METHOD_REL_NANOSLEEP, METHOD_TIMERFD,
	METHOD_POSIX_TIMER,
};

struct timer_config {
	long long period_us;	/* -p */
	long long duration_s;	/* -T: 0 until stopped */
	long long cells;	/* -H */
	long long bucket_ns;	/* -B */
	long long lines;	/* -l */
	struct cpu_list cpus;	/* -c: one sampler each; none given: CPU 0 */
	long long prio;		/* -P */
	long long mode;		/* -t */
	long long device;	/* -D: Xenomai's testing device; 0 only */
	long long method;	/* --method */
	long long user_work_us;	/* --user-work: -t 3's spin per wake-up */
	bool hist;		/* -h */
	bool stats;		/* -s */
	bool quiet;		/* -q */
	bool freeze;		/* -f */
	bool break_switch;	/* -b */
	const char *gnuplot;	/* -g */
	const char *histfile;	/* --histfile */
	struct load_opts load;	/* --load, --load-cmd, ... (timer, not cyclictest) */
	struct test_common common;	/* --json, --strict, ... */
};

/* One second of samples, as the display thread receives it. */
struct timer_second {
	uint64_t index;		/* 1 = first second after warm-up */
	uint64_t n;
	int64_t min, max, sum;
	int64_t last;		/* the second's last sample */
	uint64_t overruns;	/* total so far */
	uint64_t msw;		/* total so far */
	bool partial;		/* cut short by the end of the run */
};

static inline void second_reset(struct timer_second *s, uint64_t index)
{
	s->index = index;
	s->n = 0;
	s->min = INT64_MAX;
	s->max = INT64_MIN;
	s->sum = 0;
	s->partial = false;
}

static inline void second_add(struct timer_second *s, int64_t lat)
{
	s->n++;
	s->sum += lat;
	s->last = lat;
	if (lat < s->min)
		s->min = lat;
	if (lat > s->max)
		s->max = lat;
}

/* Average of a second, truncated toward zero as the original. */
static inline int64_t second_avg(const struct timer_second *s)
{
	return s->n ? s->sum / (int64_t)s->n : 0;
}

/* Single producer (sampling thread), single consumer (display thread). */
struct timer_ring {
	uint64_t head;		/* written by the producer */
	uint64_t tail;		/* written by the consumer */
	uint64_t dropped;	/* producer: ring full */
	struct timer_second slot[TIMER_RING_SLOTS];
};

static inline bool ring_push(struct timer_ring *r, const struct timer_second *s)
{
	uint64_t head = r->head;

	if (head - __atomic_load_n(&r->tail, __ATOMIC_ACQUIRE) >= TIMER_RING_SLOTS) {
		r->dropped++;
		return false;
	}
	r->slot[head & (TIMER_RING_SLOTS - 1)] = *s;
	__atomic_store_n(&r->head, head + 1, __ATOMIC_RELEASE);
	return true;
}

static inline bool ring_pop(struct timer_ring *r, struct timer_second *s)
{
	uint64_t tail = r->tail;

	if (tail == __atomic_load_n(&r->head, __ATOMIC_ACQUIRE))
		return false;
	*s = r->slot[tail & (TIMER_RING_SLOTS - 1)];
	__atomic_store_n(&r->tail, tail + 1, __ATOMIC_RELEASE);
	return true;
}

/* What RTS, the JSON and the gnuplot header report: folded per second. */
struct timer_summary {
	/* What the RTD lines showed: complete seconds only (a second cut
	 * short by a stop signal never had its line, so RTS leaves it out). */
	uint64_t seconds;	/* complete seconds folded */
	uint64_t partial;	/* seconds cut short, counted apart */
	int64_t min, max;	/* best and worst */
	double avg_sum;		/* sum of per-second averages */
	uint64_t overruns;	/* as of the last complete second */
	uint64_t msw;
	uint64_t overruns_end;	/* as of the last record, partial or not */
	uint64_t msw_end;
	uint64_t samples;	/* every sample folded, their sum, the last */
	double lat_sum;
	int64_t last;
	struct stats sec_min, sec_avg, sec_max;	/* moments only */
	struct histogram hmin, hmax;	/* |min| and |max| of each second */
};


/* Xenomai histogram bucket: |lat| / bucket, capped by the histogram's own
 * overflow (printed in the last cell). */
static inline void hist_add_abs(struct histogram *h, int64_t lat)
{
	hist_add(h, lat < 0 ? -lat : lat);
}

/* A wait method: how the sampling thread sleeps until the next period. */
struct timer_wait {
	const struct timer_wait_ops *ops;
	int64_t period;
	int64_t expected;	/* the expiry the next wait() is for */
	int fd;
	timer_t timer;
	bool armed;
};

struct timer_wait_ops {
	const char *name;
	/* In the sampling thread: first expiry at first (absolute). */
	int (*open)(struct timer_wait *w, int64_t first);
	/*
	 * Block until w->expected. *ticks: expiries consumed (1 + missed),
	 * or 0 when the method cannot count them (lateness decides).
	 * Returns 0, -EINTR (woken to check the stop flag) or -errno.
	 */
	int (*wait)(struct timer_wait *w, uint64_t *ticks);
	void (*close)(struct timer_wait *w);
	/* The period's start may come later than its grid says (a
	 * SCHED_DEADLINE server restarted): a wake-up before the expected
	 * time starts the grid anew there, as rt-tests' cyclicdeadline. */
	bool reanchor;
};

#define TIMERLAT_BUF	4096

/*
 * -t 1, 2: the kernel's timerlat tracer as this run set it up (the
 * settings it found, restored at the end) and its reader's state.
 */
struct timerlat {
	bool active;
	char tracer[64];
	char on[8];		/* tracing_on */
	char cpus[256];
	char period[32];
	char clock[32];
	char error[320];	/* why it could not start, for the JSON */
	/* -t 3: the OSNOISE_WORKLOAD option cleared (to be set again). */
	bool no_workload;
};

/*
 * One CPU's reader of the tracer's samples (timer_kernel.c): its pipe
 * (trace_pipe, or per_cpu/cpuN/trace_pipe with -t 3 on several CPUs) and
 * state. Activation #N's expiry is on the timer's grid: origin + period
 * * (N - seq0 + the skips before it), which the trace's stamps only
 * anchor.
 */
struct tl_reader {
	int pipe_fd;
	int64_t origin;		/* the grid's start, on the trace's clock */
	int64_t last_exp;	/* the last sample's expiry on it */
	uint64_t seq0;		/* the activation at origin; 0: none yet */
	uint64_t skips;		/* activations skipped so far */
	uint64_t pending;	/* skips not yet reported with a sample */
	uint64_t last_seq;	/* the last activation of the mode measured */
	uint64_t lost;		/* activations whose sample the trace lost */
	/* The last thread line, until the next activation decides its skips. */
	bool thr_open;
	uint64_t thr_seq;
	int64_t thr_exp;	/* its expiry, on its stamp */
	uint64_t thr_min;	/* the skips its latency implies at least */
	size_t len;		/* an unfinished line in buf */
	char buf[TIMERLAT_BUF];
	/* -t 3 (timer_tlu.c): rtlat's thread on this CPU's timerlat_fd, and
	 * each context's samples as the reader parsed them. */
	pthread_t uthread;
	bool uthread_started;
	atomic_int uthread_done;	/* the thread writes, main reads */
	atomic_int uthread_error;	/* its errno; the thread writes, main reads */
	struct timer_second ctx[TL_CTXS];	/* n, min, max, sum (second_add) */
};

/* Where and how a sampler runs (timer: -c's CPUs at -p and -P; the
 * cyclictest face: its threads' -a, -i + n*-d, -p). */
struct timer_plan {
	int cpu;			/* -1: not pinned */
	int64_t period_ns;
	int prio;			/* 0: SCHED_OTHER */
	int policy;			/* SCHED_FIFO, SCHED_RR */
};

/* A latency over --spike: when and how much (the cyclictest face). */
struct timer_spike {
	int64_t lat, when;
};

/* The cyclictest face's -v: every sample of a sampler, from it (the
 * producer) to the display thread (the consumer), which prints them. */
#define TIMER_VRING_SLOTS	65536	/* power of two: 65 ms at 1 us */
struct timer_vring {
	uint64_t head;		/* written by the producer */
	uint64_t tail;		/* written by the consumer */
	uint64_t dropped;	/* producer: ring full */
	int64_t lat[TIMER_VRING_SLOTS];
};

static inline void vring_push(struct timer_vring *r, int64_t lat)
{
	uint64_t head = r->head;

	if (head - __atomic_load_n(&r->tail, __ATOMIC_ACQUIRE) >= TIMER_VRING_SLOTS) {
		r->dropped++;
		return;
	}
	r->lat[head & (TIMER_VRING_SLOTS - 1)] = lat;
	__atomic_store_n(&r->head, head + 1, __ATOMIC_RELEASE);
}

/* One CPU's sampler and what it measures (every CPU of -c has one). */
struct timer_cpu {
	struct timer_run *run;
	int cpu;			/* the CPU it is pinned to, or -1 */
	struct timer_plan plan;
	int tid;			/* the sampler's thread id */
	int last_cpu;			/* where it last ran (sched_getcpu) */
	struct timer_wait wait;
	pthread_t sampler;
	bool sampler_started;
	int64_t start_ns;		/* first expiry */
	/* Written by the sampling thread only. */
	struct stats all;		/* every sample after warm-up, ns */
	struct rec_series *rec;		/* --timeline, --largest; or NULL */
	struct histogram avg;		/* |lat| / bucket: Xenomai's "avg" */
	struct timer_ring ring;
	int64_t frozen_ns;		/* -f: latency of the trace kept */
	uint64_t snapshots;		/* -f: snapshots this sampler took */
	uint64_t overruns;
	/* Written by the sampling thread, read by main and the display. */
	atomic_int error;		/* errno of a failing wait method */
	atomic_int switched;		/* -b hit */
	atomic_int sampler_done;	/* the sampler writes, main reads */
	/* -c's CPU lost (timer only, face.watch_cpu): the sampler found it
	 * runs elsewhere or may (CPU offline: the kernel moved it and widened
	 * its affinity to moved_set) and stopped, moved_s seconds measured. */
	atomic_int moved;	/* the sampler writes, main reads */
	uint64_t moved_s;
	cpu_set_t moved_set;
	/* The cyclictest face: --spike's first spike_max spikes (allocated
	 * at setup), how many in all; -h's first overflow cycles. */
	struct timer_spike *spikes;
	uint64_t nspikes;
	uint64_t *over_cycle;
	uint64_t nover;
	struct timer_vring *vring;	/* -v (allocated at setup), or NULL */
	uint64_t cycles;		/* wake-ups measured */
	/* --explain: the spikes noted by the sampler; NULL when off. */
	struct explain_src *explain;
	/* -t 1|2|3: the tracer's samples of this CPU (its reader thread). */
	struct tl_reader tlr;
	/* Written by the display thread only. */
	struct timer_summary sum;
	struct layer layer;		/* always-on per-second counters */
};

/* What the cyclictest face changes in the timer's run (timer: zero). */
struct timer_face {
	bool no_warmup;			/* every wake-up counts, from the first */
	bool watch_cpu;			/* a pinned sampler moved off stops */
	uint64_t loops;			/* -l: each sampler stops after it */
	int64_t break_ns;		/* -b: stop the run above it */
	bool tracemark;			/* --tracemark: mark the trace then */
	int64_t spike_ns;		/* --spike: record the latencies above */
	uint32_t spike_max;		/* --spike-nodes */
	uint32_t over_max;		/* overflow cycles kept per sampler */
	int64_t over_ns;		/* -h's end: from it on, overflow */
	int64_t fine_width;		/* the series' bucket, ns (0: 100) */
	uint32_t fine_buckets;		/* and their count (0: 2 ms worth) */
	/* The display thread's hook: each poll, and once at the end. */
	void (*draw)(struct timer_run *run, bool final);
	/* The display thread's, for SIGUSR1/SIGUSR2 (RUN_STATUS_* bits). */
	void (*status)(struct timer_run *run, int bits);
	int status_fd;			/* cyclictest's /dev/shm file, or -1 */
	unsigned long status_dropped;	/* SIGUSR1 blocks stderr did not take */
	/* A test on the timer's samplers (rtlat deadline): its wait method
	 * (NULL: --method's), its name in the JSON's settings (NULL:
	 * "timer") and its keys in each CPU's object of the JSON (sampler
	 * i's; -1 the top level). c->run is the live run, also when c is a
	 * checkpoint's copy. */
	/* The cyclictest face: -A/--secaligned's common first expiry (0:
	 * each sampler 1 ms after it starts) and each thread's offset from
	 * it; -v's rings; -M's maximum last drawn (the display thread's). */
	int64_t align_ns, align_step_ns;
	bool verbose;
	int64_t shown_max;
	const struct timer_wait_ops *wait_ops;
	const char *test;
	void (*json)(struct json *j, const struct timer_cpu *c, int i);
	/* --smi: the SMI counts at the start (the results', system/msr.h);
	 * NULL: no SMI column. */
	const struct smi_snap *smi;
};

struct timer_run {
	const struct timer_config *cfg;	/* the run's (t->cfg) */
	const struct opt *opts;		/* the run's table: the settings */
	const char *prog;
	struct recorder *recorder;	/* the run's (t->rec): the layer's */
	struct timer_face face;
	int ncpu;
	struct timerlat tl;		/* -t 1, 2 (one CPU) */
	struct timer_plan plan[TIMER_MAX_CPUS];	/* one per sampler */
	struct timer_cpu *cpu;		/* ncpu of them, in -c's order */
	/* -b: the sampler that broke and its latency (set once). */
	int64_t freeze_max;		/* -f: the run's maximum so far */
	int broke;			/* index + 1; 0: none */
	int64_t broke_ns;
	/* Every CPU folded (report time); with one CPU, that CPU. */
	struct timer_cpu *whole;
	struct timer_cpu merged;
	/* --load: started by setup, stopped by report (or teardown, after a
	 * failed setup); what it did goes into the JSON. */
	struct load_run load;
	bool load_running;
	struct load_result load_done;
	pthread_t display;
	bool display_started;
	/* Set by the main thread (stop also by the stop handler through
	 * run_stop_flag and by a sampler at -b); read by the threads. */
	atomic_int stop;	/* main, the handler, a sampler write; all read */
	atomic_int display_stop;	/* main writes, the display reads */
	/* Written by the display thread only. */
	uint64_t printed;		/* RTD lines so far */
};

#endif
