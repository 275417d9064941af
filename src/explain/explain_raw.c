// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * explain_raw.c - the instance's per-CPU binary buffers (trace_pipe_raw)
 * to events, with no text formatting in the kernel nor parsing here, and
 * nanosecond timestamps. The layout is read from tracefs, never assumed:
 * events/header_page (where the page's timestamp, commit and data are),
 * and each event's format file (its id and the offsets of its fields).
 * The ring buffer's compressed event header (type_len 5 bits, time_delta
 * 27 bits) is the kernel's ABI, as events/header_event describes it.
 *
 * xraw_format() and xraw_page() are pure: unit-tested on canned formats
 * and hand-built pages.
 */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "explain/explain_internal.h"
#include "explain/explain_raw.h"

#define RB_PADDING	29
#define RB_TIME_EXTEND	30
#define RB_TIME_STAMP	31
#define RB_DELTA_SHIFT	27
/* The commit word's flags: events were lost before this page. */
#define RB_MISSED_FLAGS	(3ULL << 30)
/* prev_state bits of a task that was not runnable (TASK_REPORT, and
 * sched_switch's own "+1 << 1 - 1" mask in its print fmt). */
#define TASK_NOT_RUNNABLE 0xff

static const char *const softirq_names[] = {
	"HI", "TIMER", "NET_TX", "NET_RX", "BLOCK", "IRQ_POLL", "TASKLET",
	"SCHED", "HRTIMER", "RCU",
};

static uint64_t rd(const uint8_t *p, int size)
{
	uint64_t v = 0;

	/* Little- and big-endian alike: the host's own order. */
	switch (size) {
	case 1: return *p;
	case 2: { uint16_t x; memcpy(&x, p, 2); return x; }
	case 4: { uint32_t x; memcpy(&x, p, 4); return x; }
	case 8: memcpy(&v, p, 8); return v;
	}
	return 0;
}

/* "field:TYPE NAME[N];\toffset:O;\tsize:S;" -> name, offset, size. */
static int field_line(const char *line, char *name, size_t len, int *off, int *size)
{
	const char *semi = strchr(line, ';'), *p, *o = strstr(line, "offset:");
	const char *s = strstr(line, "size:");
	size_t n;

	if (!semi || !o || !s || strncmp(line + strspn(line, " \t"), "field:", 6) != 0)
		return -1;
	for (p = semi; p > line && p[-1] != ' ' && p[-1] != '\t' && p[-1] != ':'; p--)
		;
	n = strcspn(p, "[;");
	if (n >= len)
		n = len - 1;
	memcpy(name, p, n);
	name[n] = '\0';
	*off = atoi(o + 7);
	*size = atoi(s + 5);
	return 0;
}

static void put_field(struct xraw_event *e, const char *name, int off, int size)
{
	static const struct { const char *name; size_t at; } map[] = {
		{ "prev_pid", offsetof(struct xraw_event, prev_pid) },
		{ "prev_state", offsetof(struct xraw_event, prev_state) },
		{ "next_pid", offsetof(struct xraw_event, pid) },
		{ "next_prio", offsetof(struct xraw_event, prio) },
		{ "next_comm", offsetof(struct xraw_event, comm) },
		{ "pid", offsetof(struct xraw_event, pid) },
		{ "prio", offsetof(struct xraw_event, prio) },
		{ "comm", offsetof(struct xraw_event, comm) },
		{ "irq", offsetof(struct xraw_event, num) },
		{ "vec", offsetof(struct xraw_event, num) },
		{ "name", offsetof(struct xraw_event, name) },
		{ "size", offsetof(struct xraw_event, size) },
		{ "caller", offsetof(struct xraw_event, caller) },
	};
	size_t i;

	for (i = 0; i < sizeof(map) / sizeof(map[0]); i++) {
		if (strcmp(name, map[i].name) != 0)
			continue;
		struct xraw_field *f = (struct xraw_field *)((char *)e + map[i].at);

		f->off = off;
		f->size = size;
		return;
	}
}

