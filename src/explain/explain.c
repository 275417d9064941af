// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * explain.c - --explain's tracefs instance and its explaining thread:
 * trace_pipe into a fixed ring of events, each noted spike cut out of it
 * and attributed (explain_attr.c), the worst kept, all folded into the
 * run-wide table.
 */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <unistd.h>
#include "cleanup.h"
#include "clock.h"
#include "explain.h"
#include "tracefs.h"

#define RING_EVENTS	(1 << 16)
#define WINDOW_EVENTS	8192
/* Events this long before the expected wake-up give the state in force. */
#define LOOKBACK_NS	(20 * NSEC_PER_MSEC)
/* A spike is attributed once events past it arrived, or after this. */
#define SETTLE_NS	(5 * NSEC_PER_SEC)
/* At the end, the backlog still in the kernel's buffer is read for
 * at most this long. */
#define DRAIN_NS	(2 * NSEC_PER_SEC)
#define POLL_NS		(5 * NSEC_PER_MSEC)

static const char *const events[] = {
	"sched/sched_switch", "sched/sched_wakeup",
	"irq/irq_handler_entry", "irq/irq_handler_exit",
	"irq/softirq_entry", "irq/softirq_exit",
	"irq_vectors/local_timer_entry", "irq_vectors/local_timer_exit",
	"irq_vectors/reschedule_entry", "irq_vectors/reschedule_exit",
	"irq_vectors/call_function_entry", "irq_vectors/call_function_exit",
	"irq_vectors/call_function_single_entry", "irq_vectors/call_function_single_exit",
	NULL,
};

/* The explaining thread's own; one explain per process. */
static struct xev ring[RING_EVENTS];
static uint64_t ring_n;
static struct xev win[WINDOW_EVENTS];

/* Clock, CPU mask, buffer, events; returns 0 or -errno (and what). */
static int configure(const char *dir, int cpu, const char **what)
{
	char mask[32], file[128];
	int i, err;

	/* tracing_cpumask is hex words; CPUs up to 63 here. */
	snprintf(mask, sizeof(mask), "%llx", 1ULL << (cpu & 63));
	*what = "trace_clock mono";
	if ((err = tracefs_write(dir, "trace_clock", "mono")))
		return err;
	*what = "tracing_cpumask";
	if ((err = tracefs_write(dir, "tracing_cpumask", mask)))
		return err;
	tracefs_write(dir, "buffer_size_kb", "4096");
	for (i = 0; events[i]; i++) {
		snprintf(file, sizeof(file), "events/%s/enable", events[i]);
		err = tracefs_write(dir, file, "1");
		/* sched and irq events are on every kernel; vectors are x86. */
		if (err && i < 6) {
			*what = events[i];
			return err;
		}
	}
	*what = "tracing_on";
	return tracefs_write(dir, "tracing_on", "1");
}

