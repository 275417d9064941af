/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * request_proto.h - the request test's wire format and socket helpers.
 *
 * Request, client to server, 8 bytes:
 *   0-1 magic "RQ", 2 version, 3 flags, 4-7 sequence (big-endian)
 *   flags: 0, or REQ_FLAG_PRIO | p (p 1..127): serve this connection at
 *   SCHED_FIFO priority p (the multi-client test). A version 1 client that sends 0
 *   is served as before, so the version did not change.
 * Reply, server to client, 16 bytes:
 *   0-1 magic "RP", 2 version, 3 low byte of the sequence,
 *   4-7 t2 - t1 in ns (big-endian, saturated), 8-15 t1 in ns (big-endian)
 * Refusal, server to client, 16 bytes, then the connection is closed:
 *   0-1 magic "RE", 2 version, 3 reason (REQ_REFUSE_*), 4-7 the value
 *   asked, 8-11 and 12-15 the accepted range (big-endian)
 * One request is outstanding at a time: anything else is an error.
 */
#ifndef RTLAT_REQUEST_PROTO_H
#define RTLAT_REQUEST_PROTO_H

#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

#define REQ_REQUEST_LEN		8
#define REQ_REPLY_LEN		16
#define REQ_VERSION		1
#define REQ_MAGIC_REQUEST	0x5251	/* "RQ" */
#define REQ_MAGIC_REPLY		0x5250	/* "RP" */
#define REQ_MAGIC_REFUSE	0x5245	/* "RE" */
#define REQ_FLAG_PRIO		0x80	/* low 7 bits: the priority asked */
#define REQ_REFUSE_PRIORITY	1

enum req_frame_err {
	REQ_FRAME_OK = 0,
	REQ_FRAME_MAGIC,
	REQ_FRAME_VERSION,
	REQ_FRAME_FLAGS,
	REQ_FRAME_SEQ,
	REQ_FRAME_REFUSED,	/* a refusal frame: see req_frame_strerror */
};

void req_encode_request(uint8_t b[REQ_REQUEST_LEN], uint32_t seq);
/* The same, asking for SCHED_FIFO priority prio (1..127; 0: none). */
void req_encode_request_prio(uint8_t b[REQ_REQUEST_LEN], uint32_t seq,
			     int prio);
/* The priority a valid request asks for (0..127); -1: none. */
int req_request_prio(const uint8_t b[REQ_REQUEST_LEN]);
void req_encode_refusal(uint8_t b[REQ_REPLY_LEN], int reason, uint32_t asked,
			uint32_t lo, uint32_t hi);
/* Validate a request; *seq gets its sequence number. */
enum req_frame_err req_decode_request(const uint8_t b[REQ_REQUEST_LEN],
				      uint32_t *seq);
void req_encode_reply(uint8_t b[REQ_REPLY_LEN], uint32_t seq, int64_t t1,
		      int64_t t2);
/* Validate a reply to request seq; fills t1 and t2 (server clock). */
enum req_frame_err req_decode_reply(const uint8_t b[REQ_REPLY_LEN],
				    uint32_t seq, int64_t *t1, int64_t *t2);
/*
 * The server's connection without its socket: b holds the n bytes read so
 * far for one request (the first read takes what is there, up to a
 * buffer; later reads complete it to REQ_REQUEST_LEN). Returns 1 when the
 * rest is to be read, 0 with *seq for a valid request to reply to, or -1
 * with the reason in why ("oversized frame ...", "malformed frame: ...")
 * when the connection is to be closed.
 */
int req_server_frame(const uint8_t *b, size_t n, uint32_t *seq, char *why,
		     size_t len);
/* "bad magic 0x4142"... into buf, for the log line. */
const char *req_frame_strerror(enum req_frame_err e, const uint8_t *b,
			       char *buf, size_t len);

/*
 * Complete reads and writes on a socket, bounded by an absolute
 * CLOCK_MONOTONIC deadline. Return 0, -ETIMEDOUT, -EPIPE (peer closed;
 * *done says how much came), or -errno.
 */
int req_read_full(int fd, void *buf, size_t len, int64_t deadline,
		  size_t *done);
int req_write_full(int fd, const void *buf, size_t len, int64_t deadline);

/* "127.0.0.1:20000" or "[::1]:20000". */
void req_addr_str(const struct sockaddr *sa, char *buf, size_t len);

#endif
