// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * explain_stack.c - the kernel stack behind a spike. The stacktrace
 * triggers (explain_trace.c) leave a stack after each switch away from a
 * task and each device interrupt's entry; of a spike's window, the one
 * of its main cause is kept: the interrupt's, or the task's as it left
 * the CPU (a task that held the CPU past the wake-up shows where it was
 * when it let go: the end of a section that could not be preempted, or
 * where it went to sleep). Named from /proc/kallsyms in the explaining
 * thread, never the measuring one.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "explain/explain_internal.h"
#include "explain/explain_stack.h"

/* The stack event right after win[i], or -1. */
static int stack_after(const struct xev *win, int n, int i)
{
	return i + 1 < n && win[i + 1].type == XEV_STACK && win[i + 1].num > 0 ? i + 1 : -1;
}

/* "irq 24 virtio0": the last entry of irq 24 in [exp, act] with a stack. */
static int irq_stack(const struct xev *win, int n, const struct xwin *w, int irq)
{
	int i, got = -1;

	for (i = 0; i < n; i++)
		if (win[i].type == XEV_IRQ_ENTRY && win[i].num == irq &&
		    win[i].ts >= w->exp && win[i].ts <= w->act && stack_after(win, n, i) >= 0)
			got = stack_after(win, n, i);
	return got;
}

/* The last switch away from pid at or after exp, with a stack. */
static int task_stack(const struct xev *win, int n, const struct xwin *w, int pid)
{
	int i, got = -1;

	for (i = 0; i < n; i++)
		if (win[i].type == XEV_SWITCH && win[i].prev_pid == pid && pid > 0 &&
		    win[i].ts >= w->exp && win[i].ts <= w->act && stack_after(win, n, i) >= 0)
			got = stack_after(win, n, i);
	return got;
}

/* "task hog[200] FIFO 90", "interrupt late while hog[200] ran": its pid,
 * and "task hog[200]" into of. */
static int label_task(const char *label, char *of, size_t len)
{
	const char *open = strchr(label, '['), *close, *start;

	if (!open || open == label || !(close = strchr(open, ']')))
		return -1;
	for (start = open; start > label && start[-1] != ' '; start--)
		;
	snprintf(of, len, "task %.*s", (int)(close - start + 1), start);
	return atoi(open + 1);
}

int xstack_pick(const struct xev *win, int n, const struct xwin *w,
		const struct xattr *a, char *of, size_t len)
{
	int k, irq, pid, got;
	char name[XCAUSE_LABEL];

	for (k = 0; k < a->n; k++) {
		const struct xcause *c = &a->c[k];

		got = -1;
		if (c->kind == XC_IRQ && sscanf(c->label, "irq %d", &irq) == 1) {
			got = irq_stack(win, n, w, irq);
			snprintf(name, sizeof(name), "%s", c->label);
		} else if (c->kind == XC_TASK || c->kind == XC_LATE) {
			pid = label_task(c->label, name, sizeof(name));
			got = task_stack(win, n, w, pid);
		}
		if (got >= 0) {
			snprintf(of, len, "%s", name);
			return got;
		}
	}
	return -1;
}

void xsym_scan(FILE *f, const uint64_t *pc, int n, char (*fn)[XSYM_NAME])
{
	uint64_t best[XSYM_BATCH] = { 0 };
	char line[512], type, name[XSYM_NAME];
	unsigned long long addr;
	int i;

	if (n > XSYM_BATCH)
		n = XSYM_BATCH;
	for (i = 0; i < n; i++)
		snprintf(fn[i], XSYM_NAME, "0x%llx", (unsigned long long)pc[i]);
	while (f && fgets(line, sizeof(line), f)) {
		/* "ffffffff81000000 T _stext" or "... t fn\t[module]" */
		if (sscanf(line, "%llx %c %63s", &addr, &type, name) != 3 || !addr)
			continue;
		if (type != 't' && type != 'T' && type != 'w' && type != 'W')
			continue;
		for (i = 0; i < n; i++)
			if (addr <= pc[i] && addr > best[i]) {
				best[i] = addr;
				snprintf(fn[i], XSYM_NAME, "%s", name);
			}
	}
}

const char *xsym_get(const struct xsyms *c, uint64_t pc)
{
	int i;

	for (i = 0; i < c->n; i++)
		if (c->c[i].pc == pc)
			return c->c[i].fn;
	return NULL;
}

void xsym_fill(struct xsyms *c, const char *path, const uint64_t *pc, int n)
{
	uint64_t miss[XSYM_BATCH];
	char fn[XSYM_BATCH][XSYM_NAME];
	int i, k, m = 0;
	FILE *f;

	for (i = 0; i < n && m < XSYM_BATCH; i++) {
		for (k = 0; k < m && miss[k] != pc[i]; k++)
			;
		if (k == m && !xsym_get(c, pc[i]))
			miss[m++] = pc[i];
	}
	if (!m)
		return;
	f = fopen(path, "re");
	xsym_scan(f, miss, m, fn);
	if (f)
		fclose(f);
	for (k = 0; k < m; k++) {
		c->c[c->next].pc = miss[k];
		memcpy(c->c[c->next].fn, fn[k], XSYM_NAME);
		c->next = (c->next + 1) % XSYM_CACHE;
		if (c->n < XSYM_CACHE)
			c->n++;
	}
}

void xsym_names(struct xsyms *c, const char *path, struct xstack *st)
{
	int i;

	xsym_fill(c, path, st->pc, st->n);
	for (i = 0; i < st->n; i++) {
		const char *name = xsym_get(c, st->pc[i]);

		if (name)
			snprintf(st->fn[i], XSYM_NAME, "%s", name);
		else
			snprintf(st->fn[i], XSYM_NAME, "0x%llx", (unsigned long long)st->pc[i]);
	}
}

int xstack_first(const struct xstack *st)
{
	static const char *const tracer[] = {
		"trace_event_raw_event_", "__traceiter_", "perf_trace_", "__trace_stack",
		"trace_",
	};
	int i;
	size_t k;

	for (i = 0; i < st->n; i++) {
		for (k = 0; k < sizeof(tracer) / sizeof(tracer[0]); k++)
			if (!strncmp(st->fn[i], tracer[k], strlen(tracer[k])))
				break;
		if (k == sizeof(tracer) / sizeof(tracer[0]))
			return i;
	}
	return 0;
}
