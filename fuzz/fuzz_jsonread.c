// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * fuzz_jsonread.c - libFuzzer harness for the JSON reader (jsonread.c).
 *
 * The input's first byte chooses the keep depth (and whether only one
 * member of the root is kept), the rest is the text.
 * Whatever the text, the reader must end (no crash, leak, UB: ASan and
 * UBSan) and, when it refuses, say where in one line. When it takes the
 * text whole (kept to any depth), every string must be as long as its
 * NUL-free text says, and the tree written back by rtlat's own JSON
 * writer (json.c) must be read again into the same tree: the same types,
 * keys, strings and integers, doubles within the writer's 15 digits.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "util/json.h"
#include "util/jsonread.h"

/* The tree's depth (the root's: 0), and its strings checked. */
static int depth_of(const struct jr_value *v)
{
	const struct jr_value *m;
	int d = 0, k;

	if (v->type == JR_STRING && strlen(v->s) != v->len)
		abort();
	if (v->key && v->type > JR_OBJECT)
		abort();
	for (m = v->first; m; m = m->next) {
		k = depth_of(m) + 1;
		if (k > d)
			d = k;
	}
	return d;
}

static void write_value(struct json *j, const struct jr_value *v, const char *key)
{
	const struct jr_value *m;

	switch (v->type) {
	case JR_NULL: json_null(j, key); break;
	case JR_BOOL: json_bool(j, key, v->b); break;
	case JR_STRING: json_str(j, key, v->s); break;
	case JR_NUMBER:
		if (v->is_int)
			json_int(j, key, v->i);
		else
			json_double(j, key, v->d);
		break;
	case JR_ARRAY: case JR_OBJECT:
		if (v->type == JR_ARRAY)
			json_arr_open(j, key);
		else
			json_obj_open(j, key);
		for (m = v->first; m; m = m->next)
			write_value(j, m, v->type == JR_OBJECT ? m->key : NULL);
		if (v->type == JR_ARRAY)
			json_arr_close(j);
		else
			json_obj_close(j);
		break;
	}
}

static void same_number(const struct jr_value *a, const struct jr_value *b)
{
	if (a->is_int) {
		if (!b->is_int || a->i != b->i)
			abort();
		return;
	}
	/* A double the writer cannot write (too large: inf) is null. */
	if (!isfinite(a->d)) {
		if (b->type != JR_NULL)
			abort();
		return;
	}
	if (fabs(a->d - b->d) > 1e-13 * fabs(a->d) + 1e-300)
		abort();
}

static void same(const struct jr_value *a, const struct jr_value *b)
{
	const struct jr_value *x, *y;

	if (a->type == JR_NUMBER) {
		same_number(a, b);
		return;
	}
	if (a->type != b->type || (a->key && strcmp(a->key, b->key)))
		abort();
	if (a->type == JR_BOOL && a->b != b->b)
		abort();
	if (a->type == JR_STRING && (a->len != b->len || memcmp(a->s, b->s, a->len)))
		abort();
	for (x = a->first, y = b->first; x && y; x = x->next, y = y->next)
		same(x, y);
	if (x || y)
		abort();
}

static void round_trip(const struct jr_value *root)
{
	struct jr_doc again;
	char *doc = NULL;
	size_t len = 0;
	struct json j;
	FILE *f = open_memstream(&doc, &len);

	if (!f)
		abort();
	json_init(&j, f);
	write_value(&j, root, NULL);
	fclose(f);
	if (jr_parse(&again, doc, len, JR_MAX_DEPTH))
		abort();
	same(root, again.root);
	jr_free(&again);
	free(doc);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct jr_doc d;
	const char *only;
	int keep;

	if (!size)
		return 0;
	/* the high bit: of the root object only member "a" kept */
	only = data[0] & 0x80 ? "a" : NULL;
	keep = (data[0] & 0x7f) % (JR_MAX_DEPTH + 2);
	if (jr_parse_only(&d, (const char *)data + 1, size - 1, only, keep)) {
		if (!d.error[0] || strchr(d.error, '\n') || strncmp(d.error, "line ", 5))
			abort();
	} else if (!only && keep > JR_MAX_DEPTH && depth_of(d.root) < JSON_MAX_DEPTH - 1) {
		round_trip(d.root);
	}
	jr_free(&d);
	return 0;
}
