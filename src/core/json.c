// SPDX-License-Identifier: GPL-2.0-or-later
/* json.c - streaming JSON writer (see json.h). */
#include <math.h>
#include <string.h>
#include "core/json.h"

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
		fputs("\\ufffd", f);
		return p;
	}
	fwrite(p, 1, (size_t)n, f);
	return p + n - 1;
}

void json_escape(FILE *f, const char *s)
{
	const unsigned char *p = (const unsigned char *)(s ? s : "");

	fputc('"', f);
	for (; *p; p++) {
		switch (*p) {
		case '"': fputs("\\\"", f); break;
		case '\\': fputs("\\\\", f); break;
		case '\n': fputs("\\n", f); break;
		case '\r': fputs("\\r", f); break;
		case '\t': fputs("\\t", f); break;
		case '\b': fputs("\\b", f); break;
		case '\f': fputs("\\f", f); break;
		default:
			if (*p >= 0x80)
				p = json_escape_high(f, p);
			else if (*p < 0x20 || *p == 0x7f)
				fprintf(f, "\\u%04x", *p);
			else
				fputc(*p, f);
		}
	}
	fputc('"', f);
}

/* Separator, newline and indent before a value, then its key. */
static void json_lead(struct json *j, const char *key)
{
	int d = j->depth;

	if (!j->first[d])
		fputc(',', j->f);
	j->first[d] = false;
	if (d > 0 && j->inline_arr[d]) {
		fputc(' ', j->f);
	} else if (d > 0) {
		fputc('\n', j->f);
		fprintf(j->f, "%*s", 2 * d, "");
	}
	if (key) {
		json_escape(j->f, key);
		fputs(": ", j->f);
	}
}

static void json_push(struct json *j, char c, bool inl)
{
	fputc(c, j->f);
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
		fputs(empty ? "" : " ", j->f);
	} else if (!empty) {
		fputc('\n', j->f);
		fprintf(j->f, "%*s", 2 * j->depth, "");
	}
	fputc(c, j->f);
	if (j->depth == 0)
		fputc('\n', j->f);
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
	fprintf(j->f, "%lld", v);
}

void json_uint(struct json *j, const char *key, unsigned long long v)
{
	json_lead(j, key);
	fprintf(j->f, "%llu", v);
}

void json_double(struct json *j, const char *key, double v)
{
	json_lead(j, key);
	if (!isfinite(v))
		fputs("null", j->f);
	else
		fprintf(j->f, "%.15g", v);
}

void json_fixed(struct json *j, const char *key, double v, int decimals)
{
	json_lead(j, key);
	if (!isfinite(v))
		fputs("null", j->f);
	else
		fprintf(j->f, "%.*f", decimals, v);
}

void json_bool(struct json *j, const char *key, bool v)
{
	json_lead(j, key);
	fputs(v ? "true" : "false", j->f);
}

void json_null(struct json *j, const char *key)
{
	json_lead(j, key);
	fputs("null", j->f);
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
	fputs(text, j->f);
	j->first[j->depth] = false;
}
