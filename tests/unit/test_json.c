// SPDX-License-Identifier: GPL-2.0-or-later
/* test_json.c - the JSON writer: escaping, no NaN, nesting; the reader:
 * layouts, escapes, numbers, what it refuses, its bounds. */
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "util/json.h"
#include "util/jsonread.h"
#include "unit.h"

static char *escaped(const char *s)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	json_escape(f, s);
	fclose(f);
	return buf;
}

#define CHECK_ESC(in, out) do {						\
	char *_e = escaped(in);						\
	if (strcmp(_e, out)) {						\
		fprintf(stderr, "%s:%d: escape gave %s, expected %s\n",	\
			__FILE__, __LINE__, _e, out);			\
		unit_failures++;					\
	}								\
	free(_e);							\
} while (0)

UNIT_TEST(json_escaping)
{
	CHECK_ESC("plain", "\"plain\"");
	CHECK_ESC("a\"b", "\"a\\\"b\"");
	CHECK_ESC("back\\slash", "\"back\\\\slash\"");
	CHECK_ESC("tab\there\nnl\rcr", "\"tab\\there\\nnl\\rcr\"");
	CHECK_ESC("\x01\x1f\x7f", "\"\\u0001\\u001f\\u007f\"");
	CHECK_ESC("\b\f", "\"\\b\\f\"");
	/* UTF-8 passes through as is: it is valid JSON text. */
	CHECK_ESC("\xc2\xb5s", "\"\xc2\xb5s\"");
	CHECK_ESC(NULL, "\"\"");
}

UNIT_TEST(json_document)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	struct json j;

	json_init(&j, f);
	json_obj_open(&j, NULL);
	json_int(&j, "i", -3);
	json_double(&j, "nan", NAN);
	json_double(&j, "inf", INFINITY);
	json_fixed(&j, "avg", 3.14159, 2);
	json_fixed(&j, "bad", -NAN, 2);
	json_arr_open(&j, "a");
	json_arr_open_inline(&j, NULL);
	json_int(&j, NULL, 1);
	json_uint(&j, NULL, 2);
	json_arr_close(&j);
	json_arr_close(&j);
	json_obj_open(&j, "empty");
	json_obj_close(&j);
	json_bool(&j, "t", true);
	json_null(&j, "n");
	/* Integers and exact seconds are formatted without printf: the
	 * extremes, and the trailing zeros dropped. */
	json_arr_open_inline(&j, "num");
	json_int(&j, NULL, 0);
	json_int(&j, NULL, -9223372036854775807LL - 1);
	json_int(&j, NULL, 9223372036854775807LL);
	json_uint(&j, NULL, 18446744073709551615ULL);
	json_seconds_ns(&j, NULL, 0);
	json_seconds_ns(&j, NULL, 2000000000LL);
	json_seconds_ns(&j, NULL, 1500000000LL);
	json_seconds_ns(&j, NULL, 10000);
	json_seconds_ns(&j, NULL, -1);
	json_seconds_ns(&j, NULL, 604800123456789LL);
	json_arr_close(&j);
	json_obj_close(&j);
	fclose(f);
	CHECK(strstr(buf, "\"num\": [ 0, -9223372036854775808, 9223372036854775807, "
		     "18446744073709551615, 0, 2, 1.5, 0.00001, -0.000000001, "
		     "604800.123456789 ]\n") != NULL);
	CHECK(strstr(buf, "\"nan\": null") != NULL);
	CHECK(strstr(buf, "\"inf\": null") != NULL);
	CHECK(strstr(buf, "\"bad\": null") != NULL);
	CHECK(strstr(buf, "\"avg\": 3.14") != NULL);
	CHECK(strstr(buf, "[ 1, 2 ]") != NULL);
	CHECK(strstr(buf, "\"empty\": {}") != NULL);
	CHECK(strstr(buf, "NaN") == NULL && strstr(buf, "nan,") == NULL);
	CHECK(buf[len - 1] == '\n' && buf[len - 2] == '}');
	free(buf);
}

/* The reader (jsonread.c): one document, kept whole. */
static int jr(struct jr_doc *d, const char *text)
{
	return jr_parse(d, text, strlen(text), JR_MAX_DEPTH);
}

/* Does text parse? (freed either way) */
static bool jr_ok(const char *text)
{
	struct jr_doc d;
	int ret = jr(&d, text);

	jr_free(&d);
	return ret == 0;
}

UNIT_TEST(jsonread_values_and_layouts)
{
	static const char *const layouts[] = {
		"{\"a\": [1, -2.5e3, \"x\"], \"b\": {\"c\": null, \"d\": true}}",
		"{\"a\":[1,-2.5e3,\"x\"],\"b\":{\"c\":null,\"d\":true}}",
		"\r\n{\n    \"b\": {\n        \"d\": true,\n        \"c\": null\n    },\n\t\"a\": [\n 1,\n -2.5E+3, \"x\"\n ]\n}\n",
	};
	const struct jr_value *a, *b;
	struct jr_doc d;
	size_t i;

	for (i = 0; i < sizeof(layouts) / sizeof(layouts[0]); i++) {
		CHECK(jr(&d, layouts[i]) == 0);
		a = jr_get(d.root, "a");
		b = jr_get(d.root, "b");
		CHECK(a && a->type == JR_ARRAY && b && b->type == JR_OBJECT);
		CHECK(a && a->first->is_int && a->first->i == 1);
		CHECK(a && !a->first->next->is_int);
		CHECK_NEAR(a ? a->first->next->d : 0, -2500.0, 1e-9);
		CHECK(a && !strcmp(a->first->next->next->s, "x"));
		CHECK(jr_get(b, "c") && jr_get(b, "c")->type == JR_NULL);
		CHECK(jr_get(b, "d") && jr_get(b, "d")->b);
		CHECK(!jr_get(b, "e") && !jr_get(a, "c"));
		jr_free(&d);
	}
}

