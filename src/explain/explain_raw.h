/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * explain_raw.h - the binary buffers (explain_raw.c): where an
 * event's fields are.
 */
#ifndef RTLAT_EXPLAIN_RAW_H
#define RTLAT_EXPLAIN_RAW_H

#include <stddef.h>
#include <stdint.h>
#include "explain/explain_internal.h"

struct xraw_field {
	int off, size;		/* size 0: the event has no such field */
};

struct xraw_event {
	int id;			/* common_type */
	int type;		/* XEV_* */
	char vector[XEV_NAME];	/* irq_vectors: "local_timer" */
	struct xraw_field pid, prio, comm, prev_pid, prev_state, num, name;
	/* ftrace/kernel_stack: the frames in it, its return addresses, and
	 * one address's size (the caller array's size over its length). */
	struct xraw_field size, caller;
	int word;
};

#define XRAW_EVENTS 16

struct xraw {
	int ts_off, commit_off, commit_size, data_off;	/* header_page */
	int n;
	struct xraw_event ev[XRAW_EVENTS];
};

/* events/header_page's text: 0, or -1 if a field is missing. */
int xraw_header(struct xraw *r, const char *text);
/* An event's format file: its id and fields; vector names an irq vector
 * event. 0, or -1 without an id. */
int xraw_format(struct xraw_event *e, int type, const char *vector, const char *text);
/* The events we know on one page read from cpu's trace_pipe_raw, at most
 * max; a page that follows lost events counts in *lost. */
int xraw_page(const struct xraw *r, const uint8_t *pg, size_t len, int cpu,
	      struct xev *out, int max, uint64_t *lost);

/* A stack event e decoded from page pg: its return addresses, at most
 * max, innermost first (the kernel's end marker ends them). */
int xraw_frames(const struct xraw *r, const uint8_t *pg, size_t len,
		const struct xev *e, uint64_t *pc, int max);

#endif
