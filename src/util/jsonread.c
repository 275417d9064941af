// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * jsonread.c - the strict, bounded JSON reader of jsonread.h: recursive
 * descent, its depth bounded by JR_MAX_DEPTH, one malloc'd value per
 * kept value (JR_MAX_VALUES at most), strings decoded to UTF-8.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "util/jsonread.h"

struct reader {
	const unsigned char *p, *start, *end;
	struct jr_doc *d;
	int keep;
	const char *only;	/* of the root object, the member kept; NULL: all */
	bool failed;
};

static int fail(struct reader *r, const char *fmt, ...)
{
	const unsigned char *q;
	int line = 1, col = 1, n;
	va_list ap;

	if (r->failed)
		return -1;
	r->failed = true;
	for (q = r->start; q < r->p && q < r->end; q++, col++)
		if (*q == '\n') {
			line++;
			col = 0;
		}
	n = snprintf(r->d->error, sizeof(r->d->error), "line %d, column %d: ", line, col);
	va_start(ap, fmt);
	if (n > 0 && (size_t)n < sizeof(r->d->error))
		vsnprintf(r->d->error + n, sizeof(r->d->error) - n, fmt, ap);
	va_end(ap);
	return -1;
}

static void skip_ws(struct reader *r)
{
	while (r->p < r->end && (*r->p == ' ' || *r->p == '\t' || *r->p == '\n' ||
				 *r->p == '\r'))
		r->p++;
}

/* A value to fill in (kept), or NULL: not kept (too deep) or no room. */
static struct jr_value *new_value(struct reader *r, int depth, enum jr_type t)
{
	struct jr_value *v;

	if (depth > r->keep)
		return NULL;
	if (r->d->nvalues >= JR_MAX_VALUES) {
		fail(r, "more than %d values", JR_MAX_VALUES);
		return NULL;
	}
	v = calloc(1, sizeof(*v));
	if (!v) {
		fail(r, "out of memory");
		return NULL;
	}
	v->type = t;
	v->all = r->d->all;
	r->d->all = v;
	r->d->nvalues++;
	return v;
}

/* The length of the well-formed UTF-8 sequence at p (Unicode 3.9, table
 * 3-7: no overlong form, no surrogate, nothing above U+10FFFF), 0 if
 * ill-formed. */
static size_t utf8_seq(const unsigned char *p, size_t left)
{
	unsigned char c = p[0], lo = 0x80, hi = 0xbf;
	size_t n, i;

	if (c < 0x80)
		return 1;
	if (c >= 0xc2 && c <= 0xdf)
		n = 2;
	else if (c >= 0xe0 && c <= 0xef)
		n = 3;
	else if (c >= 0xf0 && c <= 0xf4)
		n = 4;
	else
		return 0;
	if (c == 0xe0)
		lo = 0xa0;
	else if (c == 0xed)
		hi = 0x9f;
	else if (c == 0xf0)
		lo = 0x90;
	else if (c == 0xf4)
		hi = 0x8f;
	if (n > left || p[1] < lo || p[1] > hi)
		return 0;
	for (i = 2; i < n; i++)
		if (p[i] < 0x80 || p[i] > 0xbf)
			return 0;
	return n;
}

static size_t put_utf8(char *out, uint32_t cp)
{
	if (cp < 0x80) {
		out[0] = (char)cp;
		return 1;
	}
	if (cp < 0x800) {
		out[0] = (char)(0xc0 | cp >> 6);
		out[1] = (char)(0x80 | (cp & 0x3f));
		return 2;
	}
	if (cp < 0x10000) {
		out[0] = (char)(0xe0 | cp >> 12);
		out[1] = (char)(0x80 | (cp >> 6 & 0x3f));
		out[2] = (char)(0x80 | (cp & 0x3f));
		return 3;
	}
	out[0] = (char)(0xf0 | cp >> 18);
	out[1] = (char)(0x80 | (cp >> 12 & 0x3f));
	out[2] = (char)(0x80 | (cp >> 6 & 0x3f));
	out[3] = (char)(0x80 | (cp & 0x3f));
	return 4;
}

static int hex4(struct reader *r, uint32_t *v)
{
	int i, c;

	if (r->end - r->p < 4)
		return fail(r, "\\u needs 4 hex digits");
	for (*v = 0, i = 0; i < 4; i++) {
		c = *r->p++;
		if (c >= '0' && c <= '9')
			*v = *v << 4 | (uint32_t)(c - '0');
		else if ((c | 0x20) >= 'a' && (c | 0x20) <= 'f')
			*v = *v << 4 | (uint32_t)((c | 0x20) - 'a' + 10);
		else
			return fail(r, "\\u needs 4 hex digits");
	}
	return 0;
}

