// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * hwlat_trace.c - the kernel's hwlat tracer for rtlat hwlat: taken only
 * where it is free (nop, no other rtlat holding the top-level tracer),
 * set as asked (tracing_thresh, hwlat_detector/window, width and mode,
 * tracing_cpumask), read from trace_pipe, and restored as it was.
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "hwlat/hwlat.h"
#include "system/tracefs.h"

static const char *const mode_names[] = { "none", "round-robin", "per-cpu" };

/*
 * An event line, e.g. (the kernel's trace_hwlat_print)
 *   <...>-1729 [001] d... 678.473449: #1 inner/outer(us): 11/12
 *   ts:1581527483.343962693 count:6 nmi-total:7 nmi-count:1
 * count from 5.x on; nmi-* only where NMIs came during the width.
 */
int hwlat_parse(const char *line, struct hwlat_event *e)
{
	const char *colon = strstr(line, ": #");
	const char *io = strstr(line, "inner/outer(us):");
	const char *ts = io ? strstr(io, "ts:") : NULL;
	const char *br = strchr(line, '[');
	const char *p;
	unsigned long long seq;

	if (!colon || !io || !ts || !br || colon > io || br > colon)
		return -1;
	if (sscanf(colon, ": #%llu", &seq) != 1 || sscanf(br, "[%d]", &e->cpu) != 1)
		return -1;
	if (sscanf(io + strlen("inner/outer(us):"), " %lld/%lld",
		   &e->inner_us, &e->outer_us) != 2 ||
	    e->inner_us < 0 || e->outer_us < 0 || e->cpu < 0)
		return -1;
	if (sscanf(ts, "ts:%lld.%lld", &e->wall_s, &e->wall_ns) != 2 ||
	    e->wall_ns < 0 || e->wall_ns > 999999999)
		return -1;
	e->seq = seq;
	e->count = -1;
	e->nmi_total_us = -1;
	e->nmi_count = 0;
	p = strstr(ts, " count:");
	if (p)
		sscanf(p, " count:%d", &e->count);
	p = strstr(ts, "nmi-total:");
	if (p)
		sscanf(p, "nmi-total:%lld", &e->nmi_total_us);
	p = strstr(ts, "nmi-count:");
	if (p)
		sscanf(p, "nmi-count:%d", &e->nmi_count);
	return 0;
}

static int hw_write(const char *file, const char *val)
{
	return tracefs_write(tracefs_dir(), file, val);
}

static void hw_read(const char *file, char *buf, size_t len)
{
	tracefs_read(tracefs_dir(), file, buf, len);
}

/* tracing_cpumask for a CPU list: 32-bit hex words, highest first. */
static void cpumask_text(const struct cpu_list *l, char *buf, size_t len)
{
	unsigned int w[CPU_LIST_MAX / 32] = { 0 };
	int i, top = 0;
	size_t at = 0;

	for (i = 0; i < l->n; i++) {
		w[l->cpu[i] / 32] |= 1u << (l->cpu[i] % 32);
		if (l->cpu[i] / 32 > top)
			top = l->cpu[i] / 32;
	}
	for (i = top; i >= 0 && at < len; i--)
		at += (size_t)snprintf(buf + at, len - at, i == top ? "%x" : ",%08x", w[i]);
}

int tracer_take(const char *name, char *prev, size_t plen, char *err, size_t len)
{
	int e = tracefs_lock_tracer(tracefs_dir());

	if (e == -EWOULDBLOCK) {
		snprintf(err, len, "%s: the tracer is in use by another rtlat run; one run at a time", name);
		return -1;
	}
	if (e) {
		snprintf(err, len, "%s: cannot lock %s: %s", name, tracefs_dir(), strerror(-e));
		return -1;
	}
	hw_read("current_tracer", prev, plen);
	if (prev[0] && strcmp(prev, "nop") != 0) {
		snprintf(err, len, "%s: the %s tracer is in use (%s/current_tracer), not rtlat's to take; echo nop > current_tracer once it is done",
			 name, prev, tracefs_dir());
		tracefs_unlock_tracer();
		return -1;
	}
	return 0;
}

