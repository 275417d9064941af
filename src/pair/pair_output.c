// SPDX-License-Identifier: GPL-2.0-or-later
/* pair_output.c - rt-tests' text lines and JSON layout for pair tests. */
#include <math.h>
#include <stdio.h>
#include "measure/clock.h"
#include "util/json.h"
#include "pair/pair_types.h"
#include "pair/pair_output.h"
#include "harness/results.h"

long long ns_to_us_round(double ns)
{
	return (long long)llround(ns / (double)NSEC_PER_USEC);
}

static void print_pair(FILE *f, const struct pair_run *run, const struct pair *p)
{
	const struct pair_worker *s = &p->w[ROLE_SENDER];
	const struct pair_worker *r = &p->w[ROLE_RECEIVER];
	int n = p->index * 2;

	fprintf(f, "#%d: ID%d, P%d, CPU%d, I%lld; #%d: ID%d, P%d, CPU%d, ",
		n, s->tid, s->prio, s->cur_cpu,
		(long long)(p->interval_ns / NSEC_PER_USEC),
		n + 1, r->tid, r->prio, r->cur_cpu);
	if (run->ops->has_timeouts)
		fprintf(f, "TO %llu, ", (unsigned long long)p->timeouts);
	fprintf(f, "Cycles %llu\n", (unsigned long long)p->cycles);
}

static void print_stats(FILE *f, const struct pair *p)
{
	const struct stats *s = &p->lat;
	int n = p->index * 2;
	/* The live block reads while the receiver adds its first sample:
	 * n may already be 1 with min and max still at their sentinels
	 * (seen as "Min 9223372036854776" under make check-tsan). */
	bool any = s->n && s->min <= s->max;

	fprintf(f, "#%d -> #%d, Min %4lld, Cur %4lld, Avg %4lld, Max %4lld\n",
		n + 1, n,
		any ? ns_to_us_round((double)s->min) : 0,
		ns_to_us_round((double)s->last),
		ns_to_us_round(stats_mean(s)),
		any ? ns_to_us_round((double)s->max) : 0);
}

/* rt-tests' block: every pair's ID line, then every pair's stats line. */
void pair_print_block(FILE *f, const struct pair_run *run)
{
	int i;

	for (i = 0; i < run->npairs; i++)
		print_pair(f, run, &run->pairs[i]);
	for (i = 0; i < run->npairs; i++)
		print_stats(f, &run->pairs[i]);
}

static void json_worker(struct json *j, const struct pair_worker *w)
{
	json_int(j, "cpu", w->cur_cpu);
	json_int(j, "priority", w->prio);
}

static void json_pair(struct json *j, const struct pair_run *run,
		      const struct pair *p)
{
	const struct stats *s = &p->lat;

	json_obj_open(j, "sender");
	json_worker(j, &p->w[ROLE_SENDER]);
	json_uint(j, "samples", p->cycles);
	json_int(j, "interval", p->interval_ns / NSEC_PER_USEC);
	json_int(j, "tid", p->w[ROLE_SENDER].tid);
	json_obj_close(j);
	json_obj_open(j, "receiver");
	json_worker(j, &p->w[ROLE_RECEIVER]);
	if (run->ops->has_timeouts)
		json_uint(j, "timeoutcount", p->timeouts);
	json_int(j, "min", s->n ? ns_to_us_round((double)s->min) : 0);
	json_fixed(j, "avg", stats_mean(s) / NSEC_PER_USEC, 2);
	json_int(j, "max", s->n ? ns_to_us_round((double)s->max) : 0);
	json_int(j, "tid", p->w[ROLE_RECEIVER].tid);
	results_stats(j, "latency", s, NULL);
	json_obj_close(j);
}

static void json_settings(struct json *j, const struct pair_run *run)
{
	const struct pair_config *c = run->cfg;

	json_obj_open(j, "settings");
	json_str(j, "test", run->name);
	json_str(j, "mode", c->fork ? "processes" : "threads");
	json_int(j, "pairs", run->npairs);
	results_settings(j, run->opts, NULL);
	json_bool(j, "breaktrace_hit", run->shared->break_hit);
	json_obj_close(j);
}

void pair_write_json(struct pair_run *run, struct results *res)
{
	struct json *j = results_open(res, run->failed);
	char key[16];
	int i;

	if (!j) {
		/* Asked for but not written: the run did not deliver. */
		if (res->path)
			run->failed = 1;
		return;
	}
	json_int(j, "num_threads", run->npairs);
	json_obj_open(j, "thread");
	for (i = 0; i < run->npairs; i++) {
		snprintf(key, sizeof(key), "%d", i);
		json_obj_open(j, key);
		json_pair(j, run, &run->pairs[i]);
		json_obj_close(j);
	}
	json_obj_close(j);
	json_settings(j, run);
	if (run->fail_msg[0])
		json_str(j, "error", run->fail_msg);
	if (results_close(res, j) && !run->failed)
		run->failed = 1;
}
