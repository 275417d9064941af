// SPDX-License-Identifier: GPL-2.0-or-later
/* explain_output.c - --explain's blocks under the summary, and its JSON. */
#include <stdlib.h>
#include <string.h>
#include "measure/clock.h"
#include "explain/explain_internal.h"
#include "explain/explain_attr.h"
#include "explain/explain_stack.h"
#include "util/json.h"

static int by_lat(const void *a, const void *b)
{
	const struct xspike *x = a, *y = b;

	return x->lat < y->lat ? 1 : x->lat > y->lat ? -1 : 0;
}

/* The kept spikes, worst first. */
static int sorted_top(const struct explain *x, struct xspike *out)
{
	memcpy(out, x->top, sizeof(x->top[0]) * (size_t)x->ntop);
	qsort(out, (size_t)x->ntop, sizeof(out[0]), by_lat);
	return x->ntop;
}

static double us(int64_t ns)
{
	return (double)ns / NSEC_PER_USEC;
}

/* A few frames of the stack, past the tracer's own, innermost first. */
#define STACK_SHOWN 5

static void print_stack(FILE *f, const struct xstack *st)
{
	int i, first = xstack_first(st);

	if (!st->n)
		return;
	fprintf(f, "EXP|   stack of %s:", st->of);
	for (i = first; i < st->n && i < first + STACK_SHOWN; i++)
		fprintf(f, "%s %s", i > first ? " <" : "", st->fn[i]);
	fprintf(f, "%s\n", i < st->n ? " < ..." : "");
}

static void print_spike(FILE *f, const struct explain *x, const struct xspike *s)
{
	int i;

	fprintf(f, "EXP| spike at %.3f s: %.1f us (%d events)",
		(double)(s->exp - x->start_ns) / NSEC_PER_SEC, us(s->lat), s->a.events);
	if (x->nsrc > 1)
		fprintf(f, ", %s", x->src[s->src].name);
	fprintf(f, " on CPU %d\n", s->cpu);
	for (i = 0; i < s->a.n; i++)
		fprintf(f, "EXP|   %-52s %10.1f us\n", s->a.c[i].label, us(s->a.c[i].ns));
	fprintf(f, "EXP|   %-52s %10lld ms\n", "(steal time on the CPU that second)",
		(long long)s->steal_ms);
	print_stack(f, &s->st);
}

void explain_print(FILE *f, const struct explain *x)
{
	struct xspike top[EXPLAIN_TOP];
	int i, n = sorted_top(x, top);

	if (x->over_ns)
		fprintf(f, "EXP| %llu spikes over %.1f us explained (CPU %s), %llu skipped\n",
			(unsigned long long)x->explained, us(x->over_ns), x->cpus,
			(unsigned long long)x->skipped);
	else
		fprintf(f, "EXP| %llu new maxima explained (CPU %s), %llu skipped\n",
			(unsigned long long)x->explained, x->cpus,
			(unsigned long long)x->skipped);
	if (x->stack_why[0])
		fprintf(f, "EXP| %s\n", x->stack_why);
	for (i = 0; i < n; i++)
		print_spike(f, x, &top[i]);
	if (!x->explained)
		return;
	fprintf(f, "EXP| where the time over the threshold went:\n");
	for (i = 0; i < x->ntotal; i++)
		fprintf(f, "EXP|   %-52s %10.1f us %5.1f%%\n", x->total[i].label,
			us(x->total[i].ns), 100.0 * (double)x->total[i].ns / (double)x->total_ns);
	if (x->other_ns)
		fprintf(f, "EXP|   %-52s %10.1f us %5.1f%%\n", "other", us(x->other_ns),
			100.0 * (double)x->other_ns / (double)x->total_ns);
}

