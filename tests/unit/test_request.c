// SPDX-License-Identifier: GPL-2.0-or-later
/* test_request.c - request test: series on synthetic timestamps, frames,
 * CPU layout. */
#include <string.h>
#include "request/request_types.h"
#include "request/request_layout.h"
#include "request/request_proto.h"
#include "request/request_series.h"
#include "unit.h"

static const struct req_targets local_1k = {
	.period_ns = 1000000, .sleep_ns = 100000, .two_hosts = false,
};

UNIT_TEST(series_exact_cycle)
{
	/* Woken on time, 15 us to the server, slept exactly 100 us, 12 us back. */
	struct req_stamps t = {
		.t0_prev = 5000000, .t0 = 6000000, .t1 = 6015000,
		.t2 = 6115000, .t3 = 6127000,
	};
	int64_t v[RS_N];

	req_series_compute(&t, &local_1k, v);
	CHECK_EQ_LL(v[RS_INTERVAL], 1000000);
	CHECK_EQ_LL(v[RS_SEND], 15000);
	CHECK_EQ_LL(v[RS_SLEEP], 100000);
	CHECK_EQ_LL(v[RS_RECEIVE], 12000);
	CHECK_EQ_LL(v[RS_RESPONSE], 127000);
	CHECK_EQ_LL(v[RS_ROUNDTRIP], 27000);
	/* (127 - 100) + |100 - 100| + |1000 - 1000| */
	CHECK_EQ_LL(v[RS_JITTER], 27000);
}

UNIT_TEST(series_jitter_counts_misses_both_ways)
{
	/* Timer 30 us early, sleep 153 us (53 over), send 17, receive 13. */
	struct req_stamps t = {
		.t0_prev = 1000000, .t0 = 1970000, .t1 = 1987000,
		.t2 = 2140000, .t3 = 2153000,
	};
	int64_t v[RS_N];

	req_series_compute(&t, &local_1k, v);
	CHECK_EQ_LL(v[RS_INTERVAL], 970000);
	CHECK_EQ_LL(v[RS_SLEEP], 153000);
	CHECK_EQ_LL(v[RS_RESPONSE], 183000);
	/* (183 - 153) + 53 + 30 = 113 us */
	CHECK_EQ_LL(v[RS_JITTER], 113000);
	/* Late timer: |1040 - 1000| counts the same as early. */
	t.t0_prev = 930000;
	req_series_compute(&t, &local_1k, v);
	CHECK_EQ_LL(v[RS_INTERVAL], 1040000);
	CHECK_EQ_LL(v[RS_JITTER], 123000);
}

UNIT_TEST(series_two_hosts_estimates)
{
	/* The server's clock is far off: only differences on one clock count. */
	struct req_targets g = local_1k;
	struct req_stamps t = {
		.t0_prev = 0, .t0 = 1000000, .t1 = 987654321000LL,
		.t2 = 987654421000LL, .t3 = 1161001,
	};
	int64_t v[RS_N];

	g.two_hosts = true;
	req_series_compute(&t, &g, v);
	CHECK_EQ_LL(v[RS_RESPONSE], 161001);
	CHECK_EQ_LL(v[RS_SLEEP], 100000);
	CHECK_EQ_LL(v[RS_ROUNDTRIP], 61001);
	CHECK_EQ_LL(v[RS_SEND], 30500);
	CHECK_EQ_LL(v[RS_RECEIVE], 30501);
	CHECK_EQ_LL(v[RS_JITTER], 61001);
}

UNIT_TEST(series_stats_and_targets)
{
	/* Three cycles into stats: mean and deviation about the period. */
	static const int64_t t0[] = { 0, 1000000, 2010000, 2990000 };
	struct stats s[RS_N];
	double target;
	int i, k;

	for (k = 0; k < RS_N; k++)
		CHECK_EQ_LL(stats_init(&s[k], 0, 1000, 10000), 0);
	for (i = 1; i < 4; i++) {
		struct req_stamps t = {
			.t0_prev = t0[i - 1], .t0 = t0[i], .t1 = t0[i] + 10000,
			.t2 = t0[i] + 110000, .t3 = t0[i] + 120000,
		};
		int64_t v[RS_N];

		req_series_compute(&t, &local_1k, v);
		for (k = 0; k < RS_N; k++)
			stats_add(&s[k], v[k]);
	}
	CHECK_NEAR(stats_mean(&s[RS_INTERVAL]), 2990000.0 / 3, 1e-6);
	CHECK(req_series_target(RS_INTERVAL, &local_1k, &target));
	CHECK_NEAR(target, 1000000.0, 0);
	/* deviations 0, +10, -20 us about 1000: sqrt((100+400)/2) us */
	CHECK_NEAR(stats_stddev_about(&s[RS_INTERVAL], target), 15811.3883, 1e-3);
	CHECK(req_series_target(RS_SLEEP, &local_1k, &target));
	CHECK_NEAR(target, 100000.0, 0);
	CHECK(!req_series_target(RS_JITTER, &local_1k, &target));
	/* jitter: 20 + 0 + {0, 10, 20} us */
	CHECK_EQ_LL(s[RS_JITTER].min, 20000);
	CHECK_EQ_LL(s[RS_JITTER].max, 40000);
	CHECK_NEAR(stats_mean(&s[RS_JITTER]), 30000.0, 1e-6);
	for (k = 0; k < RS_N; k++)
		stats_free(&s[k]);
}

