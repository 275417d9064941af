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
#include "util/opts.h"
#include "system/outfile.h"
#include "system/preflight.h"
#include "system/stopsig.h"
#include "harness/status.h"
#include "harness/test.h"
#include "suite/suite.h"
#include "suite/suite_checkpoint.h"
#include "system/load.h"
#include "suite/suite_run.h"
#include "suite/suite_status.h"

#define SUITE_MAX_ARGS 32
/* suite_run's: --json, --checkpoint, --timeline, --largest, --explain, NULL */
#define SUITE_ADDED_ARGS 6
#define SUITE_MAX_NAMES 32

const char suite_title[] = "every test with short defaults, one table";

const size_t suite_config_size = sizeof(struct suite_run);

static const struct opt suite_opts[] = {
	{ .long_name = "duration", .type = OPT_DURATION, .arg = OPT_ARG_REQUIRED,
	  .argname = "TIME", .min = 1, .max = 86400, .dflt = 5,
	  .dest = OPT_AT(struct suite_run, duration_s),
	  .help = "time per test (about a minute in all)" },
	{ .short_name = 'p', .long_name = "prio", .type = OPT_INT,
	  .arg = OPT_ARG_REQUIRED, .argname = "PRIO", .min = 1, .max = 99, .dflt = 99,
	  .dest = OPT_AT(struct suite_run, prio),
	  .help = "SCHED_FIFO priority of the measuring tests (bintime's busy loop runs below them all, at 1)" },
	/* choices: the registry's names, set by suite_options */
	{ .long_name = "only", .type = OPT_CHOICES, .arg = OPT_ARG_REQUIRED,
	  .argname = "TEST,...", .dest = OPT_AT(struct suite_run, only),
	  .help = "comma-separated subset of the tests" },
	SUITE_SHARED_ROWS(LOAD_NONE),
	OPT_ROW_VERSION,
	OPT_ROW_HELP,
	OPT_END
};

struct opt *suite_options(void *cfg, const struct test_ops *const *tests)
{
	struct opt *t = opts_bind(suite_opts, cfg, NULL, NULL), *grown;
	size_t n = (size_t)opts_count(suite_opts) + 1;
	const char **names;
	int i;

	grown = t ? realloc(t, n * sizeof(*t) + SUITE_MAX_NAMES * sizeof(*names)) : NULL;
	if (!grown) {
		free(t);
		return NULL;
	}
	names = (const char **)(grown + n);
	for (i = 0; i < SUITE_MAX_NAMES - 1 && tests[i]; i++)
		names[i] = tests[i]->name;
	names[i] = NULL;
	opts_find(grown, 0, "only")->choices = names;
	return grown;
}

/* A test the suite runs: asked (--only), and a measurement (not doctor). */
static bool runs(const struct suite_run *s, int i)
{
	return (!s->only || (s->only & (1ULL << i))) && s->reg->tests[i]->suite_args;
}

/* The tests the suite runs: thresholds may name these only (an entry for
 * a test not run would judge nothing, silently: bad input). */
static int measured(const struct suite_run *s, struct fleet_test *list, int max)
{
	int i, n = 0;

	for (i = 0; i < s->nitems && n < max; i++)
		if (!s->items[i].why) {
			list[n].name = s->items[i].name;
			list[n++].series = s->items[i].t->series;
		}
	return n;
}

struct suite_item *suite_item_add(struct suite_run *s, int reg, const char *name,
				  long long secs)
{
	struct suite_item *it = &s->items[s->nitems];

	if (s->nitems == SUITE_CKPT_MAX)
		return NULL;
	s->nitems++;
	memset(it, 0, sizeof(*it));
	it->t = s->reg->tests[reg];
	it->reg = reg;
	snprintf(it->name, sizeof(it->name), "%s", name);
	it->secs = secs;
	return it;
}

/* The suite's items: the tests asked, each with the load when asked. */
static int suite_plan(struct suite_run *s)
{
	struct suite_item *it;
	int i;

	for (i = 0; s->reg->tests[i]; i++)
		if (runs(s, i) && (it = suite_item_add(s, i, s->reg->tests[i]->name,
						       s->duration_s)))
			it->load = load_asked(&s->load);
	return 0;
}

