// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * explain_layer.c - the always-on layer: per second, for the measuring
 * CPU, the interrupts and softirqs it took, the VM's steal time, CPU
 * pressure (/proc/pressure/cpu) and the measuring thread's involuntary
 * switches. Read by a non-RT thread; each second's increase goes to the
 * caller as a time line context row (measure/timeline.h), which the time
 * line keeps beside its steps and merges with them: no rows kept here.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "explain/explain_internal.h"
#include "measure/timeline.h"

static const char *const softirq_names[LAYER_SOFTIRQS] = {
	"HI", "TIMER", "NET_TX", "NET_RX", "BLOCK", "IRQ_POLL", "TASKLET",
	"SCHED", "HRTIMER", "RCU",
};

/* In the order layer_second fills a row. */
const char *const layer_columns[LAYER_COLUMNS + 1] = {
	"irqs", "softirq_HI", "softirq_TIMER", "softirq_NET_TX",
	"softirq_NET_RX", "softirq_BLOCK", "softirq_IRQ_POLL",
	"softirq_TASKLET", "softirq_SCHED", "softirq_HRTIMER", "softirq_RCU",
	"steal_ms", "cpu_pressure_some_us", "involuntary_switches", NULL,
};

_Static_assert(LAYER_COLUMNS <= TL_CTX_MAX, "the layer's columns fit a context row");

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

void layer_begin(struct layer *l, int cpu)
{
	memset(l, 0, sizeof(*l));
	if (cpu < 0)
		return;
	l->on = true;
	l->cpu = cpu;
	layer_read(&l->prev, cpu);
}

/* The deltas are measured when the display thread takes the second
 * (within its 100 ms poll), not at the exact second boundary. */
bool layer_second(struct layer *l, uint64_t msw, struct tl_ctx *row)
{
	struct layer_sec now;
	int i;

	if (!l->on)
		return false;
	layer_read(&now, l->cpu);
	memset(row, 0, sizeof(*row));
	row->seconds = 1;
	row->v[0] = (int64_t)(now.irqs - l->prev.irqs);
	for (i = 0; i < LAYER_SOFTIRQS; i++)
		row->v[1 + i] = (int64_t)(now.softirq[i] - l->prev.softirq[i]);
	row->v[LAYER_SOFTIRQS + 1] = now.steal_ms - l->prev.steal_ms;
	row->v[LAYER_SOFTIRQS + 2] = now.psi_some_us < 0 || l->prev.psi_some_us < 0 ?
				     -1 : now.psi_some_us - l->prev.psi_some_us;
	row->v[LAYER_SOFTIRQS + 3] = (int64_t)(msw - l->prev_msw);
	l->prev = now;
	l->prev_msw = msw;
	return true;
}
