// SPDX-License-Identifier: GPL-2.0-or-later
/* request_proto.c - frames and complete socket I/O (see request_proto.h). */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include "measure/clock.h"
#include "request/request_proto.h"

static void put16(uint8_t *b, uint16_t v)
{
	b[0] = (uint8_t)(v >> 8);
	b[1] = (uint8_t)v;
}

static void put32(uint8_t *b, uint32_t v)
{
	put16(b, (uint16_t)(v >> 16));
	put16(b + 2, (uint16_t)v);
}

static void put64(uint8_t *b, uint64_t v)
{
	put32(b, (uint32_t)(v >> 32));
	put32(b + 4, (uint32_t)v);
}

static uint16_t get16(const uint8_t *b)
{
	return (uint16_t)(b[0] << 8 | b[1]);
}

static uint32_t get32(const uint8_t *b)
{
	return (uint32_t)get16(b) << 16 | get16(b + 2);
}

static uint64_t get64(const uint8_t *b)
{
	return (uint64_t)get32(b) << 32 | get32(b + 4);
}

void req_encode_request_prio(uint8_t b[REQ_REQUEST_LEN], uint32_t seq,
			     int prio)
{
	put16(b, REQ_MAGIC_REQUEST);
	b[2] = REQ_VERSION;
	b[3] = prio > 0 ? (uint8_t)(REQ_FLAG_PRIO | (prio & 0x7f)) : 0;
	put32(b + 4, seq);
}

void req_encode_request(uint8_t b[REQ_REQUEST_LEN], uint32_t seq)
{
	req_encode_request_prio(b, seq, 0);
}

int req_request_prio(const uint8_t b[REQ_REQUEST_LEN])
{
	return b[3] & REQ_FLAG_PRIO ? b[3] & 0x7f : -1;
}

void req_encode_refusal(uint8_t b[REQ_REPLY_LEN], int reason, uint32_t asked,
			uint32_t lo, uint32_t hi)
{
	put16(b, REQ_MAGIC_REFUSE);
	b[2] = REQ_VERSION;
	b[3] = (uint8_t)reason;
	put32(b + 4, asked);
	put32(b + 8, lo);
	put32(b + 12, hi);
}

enum req_frame_err req_decode_request(const uint8_t b[REQ_REQUEST_LEN],
				      uint32_t *seq)
{
	if (get16(b) != REQ_MAGIC_REQUEST)
		return REQ_FRAME_MAGIC;
	if (b[2] != REQ_VERSION)
		return REQ_FRAME_VERSION;
	/* 0, or the flag with a priority 1..127 (0x80 alone is not one);
	 * a priority above the system's range is refused by the server. */
	if (b[3] != 0 && (!(b[3] & REQ_FLAG_PRIO) || b[3] == REQ_FLAG_PRIO))
		return REQ_FRAME_FLAGS;
	*seq = get32(b + 4);
	return REQ_FRAME_OK;
}

void req_encode_reply(uint8_t b[REQ_REPLY_LEN], uint32_t seq, int64_t t1,
		      int64_t t2)
{
	int64_t d = t2 - t1;

	put16(b, REQ_MAGIC_REPLY);
	b[2] = REQ_VERSION;
	b[3] = (uint8_t)seq;
	put32(b + 4, d < 0 ? 0 : d > UINT32_MAX ? UINT32_MAX : (uint32_t)d);
	put64(b + 8, (uint64_t)t1);
}

enum req_frame_err req_decode_reply(const uint8_t b[REQ_REPLY_LEN],
				    uint32_t seq, int64_t *t1, int64_t *t2)
{
	if (get16(b) == REQ_MAGIC_REFUSE)
		return REQ_FRAME_REFUSED;
	if (get16(b) != REQ_MAGIC_REPLY)
		return REQ_FRAME_MAGIC;
	if (b[2] != REQ_VERSION)
		return REQ_FRAME_VERSION;
	if (b[3] != (uint8_t)seq)
		return REQ_FRAME_SEQ;
	*t1 = (int64_t)get64(b + 8);
	/* Saturated: a hostile server's t1 near INT64_MAX must not overflow
	 * (found by fuzz_request); t2 - t1 then stays within 32 bits. */
	*t2 = *t1 > INT64_MAX - (int64_t)get32(b + 4) ? INT64_MAX :
	      *t1 + (int64_t)get32(b + 4);
	return REQ_FRAME_OK;
}

