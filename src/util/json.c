// SPDX-License-Identifier: GPL-2.0-or-later
/* json.c - streaming JSON writer (see json.h). */
#include <math.h>
#include <string.h>
#include "util/json.h"

/*
 * A writer's file (an output file, a memory stream) is its thread's
 * alone, so it takes the unlocked stdio calls, and writes runs of bytes
 * at once: a checkpoint of the largest-samples table is thousands of
 * rows, and its formatting shares the CPUs with the measuring threads.
 * stdout and stderr (--json=-) are also printed to by other threads (the
 * display, a status): those keep stdio's lock.
 */
static inline bool shared(FILE *f)
{
	return f == stdout || f == stderr;
}

static inline void put(FILE *f, const void *s, size_t n)
{
	if (shared(f))
		fwrite(s, 1, n, f);
	else
		fwrite_unlocked(s, 1, n, f);
}

static inline void putch(FILE *f, char c)
{
	if (shared(f))
		putc(c, f);
	else
		putc_unlocked(c, f);
}

static void indent(FILE *f, int n)
{
	static const char spaces[] = "                                ";

	for (; n > 0; n -= (int)sizeof(spaces) - 1)
		put(f, spaces, n < (int)sizeof(spaces) - 1 ? (size_t)n : sizeof(spaces) - 1);
}

