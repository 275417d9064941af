/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * rfc3339.h - wall-clock times as RFC 3339 UTC text with microseconds
 * ("2026-11-26T06:33:04.123456Z"), the form JSON Schema's and KCIDB's
 * "date-time" take (rt-tests' "start_time" layout is not one).
 */
#ifndef RTLAT_RFC3339_H
#define RTLAT_RFC3339_H

#include <stddef.h>
#include <time.h>

/* "YYYY-MM-DDTHH:MM:SS.uuuuuuZ" and its NUL. */
#define RFC3339_LEN 28

/* ts (CLOCK_REALTIME) as RFC 3339 UTC into buf; returns buf, or "" in
 * buf when it does not fit or the time cannot be broken down. */
char *rfc3339_format(char *buf, size_t len, const struct timespec *ts);

#endif
