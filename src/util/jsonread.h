/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * jsonread.h - a small, strict JSON reader (RFC 8259) for the files rtlat
 * reads back (--baseline): whatever their layout (rtlat's own, jq -c,
 * another tool's indentation, keys in any order), into a tree of values.
 *
 * Strict: one value and only white space around it; UTF-8 checked; no
 * raw control character in a string; only the RFC's escapes (\uXXXX with
 * surrogate pairs whole; \u0000 is refused: strings are C strings);
 * numbers in the RFC's grammar. Bounded: nesting at most JR_MAX_DEPTH
 * (the recursion's bound), values kept at most JR_MAX_VALUES; values
 * nested deeper than the keep depth the caller gives are checked but not
 * kept (their container is kept, with no members), so a file of large
 * histograms costs little to read for its top levels.
 */
#ifndef RTLAT_JSONREAD_H
#define RTLAT_JSONREAD_H

#include <stdbool.h>
#include <stddef.h>

#define JR_MAX_DEPTH 64
#define JR_MAX_VALUES (1 << 20)
/* The longest number read (digits, sign, point, exponent): a longer one
 * is refused rather than rounded from a truncated copy. */
#define JR_MAX_NUMBER 64

enum jr_type { JR_NULL, JR_BOOL, JR_NUMBER, JR_STRING, JR_ARRAY, JR_OBJECT };

struct jr_value {
	enum jr_type type;
	bool b;
	bool is_int;		/* a number in int64's range with no fraction or exponent */
	long long i;		/* is_int's value */
	double d;		/* every number's value (may be +-HUGE_VAL) */
	char *s;		/* a string's text, NUL-terminated */
	size_t len;		/* its length in bytes */
	char *key;		/* a member's key (in an object), else NULL */
	struct jr_value *first;	/* an array's or object's first kept member */
	struct jr_value *next;	/* the next member of its container */
	struct jr_value *all;	/* every value of the document, for jr_free */
};

struct jr_doc {
	struct jr_value *root;
	struct jr_value *all;
	int nvalues;
	char error[96];		/* why the text was refused: "line L, column C: ..." */
};

/* Read text[0..len) (NUL bytes are refused), keeping the values nested
 * at most keep levels below the root (the root is level 0). 0, or -1 with
 * d->error set; jr_free() in both cases. */
int jr_parse(struct jr_doc *d, const char *text, size_t len, int keep);
/* The same, keeping of the root object only its member (its members)
 * named member: a file's other parts are checked, not kept. */
int jr_parse_only(struct jr_doc *d, const char *text, size_t len,
		  const char *member, int keep);
void jr_free(struct jr_doc *d);
/* An object's member named key (the last, when a key repeats, as Python
 * and jq read it), or NULL (no such member, or obj not an object). */
const struct jr_value *jr_get(const struct jr_value *obj, const char *key);

#endif
