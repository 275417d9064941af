// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * suite.c - "rtlat suite": every test with short defaults, one summary
 * table, one JSON (and the test's own text output) per test in a results
 * directory. Each test runs as a child "rtlat SUBCOMMAND ..." that reports
 * its headline series through a pipe (results_summary), so the suite
 * never parses JSON.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "opts.h"
#include "subcommands.h"

#define SUITE_MAX_ARGS 24
#define SUITE_MAX_ROWS 64

static long long duration_s = 5;
static long long prio = 99;
static const char *outdir;
static const char *only;
static volatile sig_atomic_t interrupted;
static pid_t current;

static struct opt suite_opts[] = {
	{ 0, "duration", OPT_DURATION, OPT_ARG_REQUIRED, "TIME", 1, 86400, 0, &duration_s,
	  "time per test (default 5 s; about a minute in all)", NULL, false },
	{ 'p', "prio", OPT_INT, OPT_ARG_REQUIRED, "PRIO", 1, 99, 0, &prio,
	  "SCHED_FIFO priority (default 99)", NULL, false },
	{ 'o', "results", OPT_STRING, OPT_ARG_REQUIRED, "DIR", 0, 0, 0, &outdir,
	  "results directory (default results/rtlat-DATE-TIME)", NULL, false },
	{ 0, "only", OPT_STRING, OPT_ARG_REQUIRED, "TESTS", 0, 0, 0, &only,
	  "comma-separated subset: pmq,sigwait,svsem,ptsem,timer,request", NULL, false },
	{ 'h', "help", OPT_HELP, OPT_ARG_NONE, NULL, 0, 0, 0, NULL, "print this help", NULL, false },
	OPT_END
};

struct row {
	char test[16];
	char line[200];
};

static struct row rows[SUITE_MAX_ROWS];
static int nrows;

static void on_signal(int sig)
{
	interrupted = 1;
	if (current > 0)
		kill(current, sig);
}

static bool selected(const char *test)
{
	const char *p;
	size_t n = strlen(test);

	if (!only)
		return true;
	for (p = only; (p = strstr(p, test)); p += n)
		if ((p == only || p[-1] == ',') && (p[n] == ',' || p[n] == '\0'))
			return true;
	return false;
}

/* argv for one test; strings live in buf. */
static int build_args(const char *test, char **av, char *buf, size_t len)
{
	long long d = duration_s;
	char *tok;
	int n = 0;

	if (!strcmp(test, "timer"))
		snprintf(buf, len, "timer -q -T %lld -P %lld", d + 1, prio);
	else if (!strcmp(test, "request"))
		snprintf(buf, len, "request -i 2 -C 1000 --samples %lld", d * 500);
	else
		snprintf(buf, len, "%s -S -p %lld -i 1000 -d 0 -q -D %lld", test, prio, d);
	av[n++] = "rtlat";
	for (tok = strtok(buf, " "); tok && n < SUITE_MAX_ARGS - 4; tok = strtok(NULL, " "))
		av[n++] = tok;
	return n;
}

static void read_rows(int fd, const char *test)
{
	char buf[4096], *line, *save;
	ssize_t got;
	size_t len = 0;

	while ((got = read(fd, buf + len, sizeof(buf) - 1 - len)) > 0)
		len += (size_t)got;
	buf[len] = '\0';
	for (line = strtok_r(buf, "\n", &save); line && nrows < SUITE_MAX_ROWS;
	     line = strtok_r(NULL, "\n", &save)) {
		snprintf(rows[nrows].test, sizeof(rows[nrows].test), "%s", test);
		snprintf(rows[nrows].line, sizeof(rows[nrows].line), "%s", line);
		nrows++;
	}
}

static void child(char **av, int out, int wfd)
{
	char fdbuf[16];

	snprintf(fdbuf, sizeof(fdbuf), "%d", wfd);
	setenv("RTLAT_SUMMARY_FD", fdbuf, 1);
	dup2(out, STDOUT_FILENO);
	execv("/proc/self/exe", av);
	fprintf(stderr, "rtlat suite: cannot run %s: %s\n", av[1], strerror(errno));
	_exit(127);
}

/* Run one test; returns its exit status (or 128+signal). */
static int run_test(const char *test, const char *dir)
{
	char buf[256], path[4200], json[4200];
	char *av[SUITE_MAX_ARGS];
	int n = build_args(test, av, buf, sizeof(buf));
	int fds[2], out, status = 0;

	snprintf(json, sizeof(json), "--json=%s/%s.json", dir, test);
	av[n++] = json;
	av[n] = NULL;
	snprintf(path, sizeof(path), "%s/%s.txt", dir, test);
	out = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (out < 0 || pipe(fds)) {
		fprintf(stderr, "rtlat suite: %s: %s\n", path, strerror(errno));
		return 1;
	}
	/* timer adds its second of warm-up; request runs two rounds. */
	fprintf(stderr, "rtlat suite: running %s for about %llds\n", test,
		!strcmp(test, "request") ? 2 * duration_s :
		!strcmp(test, "timer") ? duration_s + 1 : duration_s);
	current = fork();
	if (current == 0) {
		close(fds[0]);
		child(av, out, fds[1]);
	}
	close(fds[1]);
	close(out);
	read_rows(fds[0], test);
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
		fprintf(stderr, "rtlat suite: option -o/--results: cannot create '%s': %s\n",
			dir, strerror(errno));
		return -1;
	}
	return 0;
}

static const char *const tests[] = {
	"pmq", "sigwait", "svsem", "ptsem", "timer", "request", NULL
};

static bool known_test(const char *name, size_t len)
{
	int i;

	for (i = 0; tests[i]; i++)
		if (strlen(tests[i]) == len && !strncmp(tests[i], name, len))
			return true;
	return false;
}

/* Every name in --only must be a test: a typo would silently run nothing. */
static int check_only(void)
{
	const char *p = only, *end;
	size_t len;

	while (p) {
		end = strchr(p, ',');
		len = end ? (size_t)(end - p) : strlen(p);
		if (!known_test(p, len)) {
			opts_error("rtlat suite", opts_find(suite_opts, 0, "only"),
				   "'%.*s' is not a test; accepted: a comma-separated list of pmq, sigwait, svsem, ptsem, timer, request",
				   (int)len, p);
			return -1;
		}
		p = end ? end + 1 : NULL;
	}
	return 0;
}

int suite_main(int argc, char **argv)
{
	char dir[4096];
	int i, ind, rc, failed = 0;

	ind = opts_parse("rtlat suite", "[OPTIONS]\n\nEvery test with short defaults, one summary table.",
			 suite_opts, argc, argv);
	if (ind < 0)
		return OPTS_EXIT_USAGE;
	if (ind < argc) {
		fprintf(stderr, "rtlat suite: unexpected argument '%s'\n", argv[ind]);
		return OPTS_EXIT_USAGE;
	}
	if (check_only() || make_dir(dir, sizeof(dir)))
		return OPTS_EXIT_USAGE;
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	for (i = 0; tests[i] && !interrupted; i++) {
		if (!selected(tests[i]))
			continue;
		rc = run_test(tests[i], dir);
		if (rc) {
			fprintf(stderr, "rtlat suite: %s exited with status %d (see %s/%s.txt)\n",
				tests[i], rc, dir, tests[i]);
			failed = 1;
		}
	}
	print_table();
	printf("results: %s\n", dir);
	return failed || interrupted ? 1 : 0;
}
