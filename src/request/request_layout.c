// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * request_layout.c - where the request test's processes run, and at which
 * priority. As designed (>= 4 CPUs): CPU0 left for the system, main on
 * CPU1, server on CPU2, client on CPU3, load processes on CPU3 and above,
 * so one load shares the client's CPU on purpose. Fewer CPUs: see below.
 */
#include <ctype.h>
#include <sched.h>
#include <stdlib.h>
#include "util/opts.h"
#include "request/request_types.h"
#include "request/request_layout.h"

static void priorities(struct req_layout *l)
{
	int max = sched_get_priority_max(SCHED_FIFO);

	l->main_prio = max;
	l->client_prio = max - 1;
	l->server_prio = max - 2;
	l->load_prio = sched_get_priority_min(SCHED_RR);
}

void req_layout_default(struct req_layout *l, const int *cpus, int n)
{
	int i;

	priorities(l);
	l->nload_cpus = 0;
	if (n >= 4) {
		l->rule = "as designed for 4 or more CPUs, the first left for the system";
		l->main_cpu = cpus[1];
		l->server_cpu = cpus[2];
		l->client_cpu = cpus[3];
		for (i = 3; i < n && l->nload_cpus < REQ_MAX_LOAD_CPUS; i++)
			l->load_cpus[l->nload_cpus++] = cpus[i];
		return;
	}
	if (n == 3) {
		/* No CPU for the system alone: main shares with it. */
		l->rule = "fallback for 3 CPUs: main with the system";
		l->main_cpu = cpus[0];
		l->server_cpu = cpus[1];
		l->client_cpu = cpus[2];
	} else if (n == 2) {
		/* Client and loads must share: that is the test. Main sleeps
		 * almost all the time, so it goes with the server. */
		l->rule = "fallback for 2 CPUs: server with main, loads with the client";
		l->main_cpu = cpus[0];
		l->server_cpu = cpus[0];
		l->client_cpu = cpus[1];
	} else {
		l->rule = "fallback for 1 CPU: everything on it";
		l->main_cpu = l->server_cpu = l->client_cpu = cpus[0];
	}
	l->load_cpus[l->nload_cpus++] = l->client_cpu;
}

int req_max_loads(const struct req_layout *l)
{
	int n = REQ_LOADS_PER_CPU * l->nload_cpus;

	return n < REQ_MAX_LOADS ? n : REQ_MAX_LOADS;
}

int req_parse_cpu_list(const char *s, struct req_layout *l, int *bad)
{
	return parse_cpu_list(s, l->load_cpus, REQ_MAX_LOAD_CPUS, &l->nload_cpus, bad);
}
