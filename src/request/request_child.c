// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * request_child.c - what every forked process of the request test (server,
 * client, load) does first, and how it reports a failure to main.
 */
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <sys/prctl.h>
#include <unistd.h>
#include "system/cleanup.h"
#include "request/request_types.h"
#include "request/request_child.h"
#include "system/rtsetup.h"

void req_fail(struct req_shared *sh, const char *fmt, ...)
{
	int none = 0;
	va_list ap;

	/* After a stop request, a broken call is the stop, not a failure;
	 * of several failing processes the first one's message is kept. */
	if (atomic_load(&sh->stop) ||
	    !atomic_compare_exchange_strong(&sh->error, &none, 1))
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
