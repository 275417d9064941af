// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * fuzz_json.c - libFuzzer harness for the JSON writer's string escaping.
 *
 * The input (up to its first NUL, as a C string is) is escaped by
 * json_escape and written as a key and a value by the writer; the output
 * is read back by a strict validator written here from RFC 8259: the
 * document must be one object, its text valid UTF-8, no raw control
 * character inside a string, only the escapes the RFC names. The decoded
 * string must equal the input when the input is valid UTF-8; otherwise
 * each invalid byte must have become U+FFFD.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "util/json.h"

struct buf {
	unsigned char *s;
	size_t n, cap;
};

static void put(struct buf *b, const unsigned char *p, size_t n)
{
	if (b->n + n > b->cap) {
		b->cap = 2 * (b->n + n);
		b->s = realloc(b->s, b->cap);
		if (!b->s)
			abort();
	}
	memcpy(b->s + b->n, p, n);
	b->n += n;
}

static void put_cp(struct buf *b, uint32_t cp)
{
	unsigned char u[4];
	size_t n;

	if (cp < 0x80) {
		u[0] = (unsigned char)cp;
		n = 1;
	} else if (cp < 0x800) {
		u[0] = 0xc0 | cp >> 6;
		u[1] = 0x80 | (cp & 0x3f);
		n = 2;
	} else if (cp < 0x10000) {
		u[0] = 0xe0 | cp >> 12;
		u[1] = 0x80 | (cp >> 6 & 0x3f);
		u[2] = 0x80 | (cp & 0x3f);
		n = 3;
	} else {
		u[0] = 0xf0 | cp >> 18;
		u[1] = 0x80 | (cp >> 12 & 0x3f);
		u[2] = 0x80 | (cp >> 6 & 0x3f);
		u[3] = 0x80 | (cp & 0x3f);
		n = 4;
	}
	put(b, u, n);
}

/*
 * Length of the well-formed UTF-8 sequence at p, 0 if ill-formed. Written
 * from the Unicode standard's table of well-formed byte sequences (3.9,
 * table 3-7), byte ranges only, so that it shares no logic with the
 * decoder in src/util/json.c that it judges.
 */
static const struct {
	unsigned char lead_lo, lead_hi, second_lo, second_hi;
	size_t len;
} wellformed[] = {
	{ 0xc2, 0xdf, 0x80, 0xbf, 2 },
	{ 0xe0, 0xe0, 0xa0, 0xbf, 3 },
	{ 0xe1, 0xec, 0x80, 0xbf, 3 },
	{ 0xed, 0xed, 0x80, 0x9f, 3 },
	{ 0xee, 0xef, 0x80, 0xbf, 3 },
	{ 0xf0, 0xf0, 0x90, 0xbf, 4 },
	{ 0xf1, 0xf3, 0x80, 0xbf, 4 },
	{ 0xf4, 0xf4, 0x80, 0x8f, 4 },
};

static size_t utf8_len(const unsigned char *p, size_t left)
{
	size_t k, i;

	if (p[0] < 0x80)
		return 1;
	for (k = 0; k < sizeof(wellformed) / sizeof(wellformed[0]); k++) {
		if (p[0] < wellformed[k].lead_lo || p[0] > wellformed[k].lead_hi)
			continue;
		if (wellformed[k].len > left || p[1] < wellformed[k].second_lo ||
		    p[1] > wellformed[k].second_hi)
			return 0;
		for (i = 2; i < wellformed[k].len; i++)
			if (p[i] < 0x80 || p[i] > 0xbf)
				return 0;
		return wellformed[k].len;
	}
	return 0;
}

static int hex4(const unsigned char *p, uint32_t *v)
{
	int i;

	*v = 0;
	for (i = 0; i < 4; i++) {
		int c = p[i], d;

		d = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ?
		    c - 'a' + 10 : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
		if (d < 0)
			return -1;
		*v = *v << 4 | (uint32_t)d;
	}
	return 0;
}

/* \uXXXX (a surrogate pair taken whole) at *p, past the backslash-u. */
static int unicode_escape(const unsigned char **p, const unsigned char *end,
			  struct buf *out)
{
	uint32_t hi, lo;

