// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * explain_layer.c - the always-on layer: per second, for the measuring
 * CPU, the interrupts and softirqs it took, the VM's steal time, CPU
 * pressure (/proc/pressure/cpu) and the measuring thread's involuntary
 * switches, beside the second's maximum. Read by a non-RT thread; at
 * most LAYER_MAX_SECONDS rows are kept: past them adjacent rows merge
 * two by two, as the time line's steps do, so a run of any length keeps
 * its whole span at a coarser step (memory bounded).
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "explain/explain_internal.h"
#include "core/json.h"
#include "core/timeline.h"

static const char *const softirq_names[LAYER_SOFTIRQS] = {
	"HI", "TIMER", "NET_TX", "NET_RX", "BLOCK", "IRQ_POLL", "TASKLET",
	"SCHED", "HRTIMER", "RCU",
};

/* Column cpu of a /proc/interrupts-style row (after "NAME:"). */
static uint64_t column(const char *row, int cpu)
{
	const char *p = strchr(row, ':');
	char *end;
	uint64_t v = 0;
	int i;

	if (!p)
		return 0;
	p++;
	for (i = 0; i <= cpu; i++) {
		v = strtoull(p, &end, 10);
		if (end == p)
			return 0;	/* a short row (ERR:, MIS:) */
		p = end;
	}
	return v;
}

static uint64_t read_irqs(int cpu)
{
	char line[1024];
	uint64_t sum = 0;
	FILE *f = fopen("/proc/interrupts", "r");

	if (f && fgets(line, sizeof(line), f))	/* the CPU header */
		while (fgets(line, sizeof(line), f))
			sum += column(line, cpu);
	if (f)
		fclose(f);
	return sum;
}

static void read_softirqs(uint64_t *v, int cpu)
{
	char line[1024], name[32];
	FILE *f = fopen("/proc/softirqs", "r");
	int i;

	while (f && fgets(line, sizeof(line), f)) {
		if (sscanf(line, " %31[^:]:", name) != 1)
			continue;
		for (i = 0; i < LAYER_SOFTIRQS; i++)
			if (!strcmp(name, softirq_names[i]))
				v[i] = column(line, cpu);
	}
	if (f)
		fclose(f);
}

int64_t layer_steal_ms(int cpu)
{
	char line[512], want[16];
	unsigned long long v[8] = { 0 };
	FILE *f = fopen("/proc/stat", "r");

	snprintf(want, sizeof(want), "cpu%d ", cpu);
	while (f && fgets(line, sizeof(line), f))
		if (!strncmp(line, want, strlen(want)) &&
		    sscanf(line + strlen(want), "%llu %llu %llu %llu %llu %llu %llu %llu",
			   &v[0], &v[1], &v[2], &v[3], &v[4], &v[5], &v[6], &v[7]) == 8)
			break;
	if (f)
		fclose(f);
	return (int64_t)v[7] * 1000 / sysconf(_SC_CLK_TCK);
}

static int64_t read_psi_us(void)
{
	long long total = -1;
	FILE *f = fopen("/proc/pressure/cpu", "r");

	if (f && fscanf(f, "some avg10=%*f avg60=%*f avg300=%*f total=%lld", &total) != 1)
		total = -1;
	if (f)
		fclose(f);
	return total;
}

/* The counters now (cumulative). */
static void layer_read(struct layer_sec *s, int cpu)
{
	memset(s, 0, sizeof(*s));
	s->irqs = read_irqs(cpu);
	read_softirqs(s->softirq, cpu);
	s->steal_ms = layer_steal_ms(cpu);
	s->psi_some_us = read_psi_us();
}

int layer_begin(struct layer *l, int cpu)
{
	memset(l, 0, sizeof(*l));
	l->cpu = cpu;
	l->sec = calloc(LAYER_MAX_SECONDS, sizeof(*l->sec));
	if (!l->sec)
		return -1;
	l->width = 1;
	layer_read(&l->prev, cpu);
	return 0;
}

/* Fold row src into row dst (dst the earlier): extremes, counters added,
 * the average weighted by seconds. */