/* \uXXXX, past its "\u": a surrogate pair whole, into out (4 bytes). */
static int unicode_escape(struct reader *r, char *out, size_t *n)
{
	uint32_t cp, lo;

	if (hex4(r, &cp))
		return -1;
	if (cp >= 0xdc00 && cp <= 0xdfff)
		return fail(r, "a low surrogate with no high one before it");
	if (cp >= 0xd800 && cp <= 0xdbff) {
		if (r->end - r->p < 2 || r->p[0] != '\\' || r->p[1] != 'u')
			return fail(r, "a high surrogate with no low one after it");
		r->p += 2;
		if (hex4(r, &lo))
			return -1;
		if (lo < 0xdc00 || lo > 0xdfff)
			return fail(r, "a high surrogate with no low one after it");
		cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
	}
	if (!cp)
		return fail(r, "\\u0000 is not accepted");
	*n = put_utf8(out, cp);
	return 0;
}

/* One character of a string at r->p (not its closing quote) into out,
 * which has room for 4 bytes; *n: how many it took. */
static int string_char(struct reader *r, char *out, size_t *n)
{
	static const char from[] = "\"\\/bfnrt", to[] = "\"\\/\b\f\n\r\t";
	const char *e;

	if (*r->p < 0x20)
		return fail(r, "a control character in a string (escape it)");
	if (*r->p != '\\') {
		*n = utf8_seq(r->p, (size_t)(r->end - r->p));
		if (!*n)
			return fail(r, "not UTF-8");
		memcpy(out, r->p, *n);
		r->p += *n;
		return 0;
	}
	if (++r->p >= r->end)
		return fail(r, "a string not closed");
	if (*r->p == 'u') {
		r->p++;
		return unicode_escape(r, out, n);
	}
	e = memchr(from, *r->p, sizeof(from) - 1);
	if (!e && *r->p > ' ' && *r->p < 0x7f)
		return fail(r, "'\\%c' is not an escape of JSON", *r->p);
	if (!e)
		return fail(r, "not an escape of JSON after '\\'");
	r->p++;
	*out = to[e - from];
	*n = 1;
	return 0;
}

/* The length of the text of the string whose opening quote is at p, up
 * to its closing quote or the end. */
static size_t raw_length(const unsigned char *p, const unsigned char *end)
{
	const unsigned char *q = p + 1;

	while (q < end && *q != '"')
		q += *q == '\\' && q + 1 < end ? 2 : 1;
	return (size_t)(q - p);
}

/* A string at r->p (its opening quote); decoded into *s when s is not
 * NULL (a value not kept is only checked). Decoded, a string is never
 * longer than its text, so its text's length bounds the buffer. */
static int read_string(struct reader *r, char **s, size_t *len)
{
	const unsigned char *open = r->p++;
	char *buf = NULL, tmp[4] = { 0 };
	size_t n = 0, k = 0;

	if (s) {
		buf = malloc(raw_length(open, r->end) + 1);
		if (!buf)
			return fail(r, "out of memory");
	}
	while (r->p < r->end && *r->p != '"') {
		if (string_char(r, buf ? buf + n : tmp, &k)) {
			free(buf);
			return -1;
		}
		n += k;
	}
	if (r->p >= r->end) {
		free(buf);
		r->p = open;
		return fail(r, "a string not closed");
	}
	r->p++;
	if (s) {
		buf[n] = '\0';
		*s = buf;
		*len = n;
	}
	return 0;
}

static const unsigned char *digits(const unsigned char *p, const unsigned char *end)
{
	while (p < end && *p >= '0' && *p <= '9')
		p++;
	return p;
}

/* The RFC's number: -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)? */
static int read_number(struct reader *r, struct jr_value *v)
{
	const unsigned char *p = r->p, *q;
	char buf[JR_MAX_NUMBER + 1], *stop;
	bool integral = true;
	size_t n;

	if (p < r->end && *p == '-')
		p++;
	if (p >= r->end || *p < '0' || *p > '9')
		return fail(r, "not a JSON value");
	q = *p == '0' ? p + 1 : digits(p, r->end);
	if (q < r->end && *q == '.') {
		integral = false;
		p = q + 1;
		q = digits(p, r->end);
		if (q == p)
			return fail(r, "a digit must follow the decimal point");
	}
	if (q < r->end && (*q == 'e' || *q == 'E')) {
		integral = false;
		p = q + 1;
		if (p < r->end && (*p == '+' || *p == '-'))
			p++;
		q = digits(p, r->end);
		if (q == p)
			return fail(r, "a digit must follow the exponent");
	}
	n = (size_t)(q - r->p);
	if (n > JR_MAX_NUMBER)
		return fail(r, "a number of more than %d characters", JR_MAX_NUMBER);
	memcpy(buf, r->p, n);
	buf[n] = '\0';
	r->p = q;
	if (!v)
		return 0;
	v->d = strtod(buf, &stop);
	errno = 0;
	v->i = integral ? strtoll(buf, &stop, 10) : 0;
	v->is_int = integral && !errno;
	return 0;
}

