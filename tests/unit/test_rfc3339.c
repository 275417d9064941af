// SPDX-License-Identifier: GPL-2.0-or-later
/* test_rfc3339.c - RFC 3339 UTC times with microseconds. */
#include <string.h>
#include "unit.h"
#include "util/rfc3339.h"

UNIT_TEST(rfc3339_known_time)
{
	/* 2026-11-26 06:33:04 UTC, as date -u -d @1795674784 has it */
	struct timespec ts = { 1795674784, 123456789 };
	char buf[RFC3339_LEN];

	CHECK(!strcmp(rfc3339_format(buf, sizeof(buf), &ts),
		      "2026-11-26T06:33:04.123456Z"));
	ts.tv_sec = 0;
	ts.tv_nsec = 999;
	CHECK(!strcmp(rfc3339_format(buf, sizeof(buf), &ts),
		      "1970-01-01T00:00:00.000000Z"));
	/* too small a buffer: empty, never cut */
	CHECK(!strcmp(rfc3339_format(buf, 10, &ts), ""));
}
