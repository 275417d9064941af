// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * fleet_out.c - the fleet outputs of the series kept in fleet.c: JUnit XML
 * (GitLab, Jenkins, GitHub Actions), the Prometheus/OpenMetrics text format
 * (node_exporter's textfile collector); LAVA's lines are fleet_lava.c's.
 * The files go through outfile.c: temp file and rename.
 */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include "fleet/fleet.h"
#include "system/outfile.h"
#include "system/sysinfo.h"
#include "util/version.h"

static void xml_escape(FILE *f, const char *s)
{
	for (; *s; s++) {
		switch (*s) {
		case '<': fputs("&lt;", f); break;
		case '>': fputs("&gt;", f); break;
		case '&': fputs("&amp;", f); break;
		case '"': fputs("&quot;", f); break;
		default: fputc(*s, f); break;
		}
	}
}

/*
 * A case's <failure>, <error> or <skipped>: the message both as the
 * attribute and as the text, since readers show one or the other (GitLab
 * the text: without it, the element's attributes as a hash).
 */
static void junit_result(FILE *f, const char *elem, const char *type,
			 const char *msg)
{
	fprintf(f, "      <%s ", elem);
	if (type)
		fprintf(f, "type=\"%s\" ", type);
	fputs("message=\"", f);
	xml_escape(f, msg);
	fputs("\">", f);
	xml_escape(f, msg);
	fprintf(f, "</%s>\n", elem);
}

/* "latency", or a thread's part "latency.t1". */
static void case_name(char *buf, size_t len, const struct fleet_rec *r)
{
	if (r->thread >= 0)
		snprintf(buf, len, "%s.t%d", r->series, r->thread);
	else
		snprintf(buf, len, "%s", r->series);
}

/*
 * A case per series (and per thread): its figures in <system-out>, where
 * the Jenkins/Ant schema (junit-10.xsd) lets a case carry text; the time
 * is the test's own, from its start to its figures.
 */
static void junit_case(const struct fleet *fl, FILE *f, int i)
{
	const struct fleet_rec *r = fleet_get(fl, i);
	struct fleet_judged v;
	char name[48];

	fleet_judge(fl, i, &v);
	case_name(name, sizeof(name), r);
	fprintf(f, "    <testcase classname=\"rtlat.");
	xml_escape(f, r->test);
	fprintf(f, "\" name=\"");
	xml_escape(f, name);
	fprintf(f, "\" time=\"%.3f\">\n", r->secs);
	if (v.error)
		junit_result(f, "error", FLEET_ERROR_TYPE, v.error);
	else if (v.failure)
		junit_result(f, "failure", v.failure, v.why);
	else if (!r->n)
		junit_result(f, "skipped", NULL, FLEET_NO_SAMPLE);
	fprintf(f, "      <system-out>samples %llu\n", (unsigned long long)r->n);
	if (r->cpu >= 0)
		fprintf(f, "cpu %d\n", r->cpu);
	if (!r->n) {
		/* No figure: min, max... of nothing would be made up. */
		fprintf(f, "</system-out>\n    </testcase>\n");
		return;
	}
	fprintf(f, "min_us %.3f\navg_us %.3f\np99_us %.3f\np99.99_us %.3f\nmax_us %.3f\nworst_us %.3f\n",
		r->min / 1e3, r->avg / 1e3, r->p99 / 1e3, r->p9999 / 1e3,
		r->max / 1e3, v.worst_ns / 1e3);
	if (v.base_ns >= 0)
		fprintf(f, "baseline_max_us %.3f\n", v.base_ns / 1e3);
	fprintf(f, "</system-out>\n    </testcase>\n");
}

static void xml_prop(FILE *f, const char *name, const char *value)
{
	fprintf(f, "      <property name=\"%s\" value=\"", name);
	xml_escape(f, value ? value : "");
	fprintf(f, "\"/>\n");
}

/* What a run is compared by: at suite level, as the schema wants. */
static void junit_props(const struct fleet *fl, FILE *f)
{
	const struct fleet_opts *o = fl->opts;
	struct utsname u;

	if (uname(&u))
		memset(&u, 0, sizeof(u));
	fprintf(f, "    <properties>\n");
	xml_prop(f, "rtlat_version", RTLAT_VERSION);
	xml_prop(f, "kernel", u.release);
	xml_prop(f, "preemption", sysinfo_preempt_model());
	xml_prop(f, "machine", u.machine);
	if (o && o->max_latency)
		xml_prop(f, "max_latency_us", o->max_latency);
	if (o && o->max_p99)
		xml_prop(f, "max_p99_us", o->max_p99);
	if (o && o->baseline)
		xml_prop(f, "baseline", o->baseline);
	fprintf(f, "    </properties>\n");
}

/* A series measured by one thread is that thread: one case, not two. */
static bool junit_kept(const struct fleet *fl, int i)
{
	const struct fleet_rec *r = fleet_get(fl, i);

	return r->thread < 0 || fleet_threads(fl, r) > 1;
}

struct junit_count {
	int cases, failures, errors, skipped;
	double secs;
};

/* The cases of one test (rtlat suite writes a <testsuite> per test). */
static void junit_count(const struct fleet *fl, const char *test,
			struct junit_count *c)
{
	struct fleet_judged v;
	int i;

	memset(c, 0, sizeof(*c));
	for (i = 0; i < fleet_count(fl); i++) {
		if (strcmp(fleet_get(fl, i)->test, test) != 0 || !junit_kept(fl, i))
			continue;
		fleet_judge(fl, i, &v);
		c->cases++;
		c->errors += v.error != NULL;
		c->failures += !v.error && v.failure;
		c->skipped += !v.error && !v.failure && !fleet_get(fl, i)->n;
		if (fleet_get(fl, i)->secs > c->secs)
			c->secs = fleet_get(fl, i)->secs;
	}
}

static void junit_suite(const struct fleet *fl, FILE *f, const char *test,
			const char *stamp)
{
	struct junit_count c;
	int i;

	junit_count(fl, test, &c);
	fprintf(f, "  <testsuite name=\"rtlat.");
	xml_escape(f, test);
	fprintf(f, "\" tests=\"%d\" failures=\"%d\" errors=\"%d\" skipped=\"%d\" time=\"%.3f\" timestamp=\"%s\" hostname=\"",
		c.cases, c.failures, c.errors, c.skipped, c.secs, stamp);
	xml_escape(f, fleet_host(fl));
	fprintf(f, "\">\n");
	junit_props(fl, f);
	for (i = 0; i < fleet_count(fl); i++)
		if (!strcmp(fleet_get(fl, i)->test, test) && junit_kept(fl, i))
			junit_case(fl, f, i);
	fprintf(f, "  </testsuite>\n");
}

/*
 * The run itself when it failed, when it has not finished (a checkpoint's
 * file: the final write replaces it, so one still there is of a run
 * killed or crashed), or when it measured nothing (a request server) and
 * so has no other case.
 */
static void junit_run(const struct fleet *fl, FILE *f, const char *prog,
		      const char *stamp, const char *error, double secs)
{
	fprintf(f, "  <testsuite name=\"");
	xml_escape(f, prog);
	fprintf(f, "\" tests=\"1\" failures=\"0\" errors=\"%d\" skipped=\"0\" time=\"%.3f\" timestamp=\"%s\" hostname=\"",
		error != NULL, secs, stamp);
	xml_escape(f, fleet_host(fl));
	fprintf(f, "\">\n");
	junit_props(fl, f);
	fprintf(f, "    <testcase classname=\"rtlat\" name=\"run\" time=\"%.3f\">\n", secs);
	if (error)
		junit_result(f, "error", "error", error);
	fprintf(f, "    </testcase>\n  </testsuite>\n");
}

/* Each test once, in the order its first record came. */
static bool first_of_test(const struct fleet *fl, int i)
{
	int k;

	for (k = 0; k < i; k++)
		if (!strcmp(fleet_get(fl, k)->test, fleet_get(fl, i)->test))
			return false;
	return true;
}

int fleet_write_junit(const struct fleet *fl, const char *prog, const char *path,
		      double secs, int status)
{
	struct outfile of;
	struct fleet_judged v;
	char stamp[32], unfinished[160];
	const char *error = NULL;
	time_t now = time(NULL);
	int i, failures = 0, errors, cases;
	FILE *f;

	if (status == 1) {
		error = "the run ended with an error (exit status 1): its message is on its standard error";
	} else if (fl->partial) {
		snprintf(unfinished, sizeof(unfinished),
			 "the run did not finish: this is its checkpoint after %.0f s (the end rewrites it: still here, the run was killed or crashed)",
			 secs);
		error = unfinished;
	}
	errors = error != NULL;
	cases = errors || !fleet_count(fl);
	f = outfile_open(&of, prog, "--junit", path);
	if (!f)
		return -1;
	for (i = 0; i < fleet_count(fl); i++) {
		if (!junit_kept(fl, i))
			continue;
		fleet_judge(fl, i, &v);
		cases++;
		errors += v.error != NULL;
		failures += !v.error && v.failure;
	}
	strftime(stamp, sizeof(stamp), "%Y-%m-%dT%H:%M:%S", gmtime(&now));
	fprintf(f, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
	fprintf(f, "<testsuites name=\"rtlat\" tests=\"%d\" failures=\"%d\" errors=\"%d\" time=\"%.3f\">\n",
		cases, failures, errors, secs);
	for (i = 0; i < fleet_count(fl); i++)
		if (first_of_test(fl, i))
			junit_suite(fl, f, fleet_get(fl, i)->test, stamp);
	if (errors || !fleet_count(fl))
		junit_run(fl, f, prog, stamp, error, secs);
	fprintf(f, "</testsuites>\n");
	return outfile_close(&of, prog);
}

static void label_escape(FILE *f, const char *s)
{
	for (; *s; s++) {
		if (*s == '\\' || *s == '"')
			fputc('\\', f);
		if (*s == '\n')
			fputs("\\n", f);
		else
			fputc(*s, f);
	}
}

/* A family's labels open: the run's id first, then the test. */
static void run_test_labels(FILE *f, const struct fleet *fl, const char *test)
{
	fputs("{run=\"", f);
	label_escape(f, fl->run_id);
	fputs("\",test=\"", f);
	label_escape(f, test);
}

/*
 * run, test, series, thread and cpu: a series whole is thread="all",
 * cpu="all"; a part names its thread and its CPU ("any" when not pinned
 * to one). Two pairs can share a CPU, so cpu alone would not tell them
 * apart. run: two runs' files in one textfile directory (a suite's and a
 * test's, both with test="timer") never hold the same series. No host
 * label: Prometheus adds its target's own.
 */
static void labels(FILE *f, const struct fleet *fl, const struct fleet_rec *r,
		   const char *extra, const char *value)
{
	run_test_labels(f, fl, r->test);
	fputs("\",series=\"", f);
	label_escape(f, r->series);
	if (r->thread < 0)
		fputs("\",thread=\"all\",cpu=\"all\"", f);
	else if (r->cpu < 0)
		fprintf(f, "\",thread=\"%d\",cpu=\"any\"", r->thread);
	else
		fprintf(f, "\",thread=\"%d\",cpu=\"%d\"", r->thread, r->cpu);
	if (extra)
		fprintf(f, ",%s=\"%s\"", extra, value);
	fputs("} ", f);
}

static void family(FILE *f, const char *name, const char *type,
		   const char *unit, const char *help)
{
	fprintf(f, "# TYPE %s %s\n", name, type);
	if (unit)
		fprintf(f, "# UNIT %s %s\n", name, unit);
	fprintf(f, "# HELP %s %s\n", name, help);
}

/* The sum of a series' latencies, in seconds. */
static double om_sum(const struct fleet_rec *r)
{
	return r->n ? r->avg * (double)r->n / 1e9 : 0.0;
}

static void om_histogram(const struct fleet *fl, FILE *f)
{
	const char *m = "rtlat_latency_seconds";
	char le[32];
	int i, k;

	family(f, m, "histogram", "seconds", "Latency of each series and thread.");
	for (i = 0; i < fleet_count(fl); i++) {
		const struct fleet_rec *r = fleet_get(fl, i);

		/* The same bounds, 10 ns to 10 s, for every series, thread and
		 * CPU (a sum by le adds up exactly, a heatmap's rows are the
		 * same). Each count is exact: the histogram goes on at 0.1 %
		 * to 100 s, a bucket counts under a bound when all of it is,
		 * so histogram_quantile(1) is the bound above the max's
		 * bucket; past 10 s, +Inf only. */
		for (k = FLEET_OM_LE_FIRST; k < FLEET_NLE; k++) {
			snprintf(le, sizeof(le), "%.9g", fleet_le_ns10(k) / 1e10);
			fprintf(f, "%s_bucket", m);
			labels(f, fl, r, "le", le);
			fprintf(f, "%llu\n", (unsigned long long)r->le[k]);
		}
		fprintf(f, "%s_bucket", m);
		labels(f, fl, r, "le", "+Inf");
		fprintf(f, "%llu\n%s_count", (unsigned long long)r->n, m);
		labels(f, fl, r, NULL, NULL);
		fprintf(f, "%llu\n%s_sum", (unsigned long long)r->n, m);
		labels(f, fl, r, NULL, NULL);
		fprintf(f, "%.9g\n", om_sum(r));
	}
}

/*
 * min, median, p99, p99.99 and max as quantiles 0 to 1 of one summary
 * (the type a quantile label belongs to: Prometheus' lint refuses it on a
 * gauge), with the summary's _sum and _count. A series that measured
 * nothing has its count 0 and no quantile: a figure of nothing would be
 * made up.
 */
static void om_quantiles(const struct fleet *fl, FILE *f)
{
	static const char *const q[] = { "0", "0.5", "0.99", "0.9999", "1" };
	const char *m = "rtlat_latency_quantile_seconds";
	int i, k;

	family(f, m, "summary", "seconds",
	       "Latency quantiles of each series and thread (0: min, 1: max).");
	for (i = 0; i < fleet_count(fl); i++) {
		const struct fleet_rec *r = fleet_get(fl, i);
		const long long v[] = { r->min, r->p50, r->p99, r->p9999, r->max };

		for (k = 0; k < 5 && r->n; k++) {
			fputs(m, f);
			labels(f, fl, r, "quantile", q[k]);
			fprintf(f, "%.9g\n", v[k] / 1e9);
		}
		fprintf(f, "%s_count", m);
		labels(f, fl, r, NULL, NULL);
		fprintf(f, "%llu\n%s_sum", (unsigned long long)r->n, m);
		labels(f, fl, r, NULL, NULL);
		fprintf(f, "%.9g\n", om_sum(r));
	}
}

/* A checkpoint's live view: each series' maximum since the last one. */
static void om_step(const struct fleet *fl, FILE *f)
{
	const char *m = "rtlat_last_step_max_seconds";
	int i;

	for (i = 0; i < fleet_count(fl) && !fleet_get(fl, i)->step_s; i++)
		;
	if (i == fleet_count(fl))
		return;
	family(f, m, "gauge", "seconds",
	       "The maximum latency of the last step of a running test (rtlat_last_step_seconds long).");
	for (i = 0; i < fleet_count(fl); i++)
		if (fleet_get(fl, i)->step_s && fleet_get(fl, i)->step_max >= 0) {
			fputs(m, f);
			labels(f, fl, fleet_get(fl, i), NULL, NULL);
			fprintf(f, "%.9g\n", fleet_get(fl, i)->step_max / 1e9);
		}
	family(f, "rtlat_last_step_seconds", "gauge", "seconds",
	       "How long the last step of a running test was.");
	for (i = 0; i < fleet_count(fl); i++)
		if (fleet_get(fl, i)->step_s) {
			fputs("rtlat_last_step_seconds", f);
			labels(f, fl, fleet_get(fl, i), NULL, NULL);
			fprintf(f, "%.9g\n", fleet_get(fl, i)->step_s);
		}
}

static void om_verdict(const struct fleet *fl, FILE *f)
{
	struct fleet_judged v;
	int i;

	family(f, "rtlat_threshold_exceeded", "gauge", NULL,
	       "1 if a threshold or the baseline was exceeded.");
	for (i = 0; i < fleet_count(fl); i++) {
		fleet_judge(fl, i, &v);
		fputs("rtlat_threshold_exceeded", f);
		labels(f, fl, fleet_get(fl, i), NULL, NULL);
		fprintf(f, "%d\n", v.failure != NULL);
	}
}

/* Per test, so that the files of several tests in one textfile directory
 * never hold the same series twice. */
static void om_run(const struct fleet *fl, FILE *f)
{
	struct utsname u;
	int i;

	if (uname(&u))
		memset(&u, 0, sizeof(u));
	family(f, "rtlat_run_timestamp_seconds", "gauge", "seconds",
	       "When the run wrote its figures (Unix time).");
	for (i = 0; i < fleet_count(fl); i++) {
		if (!first_of_test(fl, i))
			continue;
		fputs("rtlat_run_timestamp_seconds", f);
		run_test_labels(f, fl, fleet_get(fl, i)->test);
		fprintf(f, "\"} %lld\n", (long long)time(NULL));
	}
	/* A run that never wrote a checkpoint has its final file only. */
	if (fl->partial || fl->checkpointed)
		family(f, "rtlat_run_complete", "gauge", NULL,
		       "0 while the run goes on (a checkpoint's figures, so far), 1 at its end.");
	for (i = 0; (fl->partial || fl->checkpointed) && i < fleet_count(fl); i++)
		if (first_of_test(fl, i)) {
			fputs("rtlat_run_complete", f);
			run_test_labels(f, fl, fleet_get(fl, i)->test);
			fprintf(f, "\"} %d\n", !fl->partial);
		}
	family(f, "rtlat_info", "gauge", NULL,
	       "What the run is compared by: rtlat's version, the kernel and its preemption model.");
	for (i = 0; i < fleet_count(fl); i++) {
		if (!first_of_test(fl, i))
			continue;
		fputs("rtlat_info", f);
		run_test_labels(f, fl, fleet_get(fl, i)->test);
		fprintf(f, "\",version=\"%s\",kernel=\"", RTLAT_VERSION);
		label_escape(f, u.release);
		fprintf(f, "\",preemption=\"%s\"} 1\n", sysinfo_preempt_model());
	}
}

/*
 * The run label of the file at path, if another run wrote it: its
 * figures are about to go (one line says so; the user meant one file per
 * run, or a textfile directory of them). Reads the file's start only:
 * every sample line names the run.
 */
static void om_overwritten(const struct fleet *fl, const char *prog,
			   const char *path)
{
	char buf[4096], *p, *e;
	struct stat st;
	size_t n;
	FILE *f;

	/* Only a regular file holds another run's figures: a FIFO's open
	 * for reading would wait for a writer (this run) for good. */
	if (stat(path, &st) || !S_ISREG(st.st_mode))
		return;
	f = fopen(path, "re");
	if (!f)
		return;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	p = strstr(buf, "{run=\"");
	if (!p)
		return;
	p += 6;
	e = strchr(p, '"');
	if (!e || (size_t)(e - p) >= sizeof(fl->run_id))
		return;
	*e = '\0';
	if (strcmp(p, fl->run_id) != 0)
		fprintf(stderr, "%s: --openmetrics %s: writing over the figures of run %s (another run wrote this file; this run is %s)\n",
			prog, path, p, fl->run_id);
}

int fleet_write_openmetrics(const struct fleet *fl, const char *prog,
			    const char *path)
{
	struct outfile of;
	FILE *f;

	om_overwritten(fl, prog, path);
	f = outfile_open(&of, prog, "--openmetrics", path);

	if (!f)
		return -1;
	om_histogram(fl, f);
	om_quantiles(fl, f);
	om_step(fl, f);
	om_verdict(fl, f);
	om_run(fl, f);
	fprintf(f, "# EOF\n");
	return outfile_close(&of, prog);
}