/* The tracer is this run's alone, or refused (as timerlat's, tl_take). */
static int take(struct hwlat_saved *s, char *err, size_t len)
{
	if (tracer_take("hwlat", s->tracer, sizeof(s->tracer), err, len))
		return -1;
	hw_read("tracing_on", s->on, sizeof(s->on));
	hw_read("tracing_thresh", s->thresh, sizeof(s->thresh));
	hw_read("hwlat_detector/window", s->window, sizeof(s->window));
	hw_read("hwlat_detector/width", s->width, sizeof(s->width));
	tracefs_read_choice(tracefs_dir(), "hwlat_detector/mode", s->mode, sizeof(s->mode));
	hw_read("tracing_cpumask", s->cpumask, sizeof(s->cpumask));
	s->taken = true;
	return 0;
}

int tracefs_write_pair(const char *big_file, const char *big, const char *small_file,
		       const char *small, long long big_now, bool strict)
{
	int e;

	if (atoll(small) < big_now + (strict ? 0 : 1)) {
		e = hw_write(small_file, small);
		return e ? e : hw_write(big_file, big);
	}
	e = hw_write(big_file, big);
	return e ? e : hw_write(small_file, small);
}

/* The kernel keeps width < window at every write: the order that does. */
static int set_sample(const char *window, const char *width, long long cur_window)
{
	return tracefs_write_pair("hwlat_detector/window", window,
				  "hwlat_detector/width", width, cur_window, true);
}

static int configure(struct hwlat_run *r, const struct hwlat_config *c)
{
	char val[320], width[32];
	int e;

	e = hw_write("tracing_on", "0");
	if (!e)
		e = hw_write("trace", "");
	if (!e)
		e = hw_write("current_tracer", "hwlat");
	snprintf(val, sizeof(val), "%lld", c->threshold_us);
	if (!e)
		e = hw_write("tracing_thresh", val);
	snprintf(val, sizeof(val), "%lld", r->window_us);
	snprintf(width, sizeof(width), "%lld", r->width_us);
	if (!e)
		e = set_sample(val, width, atoll(r->saved.window));
	if (!e && r->saved.mode[0])
		e = hw_write("hwlat_detector/mode", mode_names[c->mode]);
	if (!e && c->cpus.n) {
		cpumask_text(&c->cpus, val, sizeof(val));
		e = hw_write("tracing_cpumask", val);
	}
	return e;
}

int hwlat_start(struct hwlat_run *r, const struct hwlat_config *c,
		char *err, size_t len)
{
	int e;

	r->pipe.fd = -1;
	if (take(&r->saved, err, len))
		return -1;
	e = configure(r, c);
	if (!e)
		e = tpipe_open(&r->pipe);
	if (!e)
		e = hw_write("tracing_on", "1");
	if (e) {
		snprintf(err, len, "hwlat: setting up the tracer: %s", strerror(-e));
		hwlat_stop(r);
		return -1;
	}
	return 0;
}

void hwlat_stop(struct hwlat_run *r)
{
	struct hwlat_saved *s = &r->saved;

	if (!s->taken)
		return;
	s->taken = false;
	tpipe_close(&r->pipe);
	hw_write("tracing_on", "0");
	hw_write("current_tracer", s->tracer[0] ? s->tracer : "nop");
	if (s->thresh[0])
		hw_write("tracing_thresh", s->thresh);
	if (s->window[0] && s->width[0])
		set_sample(s->window, s->width, r->window_us);
	if (s->mode[0])
		hw_write("hwlat_detector/mode", s->mode);
	if (s->cpumask[0])
		hw_write("tracing_cpumask", s->cpumask);
	if (s->on[0])
		hw_write("tracing_on", s->on);
	tracefs_unlock_tracer();
}

