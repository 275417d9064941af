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
#include <limits.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>
#include "system/cleanup.h"
#include "measure/clock.h"
#include "explain/explain.h"
#include "util/opts.h"
#include "request/request_types.h"
#include "request/request_client.h"
#include "request/request_layout.h"
#include "request/request_run.h"
#include "request/request_spawn.h"
#include "request/request_net.h"
#include "harness/results.h"
#include "system/rtsetup.h"
#include "harness/test.h"
#include "request/request_test.h"

static const char *const prio_modes[] = { "propagate", "fixed", NULL };

static const struct opt req_opts[] = {
	{ .short_name = 'C', .long_name = "rate", .type = OPT_INT,
	  .arg = OPT_ARG_REQUIRED, .argname = "HZ", .min = 1, .max = REQ_MAX_RATE,
	  .dflt = 1000, .dest = OPT_AT(struct req_config, rate_hz),
	  .help = "client's POSIX timer rate in Hz (with --clients: of clients 1..N-1, default 10)",
	  .key = "rate_hz" },
	{ .short_name = 'p', .long_name = "port", .type = OPT_INT,
	  .arg = OPT_ARG_REQUIRED, .argname = "PORT", .min = 1, .max = 65535,
	  .dflt = 20000, .dest = OPT_AT(struct req_config, port),
	  .help = "TCP port of the server (the default with -s/-c; local: a free one)",
	  .key = "port" },
	{ .short_name = 's', .long_name = "server", .type = OPT_FLAG,
	  .arg = OPT_ARG_NONE, .dest = OPT_AT(struct req_config, server_only),
	  .help = "run only the server (for a client on another host)" },
	{ .short_name = 'c', .long_name = "client", .type = OPT_STRING,
	  .arg = OPT_ARG_REQUIRED, .argname = "HOST",
	  .dest = OPT_AT(struct req_config, host),
	  .help = "run only the client and loads, calling the server on HOST" },
	{ .short_name = 'a', .long_name = "async", .type = OPT_FLAG,
	  .arg = OPT_ARG_NONE, .dest = OPT_AT(struct req_config, async),
	  .help = "set O_ASYNC on the client's socket", .key = "async" },
	{ .short_name = 'l', .long_name = "log", .type = OPT_PATH_OUT,
	  .arg = OPT_ARG_REQUIRED, .argname = "FILE",
	  .dest = OPT_AT(struct req_config, log),
	  .help = "write the CSV log with 10 us histograms to FILE" },
	{ .short_name = 'i', .long_name = "rounds", .type = OPT_INT,
	  .arg = OPT_ARG_REQUIRED, .argname = "N", .min = 1, .max = REQ_MAX_ROUNDS,
	  .dflt = 4, .dest = OPT_AT(struct req_config, rounds),
	  .help = "rounds 0..N-1, round k with k load processes (at most 16 per load CPU)",
	  .key = "rounds" },
	{ .short_name = 'D', .long_name = "debug", .type = OPT_FLAG,
	  .arg = OPT_ARG_NONE, .dest = OPT_AT(struct req_config, debug),
	  .help = "debug output on stderr (processes, connections)" },
	OPT_ROW_QUIET(struct req_config, quiet,
		      "the summary table only: no layout, per-round blocks or progress (-l still logs each round)"),
	{ .long_name = "clients", .type = OPT_INT, .arg = OPT_ARG_REQUIRED,
	  .argname = "N", .min = 1, .max = REQ_MAX_CLIENTS, .dflt = 1,
	  .dest = OPT_AT(struct req_config, clients),
	  .help = "multi-client (ORB) test: client 0 at --rate0 and the highest priority, clients 1..N-1 at --rate and successively lower priorities" },
	{ .long_name = "rate0", .type = OPT_INT, .arg = OPT_ARG_REQUIRED,
	  .argname = "HZ", .min = 1, .max = REQ_MAX_RATE, .dflt = 20,
	  .dest = OPT_AT(struct req_config, rate0_hz),
	  .help = "with --clients: client 0's timer rate in Hz" },
	{ .long_name = "clients-sweep", .type = OPT_FLAG, .arg = OPT_ARG_NONE,
	  .dest = OPT_AT(struct req_config, sweep),
	  .help = "with --clients N: rounds with 1, 2, 4, ... N clients and no loads, instead of -i" },
	{ .long_name = "max-clients", .type = OPT_INT, .arg = OPT_ARG_REQUIRED,
	  .argname = "N", .min = 1, .max = REQ_MAX_CLIENTS, .dflt = REQ_MAX_CLIENTS,
	  .dest = OPT_AT(struct req_config, max_clients),
	  .help = "connections the server serves at once, the next refused (local test default: --clients)" },
	{ .long_name = "server-priority", .type = OPT_CHOICE, .arg = OPT_ARG_REQUIRED,
	  .argname = "MODE", .dflt = REQ_PRIO_PROPAGATE,
	  .dest = OPT_AT(struct req_config, server_prio_mode),
	  .help = "propagate: each connection served at the priority its client's frames carry; fixed: all at the server's own",
	  .choices = prio_modes, .key = "server_priority" },
	{ .long_name = "samples", .type = OPT_INT, .arg = OPT_ARG_REQUIRED,
	  .argname = "N", .min = 1, .max = 1LL << 40, .dflt = 100000,
	  .dest = OPT_AT(struct req_config, samples),
	  .help = "cycles per round (with --clients: of client 0)", .key = "samples" },
	{ .long_name = "sleep", .type = OPT_INT, .arg = OPT_ARG_REQUIRED,
	  .argname = "USEC", .max = 1000000, .dflt = 100,
	  .dest = OPT_AT(struct req_config, sleep_us),
	  .help = "server's nanosleep per request in us", .key = "sleep_us" },
	{ .long_name = "bind", .type = OPT_STRING, .arg = OPT_ARG_REQUIRED,
	  .argname = "ADDR", .dest = OPT_AT(struct req_config, bind),
	  .help = "with -s: address to listen on (default 0.0.0.0, all interfaces)" },
	{ .long_name = "timeout", .type = OPT_INT, .arg = OPT_ARG_REQUIRED,
	  .argname = "SEC", .min = 1, .max = 3600, .dflt = 10,
	  .dest = OPT_AT(struct req_config, timeout_s),
	  .help = "server closes a client silent this long",
	  .key = "server_idle_timeout_s" },
	{ .long_name = "main-cpu", .type = OPT_CPU, .arg = OPT_ARG_REQUIRED,
	  .argname = "CPU", .dflt = -1, .dest = OPT_AT(struct req_config, main_cpu),
	  .help = "CPU of the main process (default: the layout's)" },
	{ .long_name = "server-cpu", .type = OPT_CPU, .arg = OPT_ARG_REQUIRED,
	  .argname = "CPU", .dflt = -1, .dest = OPT_AT(struct req_config, server_cpu),
	  .help = "CPU of the server (default: the layout's)" },
	{ .long_name = "client-cpu", .type = OPT_CPU, .arg = OPT_ARG_REQUIRED,
	  .argname = "CPU", .dflt = -1, .dest = OPT_AT(struct req_config, client_cpu),
	  .help = "CPU of the client (default: the layout's)" },
	{ .long_name = "load-cpus", .type = OPT_CPU_LIST, .arg = OPT_ARG_REQUIRED,
	  .argname = "LIST", .dest = OPT_AT(struct req_config, load_cpus),
	  .help = "CPUs of the load processes, e.g. 3-7 or 1,3 (round robin)" },
	TEST_EXPLAIN_OPTS(OPT_AT_STRUCT(struct req_config, common)),
	TEST_COMMON_OPTS_OWN_SAMPLES(OPT_AT_STRUCT(struct req_config, common), "write every series of every round as JSON to FILE"),
	OPT_ROW_HELP,
	OPT_END
};

