/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * rtsetup.h - real-time setup: mlockall, SCHED_FIFO, CPU affinity and
 * /dev/cpu_dma_latency, with a record of what could not be applied.
 *
 * The record lives in shared memory so forked workers add to it too.
 * Each distinct failure is printed once on stderr as one line.
 */
#ifndef RTLAT_RTSETUP_H
#define RTLAT_RTSETUP_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

struct json;

/*
 * The option-table entries (opts.h) every subcommand offers for these
 * settings: --strict, --no-mlock, --no-dma-latency, stored in the bools
 * strict, no_mlock and no_dma (pointers).
 */
#define RT_OPT_ENTRIES(strict, no_mlock, no_dma)				\
	{ .long_name = "strict", .type = OPT_FLAG, .arg = OPT_ARG_NONE, .dest = strict, \
	  .help = "fail if a real-time setting cannot be applied" },	\
	{ .long_name = "no-mlock", .type = OPT_FLAG, .arg = OPT_ARG_NONE, \
	  .dest = no_mlock, .help = "do not lock memory" },		\
	{ .long_name = "no-dma-latency", .type = OPT_FLAG, .arg = OPT_ARG_NONE, \
	  .dest = no_dma, .help = "do not hold /dev/cpu_dma_latency at 0" }

struct rt_options {
	bool no_mlock;
	bool no_dma_latency;
	bool strict;		/* a setting the user asked for that fails is an error */
};

/* Lock memory, hold cpu_dma_latency at 0. Returns 0, or -1 if strict and
 * something failed (message printed). Call once, before workers start. */
int rt_init(const char *prog, const struct rt_options *o);
/* In a forked worker: memory locks are not inherited across fork(),
 * so lock again if the parent did. */
void rt_child_init(void);
/* Before forking a process that forks the workers later (request's
 * spawner): the record rt_init fills (mlockall, --strict, the warnings)
 * is made now, shared, so those workers see it. 0 or -ENOMEM. */
int rt_record_share(void);
/* A thread attribute with a small stack: with mlockall every stack is
 * resident, and the 8 MiB default times 2048 threads would not fit. */
int rt_thread_attr(pthread_attr_t *attr);
/* pthread_create with every signal blocked in the new thread (a thread
 * that must never take a stop or status signal meant for another). */
int rt_thread_create_quiet(pthread_t *t, const pthread_attr_t *attr,
			   void *(*fn)(void *), void *arg);
/* Whether /dev/cpu_dma_latency is held at 0 (rt_init got it). */
bool rt_dma_held(void);
/* The held /dev/cpu_dma_latency request set to us (cyclictest's
 * --latency): 0 or -errno (-EBADF: none held). */
int rt_dma_set(int32_t us);
/* Release /dev/cpu_dma_latency. */
void rt_fini(void);
/*
 * Apply SCHED_FIFO prio (prio <= 0: SCHED_OTHER, untouched) and affinity
 * (cpu < 0: untouched) to the calling thread. Failures are recorded;
 * returns -1 only when strict.
 */
int rt_thread_setup(int prio, int cpu);
/*
 * Try prio and cpu on the calling thread and restore it, so failures are
 * reported before anything starts (and fail early with --strict).
 */
int rt_probe(int prio, int cpu);
/* Same for an explicit policy (SCHED_FIFO, SCHED_RR). */
int rt_thread_setup_policy(int policy, int prio, int cpu);
/* Record and print (once) a setting that could not be applied. */
void rt_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
bool rt_all_applied(void);
/* Write "rt": { "rt": bool, "mlockall", "dma_latency", "reasons": [...] } */
void rt_json(struct json *j, const char *key);
/*
 * After EAGAIN from timer_create() or from queueing a real-time signal:
 * the user's queued-signal count against RLIMIT_SIGPENDING, and how to
 * raise it, as text for the one error line.
 */
void rt_sigpending_hint(char *buf, size_t len);

#endif
