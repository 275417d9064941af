// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * status.c - SIGUSR1 and the thread that takes it (status.h): the status
 * watch every run and rtlat suite have.
 */
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include "measure/clock.h"
#include "system/rtsetup.h"
#include "system/stopsig.h"
#include "fleet/fleet.h"
#include "harness/status.h"

static void on_early_usr1(int sig)
{
	(void)sig;
}

/*
 * Before main(), as the stop signals (system/stopsig.c): a SIGUSR1 that
 * comes before the run's first step blocks it is dropped, never the
 * default action that would end the process (rtlat suite signalling a
 * test it has just started is covered anyway: the mask goes over exec).
 */
__attribute__((constructor)) static void status_early(void)
{
	stopsig_catch(SIGUSR1, on_early_usr1);
}

static sigset_t *usr1_set(sigset_t *set)
{
	sigemptyset(set);
	sigaddset(set, SIGUSR1);
	return set;
}

void status_signal_block(void)
{
	sigset_t usr1;

	pthread_sigmask(SIG_BLOCK, usr1_set(&usr1), NULL);
}

void status_forward(pid_t pid)
{
	struct timespec now = { 0, 0 };
	sigset_t usr1;

	if (sigtimedwait(usr1_set(&usr1), NULL, &now) == SIGUSR1)
		kill(pid, SIGUSR1);
}

/*
 * Waits in sigtimedwait for SIGUSR1 (blocked in every thread of the
 * process: status_signal_block) or the next wake; status_watch_stop wakes
 * it with a SIGUSR1 of its own after setting stop.
 */
static void *status_thread(void *arg)
{
	struct status_watch *w = arg;
	int64_t now = clock_now_ns(), wake = w->wake;
	struct timespec ts;
	sigset_t usr1;
	int sig;

	/* Its name says a run is ready for SIGUSR1 (ps -L, the tests). */
	prctl(PR_SET_NAME, STATUS_THREAD_NAME);
	usr1_set(&usr1);
	while (!__atomic_load_n(&w->stop, __ATOMIC_ACQUIRE)) {
		ts = ns_to_timespec(wake > now ? wake - now : 0);
		sig = sigtimedwait(&usr1, NULL, &ts);
		if (__atomic_load_n(&w->stop, __ATOMIC_ACQUIRE))
			break;
		now = clock_now_ns();
		if (sig == SIGUSR1 || now >= wake)
			wake = w->tick(w->arg, now, sig == SIGUSR1);
	}
	return NULL;
}

/* Not a measuring thread: SCHED_OTHER, and no signal is ever its but
 * the SIGUSR1 it waits for. */
int status_watch_start(struct status_watch *w, status_tick_fn tick, void *arg,
		       int64_t first_wake)
{
	pthread_attr_t attr;
	int err;

	w->tick = tick;
	w->arg = arg;
	w->wake = first_wake;
	w->stop = false;
	pthread_attr_init(&attr);
	pthread_attr_setinheritsched(&attr, PTHREAD_EXPLICIT_SCHED);
	pthread_attr_setschedpolicy(&attr, SCHED_OTHER);
	err = rt_thread_create_quiet(&w->thread, &attr, status_thread, w);
	pthread_attr_destroy(&attr);
	return err;
}

void status_watch_stop(struct status_watch *w)
{
	__atomic_store_n(&w->stop, true, __ATOMIC_RELEASE);
	pthread_kill(w->thread, SIGUSR1);
	pthread_join(w->thread, NULL);
}

void status_print(FILE *f, const char *prog, const struct fleet *fl,
		  double covered_s)
{
	int i;

	flockfile(f);
	if (!fleet_count(fl))
		fprintf(f, "%s: status after %.1f s: no series measured yet\n",
			prog, covered_s);
	for (i = 0; i < fleet_count(fl); i++) {
		const struct fleet_rec *r = fleet_get(fl, i);

		fprintf(f, "%s: status after %.1f s: %s", prog, covered_s, r->series);
		if (r->thread >= 0)
			fprintf(f, " t%d", r->thread);
		if (r->thread >= 0 && r->cpu >= 0)
			fprintf(f, " (CPU %d)", r->cpu);
		if (r->n)
			fprintf(f, ": %llu samples, min %.3f avg %.3f p99 %.3f max %.3f us\n",
				(unsigned long long)r->n, r->min / 1e3, r->avg / 1e3,
				r->p99 / 1e3, r->max / 1e3);
		else
			fprintf(f, ": %s\n", FLEET_NO_SAMPLE);
	}
	fflush(f);
	funlockfile(f);
}