const char *req_frame_strerror(enum req_frame_err e, const uint8_t *b,
			       char *buf, size_t len)
{
	switch (e) {
	case REQ_FRAME_OK:
		snprintf(buf, len, "valid frame");
		break;
	case REQ_FRAME_MAGIC:
		snprintf(buf, len, "bad magic 0x%04x", get16(b));
		break;
	case REQ_FRAME_VERSION:
		snprintf(buf, len, "unsupported version %u (expected %d)",
			 b[2], REQ_VERSION);
		break;
	case REQ_FRAME_FLAGS:
		snprintf(buf, len, "unknown flags 0x%02x", b[3]);
		break;
	case REQ_FRAME_SEQ:
		snprintf(buf, len, "reply to sequence %u, not the request sent",
			 b[3]);
		break;
	case REQ_FRAME_REFUSED:
		snprintf(buf, len, "refused: priority %u %s; accepted: %u to %u",
			 get32(b + 4), b[3] == REQ_REFUSE_PRIORITY ?
			 "out of range" : "not served", get32(b + 8), get32(b + 12));
		break;
	}
	return buf;
}

int req_server_frame(const uint8_t *b, size_t n, uint32_t *seq, char *why,
		     size_t len)
{
	enum req_frame_err err;
	char what[96];

	if (n < REQ_REQUEST_LEN)
		return 1;
	err = req_decode_request(b, seq);
	/* Too much at once: say what is wrong with the start, if anything. */
	if (!err && n > REQ_REQUEST_LEN) {
		snprintf(why, len, "oversized frame (%zu bytes or more; a request is %d)",
			 n, REQ_REQUEST_LEN);
		return -1;
	}
	if (err) {
		snprintf(why, len, "malformed frame: %s",
			 req_frame_strerror(err, b, what, sizeof(what)));
		return -1;
	}
	return 0;
}

/* Wait for fd to be ready for ev until deadline: 0, -ETIMEDOUT, -errno. */
static int wait_fd(int fd, short ev, int64_t deadline)
{
	struct pollfd p = { .fd = fd, .events = ev };
	int64_t left;
	int r;

	for (;;) {
		left = deadline - clock_now_ns();
		if (left <= 0)
			return -ETIMEDOUT;
		r = poll(&p, 1, (int)((left + NSEC_PER_MSEC - 1) / NSEC_PER_MSEC));
		if (r > 0)
			return 0;
		if (r < 0 && errno != EINTR)
			return -errno;
	}
}

int req_read_full(int fd, void *buf, size_t len, int64_t deadline,
		  size_t *done)
{
	size_t got = 0;
	ssize_t n;
	int err = 0;

	while (got < len) {
		n = recv(fd, (char *)buf + got, len - got, MSG_DONTWAIT);
		if (n > 0) {
			got += (size_t)n;
			continue;
		}
		if (n == 0) {
			err = -EPIPE;
			break;
		}
		if (errno == EINTR)
			continue;
		if (errno != EAGAIN && errno != EWOULDBLOCK) {
			err = -errno;
			break;
		}
		err = wait_fd(fd, POLLIN, deadline);
		if (err)
			break;
	}
	if (done)
		*done = got;
	return err;
}

int req_write_full(int fd, const void *buf, size_t len, int64_t deadline)
{
	size_t put = 0;
	ssize_t n;
	int err;

	while (put < len) {
		n = send(fd, (const char *)buf + put, len - put,
			 MSG_DONTWAIT | MSG_NOSIGNAL);
		if (n > 0) {
			put += (size_t)n;
			continue;
		}
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK)
			return -errno;
		err = wait_fd(fd, POLLOUT, deadline);
		if (err)
			return err;
	}
	return 0;
}

void req_addr_str(const struct sockaddr *sa, char *buf, size_t len)
{
	char host[INET6_ADDRSTRLEN] = "?";

	if (sa->sa_family == AF_INET6) {
		const struct sockaddr_in6 *s6 = (const void *)sa;

		inet_ntop(AF_INET6, &s6->sin6_addr, host, sizeof(host));
		snprintf(buf, len, "[%s]:%u", host, ntohs(s6->sin6_port));
	} else {
		const struct sockaddr_in *s4 = (const void *)sa;

		inet_ntop(AF_INET, &s4->sin_addr, host, sizeof(host));
		snprintf(buf, len, "%s:%u", host, ntohs(s4->sin_port));
	}
}
