// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * timer_output.c - what "rtlat timer" writes: Xenomai latency's banner,
 * RTT/RTH/RTD/RTS lines and HSD/HSH/HSS histograms, its gnuplot file,
 * cyclictest's -h histogram layout (--histfile) and the JSON result.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include "measure/clock.h"
#include "util/json.h"
#include "harness/results.h"
#include "system/outfile.h"
#include "system/tracefs.h"
#include "timer/timer_output.h"
#include "timer/timer_summary.h"

const char *const timer_mode_names[] = {
	"periodic user-mode task", "in-kernel periodic task",
	"in-kernel timer handler",
	"user task on timerlat's wake-ups (timerlat_fd)",
};

static double us(double ns)
{
	return ns / (double)NSEC_PER_USEC;
}

void hms(char *buf, size_t len, long long s)
{
	snprintf(buf, len, "%02lld:%02lld:%02lld", s / 3600, (s / 60) % 60, s % 60);
}

/* Several CPUs: which one a line is (nothing with one, Xenomai's text). */
static void cpu_tag(FILE *f, const struct timer_cpu *c)
{
	if (c->run->ncpu > 1)
		fprintf(f, "|CPU%d", c->cpu);
	fputc('\n', f);
}

void timer_banner(FILE *f, const struct timer_run *run)
{
	int i;

	fprintf(f, "== Sampling period: %lld us\n", run->cfg->period_us);
	fprintf(f, "== Test mode: %s\n", timer_mode_names[run->cfg->mode]);
	if (run->ncpu > 1) {
		fprintf(f, "== CPUs:");
		for (i = 0; i < run->ncpu; i++)
			fprintf(f, "%s%d", i ? "," : " ", run->cpu[i].cpu);
		fprintf(f, " (a sampler on each)\n");
	}
	fprintf(f, "== All results in microseconds\n");
	if (!run->face.no_warmup)	/* rtlat deadline counts from the first */
		fprintf(f, "warming up...\n");
}

static void print_header(FILE *f, const struct timer_run *run, uint64_t sec)
{
	char t[32];

	hms(t, sizeof(t), (long long)sec);
	fprintf(f, "RTT|  %s  (%s, %lld us period, priority %lld)\n", t,
		timer_mode_names[run->cfg->mode], run->cfg->period_us, run->cfg->prio);
	fprintf(f, "RTH|%11s|%11s|%11s|%8s|%6s|%11s|%11s\n", "----lat min",
		"----lat avg", "----lat max", "-overrun", "---msw",
		"---lat best", "--lat worst");
}

/* nth: RTD lines printed before this one (a header every -l lines). */
void timer_print_second(FILE *f, const struct timer_cpu *c,
			const struct timer_second *s, uint64_t nth)
{
	const struct timer_run *run = c->run;

	if (run->cfg->lines && nth % (uint64_t)run->cfg->lines == 0)
		print_header(f, run, s->index);
	fprintf(f, "RTD|%11.3f|%11.3f|%11.3f|%8llu|%6llu|%11.3f|%11.3f",
		us((double)s->min), us((double)second_avg(s)), us((double)s->max),
		(unsigned long long)s->overruns, (unsigned long long)s->msw,
		us((double)c->sum.min), us((double)c->sum.max));
	cpu_tag(f, c);
}

uint64_t xeno_cell(const struct histogram *h, uint32_t n)
{
	uint64_t c = h->count[n];

	if (n + 1 == h->l.nlinear)
		c += hist_past(h);	/* the last cell takes the overflow */
	return c;
}

void xeno_hist_stats(const struct histogram *h, uint64_t *count,
		     double *avg, double *stddev)
{
	double sum = 0.0, var = 0.0, d;
	uint64_t total = 0, c;
	uint32_t n;

	for (n = 0; n < h->l.nlinear; n++) {
		c = xeno_cell(h, n);
		total += c;
		sum += (double)n * (double)c;
	}
	*count = total;
	*avg = total ? sum / (double)total : 0.0;
	for (n = 0; n < h->l.nlinear; n++) {
		d = (double)n - *avg;
		var += (double)xeno_cell(h, n) * d * d;
	}
	/* Unbiased form, as the original; 0 below two samples. */
	*stddev = total > 1 ? sqrt(var / (double)(total - 1)) : 0.0;
}

