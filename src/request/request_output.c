// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * request_output.c - what the request test prints and writes: the layout,
 * per round a banner and one line per series (stdout) or CSV lines with
 * 10 us histograms (the -l log), the summary table, and the JSON. As
 * trltp, the design's: its banner, tags, line formats and log, no layout
 * or table (what else there is to say goes to stderr).
 */
#include <stdio.h>
#include <string.h>
#include "measure/clock.h"
#include "util/json.h"
#include "request/request_types.h"
#include "request/request_client.h"
#include "request/request_output.h"
#include "harness/results.h"

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
			    bool log, char *buf, size_t len)
{
	const struct req_series_info *i = &req_series_info[s];
	const char *name = i->name;

	if (run->tg.two_hosts && i->estimate)
		name = i->estimate;
	else if (run->compat && i->design && !log)
		name = i->design;
	if (s == RS_SLEEP)
		snprintf(buf, len, run->compat ? "nanosleep(%lld Micro Sec)" :
			 "nanosleep(%lldus) Time", run->cfg->sleep_us);
	else
		snprintf(buf, len, "%s", name);
	return buf;
}

/* The design's calc() tags are 26 wide; its Total Jitter log line alone
 * is not padded. */
static const char *design_tag(const struct req_run *run, enum req_series s,
			      bool log, char *buf, size_t len)
{
	char name[48];

	req_series_name(run, s, log, name, sizeof(name));
	snprintf(buf, len, log && s == RS_JITTER ? "%s" : "%-26s", name);
	return buf;
}

int req_rounds_reported(const struct req_run *run)
{
	return run->rounds_begun;
}

/* A round ends when client 0 has its samples. */
bool req_round_partial(const struct req_run *run, int k)
{
	return req_cs(run, k, 0)->s[RS_RESPONSE].n < (uint64_t)run->cfg->samples;
}

struct fig {
	double min, avg, max, sd;
};

/* Client i's series s in round k, in us. */
static struct fig figures(const struct req_run *run, int k, int i,
			  enum req_series s)
{
	const struct stats *st = &req_cs(run, k, i)->s[s];
	struct fig f = { 0, 0, 0, 0 };
	struct req_targets tg;
	double t;