int xraw_format(struct xraw_event *e, int type, const char *vector, const char *text)
{
	const char *line = text, *id = strstr(text, "\nID: ");
	const char *callers = strstr(text, " caller[");
	char name[48];
	int off, size, slots;

	memset(e, 0, sizeof(*e));
	e->type = type;
	snprintf(e->vector, sizeof(e->vector), "%s", vector ? vector : "");
	if (!id && strncmp(text, "ID: ", 4) != 0)
		return -1;
	e->id = atoi(id ? id + 5 : text + 4);
	while (line && *line) {
		if (!field_line(line, name, sizeof(name), &off, &size))
			put_field(e, name, off, size);
		line = strchr(line, '\n');
		line = line ? line + 1 : NULL;
	}
	/* "unsigned long caller[8]; ... size:64": 8 bytes an address. */
	slots = callers ? atoi(callers + 8) : 0;
	if (slots > 0)
		e->word = e->caller.size / slots;
	if (type == XEV_STACK && e->word != 4 && e->word != 8)
		return -1;
	return e->id > 0 ? 0 : -1;
}

int xraw_header(struct xraw *r, const char *text)
{
	const char *line = text;
	char name[48];
	int off, size;

	r->ts_off = r->commit_off = r->data_off = -1;
	while (line && *line) {
		if (!field_line(line, name, sizeof(name), &off, &size)) {
			if (!strcmp(name, "timestamp"))
				r->ts_off = off;
			else if (!strcmp(name, "commit"))
				r->commit_off = off, r->commit_size = size;
			else if (!strcmp(name, "data"))
				r->data_off = off;
		}
		line = strchr(line, '\n');
		line = line ? line + 1 : NULL;
	}
	return r->ts_off < 0 || r->commit_off < 0 || r->data_off < 0 ? -1 : 0;
}

static bool has(const struct xraw_field *f, int len)
{
	return f->size > 0 && f->off >= 0 && f->off + f->size <= len;
}

static void str_field(char *dst, const uint8_t *d, int len, const struct xraw_field *f,
		      bool data_loc)
{
	int at = f->off, n = f->size;

	dst[0] = '\0';
	if (!has(f, len))
		return;
	if (data_loc) {		/* u32: length << 16 | offset in the record */
		uint32_t loc = (uint32_t)rd(d + f->off, 4);

		at = (int)(loc & 0xffff);
		n = (int)(loc >> 16);
		if (at + n > len)
			return;
	}
	if (n >= XEV_NAME)
		n = XEV_NAME - 1;
	memcpy(dst, d + at, (size_t)n);
	dst[n] = '\0';
}

/* One record of a known event to ev; -1 if unknown. */
static int decode(const struct xraw *r, const uint8_t *d, int len, struct xev *ev)
{
	const struct xraw_event *e = NULL;
	int i, id = len >= 2 ? (int)rd(d, 2) : -1;

	for (i = 0; i < r->n && !e; i++)
		if (r->ev[i].id == id)
			e = &r->ev[i];
	if (!e)
		return -1;
	ev->type = e->type;
	if (has(&e->pid, len))
		ev->pid = (int)rd(d + e->pid.off, e->pid.size);
	if (has(&e->prio, len))
		ev->prio = (int)rd(d + e->prio.off, e->prio.size);
	if (has(&e->prev_pid, len))
		ev->prev_pid = (int)rd(d + e->prev_pid.off, e->prev_pid.size);
	if (has(&e->prev_state, len))
		ev->preempted = !(rd(d + e->prev_state.off, e->prev_state.size) & TASK_NOT_RUNNABLE);
	if (has(&e->num, len))
		ev->num = (int)rd(d + e->num.off, e->num.size);
	if (e->type == XEV_STACK) {
		/* The record holds as many addresses as the kernel kept
		 * (size), the format's array length notwithstanding. */
		int room = e->caller.off < len ? (len - e->caller.off) / e->word : 0;

		ev->num = has(&e->size, len) ? (int)rd(d + e->size.off, e->size.size) : 0;
		if (ev->num > room || ev->num < 0)
			ev->num = room;
		ev->stack_at = e->caller.off;
		return 0;
	}
	if (e->type == XEV_SWITCH || e->type == XEV_WAKEUP)
		str_field(ev->name, d, len, &e->comm, false);
	else if (e->type == XEV_IRQ_ENTRY || e->type == XEV_IRQ_EXIT)
		str_field(ev->name, d, len, &e->name, true);
	else if (e->type == XEV_SOFTIRQ_ENTRY || e->type == XEV_SOFTIRQ_EXIT)
		snprintf(ev->name, sizeof(ev->name), "%s", ev->num >= 0 && ev->num < 10 ?
			 softirq_names[ev->num] : "?");
	else
		snprintf(ev->name, sizeof(ev->name), "%s", e->vector);
	return 0;
}

