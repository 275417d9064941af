// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * explain.c - --explain's tracefs instance and its explaining thread:
 * the traced CPUs' buffers read into rings of events (explain_trace.c),
 * each noted spike cut out of its CPU's ring and attributed
 * (explain_attr.c), the worst kept, all folded into the run-wide table.
 */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include "system/cleanup.h"
#include "measure/clock.h"
#include "explain/explain_internal.h"
#include "explain/explain_attr.h"
#include "explain/explain_trace.h"
#include "explain/explain_save.h"
#include "explain/explain_stack.h"
#include "util/opts.h"
#include "system/msr.h"
#include "system/sysinfo.h"
#include "system/tracefs.h"

#define WINDOW_EVENTS	8192
/* Events this long before the expected wake-up give the state in force. */
#define LOOKBACK_NS	(20 * NSEC_PER_MSEC)
/* A spike is attributed once its CPU's buffer was read past it, or
 * after this. */
#define SETTLE_NS	(5 * NSEC_PER_SEC)
/* At the end, the backlog still in the kernel's buffer is read for
 * at most this long. */
#define DRAIN_NS	(2 * NSEC_PER_SEC)
#define POLL_NS		(5 * NSEC_PER_MSEC)
#define KALLSYMS	"/proc/kallsyms"

/*
 * The explaining thread's state, one per run (explain_start to
 * explain_stop). Only the process that runs that thread has it: a forked
 * worker notes into x->src, never here.
 */
struct explain_reader {
	struct xtrace *trace;
	/* The traced CPUs; the VM's steal on each over the last second (ms). */
	bool on[EXPLAIN_MAX_CPU];
	int64_t steal_prev[EXPLAIN_MAX_CPU], steal_last[EXPLAIN_MAX_CPU];
	/* Each traced CPU's SMI count at the last look (the start, then each
	 * unexplained spike's); smi_on: it could be read at the start. */
	uint64_t smi_last[EXPLAIN_MAX_CPU];
	bool smi_on;
	struct xev win[WINDOW_EVENTS];	/* one spike's events */
	struct xsyms syms;		/* the kernel's functions named so far */
};

/* tracing_cpumask's format: 32-bit hex words, most significant first,
 * separated by commas. */
static void mask_text(const bool *on, int n, char *buf, size_t len)
{
	int w, b, words = (n + 31) / 32;
	size_t at = 0;

	buf[0] = '\0';
	for (w = words - 1; w >= 0 && at < len; w--) {
		uint32_t v = 0;

		for (b = 0; b < 32 && w * 32 + b < n; b++)
			if (on[w * 32 + b])
				v |= 1U << b;
		at += (size_t)snprintf(buf + at, len - at, "%s%x", w == words - 1 ? "" : ",", v);
	}
}

/* Clock, CPU mask, buffer, events; returns 0 or -errno (and what). */
static int configure(struct xtrace *t, const char *dir, const char *mask,
		     const char **what)
{
	int err;

	*what = "trace_clock mono";
	if ((err = tracefs_write(dir, "trace_clock", "mono")))
		return err;
	*what = "tracing_cpumask";
	if ((err = tracefs_write(dir, "tracing_cpumask", mask)))
		return err;
	tracefs_write(dir, "buffer_size_kb", "4096");
	if ((err = xtrace_enable(t, dir, what)))
		return err;
	*what = "tracing_on";
	return tracefs_write(dir, "tracing_on", "1");
}

/* One past the highest online CPU number. */
static int online_span(void)
{
	int cpus[CPU_LIST_MAX], k = cpus_online_list(cpus, CPU_LIST_MAX);

	return k ? cpus[k - 1] + 1 : cpus_online();
}

/* Mark every online CPU below n (numbers can have holes). The sources
 * are pinned by now, and maybe this thread too: not its affinity. */
static void mark_online(bool *on, int n)
{
	int cpus[CPU_LIST_MAX], k = cpus_online_list(cpus, CPU_LIST_MAX), i;

	for (i = 0; i < k; i++)
		if (cpus[i] < n)
			on[cpus[i]] = true;
}

/* Which CPUs the sources run on (all when one is not pinned), as a mask
 * and as a list for the output; and keep the explaining thread off them. */
