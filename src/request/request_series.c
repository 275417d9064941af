// SPDX-License-Identifier: GPL-2.0-or-later
/* request_series.c - the series of the request test (see SPEC §4). */
#include <stddef.h>
#include "request/request_series.h"

const struct req_series_info req_series_info[RS_N] = {
	[RS_INTERVAL] = { "interval", "POSIX Timer Interval Time", NULL, NULL },
	[RS_SEND] = { "send", "Send Time", "Send Time (estimate)", NULL },
	/* Named with the sleep asked (request_output.c). */
	[RS_SLEEP] = { "sleep", "nanosleep Time", NULL, NULL },
	[RS_RECEIVE] = { "receive", "Receive Time", "Receive Time (estimate)", NULL },
	[RS_RESPONSE] = { "response", "Response Time", NULL, NULL },
	/* The design's log line says "Total Jitter", its stdout this. */
	[RS_JITTER] = { "total_jitter", "Total Jitter", NULL, "Total Jitter Time" },
	[RS_ROUNDTRIP] = { "round_trip", "Network Round Trip", NULL, NULL },
};

static int64_t abs64(int64_t v)
{
	return v < 0 ? -v : v;
}

void req_series_compute(const struct req_stamps *t,
			const struct req_targets *g, int64_t out[RS_N])
{
	int64_t sleep = t->t2 - t->t1;
	int64_t response = t->t3 - t->t0;
	int64_t interval = t->t0 - t->t0_prev;

	out[RS_INTERVAL] = interval;
	out[RS_SLEEP] = sleep;
	out[RS_RESPONSE] = response;
	out[RS_ROUNDTRIP] = response - sleep;
	if (g->two_hosts) {
		out[RS_SEND] = out[RS_ROUNDTRIP] / 2;
		out[RS_RECEIVE] = out[RS_ROUNDTRIP] - out[RS_SEND];
	} else {
		out[RS_SEND] = t->t1 - t->t0;
		out[RS_RECEIVE] = t->t3 - t->t2;
	}
	/* What the OS added beyond the requested work, against the targets:
	 * the time not spent sleeping, plus how far the sleep and the timer
	 * interval missed what was asked. */
	out[RS_JITTER] = (response - sleep) + abs64(sleep - g->sleep_ns) +
			 abs64(interval - g->period_ns);
}

bool req_series_target(enum req_series s, const struct req_targets *g,
		       double *target)
{
	if (s == RS_INTERVAL)
		*target = (double)g->period_ns;
	else if (s == RS_SLEEP)
		*target = (double)g->sleep_ns;
	else
		return false;
	return true;
}