static void print_cells(FILE *f, const struct histogram *h, const char *kind)
{
	uint64_t c;
	uint32_t n;

	fprintf(f, "---|--param|----range-|--samples\n");
	for (n = 0; n < h->l.nlinear; n++) {
		c = xeno_cell(h, n);
		if (c)
			fprintf(f, "HSD|    %s| %3u -%3u | %8llu\n", kind, n, n + 1,
				(unsigned long long)c);
	}
}

static void print_hss(FILE *f, const struct histogram *h, const char *kind)
{
	uint64_t count;
	double avg, sd;

	xeno_hist_stats(h, &count, &avg, &sd);
	fprintf(f, "HSS|    %s| %9llu| %10.3f| %10.3f\n", kind,
		(unsigned long long)count, avg, sd);
}

/* Max last, where it is seen without scrolling. */
static void print_hist(FILE *f, const struct timer_cpu *c)
{
	const struct timer_config *cfg = c->run->cfg;

	if (c->run->ncpu > 1)
		fprintf(f, "== CPU%d\n", c->cpu);
	if (cfg->hist) {
		print_cells(f, &c->sum.hmin, "min");
		print_cells(f, &c->avg, "avg");
		print_cells(f, &c->sum.hmax, "max");
	}
	fprintf(f, "HSH|--param|--samples-|--average--|---stddev--\n");
	print_hss(f, &c->sum.hmin, "min");
	print_hss(f, &c->avg, "avg");
	print_hss(f, &c->sum.hmax, "max");
}

/* -h: cells then statistics; -s: statistics only; per CPU. */
void timer_print_hist(FILE *f, const struct timer_run *run)
{
	int i;

	if (!run->cfg->hist && !run->cfg->stats)
		return;
	for (i = 0; i < run->ncpu; i++)
		print_hist(f, &run->cpu[i]);
}

static double best(const struct timer_summary *t)
{
	return t->seconds ? us((double)t->min) : 0.0;
}

static double worst(const struct timer_summary *t)
{
	return t->seconds ? us((double)t->max) : 0.0;
}

static void print_rts(FILE *f, const struct timer_summary *t, const char *a,
		      const char *r)
{
	fprintf(f, "RTS|%11.3f|%11.3f|%11.3f|%8llu|%6llu|    %s/%s",
		best(t), us(summary_avg(t)), worst(t),
		(unsigned long long)t->overruns, (unsigned long long)t->msw, a, r);
}

/* The CPU whose worst second is the worst of all. */
int timer_worst_cpu(const struct timer_run *run)
{
	int i, w = 0;

	for (i = 1; i < run->ncpu; i++)
		if (run->cpu[i].sum.seconds &&
		    (!run->cpu[w].sum.seconds || run->cpu[i].sum.max > run->cpu[w].sum.max))
			w = i;
	return run->cpu[w].cpu;
}

/* -f: where the trace of the largest maximum is. */
void timer_freeze_report(const struct timer_run *run)
{
	uint64_t snaps = 0;
	int64_t max = 0;
	int i;

	for (i = 0; i < run->ncpu; i++) {
		snaps += run->cpu[i].snapshots;
		if (run->cpu[i].frozen_ns > max)
			max = run->cpu[i].frozen_ns;
	}
	if (snaps)
		fprintf(stderr, "%s: -f: %llu new maxima, each a trace snapshot; %s/snapshot holds the largest's, %.3f us\n",
			run->prog, (unsigned long long)snaps, tracefs_dir(),
			(double)max / NSEC_PER_USEC);
	else if (max)
		fprintf(stderr, "%s: -f: tracing stopped at a new maximum of %.3f us\n",
			run->prog, (double)max / NSEC_PER_USEC);
}

/* rtlat timer's (not latency's): the run's jitter, lat max - lat min of
 * what RTS reports, before the dashes so that RTS stays the last line. */
void timer_print_jitter(FILE *f, const struct timer_run *run)
{
	const struct timer_summary *t = &run->whole->sum;

	fprintf(f, "== Jitter (lat max - lat min): %.3f us\n", worst(t) - best(t));
}

