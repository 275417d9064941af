/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * explain_trace.h - one run's buffers, read into rings of events
 * (explain_trace.c).
 */
#ifndef RTLAT_EXPLAIN_TRACE_H
#define RTLAT_EXPLAIN_TRACE_H

#include <stdbool.h>
#include <stdint.h>
#include "explain/explain_internal.h"

struct xtrace;

/* NULL: no memory. */
struct xtrace *xtrace_new(void);
/* The events enabled in the instance dir, their layouts learnt (what:
 * the file that failed); then the traced CPUs' buffers opened. The
 * explaining thread reads them. */
int xtrace_enable(struct xtrace *t, const char *dir, const char **what);
/* The stacktrace triggers set, their events' layout learnt: 0, or -1
 * and why (one line) when the kernel gives no stacks. */
int xtrace_stacks(struct xtrace *t, const char *dir, char *why, size_t len);
int xtrace_open(struct xtrace *t, const char *dir, const bool *on, int ncpu,
		char *err, size_t len);
/* Read every traced CPU's buffer until empty: the events read. */
uint64_t xtrace_read(struct xtrace *t);
/* cpu's events in [from, to] (the latest max of them) into win. */
int xtrace_window(const struct xtrace *t, int cpu, int64_t from, int64_t to,
		  struct xev *win, int max);
/* Was everything cpu recorded up to at read? */
bool xtrace_settled(const struct xtrace *t, int cpu, int64_t at);
/* The frames of stack event e (from cpu's window) into pc
 * (XSTACK_FRAMES): how many; 0 if overwritten since. */
int xtrace_stack(const struct xtrace *t, int cpu, const struct xev *e, uint64_t *pc);
uint64_t xtrace_lost(const struct xtrace *t);
/* Close the buffers, free t (NULL: nothing). */
void xtrace_free(struct xtrace *t);

#endif
