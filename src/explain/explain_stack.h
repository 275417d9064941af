/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * explain_stack.h - the kernel stack behind a spike (explain_stack.c):
 * which of the window's stacks is its main cause's, and the functions'
 * names from /proc/kallsyms.
 */
#ifndef RTLAT_EXPLAIN_STACK_H
#define RTLAT_EXPLAIN_STACK_H

#include <stdio.h>
#include "explain/explain_internal.h"

/*
 * The stack event in win[0..n) of what delayed the sampler: for each
 * cause, largest first, a device interrupt's entry in [exp, act] or the
 * switch away from the task the cause names, followed by its stack. Its
 * index (whose it is in of), or -1. Pure.
 */
int xstack_pick(const struct xev *win, int n, const struct xwin *w,
		const struct xattr *a, char *of, size_t len);

/* At most this many addresses named by one read of /proc/kallsyms. */
#define XSYM_BATCH 128

/* For each of pc[0..n), the text symbol at or below it in f (the format
 * of /proc/kallsyms) into fn; "0x..." where none is. */
void xsym_scan(FILE *f, const uint64_t *pc, int n, char (*fn)[XSYM_NAME]);

/* The names of addresses seen, so that /proc/kallsyms is read only for
 * the others. One per run. */
#define XSYM_CACHE 256

struct xsyms {
	int n, next;
	struct { uint64_t pc; char fn[XSYM_NAME]; } c[XSYM_CACHE];
};

/* Know pc[0..n) (XSYM_BATCH at most), one read of path for those the
 * cache lacks; then each one's name, or NULL. */
void xsym_fill(struct xsyms *c, const char *path, const uint64_t *pc, int n);
const char *xsym_get(const struct xsyms *c, uint64_t pc);
void xsym_names(struct xsyms *c, const char *path, struct xstack *st);

/* The frames a reader wants first: past the tracer's own. */
int xstack_first(const struct xstack *st);

#endif