static void json_causes(struct json *j, const char *key, const struct xcause *c, int n)
{
	int i;

	json_arr_open(j, key);
	for (i = 0; i < n; i++) {
		json_obj_open(j, NULL);
		json_str(j, "cause", c[i].label);
		json_str(j, "kind", xcause_kind_names[c[i].kind]);
		json_int(j, "ns", c[i].ns);
		json_obj_close(j);
	}
	json_arr_close(j);
}

/* Every explained spike (the first EXPLAIN_LOG) with its main cause. */
static void json_log(struct json *j, const char *key, const struct explain *x)
{
	int i;

	json_arr_open(j, key);
	for (i = 0; i < x->nlog; i++) {
		json_obj_open(j, NULL);
		json_double(j, "time_s", (double)(x->log[i].exp - x->start_ns) / NSEC_PER_SEC);
		json_int(j, "latency_ns", x->log[i].lat);
		json_int(j, "cpu", x->log[i].cpu);
		json_str(j, "source", x->src[x->log[i].src].name);
		json_str(j, "cause", x->log[i].top.label);
		json_str(j, "kind", xcause_kind_names[x->log[i].top.kind]);
		json_int(j, "cause_ns", x->log[i].top.ns);
		json_obj_close(j);
	}
	json_arr_close(j);
}

/* "0,1,3" as an array. */
static void json_cpus(struct json *j, const char *key, const char *list)
{
	const char *p = list;
	char *end;

	json_arr_open(j, key);
	while (*p) {
		long c = strtol(p, &end, 10);

		if (end == p)
			break;
		json_int(j, NULL, c);
		p = *end == ',' ? end + 1 : end;
	}
	json_arr_close(j);
}

/* Every frame as the trace shows it, and whose stack it is. */
static void json_stack(struct json *j, const struct xstack *st)
{
	int i;

	json_arr_open(j, "stack");
	for (i = 0; i < st->n; i++)
		json_str(j, NULL, st->fn[i]);
	json_arr_close(j);
	if (st->n)
		json_str(j, "stack_of", st->of);
	else
		json_null(j, "stack_of");
}

void explain_json(struct json *j, const char *key, const struct explain *x)
{
	struct xspike top[EXPLAIN_TOP];
	int i, n = sorted_top(x, top);

	json_obj_open(j, key);
	json_int(j, "cpu", x->src[0].cpu >= 0 ? x->src[0].cpu : atoi(x->cpus));
	json_cpus(j, "cpus", x->cpus);
	json_str(j, "trigger", x->over_ns ? "over" : "new maximum");
	if (x->over_ns)
		json_int(j, "over_ns", x->over_ns);
	else
		json_null(j, "over_ns");
	json_uint(j, "explained", x->explained);
	json_uint(j, "skipped", x->skipped);
	json_uint(j, "events", x->events);
	json_uint(j, "lost_pages", x->lost_pages);
	if (x->trace_out || x->save_failed)
		json_str(j, "trace_out", x->trace_out ? x->trace_out : "");
	else
		json_null(j, "trace_out");
	if (x->stack_why[0])
		json_str(j, "stack_unavailable", x->stack_why);
	else
		json_null(j, "stack_unavailable");
	json_arr_open(j, "spikes");
	for (i = 0; i < n; i++) {
		json_obj_open(j, NULL);
		json_double(j, "time_s", (double)(top[i].exp - x->start_ns) / NSEC_PER_SEC);
		json_int(j, "latency_ns", top[i].lat);
		json_int(j, "cpu", top[i].cpu);
		json_str(j, "source", x->src[top[i].src].name);
		json_int(j, "events", top[i].a.events);
		json_int(j, "steal_ms", top[i].steal_ms);
		json_causes(j, "causes", top[i].a.c, top[i].a.n);
		json_stack(j, &top[i].st);
		json_obj_close(j);
	}
	json_arr_close(j);
	json_causes(j, "where", x->total, x->ntotal);
	json_int(j, "other_ns", x->other_ns);
	json_log(j, "log", x);
	json_obj_close(j);
}