/* --only names tests; doctor is a registry row but no measurement. */
static int check_only(const struct suite_run *s)
{
	char ok[256] = "";
	size_t at = 0;
	int i, bad = -1;

	for (i = 0; s->reg->tests[i]; i++) {
		if (s->reg->tests[i]->suite_args && at < sizeof(ok))
			at += (size_t)snprintf(ok + at, sizeof(ok) - at, "%s%s",
					       at ? "," : "", s->reg->tests[i]->name);
		else if (s->only & (1ULL << i))
			bad = i;
	}
	if (bad < 0)
		return 0;
	opts_error(s->prog, opts_find(s->opts, 0, "only"),
		   "'%s' measures nothing (the suite prints its verdict first); accepted: %s",
		   s->reg->tests[bad]->name, ok);
	return -1;
}

/* argv for one test; strings live in buf. Returns about how long it runs. */
static long long build_args(const struct suite_run *s, const struct suite_item *it,
			    char **av, int *n, char *buf, size_t len)
{
	size_t used = (size_t)snprintf(buf, len, "%s ", it->t->name);
	const struct opt *length = run_length_row(it->t->opts);
	long long secs = it->secs;
	char *tok;

	/* A test the suite does not run (qualify's hwlat may be one): its
	 * length option alone. */
	if (it->t->suite_args)
		secs = it->t->suite_args(buf + used, len - used, it->secs, s->prio);
	else if (length && length->long_name)
		snprintf(buf + used, len - used, "--%s=%lld", length->long_name, secs);
	else if (length)
		snprintf(buf + used, len - used, "-%c %lld", length->short_name, secs);
	if (it->extra) {
		used = strlen(buf);
		snprintf(buf + used, len - used, " %s", it->extra);
	}

	*n = 0;
	av[(*n)++] = "rtlat";
	for (tok = strtok(buf, " "); tok && *n < SUITE_MAX_ARGS - SUITE_ADDED_ARGS; tok = strtok(NULL, " "))
		av[(*n)++] = tok;
	return secs;
}

/* The test's records: its series for the table, its threads' parts
 * (one per CPU: many on a big machine) for the fleet outputs only. */
