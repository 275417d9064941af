/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * json.h - small streaming JSON writer, indented like rt-tests' files.
 * Strings are escaped; non-finite doubles are written as null.
 * A NULL key is used inside arrays and for the top-level object.
 */
#ifndef RTLAT_JSON_H
#define RTLAT_JSON_H

#include <stdbool.h>
#include <stdio.h>

#define JSON_MAX_DEPTH 32

struct json {
	FILE *f;
	int depth;
	bool first[JSON_MAX_DEPTH];
	bool inline_arr[JSON_MAX_DEPTH];
};

void json_init(struct json *j, FILE *f);
void json_obj_open(struct json *j, const char *key);
void json_obj_close(struct json *j);
void json_arr_open(struct json *j, const char *key);
/* An array written on one line, for histogram rows. */
void json_arr_open_inline(struct json *j, const char *key);
void json_arr_close(struct json *j);
void json_int(struct json *j, const char *key, long long v);
void json_uint(struct json *j, const char *key, unsigned long long v);
void json_double(struct json *j, const char *key, double v);
/* ns as seconds, exactly: all nine decimals, trailing zeros dropped. */
void json_seconds_ns(struct json *j, const char *key, long long ns);
/* A double printed with a fixed number of decimals (rt-tests' "%.2f"). */
void json_fixed(struct json *j, const char *key, double v, int decimals);
void json_bool(struct json *j, const char *key, bool v);
void json_null(struct json *j, const char *key);
void json_str(struct json *j, const char *key, const char *s);
/* Write s escaped, with quotes, to f. */
void json_escape(FILE *f, const char *s);
/*
 * A fragment: members rendered apart (into a memory stream) and put into
 * a writer later, as if written there. json_fragment_init sets sub up to
 * write to f as a writer at depth would after a first member;
 * json_fragment_put writes the text into j, which must be at that depth.
 */
void json_fragment_init(struct json *sub, FILE *f, int depth);
void json_fragment_put(struct json *j, const char *text);

#endif
