// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * fleet_out.c - the fleet outputs of the series kept in fleet.c: JUnit XML
 * (GitLab, Jenkins, GitHub Actions), the Prometheus/OpenMetrics text format
 * (node_exporter's textfile collector) and LAVA's lava-test-case lines.
 * The files go through outfile.c: temp file and rename.
 */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include "harness/fleet.h"
#include "core/outfile.h"

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

static void xml_prop_us(FILE *f, const char *name, double ns)
{
	fprintf(f, "        <property name=\"%s\" value=\"%.3f\"/>\n", name, ns / 1e3);
}

static void junit_case(FILE *f, int i)
{
	const struct fleet_rec *r = fleet_get(i);
	struct fleet_judged v;

	fleet_judge(i, &v);
	fprintf(f, "    <testcase classname=\"rtlat.");
	xml_escape(f, r->test);
	fprintf(f, "\" name=\"");
	xml_escape(f, r->series);
	fprintf(f, "\" time=\"0\">\n      <properties>\n");
	fprintf(f, "        <property name=\"samples\" value=\"%llu\"/>\n",
		(unsigned long long)r->n);
	xml_prop_us(f, "min_us", (double)r->min);
	xml_prop_us(f, "avg_us", r->avg);
	xml_prop_us(f, "p99_us", (double)r->p99);
	xml_prop_us(f, "p99.99_us", (double)r->p9999);
	xml_prop_us(f, "max_us", (double)r->max);
	xml_prop_us(f, "worst_us", (double)v.worst_ns);
	if (v.base_ns >= 0)
		xml_prop_us(f, "baseline_max_us", (double)v.base_ns);
	fprintf(f, "      </properties>\n");
	if (v.failure) {
		fprintf(f, "      <failure type=\"%s\" message=\"", v.failure);
		xml_escape(f, v.why);
		fprintf(f, "\">");
		xml_escape(f, v.why);
		fprintf(f, "</failure>\n");
	}
	fprintf(f, "    </testcase>\n");
}

int fleet_write_junit(const char *prog, const char *path, long long secs,
		      int status)
{
	struct outfile of;
	struct fleet_judged v;
	char stamp[32];
	time_t now = time(NULL);
	int i, failures = 0, errors = status == 1;
	int cases = fleet_count() + (errors || !fleet_count());
	FILE *f = outfile_open(&of, prog, "--junit", path);

	if (!f)
		return -1;
	for (i = 0; i < fleet_count(); i++) {
		fleet_judge(i, &v);
		failures += v.failure != NULL;
	}
	strftime(stamp, sizeof(stamp), "%Y-%m-%dT%H:%M:%S", gmtime(&now));
	fprintf(f, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
	fprintf(f, "<testsuites name=\"rtlat\" tests=\"%d\" failures=\"%d\" errors=\"%d\" time=\"%lld\">\n",
		cases, failures, errors, secs);
	fprintf(f, "  <testsuite name=\"");
	xml_escape(f, prog);
	fprintf(f, "\" tests=\"%d\" failures=\"%d\" errors=\"%d\" skipped=\"0\" time=\"%lld\" timestamp=\"%s\" hostname=\"",
		cases, failures, errors, secs, stamp);
	xml_escape(f, fleet_host());
	fprintf(f, "\">\n");
	for (i = 0; i < fleet_count(); i++)
		junit_case(f, i);
	/* The run itself when it failed, or when it measured nothing (a
	 * request server) and so has no other case. */
	if (errors)
		fprintf(f, "    <testcase classname=\"rtlat\" name=\"run\" time=\"0\">\n"
			"      <error type=\"error\" message=\"the run ended with an error (exit status 1)\"/>\n"
			"    </testcase>\n");
	else if (!fleet_count())
		fprintf(f, "    <testcase classname=\"rtlat\" name=\"run\" time=\"0\"/>\n");
	fprintf(f, "  </testsuite>\n</testsuites>\n");
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

static void labels(FILE *f, const struct fleet_rec *r, const char *le)
{
	fputs("{test=\"", f);
	label_escape(f, r->test);
	fputs("\",series=\"", f);
	label_escape(f, r->series);
	fputs("\",host=\"", f);
	label_escape(f, fleet_host());
	fputc('"', f);
	if (le)
		fprintf(f, ",le=\"%s\"", le);
	fputs("} ", f);
}

static void om_histogram(FILE *f)
{
	const char *m = "rtlat_latency_seconds";
	char le[32];
	int i, k;

	fprintf(f, "# TYPE %s histogram\n# UNIT %s seconds\n"
		"# HELP %s Latency of each headline series.\n", m, m, m);
	for (i = 0; i < fleet_count(); i++) {
		const struct fleet_rec *r = fleet_get(i);

		for (k = 0; k < FLEET_NLE; k++) {
			snprintf(le, sizeof(le), "%.9g", fleet_le_ns[k] / 1e9);
			fprintf(f, "%s_bucket", m);
			labels(f, r, le);
			fprintf(f, "%llu\n", (unsigned long long)r->le[k]);
		}
		fprintf(f, "%s_bucket", m);
		labels(f, r, "+Inf");
		fprintf(f, "%llu\n%s_count", (unsigned long long)r->n, m);
		labels(f, r, NULL);
		fprintf(f, "%llu\n%s_sum", (unsigned long long)r->n, m);
		labels(f, r, NULL);
		fprintf(f, "%.9g\n", r->avg * (double)r->n / 1e9);
	}
}

/* A gauge per figure: offsetof-free, the figure picked by index. */
static double figure(const struct fleet_rec *r, int k)
{
	const double v[] = { (double)r->min, r->avg, (double)r->p50,
			     (double)r->p99, (double)r->p9999, (double)r->max };

	return v[k] / 1e9;
}

static void om_gauges(FILE *f)
{
	static const char *const name[] = { "min", "avg", "p50", "p99", "p9999", "max" };
	struct fleet_judged v;
	int i, k;

	for (k = 0; k < 6; k++) {
		fprintf(f, "# TYPE rtlat_latency_%s_seconds gauge\n"
			"# UNIT rtlat_latency_%s_seconds seconds\n"
			"# HELP rtlat_latency_%s_seconds Latency %s of each headline series.\n",
			name[k], name[k], name[k], name[k]);
		for (i = 0; i < fleet_count(); i++) {
			fprintf(f, "rtlat_latency_%s_seconds", name[k]);
			labels(f, fleet_get(i), NULL);
			fprintf(f, "%.9g\n", figure(fleet_get(i), k));
		}
	}
	fprintf(f, "# TYPE rtlat_threshold_exceeded gauge\n"
		"# HELP rtlat_threshold_exceeded 1 if a threshold or the baseline was exceeded.\n");
	for (i = 0; i < fleet_count(); i++) {
		fleet_judge(i, &v);
		fprintf(f, "rtlat_threshold_exceeded");
		labels(f, fleet_get(i), NULL);
		fprintf(f, "%d\n", v.failure != NULL);
	}
}

int fleet_write_openmetrics(const char *prog, const char *path)
{
	struct outfile of;
	FILE *f = outfile_open(&of, prog, "--openmetrics", path);

	if (!f)
		return -1;
	om_histogram(f);
	om_gauges(f);
	fprintf(f, "# EOF\n");
	return outfile_close(&of, prog);
}

/*
 * lava-test-case NAME --result pass|fail --measurement X --units us: a
 * series' maximum carries the --max-latency and --baseline verdict, its
 * p99 the --max-p99 one; min and avg are measurements no option judges.
 */
void fleet_print_lava(FILE *f, const char *test, int status)
{
	static const char *const name[] = { "min", "avg", "p99", "max" };
	struct fleet_judged v;
	int i, k;

	for (i = 0; i < fleet_count(); i++) {
		const struct fleet_rec *r = fleet_get(i);
		const double fig[] = { (double)r->min, r->avg, (double)r->p99,
				       (double)r->max };

		bool p99_failed, max_failed;

		fleet_judge(i, &v);
		p99_failed = v.failure && !strcmp(v.failure, "max-p99");
		max_failed = v.failure && !p99_failed;
		for (k = 0; k < 4; k++)
			fprintf(f, "lava-test-case %s-%s-%s --result %s --measurement %.3f --units us\n",
				r->test, r->series, name[k],
				(k == 2 && p99_failed) || (k == 3 && max_failed) ? "fail" : "pass",
				fig[k] / 1e3);
	}
	/* The run itself: fail on an error (not on a threshold: that is the
	 * figure's line). */
	fprintf(f, "lava-test-case %s-run --result %s\n", test,
		status == 1 || !fleet_count() ? "fail" : "pass");
}
