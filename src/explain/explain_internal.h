/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * explain_internal.h - the tracer's internals, for src/explain/ only (and
 * its unit tests): the events, the causes, the spikes kept and the run's
 * state behind the struct explain the tests hold.
 */
#ifndef RTLAT_EXPLAIN_INTERNAL_H
#define RTLAT_EXPLAIN_INTERNAL_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include "explain/explain.h"

struct explain_reader;

/* One parsed trace event. */
enum xev_type {
	XEV_NONE, XEV_IRQ_ENTRY, XEV_IRQ_EXIT, XEV_SOFTIRQ_ENTRY, XEV_SOFTIRQ_EXIT,
	XEV_VEC_ENTRY, XEV_VEC_EXIT, XEV_SWITCH, XEV_WAKEUP,
	XEV_STACK,	/* the kernel's stack at the event before it */
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
	/* stack: num is its frames, pid its number in the CPU's ring of
	 * stacks (explain_trace.c), stack_at where its frames start in the
	 * page it was decoded from (xraw_page's output only). */
	int stack_at;
};

enum xcause_kind {
	XC_IRQ, XC_SOFTIRQ, XC_TASK, XC_WAKEUP, XC_LATE, XC_UNEXPLAINED,
	XC_SELF, XC_REMOTE, XC_THROTTLE,
	XC_SMI,		/* unexplained, while the CPU's SMI count went up */
	XC_OTHER,	/* the smaller causes folded into one */
	XC_NKINDS
};

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

#define EXPLAIN_TOP 5
#define EXPLAIN_CAUSES 32
#define EXPLAIN_LOG 100
#define EXPLAIN_MAX_SRC 64
#define EXPLAIN_MAX_CPU 1024

/* The kernel stack behind a spike: return addresses, innermost first,
 * their functions' names (explain_stack.c), and whose it is. */
#define XSTACK_FRAMES 16
#define XSYM_NAME 64

struct xstack {
	int n;
	uint64_t pc[XSTACK_FRAMES];
	char fn[XSTACK_FRAMES][XSYM_NAME];
	char of[XCAUSE_LABEL];
};

struct xspike {
	int64_t exp, lat;
	int64_t steal_ms;	/* the VM's steal on the CPU that second */
	int src, cpu;
	struct xattr a;
	struct xstack st;	/* st.n 0: none */
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
	/* Why spikes get no kernel stack ("": they do), said once. */
	char stack_why[160];
	bool task_softirqs;	/* see struct xwin */
	pthread_t thread;
	bool started;
	atomic_int stop;	/* main writes, the explaining thread reads */
	int64_t stop_ns;
	char dir[160];
	/* --trace-out (explain_save.c): the directory (NULL: off), the
	 * program's name for the files, windows saved, a write failed. */
	const char *trace_out;
	const char *prog;
	uint64_t saved;
	bool save_failed;
};

/* Fold one spike's causes into the run-wide table (explain.c). */
void explain_add(struct explain *x, const struct xspike *s);

/* The VM's steal time on cpu since boot, ms (/proc/stat; explain_layer.c). */
int64_t layer_steal_ms(int cpu);

#endif