/* v in decimal, '-' first if neg: printf's "%llu" without its parsing. */
static void put_decimal(FILE *f, bool neg, unsigned long long v)
{
	char buf[24], *p = buf + sizeof(buf);

	do {
		*--p = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	if (neg)
		*--p = '-';
	put(f, p, (size_t)(buf + sizeof(buf) - p));
}

static unsigned long long magnitude(long long v)
{
	return v < 0 ? 0ULL - (unsigned long long)v : (unsigned long long)v;
}

void json_init(struct json *j, FILE *f)
{
	memset(j, 0, sizeof(*j));
	j->f = f;
	j->first[0] = true;
}

/* Length of the valid UTF-8 sequence at p (RFC 3629: shortest form, no
 * surrogates, at most U+10FFFF), 0 if it is not one. */
static int utf8_len(const unsigned char *p)
{
	int n, i;
	unsigned int cp;

	n = p[0] >= 0xf0 ? 4 : p[0] >= 0xe0 ? 3 : p[0] >= 0xc2 ? 2 : 0;
	if (!n || p[0] > 0xf4)
		return 0;
	cp = p[0] & (0x3fu >> (n - 1));
	/* Stops at the terminating NUL: it is not a continuation byte. */
	for (i = 1; i < n; i++) {
		if ((p[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (p[i] & 0x3f);
	}
	if ((n == 3 && cp < 0x800) || (n == 4 && (cp < 0x10000 || cp > 0x10ffff)) ||
	    (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	return n;
}

/* JSON text is UTF-8 (RFC 8259): a byte that is not part of a valid
 * sequence (a file name or argument in another encoding) is written as
 * U+FFFD, so every reader can parse the file. */
static const unsigned char *json_escape_high(FILE *f, const unsigned char *p)
{
	int n = utf8_len(p);

	if (!n) {
		put(f, "\\ufffd", 6);
		return p;
	}
	put(f, p, (size_t)n);
	return p + n - 1;
}

void json_escape(FILE *f, const char *s)
{
	const unsigned char *p = (const unsigned char *)(s ? s : "");
	const unsigned char *run;
	char u[8];

	putch(f, '"');
	for (run = p; *p; p++) {
		if (*p >= 0x20 && *p < 0x7f && *p != '"' && *p != '\\')
			continue;
		put(f, run, (size_t)(p - run));
		switch (*p) {
		case '"': put(f, "\\\"", 2); break;
		case '\\': put(f, "\\\\", 2); break;
		case '\n': put(f, "\\n", 2); break;
		case '\r': put(f, "\\r", 2); break;
		case '\t': put(f, "\\t", 2); break;
		case '\b': put(f, "\\b", 2); break;
		case '\f': put(f, "\\f", 2); break;
		default:
			if (*p >= 0x80) {
				p = json_escape_high(f, p);
			} else {
				snprintf(u, sizeof(u), "\\u%04x", *p);
				put(f, u, 6);
			}
		}
		run = p + 1;
	}
	put(f, run, (size_t)(p - run));
	putch(f, '"');
}

/* Separator, newline and indent before a value, then its key. */
static void json_lead(struct json *j, const char *key)
{
	int d = j->depth;

	if (!j->first[d])
		putch(j->f, ',');
	j->first[d] = false;
	if (d > 0 && j->inline_arr[d]) {
		putch(j->f, ' ');
	} else if (d > 0) {
		putch(j->f, '\n');
		indent(j->f, 2 * d);
	}
	if (key) {
		json_escape(j->f, key);
		put(j->f, ": ", 2);
	}
}

static void json_push(struct json *j, char c, bool inl)
{
	putch(j->f, c);
	if (j->depth < JSON_MAX_DEPTH - 1)
		j->depth++;
	j->first[j->depth] = true;
	j->inline_arr[j->depth] = inl || j->inline_arr[j->depth - 1];
}

static void json_pop(struct json *j, char c)
{
	bool empty = j->first[j->depth];
	bool inl = j->inline_arr[j->depth];

	if (j->depth > 0)
		j->depth--;
	if (inl) {
		if (!empty)
			putch(j->f, ' ');
	} else if (!empty) {
		putch(j->f, '\n');
		indent(j->f, 2 * j->depth);
	}
	putch(j->f, c);
	if (j->depth == 0)
		putch(j->f, '\n');
}

void json_obj_open(struct json *j, const char *key)
{
	if (j->depth > 0 || !j->first[0])
		json_lead(j, key);
	json_push(j, '{', false);
}

void json_obj_close(struct json *j)
{
	json_pop(j, '}');
}

void json_arr_open(struct json *j, const char *key)
{
	json_lead(j, key);
	json_push(j, '[', false);
}

void json_arr_open_inline(struct json *j, const char *key)
{
	json_lead(j, key);
	json_push(j, '[', true);
}

void json_arr_close(struct json *j)
{
	json_pop(j, ']');
}

void json_int(struct json *j, const char *key, long long v)
{
	json_lead(j, key);
	put_decimal(j->f, v < 0, magnitude(v));
}

void json_uint(struct json *j, const char *key, unsigned long long v)
{
	json_lead(j, key);
	put_decimal(j->f, false, v);
}

void json_double(struct json *j, const char *key, double v)
{
	json_lead(j, key);
	if (!isfinite(v))
		put(j->f, "null", 4);
	else
		fprintf(j->f, "%.15g", v);
}

void json_seconds_ns(struct json *j, const char *key, long long ns)
{
	unsigned long long a = magnitude(ns), r = a % 1000000000ULL;
	char frac[10];
	int n = 9, i;

	json_lead(j, key);
	put_decimal(j->f, ns < 0, a / 1000000000ULL);
	if (!r)
		return;
	for (i = 9; i >= 1; i--, r /= 10)
		frac[i] = (char)('0' + r % 10);
	while (frac[n] == '0')
		n--;
	frac[0] = '.';
	put(j->f, frac, (size_t)n + 1);
}

void json_fixed(struct json *j, const char *key, double v, int decimals)
{
	json_lead(j, key);
	if (!isfinite(v))
		put(j->f, "null", 4);
	else
		fprintf(j->f, "%.*f", decimals, v);
}

void json_bool(struct json *j, const char *key, bool v)
{
	json_lead(j, key);
	if (v)
		put(j->f, "true", 4);
	else
		put(j->f, "false", 5);
}

void json_null(struct json *j, const char *key)
{
	json_lead(j, key);
	put(j->f, "null", 4);
}

void json_str(struct json *j, const char *key, const char *s)
{
	json_lead(j, key);
	json_escape(j->f, s);
}

void json_fragment_init(struct json *sub, FILE *f, int depth)
{
	json_init(sub, f);
	if (depth >= JSON_MAX_DEPTH)
		depth = JSON_MAX_DEPTH - 1;
	sub->depth = depth;
	sub->first[depth] = false;
}

void json_fragment_put(struct json *j, const char *text)
{
	put(j->f, text, strlen(text));
	j->first[j->depth] = false;
}