static int make_instance(struct explain *x, char *err, size_t len)
{
	const char *top = tracefs_dir(), *what = "instances/";
	int e;

	if (!top) {
		snprintf(err, len, "tracefs is not mounted or not writable (mount -t tracefs nodev /sys/kernel/tracing)");
		return -1;
	}
	snprintf(x->dir, sizeof(x->dir), "%s/instances/rtlat-%d", top, (int)getpid());
	if (mkdir(x->dir, 0700)) {
		snprintf(err, len, "cannot create %s: %s", x->dir, strerror(errno));
		x->dir[0] = '\0';
		return -1;
	}
	cleanup_add_tracefs_instance(x->dir);
	e = configure(x->dir, x->cpu, &what);
	if (e) {
		snprintf(err, len, "cannot set %s in %s: %s", what, x->dir, strerror(-e));
		return -1;
	}
	return 0;
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

/* Copy the ring's events in [from, to] into win[] (the latest ones if
 * there are more than it holds). */
static int cut_window(int64_t from, int64_t to)
{
	uint64_t first = ring_n > RING_EVENTS ? ring_n - RING_EVENTS : 0;
	uint64_t end = ring_n, i;
	int n = 0;

	while (end > first && ring[(end - 1) % RING_EVENTS].ts > to)
		end--;
	i = end;
	while (i > first && end - i < WINDOW_EVENTS && ring[(i - 1) % RING_EVENTS].ts >= from)
		i--;
	for (; i < end; i++)
		win[n++] = ring[i % RING_EVENTS];
	return n;
}

static void attribute(struct explain *x, int64_t exp, int64_t lat, int64_t steal)
{
	struct xspike s = { .exp = exp, .lat = lat, .steal_ms = steal };
	int n = cut_window(exp - LOOKBACK_NS, exp + lat);

	xattr_window(win, n, x->cpu, x->sampler, exp, exp + lat, &s.a);
	keep_top(x, &s);
	if (x->nlog < EXPLAIN_LOG && s.a.n) {
		x->log[x->nlog].exp = exp;
		x->log[x->nlog].lat = lat;
		x->log[x->nlog++].top = s.a.c[0];
	}
	explain_add(x, &s);
}

/* Attribute what is queued and settled (everything when final). */
static void settle(struct explain *x, int64_t steal, bool final)
{
	int64_t last = ring_n ? ring[(ring_n - 1) % RING_EVENTS].ts : 0;
	int64_t now = clock_now_ns();
	uint64_t t = x->qtail;

	while (t != __atomic_load_n(&x->qhead, __ATOMIC_ACQUIRE)) {
		int64_t exp = x->q[t % EXPLAIN_QSLOTS].exp;
		int64_t lat = x->q[t % EXPLAIN_QSLOTS].lat;

		if (!final && last < exp + lat && now < exp + lat + SETTLE_NS)
			break;
		attribute(x, exp, lat, steal);
		__atomic_store_n(&x->qtail, ++t, __ATOMIC_RELEASE);
	}
}

/* Parse the complete lines in buf[0..len); returns what is left over. */
static size_t take_lines(struct explain *x, char *buf, size_t len)
{
	char *p = buf, *nl;

	while ((nl = memchr(p, '\n', len - (size_t)(p - buf)))) {
		*nl = '\0';
		if (!xev_parse(p, &ring[ring_n % RING_EVENTS])) {
			ring_n++;
			x->events++;
		}
		p = nl + 1;
	}
	len -= (size_t)(p - buf);
	memmove(buf, p, len);
	return len;
}

static void away_from(int cpu)
{
	cpu_set_t set;
	long i, n = sysconf(_SC_NPROCESSORS_ONLN);

	CPU_ZERO(&set);
	for (i = 0; i < n && i < CPU_SETSIZE; i++)
		if (i != cpu)
			CPU_SET(i, &set);
	if (CPU_COUNT(&set))
		sched_setaffinity(0, sizeof(set), &set);
}

static void *explain_thread(void *arg)
{
	static char buf[1 << 16];
	struct explain *x = arg;
	int64_t steal_prev = layer_steal_ms(x->cpu), steal = 0, tick = clock_now_ns();
	size_t have = 0;
	ssize_t r;

	prctl(PR_SET_NAME, "rtlat-explain");
	away_from(x->cpu);
	for (;;) {
		r = read(x->fd, buf + have, sizeof(buf) - have - 1);
		if (r > 0 && x->stop && clock_now_ns() - x->stop_ns > DRAIN_NS)
			break;
		if (r > 0) {
			have = take_lines(x, buf, have + (size_t)r);
			if (have == sizeof(buf) - 1)
				have = 0;	/* a line longer than the buffer */
			settle(x, steal, false);
			continue;
		}
		if (clock_now_ns() - tick >= NSEC_PER_SEC) {
			int64_t s = layer_steal_ms(x->cpu);

			steal = s - steal_prev;
			steal_prev = s;
			tick = clock_now_ns();
		}
		if (x->stop)	/* the backlog is read */
			break;
		settle(x, steal, false);
		clock_sleep_until(clock_now_ns() + POLL_NS);
	}
	settle(x, steal, true);
	return NULL;
}

int explain_start(struct explain *x, int cpu, int64_t over_ns, char *err, size_t len)
{
	char path[300];

	memset(x, 0, sizeof(*x));
	x->fd = -1;
	x->cpu = cpu;
	x->over_ns = over_ns;
	x->max_seen = over_ns ? over_ns : 0;
	x->last_note = INT64_MIN / 2;
	if (make_instance(x, err, len))
		goto fail;
	snprintf(path, sizeof(path), "%s/trace_pipe", x->dir);
	x->fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (x->fd < 0) {
		snprintf(err, len, "cannot open %s: %s", path, strerror(errno));
		goto fail;
	}
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
	if (x->started) {
		/* Let the last spike's events arrive before the final pass. */
		clock_sleep_until(clock_now_ns() + 2 * POLL_NS);
		x->stop_ns = clock_now_ns();
		tracefs_write(x->dir, "tracing_on", "0");
		__atomic_store_n(&x->stop, 1, __ATOMIC_RELEASE);
		pthread_join(x->thread, NULL);
		x->started = false;
		xcause_sort(x->total, x->ntotal);
	}
	if (x->fd >= 0)
		close(x->fd);
	x->fd = -1;
	remove_instance(x);
}
