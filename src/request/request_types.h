/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * request_types.h - the request test's model (rtlat request, trltp): the
 * settings, the CPU layout, the state shared by main, client, server and
 * load processes, and their inline helpers; no function of its own.
 * Each .c declares what it offers the others in its own header
 * (request_run.h, request_client.h, ...); request.c, the options and
 * test_ops, sits on top.
 */
#ifndef RTLAT_REQUEST_TYPES_H
#define RTLAT_REQUEST_TYPES_H

#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <sys/types.h>
#include "util/opts.h"
#include "system/outfile.h"
#include "request/request_series.h"
#include "measure/stats.h"
#include "harness/test.h"

#define REQ_MAX_LOADS		64
#define REQ_LOADS_PER_CPU	16
#define REQ_MAX_ROUNDS		(REQ_MAX_LOADS + 1)
#define REQ_MAX_LOAD_CPUS	64
/* The multi-client (ORB) test: clients, and client-rounds of statistics
 * (each 7 series of 80 KB histograms, locked in memory). */
#define REQ_MAX_CLIENTS		64
#define REQ_MAX_CLIENT_ROUNDS	512

/* Histograms: 1 us buckets over 10 ms per series; the log shows 10 us. */
#define REQ_HIST_BUCKET_NS	1000
#define REQ_HIST_BUCKETS	10000
#define REQ_LOG_BIN_NS		10000
/*
 * Started as trltp, the log's histograms are the design's: 10 us bins
 * from 0 to 2 s (its MAX_HISTORY), a value rounded to the microsecond
 * first ((int)(us + 0.5) / 10). One set per client and series, reused
 * round after round (1.6 MB per series), only with -l.
 */
#define REQ_DESIGN_BINS		200000
#define REQ_DESIGN_ROUND_NS	500
/* -C: the design clamps to this range, rtlat request refuses outside. */
#define REQ_MAX_RATE		10000

/* Signals: the client's timer, and the start of a load process. */
#define REQ_SIG_TIMER		(SIGRTMIN + 1)
#define REQ_SIG_LOAD		(SIGRTMIN + 2)

enum req_mode { REQ_LOCAL, REQ_CLIENT_ONLY, REQ_SERVER_ONLY };
enum { REQ_PRIO_PROPAGATE, REQ_PRIO_FIXED };

struct req_config {
	long long rate_hz;		/* -C */
	long long port;			/* -p */
	long long rounds;		/* -i */
	long long samples;		/* --samples */
	long long sleep_us;		/* --sleep */
	long long timeout_s;		/* --timeout: server's idle limit */
	long long main_cpu, server_cpu, client_cpu;	/* -1: layout */
	struct cpu_list load_cpus;	/* --load-cpus LIST */
	const char *host;		/* -c */
	const char *bind;		/* --bind */
	const char *log;		/* -l */
	bool server_only;		/* -s */
	bool async;			/* -a */
	bool debug;			/* -D */
	bool quiet;			/* -q */
	long long clients;		/* --clients */
	long long rate0_hz;		/* --rate0: client 0 in ORB mode */
	bool sweep;			/* --clients-sweep */
	long long max_clients;		/* --max-clients */
	long long server_prio_mode;	/* --server-priority: REQ_PRIO_* */
	struct test_common common;	/* --json, --strict, ... */
};

struct req_layout {
	int main_cpu, server_cpu, client_cpu;
	int nload_cpus;
	int load_cpus[REQ_MAX_LOAD_CPUS];
	const char *rule;		/* how it was chosen, for the output */
	int main_prio, client_prio, server_prio, load_prio;
};

/* One client's statistics in one round. */
struct req_cstat {
	struct stats s[RS_N];
	uint64_t overruns;		/* timer expirations missed */
};

struct req_round {
	int nclients, nloads;
	struct req_cstat *c;		/* nclients of them (shared memory) */
	atomic_int done;		/* client 0 has its samples: it writes, main reads */
};

/*
 * In shared memory: seen by main and every forked process (lock-free
 * atomics, address-free, so processes share them).
 */