UNIT_TEST(jsonread_strings_and_numbers)
{
	struct jr_doc d;

	CHECK(jr(&d, "[\"\\u00e9\\ud83d\\ude00\\\"\\\\\\/\\b\\f\\n\\r\\t\", \"\xc3\xa9\"]") == 0);
	CHECK(d.root && !strcmp(d.root->first->s, "\xc3\xa9\xf0\x9f\x98\x80\"\\/\b\f\n\r\t"));
	CHECK(d.root && !strcmp(d.root->first->next->s, "\xc3\xa9"));
	jr_free(&d);
	CHECK(jr(&d, "[9223372036854775807, -9223372036854775808, 9223372036854775808, 0, -0, 1e400]") == 0);
	CHECK(d.root->first->is_int && d.root->first->i == 9223372036854775807LL);
	CHECK(d.root->first->next->is_int && d.root->first->next->i == -9223372036854775807LL - 1);
	CHECK(!d.root->first->next->next->is_int);	/* beyond int64: a double */
	CHECK_NEAR(d.root->first->next->next->d, 9223372036854775808.0, 1.0);
	jr_free(&d);
	/* the last of a repeated key, as Python and jq */
	CHECK(jr(&d, "{\"k\": 1, \"k\": 2}") == 0);
	CHECK_EQ_LL(jr_get(d.root, "k")->i, 2);
	jr_free(&d);
}

UNIT_TEST(jsonread_refuses_what_is_not_json)
{
	static const char *const bad[] = {
		"", " ", "nope", "{", "}", "[1,]", "{\"a\":1,}", "{\"a\" 1}", "{a:1}",
		"[01]", "[1.]", "[.5]", "[1e]", "[+1]", "[-]", "[0x10]", "[NaN]", "[Infinity]",
		"\"\\x\"", "\"\\u12\"", "\"\\ud800\"", "\"\\udc00\"", "\"\\ud800\\u0041\"",
		"\"\\u0000\"", "\"a\tb\"", "\"\xc3\"", "\"\xc0\xaf\"", "\"\xed\xa0\x80\"",
		"\"\xf4\x90\x80\x80\"", "\"open", "[1] [2]", "{} x", "\xef\xbb\xbf{}",
		"[true false]", "tru", "nul", "[\"a\" \"b\"]", "'a'",
	};
	struct jr_doc d;
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		if (jr_ok(bad[i]))
			fprintf(stderr, "taken: [%s]\n", bad[i]);
		CHECK(!jr_ok(bad[i]));
	}
	/* a NUL byte inside the text */
	CHECK(jr_parse(&d, "[1]\0", 4, 8) == -1);
	jr_free(&d);
	/* the error says where */
	CHECK(jr(&d, "{\n  \"a\": [1,\n  ]}") == -1);
	CHECK(!strncmp(d.error, "line 3, column 3: ", 18));
	jr_free(&d);
	CHECK(jr_ok("0") && jr_ok("\"\"") && jr_ok("[]") && jr_ok("{}") && jr_ok(" null "));
}

/* n arrays, one in the other: [[...]] */
static bool nested_ok(int n)
{
	char buf[2 * JR_MAX_DEPTH + 8];
	int i;

	for (i = 0; i < n; i++) {
		buf[i] = '[';
		buf[n + i] = ']';
	}
	buf[2 * n] = '\0';
	return jr_ok(buf);
}

UNIT_TEST(jsonread_bounds)
{
	static const char kept[] = "{\"a\": {\"b\": [1, 2, 3]}, \"c\": 4}";
	static const char unkept[] = "{\"a\": {\"b\": [1, 2, ]}}";
	char num[JR_MAX_NUMBER + 8];
	struct jr_doc d;

	/* JR_MAX_DEPTH levels are read, one more is refused */
	CHECK(nested_ok(JR_MAX_DEPTH));
	CHECK(!nested_ok(JR_MAX_DEPTH + 1));
	/* values deeper than the keep depth are checked, not kept */
	CHECK(jr_parse(&d, kept, strlen(kept), 1) == 0);
	CHECK(jr_get(d.root, "a") && !jr_get(d.root, "a")->first);
	CHECK_EQ_LL(jr_get(d.root, "c")->i, 4);
	CHECK_EQ_LL(d.nvalues, 3);
	jr_free(&d);
	CHECK(jr_parse(&d, unkept, strlen(unkept), 1) == -1);
	jr_free(&d);
	/* one member of the root kept, the others checked */
	CHECK(jr_parse_only(&d, kept, strlen(kept), "c", 8) == 0);
	CHECK(!jr_get(d.root, "a") && jr_get(d.root, "c"));
	CHECK_EQ_LL(d.nvalues, 2);
	jr_free(&d);
	CHECK(jr_parse_only(&d, unkept, strlen(unkept), "c", 8) == -1);
	jr_free(&d);
	/* a number too long to be read exactly */
	memset(num, '1', sizeof(num) - 1);
	num[sizeof(num) - 1] = '\0';
	CHECK(!jr_ok(num));
}
