/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * explain_attr.h - a spike's window attributed to its causes
 * (explain_attr.c, pure functions).
 */
#ifndef RTLAT_EXPLAIN_ATTR_H
#define RTLAT_EXPLAIN_ATTR_H

#include "explain/explain_internal.h"

/* Parse one line of trace text: 0, or -1 if it is no event we use
 * (canned trace text for the tests; the run reads the binary buffers). */
int xev_parse(const char *line, struct xev *ev);

extern const char *const xcause_kind_names[];

/*
 * Attribute the window [exp, act] of CPU cpu to its causes, from the
 * events ev[0..n) sorted by time (those before exp set the state: who
 * runs, which interrupt is in progress). The causes sum to act - exp.
 * remote: what an idle CPU before the sampler's wake-up means, e.g. "the
 * sender's side (another CPU)"; NULL: nothing in the kernel explains it
 * (a timer's expiry that came late: hypervisor, SMI or hardware).
 */
void xattr_window(const struct xev *ev, int n, const struct xwin *w,
		  struct xattr *out);

/*
 * An unexplained stretch of a spike on a CPU whose SMI count (msr.h) went
 * from before to after around it is the firmware's: relabelled "SMI:
 * ..." (kind smi). True if one was.
 */
bool xattr_smi(struct xattr *a, uint64_t before, uint64_t after);

/* Largest first. */
void xcause_sort(struct xcause *c, int n);

#endif
