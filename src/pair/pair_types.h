/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * pair_types.h - the pair-test harness, written once for pmq, sigwait, svsem and
 * ptsem. A test is only a transport: how a sender hands off to a receiver
 * (open/send/receive/close). Threads or processes, affinity, priorities,
 * pacing, statistics, output, JSON and cleanup are the harness's.
 *
 * One cycle: the sender takes t_send and sends on DIR_FWD; the receiver
 * wakes, takes t_recv, records t_recv - t_send, sleeps until its next
 * period, and sends on DIR_BACK; the sender, woken, starts the next cycle.
 *
 * The folder's model: the types and inline helpers every file of it
 * shares, no function of its own. Each .c declares what it offers the
 * others in its own header (pair_test.h for pair.c, pair_run.h, ...);
 * the transports (transport_*.c), each a test's options and test_ops,
 * sit on top.
 */
#ifndef RTLAT_PAIR_TYPES_H
#define RTLAT_PAIR_TYPES_H

#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include "measure/stats.h"
#include "harness/test.h"

struct explain_src;
struct json;
struct pair_run;

/*
 * Flags shared by the main process and every worker (shared memory;
 * lock-free atomics, address-free, so processes share them too).
 */
struct pair_shared {
	atomic_int stop;	/* set by the stop handler, main, a worker; read by all */
	atomic_int go;		/* set by main once all are up; read by workers */
	/* -b: the receiver that hit it stores the pair and the time, then
	 * break_hit (release); main reads them at the end. */
	atomic_int break_hit;	/* the receivers write, main reads */
	atomic_int break_pair;	/* the receiver that hit -b writes, main reads */
	_Atomic int64_t break_ns;	/* the receiver that hit -b writes, main reads */
};

enum pair_role { ROLE_SENDER = 0, ROLE_RECEIVER = 1 };
enum pair_dir { DIR_FWD = 0, DIR_BACK = 1 };

struct pair_worker {
	pid_t pid;		/* process of the worker */
	pid_t tid;		/* kernel thread id: "ID" in the output */
	pthread_t thread;
	int cpu;		/* requested CPU, -1: any */
	int prio;
	atomic_int cur_cpu;	/* the worker writes (last CPU seen), main reads */
	atomic_int started;	/* the worker writes, main reads */
	int created;		/* thread created (threads mode) */
	atomic_int finished;	/* the worker writes, main reads */
};

#define PAIR_MAX_SIZES 32

struct pair {
	int index;
	int64_t interval_ns;
	uint64_t loops;			/* 0: until stopped */
	struct pair_worker w[2];	/* ROLE_SENDER, ROLE_RECEIVER */
	_Atomic int64_t t_send;		/* the sender writes, the receiver reads */
	_Atomic uint64_t cycles;	/* the receiver writes, main reads (status) */
	/* transports with timeouts (pmq -T): the receiver writes, main reads */
	_Atomic uint64_t timeouts;
	atomic_int error;		/* errno of a fatal transport error: a worker writes, main reads */
	struct stats lat;		/* receiver's series, ns */
	struct rec_series *rec;		/* --timeline, --largest; or NULL */
	/* stream: first, last receive; the receiver writes, main reads */
	_Atomic int64_t t_first, t_last;
	void *priv;			/* transport state, shared memory */
	struct explain_src *xsrc;	/* --explain: the receiver's; or NULL */
	struct pair_run *run;
};

/*
 * Transport ops. Every function returns 0 or -errno. receive() may return
 * -EINTR (woken to check for stop: the harness retries or ends) or
 * -ETIMEDOUT (the harness counts a timeout and retries).
 */
