// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * explain_trace.c - the events --explain enables in its instance, and the
 * instance's per-CPU binary buffers (per_cpu/cpuN/trace_pipe_raw) read
 * into one fixed ring of events per traced CPU (explain_raw.c decodes
 * the pages). Each run has its own struct xtrace (explain.c makes it at
 * the start, frees it at the stop); only its explaining thread reads it.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "measure/clock.h"
#include "explain/explain_internal.h"
#include "explain/explain_raw.h"
#include "explain/explain_trace.h"
#include "system/outfile.h"
#include "system/tracefs.h"

/* Per traced CPU: 32768 events (about 2.4 MB) hold a second or more of a
 * busy CPU; a spike needs 20 ms of look-back and its own window. */
#define CPU_RING	(1 << 15)
#define PAGE_EVENTS	1024
/* Per traced CPU: the last stacks the triggers recorded (one per switch
 * away from a task and per device interrupt): at most one every other
 * event, and a spike is attributed soon after its events were read. */
#define STACK_RING	(CPU_RING / 8)
/* Events still being committed when a read found the buffer empty. */
#define COMMIT_SLACK_NS	(1 * NSEC_PER_MSEC)

static const struct {
	const char *path;
	const char *vector;
	int type;
	bool optional;		/* irq_vectors are x86's */
} events[] = {
	{ "sched/sched_switch", NULL, XEV_SWITCH, false },
	{ "sched/sched_wakeup", NULL, XEV_WAKEUP, false },
	{ "irq/irq_handler_entry", NULL, XEV_IRQ_ENTRY, false },
	{ "irq/irq_handler_exit", NULL, XEV_IRQ_EXIT, false },
	{ "irq/softirq_entry", NULL, XEV_SOFTIRQ_ENTRY, false },
	{ "irq/softirq_exit", NULL, XEV_SOFTIRQ_EXIT, false },
	{ "irq_vectors/local_timer_entry", "local_timer", XEV_VEC_ENTRY, true },
	{ "irq_vectors/local_timer_exit", "local_timer", XEV_VEC_EXIT, true },
	{ "irq_vectors/reschedule_entry", "reschedule", XEV_VEC_ENTRY, true },
	{ "irq_vectors/reschedule_exit", "reschedule", XEV_VEC_EXIT, true },
	{ "irq_vectors/call_function_entry", "call_function", XEV_VEC_ENTRY, true },
	{ "irq_vectors/call_function_exit", "call_function", XEV_VEC_EXIT, true },
	{ "irq_vectors/call_function_single_entry", "call_function_single", XEV_VEC_ENTRY, true },
	{ "irq_vectors/call_function_single_exit", "call_function_single", XEV_VEC_EXIT, true },
};

#define NEVENTS ((int)(sizeof(events) / sizeof(events[0])))

struct xstk {
	int seq;		/* the stack event's pid */
	int n;
	uint64_t pc[XSTACK_FRAMES];
};

struct cpu_ring {
	int cpu, fd;
	struct xev *ev;
	uint64_t n;		/* events ever put; ev[n % CPU_RING] next */
	int64_t drained;	/* everything before this was read */
	struct xstk *stk;
	int nstk;		/* stacks ever put, modulo INT_MAX + 1 */
};

struct xtrace {
	struct xraw fmt;		/* the events' layouts */
	struct cpu_ring *rings;
	int nrings;
	uint64_t lost_pages;
	uint8_t *page;
	long page_size;
	struct xev decoded[PAGE_EVENTS];	/* one page's events */
	char text[8192];		/* a format file, at the start */
};

/*
 * The buffers open in this process, for the fork hook (it is given no
 * argument). As process-wide as the instance they belong to: one
 * instances/rtlat-<pid> at a time (a second run's mkdir fails before
 * it opens anything).
 */
static struct xtrace *open_buffers;

struct xtrace *xtrace_new(void)
{
	return calloc(1, sizeof(struct xtrace));
}

/* A tracefs text file of the instance (formats are the same in every
 * instance): 0 or -errno. */
static int read_file(const char *dir, const char *name, char *buf, size_t len)
{
	char path[512];
	size_t n;
	int fd;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = read_text(fd, buf, len);
	close(fd);
	return n ? 0 : -EIO;
}