UNIT_TEST(frame_request_round_trip)
{
	uint8_t b[REQ_REQUEST_LEN];
	uint32_t seq = 0;

	req_encode_request(b, 0x01020304);
	CHECK_EQ_LL(b[0], 'R');
	CHECK_EQ_LL(b[1], 'Q');
	CHECK_EQ_LL(b[2], REQ_VERSION);
	CHECK_EQ_LL(req_decode_request(b, &seq), REQ_FRAME_OK);
	CHECK_EQ_LL(seq, 0x01020304);
}

UNIT_TEST(frame_request_rejects)
{
	uint8_t b[REQ_REQUEST_LEN], bad[REQ_REQUEST_LEN];
	char why[96];
	uint32_t seq;

	req_encode_request(b, 9);
	memcpy(bad, b, sizeof(b));
	bad[0] = 'G';
	CHECK_EQ_LL(req_decode_request(bad, &seq), REQ_FRAME_MAGIC);
	CHECK(strstr(req_frame_strerror(REQ_FRAME_MAGIC, bad, why, sizeof(why)),
		     "bad magic 0x4751"));
	memcpy(bad, b, sizeof(b));
	bad[2] = 2;
	CHECK_EQ_LL(req_decode_request(bad, &seq), REQ_FRAME_VERSION);
	CHECK(strstr(req_frame_strerror(REQ_FRAME_VERSION, bad, why, sizeof(why)),
		     "version 2"));
	memcpy(bad, b, sizeof(b));
	bad[3] = 0x80;
	CHECK_EQ_LL(req_decode_request(bad, &seq), REQ_FRAME_FLAGS);
	/* A reply is not a request. */
	{
		uint8_t r[REQ_REPLY_LEN];

		req_encode_reply(r, 9, 1, 2);
		CHECK_EQ_LL(req_decode_request(r, &seq), REQ_FRAME_MAGIC);
	}
}

UNIT_TEST(frame_reply_round_trip)
{
	uint8_t b[REQ_REPLY_LEN];
	int64_t t1 = 0, t2 = 0;

	req_encode_reply(b, 300, 123456789012345LL, 123456789112345LL);
	CHECK_EQ_LL(req_decode_reply(b, 300, &t1, &t2), REQ_FRAME_OK);
	CHECK_EQ_LL(t1, 123456789012345LL);
	CHECK_EQ_LL(t2, 123456789112345LL);
	CHECK_EQ_LL(req_decode_reply(b, 301, &t1, &t2), REQ_FRAME_SEQ);
	b[2] = 0;
	CHECK_EQ_LL(req_decode_reply(b, 300, &t1, &t2), REQ_FRAME_VERSION);
	b[1] = 0;
	CHECK_EQ_LL(req_decode_reply(b, 300, &t1, &t2), REQ_FRAME_MAGIC);
	/* A negative or huge server time saturates instead of wrapping. */
	req_encode_reply(b, 1, 1000, 10);
	CHECK_EQ_LL(req_decode_reply(b, 1, &t1, &t2), REQ_FRAME_OK);
	CHECK_EQ_LL(t2, 1000);
}

UNIT_TEST(layout_default_and_fallbacks)
{
	static const int eight[] = { 0, 1, 2, 3, 4, 5, 6, 7 };
	struct req_layout l;

	req_layout_default(&l, eight, 8);
	CHECK_EQ_LL(l.main_cpu, 1);
	CHECK_EQ_LL(l.server_cpu, 2);
	CHECK_EQ_LL(l.client_cpu, 3);
	CHECK_EQ_LL(l.nload_cpus, 5);
	CHECK_EQ_LL(req_load_cpu(&l, 0), 3);
	CHECK_EQ_LL(req_load_cpu(&l, 6), 4);
	CHECK_EQ_LL(l.main_prio, l.client_prio + 1);
	CHECK_EQ_LL(l.client_prio, l.server_prio + 1);
	req_layout_default(&l, eight, 2);
	CHECK_EQ_LL(l.server_cpu, 0);
	CHECK_EQ_LL(l.client_cpu, 1);
	CHECK_EQ_LL(l.nload_cpus, 1);
	CHECK_EQ_LL(req_load_cpu(&l, 3), 1);
	CHECK_EQ_LL(req_max_loads(&l), REQ_LOADS_PER_CPU);
	req_layout_default(&l, eight, 1);
	CHECK_EQ_LL(l.client_cpu, 0);
	CHECK_EQ_LL(req_load_cpu(&l, 0), 0);
}

UNIT_TEST(layout_cpu_list)
{
	struct req_layout l;
	int bad;

	CHECK_EQ_LL(req_parse_cpu_list("0", &l, &bad), 0);
	CHECK_EQ_LL(l.nload_cpus, 1);
	CHECK_EQ_LL(req_parse_cpu_list("0-0,0", &l, &bad), 0);
	CHECK_EQ_LL(l.nload_cpus, 2);
	CHECK_EQ_LL(req_parse_cpu_list("1-0", &l, &bad), -1);
	CHECK_EQ_LL(req_parse_cpu_list("x", &l, &bad), -1);
	CHECK_EQ_LL(bad, -2);
	CHECK_EQ_LL(req_parse_cpu_list("0,", &l, &bad), -1);
	CHECK_EQ_LL(req_parse_cpu_list("4000", &l, &bad), -1);
	CHECK(bad >= 0);
}
