// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * suite.c - "rtlat suite": every test with short defaults, one summary
 * table, one JSON (and the test's own text output) per test in a results
 * directory. Each test runs as a child "rtlat SUBCOMMAND ..." that reports
 * its headline series through a pipe (results_summary), so the suite
 * never parses JSON. The thresholds and fleet outputs (fleet.h) judge the
 * same summaries.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "fleet/fleet.h"
#include "core/opts.h"
#include "core/outfile.h"
#include "core/preflight.h"
#include "core/stopsig.h"
#include "harness/test.h"

#define SUITE_MAX_ARGS 24
#define SUITE_MAX_ROWS 64

const char suite_title[] = "every test with short defaults, one table";
static long long duration_s, prio;
static const char *outdir;
static bool report;
static bool explain;
static bool quiet;
static char report_tool[PATH_MAX];
static unsigned long long only;		/* bit i: tests[i]; 0: all */
static const char *names[32];		/* the registry's, for --only */
static volatile sig_atomic_t interrupted;
static pid_t current;
static struct fleet_opts fleet;		/* judged on the tests' summaries */

static struct opt suite_opts[] = {
	{ 0, "duration", OPT_DURATION, OPT_ARG_REQUIRED, "TIME", 1, 86400, 5, &duration_s,
	  "time per test (about a minute in all)", NULL, NULL },
	{ 'p', "prio", OPT_INT, OPT_ARG_REQUIRED, "PRIO", 1, 99, 99, &prio,
	  "SCHED_FIFO priority", NULL, NULL },
	{ 'o', "results", OPT_DIR_OUT, OPT_ARG_REQUIRED, "DIR", 0, 0, 0, &outdir,
	  "results directory (default results/rtlat-DATE-TIME)", NULL, NULL },
	{ 0, "only", OPT_CHOICES, OPT_ARG_REQUIRED, "TEST,...", 0, 0, 0, &only,
	  "comma-separated subset of the tests", names, NULL },
	{ 0, "report", OPT_FLAG, OPT_ARG_NONE, NULL, 0, 0, 0, &report,
	  "write report.html into the results directory with rtlat-report", NULL, NULL },
	{ 0, "explain", OPT_FLAG, OPT_ARG_NONE, NULL, 0, 0, 0, &explain,
	  "run the tests that take --explain with it: their worst spikes attributed to causes, in the results and the report", NULL, NULL },
	{ 'q', "quiet", OPT_FLAG, OPT_ARG_NONE, NULL, 0, 0, 0, &quiet,
	  "no \"running TEST\" line before each test: the table only", NULL, NULL },
	FLEET_VERDICT_ENTRIES(&fleet),
	{ 'h', "help", OPT_HELP, OPT_ARG_NONE, NULL, 0, 0, 0, NULL, "print this help", NULL, NULL },
	OPT_END
};

/* The table, with --only's names from the registry (also for the man
 * page and the completion, manpage.c). */
struct opt *suite_options(void)
{
	int i;

	for (i = 0; i < (int)(sizeof(names) / sizeof(names[0])) - 1 && tests[i]; i++)
		names[i] = tests[i]->name;
	return suite_opts;
}

/* A test the suite runs: asked (--only), and a measurement (not doctor). */
static bool runs(int i)
{
	return (!only || (only & (1ULL << i))) && tests[i]->suite_args;
}

/* The tests the suite runs: thresholds may name these only (an entry for
 * a test not run would judge nothing, silently: bad input). */
static int measured(struct fleet_test *list, int max)
{
	int i, n = 0;

	for (i = 0; tests[i] && n < max; i++)
		if (runs(i)) {
			list[n].name = tests[i]->name;
			list[n++].series = tests[i]->series;
		}
	return n;
}

/* --only names tests; doctor is a registry row but no measurement. */
static int check_only(void)
{
	char ok[256] = "";
	size_t at = 0;
	int i, bad = -1;

	for (i = 0; tests[i]; i++) {
		if (tests[i]->suite_args && at < sizeof(ok))
			at += (size_t)snprintf(ok + at, sizeof(ok) - at, "%s%s",
					       at ? "," : "", tests[i]->name);
		else if (only & (1ULL << i))
			bad = i;
	}
	if (bad < 0)
		return 0;
	opts_error("rtlat suite", opts_find(suite_opts, 0, "only"),
		   "'%s' measures nothing (the suite prints its verdict first); accepted: %s",
		   tests[bad]->name, ok);
	return -1;
}

struct row {
	char test[16];
	char line[512];
};

static struct row rows[SUITE_MAX_ROWS];
static int nrows;

static void on_signal(int sig)
{
	interrupted = sig;
	if (current > 0)
		kill(current, sig);
}

/* argv for one test; strings live in buf. Returns about how long it runs. */
static long long build_args(const struct test_ops *t, char **av, int *n,
			    char *buf, size_t len)
{
	size_t used = (size_t)snprintf(buf, len, "%s ", t->name);
	long long secs = t->suite_args(buf + used, len - used, duration_s, prio);
	char *tok;

	*n = 0;
	av[(*n)++] = "rtlat";
	for (tok = strtok(buf, " "); tok && *n < SUITE_MAX_ARGS - 4; tok = strtok(NULL, " "))
		av[(*n)++] = tok;
	return secs;
}

/* The test's records: its series for the table, its threads' parts
 * (one per CPU: many on a big machine) for the fleet outputs only. */
static void read_rows(struct fleet *fl, int fd, const char *test)
{
	static char buf[1 << 18];
	char *line, *save;
	struct fleet_rec rec;

	/* A stop signal interrupts read(); the test still reports, so
	 * read_text goes on until it closes the pipe. */
	read_text(fd, buf, sizeof(buf));
	for (line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		if (fleet_rec_parse(line, test, &rec))
			continue;
		fleet_add(fl, &rec);
		if (rec.thread >= 0 || nrows == SUITE_MAX_ROWS)
			continue;
		snprintf(rows[nrows].test, sizeof(rows[nrows].test), "%s", test);
		snprintf(rows[nrows].line, sizeof(rows[nrows].line), "%s", line);
		nrows++;
	}
}

static void child(char **av, int out, int wfd, pid_t suite)
{
	char fdbuf[16];

	/* A suite killed outright (SIGKILL) stops its test too: SIGTERM lets
	 * the test end as on ^C, clean up and leave nothing running. */
	if (prctl(PR_SET_PDEATHSIG, SIGTERM) || getppid() != suite)
		_exit(1);
	snprintf(fdbuf, sizeof(fdbuf), "%d", wfd);
	setenv("RTLAT_SUMMARY_FD", fdbuf, 1);
	dup2(out, STDOUT_FILENO);
	execv("/proc/self/exe", av);
	fprintf(stderr, "rtlat suite: cannot run %s: %s\n", av[1], strerror(errno));
	_exit(127);
}

/* Run one test; returns its exit status (or 128+signal). */
static int suite_run(struct fleet *fl, const struct test_ops *t, const char *dir)
{
	char buf[256], path[4200], json[4200], why[PATH_MAX + 256];
	char *av[SUITE_MAX_ARGS];
	const char *test = t->name;
	int n, fds[2], out, status = 0;
	long long secs = build_args(t, av, &n, buf, sizeof(buf));
	pid_t suite;

	snprintf(json, sizeof(json), "--json=%s/%s.json", dir, test);
	av[n++] = json;
	if (explain && opts_find(t->opts, 0, "explain"))
		av[n++] = "--explain";
	av[n] = NULL;
	snprintf(path, sizeof(path), "%s/%s.txt", dir, test);
	/* Written as it grows, but by the output rule's walk (outfile.h). */
	out = outfile_create(path, why, sizeof(why));
	if (out < 0 || pipe(fds)) {
		fprintf(stderr, "rtlat suite: %s: %s\n", path,
			out < 0 ? why : strerror(errno));
		if (out >= 0)
			close(out);
		return 1;
	}
	if (!quiet)
		fprintf(stderr, "rtlat suite: running %s for about %llds\n", test, secs);
	suite = getpid();
	current = fork();
	if (current == 0) {
		close(fds[0]);
		child(av, out, fds[1], suite);
	}
	close(fds[1]);
	close(out);
	read_rows(fl, fds[0], test);
	close(fds[0]);
	while (current > 0 && waitpid(current, &status, 0) < 0 && errno == EINTR)
		;
	current = 0;
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return WEXITSTATUS(status);
}

static void print_table(void)
{
	char name[64];
	unsigned long long n;
	long long mn, mx, p99, p9999;
	double avg;
	int i;

	printf("%-10s %-24s %10s %9s %9s %9s %9s %9s\n", "test", "series",
	       "samples", "min", "avg", "p99", "p99.99", "max");
	for (i = 0; i < nrows; i++) {
		if (sscanf(rows[i].line, "%63[^\t]\t%llu\t%lld\t%lf\t%lld\t%lld\t%lld",
			   name, &n, &mn, &avg, &mx, &p99, &p9999) != 7)
			continue;
		printf("%-10s %-24s %10llu %9.2f %9.2f %9.2f %9.2f %9.2f\n",
		       rows[i].test, name, n, mn / 1e3, avg / 1e3, p99 / 1e3,
		       p9999 / 1e3, mx / 1e3);
	}
	printf("(microseconds; percentiles are histogram upper bounds)\n");
}

/* -o was checked by the option parser (OPT_DIR_OUT); this makes it. */
static int make_dir(char *dir, size_t len)
{
	time_t t = time(NULL);
	struct tm tm;

	if (!outdir) {
		localtime_r(&t, &tm);
		mkdir("results", 0755);
		strftime(dir, len, "results/rtlat-%Y%m%d-%H%M%S", &tm);
	} else {
		snprintf(dir, len, "%s", outdir);
	}
	if (mkdir(dir, 0755) && errno != EEXIST) {
		opts_error("rtlat suite", opts_find(suite_opts, 'o', NULL),
			   "cannot create '%s': %s; accepted: a writable directory, or a new one in an existing writable directory",
			   dir, strerror(errno));
		return -1;
	}
	return 0;
}

/* registry.json beside the results: what the report reads on a host
 * that has the results but not this binary. */
static int write_registry(const char *dir)
{
	char path[PATH_MAX];
	struct outfile of;
	FILE *f;

	if (snprintf(path, sizeof(path), "%s/registry.json", dir) >= (int)sizeof(path)) {
		fprintf(stderr, "rtlat suite: %s: path too long\n", dir);
		return -1;
	}
	f = outfile_open(&of, "rtlat suite", "-o", path);
	if (!f)
		return -1;
	tests_list_json(f);
	return outfile_close(&of, "rtlat suite");
}

/*
 * rtlat-report: $RTLAT_REPORT, then the PATH, then beside the binary (an
 * install outside the PATH: make install PREFIX=/opt/rtlat), then a
 * checkout's test venv there (.venv/bin, where make check installs it).
 */
static bool find_report_tool(void)
{
	const char *env = getenv("RTLAT_REPORT"), *path = getenv("PATH");
	char exe[PATH_MAX], *slash;
	ssize_t n;

	if (env && *env)
		return snprintf(report_tool, sizeof(report_tool), "%s", env) > 0 &&
		       access(report_tool, X_OK) == 0;
	while (path && *path) {
		size_t len = strcspn(path, ":");

		snprintf(report_tool, sizeof(report_tool), "%.*s/rtlat-report",
			 (int)len, path);
		if (len && access(report_tool, X_OK) == 0)
			return true;
		path += len + (path[len] == ':');
	}
	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n <= 0)
		return false;
	exe[n] = '\0';
	slash = strrchr(exe, '/');
	if (slash)
		*slash = '\0';
	snprintf(report_tool, sizeof(report_tool), "%.*s/rtlat-report",
		 (int)(sizeof(report_tool) - 16), exe);
	if (access(report_tool, X_OK) == 0)
		return true;
	snprintf(report_tool, sizeof(report_tool), "%.*s/.venv/bin/rtlat-report",
		 (int)(sizeof(report_tool) - 24), exe);
	return access(report_tool, X_OK) == 0;
}