/* Enable an event and learn its layout. */
static int enable_event(struct xtrace *t, const char *dir, int i)
{
	char file[160];
	int err;

	snprintf(file, sizeof(file), "events/%s/enable", events[i].path);
	if ((err = tracefs_write(dir, file, "1")))
		return err;
	snprintf(file, sizeof(file), "events/%s/format", events[i].path);
	if ((err = read_file(dir, file, t->text, sizeof(t->text))))
		return err;
	if (t->fmt.n == XRAW_EVENTS ||
	    xraw_format(&t->fmt.ev[t->fmt.n], events[i].type, events[i].vector, t->text))
		return -EINVAL;
	t->fmt.n++;
	return 0;
}

int xtrace_enable(struct xtrace *t, const char *dir, const char **what)
{
	int i, err;

	*what = "events/header_page";
	if ((err = read_file(dir, "events/header_page", t->text, sizeof(t->text))))
		return err;
	if (xraw_header(&t->fmt, t->text))
		return -EINVAL;
	for (i = 0; i < NEVENTS; i++) {
		err = enable_event(t, dir, i);
		if (err && !events[i].optional) {
			*what = events[i].path;
			return err;
		}
	}
	return 0;
}

/*
 * The kernel's stack behind a spike: the stacktrace trigger records one
 * after each switch away from a task (not the idle one: it delays no
 * one) and each device interrupt's entry, on the instance's CPUs only
 * (tracing_cpumask). Not the stacktrace option: that would unwind at
 * every event, the timer's own too.
 */
static const char *const stack_triggers[][2] = {
	{ "events/sched/sched_switch/trigger", "stacktrace if prev_pid != 0" },
	{ "events/irq/irq_handler_entry/trigger", "stacktrace" },
};

int xtrace_stacks(struct xtrace *t, const char *dir, char *why, size_t len)
{
	const char *file = "events/ftrace/kernel_stack/format";
	size_t i;
	int err;

	if (t->fmt.n == XRAW_EVENTS)
		err = -ENOSPC;
	else if (!(err = read_file(dir, file, t->text, sizeof(t->text))) &&
		 xraw_format(&t->fmt.ev[t->fmt.n], XEV_STACK, NULL, t->text))
		err = -EINVAL;
	for (i = 0; !err && i < sizeof(stack_triggers) / sizeof(stack_triggers[0]); i++) {
		file = stack_triggers[i][0];
		err = tracefs_write(dir, file, stack_triggers[i][1]);
	}
	if (err) {
		snprintf(why, len, "no kernel stacks: %s: %s", file, strerror(-err));
		return -1;
	}
	t->fmt.n++;
	return 0;
}

/* A forked worker (pair -f, request's clients) never reads the buffers:
 * its copies of the descriptors would keep the instance busy, and a
 * cleanup's rmdir from failing, for as long as it lives. */
static void close_in_child(void)
{
	struct xtrace *t = open_buffers;
	int i;

	if (!t)
		return;
	for (i = 0; i < t->nrings; i++)
		if (t->rings[i].fd >= 0)
			close(t->rings[i].fd);
	t->nrings = 0;
}

int xtrace_open(struct xtrace *t, const char *dir, const bool *on, int ncpu,
		char *err, size_t len)
{
	static bool atfork;
	char path[512];
	int c;

	if (!atfork && !pthread_atfork(NULL, NULL, close_in_child))
		atfork = true;
	open_buffers = t;
	t->page_size = sysconf(_SC_PAGESIZE);
	t->page = malloc((size_t)t->page_size);
	t->rings = calloc((size_t)ncpu, sizeof(*t->rings));
	if (!t->page || !t->rings)
		goto nomem;
	for (c = 0; c < ncpu; c++) {
		struct cpu_ring *r;

		if (!on[c])
			continue;
		r = &t->rings[t->nrings++];
		r->cpu = c;
		r->fd = -1;
		r->ev = malloc(sizeof(r->ev[0]) * CPU_RING);
		r->stk = calloc(STACK_RING, sizeof(r->stk[0]));
		if (!r->ev || !r->stk)
			goto nomem;
		snprintf(path, sizeof(path), "%s/per_cpu/cpu%d/trace_pipe_raw", dir, c);
		r->fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
		if (r->fd < 0) {
			snprintf(err, len, "cannot open %s: %s", path, strerror(errno));
			return -1;
		}
	}
	return 0;
nomem:
	snprintf(err, len, "no memory for the event rings");
	return -1;
}