struct transport_ops {
	size_t priv_size;		/* per pair, zeroed, in shared memory */
	bool has_timeouts;		/* print "TO n, " and "timeoutcount" */
	/* After option parsing: validate, fill run-wide settings; may
	 * replace run->ops by a variant (ptsem --type). */
	int (*setup)(struct pair_run *run);
	/* In the main process before any worker starts: create objects.
	 * On failure it releases what it got itself: close() is called
	 * only for pairs whose open() succeeded. */
	int (*open)(struct pair *p);
	/* In the worker, before the start barrier (signal masks...). */
	int (*attach)(struct pair *p, enum pair_role role);
	/* In the worker when its loop is over (any way), if attach() ran:
	 * release what the role holds so its partner can end too. */
	void (*detach)(struct pair *p, enum pair_role role);
	int (*send)(struct pair *p, enum pair_dir dir);
	int (*receive)(struct pair *p, enum pair_dir dir);
	/* In the main process after all workers ended. */
	void (*close)(struct pair *p);
	/* The sender's delay before t_send (pmq -f): 0 for none. */
	int64_t (*send_delay_ns)(const struct pair *p);
	/* Stream mode (pmq --throughput): the message size for the next
	 * run of the sweep (cfg.sizes). */
	void (*set_size)(struct pair_run *run, long long bytes);
};

struct pair_config {
	long long interval_us;		/* -i */
	long long distance_us;		/* -d */
	long long loops;		/* -l */
	long long duration_s;		/* -D */
	long long prio;			/* -p */
	long long affinity;		/* -a: -2 none, -1 pair i on CPU i, n */
	long long threads;		/* -t: -1 one per CPU */
	long long breaktrace_us;	/* -b: 0 off */
	bool smp;			/* -S */
	bool quiet;			/* -q */
	bool fork;			/* -f where the transport takes it */
	/* Under rt-tests' names: the first pair to finish its -l loops
	 * ends the run (as rt-tests); under rtlat's, each pair does its
	 * own (SPEC §1). */
	bool first_ends;
	/* Stream mode, set by the transport's setup: the sender sends
	 * without waiting, the receiver counts; one run per size. */
	bool stream;
	int nsizes;
	long long sizes[PAIR_MAX_SIZES];
	struct test_common common;	/* --json, --strict, ... */
};

/* Stream mode: one size's result, all pairs together. */
struct pair_rate {
	long long size;
	uint64_t msgs;
	double secs;
};

struct pair_run {
	const struct transport_ops *ops;
	const char *name;		/* the test's: "pmq" */
	const char *prog;
	struct pair_config *cfg;	/* the run's (t->cfg); the transport's check may set it */
	const struct opt *opts;		/* the run's table: the settings */
	void *tcfg;			/* the transport's own (t->extra) */
	int npairs;
	struct pair *pairs;
	struct pair_shared *shared;	/* stop flags, shared memory */
	int nopen;			/* pairs whose transport is open */
	int started_any;		/* workers were started */
	int live_lines;			/* the live block's height on a terminal */
	int failed;			/* exit status to return */
	int nrates;			/* stream: sizes run */
	struct pair_rate rates[PAIR_MAX_SIZES];
	char fail_msg[256];
};

/* Workers are forked processes (a pid to signal), not threads. */
static inline bool pair_is_fork(const struct pair *p)
{
	return p->run->cfg->fork;
}

/* The stop flag, set once (a signal handler, the main thread or a worker)
 * and polled by everyone: atomic, so that the threads mode has no data
 * race (ThreadSanitizer, make check-tsan). */
static inline bool pair_stopping(const struct pair_run *run)
{
	return atomic_load_explicit(&run->shared->stop, memory_order_relaxed);
}

static inline void pair_stop(struct pair_run *run)
{
	atomic_store_explicit(&run->shared->stop, 1, memory_order_relaxed);
}

/* A field with one writer (its worker) that others only read for its
 * value: relaxed, so the measuring path has no barrier and no locked
 * read-modify-write. */
static inline void pair_count(_Atomic uint64_t *n)
{
	atomic_store_explicit(n, atomic_load_explicit(n, memory_order_relaxed) + 1,
			      memory_order_relaxed);
}

static inline void pair_note_cpu(struct pair_worker *w)
{
	atomic_store_explicit(&w->cur_cpu, sched_getcpu(), memory_order_relaxed);
}

#endif
