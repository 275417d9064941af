// SPDX-License-Identifier: GPL-2.0-or-later
/* test_json.c - the JSON writer: escaping, no NaN, nesting. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "core/json.h"
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
	json_obj_close(&j);
	fclose(f);
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