static void read_rows(struct suite_run *s, struct fleet *fl, int fd,
		      const char *test)
{
	char *line, *save;
	struct fleet_rec rec;
	struct row *r;

	/* A stop signal interrupts read(); the test still reports, so
	 * read_text goes on until it closes the pipe. */
	read_text(fd, s->text, sizeof(s->text));
	for (line = strtok_r(s->text, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		if (fleet_rec_parse(line, test, &rec))
			continue;
		fleet_add(fl, &rec);
		if (rec.thread >= 0 || s->nrows == SUITE_MAX_ROWS)
			continue;
		r = &s->rows[s->nrows++];
		snprintf(r->test, sizeof(r->test), "%s", test);
		snprintf(r->line, sizeof(r->line), "%s", line);
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

/*
 * --checkpoint, --timeline and --largest for t, where its table has the
 * option: the suite's values, resolved for the whole suite (its
 * defaults: suite_ckpt_start); --largest when it is not t's default.
 * Into av, the strings in buf[3]; returns how many.
 */
static int long_run_args(const struct suite_run *s, const struct test_ops *t,
			 char **av, char buf[][48], size_t len)
{
	const struct opt *largest = opts_find(t->opts, 0, "largest");
	const struct {
		const char *name;
		long long v;
		bool pass;
	} arg[3] = {
		{ "checkpoint", s->checkpoint_s, s->checkpoint_s > 0 },
		{ "timeline", s->rec.timeline_s, s->rec.timeline_s > 0 },
		{ "largest", s->rec.largest, largest && s->rec.largest != largest->dflt },
	};
	int i, n = 0;

	for (i = 0; i < 3; i++)
		if (arg[i].pass && opts_find(t->opts, 0, arg[i].name)) {
			snprintf(buf[n], len, "--%s=%lld", arg[i].name, arg[i].v);
			av[n] = buf[n];
			n++;
		}
	return n;
}

/* Run av as a child whose output goes to out and its records to the
 * pipe fds (wfd -1: none, and rfd -1); its exit status (or 128+signal). */
static int run_child(struct suite_run *s, struct fleet *fl, char **av, int out,
		     const int fds[2], const char *test)
{
	int status = 0;
	pid_t suite = getpid(), pid = fork();

	if (pid == 0) {
		if (fds[0] >= 0)
			close(fds[0]);
		child(av, out, fds[1], suite);
	}
	/* A stop signal to the suite reaches its test too; SIGUSR1 too,
	 * from the status thread. */
	stopsig_forward(pid);
	suite_status_child(&s->status, pid);
	if (fds[1] >= 0)
		close(fds[1]);
	close(out);
	if (fds[0] >= 0) {
		read_rows(s, fl, fds[0], test);
		close(fds[0]);
	}
	/* Not reaped yet, so its pid is not anyone else's. */
	suite_status_child(&s->status, 0);
	while (pid > 0 && waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	stopsig_forward(0);
	if (pid < 0)
		return -1;
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return WEXITSTATUS(status);
}

int suite_child(struct suite_run *s, char **av, const char *path)
{
	char why[PATH_MAX + 256];
	int out = outfile_create(path, why, sizeof(why));
	const int none[2] = { -1, -1 };

	if (out < 0) {
		fprintf(stderr, "%s: %s: %s\n", s->prog, path, why);
		return -1;
	}
	return run_child(s, NULL, av, out, none, NULL);
}

/* Run one item; returns its exit status (or 128+signal). */
static int suite_run(struct suite_run *s, struct fleet *fl,
		     struct suite_item *it, const char *dir)
{
	char buf[256], path[4200], json[4200], why[PATH_MAX + 256], ckpt[3][48];
	char *av[SUITE_MAX_ARGS];
	struct load_run load;
	int n, fds[2], out, status;
	long long secs = build_args(s, it, av, &n, buf, sizeof(buf));

	snprintf(json, sizeof(json), "--json=%s/%s.json", dir, it->name);
	av[n++] = json;
	n += long_run_args(s, it->t, av + n, ckpt, sizeof(ckpt[0]));
	if (s->explain && opts_find(it->t->opts, 0, "explain"))
		av[n++] = "--explain";
	av[n] = NULL;
	snprintf(path, sizeof(path), "%s/%s.txt", dir, it->name);
	if (!s->quiet)
		fprintf(stderr, "%s: running %s%s for about %llds\n", s->prog,
			it->name, it->load ? " under load" : "", secs);
	/* The load starts before the test and stops after it is reaped. */
	if (it->load && load_start(&load, &s->load, s->prog, secs)) {
		load_stop(&load, &it->done);
		return 1;
	}
	/* Written as it grows, but by the output rule's walk (outfile.h). */
	out = outfile_create(path, why, sizeof(why));
	if (out < 0 || pipe(fds)) {
		fprintf(stderr, "%s: %s: %s\n", s->prog, path,
			out < 0 ? why : strerror(errno));
		if (out >= 0)
			close(out);
		if (it->load)
			load_stop(&load, &it->done);
		return 1;
	}
	status = run_child(s, fl, av, out, fds, it->name);
	if (it->load)
		load_stop(&load, &it->done);
	return status;
}

static void print_table(const struct suite_run *s)
{
	char name[64];
	unsigned long long n;
	long long mn, mx, p99, p9999;
	double avg;
	int i;

	printf("%-10s %-24s %10s %9s %9s %9s %9s %9s\n", "test", "series",
	       "samples", "min", "avg", "p99", "p99.99", "max");
	for (i = 0; i < s->nrows; i++) {
		if (sscanf(s->rows[i].line, "%63[^\t]\t%llu\t%lld\t%lf\t%lld\t%lld\t%lld",
			   name, &n, &mn, &avg, &mx, &p99, &p9999) != 7)
			continue;
		printf("%-10s %-24s %10llu %9.2f %9.2f %9.2f %9.2f %9.2f\n",
		       s->rows[i].test, name, n, mn / 1e3, avg / 1e3, p99 / 1e3,
		       p9999 / 1e3, mx / 1e3);
	}
	printf("(microseconds; percentiles are histogram upper bounds)\n");
}

/* -o was checked by the option parser (OPT_DIR_OUT); this makes it. */
static int make_dir(const struct suite_run *s, char *dir, size_t len)
{
	time_t t = time(NULL);
	struct tm tm;

	if (!s->outdir) {
		localtime_r(&t, &tm);
		mkdir("results", 0755);
		strftime(dir, len, "results/rtlat-%Y%m%d-%H%M%S", &tm);
	} else {
		snprintf(dir, len, "%s", s->outdir);
	}
	if (mkdir(dir, 0755) && errno != EEXIST) {
		opts_error(s->prog, opts_find(s->opts, 'o', NULL),
			   "cannot create '%s': %s; accepted: a writable directory, or a new one in an existing writable directory",
			   dir, strerror(errno));
		return -1;
	}
	return 0;
}

/* registry.json beside the results: what the report reads on a host
 * that has the results but not this binary. */
static int write_registry(const struct suite_run *s, const char *dir)
{
	char path[PATH_MAX];
	struct outfile of;
	FILE *f;

	if (snprintf(path, sizeof(path), "%s/registry.json", dir) >= (int)sizeof(path)) {
		fprintf(stderr, "rtlat suite: %s: path too long\n", dir);
		return -1;
	}
	f = outfile_open(&of, s->prog, "-o", path);
	if (!f)
		return -1;
	s->reg->list_json(f);
	return outfile_close(&of, s->prog);
}

/* What is checked and made before any test runs: 0, or the exit status. */
static int suite_prepare(struct suite_run *s, struct fleet *fl, char *dir,
			 size_t len)
{
	if (fleet_check(fl, s->prog, s->opts))
		return OPTS_EXIT_USAGE;
	if (s->report && !suite_find_report(s)) {
		opts_error(s->prog, opts_find(s->opts, 0, "report"),
			   "rtlat-report is not installed; accepted: with rtlat-report on the PATH, beside rtlat or in $RTLAT_REPORT (make install, or pip install ./report)");
		return OPTS_EXIT_USAGE;
	}
	if (make_dir(s, dir, len))
		return OPTS_EXIT_USAGE;
	return write_registry(s, dir) ? 1 : 0;
}

/* index.json before the first test: every test asked, pending; and the
 * default --checkpoint, from the suite's planned length. */
static void suite_ckpt_start(struct suite_run *s, const char *dir)
{
	double planned = 0;
	int i;

	suite_ckpt_begin(&s->ckpt, dir, 0);
	s->ckpt.prog = s->prog;
	for (i = 0; i < s->nitems; i++) {
		suite_ckpt_add(&s->ckpt, s->items[i].name, s->items[i].phase,
			       s->items[i].why);
		planned += s->items[i].why ? 0 : (double)s->items[i].secs;
	}
	s->ckpt.planned_s = planned;
	/* A test's defaults, for the suite's whole run: the time line when
	 * it is planned over an hour, checkpoints when the time line is on. */
	if (s->rec.timeline_s == OPT_AUTO)
		s->rec.timeline_s = run_timeline_default_s((long long)planned);
	if (s->checkpoint_s < 0)
		s->checkpoint_s = checkpoint_default_s(s->rec.timeline_s);
	s->ckpt.outputs = s->checkpoint_s > 0;
	suite_ckpt_set(&s->ckpt, NULL, "", SC_PENDING, 0);
}

/* Every item, the table and the report: 1 if one failed or a stop
 * signal came, else 0. */
static int suite_all(struct suite_run *s, struct fleet *fl, const char *dir)
{
	int i, rc, failed = 0;
	unsigned long long asked = 0;
	struct suite_item *it;

	/* SIGUSR1 is the status thread's, here and in each test (the mask
	 * goes over exec): it never ends the suite or a test. */
	status_signal_block();
	stopsig_install(NULL);
	if (isatty(STDERR_FILENO))	/* as each test would (run.c) */
		preflight_print_short(stderr, s->prog);
	suite_ckpt_start(s, dir);
	for (i = 0; i < s->nitems; i++)
		asked |= s->items[i].reg < SUITE_STATUS_MAX ? 1ULL << s->items[i].reg : 0;
	suite_status_begin(&s->status, s->reg->tests, asked, s->ckpt.planned_s);
	for (i = 0; i < s->nitems && !stopsig_last(); i++) {
		it = &s->items[i];
		if (it->why)
			continue;	/* a phase this rtlat cannot run */
		suite_ckpt_set(&s->ckpt, fl, it->name, SC_RUNNING, 0);
		suite_status_running(&s->status, it->reg);
		rc = suite_run(s, fl, it, dir);
		suite_status_done(&s->status, it->reg, rc);
		if (it->load)
			s->ckpt.t[i].load = &it->done;
		suite_ckpt_set(&s->ckpt, fl, it->name, SC_DONE, rc);
		if (rc) {
			fprintf(stderr, "%s: %s exited with status %d (see %s/%s.txt)\n",
				s->prog, it->name, rc, dir, it->name);
			failed = 1;
		}
	}
	suite_status_end(&s->status);
	if (stopsig_last())
		fprintf(stderr, "%s: stopped by %s; the table shows what ran\n",
			s->prog, strsignal(stopsig_last()));
	suite_ckpt_end(&s->ckpt, fl, failed || stopsig_last());
	print_table(s);
	printf("results: %s\n", dir);
	if (s->report && s->nrows && suite_write_report(s, dir))
		failed = 1;
	return failed || stopsig_last() ? 1 : 0;
}

/* Parsed and checked, the tests run, judged: the exit status. */
static int suite_main_run(struct suite_run *s, int argc, char **argv)
{
	struct fleet_test known[FLEET_TESTS_MAX];
	struct fleet fl;
	char dir[4096];
	int status;

	if (run_parse(s->prog, s->title, s->opts, NULL, argc, argv) ||
	    check_only(s) || load_check(s->prog, &s->load, s->opts))
		return OPTS_EXIT_USAGE;
	status = (s->plan ? s->plan : suite_plan)(s);
	if (status)
		return status;
	s->fleet.iterations = 1;	/* each test once (index.json's "fleet") */
	/* After --only: the thresholds are checked against the tests run. */
	fleet_begin(&fl, &s->fleet, s->plan ? "qualify" : "suite", known,
		    measured(s, known, FLEET_TESTS_MAX));
	status = suite_prepare(s, &fl, dir, sizeof(dir));
	if (!status && s->before && (status = s->before(s, dir)) != 0) {
		/* Nothing measured: the index says so, the outputs are written. */
		suite_ckpt_start(s, dir);
		suite_ckpt_end(&s->ckpt, &fl, status);
		status = fleet_end(&fl, s->prog, status);
	} else if (!status) {
		status = fleet_end(&fl, s->prog, suite_all(s, &fl, dir));
	}
	fleet_free(&fl);
	return status;
}

/* rtlat suite's face: its name, title and table. */
static struct opt *suite_face(struct suite_run *s)
{
	s->prog = "rtlat suite";
	s->title = suite_title;
	return suite_options(s, s->reg->tests);
}

int suite_start(const struct suite_registry *reg, int argc, char **argv,
		struct opt *(*face)(struct suite_run *s))
{
	struct suite_run *s = calloc(1, sizeof(*s));
	int status;

	if (s) {
		s->reg = reg;
		s->opts = face(s);
	}
	if (!s || !s->opts) {
		fprintf(stderr, "rtlat: cannot set up: %s\n", strerror(ENOMEM));
		free(s);
		return 1;
	}
	status = suite_main_run(s, argc, argv);
	free(s->opts);
	free(s);
	return status;
}

int suite_main(const struct suite_registry *reg, int argc, char **argv)
{
	return suite_start(reg, argc, argv, suite_face);
}
