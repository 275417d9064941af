/* SPDX-License-Identifier: GPL-2.0-or-later */
/* clock.h - CLOCK_MONOTONIC nanosecond reads and timespec helpers. */
#ifndef RTLAT_CLOCK_H
#define RTLAT_CLOCK_H

#include <stdint.h>
#include <time.h>

#define NSEC_PER_USEC	1000LL
#define NSEC_PER_MSEC	1000000LL
#define NSEC_PER_SEC	1000000000LL

/* One vDSO call, no syscall: safe on the measuring path. */
static inline int64_t clock_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * NSEC_PER_SEC + ts.tv_nsec;
}

static inline struct timespec ns_to_timespec(int64_t ns)
{
	struct timespec ts;

	ts.tv_sec = ns / NSEC_PER_SEC;
	ts.tv_nsec = ns % NSEC_PER_SEC;
	if (ts.tv_nsec < 0) {
		ts.tv_sec--;
		ts.tv_nsec += NSEC_PER_SEC;
	}
	return ts;
}

static inline int64_t timespec_to_ns(const struct timespec *ts)
{
	return (int64_t)ts->tv_sec * NSEC_PER_SEC + ts->tv_nsec;
}

/* Sleep until an absolute CLOCK_MONOTONIC time; returns 0 or an errno. */
static inline int clock_sleep_until(int64_t t_ns)
{
	struct timespec ts = ns_to_timespec(t_ns);

	return clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);
}

#endif