	if (!st->n)
		return f;
	req_client_targets(run, i, &tg);
	f.min = us((double)st->min);
	f.avg = us(stats_mean(st));
	f.max = us((double)st->max);
	f.sd = us(req_series_target(s, &tg, &t) ? stats_stddev_about(st, t) :
		  stats_stddev(st));
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
 * it explains stalls of tens of ms in loaded rounds. lead: "  " in the
 * layout, "trltp: " on stderr. */
static void throttling_note(FILE *f, const struct req_run *run,
			    const char *lead)
{
	long long rt = read_ll("/proc/sys/kernel/sched_rt_runtime_us");
	long long period = read_ll("/proc/sys/kernel/sched_rt_period_us");

	if (run->cfg->rounds < 2 || rt < 0 || period <= 0)
		return;
	fprintf(f, "%snote: RT throttling is on (sched_rt_runtime_us %lld of %lld): a CPU busy with loads may stall its RT tasks for up to %lld us per period\n",
		lead, rt, period, period - rt);
}

void req_print_layout(FILE *f, const struct req_run *run)
{
	const struct req_layout *l = &run->layout;
	bool local = run->mode == REQ_LOCAL;
	char lead[80];
	int i;

	if (run->compat) {
		snprintf(lead, sizeof(lead), "%s: ", run->prog);
		throttling_note(stderr, run, lead);
		return;
	}
	fprintf(f, "Layout (%s):\n", l->rule);
	fprintf(f, "  main    CPU%d SCHED_FIFO %d\n", l->main_cpu, l->main_prio);
	if (run->mode != REQ_CLIENT_ONLY)
		fprintf(f, "  server  CPU%d SCHED_FIFO %d  %s%s\n", l->server_cpu,
			l->server_prio, run->where,
			local ? " (loopback only)" : "");
	if (run->mode == REQ_SERVER_ONLY)
		return;
	if (run->orb)
		fprintf(f, "  clients CPU%d SCHED_FIFO %d..%d  %lld: client 0 %lld Hz, others %lld Hz; server threads at %s%s%s\n",
			l->client_cpu, req_client_prio(run, 0),
			req_client_prio(run, (int)run->cfg->clients - 1),
			run->cfg->clients, run->cfg->rate0_hz, run->cfg->rate_hz,
			run->cfg->server_prio_mode == REQ_PRIO_FIXED ?
			"the server's priority (fixed)" : "their client's priority",
			local ? "" : ", server ", local ? "" : run->where);
	else
		fprintf(f, "  client  CPU%d SCHED_FIFO %d  %lld Hz%s%s\n", l->client_cpu,
			l->client_prio, run->cfg->rate_hz, local ? "" : ", server ",
			local ? "" : run->where);
	fprintf(f, "  load    CPU");
	for (i = 0; i < l->nload_cpus; i++)
		fprintf(f, "%s%d", i ? "," : "", l->load_cpus[i]);
	fprintf(f, " SCHED_RR %d  up to %d process%s\n", l->load_prio,
		run->sh->rounds[run->cfg->rounds - 1].nloads,
		run->sh->rounds[run->cfg->rounds - 1].nloads == 1 ? "" : "es");
	throttling_note(f, run, "  ");
}

/* The design's banner, on stdout and in the log: round (loads) and rate. */
static void design_banner(FILE *f, const struct req_run *run, int k, int i)
{
	fprintf(f, "********************************************* \n");
	fprintf(f, "****  Low priority Client Number %4d:   **** \n",
		run->sh->rounds[k].nloads);
	fprintf(f, "****  Posix Timer Cycle %4lld Hz          **** \n",
		req_client_rate(run, i));
	fprintf(f, "********************************************* \n");
}

static void banner(FILE *f, const struct req_run *run, int k, int i)
{
	const struct req_round *r = &run->sh->rounds[k];
	uint64_t n = r->c[i].s[RS_RESPONSE].n;

	if (run->compat) {
		design_banner(f, run, k, i);
		if (!run->orb)
			return;
	}
	if (run->orb)
		fprintf(f, "=== Clients: %d, client %d (SCHED_FIFO %d), load processes: %d, POSIX timer %lld Hz (round %d of %lld, %llu samples",
			r->nclients, i, req_client_prio(run, i), r->nloads,
			req_client_rate(run, i), k + 1, run->cfg->rounds,
			(unsigned long long)n);
	else
		fprintf(f, "=== Load processes: %d, POSIX timer %lld Hz (round %d of %lld, %llu samples",
			r->nloads, run->cfg->rate_hz, k + 1, run->cfg->rounds,
			(unsigned long long)n);
	if (req_round_partial(run, k))
		fprintf(f, "; partial round, stopped before %lld", run->cfg->samples);
	fprintf(f, ") ===\n");
}

/* As trltp, what rtlat adds to the design's block goes to stderr. */
static void design_notes(const struct req_run *run, int k, int i)
{
	uint64_t n = req_cs(run, k, i)->s[RS_RESPONSE].n;
	char who[32] = "";

	if (run->orb)
		snprintf(who, sizeof(who), ", client %d", i);
	if (req_round_partial(run, k) && i == 0)
		fprintf(stderr, "%s: round %d%s: partial, stopped after %llu of %lld samples\n",
			run->prog, k, who, (unsigned long long)n, run->cfg->samples);
	if (req_cs(run, k, i)->overruns)
		fprintf(stderr, "%s: round %d%s: %llu timer overruns\n", run->prog,
			k, who, (unsigned long long)req_cs(run, k, i)->overruns);
}

/* Client i's series s of round k: its line on stdout or in the log,
 * rtlat's or (as trltp) the design's. */
static void series_line(FILE *f, const struct req_run *run, int k, int i,
			enum req_series s, bool log)
{
	static const char *const fmt[2][2] = {
		{ "%-25s  min %.1f(MicroSec) avr %.1f(MicroSec) max %.1f(MicroSec) S %.1f\n",
		  "%s,Min,%.1f,(MicroSeconds),Avr,%.1f,(MicroSeconds),Max,%.1f,(MicroSeconds),Standard deviation,%.1f\n" },
		{ "%s\tmin %8.1f(MicroSec) avr %8.1f(MicroSec) max %8.1f(MicroSec) S %8.1f\n",
		  "%s\t,Min,%8.1f,(MicroSeconds),Avr,%8.1f,(MicroSeconds),Max,%8.1f,(MicroSeconds),Standard deviation,%8.1f\n" },
	};
	struct fig g = figures(run, k, i, s);
	char name[48];

