// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * run.c - the lifecycle every test goes through (see test.h): the only
 * place that installs the stop signals, parses, begins the results,
 * sets up cleanup and real-time, and tears it all down.
 */
#include <ctype.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include "system/cleanup.h"
#include "measure/clock.h"
#include "explain/explain.h"
#include "system/preflight.h"
#include "harness/status.h"
#include "harness/test.h"
#include "system/tracefs.h"

const char *run_base_name(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash ? slash + 1 : path;
}

bool run_compat(const struct test_run *t)
{
	return t->ops->compat && !strcmp(t->prog, t->ops->compat);
}

bool run_in_suite(void)
{
	return getenv("RTLAT_SUMMARY_FD") != NULL;
}

int run_parse(const char *prog, const char *title, struct opt *tbl,
	      bool *given, int argc, char **argv)
{
	char synopsis[200];
	int ind;

	snprintf(synopsis, sizeof(synopsis), "[OPTIONS]\n\n%s.", title);
	synopsis[11] = (char)toupper((unsigned char)synopsis[11]);
	opts_defaults(tbl);
	ind = opts_parse(prog, synopsis, tbl, given, argc, argv);
	if (ind < 0)
		return -1;
	if (ind < argc) {
		fprintf(stderr, "%s: unexpected argument '%s'; see %s --help\n",
			prog, argv[ind], prog);
		return -1;
	}
	return 0;
}

int run_thread(pthread_t *t, void *(*fn)(void *), void *arg)
{
	pthread_attr_t attr;
	int err = rt_thread_attr(&attr);

	if (!err)
		err = pthread_create(t, &attr, fn, arg);
	pthread_attr_destroy(&attr);
	return err;
}

/*
 * The doctor's verdict, short, before measuring, for a user at a terminal
 * (stderr a tty, as the progress lines): nothing when all is ok. Not for
 * scripts, whose failures stay one line; not under a compatible name (the
 * original's output); not in a suite's test (the suite says it once); not
 * for doctor itself. Every result's JSON has it ("doctor").
 */
static void doctor_line(const struct test_run *t)
{
	if (!isatty(STDERR_FILENO) || !t->ops->suite_args || run_compat(t) ||
	    run_in_suite())
		return;
	preflight_print_short(stderr, t->prog);
}

static int run_measure(struct test_run *t)
{
	const struct test_ops *ops = t->ops;
	struct rt_options ro = {
		.no_mlock = t->common->no_mlock,
		.no_dma_latency = t->common->no_dma_latency,
		.strict = t->common->strict,
	};

	doctor_line(t);
	if (rt_init(t->prog, &ro) || (ops->rt_apply && ops->rt_apply(t))) {
		t->error = "a real-time setting could not be applied (--strict)";
		return 1;
	}
	return ops->measure(t);
}

/* The janitor (a pipe and a process) and the test's own setup. The
 * reason is the real one: RLIMIT_NOFILE or RLIMIT_NPROC used to be
 * reported as "Cannot allocate memory" (found by the exhaustion tests). */
static int run_setup(struct test_run *t)
{
	int err = cleanup_init();

	if (!err && t->ops->setup) {
		errno = 0;
		if (t->ops->setup(t))
			err = errno ? -errno : -ENOMEM;
	}
	if (err)
		fprintf(stderr, "%s: cannot set up: %s%s\n", t->prog, strerror(-err),
			err == -EMFILE ? " (RLIMIT_NOFILE: ulimit -n)" :
			err == -EAGAIN ? " (RLIMIT_NPROC: ulimit -u)" : "");
	return err;
}

struct explain *run_explain_new(struct test_run *t, int nsrc)
{
	const struct test_common *c = t->common;

	if (!c->explain)
		return NULL;
	t->explain = explain_new(nsrc, c->explain_over_us * NSEC_PER_USEC);
	explain_set_trace_out(t->explain, c->trace_out, t->prog);
	return t->explain;
}

