/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * hwlat.h - rtlat hwlat's run: the kernel's hwlat tracer (hwlatdetect's
 * and rtla hwnoise's detector) set up, read and restored (hwlat_trace.c),
 * its events and the SMI counts around them.
 */
#ifndef RTLAT_HWLAT_H
#define RTLAT_HWLAT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "harness/test.h"
#include "util/opts.h"
#include "system/msr.h"

/* The events kept for the JSON and the report file; more are counted. */
#define HWLAT_KEEP	100000
/* A line of trace_pipe longer than this is not hwlat's: dropped. */
#define HWLAT_LINE	512

enum { HWLAT_MODE_NONE, HWLAT_MODE_RR, HWLAT_MODE_PER_CPU };

struct hwlat_config {
	long long duration_s, threshold_us, hardlimit_us, window_us, width_us;
	long long mode;
	struct cpu_list cpus;
	const char *report;
	bool debug, quiet, watch;
	struct test_common common;
};

/* One event of the tracer: a gap the detector saw with interrupts off. */
struct hwlat_event {
	uint64_t seq;			/* #N */
	int cpu;			/* [NNN]: where the detector ran */
	int64_t trace_ns;		/* the trace's stamp */
	long long inner_us, outer_us;	/* within a read pair, between pairs */
	long long wall_s, wall_ns;	/* ts: the event's wall-clock time */
	int count;			/* gaps over the threshold in the width; -1 */
	long long nmi_total_us;		/* time in NMIs; -1: not given */
	int nmi_count;			/* NMIs during the width */
};

/* What the tracer held before the run, restored after it. */
struct hwlat_saved {
	char tracer[64], on[8], thresh[32], window[32], width[32], mode[32];
	char cpumask[300];
	bool taken;			/* the lock and the settings are ours */
};

/* trace_pipe, read a line at a time (hwlat and osnoise alike). */
struct tpipe {
	int fd;				/* -1: closed */
	char line[HWLAT_LINE];
	size_t len;
};

/* Open dir's trace_pipe, non-blocking: 0 or -errno. */
int tpipe_open(struct tpipe *p);
void tpipe_close(struct tpipe *p);
/* Read what is there now; fn gets each complete line (its newline
 * cut). 1: lines came, 0: nothing now (wait), -1: a read error. */
int tpipe_read(struct tpipe *p, void (*fn)(const char *line, void *arg), void *arg);
/* The top-level tracer for this run alone: rtlat's lock taken and
 * current_tracer nop (or empty); its value in prev. 0, or -1 with one
 * line in err naming who (name: the tracer wanted, for the message). */
int tracer_take(const char *name, char *prev, size_t plen, char *err, size_t len);
/* hwlat's and osnoise's setup: the kernel's threads measure, so
 * rtlat's own real-time settings (mlock, cpu_dma_latency) stay off. */
int tracer_test_setup(struct test_run *t);
/* Wait about 100 ms (a stop signal ends it early). */
void tpipe_wait(void);

struct hwlat_run {
	struct hwlat_saved saved;
	struct hwlat_event *ev;		/* kept (at most HWLAT_KEEP) */
	size_t nev, cap;
	uint64_t events;		/* seen, kept or not */
	long long max_us;		/* the largest gap; 0: none */
	struct tpipe pipe;
	int64_t t_start, t_end;		/* CLOCK_MONOTONIC, ns */
	long long window_us, width_us;	/* as set */
	const char *skipped;		/* no hwlat tracer: why */
	char why[300];
	const char *error;
	struct smi_snap smi_end;	/* at the end (the start: the results') */
};

/* Parse a line of the hwlat tracer: 0, or -1 if it is not an event. */
int hwlat_parse(const char *line, struct hwlat_event *e);
/* Take the tracer (free, nothing else running) and set it as c asks:
 * 0, or -1 with one line in err. r->skipped where the kernel has none. */
int hwlat_start(struct hwlat_run *r, const struct hwlat_config *c,
		char *err, size_t len);
/* Read what trace_pipe has now, fn for each event: as tpipe_read. */
int hwlat_read(struct hwlat_run *r, void (*fn)(struct hwlat_run *r,
					       const struct hwlat_event *e, void *arg),
	       void *arg);
/* Restore what was there (once; safe if never started). */
void hwlat_stop(struct hwlat_run *r);
/* One period of one CPU in the osnoise tracer (osnoise.c). */
struct osn_sample {
	unsigned long long runtime, noise, max_single;	/* us */
	unsigned long long hw, nmi, irq, softirq, thread;
};

/* Parse a sample line of the osnoise tracer: 0, or -1 if it is none. */
int osnoise_parse(const char *line, int *cpu, struct osn_sample *s);
/* Write the two settings of a pair the kernel keeps small <= big (or
 * small < big where strict) in the order that does, big_now the big
 * one's value before: 0 or -errno. */
int tracefs_write_pair(const char *big_file, const char *big, const char *small_file,
		       const char *small, long long big_now, bool strict);

/* The exact (Garwood) two-sided interval of a Poisson mean, k seen. */
void poisson_interval(uint64_t k, double conf, double *lo, double *hi);

#endif
