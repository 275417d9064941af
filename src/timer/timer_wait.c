// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * timer_wait.c - the four ways the sampling thread waits for its period:
 * clock_nanosleep to an absolute time, relative nanosleep (what the
 * request test's server does), a periodic timerfd, and a POSIX timer
 * signalling SIGRTMIN waited with sigwaitinfo.
 */
#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <sys/syscall.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>
#include "measure/clock.h"
#include "timer/timer_wait.h"

#ifndef sigev_notify_thread_id
#define sigev_notify_thread_id _sigev_un._tid
#endif

static int abs_open(struct timer_wait *w, int64_t first)
{
	w->expected = first;
	return 0;
}

static int abs_wait(struct timer_wait *w, uint64_t *ticks)
{
	*ticks = 0;
	return -clock_sleep_until(w->expected);
}

static int rel_wait(struct timer_wait *w, uint64_t *ticks)
{
	struct timespec ts = ns_to_timespec(w->period);

	/* Expected: the request plus the time it was made, nothing else. */
	w->expected = clock_now_ns() + w->period;
	*ticks = 1;
	return -clock_nanosleep(CLOCK_MONOTONIC, 0, &ts, NULL);
}

static void no_close(struct timer_wait *w)
{
	(void)w;
}

static int tfd_open(struct timer_wait *w, int64_t first)
{
	struct itimerspec its = {
		.it_interval = ns_to_timespec(w->period),
		.it_value = ns_to_timespec(first),
	};

	w->expected = first;
	w->fd = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC);
	if (w->fd < 0)
		return -errno;
	w->armed = true;
	if (timerfd_settime(w->fd, TFD_TIMER_ABSTIME, &its, NULL))
		return -errno;
	return 0;
}

static int tfd_wait(struct timer_wait *w, uint64_t *ticks)
{
	ssize_t n = read(w->fd, ticks, sizeof(*ticks));

	if (n == (ssize_t)sizeof(*ticks))
		return 0;
	return n < 0 ? -errno : -EIO;
}

static void tfd_close(struct timer_wait *w)
{
	if (w->armed)
		close(w->fd);
	w->armed = false;
}

/* SIGRTMIN is blocked in every thread; only this one waits for it. */
static int ptimer_open(struct timer_wait *w, int64_t first)
{
	struct sigevent sev = {
		.sigev_notify = SIGEV_THREAD_ID,
		.sigev_signo = SIGRTMIN,
	};
	struct itimerspec its = {
		.it_interval = ns_to_timespec(w->period),
		.it_value = ns_to_timespec(first),
	};

	sev.sigev_notify_thread_id = (pid_t)syscall(SYS_gettid);
	w->expected = first;
	if (timer_create(CLOCK_MONOTONIC, &sev, &w->timer))
		return -errno;
	w->armed = true;
	if (timer_settime(w->timer, TIMER_ABSTIME, &its, NULL))
		return -errno;
	return 0;
}

static int ptimer_wait(struct timer_wait *w, uint64_t *ticks)
{
	siginfo_t si;
	sigset_t set;

	(void)w;
	sigemptyset(&set);
	sigaddset(&set, SIGRTMIN);
	if (sigwaitinfo(&set, &si) < 0)
		return -errno;
	*ticks = 1 + (uint64_t)(si.si_overrun > 0 ? si.si_overrun : 0);
	return 0;
}

static void ptimer_close(struct timer_wait *w)
{
	if (w->armed)
		timer_delete(w->timer);
	w->armed = false;
}

static const struct timer_wait_ops abs_nanosleep = {
	"abs-nanosleep", abs_open, abs_wait, no_close, false,
};
static const struct timer_wait_ops rel_nanosleep = {
	"rel-nanosleep", abs_open, rel_wait, no_close, false,
};
static const struct timer_wait_ops timerfd = {
	"timerfd", tfd_open, tfd_wait, tfd_close, false,
};
static const struct timer_wait_ops posix_timer = {
	"posix-timer", ptimer_open, ptimer_wait, ptimer_close, false,
};

/* Indexed by enum timer_method. */
const struct timer_wait_ops *const timer_methods[] = {
	&abs_nanosleep, &rel_nanosleep, &timerfd, &posix_timer, NULL,
};

const char *const timer_method_names[] = {
	"abs-nanosleep", "rel-nanosleep", "timerfd", "posix-timer", NULL,
};