static int literal(struct reader *r, const char *word)
{
	size_t n = strlen(word);

	if ((size_t)(r->end - r->p) < n || memcmp(r->p, word, n) != 0)
		return fail(r, "not a JSON value");
	r->p += n;
	return 0;
}

static int read_value(struct reader *r, int depth, struct jr_value **out);

/* A member of the root that jr_parse_only does not keep (the root not an
 * object: none of them); key: NULL in an array. */
static bool skipped(const struct reader *r, int depth, const char *key)
{
	return r->only && !depth && (!key || strcmp(key, r->only) != 0);
}

/* A container's members: values (an array) or "key": value (an object),
 * kept in their order under v (NULL: not kept). */
static int read_members(struct reader *r, int depth, struct jr_value *v, bool obj)
{
	const unsigned char close = obj ? '}' : ']';
	struct jr_value **tail = v ? &v->first : NULL, *m;
	char *key = NULL;
	size_t klen;

	r->p++;
	skip_ws(r);
	if (r->p < r->end && *r->p == close) {
		r->p++;
		return 0;
	}
	for (;;) {
		skip_ws(r);
		if (obj && (r->p >= r->end || *r->p != '"'))
			return fail(r, "expected a key (a string)");
		if (obj && read_string(r, v ? &key : NULL, &klen))
			return -1;
		skip_ws(r);
		if (obj && (r->p >= r->end || *r->p != ':')) {
			free(key);
			return fail(r, "expected ':' after a key");
		}
		if (obj)
			r->p++;
		m = NULL;
		if (read_value(r, depth + 1, v && !skipped(r, depth, key) ? &m : NULL)) {
			free(key);
			return -1;
		}
		if (m) {
			m->key = key;
			*tail = m;
			tail = &m->next;
		} else {
			free(key);
		}
		key = NULL;
		skip_ws(r);
		if (r->p < r->end && *r->p == ',') {
			r->p++;
			continue;
		}
		if (r->p < r->end && *r->p == close) {
			r->p++;
			return 0;
		}
		return fail(r, "expected ',' or '%c'", close);
	}
}

/* A value at r->p (white space skipped); *out: it, when out is not NULL
 * and it is kept. */
static int read_value(struct reader *r, int depth, struct jr_value **out)
{
	static const enum jr_type by_char[128] = {
		['{'] = JR_OBJECT, ['['] = JR_ARRAY, ['"'] = JR_STRING,
		['t'] = JR_BOOL, ['f'] = JR_BOOL, ['n'] = JR_NULL,
	};
	enum jr_type t;
	struct jr_value *v = NULL;

	skip_ws(r);
	if (r->p >= r->end)
		return fail(r, "a value is missing");
	if (depth >= JR_MAX_DEPTH)
		return fail(r, "nested more than %d deep", JR_MAX_DEPTH);
	t = *r->p < 128 ? by_char[*r->p] : JR_NULL;
	if (t == JR_NULL && *r->p != 'n')
		t = JR_NUMBER;
	if (out) {
		v = new_value(r, depth, t);
		if (!v && r->failed)
			return -1;
		*out = v;
	}
	switch (t) {
	case JR_OBJECT: case JR_ARRAY:
		return read_members(r, depth, v, t == JR_OBJECT);
	case JR_STRING:
		return read_string(r, v ? &v->s : NULL, v ? &v->len : NULL);
	case JR_BOOL:
		if (v)
			v->b = *r->p == 't';
		return literal(r, *r->p == 't' ? "true" : "false");
	case JR_NULL:
		return literal(r, "null");
	default:
		return read_number(r, v);
	}
}

int jr_parse(struct jr_doc *d, const char *text, size_t len, int keep)
{
	return jr_parse_only(d, text, len, NULL, keep);
}

int jr_parse_only(struct jr_doc *d, const char *text, size_t len,
		  const char *member, int keep)
{
	struct reader r = {
		.p = (const unsigned char *)text, .start = (const unsigned char *)text,
		.end = (const unsigned char *)text + len, .d = d, .keep = keep,
		.only = member,
	};

	memset(d, 0, sizeof(*d));
	if (memchr(text, '\0', len)) {
		r.p = memchr(text, '\0', len);
		return fail(&r, "a NUL byte");
	}
	if (read_value(&r, 0, &d->root))
		return -1;
	skip_ws(&r);
	if (r.p != r.end)
		return fail(&r, "more after the value");
	return 0;
}

void jr_free(struct jr_doc *d)
{
	struct jr_value *v, *next;

	for (v = d->all; v; v = next) {
		next = v->all;
		free(v->s);
		free(v->key);
		free(v);
	}
	d->all = d->root = NULL;
	d->nvalues = 0;
}

const struct jr_value *jr_get(const struct jr_value *obj, const char *key)
{
	const struct jr_value *m, *found = NULL;

	if (!obj || obj->type != JR_OBJECT)
		return NULL;
	for (m = obj->first; m; m = m->next)
		if (m->key && !strcmp(m->key, key))
			found = m;
	return found;
}