static int traced_cpus(struct explain *x, bool *on, int n)
{
	int i, k, all = 0;
	size_t at = 0;

	for (i = 0; i < x->nsrc; i++) {
		if (x->src[i].cpu < 0 || x->src[i].cpu >= n)
			all = 1;
		else
			on[x->src[i].cpu] = true;
	}
	if (all)
		mark_online(on, n);
	x->cpus[0] = '\0';
	for (i = 0, k = 0; i < n; i++)
		if (on[i] && at < sizeof(x->cpus))
			at += (size_t)snprintf(x->cpus + at, sizeof(x->cpus) - at,
					       "%s%d", k++ ? "," : "", i);
	return all;
}

static int make_instance(struct explain *x, const char *prog, char *err, size_t len)
{
	struct explain_reader *rd = x->rd;
	const char *top = tracefs_need(prog, err, len), *what = "instances/";
	/* CPU numbers can have holes: the mask spans up to the last. */
	int e, n = online_span();
	char mask[EXPLAIN_MAX_CPU / 4 + EXPLAIN_MAX_CPU / 32 + 1];

	if (!top)
		return -1;
	if (n > EXPLAIN_MAX_CPU)
		n = EXPLAIN_MAX_CPU;
	traced_cpus(x, rd->on, n);
	mask_text(rd->on, n, mask, sizeof(mask));
	snprintf(x->dir, sizeof(x->dir), "%s/instances/rtlat-%d", top, (int)getpid());
	if (mkdir(x->dir, 0700)) {
		snprintf(err, len, "cannot create %s: %s", x->dir, strerror(errno));
		x->dir[0] = '\0';
		return -1;
	}
	cleanup_add_tracefs_instance(x->dir);
	e = configure(rd->trace, x->dir, mask, &what);
	if (e) {
		snprintf(err, len, "cannot set %s in %s: %s", what, x->dir, strerror(-e));
		return -1;
	}
	if (xtrace_stacks(rd->trace, x->dir, x->stack_why, sizeof(x->stack_why)))
		fprintf(stderr, "%s: --explain: %s; the spikes are explained without them\n",
			prog, x->stack_why);
	return xtrace_open(rd->trace, x->dir, rd->on, n, err, len);
}

static void remove_instance(struct explain *x)
{
	if (!x->dir[0])
		return;
	tracefs_write(x->dir, "tracing_on", "0");
	if (rmdir(x->dir) == 0)
		cleanup_del_tracefs_instance(x->dir);
	x->dir[0] = '\0';
}

static void keep_top(struct explain *x, const struct xspike *s)
{
	int i, low = 0;

	if (x->ntop < EXPLAIN_TOP) {
		x->top[x->ntop++] = *s;
		return;
	}
	for (i = 1; i < EXPLAIN_TOP; i++)
		if (x->top[i].lat < x->top[low].lat)
			low = i;
	if (s->lat > x->top[low].lat)
		x->top[low] = *s;
}

void explain_add(struct explain *x, const struct xspike *s)
{
	int i, k;

	for (k = 0; k < s->a.n; k++) {
		const struct xcause *c = &s->a.c[k];

		for (i = 0; i < x->ntotal; i++)
			if (!strcmp(x->total[i].label, c->label))
				break;
		if (i == x->ntotal && i == EXPLAIN_CAUSES) {
			x->other_ns += c->ns;	/* printed as "other" */
			x->total_ns += c->ns;
			continue;
		} else if (i == x->ntotal) {
			x->total[x->ntotal++] = *c;
			x->total[i].ns = 0;
		}
		x->total[i].ns += c->ns;
		x->total_ns += c->ns;
	}
	x->explained++;
}

static void steal_tick(struct explain_reader *rd, bool first)
{
	int c;

	for (c = 0; c < EXPLAIN_MAX_CPU; c++) {
		int64_t s;

		if (!rd->on[c])
			continue;
		s = layer_steal_ms(c);
		rd->steal_last[c] = first ? 0 : s - rd->steal_prev[c];
		rd->steal_prev[c] = s;
	}
}

/* The traced CPUs' SMI counts, where MSR_SMI_COUNT can be read (an
 * interrupt on each: once at the start, then only for a spike). */
static void smi_start(struct explain_reader *rd)
{
	int c;

	rd->smi_on = true;
	for (c = 0; c < EXPLAIN_MAX_CPU && rd->smi_on; c++)
		if (rd->on[c] && smi_read(c, &rd->smi_last[c]))
			rd->smi_on = false;
}

/* A spike left unexplained by the kernel's events, on a CPU whose SMI
 * count went up since the last look: the firmware took it. */