int run_explain_start(struct test_run *t)
{
	bool strict = t->common->strict;
	char err[300];

	if (!t->explain || !explain_start(t->explain, t->prog, err, sizeof(err))) {
		t->res.explain = t->explain;
		return 0;
	}
	fprintf(stderr, "%s: --explain: %s; %s\n", t->prog, err,
		strict ? "stopped (--strict)" : "running unexplained");
	snprintf(t->res.explain_unavailable, sizeof(t->res.explain_unavailable), "%s", err);
	explain_free(t->explain);
	t->explain = NULL;
	return strict ? -1 : 0;
}

/* --explain-over or --trace-out alone, or --trace-out no directory:
 * bad input. */
static int check_explain(struct test_run *t)
{
	const struct test_common *c = t->common;
	const struct opt *o = opts_find(t->opts, 0, "trace-out");
	struct stat st;

	if (c->explain_over_us && !c->explain) {
		opts_error(t->prog, opts_find(t->opts, 0, "explain-over"),
			   "needs --explain; accepted: --explain-over US together with --explain");
		return -1;
	}
	if (c->trace_out && !c->explain) {
		opts_error(t->prog, o, "needs --explain; accepted: --trace-out DIR together with --explain");
		return -1;
	}
	if (c->trace_out && (stat(c->trace_out, &st) || !S_ISDIR(st.st_mode) ||
			     access(c->trace_out, W_OK))) {
		opts_error(t->prog, o, "is not a writable directory; accepted: an existing directory");
		return -1;
	}
	return 0;
}

/* One run, from the results on (once per --iteration: fleet_iterate). */
static int run_once(void *arg)
{
	struct test_run *t = arg;
	const struct test_ops *ops = t->ops;
	int status;

	results_begin(&t->res, t->prog, t->common->json, ops->name, t->argc,
		      t->argv);
	if (run_record_begin(t) || run_setup(t)) {
		status = 1;
		goto out;
	}
	if (run_memory_check(t)) {
		status = OPTS_EXIT_USAGE;
		run_samples_end(t, status, true);
		goto out;
	}
	record_start(t->rec);
	t->act = action_start(t, &t->act_spec);
	checkpoint_begin(t);
	/* Before the measurement: a checkpoint must not fork (results.h). */
	if (checkpoint_writes_files(t) && t->res.path)
		results_cache_system(&t->res);
	status = run_measure(t);
	action_stop(t->act);
	t->act = NULL;
	checkpoint_end(t);
	/* A CPU that could not be measured (harness/starve.h): an error,
	 * whatever the test saw. */
	if (t->res.nstarved) {
		status = 1;
		if (!t->error)
			t->error = "a CPU could not be measured (said above): its verdict is error";
	}
	results_cache_free(&t->res);
	record_stop(t->rec);
	status = run_samples_end(t, status, false);
	if (t->explain)
		explain_stop(t->explain);
	status = ops->report(t, status);
	if (t->explain) {
		explain_print(stdout, t->explain);
		fflush(stdout);
	}
out:
	explain_free(t->explain);
	t->explain = NULL;
	t->res.explain = NULL;
	if (ops->teardown)
		ops->teardown(t);
	status = run_samples_end(t, status, false);
	record_free(t->rec);
	t->rec = NULL;
	t->res.rec = NULL;
	tracefs_close();
	rt_fini();
	cleanup_run();
	return status;
}

/* The run's own config and its copy of the option table, bound to it. */
static int run_bind(struct test_run *t)
{
	const struct test_ops *ops = t->ops;

	/* Every test has a config (cfg_size: its options, bound by offset). */
	t->cfg = ops->cfg_size ? calloc(1, ops->cfg_size) : NULL;
	if (!t->cfg)
		goto fail;
	t->common = (void *)((char *)t->cfg + (uintptr_t)ops->common);
	if (ops->run_size && !(t->state = calloc(1, ops->run_size)))
		goto fail;
	if (ops->extra_size && !(t->extra = calloc(1, ops->extra_size)))
		goto fail;
	t->opts = opts_bind(ops->opts, t->cfg, ops->extra_opts, t->extra);
	if (t->opts && (t->given = calloc((size_t)opts_count(t->opts) + 1, sizeof(bool))))
		return 0;
fail:
	fprintf(stderr, "%s: cannot set up: %s\n", t->prog, strerror(ENOMEM));
	return -1;
}

