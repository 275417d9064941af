// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * request.c - rtlat request (trltp): options and their checks, the
 * sockets (a busy port or a refused connection is bad input), the shared
 * memory, what every forked process does first, and the entry point.
 * The run itself is in request_run.c. Statistics live in shared memory
 * written only by the client; main reads them when a round is done or
 * the run stops.
 */
#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>
#include "cleanup.h"
#include "clock.h"
#include "opts.h"
#include "request.h"
#include "request_net.h"
#include "results.h"
#include "rtsetup.h"
#include "stopsig.h"
#include "subcommands.h"


static struct req_config cfg;

static struct opt req_opts[] = {
	{ 'C', "rate", OPT_INT, OPT_ARG_REQUIRED, "HZ", 1, 10000, 0, &cfg.rate_hz,
	  "client's POSIX timer rate in Hz (default 1000)", NULL, false },
	{ 'p', "port", OPT_INT, OPT_ARG_REQUIRED, "PORT", 1, 65535, 0, &cfg.port,
	  "TCP port of the server (default 20000 with -s/-c; local: a free one)", NULL, false },
	{ 's', "server", OPT_FLAG, OPT_ARG_NONE, NULL, 0, 0, 0, &cfg.server_only,
	  "run only the server (for a client on another host)", NULL, false },
	{ 'c', "client", OPT_STRING, OPT_ARG_REQUIRED, "HOST", 0, 0, 0, &cfg.host,
	  "run only the client and loads, calling the server on HOST", NULL, false },
	{ 'a', "async", OPT_FLAG, OPT_ARG_NONE, NULL, 0, 0, 0, &cfg.async,
	  "set O_ASYNC on the client's socket", NULL, false },
	{ 'l', "log", OPT_PATH_OUT, OPT_ARG_REQUIRED, "FILE", 0, 0, 0, &cfg.log,
	  "write the CSV log with 10 us histograms to FILE", NULL, false },
	{ 'i', "rounds", OPT_INT, OPT_ARG_REQUIRED, "N", 1, REQ_MAX_ROUNDS, 0, &cfg.rounds,
	  "rounds 0..N-1, round k with k load processes (default 4)", NULL, false },
	{ 'D', "debug", OPT_FLAG, OPT_ARG_NONE, NULL, 0, 0, 0, &cfg.debug,
	  "debug output on stderr (processes, connections)", NULL, false },
	{ 0, "samples", OPT_INT, OPT_ARG_REQUIRED, "N", 1, 1LL << 40, 0, &cfg.samples,
	  "cycles per round (default 100000)", NULL, false },
	{ 0, "sleep", OPT_INT, OPT_ARG_REQUIRED, "USEC", 0, 1000000, 0, &cfg.sleep_us,
	  "server's nanosleep per request in us (default 100)", NULL, false },
	{ 0, "bind", OPT_STRING, OPT_ARG_REQUIRED, "ADDR", 0, 0, 0, &cfg.bind,
	  "with -s: address to listen on (default 0.0.0.0, all interfaces)", NULL, false },
	{ 0, "timeout", OPT_INT, OPT_ARG_REQUIRED, "SEC", 1, 3600, 0, &cfg.timeout_s,
	  "server closes a client silent this long (default 10)", NULL, false },
	{ 0, "main-cpu", OPT_CPU, OPT_ARG_REQUIRED, "CPU", 0, 0, 0, &cfg.main_cpu,
	  "CPU of the main process", NULL, false },
	{ 0, "server-cpu", OPT_CPU, OPT_ARG_REQUIRED, "CPU", 0, 0, 0, &cfg.server_cpu,
	  "CPU of the server", NULL, false },
	{ 0, "client-cpu", OPT_CPU, OPT_ARG_REQUIRED, "CPU", 0, 0, 0, &cfg.client_cpu,
	  "CPU of the client", NULL, false },
	{ 0, "load-cpus", OPT_STRING, OPT_ARG_REQUIRED, "LIST", 0, 0, 0, &cfg.load_cpus,
	  "CPUs of the load processes, e.g. 3-7 or 1,3 (round robin)", NULL, false },
	{ 0, "json", OPT_PATH_OUT, OPT_ARG_REQUIRED, "FILE", 0, 0, 0, &cfg.json,
	  "write every series of every round as JSON to FILE", NULL, false },
	RT_OPT_ENTRIES(&cfg.strict, &cfg.no_mlock, &cfg.no_dma_latency),
	{ 'h', "help", OPT_HELP, OPT_ARG_NONE, NULL, 0, 0, 0, NULL,
	  "print this help", NULL, false },
	OPT_END
};

