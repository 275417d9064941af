// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * request_output.c - what the request test prints and writes: the layout,
 * per round a banner and one line per series (stdout) or CSV lines with
 * 10 us histograms (the -l log), the summary table, and the JSON.
 */
#include <stdio.h>
#include <string.h>
#include "clock.h"
#include "json.h"
#include "request.h"
#include "results.h"

static const char *const mode_name[] = {
	[REQ_LOCAL] = "local", [REQ_CLIENT_ONLY] = "client",
	[REQ_SERVER_ONLY] = "server",
};

static double us(double ns)
{
	return ns / (double)NSEC_PER_USEC;
}

bool req_series_shown(const struct req_run *run, enum req_series s)
{
	return s != RS_ROUNDTRIP || run->tg.two_hosts;
}

const char *req_series_name(const struct req_run *run, enum req_series s,
			    char *buf, size_t len)
{
	const struct req_series_info *i = &req_series_info[s];

	if (s == RS_SLEEP)
		snprintf(buf, len, "nanosleep(%lldus) Time", run->cfg.sleep_us);
	else
		snprintf(buf, len, "%s", run->tg.two_hosts && i->estimate ?
			 i->estimate : i->name);
	return buf;
}

int req_rounds_reported(const struct req_run *run)
{
	return run->rounds_begun;
}

bool req_round_partial(const struct req_run *run, int k)
{
	return run->sh->rounds[k].s[RS_RESPONSE].n < (uint64_t)run->cfg.samples;
}

static double stddev_of(const struct req_run *run, enum req_series s,
			const struct stats *st)
{
	double t;

	return req_series_target(s, &run->tg, &t) ? stats_stddev_about(st, t) :
	       stats_stddev(st);
}

struct fig {
	double min, avg, max, sd;
};

static struct fig figures(const struct req_run *run, int k, enum req_series s)
{
	const struct stats *st = &run->sh->rounds[k].s[s];
	struct fig f = { 0, 0, 0, 0 };

	if (!st->n)
		return f;
	f.min = us((double)st->min);
	f.avg = us(stats_mean(st));
	f.max = us((double)st->max);
	f.sd = us(stddev_of(run, s, st));
	return f;
}

static long long read_ll(const char *path)
{
	long long v = -1;
	FILE *f = fopen(path, "r");

	if (f) {
		if (fscanf(f, "%lld", &v) != 1)
			v = -1;
		fclose(f);
	}
	return v;
}

/* Loads are RT tasks that never sleep: with RT throttling on, the CPU
 * they share with the client is throttled, client included. Say so, as
 * it explains stalls of tens of ms in loaded rounds. */
static void throttling_note(FILE *f, const struct req_run *run)
{
	long long rt = read_ll("/proc/sys/kernel/sched_rt_runtime_us");
	long long period = read_ll("/proc/sys/kernel/sched_rt_period_us");

	if (run->cfg.rounds < 2 || rt < 0 || period <= 0)
		return;
	fprintf(f, "  note: RT throttling is on (sched_rt_runtime_us %lld of %lld): a CPU busy with loads may stall its RT tasks for up to %lld us per period\n",
		rt, period, period - rt);
}

void req_print_layout(FILE *f, const struct req_run *run)
{
	const struct req_layout *l = &run->layout;
	bool local = run->mode == REQ_LOCAL;
	int i;

	fprintf(f, "Layout (%s):\n", l->rule);
	fprintf(f, "  main    CPU%d SCHED_FIFO %d\n", l->main_cpu, l->main_prio);
	if (run->mode != REQ_CLIENT_ONLY)
		fprintf(f, "  server  CPU%d SCHED_FIFO %d  %s%s\n", l->server_cpu,
			l->server_prio, run->where,
			local ? " (loopback only)" : "");
	if (run->mode == REQ_SERVER_ONLY)
		return;
	fprintf(f, "  client  CPU%d SCHED_FIFO %d  %lld Hz%s%s\n", l->client_cpu,
		l->client_prio, run->cfg.rate_hz, local ? "" : ", server ",
		local ? "" : run->where);
	fprintf(f, "  load    CPU");
	for (i = 0; i < l->nload_cpus; i++)
		fprintf(f, "%s%d", i ? "," : "", l->load_cpus[i]);
	fprintf(f, " SCHED_RR %d  up to %lld process%s\n", l->load_prio,
		run->cfg.rounds - 1, run->cfg.rounds == 2 ? "" : "es");
	throttling_note(f, run);
}

static void banner(FILE *f, const struct req_run *run, int k)
{
	uint64_t n = run->sh->rounds[k].s[RS_RESPONSE].n;

	fprintf(f, "=== Load processes: %d, POSIX timer %lld Hz (round %d of %lld, %llu samples",
		k, run->cfg.rate_hz, k + 1, run->cfg.rounds,
		(unsigned long long)n);
	if (req_round_partial(run, k))
		fprintf(f, "; partial round, stopped before %lld", run->cfg.samples);
	fprintf(f, ") ===\n");
}