/* A stack's frames out of the page into the CPU's ring of stacks; the
 * event keeps its number there. */
static void keep_stack(struct xtrace *t, struct cpu_ring *r, size_t len, struct xev *e)
{
	struct xstk *k = &r->stk[(unsigned int)r->nstk % STACK_RING];

	k->n = xraw_frames(&t->fmt, t->page, len, e, k->pc, XSTACK_FRAMES);
	k->seq = r->nstk;
	e->pid = r->nstk;
	r->nstk = r->nstk == INT_MAX ? 0 : r->nstk + 1;
}

/* What one CPU has, until its buffer is empty (or the pass is long). */
static uint64_t read_cpu(struct xtrace *t, struct cpu_ring *r)
{
	int64_t start = clock_now_ns();
	uint64_t got = 0;
	int pages, i, n;
	ssize_t len;

	for (pages = 0; pages < 256; pages++) {
		len = read(r->fd, t->page, (size_t)t->page_size);
		if (len <= 0) {
			/* Empty: all that was committed before start is in. */
			if (len == 0 || errno == EAGAIN)
				r->drained = start - COMMIT_SLACK_NS;
			break;
		}
		n = xraw_page(&t->fmt, t->page, (size_t)len, r->cpu, t->decoded,
			      PAGE_EVENTS, &t->lost_pages);
		for (i = 0; i < n; i++) {
			if (t->decoded[i].type == XEV_STACK)
				keep_stack(t, r, (size_t)len, &t->decoded[i]);
			r->ev[r->n++ % CPU_RING] = t->decoded[i];
		}
		got += (uint64_t)n;
	}
	return got;
}

uint64_t xtrace_read(struct xtrace *t)
{
	uint64_t got = 0;
	int i;

	for (i = 0; i < t->nrings; i++)
		got += read_cpu(t, &t->rings[i]);
	return got;
}

static const struct cpu_ring *ring_of(const struct xtrace *t, int cpu)
{
	int i;

	for (i = 0; i < t->nrings; i++)
		if (t->rings[i].cpu == cpu)
			return &t->rings[i];
	return NULL;
}

bool xtrace_settled(const struct xtrace *t, int cpu, int64_t at)
{
	const struct cpu_ring *r = ring_of(t, cpu);

	return !r || r->drained > at;
}

int xtrace_window(const struct xtrace *t, int cpu, int64_t from, int64_t to,
		  struct xev *win, int max)
{
	const struct cpu_ring *r = ring_of(t, cpu);
	uint64_t first, end, i;
	int n = 0;

	if (!r)
		return 0;
	first = r->n > CPU_RING ? r->n - CPU_RING : 0;
	end = r->n;
	while (end > first && r->ev[(end - 1) % CPU_RING].ts > to)
		end--;
	i = end;
	while (i > first && end - i < (uint64_t)max && r->ev[(i - 1) % CPU_RING].ts >= from)
		i--;
	for (; i < end; i++)
		win[n++] = r->ev[i % CPU_RING];
	return n;
}

int xtrace_stack(const struct xtrace *t, int cpu, const struct xev *e, uint64_t *pc)
{
	const struct cpu_ring *r = ring_of(t, cpu);
	const struct xstk *k;

	if (!r || e->type != XEV_STACK || e->pid < 0)
		return 0;
	k = &r->stk[(unsigned int)e->pid % STACK_RING];
	if (k->seq != e->pid)	/* overwritten since */
		return 0;
	memcpy(pc, k->pc, sizeof(k->pc[0]) * (size_t)k->n);
	return k->n;
}

uint64_t xtrace_lost(const struct xtrace *t)
{
	return t->lost_pages;
}

void xtrace_free(struct xtrace *t)
{
	int i;

	if (!t)
		return;
	if (open_buffers == t)
		open_buffers = NULL;
	for (i = 0; i < t->nrings; i++) {
		if (t->rings[i].fd >= 0)
			close(t->rings[i].fd);
		free(t->rings[i].ev);
		free(t->rings[i].stk);
	}
	free(t->rings);
	free(t->page);
	free(t);
}