/* Also copied into the shared stop flag. */
volatile sig_atomic_t req_stop_requested;
static struct req_shared *g_sh;

static void on_stop_signal(int sig)
{
	(void)sig;
	req_stop_requested = 1;
	if (g_sh)
		g_sh->stop = 1;
}

static void install_signals(void)
{
	stopsig_install(on_stop_signal);
	signal(SIGPIPE, SIG_IGN);
}

void req_fail(struct req_shared *sh, const char *fmt, ...)
{
	va_list ap;

	/* After a stop request, a broken call is the stop, not a failure. */
	if (sh->stop || !__sync_bool_compare_and_swap(&sh->error, 0, 1))
		return;
	va_start(ap, fmt);
	vsnprintf(sh->msg, sizeof(sh->msg), fmt, ap);
	va_end(ap);
}

void req_child_begin(struct req_run *run, const char *name, int keep_fd,
		     int policy, int prio, int cpu)
{
	if (cleanup_child_setup())
		_exit(1);
	rt_child_init();
	/* Main alone decides when the run ends. */
	signal(SIGINT, SIG_IGN);
	signal(SIGTERM, SIG_IGN);
	signal(SIGHUP, SIG_IGN);
	prctl(PR_SET_NAME, name);
	/* Only the server listens, only the client talks to it. */
	if (run->listen_fd >= 0 && run->listen_fd != keep_fd)
		close(run->listen_fd);
	if (run->conn_fd >= 0 && run->conn_fd != keep_fd)
		close(run->conn_fd);
	if (rt_thread_setup_policy(policy, prio, cpu)) {
		req_fail(run->sh, "%s: a real-time setting could not be applied (--strict)",
			 name);
		_exit(1);
	}
}

static void defaults(void)
{
	memset(&cfg, 0, sizeof(cfg));
	cfg.rate_hz = 1000;
	cfg.port = 20000;
	cfg.rounds = 4;
	cfg.samples = 100000;
	cfg.sleep_us = 100;
	cfg.timeout_s = 10;
	cfg.main_cpu = cfg.server_cpu = cfg.client_cpu = -1;
}

static int usable_cpus(int *cpus, int max)
{
	cpu_set_t set;
	int c, n = 0;

	if (sched_getaffinity(0, sizeof(set), &set)) {
		for (c = 0; c < cpus_online() && n < max; c++)
			cpus[n++] = c;
		return n;
	}
	for (c = 0; c < CPU_SETSIZE && n < max; c++)
		if (CPU_ISSET(c, &set))
			cpus[n++] = c;
	return n;
}

static void list_text(char *buf, size_t len, const struct req_layout *l)
{
	size_t o = 0;
	int i;

	buf[0] = '\0';
	for (i = 0; i < l->nload_cpus && o + 8 < len; i++)
		o += (size_t)snprintf(buf + o, len - o, "%s%d", i ? "," : "",
				      l->load_cpus[i]);
}

/* -i's range as the default layout allows, so its error names it;
 * with --load-cpus, make_layout() checks it against the list given. */
static void rounds_range(int argc, char **argv)
{
	int cpus[CPU_SETSIZE], n = usable_cpus(cpus, CPU_SETSIZE), i;
	struct req_layout l;

	for (i = 1; i < argc; i++)
		if (!strncmp(argv[i], "--load-cpus", 11))
			return;
	req_layout_default(&l, cpus, n > 0 ? n : 1);
	opts_find(req_opts, 'i', NULL)->max = req_max_loads(&l) + 1;
}

