// SPDX-License-Identifier: GPL-2.0-or-later
/* stopsig.c - the signals that end a run (see stopsig.h). */
#include <signal.h>
#include <stdatomic.h>
#include <string.h>
#include "system/stopsig.h"

static volatile sig_atomic_t early_signal;
static void (*stop_handler)(int);
/* The handler writes these (lock-free atomics, async-signal-safe), any
 * thread reads them; forward_pid is written by the main thread. */
static atomic_uint stop_count;	/* the handler counts */
static atomic_int last_signal;	/* the handler writes, all read */
static _Atomic pid_t forward_pid;	/* main writes, the handler reads */

/* Every stop signal after stopsig_install: counted, noted, forwarded,
 * then the test's. */
static void on_stop(int sig)
{
	pid_t pid = atomic_load(&forward_pid);

	atomic_fetch_add(&stop_count, 1);
	atomic_store(&last_signal, sig);
	if (pid > 0)
		kill(pid, sig);
	if (stop_handler)
		stop_handler(sig);
}

int stopsig_last(void)
{
	return atomic_load(&last_signal);
}

void stopsig_forward(pid_t pid)
{
	atomic_store(&forward_pid, pid);
}

unsigned int stopsig_count(void)
{
	return atomic_load(&stop_count);
}

static void on_early(int sig)
{
	early_signal = sig;
}

void stopsig_catch(int sig, void (*handler)(int))
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sigemptyset(&sa.sa_mask);
	sa.sa_handler = handler;	/* no SA_RESTART: see stopsig.h */
	sigaction(sig, &sa, NULL);
}

/*
 * Runs before main(): from here on a stop signal is remembered instead of
 * killing the process, however early it comes. Only the time the kernel
 * and the dynamic loader spend before this point is left uncovered.
 */
__attribute__((constructor)) static void stopsig_early(void)
{
	stopsig_catch(SIGINT, on_early);
	stopsig_catch(SIGTERM, on_early);
	stopsig_catch(SIGHUP, on_early);
}

void stopsig_install(void (*handler)(int))
{
	sigset_t set, old;

	/* No signal between installing and replaying can be counted twice
	 * or lost: they wait in the mask until the replay is done. */
	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGHUP);
	sigprocmask(SIG_BLOCK, &set, &old);
	stop_handler = handler;
	stopsig_catch(SIGINT, on_stop);
	stopsig_catch(SIGTERM, on_stop);
	stopsig_catch(SIGHUP, on_stop);
	if (early_signal)
		on_stop(early_signal);
	sigprocmask(SIG_SETMASK, &old, NULL);
}

int stopsig_early_signal(void)
{
	return early_signal;
}