void req_print_round(FILE *f, const struct req_run *run, int k)
{
	char name[48];
	struct fig g;
	int s;

	banner(f, run, k);
	for (s = 0; s < RS_N; s++) {
		if (!req_series_shown(run, s))
			continue;
		g = figures(run, k, s);
		fprintf(f, "%-25s  min %.1f(MicroSec) avr %.1f(MicroSec) max %.1f(MicroSec) S %.1f\n",
			req_series_name(run, s, name, sizeof(name)),
			g.min, g.avg, g.max, g.sd);
	}
	if (run->sh->rounds[k].overruns)
		fprintf(f, "Timer overruns: %llu\n",
			(unsigned long long)run->sh->rounds[k].overruns);
	fflush(f);
}

/* Non-empty 10 us bins of a 1 us histogram, as "start_us,count". */
static void log_hist(FILE *f, const struct histogram *h)
{
	int64_t bin = -1, b;
	uint64_t sum = 0;
	uint32_t i;

	if (h->underflow)
		fprintf(f, "Below(%lld),%llu\n", (long long)(h->origin / NSEC_PER_USEC),
			(unsigned long long)h->underflow);
	for (i = 0; i < h->nbuckets; i++) {
		if (!h->count[i])
			continue;
		b = hist_bucket_start(h, i) / REQ_LOG_BIN_NS;
		if (b != bin && sum)
			fprintf(f, "%lld,%llu\n", (long long)(bin * REQ_LOG_BIN_NS / NSEC_PER_USEC),
				(unsigned long long)sum);
		if (b != bin)
			sum = 0;
		bin = b;
		sum += h->count[i];
	}
	if (sum)
		fprintf(f, "%lld,%llu\n", (long long)(bin * REQ_LOG_BIN_NS / NSEC_PER_USEC),
			(unsigned long long)sum);
	if (h->overflow)
		fprintf(f, "Above(%lld),%llu\n",
			(long long)(hist_bucket_start(h, h->nbuckets) / NSEC_PER_USEC),
			(unsigned long long)h->overflow);
}

void req_log_round(FILE *f, const struct req_run *run, int k)
{
	char name[48];
	struct fig g;
	int s;

	if (!f)
		return;
	fprintf(f, "Load processes,%d,Rate,%lld,(Hz),Samples,%llu%s\n", k,
		run->cfg.rate_hz,
		(unsigned long long)run->sh->rounds[k].s[RS_RESPONSE].n,
		req_round_partial(run, k) ? ",partial" : "");
	for (s = 0; s < RS_N; s++) {
		if (!req_series_shown(run, s))
			continue;
		g = figures(run, k, s);
		fprintf(f, "%s,Min,%.1f,(MicroSeconds),Avr,%.1f,(MicroSeconds),Max,%.1f,(MicroSeconds),Standard deviation,%.1f\n",
			req_series_name(run, s, name, sizeof(name)),
			g.min, g.avg, g.max, g.sd);
		fprintf(f, "Time(MicroSeconds),Number of Times\n");
		log_hist(f, &run->sh->rounds[k].s[s].hist);
		fprintf(f, "\n");
	}
	fflush(f);
}

void req_print_table(FILE *f, const struct req_run *run)
{
	int k, n = req_rounds_reported(run);
	bool any_partial = false;
	struct fig j, r;

	fprintf(f, "\nSummary\n%14s  %-34s  %s\n", "", "Total Jitter (MicroSec)",
		"Response Time (MicroSec)");
	fprintf(f, "%14s  %8s %8s %8s %7s  %8s %8s %8s %7s\n", "Load processes",
		"min", "avr", "max", "S", "min", "avr", "max", "S");
	for (k = 0; k < n; k++) {
		bool partial = req_round_partial(run, k);

		j = figures(run, k, RS_JITTER);
		r = figures(run, k, RS_RESPONSE);
		fprintf(f, "%13d%c  %8.1f %8.1f %8.1f %7.1f  %8.1f %8.1f %8.1f %7.1f\n",
			k, partial ? '*' : ' ', j.min, j.avg, j.max, j.sd,
			r.min, r.avg, r.max, r.sd);
		any_partial |= partial;
	}
	if (any_partial)
		fprintf(f, "* partial round\n");
	fflush(f);
}