static void layer_fold(void *dst, const void *src)
{
	struct layer_sec *d = dst;
	const struct layer_sec *s = src;
	uint64_t n = d->seconds + s->seconds;
	int i;

	if (s->min_ns < d->min_ns)
		d->min_ns = s->min_ns;
	if (s->max_ns > d->max_ns)
		d->max_ns = s->max_ns;
	if (n)
		d->avg_ns = (int64_t)(((double)d->avg_ns * (double)d->seconds +
				       (double)s->avg_ns * (double)s->seconds) / (double)n);
	d->irqs += s->irqs;
	for (i = 0; i < LAYER_SOFTIRQS; i++)
		d->softirq[i] += s->softirq[i];
	d->steal_ms += s->steal_ms;
	d->psi_some_us = d->psi_some_us < 0 || s->psi_some_us < 0 ? -1 :
			 d->psi_some_us + s->psi_some_us;
	d->nivcsw += s->nivcsw;
	d->seconds = n;
}

/* Keep one second's row: into the last row while it holds fewer than
 * width seconds, else a new row (merging two by two when full). */
static void layer_keep(struct layer *l, const struct layer_sec *d)
{
	if (l->n && l->sec[l->n - 1].seconds < l->width) {
		layer_fold(&l->sec[l->n - 1], d);
		return;
	}
	if (l->n == LAYER_MAX_SECONDS) {
		l->n = tl_halve(l->sec, l->n, sizeof(*l->sec), layer_fold);
		l->width *= 2;
		l->merges++;
	}
	l->sec[l->n++] = *d;
}

/* The seconds' deltas are measured when the display thread takes the
 * second (within its 100 ms poll), not at the exact second boundary. */
void layer_second(struct layer *l, uint64_t index, const int64_t lat[3],
		  uint64_t msw)
{
	struct layer_sec now, d;
	int i;

	if (!l->sec)
		return;
	layer_read(&now, l->cpu);
	memset(&d, 0, sizeof(d));
	d.index = index;
	d.seconds = 1;
	d.min_ns = lat[0];
	d.avg_ns = lat[1];
	d.max_ns = lat[2];
	d.irqs = now.irqs - l->prev.irqs;
	for (i = 0; i < LAYER_SOFTIRQS; i++)
		d.softirq[i] = now.softirq[i] - l->prev.softirq[i];
	d.steal_ms = now.steal_ms - l->prev.steal_ms;
	d.psi_some_us = now.psi_some_us < 0 ? -1 :
			now.psi_some_us - l->prev.psi_some_us;
	d.nivcsw = msw - l->prev_msw;
	layer_keep(l, &d);
	l->prev = now;
	l->prev_msw = msw;
}

static void layer_row(struct json *j, const struct layer_sec *d)
{
	int i;

	json_obj_open(j, NULL);
	json_uint(j, "second", d->index);
	json_uint(j, "seconds", d->seconds);
	json_int(j, "min_ns", d->min_ns);
	json_int(j, "avg_ns", d->avg_ns);
	json_int(j, "max_ns", d->max_ns);
	json_uint(j, "irqs", d->irqs);
	json_obj_open(j, "softirqs");
	for (i = 0; i < LAYER_SOFTIRQS; i++)
		json_uint(j, softirq_names[i], d->softirq[i]);
	json_obj_close(j);
	json_int(j, "steal_ms", d->steal_ms);
	if (d->psi_some_us < 0)
		json_null(j, "cpu_pressure_some_us");
	else
		json_int(j, "cpu_pressure_some_us", d->psi_some_us);
	json_uint(j, "involuntary_switches", d->nivcsw);
	json_obj_close(j);
}

void layer_json(struct json *j, const char *key, const struct layer *l)
{
	uint64_t i;

	json_obj_open(j, key);
	json_int(j, "cpu", l->cpu);
	json_uint(j, "dropped", 0);	/* none since rows merge */
	json_uint(j, "row_seconds", l->width ? l->width : 1);
	json_uint(j, "merges", l->merges);
	json_arr_open(j, "seconds");
	for (i = 0; i < l->n; i++)
		layer_row(j, &l->sec[i]);
	json_arr_close(j);
	json_obj_close(j);
}

void layer_free(struct layer *l)
{
	free(l->sec);
	l->sec = NULL;
}