/* rtlat-report DIR: it prints "report: DIR/report.html" itself. */
static int write_report(const char *dir)
{
	int status = 0;
	pid_t pid;

	fflush(NULL);
	pid = fork();
	if (pid == 0) {
		execl(report_tool, "rtlat-report", dir, (char *)NULL);
		fprintf(stderr, "rtlat suite: --report: cannot run %s: %s\n",
			report_tool, strerror(errno));
		_exit(127);
	}
	if (pid < 0)
		return -1;
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
		return 0;
	fprintf(stderr, "rtlat suite: --report: rtlat-report failed; the results are in %s\n",
		dir);
	return -1;
}

/* What is checked and made before any test runs: 0, or the exit status. */
static int suite_prepare(struct fleet *fl, char *dir, size_t len)
{
	if (fleet_check(fl, "rtlat suite", suite_opts))
		return OPTS_EXIT_USAGE;
	if (report && !find_report_tool()) {
		opts_error("rtlat suite", opts_find(suite_opts, 0, "report"),
			   "rtlat-report is not installed; accepted: with rtlat-report on the PATH, beside rtlat or in $RTLAT_REPORT (make install, or pip install ./report)");
		return OPTS_EXIT_USAGE;
	}
	if (make_dir(dir, len))
		return OPTS_EXIT_USAGE;
	return write_registry(dir) ? 1 : 0;
}

