// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * run_stop.c - how the stop signals (SIGINT, SIGTERM, SIGHUP) reach a
 * test: the flags a handler sets, or sigwait. Below run.c, which asks
 * it whether to stop (also between --iterations: run_stop_seen).
 */
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include "measure/clock.h"
#include "system/stopsig.h"
#include "harness/status.h"
#include "harness/test.h"

/* Lock-free atomics, which a signal handler may use (C11 7.14.1.1):
 * the handler writes them, every thread reads them. */
_Static_assert(ATOMIC_INT_LOCK_FREE == 2 && ATOMIC_POINTER_LOCK_FREE == 2,
	       "the stop flags need lock-free atomics");
atomic_int run_stop_requested;	/* the handler writes, all threads read */
/* The run's own flag too (run_stop_flag): main writes, the handler reads */
static _Atomic(atomic_int *) stop_flag;
static sigset_t stop_set;	/* and the status signals, when asked */
static atomic_int status_pending;	/* RUN_STATUS_* bits: the handlers write, the status thread takes */

static void on_stop(int sig)
{
	atomic_int *flag = atomic_load_explicit(&stop_flag, memory_order_seq_cst);

	(void)sig;
	/* Atomic: threads poll these flags (no data race for TSan). */
	atomic_store_explicit(&run_stop_requested, 1, memory_order_relaxed);
	if (flag)
		atomic_store_explicit(flag, 1, memory_order_relaxed);
}

static void on_kick(int sig)
{
	(void)sig;
}

static void note_status(int sig)
{
	run_status_note(sig == SIGUSR1 ? RUN_STATUS_USR1 : RUN_STATUS_USR2);
}

void run_stop_flag(atomic_int *flag)
{
	/* Publish, then look: a signal in between is seen by one of the two
	 * (the handler or this check), and 0 is never stored over its 1. */
	atomic_store_explicit(&stop_flag, flag, memory_order_seq_cst);
	if (flag && atomic_load_explicit(&run_stop_requested, memory_order_seq_cst))
		atomic_store_explicit(flag, 1, memory_order_relaxed);
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
	atomic_fetch_or_explicit(&status_pending, bits, memory_order_relaxed);
}

int run_status_take(void)
{
	return atomic_exchange_explicit(&status_pending, 0, memory_order_relaxed);
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