static bool given(const struct req_run *run, int short_name, const char *long_name)
{
	return opts_given(run->opts, run->given, short_name, long_name);
}

/*
 * Started as trltp, the design's program: one round unless -i says
 * otherwise (its TestLoop = 1), and -C out of 1..10000 clamped (its
 * main(), with a line on stderr here) rather than refused: any int,
 * as its atoi().
 */
static void req_compat_opts(struct opt *tbl)
{
	struct opt *o = opts_find(tbl, 'C', NULL);

	o->min = INT_MIN;
	o->max = INT_MAX;
	o->help = "client's POSIX timer rate in Hz, clamped to 1..10000 as the design";
	opts_find(tbl, 'i', NULL)->dflt = 1;
}

static void clamp_rate(struct req_run *run)
{
	long long v = run->cfg->rate_hz;
	long long c = v < 1 ? 1 : v > REQ_MAX_RATE ? REQ_MAX_RATE : v;

	if (c == v)
		return;
	fprintf(stderr, "%s: option -C/--rate: %lld is out of range; clamped to %lld, as the design (accepted: 1 to %d)\n",
		run->prog, v, c, REQ_MAX_RATE);
	run->cfg->rate_hz = c;
}

/* What the design's option parsing prints, before the run. */
static void design_echo(const struct req_run *run)
{
	if (given(run, 'p', NULL))
		printf("PORT %lld\n", run->cfg->port);
	if (given(run, 'C', NULL))
		printf("CYCLE %lld Hz\n", run->cfg->rate_hz);
	if (run->cfg->host)
		printf("address %s\n", run->cfg->host);
	fflush(stdout);
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

static int make_layout(struct req_run *run)
{
	struct req_layout *l = &run->layout;
	int cpus[CPU_SETSIZE], n = cpus_usable(cpus, CPU_SETSIZE);
	char list[256];
	bool custom = false;

	req_layout_default(l, cpus, n > 0 ? n : 1);
	if (run->cfg->load_cpus.n) {
		l->nload_cpus = run->cfg->load_cpus.n;
		memcpy(l->load_cpus, run->cfg->load_cpus.cpu, sizeof(int) * l->nload_cpus);
		custom = true;
	}
	if (run->cfg->main_cpu >= 0)
		l->main_cpu = (int)run->cfg->main_cpu;
	if (run->cfg->server_cpu >= 0)
		l->server_cpu = (int)run->cfg->server_cpu;
	if (run->cfg->client_cpu >= 0)
		l->client_cpu = (int)run->cfg->client_cpu;
	if (custom || run->cfg->main_cpu >= 0 || run->cfg->server_cpu >= 0 ||
	    run->cfg->client_cpu >= 0)
		l->rule = "set by options";
	if (run->mode != REQ_SERVER_ONLY && run->cfg->rounds - 1 > req_max_loads(l)) {
		list_text(list, sizeof(list), l);
		opts_error(run->prog, opts_find(run->opts, 'i', NULL),
			   "%lld rounds need %lld load processes; accepted: 1 to %d (at most %d load processes per load CPU, %d in all; load CPUs: %s)",
			   run->cfg->rounds, run->cfg->rounds - 1, req_max_loads(l) + 1,
			   REQ_LOADS_PER_CPU, REQ_MAX_LOADS, list);
		return -1;
	}
	return 0;
}


/* A round of the sweep: 1, 2, 4, ... clients, then N. */
static int sweep_clients(int k, int n)
{
	return k < 7 && (1 << k) < n ? 1 << k : n;
}

static int sweep_rounds(int n)
{
	int k = 0;

	while (sweep_clients(k, n) < n)
		k++;
	return k + 1;
}

static int orb_error(struct req_run *run, const char *opt, const char *msg)
{
	opts_error(run->prog, opts_find(run->opts, 0, opt), "%s", msg);
	return -1;
}

/* The multi-client options: where they apply, and what they imply. */
static int check_orb(struct req_run *run)
{
	run->orb = given(run, 0, "clients") || run->cfg->sweep;
	run->max_clients_given = given(run, 0, "max-clients");
	if (run->orb && run->cfg->server_only)
		return orb_error(run, run->cfg->sweep ? "clients-sweep" : "clients",
				 "not with -s; accepted: --clients N on the client host (the server serves up to --max-clients)");
	if (run->cfg->sweep && !given(run, 0, "clients"))
		return orb_error(run, "clients-sweep", "needs --clients N; accepted: --clients 1 to 64 --clients-sweep");
	if (run->cfg->sweep && given(run, 'i', NULL))
		return orb_error(run, "clients-sweep", "not with -i; accepted: the sweep's rounds are 1, 2, 4, ... N clients");
	if (!run->orb && given(run, 0, "rate0"))
		return orb_error(run, "rate0", "only with --clients; accepted: --clients N --rate0 1 to 10000");
	if (run->orb && !given(run, 'C', NULL))
		run->cfg->rate_hz = 10;
	if (run->cfg->sweep)
		run->cfg->rounds = sweep_rounds((int)run->cfg->clients);
	if (!run->cfg->sweep && run->cfg->clients * run->cfg->rounds > REQ_MAX_CLIENT_ROUNDS) {
		opts_error(run->prog, opts_find(run->opts, 0, "clients"),
			   "%lld clients in %lld rounds need %lld client-rounds of statistics; accepted: clients times rounds up to %d",
			   run->cfg->clients, run->cfg->rounds, run->cfg->clients * run->cfg->rounds,
			   REQ_MAX_CLIENT_ROUNDS);
		return -1;
	}
	return 0;
}

static int check_modes(struct req_run *run)
{
	if (run->cfg->server_only && run->cfg->host) {
		opts_error(run->prog, opts_find(run->opts, 's', NULL),
			   "not with -c; accepted: -s on the server host, -c HOST on the client host");
		return -1;
	}
	if (run->cfg->bind && !run->cfg->server_only) {
		opts_error(run->prog, opts_find(run->opts, 0, "bind"),
			   "only with -s; accepted: an address to listen on with -s (the local test listens on 127.0.0.1 only)");
		return -1;
	}
	run->mode = run->cfg->server_only ? REQ_SERVER_ONLY :
		    run->cfg->host ? REQ_CLIENT_ONLY : REQ_LOCAL;
	return check_orb(run);
}

/* Sockets before anything else: a busy port or a refused connection is
 * bad input (exit 2), found before a process or file exists. */
static int open_sockets(struct req_run *run)
{
	struct req_net_error e = { 0 };
	int err = 0;

	/* Local mode without -p: a port the kernel picks on loopback, so two
	 * runs at once never collide. -p, -s and -c keep the fixed port. */
	if (run->mode == REQ_LOCAL && !given(run, 'p', NULL))
		run->cfg->port = 0;
	if (run->mode != REQ_CLIENT_ONLY)
		err = req_net_listen(run->mode == REQ_LOCAL ? "127.0.0.1" :
				     run->cfg->bind ? run->cfg->bind : "0.0.0.0", (int)run->cfg->port,
				     &run->listen_fd, run->where,
				     sizeof(run->where), &e);
	if (!err && !run->cfg->port)
		run->cfg->port = req_net_bound_port(run->listen_fd, run->where,
						    sizeof(run->where));
	if (!err && run->mode != REQ_SERVER_ONLY)
		err = req_net_connect(run->mode == REQ_LOCAL ? "127.0.0.1" : run->cfg->host,
				      (int)run->cfg->port, &run->conn_fd,
				      run->mode == REQ_LOCAL ? NULL : run->where,
				      sizeof(run->where), &e);
	/* No socket at all is this process's limits, not the options. */
	if (err && e.resource) {
		fprintf(stderr, "%s: cannot open a socket: %s%s\n", run->prog,
			strerror(e.resource), e.resource == EMFILE ?
			" (RLIMIT_NOFILE: ulimit -n)" : "");
		return 1;
	}
	if (err)
		opts_error(run->prog, opts_find(run->opts, e.short_opt, e.long_opt),
			   "%s", e.msg);
	return err;
}

static void set_hist(const struct req_targets *tg, struct stats *s,
		     enum req_series k, uint64_t *mem)
{
	int64_t origin = 0;

	/* Aligned to the log's 10 us bins, centred where values fall. */
	if (k == RS_INTERVAL && tg->period_ns > 5 * NSEC_PER_MSEC)
		origin = tg->period_ns - 5 * NSEC_PER_MSEC;
	else if (k == RS_SLEEP || (k == RS_RESPONSE && !tg->two_hosts))
		origin = tg->sleep_ns;
	origin -= origin % REQ_LOG_BIN_NS;
	stats_reset(s);
	hist_init_mem(&s->hist, origin, REQ_HIST_BUCKET_NS, REQ_HIST_BUCKETS, mem);
}

/* A series' histogram storage, in counters (a log-linear histogram's
 * buckets: REQ_HIST_BUCKETS linear ones and the tail to 100 s). */
static size_t req_hist_words(void)
{
	return hist_bytes(REQ_HIST_BUCKET_NS, REQ_HIST_BUCKETS) / sizeof(uint64_t);
}

/* Round k: its clients and loads; returns its client count. */
static int plan_round(struct req_run *run, struct req_round *r, int k)
{
	r->nclients = run->cfg->sweep ? sweep_clients(k, (int)run->cfg->clients) :
		      run->orb ? (int)run->cfg->clients : 1;
	r->nloads = run->cfg->sweep ? 0 : k;
	return r->nclients;
}

static void set_client(struct req_run *run, struct req_cstat *c, int i,
		       uint64_t *mem)
{
	struct req_targets tg;
	int s;

	req_client_targets(run, i, &tg);
	for (s = 0; s < RS_N; s++)
		set_hist(&tg, &c->s[s], s, mem + (size_t)s * req_hist_words());
}

/* trltp -l: client i's design histograms, for as many clients as a
 * round has at most. */
static int alloc_design(struct req_run *run, int nclients)
{
	size_t heads = sizeof(struct histogram) * RS_N * (size_t)nclients;
	uint64_t *mem;
	int i;

	if (!run->compat || !run->cfg->log)
		return 0;
	run->design_bytes = heads + hist_bytes(REQ_LOG_BIN_NS, REQ_DESIGN_BINS) * RS_N * (size_t)nclients;
	run->design_hist = shared_alloc(run->design_bytes);
	if (!run->design_hist)
		return -ENOMEM;
	mem = (uint64_t *)((char *)run->design_hist + heads);
	for (i = 0; i < RS_N * nclients; i++)
		hist_init_mem(&run->design_hist[i], -REQ_DESIGN_ROUND_NS, REQ_LOG_BIN_NS,
			      REQ_DESIGN_BINS, mem + (size_t)i *
			      (hist_bytes(REQ_LOG_BIN_NS, REQ_DESIGN_BINS) / sizeof(*mem)));
	return 0;
}

static int alloc_shared(struct req_run *run)
{
	int k, i, nr = (int)run->cfg->rounds, total = 0, most = 0;
	struct req_cstat *cs;
	struct req_round tmp;

	for (k = 0; k < nr; k++) {
		total += plan_round(run, &tmp, k);
		most = tmp.nclients > most ? tmp.nclients : most;
	}
	run->sh_bytes = sizeof(struct req_shared) + nr * sizeof(struct req_round) +
			(size_t)total * sizeof(struct req_cstat);
	run->sh = shared_alloc(run->sh_bytes);
	run->hist_bytes = req_hist_words() * sizeof(uint64_t) * RS_N * (size_t)total;
	run->hist_mem = shared_alloc(run->hist_bytes);
	if (!run->sh || !run->hist_mem || alloc_design(run, most))
		return -ENOMEM;
	run->sh->round = -1;
	run_stop_flag(&run->sh->stop);
	cs = (struct req_cstat *)&run->sh->rounds[nr];
	for (k = 0, total = 0; k < nr; k++) {
		struct req_round *r = &run->sh->rounds[k];

		r->c = cs + total;
		for (i = 0; i < plan_round(run, r, k); i++, total++)
			set_client(run, &r->c[i], i, run->hist_mem +
				   (size_t)total * RS_N * req_hist_words());
	}
	return 0;
}

/* Bad input, a busy port or a refused connection: exit 2, nothing run. */
static int req_check(struct test_run *t)
{
	struct req_run *run = t->state;

	run->prog = t->prog;
	run->cfg = t->cfg;
	run->opts = t->opts;
	run->given = t->given;
	run->listen_fd = run->conn_fd = run->spawn_fd = -1;
	run->compat = run_compat(t);
	if (run->compat)
		clamp_rate(run);
	if (check_modes(run) || make_layout(run))
		return -1;
	if (run->mode == REQ_SERVER_ONLY && run->cfg->common.explain) {
		opts_error(t->prog, opts_find(t->opts, 0, "explain"),
			   "explains a client's responses; accepted: --explain without --server");
		return -1;
	}
	run->tg.period_ns = NSEC_PER_SEC / run->cfg->rate_hz;
	run->tg.sleep_ns = run->cfg->sleep_us * NSEC_PER_USEC;
	run->tg.two_hosts = run->mode == REQ_CLIENT_ONLY;
	return open_sockets(run);
}

/* --explain: each client's response; before its wake-up the time is on
 * the server's side (another CPU, or host). Made at setup, in shared
 * memory the clients note into (they are forked by the spawner, a copy
 * of the run from then); its thread starts with the measuring. */
static void explain_clients(struct test_run *t)
{
	struct req_run *run = t->state;
	struct explain *x = run_explain_new(t, (int)run->cfg->clients);
	int i;

	for (i = 0; i < explain_count(x); i++)
		explain_src_set(x, i, run->layout.client_cpu,
				"the server's side: the network and its reply", false,
				"client %d", i);
	run->explain = x;
}

static int req_setup(struct test_run *t)
{
	/* A peer that went away is an error of the call, not a signal. */
	struct req_run *run = t->state;
	int i, err;

	signal(SIGPIPE, SIG_IGN);
	for (i = 0; i < run->cfg->clients && i < REQ_MAX_CLIENTS; i++) {
		run->rec[i][0] = run_record(t, req_series[0], i, run->layout.client_cpu);
		run->rec[i][1] = run_record(t, req_series[1], i, run->layout.client_cpu);
	}
	err = alloc_shared(run);
	if (err || run->mode == REQ_SERVER_ONLY)
		return err;
	explain_clients(t);
	/* Last: the run has no thread yet (request_spawn.c). */
	err = req_spawner_start(run);
	if (err)
		errno = -err;
	return err;
}

/* Main runs SCHED_FIFO max (server-only: the server's place). */
static int req_rt_apply(struct test_run *t)
{
	const struct req_run *run = t->state;
	const struct req_layout *l = &run->layout;
	bool srv = run->mode == REQ_SERVER_ONLY;

	return rt_thread_setup_policy(SCHED_FIFO, srv ? l->server_prio : l->main_prio,
				      srv ? l->server_cpu : l->main_cpu);
}

static int req_run_measure(struct test_run *t)
{
	struct req_run *run = t->state;

	if (run->compat)
		design_echo(run);
	if (run->mode == REQ_SERVER_ONLY)
		return req_serve(run);
	if (run_explain_start(t))
		return 1;
	run->explain = t->explain;
	return req_measure(run);
}

static int req_run_report(struct test_run *t, int status)
{
	struct req_run *run = t->state;

	if (status)
		run->failed = 1;
	if (t->error && !run->fail_msg[0])
		snprintf(run->fail_msg, sizeof(run->fail_msg), "%s", t->error);
	return req_report(run, &t->res);
}

/* What check and measure opened, however the run ended. */
static void req_teardown(struct test_run *t)
{
	struct req_run *run = t->state;

	if (run->listen_fd >= 0)
		close(run->listen_fd);
	if (run->conn_fd >= 0)
		close(run->conn_fd);
	run->listen_fd = run->conn_fd = -1;
	free(run->server);
	run->server = NULL;
	req_spawner_stop(run);
}

/* rtlat suite: two rounds (0 and 1 load) of d seconds each. */
static long long req_suite_args(char *buf, size_t len, long long d, long long prio)
{
	(void)prio;
	snprintf(buf, len, "-i 2 -C 1000 --samples %lld", d * 500);
	return 2 * d;
}

const struct test_ops test_request = {
	.name = "request",
	.compat = "trltp",
	.title = "two-way request latency over TCP while load processes run (TRLTP)",
	.family = "request", .series = req_series,
	.opts = req_opts,
	.common = OPT_AT_STRUCT(struct req_config, common),
	.cfg_size = sizeof(struct req_config),
	.run_size = sizeof(struct req_run),
	.stop = STOP_BY_HANDLER,
	.compat_opts = req_compat_opts,
	.suite_args = req_suite_args,
	.check_args = "-i 1 --samples 200 -q",
	.check_line = "^ +0( +[\\d.]+){8}$",
	.check = req_check,
	.setup = req_setup,
	.rt_apply = req_rt_apply,
	.measure = req_run_measure,
	.report = req_run_report,
	.checkpoint = req_checkpoint,
	.teardown = req_teardown,
};