static void smi_spike(struct explain_reader *rd, int cpu, struct xattr *a)
{
	uint64_t now;
	int i;

	if (!rd->smi_on || cpu < 0 || cpu >= EXPLAIN_MAX_CPU || !rd->on[cpu])
		return;
	for (i = 0; i < a->n && a->c[i].kind != XC_UNEXPLAINED; i++)
		;
	if (i == a->n || smi_read(cpu, &now))
		return;
	xattr_smi(a, rd->smi_last[cpu], now);
	rd->smi_last[cpu] = now;
}

static void attribute(struct explain *x, int src, int64_t exp, int64_t lat, int cpu)
{
	struct explain_reader *rd = x->rd;
	const struct explain_src *e = &x->src[src];
	struct xspike s = { .exp = exp, .lat = lat, .src = src, .cpu = cpu };
	struct xwin w = { cpu, e->tid, exp, exp + lat, e->remote, e->running,
			  x->task_softirqs };
	int k, n = xtrace_window(rd->trace, cpu, exp - LOOKBACK_NS, exp + lat, rd->win,
				 WINDOW_EVENTS);

	if (cpu >= 0 && cpu < EXPLAIN_MAX_CPU)
		s.steal_ms = rd->steal_last[cpu];
	xattr_window(rd->win, n, &w, &s.a);
	smi_spike(rd, cpu, &s.a);
	k = xstack_pick(rd->win, n, &w, &s.a, s.st.of, sizeof(s.st.of));
	if (k >= 0 && (s.st.n = xtrace_stack(rd->trace, cpu, &rd->win[k], s.st.pc)))
		xsym_names(&rd->syms, KALLSYMS, &s.st);
	if (x->trace_out)
		explain_save(x, &s, exp - LOOKBACK_NS, rd->win, n, rd->trace, &rd->syms);
	keep_top(x, &s);
	if (x->nlog < EXPLAIN_LOG && s.a.n) {
		struct xlog *l = &x->log[x->nlog++];

		l->exp = exp;
		l->lat = lat;
		l->src = src;
		l->cpu = cpu;
		l->top = s.a.c[0];
	}
	explain_add(x, &s);
}

/* Attribute what a source queued and what settled (everything when
 * final): a spike waits until events past it were read. */
static void settle_src(struct explain *x, int src, bool final)
{
	struct explain_src *e = &x->src[src];
	int64_t now = clock_now_ns();
	uint64_t t = e->qtail;

	while (t != __atomic_load_n(&e->qhead, __ATOMIC_ACQUIRE)) {
		int64_t exp = e->q[t % EXPLAIN_QSLOTS].exp;
		int64_t lat = e->q[t % EXPLAIN_QSLOTS].lat;
		int cpu = e->q[t % EXPLAIN_QSLOTS].cpu;

		if (!final && !xtrace_settled(x->rd->trace, cpu, exp + lat) &&
		    now < exp + lat + SETTLE_NS)
			break;
		attribute(x, src, exp, lat, cpu);
		__atomic_store_n(&e->qtail, ++t, __ATOMIC_RELEASE);
	}
}

static void settle(struct explain *x, bool final)
{
	int i;

	for (i = 0; i < x->nsrc; i++)
		settle_src(x, i, final);
}

/* The explaining thread runs off the traced CPUs where it can. */
static void away_from_traced(const struct explain_reader *rd)
{
	cpu_set_t set;
	int i, n = online_span();

	CPU_ZERO(&set);
	for (i = 0; i < n && i < CPU_SETSIZE; i++)
		if (i >= EXPLAIN_MAX_CPU || !rd->on[i])
			CPU_SET(i, &set);
	if (CPU_COUNT(&set))
		sched_setaffinity(0, sizeof(set), &set);
}

static void *explain_thread(void *arg)
{
	struct explain *x = arg;
	struct explain_reader *rd = x->rd;
	int64_t tick = clock_now_ns();
	uint64_t got;

	prctl(PR_SET_NAME, "rtlat-explain");
	away_from_traced(rd);
	steal_tick(rd, true);
	smi_start(rd);
	for (;;) {
		got = xtrace_read(rd->trace);
		x->events += got;
		settle(x, false);
		/* After the stop: until the buffers are empty, or DRAIN_NS. */
		if (atomic_load_explicit(&x->stop, memory_order_acquire) &&
		    (!got || clock_now_ns() - x->stop_ns > DRAIN_NS))
			break;
		if (clock_now_ns() - tick >= NSEC_PER_SEC) {
			steal_tick(rd, false);
			tick = clock_now_ns();
		}
		if (!got)
			clock_sleep_until(clock_now_ns() + POLL_NS);
	}
	settle(x, true);
	return NULL;
}