/* One CPU: Xenomai's line. Several: one per CPU, then all of them. */
void timer_print_rts(FILE *f, const struct timer_run *run,
		     long long actual_s, long long requested_s)
{
	char a[32], r[32];
	int i;

	hms(a, sizeof(a), actual_s);
	hms(r, sizeof(r), requested_s);
	fprintf(f, "---|-----------|-----------|-----------|--------|------|-------------------------\n");
	for (i = 0; i < run->ncpu; i++) {
		print_rts(f, &run->cpu[i].sum, a, r);
		if (run->ncpu > 1 && run->cpu[i].moved)
			fprintf(f, "|CPU%d lost after %llu s\n", run->cpu[i].cpu,
				(unsigned long long)run->cpu[i].moved_s);
		else
			cpu_tag(f, &run->cpu[i]);
	}
	if (run->ncpu == 1)
		return;
	print_rts(f, &run->whole->sum, a, r);
	fprintf(f, "|all, worst CPU%d\n", timer_worst_cpu(run));
}

static void gnuplot_rows(FILE *f, const struct histogram *h, double bucket_us)
{
	uint32_t n, first = h->l.nlinear, last = 0;

	for (n = 0; n < h->l.nlinear; n++) {
		if (!xeno_cell(h, n))
			continue;
		if (first == h->l.nlinear)
			first = n;
		last = n;
	}
	if (first == h->l.nlinear)
		return;		/* nothing measured */
	/* Counts + 1 and a 1 on either side, so a log scale draws it. */
	fprintf(f, "%g 1\n", first * bucket_us);
	for (n = first; n <= last; n++)
		fprintf(f, "%g %llu\n", (n + 0.5) * bucket_us,
			(unsigned long long)xeno_cell(h, n) + 1);
	fprintf(f, "%g 1\n", (last + 1) * bucket_us);
}

static void gnuplot(FILE *f, const struct timer_run *run, long long actual_s)
{
	const struct timer_summary *t = &run->whole->sum;
	char d[32];

	hms(d, sizeof(d), actual_s);
	fprintf(f, "# %s (%s, %lld us period, priority %lld)\n", d,
		timer_mode_names[run->cfg->mode], run->cfg->period_us, run->cfg->prio);
	fprintf(f, "# %11s|%11s|%11s|%8s|%6s|\n", "----lat min", "----lat avg",
		"----lat max", "-overrun", "---msw");
	fprintf(f, "# %11.3f|%11.3f|%11.3f|%8llu|%6llu|\n", best(t),
		us(summary_avg(t)), worst(t), (unsigned long long)t->overruns,
		(unsigned long long)t->msw);
	gnuplot_rows(f, &run->whole->avg, (double)run->cfg->bucket_ns / NSEC_PER_USEC);
}

/* Write one output file by the shared rule (outfile.h). */
static int write_file(const struct timer_run *run, const char *what,
		      const char *path,
		      void (*fn)(FILE *f, const struct timer_run *run, long long arg),
		      long long arg)
{
	struct outfile of;
	FILE *f = outfile_open(&of, run->prog, what, path);

	if (!f)
		return -1;
	fn(f, run, arg);
	return outfile_close(&of, run->prog);
}

int timer_write_gnuplot(const struct timer_run *run, long long actual_s)
{
	if (!run->cfg->gnuplot)
		return 0;
	return write_file(run, "-g", run->cfg->gnuplot, gnuplot, actual_s);
}

/* µs, truncated toward zero as cyclictest's integer microseconds. */
static long long us_trunc(double ns)
{
	return (long long)(ns / (double)NSEC_PER_USEC);
}

/* Row i's count: its 1 us of buckets (early wake-ups, which the kernel's
 * timers never produce, counted in row 0). */
static uint64_t us_row(const struct histogram *h, uint32_t i, uint32_t per_us)
{
	uint64_t row = i ? 0 : h->underflow;
	uint32_t k;

	for (k = i; k < i + per_us && k < h->l.nlinear; k++)
		row += h->count[k];
	return row;
}

/* "# Name:" and a figure per column; with all (-H) the figure of them
 * all after, its sum or with max its maximum. cyclictest gives Total, Max
 * and Overflows that column, not Min and Avg. */
