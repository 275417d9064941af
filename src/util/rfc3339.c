// SPDX-License-Identifier: GPL-2.0-or-later
/* rfc3339.c - RFC 3339 UTC times (see rfc3339.h). */
#include <stdio.h>
#include "util/rfc3339.h"

char *rfc3339_format(char *buf, size_t len, const struct timespec *ts)
{
	char date[24];
	struct tm tm;
	int n;

	if (!len)
		return buf;
	buf[0] = '\0';
	if (!gmtime_r(&ts->tv_sec, &tm) ||
	    !strftime(date, sizeof(date), "%Y-%m-%dT%H:%M:%S", &tm))
		return buf;
	n = snprintf(buf, len, "%s.%06ldZ", date, ts->tv_nsec / 1000);
	if (n < 0 || (size_t)n >= len)
		buf[0] = '\0';
	return buf;
}