struct explain *explain_new(int nsrc, int64_t over_ns)
{
	struct explain *x = calloc(1, sizeof(*x));
	int i;

	if (nsrc > EXPLAIN_MAX_SRC)
		nsrc = EXPLAIN_MAX_SRC;
	if (!x || nsrc < 1)
		goto fail;
	/* Shared, anonymous: forked workers note into it, nothing to remove. */
	x->src = mmap(NULL, sizeof(x->src[0]) * (size_t)nsrc, PROT_READ | PROT_WRITE,
		      MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (x->src == MAP_FAILED)
		goto fail;
	x->nsrc = nsrc;
	x->over_ns = over_ns;
	x->task_softirqs = sysinfo_realtime() == 1;
	for (i = 0; i < nsrc; i++) {
		x->src[i].cpu = -1;
		x->src[i].over_ns = over_ns;
		x->src[i].max_seen = over_ns;
		x->src[i].last_note = INT64_MIN / 2;
	}
	return x;
fail:
	free(x);
	return NULL;
}

int explain_count(const struct explain *x)
{
	return x ? x->nsrc : 0;
}

struct explain_src *explain_source(struct explain *x, int i)
{
	return x && i >= 0 && i < x->nsrc ? &x->src[i] : NULL;
}

void explain_set_start(struct explain *x, int64_t start_ns)
{
	x->start_ns = start_ns;
}

void explain_set_trace_out(struct explain *x, const char *dir, const char *prog)
{
	if (!x)
		return;
	x->trace_out = dir;
	x->prog = prog;
}

void explain_src_set(struct explain *x, int i, int cpu, const char *remote,
		     bool running, const char *fmt, ...)
{
	struct explain_src *e = explain_source(x, i);
	va_list ap;

	if (!e)		/* past the sources kept */
		return;
	e->cpu = cpu;
	e->remote = remote;
	e->running = running;
	va_start(ap, fmt);
	vsnprintf(e->name, sizeof(e->name), fmt, ap);
	va_end(ap);
}

void explain_free(struct explain *x)
{
	if (!x)
		return;
	explain_stop(x);
	munmap(x->src, sizeof(x->src[0]) * (size_t)x->nsrc);
	free(x);
}

/* At the start, not on the measuring path: the rings and the window are
 * large, and the run's alone. */
static struct explain_reader *reader_new(void)
{
	struct explain_reader *rd = calloc(1, sizeof(*rd));

	if (!rd)
		return NULL;
	rd->trace = xtrace_new();
	if (!rd->trace) {
		free(rd);
		return NULL;
	}
	return rd;
}

static void reader_free(struct explain_reader *rd)
{
	if (!rd)
		return;
	xtrace_free(rd->trace);
	free(rd);
}

int explain_start(struct explain *x, const char *prog, char *err, size_t len)
{
	x->start_ns = clock_now_ns();
	x->rd = reader_new();
	if (!x->rd) {
		snprintf(err, len, "no memory for the explaining thread");
		goto fail;
	}
	if (make_instance(x, prog, err, len))
		goto fail;
	if (pthread_create(&x->thread, NULL, explain_thread, x)) {
		snprintf(err, len, "cannot start the explaining thread");
		goto fail;
	}
	x->started = true;
	return 0;
fail:
	explain_stop(x);
	return -1;
}

void explain_stop(struct explain *x)
{
	int i;

	if (x->started) {
		/* Let the last spike's events arrive before the final pass. */
		clock_sleep_until(clock_now_ns() + 2 * POLL_NS);
		x->stop_ns = clock_now_ns();
		tracefs_write(x->dir, "tracing_on", "0");
		atomic_store_explicit(&x->stop, 1, memory_order_release);
		pthread_join(x->thread, NULL);
		x->started = false;
		xcause_sort(x->total, x->ntotal);
		for (i = 0; i < x->nsrc; i++)
			x->skipped += x->src[i].skipped;
		x->lost_pages = xtrace_lost(x->rd->trace);
	}
	/* The buffers closed first: an open one keeps the instance busy. */
	reader_free(x->rd);
	x->rd = NULL;
	remove_instance(x);
}