void req_log_table(FILE *f, const struct req_run *run)
{
	int k, n = req_rounds_reported(run);
	struct fig j, r;

	if (!f)
		return;
	fprintf(f, "Summary\n");
	fprintf(f, "Load processes,Total Jitter Min,Total Jitter Avr,Total Jitter Max,Total Jitter Standard deviation,"
		"Response Time Min,Response Time Avr,Response Time Max,Response Time Standard deviation,Samples,Partial\n");
	for (k = 0; k < n; k++) {
		j = figures(run, k, RS_JITTER);
		r = figures(run, k, RS_RESPONSE);
		fprintf(f, "%d,%.1f,%.1f,%.1f,%.1f,%.1f,%.1f,%.1f,%.1f,%llu,%s\n",
			k, j.min, j.avg, j.max, j.sd, r.min, r.avg, r.max, r.sd,
			(unsigned long long)run->sh->rounds[k].s[RS_RESPONSE].n,
			req_round_partial(run, k) ? "yes" : "no");
	}
	fflush(f);
}

static void json_settings(struct json *j, const struct req_run *run)
{
	const struct req_config *c = &run->cfg;

	json_obj_open(j, "settings");
	json_str(j, "mode", mode_name[run->mode]);
	json_int(j, "rate_hz", c->rate_hz);
	json_int(j, "period_ns", run->tg.period_ns);
	json_int(j, "rounds", c->rounds);
	json_int(j, "samples", c->samples);
	json_int(j, "sleep_us", c->sleep_us);
	json_int(j, "port", c->port);
	json_str(j, "server", run->where);
	json_bool(j, "async", c->async);
	json_bool(j, "two_hosts", run->tg.two_hosts);
	json_int(j, "server_idle_timeout_s", c->timeout_s);
	json_obj_close(j);
}

static void json_proc(struct json *j, const char *key, int cpu,
		      const char *policy, int prio)
{
	json_obj_open(j, key);
	json_int(j, "cpu", cpu);
	json_str(j, "policy", policy);
	json_int(j, "priority", prio);
	json_obj_close(j);
}

static void json_layout(struct json *j, const struct req_run *run)
{
	const struct req_layout *l = &run->layout;
	int i;

	json_obj_open(j, "layout");
	json_str(j, "rule", l->rule);
	if (run->mode != REQ_CLIENT_ONLY)
		json_proc(j, "server", l->server_cpu, "SCHED_FIFO", l->server_prio);
	if (run->mode == REQ_SERVER_ONLY) {
		json_obj_close(j);
		return;
	}
	json_proc(j, "main", l->main_cpu, "SCHED_FIFO", l->main_prio);
	json_proc(j, "client", l->client_cpu, "SCHED_FIFO", l->client_prio);
	json_obj_open(j, "load");
	json_arr_open_inline(j, "cpus");
	for (i = 0; i < l->nload_cpus; i++)
		json_int(j, NULL, l->load_cpus[i]);
	json_arr_close(j);
	json_str(j, "policy", "SCHED_RR");
	json_int(j, "priority", l->load_prio);
	json_obj_close(j);
	json_obj_close(j);
}

static void json_round(struct json *j, const struct req_run *run, int k)
{
	const struct req_round *r = &run->sh->rounds[k];
	double t;
	int s;

	json_obj_open(j, NULL);
	json_int(j, "round", k);
	json_int(j, "load_processes", k);
	json_uint(j, "samples", r->s[RS_RESPONSE].n);
	json_bool(j, "partial", req_round_partial(run, k));
	json_uint(j, "timer_overruns", r->overruns);
	json_obj_open(j, "series");
	for (s = 0; s < RS_N; s++)
		results_stats(j, req_series_info[s].key, &r->s[s],
			      req_series_target(s, &run->tg, &t) ? &t : NULL);
	json_obj_close(j);
	if (run->tg.two_hosts) {
		json_arr_open_inline(j, "estimates");
		json_str(j, NULL, "send");
		json_str(j, NULL, "receive");
		json_arr_close(j);
	}
	json_obj_close(j);
}

void req_write_json(struct req_run *run, struct results *res)
{
	struct json *j = results_open(res, run->failed);
	int k;

	if (!j) {
		/* Asked for but not written: the run did not deliver. */
		if (res->path)
			run->failed = 1;
		return;
	}
	json_obj_open(j, "request");
	json_settings(j, run);
	json_layout(j, run);
	if (run->server) {
		json_obj_open(j, "server");
		json_uint(j, "requests", run->server->served);
		json_uint(j, "connections", run->server->connections);
		json_uint(j, "refused", run->server->refused);
		json_uint(j, "closed_on_errors", run->server->errors);
		json_obj_close(j);
	}
	json_arr_open(j, "rounds");
	for (k = 0; run->sh && k < req_rounds_reported(run); k++)
		json_round(j, run, k);
	json_arr_close(j);
	json_obj_close(j);
	if (run->fail_msg[0])
		json_str(j, "error", run->fail_msg);
	if (results_close(res, j) && !run->failed)
		run->failed = 1;
}
