/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * preflight.h - the system checks that decide whether real-time results
 * can be trusted, each with a verdict and the exact fix. "rtlat doctor"
 * prints them; every result file carries their short form.
 */
#ifndef RTLAT_PREFLIGHT_H
#define RTLAT_PREFLIGHT_H

#include <stdio.h>

struct json;

enum verdict { V_OK, V_LATENCY, V_PREVENTS };

#define PF_TEXT 512

struct pf_item {
	const char *key;		/* "rt_throttling" */
	const char *title;		/* "RT throttling" */
	enum verdict verdict;
	char detail[PF_TEXT];		/* what was read, with the figure */
	char fix[PF_TEXT];		/* "" when ok */
};

#define PF_NITEMS 10

extern const char *const verdict_names[];	/* "ok", "will add latency", ... */

/* Run every check into items[PF_NITEMS]; returns the worst verdict. */
enum verdict preflight_run(struct pf_item *items);
void preflight_print(FILE *f, const struct pf_item *items);
void preflight_print_n(FILE *f, const struct pf_item *items, int n);
/* Set an item's verdict, its detail (printf) and its fix (kept only when
 * the verdict is not ok): for checks outside this file (rtlat doctor's). */
void pf_set(struct pf_item *it, enum verdict v, const char *fix,
	    const char *fmt, ...) __attribute__((format(printf, 4, 5)));
/* Full form: an array of {check, verdict, detail, fix}. */
void preflight_json(struct json *j, const char *key, const struct pf_item *items);
void preflight_json_n(struct json *j, const char *key, const struct pf_item *items, int n);
/* One line when something is not ok: the worst verdict and its checks
 * (at the start of a run, on stderr). */
void preflight_print_short(FILE *f, const char *prog);
/* Short form for every result: {"verdict", "checks": {key: verdict}}. */
void preflight_json_short(struct json *j, const char *key);

#endif