FILE *status_open(struct status_block *b)
{
	b->text = NULL;
	b->len = 0;
	b->f = open_memstream(&b->text, &b->len);
	return b->f;
}

/*
 * Whether fd takes len more bytes at once. A file always does; a pipe or
 * FIFO when what is queued and len leave a quarter of it free (the
 * run's own messages, its end's, still go through); anything else
 * (a terminal, a socket) when poll says it is writable now.
 */
static bool takes_at_once(int fd, size_t len)
{
	struct pollfd p = { .fd = fd, .events = POLLOUT };
	struct stat st;
	int cap, queued;

	if (fstat(fd, &st))
		return false;
	if (S_ISREG(st.st_mode) || S_ISBLK(st.st_mode))
		return true;
	if (S_ISFIFO(st.st_mode)) {
		cap = fcntl(fd, F_GETPIPE_SZ);
		if (cap > 0 && !ioctl(fd, FIONREAD, &queued))
			return queued >= 0 &&
			       (size_t)queued + len <= (size_t)cap - (size_t)cap / 4;
	}
	return poll(&p, 1, 0) == 1 && (p.revents & POLLOUT);
}

/* A pipe or FIFO stderr opened anew without blocking: its own open file
 * description, so O_NONBLOCK is not set on stderr's; -1 otherwise. */
static int nonblocking_pipe(void)
{
	struct stat st;

	if (fstat(STDERR_FILENO, &st) || !S_ISFIFO(st.st_mode))
		return -1;
	return open("/proc/self/fd/2", O_WRONLY | O_NONBLOCK | O_CLOEXEC);
}

/* Line by line (each under PIPE_BUF: whole or not at all, without
 * blocking on fd); false at the first not written whole. */
static bool write_lines(int fd, const char *s, size_t len)
{
	const char *nl;
	size_t n;

	while (len) {
		nl = memchr(s, '\n', len);
		n = nl ? (size_t)(nl - s) + 1 : len;
		if (write(fd, s, n) != (ssize_t)n)
			return false;
		s += n;
		len -= n;
	}
	return true;
}

void status_emit(struct status_block *b, unsigned long *dropped, const char *prog)
{
	char note[160];
	int n = 0, fd;
	bool whole = false;

	if (fclose(b->f) || !b->text) {
		free(b->text);
		return;
	}
	if (*dropped)
		n = snprintf(note, sizeof(note),
			     "%s: %lu status%s dropped while standard error was not being read\n",
			     prog, *dropped, *dropped == 1 ? "" : "es");
	fd = nonblocking_pipe();
	if (takes_at_once(STDERR_FILENO, (size_t)n + b->len))
		whole = write_lines(fd >= 0 ? fd : STDERR_FILENO, note, (size_t)n) &&
			write_lines(fd >= 0 ? fd : STDERR_FILENO, b->text, b->len);
	if (fd >= 0)
		close(fd);
	*dropped = whole ? 0 : *dropped + 1;
	free(b->text);
}

void status_man(FILE *f, bool suite)
{
	fputs(".SH SIGNALS\n.TP\nSIGINT, SIGTERM, SIGHUP\nEnd the run normally: "
	      "the summary is printed and every output written.\n.TP\nSIGUSR1\n", f);
	if (suite)
		fputs("Print which tests are done, which one runs and which are to come "
		      "on standard\nerror, and pass SIGUSR1 to the running test, whose "
		      "status follows; the suite\ngoes on.\n", f);
	else
		fputs("Print the status so far on standard error, a line per series and "
		      "thread\n(samples, min, avg, p99, max, the time covered; the "
		      "cyclictest face: cyclictest's\nstatus block); the run goes on. A status standard error cannot take at once\n(a pipe nobody reads) is dropped; the next one written says how many were.\n", f);
}