static int make_layout(struct req_run *run)
{
	struct req_layout *l = &run->layout;
	int cpus[CPU_SETSIZE], n = usable_cpus(cpus, CPU_SETSIZE), bad;
	char list[256];
	bool custom = false;

	req_layout_default(l, cpus, n > 0 ? n : 1);
	if (cfg.load_cpus) {
		if (req_parse_cpu_list(cfg.load_cpus, l, &bad)) {
			struct opt *o = opts_find(req_opts, 0, "load-cpus");

			if (bad >= 0)
				opts_error(run->prog, o, "CPU %d is not online; accepted: a list of online CPUs, 0 to %d",
					   bad, cpus_online() - 1);
			else
				opts_error(run->prog, o, "'%s' is not accepted; accepted: a list like 3-7 or 1,3 of online CPUs",
					   cfg.load_cpus);
			return -1;
		}
		custom = true;
	}
	if (cfg.main_cpu >= 0)
		l->main_cpu = (int)cfg.main_cpu;
	if (cfg.server_cpu >= 0)
		l->server_cpu = (int)cfg.server_cpu;
	if (cfg.client_cpu >= 0)
		l->client_cpu = (int)cfg.client_cpu;
	if (custom || cfg.main_cpu >= 0 || cfg.server_cpu >= 0 ||
	    cfg.client_cpu >= 0)
		l->rule = "set by options";
	if (run->mode != REQ_SERVER_ONLY && cfg.rounds - 1 > req_max_loads(l)) {
		list_text(list, sizeof(list), l);
		opts_error(run->prog, opts_find(req_opts, 'i', NULL),
			   "%lld rounds need %lld load processes; accepted: 1 to %d (at most %d load processes per load CPU, %d in all; load CPUs: %s)",
			   cfg.rounds, cfg.rounds - 1, req_max_loads(l) + 1,
			   REQ_LOADS_PER_CPU, REQ_MAX_LOADS, list);
		return -1;
	}
	return 0;
}

static int check_modes(struct req_run *run)
{
	if (cfg.server_only && cfg.host) {
		opts_error(run->prog, opts_find(req_opts, 's', NULL),
			   "not with -c; accepted: -s on the server host, -c HOST on the client host");
		return -1;
	}
	if (cfg.bind && !cfg.server_only) {
		opts_error(run->prog, opts_find(req_opts, 0, "bind"),
			   "only with -s; accepted: an address to listen on with -s (the local test listens on 127.0.0.1 only)");
		return -1;
	}
	run->mode = cfg.server_only ? REQ_SERVER_ONLY :
		    cfg.host ? REQ_CLIENT_ONLY : REQ_LOCAL;
	return 0;
}

static int parse(struct req_run *run, int argc, char **argv)
{
	int ind;

	defaults();
	rounds_range(argc, argv);
	ind = opts_parse(run->prog,
			 "[OPTIONS]\n\nTwo-way request latency over TCP while load processes run (TRLTP).",
			 req_opts, argc, argv);
	if (ind < 0)
		return -1;
	if (ind < argc) {
		fprintf(stderr, "%s: unexpected argument '%s'; see %s --help\n",
			run->prog, argv[ind], run->prog);
		return -1;
	}
	if (check_modes(run) || make_layout(run))
		return -1;
	run->cfg = cfg;
	run->tg.period_ns = NSEC_PER_SEC / cfg.rate_hz;
	run->tg.sleep_ns = cfg.sleep_us * NSEC_PER_USEC;
	run->tg.two_hosts = run->mode == REQ_CLIENT_ONLY;
	return 0;
}

/* Sockets before anything else: a busy port or a refused connection is
 * bad input (exit 2), found before a process or file exists. */