int run_nested(struct test_run *t, const struct test_ops *ops, const char *prog)
{
	memset(t, 0, sizeof(*t));
	t->ops = ops;
	t->prog = prog;
	if (run_bind(t))
		return -1;
	opts_defaults(t->opts);
	return 0;
}

void run_nested_free(struct test_run *t)
{
	free(t->opts);
	free(t->given);
	free(t->cfg);
	free(t->state);
	free(t->extra);
	t->opts = NULL;
	t->given = NULL;
	t->cfg = t->state = t->extra = NULL;
}

#define POLL_NS 10000000LL

/* A stop signal to this process reaches the iteration running
 * (fleet_iterate asks between iterations' records, every POLL_NS). */
static bool run_stop_seen(void *arg)
{
	const struct test_run *t = arg;

	if (t->ops->stop == STOP_BY_SIGWAIT)
		return run_stop_wait(POLL_NS);
	usleep(POLL_NS / 1000);
	return run_stop_requested;
}

/* An iteration in a child: a SIGUSR1 to this process goes to it. */
static void run_forward_status(void *arg, pid_t child)
{
	(void)arg;
	status_forward(child);
}

int run_test(const struct test_ops *ops, int argc, char **argv)
{
	static struct test_run t;
	struct fleet fleet = { .opts = NULL };	/* fleet_free before begin */
	const struct fleet_test self = { ops->name, ops->series };
	struct fleet_iter iter = {
		.once = run_once, .stop_seen = run_stop_seen,
		.forward = run_forward_status, .arg = &t,
	};
	int status = OPTS_EXIT_USAGE;

	memset(&t, 0, sizeof(t));
	t.ops = ops;
	t.prog = run_base_name(argv[0]);
	t.argc = argc;
	t.argv = argv;
	run_signals(ops);
	if (run_bind(&t)) {
		status = 1;
		goto out_opts;
	}
	fleet_begin(&fleet, &t.common->fleet, ops->name, &self, 1);
	t.res.fleet = &fleet;
	if (ops->compat_opts && run_compat(&t))
		ops->compat_opts(t.opts);
	/* The rt-tests face (started as pmqtest, or rtlat cyclictest: a test
	 * named as its rt-tests tool) keeps rt-tests' LAVA case names. */
	fleet.rt_tests_names = run_compat(&t) ||
		(ops->compat && !strcmp(ops->name, ops->compat));
	if (run_parse(t.prog, ops->title, t.opts, t.given, argc, argv))
		goto out_opts;
	/* check: -1 bad input (exit 2); 1 an error found before the run. */
	status = check_explain(&t);
	if (!status)
		status = action_check(&t, &t.act_spec);
	if (!status && ops->check)
		status = ops->check(&t);
	if (!status && fleet_check(&fleet, t.prog, t.opts))
		status = -1;
	tracefs_probe_end(t.prog, !status);
	if (status) {
		status = status > 0 ? 1 : OPTS_EXIT_USAGE;
		goto out_opts;
	}
	iter.prog = t.prog;
	status = fleet_iterate(&fleet, &iter);
	/* Refused after setup (run_memory_check): bad input, nothing written. */
	if (status != OPTS_EXIT_USAGE)
		status = fleet_end(&fleet, t.prog, status);
out_opts:
	action_spec_free(&t.act_spec);
	run_nested_free(&t);
	t.res.fleet = NULL;	/* t outlives this frame; the fleet does not */
	fleet_free(&fleet);
	return status;
}