/* Every test asked, the table and the report: 1 if one failed or a stop
 * signal came, else 0. */
static int suite_all(struct fleet *fl, const char *dir)
{
	int i, rc, failed = 0;

	stopsig_install(on_signal);
	if (isatty(STDERR_FILENO))	/* as each test would (run.c) */
		preflight_print_short(stderr, "rtlat suite");
	for (i = 0; tests[i] && !interrupted; i++) {
		if (!runs(i))
			continue;	/* not asked, or not a measurement (doctor) */
		rc = suite_run(fl, tests[i], dir);
		if (rc) {
			fprintf(stderr, "rtlat suite: %s exited with status %d (see %s/%s.txt)\n",
				tests[i]->name, rc, dir, tests[i]->name);
			failed = 1;
		}
	}
	if (interrupted)
		fprintf(stderr, "rtlat suite: stopped by %s; the table shows what ran\n",
			strsignal(interrupted));
	print_table();
	printf("results: %s\n", dir);
	if (report && nrows && write_report(dir))
		failed = 1;
	return failed || interrupted ? 1 : 0;
}

int suite_main(int argc, char **argv)
{
	struct fleet_test known[FLEET_TESTS_MAX];
	struct fleet fl;
	char dir[4096];
	int status;

	if (run_parse("rtlat suite", suite_title, suite_options(), NULL, argc, argv) ||
	    check_only())
		return OPTS_EXIT_USAGE;
	/* After --only: the thresholds are checked against the tests run. */
	fleet_begin(&fl, &fleet, "suite", known, measured(known, FLEET_TESTS_MAX));
	status = suite_prepare(&fl, dir, sizeof(dir));
	if (!status)
		status = fleet_end(&fl, "rtlat suite", suite_all(&fl, dir));
	fleet_free(&fl);
	return status;
}
