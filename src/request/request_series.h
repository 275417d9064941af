/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * request_series.h - the request test's series, computed from one cycle's
 * timestamps as a pure function (so a unit test can feed it synthetic
 * times). t0: client timer wake-up, t1: server saw the request, t2:
 * server done sleeping, t3: client has the reply; t0_prev: previous t0.
 */
#ifndef RTLAT_REQUEST_SERIES_H
#define RTLAT_REQUEST_SERIES_H

#include <stdbool.h>
#include <stdint.h>

enum req_series {
	RS_INTERVAL,	/* t0[n] - t0[n-1], about the period */
	RS_SEND,	/* t1 - t0 */
	RS_SLEEP,	/* t2 - t1, about the requested sleep */
	RS_RECEIVE,	/* t3 - t2 */
	RS_RESPONSE,	/* t3 - t0 */
	RS_JITTER,	/* Total Jitter */
	RS_ROUNDTRIP,	/* response - sleep: the network round trip */
	RS_N
};

struct req_stamps {
	int64_t t0_prev, t0, t1, t2, t3;
};

struct req_targets {
	int64_t period_ns;
	int64_t sleep_ns;
	/* t1/t2 on another host's clock: send and receive become estimates
	 * (half the round trip each, a symmetric path assumed). */
	bool two_hosts;
};

struct req_series_info {
	const char *key;	/* JSON key */
	const char *name;	/* stdout and log name */
	const char *estimate;	/* name in two-host mode, NULL: same */
	const char *design;	/* name as trltp (the design's), NULL: same */
};

extern const struct req_series_info req_series_info[RS_N];

/* Fill out[RS_N], in ns. */
void req_series_compute(const struct req_stamps *t,
			const struct req_targets *g, int64_t out[RS_N]);
/* The deviation target of a series, or false for "about the mean". */
bool req_series_target(enum req_series s, const struct req_targets *g,
		       double *target);

#endif