int tracer_test_setup(struct test_run *t)
{
	/* The kernel's threads measure: rtlat's own settings stay off. */
	t->common->no_mlock = true;
	t->common->no_dma_latency = true;
	return 0;
}

int tpipe_open(struct tpipe *p)
{
	char path[300];

	snprintf(path, sizeof(path), "%s/trace_pipe", tracefs_dir());
	p->len = 0;
	p->fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	return p->fd < 0 ? -errno : 0;
}

void tpipe_close(struct tpipe *p)
{
	if (p->fd >= 0)
		close(p->fd);
	p->fd = -1;
}

/* The complete lines in p->line, each to fn; the rest kept. */
static int take_lines(struct tpipe *p, void (*fn)(const char *, void *), void *arg)
{
	char *nl, *at = p->line;
	int got = 0;

	while ((nl = memchr(at, '\n', p->len - (size_t)(at - p->line)))) {
		*nl = '\0';
		fn(at, arg);
		got = 1;
		at = nl + 1;
	}
	p->len -= (size_t)(at - p->line);
	memmove(p->line, at, p->len);
	if (p->len == sizeof(p->line) - 1)
		p->len = 0;	/* a line that long is no tracer's */
	return got;
}

int tpipe_read(struct tpipe *p, void (*fn)(const char *line, void *arg), void *arg)
{
	int got = 0;
	ssize_t n;

	for (;;) {
		n = read(p->fd, p->line + p->len, sizeof(p->line) - 1 - p->len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno == EAGAIN)
			return got;
		if (n < 0)
			return -1;
		if (n == 0)	/* a file, not a pipe: all of it read */
			return got;
		p->len += (size_t)n;
		got |= take_lines(p, fn, arg);
	}
}

void tpipe_wait(void)
{
	struct timespec ts = { 0, 100 * 1000 * 1000 };

	nanosleep(&ts, NULL);
}

/* hwlat_read's line: an event, or nothing. */
struct hw_line {
	struct hwlat_run *r;
	void (*fn)(struct hwlat_run *, const struct hwlat_event *, void *);
	void *arg;
	int events;
};

static void hw_line(const char *line, void *arg)
{
	struct hw_line *h = arg;
	struct hwlat_event e;

	if (!hwlat_parse(line, &e)) {
		h->fn(h->r, &e, h->arg);
		h->events++;
	}
}

int hwlat_read(struct hwlat_run *r,
	       void (*fn)(struct hwlat_run *, const struct hwlat_event *, void *),
	       void *arg)
{
	struct hw_line h = { r, fn, arg, 0 };

	if (tpipe_read(&r->pipe, hw_line, &h) < 0)
		return -1;
	return h.events > 0;
}

/* P(X <= k) for X Poisson with mean m, summed in logs. */
static double poisson_cdf(uint64_t k, double m)
{
	double term = -m, sum = exp(-m);
	uint64_t i;

	for (i = 1; i <= k; i++) {
		term += log(m) - log((double)i);
		sum += exp(term);
	}
	return sum;
}

/*
 * The exact interval rtlat-report gives spike rates (tail/spikes.py,
 * from chi-square quantiles): lo where P(X >= k) = (1-conf)/2, hi where
 * P(X <= k) = (1-conf)/2, each found by bisection (the CDF falls as the
 * mean grows).
 */
void poisson_interval(uint64_t k, double conf, double *lo, double *hi)
{
	double a = (1 - conf) / 2, l, h, m;
	int i;

	*lo = 0;
	if (k) {
		for (l = 0, h = (double)k, i = 0; i < 100; i++) {
			m = (l + h) / 2;
			if (1 - poisson_cdf(k - 1, m) < a)
				l = m;
			else
				h = m;
		}
		*lo = l;
	}
	for (l = (double)k, h = (double)k * 2 + 10, i = 0; i < 100; i++) {
		m = (l + h) / 2;
		if (poisson_cdf(k, m) > a)
			l = m;
		else
			h = m;
	}
	*hi = h;
}