int xraw_page(const struct xraw *r, const uint8_t *pg, size_t len, int cpu,
	      struct xev *out, int max, uint64_t *lost)
{
	const uint8_t *p, *end;
	uint64_t ts, commit;
	int n = 0;

	if ((size_t)r->data_off > len || (size_t)r->ts_off + 8 > len ||
	    (size_t)r->commit_off + (size_t)r->commit_size > len)
		return 0;
	ts = rd(pg + r->ts_off, 8);
	commit = rd(pg + r->commit_off, r->commit_size);
	if (commit & RB_MISSED_FLAGS)
		(*lost)++;
	commit &= ~RB_MISSED_FLAGS & 0xfffffffULL;
	p = pg + r->data_off;
	end = p + (commit < len - (size_t)r->data_off ? commit : len - (size_t)r->data_off);
	while (p + 4 <= end && n < max) {
		uint32_t h = (uint32_t)rd(p, 4), tl = h & 31, delta = h >> 5;
		uint32_t a = p + 8 <= end ? (uint32_t)rd(p + 4, 4) : 0;
		const uint8_t *data = p + 4;
		size_t total = 4 + (size_t)tl * 4;

		if (tl == RB_PADDING && !delta)
			break;		/* the rest of the page is empty */
		if (tl == RB_TIME_EXTEND || tl == RB_TIME_STAMP) {
			uint64_t v = ((uint64_t)a << RB_DELTA_SHIFT) | delta;

			ts = tl == RB_TIME_STAMP ? v : ts + v;
			p += 8;
			continue;
		}
		ts += delta;
		if (tl == RB_PADDING || tl == 0) {	/* length in array[0] */
			total = 4 + (size_t)a;
			data = p + 8;
		}
		if (total < 8 || (size_t)(end - p) < total)
			break;
		memset(&out[n], 0, sizeof(out[n]));
		out[n].ts = (int64_t)ts;
		out[n].cpu = cpu;
		if (tl != RB_PADDING && !decode(r, data, (int)(p + total - data), &out[n])) {
			if (out[n].type == XEV_STACK)
				out[n].stack_at += (int)(data - pg);
			n++;
		}
		p += total;
	}
	return n;
}

int xraw_frames(const struct xraw *r, const uint8_t *pg, size_t len,
		const struct xev *e, uint64_t *pc, int max)
{
	const struct xraw_event *f = NULL;
	uint64_t end;
	int i, n = 0;

	for (i = 0; i < r->n && !f; i++)
		if (r->ev[i].type == XEV_STACK)
			f = &r->ev[i];
	if (!f || e->type != XEV_STACK || e->stack_at < 0)
		return 0;
	end = f->word == 8 ? UINT64_MAX : UINT32_MAX;
	for (i = 0; i < e->num && n < max; i++) {
		size_t at = (size_t)e->stack_at + (size_t)i * (size_t)f->word;
		uint64_t v;

		if (at + (size_t)f->word > len)
			break;
		v = rd(pg + at, f->word);
		if (!v || v == end)	/* older kernels fill the rest so */
			break;
		pc[n++] = v;
	}
	return n;
}