	if (end - *p < 4 || hex4(*p, &hi))
		return -1;
	*p += 4;
	if (hi >= 0xdc00 && hi <= 0xdfff)
		return -1;
	if (hi >= 0xd800 && hi <= 0xdbff) {
		if (end - *p < 6 || (*p)[0] != '\\' || (*p)[1] != 'u' ||
		    hex4(*p + 2, &lo) || lo < 0xdc00 || lo > 0xdfff)
			return -1;
		*p += 6;
		hi = 0x10000 + ((hi - 0xd800) << 10) + (lo - 0xdc00);
	}
	put_cp(out, hi);
	return 0;
}

static int escape(const unsigned char **p, const unsigned char *end,
		  struct buf *out)
{
	static const char from[] = "\"\\/bfnrt", to[] = "\"\\/\b\f\n\r\t";
	const char *e;

	if (*p >= end)
		return -1;
	if (**p == 'u') {
		(*p)++;
		return unicode_escape(p, end, out);
	}
	e = memchr(from, **p, sizeof(from) - 1);
	if (!e)
		return -1;
	put(out, (const unsigned char *)&to[e - from], 1);
	(*p)++;
	return 0;
}

/* A JSON string at *p (at its quote): decoded into out, -1 if invalid. */
static int json_string(const unsigned char **p, const unsigned char *end,
		       struct buf *out)
{
	size_t n;

	if (*p >= end || **p != '"')
		return -1;
	for ((*p)++; *p < end && **p != '"';) {
		if (**p < 0x20)
			return -1;
		if (**p == '\\') {
			(*p)++;
			if (escape(p, end, out))
				return -1;
			continue;
		}
		n = utf8_len(*p, (size_t)(end - *p));
		if (!n)
			return -1;
		put(out, *p, n);
		*p += n;
	}
	if (*p >= end)
		return -1;
	(*p)++;
	return 0;
}

static void skip_ws(const unsigned char **p, const unsigned char *end)
{
	while (*p < end && strchr(" \t\r\n", **p) && **p)
		(*p)++;
}

/* What the escaper must produce: the input with every byte that is not
 * part of a valid UTF-8 sequence replaced by U+FFFD. */
static void expected(const unsigned char *s, size_t len, struct buf *out)
{
	size_t i = 0, n;

	while (i < len) {
		n = utf8_len(s + i, len - i);
		if (n) {
			put(out, s + i, n);
			i += n;
		} else {
			put_cp(out, 0xfffd);
			i++;
		}
	}
}

static int match(const struct buf *a, const struct buf *b)
{
	return a->n == b->n && (!a->n || !memcmp(a->s, b->s, a->n));
}

/* {"key": "value"} written by the writer, both decoded back to s. */
static void check_document(const char *doc, size_t len, const struct buf *want)
{
	const unsigned char *p = (const unsigned char *)doc, *end = p + len;
	struct buf key = { 0 }, val = { 0 };

	skip_ws(&p, end);
	if (p >= end || *p++ != '{')
		abort();
	skip_ws(&p, end);
	if (json_string(&p, end, &key))
		abort();
	skip_ws(&p, end);
	if (p >= end || *p++ != ':')
		abort();
	skip_ws(&p, end);
	if (json_string(&p, end, &val))
		abort();
	skip_ws(&p, end);
	if (p >= end || *p++ != '}')
		abort();
	skip_ws(&p, end);
	if (p != end || !match(&key, want) || !match(&val, want))
		abort();
	free(key.s);
	free(val.s);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = malloc(size + 1), *doc = NULL;
	struct buf want = { 0 };
	size_t len = 0;
	struct json j;
	FILE *f;

	if (!s)
		abort();
	memcpy(s, data, size);
	s[size] = '\0';
	f = open_memstream(&doc, &len);
	if (!f)
		abort();
	json_init(&j, f);
	json_obj_open(&j, NULL);
	json_str(&j, s, s);
	json_obj_close(&j);
	fclose(f);
	expected((const unsigned char *)s, strlen(s), &want);
	check_document(doc, len, &want);
	free(want.s);
	free(doc);
	free(s);
	return 0;
}
