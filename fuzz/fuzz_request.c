// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * fuzz_request.c - libFuzzer harness for the request test's wire format:
 * the server's connection (bytes in, replies out, no sockets) and the
 * client's reply decoder.
 *
 * Input: byte 0 selects the server or the client side.
 * Server: the rest is a stream of reads, each a length byte (1..64) then
 * up to that many bytes. As request_server.c does, the first read of a
 * frame takes up to 64 bytes and later reads only complete it to 8; a
 * valid request is answered and the reply must decode on the client side
 * with the request's sequence, t1 and t2; a closed connection ends it.
 * Client: 16 bytes of reply, a sequence and the decoder must agree with
 * the encoder on every frame the encoder can make.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "request/request_proto.h"

#define READ_CHUNK 64

struct stream {
	const uint8_t *p;
	size_t left;
};

/* One read of at most want bytes: its length, 0 at the end. */
static size_t next_read(struct stream *st, uint8_t *b, size_t want)
{
	size_t n;

	if (!st->left)
		return 0;
	n = st->p[0] % READ_CHUNK + 1;
	st->p++;
	st->left--;
	if (n > st->left)
		n = st->left;
	if (n > want)
		n = want;
	memcpy(b, st->p, n);
	st->p += n;
	st->left -= n;
	return n;
}

static void reply_and_check(uint32_t seq, int64_t t1)
{
	uint8_t out[REQ_REPLY_LEN];
	int64_t t2 = t1 + (int64_t)(seq % 1000003), r1, r2;

	req_encode_reply(out, seq, t1, t2);
	if (req_decode_reply(out, seq, &r1, &r2) || r1 != t1 || r2 != t2)
		abort();
}

static void server(struct stream *st)
{
	uint8_t b[READ_CHUNK];
	char why[160];
	uint32_t seq;
	size_t got, n;
	int v;

	for (;;) {
		got = next_read(st, b, READ_CHUNK);
		if (!got)
			return;
		v = req_server_frame(b, got, &seq, why, sizeof(why));
		while (v > 0) {
			n = next_read(st, b + got, REQ_REQUEST_LEN - got);
			if (!n)
				return;	/* truncated: closed by the server */
			got += n;
			v = req_server_frame(b, got, &seq, why, sizeof(why));
		}
		if (v < 0) {
			if (!memchr(why, '\0', sizeof(why)) || !why[0])
				abort();
			return;
		}
		if (got != REQ_REQUEST_LEN)
			abort();
		reply_and_check(seq, (int64_t)seq * 1000);
	}
}

static void client(const uint8_t *d, size_t size)
{
	uint8_t frame[REQ_REPLY_LEN], again[REQ_REPLY_LEN];
	int64_t t1, t2;
	uint32_t seq;
	char why[128];
	int err;

	if (size < REQ_REPLY_LEN + 4)
		return;
	memcpy(frame, d, REQ_REPLY_LEN);
	memcpy(&seq, d + REQ_REPLY_LEN, 4);
	err = req_decode_reply(frame, seq, &t1, &t2);
	req_frame_strerror(err, frame, why, sizeof(why));
	if (err)
		return;
	if (t2 < t1 || t2 - t1 > UINT32_MAX)
		abort();
	/* Saturated at INT64_MAX (a hostile t1): nothing to give back. */
	if (t2 == INT64_MAX)
		return;
	/* t2 - t1 of a valid frame fits 32 bits: re-encoding gives it back. */
	req_encode_reply(again, seq, t1, t2);
	if (memcmp(again, frame, REQ_REPLY_LEN))
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct stream st = { data + 1, size ? size - 1 : 0 };

	if (!size)
		return 0;
	if (data[0] & 1)
		client(data + 1, size - 1);
	else
		server(&st);
	return 0;
}