static void foot(FILE *f, const char *name, const long long *v, int n, int width,
		 bool all, bool max)
{
	long long w = 0;
	int j;

	fprintf(f, "# %s:", name);
	for (j = 0; j < n; j++) {
		fprintf(f, " %0*lld", width, v[j]);
		w = max ? (v[j] > w ? v[j] : w) : w + v[j];
	}
	if (all)
		fprintf(f, " %0*lld", width, w);
	fputc('\n', f);
}

/* Overflow cycle numbers as cyclictest lists them (those kept, then how
 * many more). */
static void over_cycles(FILE *f, const struct timer_cpu *c, int j)
{
	uint64_t k, kept = c->nover < c->run->face.over_max ? c->nover : c->run->face.over_max;

	fprintf(f, "# Thread %d:", j);
	for (k = 0; c->over_cycle && k < kept; k++)
		fprintf(f, " %05llu", (unsigned long long)c->over_cycle[k]);
	if (c->nover > kept)
		fprintf(f, " # %05llu others", (unsigned long long)(c->nover - kept));
	fputc('\n', f);
}

static void histfile_foot(FILE *f, const struct timer_cpu *const *c, int n,
			  const long long *total, bool all)
{
	long long v[TIMER_MAX_CPUS] = { 0 };
	int j;

	foot(f, "Total", total, n, 9, all, false);
	for (j = 0; j < n; j++)
		v[j] = c[j]->all.n ? us_trunc((double)c[j]->all.min) : 0;
	foot(f, "Min Latencies", v, n, 5, false, false);
	for (j = 0; j < n; j++)
		v[j] = us_trunc(stats_mean(&c[j]->all));
	foot(f, "Avg Latencies", v, n, 5, false, false);
	for (j = 0; j < n; j++)
		v[j] = c[j]->all.n ? us_trunc((double)c[j]->all.max) : 0;
	foot(f, "Max Latencies", v, n, 5, all, true);
	for (j = 0; j < n; j++)
		v[j] = (long long)hist_past(&c[j]->all.hist);
	foot(f, "Histogram Overflows", v, n, 5, all, false);
	fprintf(f, "# Histogram Overflow at cycle number:\n");
	for (j = 0; j < n; j++)
		over_cycles(f, c[j], j);
	fputc('\n', f);	/* cyclictest ends it with an empty line */
}

/*
 * cyclictest's -h layout (as rt-tests 2.4 writes it): one row per 1 us
 * bucket, empty ones included, a column per thread (here per sampler,
 * tab-separated; with all, -H's column of them all), then its summary
 * comments.
 */
void timer_histfile(FILE *f, const struct timer_cpu *const *c, int n, bool all)
{
	const struct histogram *h0 = &c[0]->all.hist;
	uint32_t per_us = (uint32_t)(NSEC_PER_USEC / (int64_t)h0->l.unit);
	long long total[TIMER_MAX_CPUS] = { 0 };
	uint64_t row, sum;
	uint32_t i;
	int j;

	fprintf(f, "# Histogram\n");
	for (i = 0; i < h0->l.nlinear; i += per_us) {
		fprintf(f, "%06u ", i / per_us);
		for (j = 0, sum = 0; j < n; j++) {
			row = us_row(&c[j]->all.hist, i, per_us);
			total[j] += (long long)row;
			sum += row;
			fprintf(f, "%s%06llu", j ? "\t" : "", (unsigned long long)row);
		}
		if (all)
			fprintf(f, "\t%06llu", (unsigned long long)sum);
		fputc('\n', f);
	}
	histfile_foot(f, c, n, total, all);
}

static void histfile(FILE *f, const struct timer_run *run, long long arg)
{
	const struct timer_cpu *c[TIMER_MAX_CPUS] = { &run->cpu[0] };
	int j;

	(void)arg;
	for (j = 0; j < run->ncpu; j++)
		c[j] = &run->cpu[j];
	timer_histfile(f, c, run->ncpu, false);
}

int timer_write_histfile(const struct timer_run *run)
{
	if (!run->cfg->histfile)
		return 0;
	return write_file(run, "--histfile", run->cfg->histfile, histfile, 0);
}