	if (run->compat)
		design_tag(run, s, log, name, sizeof(name));
	else
		req_series_name(run, s, log, name, sizeof(name));
	fprintf(f, fmt[run->compat][log], name, g.min, g.avg, g.max, g.sd);
}

static void print_client(FILE *f, const struct req_run *run, int k, int i)
{
	int s;

	banner(f, run, k, i);
	for (s = 0; s < RS_N; s++)
		if (req_series_shown(run, s))
			series_line(f, run, k, i, s, false);
	if (run->compat) {
		design_notes(run, k, i);
		return;
	}
	if (req_cs(run, k, i)->overruns)
		fprintf(f, "Timer overruns: %llu\n",
			(unsigned long long)req_cs(run, k, i)->overruns);
}

void req_print_round(FILE *f, const struct req_run *run, int k)
{
	int i;

	for (i = 0; i < run->sh->rounds[k].nclients; i++)
		print_client(f, run, k, i);
	fflush(f);
}

/*
 * Non-empty 10 us bins of a histogram of 1 us (or 10 us) buckets, as
 * "start_us,count". shift: how far the buckets start before their bin
 * (the design's, REQ_DESIGN_ROUND_NS: a value is rounded to the us).
 */
static void log_hist(FILE *f, const struct histogram *h, int64_t shift)
{
	int64_t bin = -1, b;
	uint64_t sum = 0;
	uint32_t i;

	if (h->underflow)
		fprintf(f, "Below(%lld),%llu\n",
			(long long)((h->l.origin + shift) / NSEC_PER_USEC),
			(unsigned long long)h->underflow);
	for (i = 0; i < h->l.nlinear; i++) {
		if (!h->count[i])
			continue;
		b = (hist_bucket_start(h, i) + shift) / REQ_LOG_BIN_NS;
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
	if (hist_past(h))
		fprintf(f, "Above(%lld),%llu\n",
			(long long)((hist_bucket_start(h, h->l.nlinear) + shift) / NSEC_PER_USEC),
			(unsigned long long)hist_past(h));
}

/*
 * Client i's round k in the log. As trltp the design's: its banner, then
 * per series its calc() lines: the figures, "Time(MicroSeconds),Number
 * of Times", the non-empty 10 us bins to 2 s, two blank lines (with
 * --clients, rtlat's head line after the banner says which client).
 */
static void log_client(FILE *f, const struct req_run *run, int k, int i)
{
	const struct req_round *r = &run->sh->rounds[k];
	const struct histogram *dh = req_design_hist(run, i);
	int s;

	if (run->compat)
		design_banner(f, run, k, i);
	if (!run->compat || run->orb) {
		fprintf(f, "Load processes,%d,Rate,%lld,(Hz),Samples,%llu", r->nloads,
			req_client_rate(run, i),
			(unsigned long long)r->c[i].s[RS_RESPONSE].n);
		if (run->orb)
			fprintf(f, ",Clients,%d,Client,%d,Priority,%d", r->nclients, i,
				req_client_prio(run, i));
		fprintf(f, "%s\n", req_round_partial(run, k) ? ",partial" : "");
	}
	for (s = 0; s < RS_N; s++) {
		if (!req_series_shown(run, s))
			continue;
		series_line(f, run, k, i, s, true);
		fprintf(f, "Time(MicroSeconds),Number of Times\n");
		if (dh)
			log_hist(f, &dh[s], REQ_DESIGN_ROUND_NS);
		else
			log_hist(f, &r->c[i].s[s].hist, 0);
		fprintf(f, run->compat ? "\n\n" : "\n");
	}
}

void req_log_round(FILE *f, const struct req_run *run, int k)
{
	int i;

	if (!f)
		return;
	for (i = 0; i < run->sh->rounds[k].nclients; i++)
		log_client(f, run, k, i);
	fflush(f);
}

/* The other client with the highest maximum Response Time; -1: none. */
static int worst_other(const struct req_run *run, int k)
{
	const struct req_round *r = &run->sh->rounds[k];
	int i, w = -1;

	for (i = 1; i < r->nclients; i++)
		if (r->c[i].s[RS_RESPONSE].n && (w < 0 ||
		    r->c[i].s[RS_RESPONSE].max > r->c[w].s[RS_RESPONSE].max))
			w = i;
	return w;
}

static void table_head(FILE *f, const struct req_run *run)
{
	/* -q: the table alone, without the blank line that follows rounds */
	fputs(run->cfg->quiet ? "" : "\n", f);
	if (!run->orb) {
		fprintf(f, "Summary\n%14s  %-34s  %s\n", "", "Total Jitter (MicroSec)",
			"Response Time (MicroSec)");
		fprintf(f, "%14s", "Load processes");
	} else {
		fprintf(f, "Summary: client 0, and the other client with the highest max Response Time\n");
		fprintf(f, "%22s  %-34s  %-34s  %s\n", "",
			"Client 0 Total Jitter (MicroSec)",
			"Client 0 Response Time (MicroSec)", "Worst other (MicroSec)");
		fprintf(f, "%7s %14s", "Clients", "Load processes");
	}
	fprintf(f, "  %8s %8s %8s %7s  %8s %8s %8s %7s", "min", "avr", "max", "S",
		"min", "avr", "max", "S");
	fprintf(f, run->orb ? "  %6s %10s %12s\n" : "\n", "client",
		"Jitter max", "Response max");
}

static void table_row(FILE *f, const struct req_run *run, int k)
{
	const struct req_round *r = &run->sh->rounds[k];
	struct fig j = figures(run, k, 0, RS_JITTER);
	struct fig e = figures(run, k, 0, RS_RESPONSE);
	int w = worst_other(run, k);

	if (run->orb)
		fprintf(f, "%7d ", r->nclients);
	fprintf(f, "%13d%c  %8.1f %8.1f %8.1f %7.1f  %8.1f %8.1f %8.1f %7.1f",
		r->nloads, req_round_partial(run, k) ? '*' : ' ', j.min, j.avg,
		j.max, j.sd, e.min, e.avg, e.max, e.sd);
	if (run->orb && w >= 0)
		fprintf(f, "  %6d %10.1f %12.1f", w,
			figures(run, k, w, RS_JITTER).max,
			figures(run, k, w, RS_RESPONSE).max);
	else if (run->orb)
		fprintf(f, "  %6s %10s %12s", "-", "-", "-");
	fprintf(f, "\n");
}

void req_print_table(FILE *f, const struct req_run *run)
{
	int k, n = req_rounds_reported(run);
	bool any_partial = false;

	table_head(f, run);
	for (k = 0; k < n; k++) {
		table_row(f, run, k);
		any_partial |= req_round_partial(run, k);
	}
	if (any_partial)
		fprintf(f, "* partial round\n");
	fflush(f);
}

void req_log_table(FILE *f, const struct req_run *run)
{
	int k, w, n = req_rounds_reported(run);
	struct fig j, r;

	if (!f)
		return;
	fprintf(f, "Summary\n%s", run->orb ? "Clients," : "");
	fprintf(f, "Load processes,Total Jitter Min,Total Jitter Avr,Total Jitter Max,Total Jitter Standard deviation,"
		"Response Time Min,Response Time Avr,Response Time Max,Response Time Standard deviation,Samples,Partial%s\n",
		run->orb ? ",Worst other client,Its Total Jitter Max,Its Response Time Max" : "");
	for (k = 0; k < n; k++) {
		j = figures(run, k, 0, RS_JITTER);
		r = figures(run, k, 0, RS_RESPONSE);
		w = worst_other(run, k);
		if (run->orb)
			fprintf(f, "%d,", run->sh->rounds[k].nclients);
		fprintf(f, "%d,%.1f,%.1f,%.1f,%.1f,%.1f,%.1f,%.1f,%.1f,%llu,%s",
			run->sh->rounds[k].nloads, j.min, j.avg, j.max, j.sd,
			r.min, r.avg, r.max, r.sd,
			(unsigned long long)req_cs(run, k, 0)->s[RS_RESPONSE].n,
			req_round_partial(run, k) ? "yes" : "no");
		if (run->orb && w >= 0)
			fprintf(f, ",%d,%.1f,%.1f", w, figures(run, k, w, RS_JITTER).max,
				figures(run, k, w, RS_RESPONSE).max);
		else if (run->orb)
			fprintf(f, ",,,");
		fprintf(f, "\n");
	}
	fflush(f);
}

static void json_settings(struct json *j, const struct req_run *run)
{
	const struct req_config *c = run->cfg;

	json_obj_open(j, "settings");
	json_str(j, "mode", mode_name[run->mode]);
	results_settings(j, run->opts, NULL);
	json_int(j, "period_ns", run->tg.period_ns);
	json_str(j, "server", run->where);
	json_bool(j, "two_hosts", run->tg.two_hosts);
	json_int(j, "max_clients", run->server ? run->server->max_clients :
		 run->max_clients_given ? c->max_clients : c->clients);
	if (run->orb) {
		json_int(j, "clients", c->clients);
		json_int(j, "rate0_hz", c->rate0_hz);
		json_bool(j, "clients_sweep", c->sweep);
	}
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

/* One client's figures of round k: what a round holds in single mode. */
static void json_client(struct json *j, const struct req_run *run, int k,
			int i)
{
	const struct req_cstat *c = req_cs(run, k, i);
	struct req_targets tg;
	double t;
	int s;

	req_client_targets(run, i, &tg);
	json_uint(j, "samples", c->s[RS_RESPONSE].n);
	json_bool(j, "partial", req_round_partial(run, k));
	json_uint(j, "timer_overruns", c->overruns);
	json_obj_open(j, "series");
	for (s = 0; s < RS_N; s++)
		results_stats(j, req_series_info[s].key, &c->s[s],
			      req_series_target(s, &tg, &t) ? &t : NULL);
	json_obj_close(j);
	if (run->tg.two_hosts) {
		json_arr_open_inline(j, "estimates");
		json_str(j, NULL, "send");
		json_str(j, NULL, "receive");
		json_arr_close(j);
	}
}

static void json_clients(struct json *j, const struct req_run *run, int k)
{
	const struct req_round *r = &run->sh->rounds[k];
	int i;

	json_int(j, "clients", r->nclients);
	json_int(j, "worst_other_client", worst_other(run, k));
	json_arr_open(j, "per_client");
	for (i = 0; i < r->nclients; i++) {
		json_obj_open(j, NULL);
		json_int(j, "client", i);
		json_int(j, "priority", req_client_prio(run, i));
		json_int(j, "rate_hz", req_client_rate(run, i));
		json_client(j, run, k, i);
		json_obj_close(j);
	}
	json_arr_close(j);
}

static void json_round(struct json *j, const struct req_run *run, int k)
{
	json_obj_open(j, NULL);
	json_int(j, "round", k);
	json_int(j, "load_processes", run->sh->rounds[k].nloads);
	if (run->orb)
		json_clients(j, run, k);
	else
		json_client(j, run, k, 0);
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
