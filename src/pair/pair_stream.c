// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * pair_stream.c - stream mode (pmq --throughput, --sizes): the sender
 * sends as fast as the mechanism takes messages, the receiver counts
 * them; the harness runs once per size (threads or, -f, processes) and
 * reports messages/s and MB/s per size.
 */
#include <errno.h>
#include <stdio.h>
#include "measure/clock.h"
#include "util/json.h"
#include "pair/pair_types.h"
#include "pair/pair_run.h"
#include "pair/pair_stream.h"
#include "harness/results.h"

/* Ready for the next size: workers, counters and flags as new. */
static void rearm(struct pair_run *run)
{
	int i;

	for (i = 0; i < run->npairs; i++) {
		struct pair *p = &run->pairs[i];

		p->cycles = 0;
		p->timeouts = 0;
		p->t_first = p->t_last = 0;
		stats_reset(&p->lat);
		hist_reset(&p->lat.hist);
		p->w[0].started = p->w[1].started = 0;
		p->w[0].finished = p->w[1].finished = 0;
		p->w[0].created = p->w[1].created = 0;
	}
	run->shared->go = 0;
	run->shared->stop = run_stop_requested;
}

static void collect(struct pair_run *run, long long size)
{
	struct pair_rate *r = &run->rates[run->nrates++];
	int i;

	r->size = size;
	r->msgs = 0;
	r->secs = 0;
	for (i = 0; i < run->npairs; i++) {
		const struct pair *p = &run->pairs[i];
		double s = (double)(p->t_last - p->t_first) / NSEC_PER_SEC;

		r->msgs += p->cycles;
		if (s > r->secs)
			r->secs = s;
	}
}

int pair_stream_measure(struct pair_run *run)
{
	int i, status = 0;

	for (i = 0; i < run->cfg->nsizes && !status && !run_stop_requested; i++) {
		if (i)
			rearm(run);
		run->ops->set_size(run, run->cfg->sizes[i]);
		status = pair_measure_once(run);
		pair_transport_close(run);
		collect(run, run->cfg->sizes[i]);
	}
	return status;
}

static double per_s(double v, double secs)
{
	return secs > 0 ? v / secs : 0;
}

static void print_rates(const struct pair_run *run)
{
	int i;

	for (i = 0; i < run->nrates; i++) {
		const struct pair_rate *r = &run->rates[i];

		printf("%s throughput: size %lld B, %s, %d pair(s): %llu msgs in %.3f s, %.0f msgs/s, %.2f MB/s\n",
		       run->name, r->size, run->cfg->fork ? "processes" : "threads",
		       run->npairs, (unsigned long long)r->msgs, r->secs,
		       per_s((double)r->msgs, r->secs),
		       per_s((double)r->msgs * (double)r->size / 1e6, r->secs));
	}
}

/* The latency test's settings a stream of messages does not use. */
static const char *const stream_unused[] = {
	"interval_us", "distance_us", "same_priority", "breaktrace_us", NULL
};

static void json_rates(struct json *j, const struct pair_run *run)
{
	int i;

	json_obj_open(j, "settings");
	json_str(j, "test", run->name);
	json_str(j, "mode", run->cfg->fork ? "processes" : "threads");
	json_int(j, "pairs", run->npairs);
	results_settings(j, run->opts, stream_unused);
	json_obj_close(j);
	json_arr_open(j, "throughput");
	for (i = 0; i < run->nrates; i++) {
		const struct pair_rate *r = &run->rates[i];

		json_obj_open(j, NULL);
		json_int(j, "size_bytes", r->size);
		json_uint(j, "messages", r->msgs);
		json_double(j, "seconds", r->secs);
		json_double(j, "messages_per_s", per_s((double)r->msgs, r->secs));
		json_double(j, "mb_per_s", per_s((double)r->msgs * (double)r->size / 1e6, r->secs));
		json_obj_close(j);
	}
	json_arr_close(j);
}

int pair_stream_report(struct test_run *t, struct pair_run *run, int status)
{
	struct json *j;

	if (status)
		run->failed = 1;
	if (t->error && !run->fail_msg[0])
		snprintf(run->fail_msg, sizeof(run->fail_msg), "%s", t->error);
	if (!run->failed && run_stop_requested && (!run->nrates || !run->rates[0].msgs)) {
		run->failed = 1;
		snprintf(run->fail_msg, sizeof(run->fail_msg),
			 "stopped by a signal before the first message");
	}
	print_rates(run);
	fflush(stdout);
	if (run->fail_msg[0])
		fprintf(stderr, "%s: %s\n", run->prog, run->fail_msg);
	j = results_open(&t->res, run->failed);
	if (j) {
		json_rates(j, run);
		if (run->fail_msg[0])
			json_str(j, "error", run->fail_msg);
		if (results_close(&t->res, j))
			run->failed = 1;
	} else if (t->res.path) {
		run->failed = 1;
	}
	return run->failed ? 1 : 0;
}
