/* SPDX-License-Identifier: GPL-2.0-or-later */
/* explain_save.h - --trace-out's windows as text (explain_save.c). */
#ifndef RTLAT_EXPLAIN_SAVE_H
#define RTLAT_EXPLAIN_SAVE_H

#include <stdint.h>
#include "explain/explain_internal.h"

#define PATH_MAX_SAVE 4200

struct xtrace;
struct xsyms;

/* Spike s's window, the events win[0..n) from from on (their stacks'
 * frames from t, named through syms), into the next
 * DIR/rtlat-spike-N.txt (x->trace_out). */
void explain_save(struct explain *x, const struct xspike *s, int64_t from,
		  const struct xev *win, int n, const struct xtrace *t,
		  struct xsyms *syms);

#endif