struct req_shared {
	atomic_int stop;	/* the stop handler and main write; all read */
	atomic_int server_stop;	/* after the client stopped: main writes, the server reads */
	atomic_int round;	/* round asked by main; -1: none yet; processes read */
	atomic_int client_ready[REQ_MAX_CLIENTS];	/* each client writes its own, main reads */
	atomic_int busy[REQ_MAX_CLIENTS];	/* client recording: it writes, the loads read */
	atomic_int load_ready[REQ_MAX_LOADS];	/* each load writes its own, main reads */
	atomic_int error;	/* a process that failed writes (msg first), main reads */
	char msg[256];
	struct req_round rounds[];	/* cfg.rounds of them */
};

/* The server's settings and counters (request_server.c), read by the
 * output in server-only mode. */
struct req_conn;
struct req_server {
	const char *prog;
	int listen_fd;
	int64_t sleep_ns;
	int64_t idle_ns;		/* silent client limit */
	atomic_int *stop;		/* set by the stop handler, read by the server's loop */
	bool verbose;			/* log connects and disconnects */
	int max_clients;		/* connections served at once */
	int own_prio;			/* threads start here; --server-priority fixed */
	int max_prio;			/* a higher priority asked is capped */
	bool fixed;			/* --server-priority fixed */
	uint64_t served, connections, refused, errors;	/* atomic */
	int nactive;			/* atomic */
	int wake;			/* eventfd, readable once stopping */
	int reserve_fd;			/* spare descriptor (accept at the limit) */
	int64_t said_ns;		/* the last accept() failure said */
	uint64_t unsaid;		/* accept() failures since, not said */
	struct req_conn *conns;		/* 2 * max_clients slots */
};

struct req_run {
	const char *prog;
	struct req_config *cfg;	/* the run's (t->cfg); check settles port, rate, rounds */
	const struct opt *opts;	/* the run's parsed table */
	const bool *given;	/* and what the command line set (opts_parse) */
	enum req_mode mode;
	struct req_layout layout;
	struct req_targets tg;
	struct req_shared *sh;
	size_t sh_bytes;
	uint64_t *hist_mem;
	size_t hist_bytes;
	bool orb;			/* --clients or --clients-sweep */
	bool compat;			/* started as trltp: the design's program */
	/* trltp -l: the design's histograms of the round under way, per
	 * client and series (shared memory; NULL: none). */
	struct histogram *design_hist;
	size_t design_bytes;
	struct explain *explain;	/* --explain, or NULL */
	/* --timeline, --largest: client i's response and total jitter over
	 * every round (shared memory; NULL: not recorded). */
	struct rec_series *rec[REQ_MAX_CLIENTS][2];
	bool max_clients_given;		/* --max-clients */
	int listen_fd;			/* local and server-only modes */
	int conn_fd;			/* the socket of the client to start */
	char where[128];		/* server address, for messages */
	char tmpdir[120];
	pid_t server_pid;
	pid_t client_pid[REQ_MAX_CLIENTS];
	int nclients;			/* client processes started */
	pid_t load_pid[REQ_MAX_LOADS];
	int nloads;			/* load processes started */
	/* The spawner, which forks them (request_spawn.c): its pid (0:
	 * none), main's end of the socket to it, and the wait statuses it
	 * sent not yet asked for (pid, status). */
	pid_t spawner_pid;
	int spawn_fd;
	bool spawner_lost;
	int ended[REQ_MAX_CLIENTS + REQ_MAX_LOADS + 1][2];
	int nended;
	int rounds_begun;
	int rounds_printed;		/* rounds whose block is out */
	int failed;
	bool progress_shown;	/* a progress line is on the terminal */
	char fail_msg[256];
	FILE *log;
	struct outfile log_file;	/* -l, by the shared output rule */
	int64_t t_start;
	struct req_server *server;	/* server-only mode: its counters */
};

/* CPU i of the load processes, round robin over the load CPUs. */
static inline int req_load_cpu(const struct req_layout *l, int i)
{
	return l->load_cpus[i % l->nload_cpus];
}

/* Client i's statistics in round k. */
static inline struct req_cstat *req_cs(const struct req_run *run, int k,
				       int i)
{
	return &run->sh->rounds[k].c[i];
}
/* Client i's design histograms (RS_N of them), or NULL. */
static inline struct histogram *req_design_hist(const struct req_run *run,
						int i)
{
	return run->design_hist ? run->design_hist + (size_t)i * RS_N : NULL;
}

#endif
