// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * run_stop.c - how the stop signals (SIGINT, SIGTERM, SIGHUP) reach a
 * test: the flags a handler sets, or sigwait. Below run.c, which asks
 * it whether to stop (also between --iterations: run_stop_seen).
 */
#include <pthread.h>
#include <signal.h>
#include "measure/clock.h"
#include "system/stopsig.h"
#include "harness/status.h"
#include "harness/test.h"

volatile sig_atomic_t run_stop_requested;
static volatile sig_atomic_t *stop_flag;
static sigset_t stop_set;	/* and the status signals, when asked */
static int status_pending;	/* RUN_STATUS_* bits, atomic */

static void on_stop(int sig)
{
	volatile sig_atomic_t *flag = __atomic_load_n(&stop_flag, __ATOMIC_SEQ_CST);

	(void)sig;
	/* Atomic: threads poll these flags (no data race for TSan). */
	__atomic_store_n(&run_stop_requested, 1, __ATOMIC_RELAXED);
	if (flag)
		__atomic_store_n(flag, 1, __ATOMIC_RELAXED);
}

static void on_kick(int sig)
{
	(void)sig;
}

static void note_status(int sig)
{
	run_status_note(sig == SIGUSR1 ? RUN_STATUS_USR1 : RUN_STATUS_USR2);
}

void run_stop_flag(volatile sig_atomic_t *flag)
{
	/* Publish, then look: a signal in between is seen by one of the two
	 * (the handler or this check), and 0 is never stored over its 1. */
	__atomic_store_n(&stop_flag, flag, __ATOMIC_SEQ_CST);
	if (flag && __atomic_load_n(&run_stop_requested, __ATOMIC_SEQ_CST))
		__atomic_store_n(flag, 1, __ATOMIC_RELAXED);
}

bool run_stop_wait(int64_t ns)
{
	struct timespec ts = ns_to_timespec(ns);
	int sig = sigtimedwait(&stop_set, NULL, &ts);

	if (sig == SIGUSR1 || sig == SIGUSR2) {
		note_status(sig);
		return false;
	}
	return sig > 0;
}

void run_status_note(int bits)
{
	__atomic_fetch_or(&status_pending, bits, __ATOMIC_RELAXED);
}

int run_status_take(void)
{
	return __atomic_exchange_n(&status_pending, 0, __ATOMIC_RELAXED);
}

/* First of all: from here on a stop signal ends the run cleanly. */
void run_signals(const struct test_ops *ops)
{
	sigemptyset(&stop_set);
	sigaddset(&stop_set, SIGINT);
	sigaddset(&stop_set, SIGTERM);
	sigaddset(&stop_set, SIGHUP);
	/* SIGUSR1 never ends a run: blocked from here on in every thread,
	 * taken by the run's status thread (harness/status.h). The handler
	 * is for a thread that does not block it (a sanitizer's runtime
	 * thread), where the default action would end the run. */
	status_signal_block();
	stopsig_catch(SIGUSR1, note_status);
	if (ops->status_signals && ops->stop == STOP_BY_SIGWAIT) {
		sigaddset(&stop_set, SIGUSR2);
		/* Blocked below and taken by sigwait, as SIGUSR1 is. */
		stopsig_catch(SIGUSR2, note_status);
	}
	/* Blocked from the start, so a signal during setup or warm-up still
	 * ends the run properly; threads inherit the mask. */
	if (ops->stop == STOP_BY_SIGWAIT) {
		pthread_sigmask(SIG_BLOCK, &stop_set, NULL);
		/* One caught before main() (stopsig.c) waits for sigwait. */
		if (stopsig_early_signal())
			raise(stopsig_early_signal());
	} else
		stopsig_install(on_stop);
	if (ops->kick)
		stopsig_catch(RUN_KICK_SIGNAL, on_kick);
}
