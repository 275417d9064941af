// SPDX-License-Identifier: GPL-2.0-or-later
/* stopsig.c - the signals that end a run (see stopsig.h). */
#include <signal.h>
#include <string.h>
#include "stopsig.h"

void stopsig_catch(int sig, void (*handler)(int))
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sigemptyset(&sa.sa_mask);
	sa.sa_handler = handler;	/* no SA_RESTART: see stopsig.h */
	sigaction(sig, &sa, NULL);
}

void stopsig_install(void (*handler)(int))
{
	stopsig_catch(SIGINT, handler);
	stopsig_catch(SIGTERM, handler);
	stopsig_catch(SIGHUP, handler);
}