static int open_sockets(struct req_run *run)
{
	struct req_net_error e = { 0 };
	int err = 0;

	/* Local mode without -p: a port the kernel picks on loopback, so two
	 * runs at once never collide. -p, -s and -c keep the fixed port. */
	if (run->mode == REQ_LOCAL && !opts_find(req_opts, 'p', NULL)->given)
		cfg.port = 0;
	if (run->mode != REQ_CLIENT_ONLY)
		err = req_net_listen(run->mode == REQ_LOCAL ? "127.0.0.1" :
				     cfg.bind ? cfg.bind : "0.0.0.0", (int)cfg.port,
				     &run->listen_fd, run->where,
				     sizeof(run->where), &e);
	if (!err && !cfg.port)
		cfg.port = run->cfg.port = req_net_bound_port(run->listen_fd,
							     run->where,
							     sizeof(run->where));
	if (!err && run->mode != REQ_SERVER_ONLY)
		err = req_net_connect(run->mode == REQ_LOCAL ? "127.0.0.1" : cfg.host,
				      (int)cfg.port, &run->conn_fd,
				      run->mode == REQ_LOCAL ? NULL : run->where,
				      sizeof(run->where), &e);
	if (err)
		opts_error(run->prog, opts_find(req_opts, e.short_opt, e.long_opt),
			   "%s", e.msg);
	return err;
}

static void set_hist(struct req_run *run, struct stats *s, enum req_series k,
		     uint64_t *mem)
{
	int64_t origin = 0;

	/* Aligned to the log's 10 us bins, centred where values fall. */
	if (k == RS_INTERVAL && run->tg.period_ns > 5 * NSEC_PER_MSEC)
		origin = run->tg.period_ns - 5 * NSEC_PER_MSEC;
	else if (k == RS_SLEEP || (k == RS_RESPONSE && !run->tg.two_hosts))
		origin = run->tg.sleep_ns;
	origin -= origin % REQ_LOG_BIN_NS;
	stats_reset(s);
	hist_init_mem(&s->hist, origin, REQ_HIST_BUCKET_NS, REQ_HIST_BUCKETS, mem);
}

static int alloc_shared(struct req_run *run)
{
	int k, s, nr = (int)cfg.rounds;
	size_t per = hist_bytes(REQ_HIST_BUCKETS);

	run->sh_bytes = sizeof(struct req_shared) + nr * sizeof(struct req_round);
	run->sh = shared_alloc(run->sh_bytes);
	run->hist_bytes = per * RS_N * nr;
	run->hist_mem = shared_alloc(run->hist_bytes);
	if (!run->sh || !run->hist_mem)
		return -ENOMEM;
	run->sh->round = -1;
	run->sh->stop = req_stop_requested;
	g_sh = run->sh;
	for (k = 0; k < nr; k++)
		for (s = 0; s < RS_N; s++)
			set_hist(run, &run->sh->rounds[k].s[s], s,
				 run->hist_mem + (size_t)(k * RS_N + s) * REQ_HIST_BUCKETS);
	return 0;
}


int request_main(int argc, char **argv)
{
	static struct req_run run;
	const char *slash = strrchr(argv[0], '/');
	struct results res;
	int ret;

	memset(&run, 0, sizeof(run));
	run.prog = slash ? slash + 1 : argv[0];
	run.listen_fd = run.conn_fd = -1;
	if (parse(&run, argc, argv))
		return OPTS_EXIT_USAGE;
	install_signals();
	if (open_sockets(&run))
		return OPTS_EXIT_USAGE;
	results_begin(&res, cfg.json, "request", argc, argv);
	if (cleanup_init() || alloc_shared(&run)) {
		fprintf(stderr, "%s: cannot set up: %s\n", run.prog, strerror(ENOMEM));
		cleanup_run();
		return 1;
	}
	if (run.mode == REQ_SERVER_ONLY)
		ret = req_serve(&run, &res);
	else
		ret = req_measure(&run, &res);
	cleanup_run();
	return ret;
}
