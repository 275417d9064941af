// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * explain_attr.c - trace text to events, and a window of events to its
 * causes. Pure: no I/O, no globals; unit-tested on canned trace text.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "explain/explain_internal.h"
#include "explain/explain_attr.h"

const char *const xcause_kind_names[] = {
	"irq", "softirq", "task", "wakeup", "late_interrupt", "unexplained",
	"self", "remote", "throttling", "smi", "other",
};

bool xattr_smi(struct xattr *a, uint64_t before, uint64_t after)
{
	int i;

	if (after == before)
		return false;
	for (i = 0; i < a->n; i++) {
		if (a->c[i].kind != XC_UNEXPLAINED)
			continue;
		a->c[i].kind = XC_SMI;
		snprintf(a->c[i].label, sizeof(a->c[i].label),
			 "SMI: the CPU's count went from %llu to %llu during this spike",
			 (unsigned long long)before, (unsigned long long)after);
		return true;
	}
	return false;
}

/* The value of "key=" in args, up to a space, into buf. */
static const char *arg(const char *args, const char *key, char *buf, size_t len)
{
	const char *p = args;
	size_t kl = strlen(key), n;

	while ((p = strstr(p, key))) {
		if ((p == args || p[-1] == ' ' || p[-1] == '[') && p[kl] == '=')
			break;
		p += kl;
	}
	buf[0] = '\0';
	if (!p)
		return NULL;
	p += kl + 1;
	n = strcspn(p, " ]");
	if (n >= len)
		n = len - 1;
	memcpy(buf, p, n);
	buf[n] = '\0';
	return buf;
}

static int arg_int(const char *args, const char *key)
{
	char buf[32];

	return arg(args, key, buf, sizeof(buf)) ? atoi(buf) : -1;
}

/* "sched_switch" args: the task switched to. */
static void parse_switch(const char *args, struct xev *ev)
{
	const char *next = strstr(args, "==> ");

	char state[8];

	ev->type = XEV_SWITCH;
	ev->prev_pid = arg_int(args, "prev_pid");
	/* "R" or "R+": still runnable, so it was preempted. */
	ev->preempted = arg(args, "prev_state", state, sizeof(state)) && state[0] == 'R';
	if (!next)
		next = args;
	arg(next, "next_comm", ev->name, sizeof(ev->name));
	ev->pid = arg_int(next, "next_pid");
	ev->prio = arg_int(next, "next_prio");
}

/* Name ends with _entry / _exit: an irq vector such as local_timer. */
static int parse_vector(const char *name, size_t len, struct xev *ev)
{
	static const char *const sfx[] = { "_entry", "_exit" };
	int i;

	for (i = 0; i < 2; i++) {
		size_t sl = strlen(sfx[i]);

		if (len > sl && !strncmp(name + len - sl, sfx[i], sl)) {
			ev->type = i ? XEV_VEC_EXIT : XEV_VEC_ENTRY;
			if (len - sl >= sizeof(ev->name))
				len = sizeof(ev->name) + sl - 1;
			memcpy(ev->name, name, len - sl);
			ev->name[len - sl] = '\0';
			return 0;
		}
	}
	return -1;
}

static int parse_event(const char *name, size_t len, const char *args, struct xev *ev)
{
#define IS(s) (len == strlen(s) && !strncmp(name, s, len))
	if (IS("sched_switch")) {
		parse_switch(args, ev);
	} else if (IS("sched_wakeup")) {
		ev->type = XEV_WAKEUP;
		ev->pid = arg_int(args, "pid");
		arg(args, "comm", ev->name, sizeof(ev->name));
	} else if (IS("irq_handler_entry") || IS("irq_handler_exit")) {
		ev->type = IS("irq_handler_exit") ? XEV_IRQ_EXIT : XEV_IRQ_ENTRY;
		ev->num = arg_int(args, "irq");
		arg(args, "name", ev->name, sizeof(ev->name));
	} else if (IS("softirq_entry") || IS("softirq_exit")) {
		ev->type = IS("softirq_exit") ? XEV_SOFTIRQ_EXIT : XEV_SOFTIRQ_ENTRY;
		ev->num = arg_int(args, "vec");
		arg(args, "action", ev->name, sizeof(ev->name));
	} else if (strncmp(name, "sched_", 6) != 0 && strncmp(name, "irq_handler", 11) != 0) {
		return parse_vector(name, len, ev);
	} else {
		return -1;
	}
	return 0;
#undef IS
}

/* "  comm-pid  [001] d.h1.  3686.441241: event: args" */
int xev_parse(const char *line, struct xev *ev)
{
	const char *p = strstr(line, "] "), *name, *colon, *open;
	char *end;
	/* long long: on a 32-bit long the overflow guard below could never
	 * be true (and strtol would clip at 2^31 s). */
	long long sec = 0, usec = 0;
	int digits = 6;

	memset(ev, 0, sizeof(*ev));
	if (!p)
		return -1;
	for (open = p; open > line && *open != '['; open--)
		;
	if (*open != '[')
		return -1;
	ev->cpu = atoi(open + 1);
	/* The timestamp is the first token "digits.digits:" after the CPU. */
	for (p += 2; *p; p++) {
		if (*p < '0' || *p > '9' || (p[-1] != ' ' && p[-1] != '\t'))
			continue;
		sec = strtoll(p, &end, 10);
		if (*end != '.')
			continue;
		usec = strtoll(end + 1, &end, 10);
		digits = (int)(end - strchr(p, '.')) - 1;
		if (*end == ':')
			break;
	}
	/* Seconds since boot and a fraction of 6 or 9 digits, nothing else. */
	if (!*p || sec < 0 || sec > INT64_MAX / 1000000000LL - 1 || usec < 0 ||
	    usec >= 1000000000LL)
		return -1;
	/* mono prints us; a 9-digit fraction is already ns. */
	ev->ts = (int64_t)sec * 1000000000LL + (int64_t)usec * (digits == 9 ? 1 : 1000);
	name = end + 1 + strspn(end + 1, " ");
	colon = strchr(name, ':');
	if (!colon)
		return -1;
	return parse_event(name, (size_t)(colon - name), colon + 1, ev);
}

#define XSTACK 8
#define XACC_MAX 64

/* What the CPU is doing at a point of the walk. */
struct xstate {
	int pid, prio;		/* the task running; -1: not known */
	char comm[XEV_NAME];
	bool woken;		/* the sampler was woken inside the window */
	bool ran;		/* the sampler ran from the window's start on */
	bool throttled;		/* preempted by a non-RT task: RT throttling */
	int depth;		/* interrupts in progress */
	struct xev stack[XSTACK];
};

static void task_label(char *buf, size_t len, const struct xstate *s)
{
	if (s->prio >= 0 && s->prio < 100)
		snprintf(buf, len, "task %s[%d] FIFO/RR %d", s->comm, s->pid, 99 - s->prio);
	else if (s->woken)	/* it kept the CPU from a woken RT task */
		snprintf(buf, len, "task %s[%d] nice %d, not preempted (kernel section or RT throttling)",
			 s->comm, s->pid, s->prio >= 100 ? s->prio - 120 : 0);
	else
		snprintf(buf, len, "task %s[%d] nice %d", s->comm, s->pid,
			 s->prio >= 100 ? s->prio - 120 : 0);
}

/* The sampler is on the CPU and no interrupt is in progress. */
static int self_label(const struct xstate *s, const struct xwin *w, char *buf, size_t len)
{
	if (!s->ran) {
		snprintf(buf, len, "wake-up: switch-in and return to the sampler");
		return XC_WAKEUP;
	}
	if (w->running) {
		/* A spinning loop's own cost is a few ns: a longer stretch
		 * with no kernel event is time the CPU was taken away. */
		snprintf(buf, len, "unexplained: hypervisor, SMI or hardware");
		return XC_UNEXPLAINED;
	}
	/* A client's own send and receive calls. */
	snprintf(buf, len, "the measuring thread itself");
	return XC_SELF;
}

static int label(const struct xstate *s, const struct xwin *w, char *buf, size_t len)
{
	const struct xev *top = s->depth ? &s->stack[s->depth - 1] : NULL;

	/* PREEMPT_RT runs softirqs in tasks (ktimers/N, ksoftirqd/N, an irq
	 * thread), preemptible as any task: the time is that task's. */
	if (top && top->type == XEV_SOFTIRQ_ENTRY && w->task_softirqs && s->pid > 0)
		top = NULL;

	if (top && top->type == XEV_IRQ_ENTRY) {
		snprintf(buf, len, "irq %d %s", top->num, top->name);
		return XC_IRQ;
	}
	if (top && top->type == XEV_SOFTIRQ_ENTRY) {
		snprintf(buf, len, "softirq %s", top->name);
		return XC_SOFTIRQ;
	}
	if (top) {
		snprintf(buf, len, "irq vector %s", top->name);
		return XC_IRQ;
	}
	if (s->throttled) {
		snprintf(buf, len, "RT throttling (sched_rt_runtime_us)");
		return XC_THROTTLE;
	}
	if (s->pid == w->sampler)
		return self_label(s, w, buf, len);
	if (s->pid > 0 && (s->woken || w->running || w->remote)) {
		task_label(buf, len, s);
		return XC_TASK;
	}
	if (s->pid > 0) {
		/* The timer's interrupt had not come while it ran: interrupts
		 * off in its kernel path, or the vCPU stopped by the host. */
		snprintf(buf, len, "interrupt late while %s[%d] ran", s->comm, s->pid);
		return XC_LATE;
	}
	if (s->woken) {
		snprintf(buf, len, "wake-up: sched_wakeup to sched_switch");
		return XC_WAKEUP;
	}
	if (w->remote) {
		snprintf(buf, len, "%s", w->remote);
		return XC_REMOTE;
	}
	snprintf(buf, len, "unexplained: hypervisor, SMI or hardware");
	return XC_UNEXPLAINED;
}

static int cmp_cause(const void *a, const void *b);

/* Causes are gathered here, then the largest kept (xattr_window). */
struct xacc {
	int n;
	struct xcause c[XACC_MAX];
};

static void add_cause(struct xacc *a, int kind, const char *lbl, int64_t ns)
{
	int i;

	if (ns <= 0)
		return;
	for (i = 0; i < a->n; i++)
		if (!strcmp(a->c[i].label, lbl))
			break;
	if (i == a->n) {
		if (a->n == XACC_MAX)
			i = XACC_MAX - 1;	/* many more: share the last */
		else
			a->n++;
		a->c[i].kind = kind;
		a->c[i].ns = 0;
		snprintf(a->c[i].label, sizeof(a->c[i].label), "%s", lbl);
	}
	a->c[i].ns += ns;
}

/* The largest XCAUSE_MAX - 1 causes, then the rest as "other". */
static void keep_largest(struct xacc *a, struct xattr *out)
{
	int i;

	xcause_sort(a->c, a->n);
	out->n = a->n < XCAUSE_MAX ? a->n : XCAUSE_MAX;
	memcpy(out->c, a->c, sizeof(out->c[0]) * (size_t)out->n);
	if (a->n <= XCAUSE_MAX)
		return;
	/* Of every kind: its own, never the kind of the cause it replaced. */
	snprintf(out->c[XCAUSE_MAX - 1].label, XCAUSE_LABEL, "other");
	out->c[XCAUSE_MAX - 1].kind = XC_OTHER;
	for (i = XCAUSE_MAX; i < a->n; i++)
		out->c[XCAUSE_MAX - 1].ns += a->c[i].ns;
}

static void step(struct xstate *s, const struct xev *e, int sampler)
{
	switch (e->type) {
	case XEV_SWITCH:
		if (e->pid != sampler)
			s->ran = false;
		/* Only the RT bandwidth limit lets a runnable SCHED_FIFO
		 * thread give way to idle or a SCHED_OTHER task. */
		if (e->prev_pid == sampler && e->preempted && (e->pid == 0 || e->prio >= 100))
			s->throttled = true;
		else if (e->pid == sampler)
			s->throttled = false;
		s->pid = e->pid;
		s->prio = e->prio;
		snprintf(s->comm, sizeof(s->comm), "%s", e->name);
		break;
	case XEV_WAKEUP:
		if (e->pid == sampler)
			s->woken = true;
		break;
	case XEV_IRQ_ENTRY: case XEV_SOFTIRQ_ENTRY: case XEV_VEC_ENTRY:
		if (s->depth < XSTACK)
			s->stack[s->depth++] = *e;
		break;
	default:	/* an exit: leave the innermost interrupt */
		if (s->depth)
			s->depth--;
		break;
	}
}

static int cmp_cause(const void *a, const void *b)
{
	const struct xcause *x = a, *y = b;

	return x->ns < y->ns ? 1 : x->ns > y->ns ? -1 : 0;
}

void xcause_sort(struct xcause *c, int n)
{
	qsort(c, (size_t)n, sizeof(c[0]), cmp_cause);
}

/* At the expected time: a sampler that runs then (bintime's loop) may
 * have switched in before the look-back. */
static void window_starts(struct xstate *s, const struct xwin *w)
{
	if (s->pid < 0 && w->running)
		s->pid = w->sampler;
	s->ran = s->pid == w->sampler;
}

void xattr_window(const struct xev *ev, int n, const struct xwin *w,
		  struct xattr *out)
{
	struct xstate s = { .pid = -1, .prio = -1 };
	struct xacc acc;
	char lbl[XCAUSE_LABEL];
	int64_t t = w->exp;
	int i, kind;

	memset(out, 0, sizeof(*out));
	acc.n = 0;
	for (i = 0; i < n && ev[i].ts <= w->act; i++) {
		if (ev[i].cpu != w->cpu)
			continue;
		if (ev[i].ts >= w->exp && !out->events)
			window_starts(&s, w);
		if (ev[i].ts >= w->exp) {
			kind = label(&s, w, lbl, sizeof(lbl));
			add_cause(&acc, kind, lbl, ev[i].ts - t);
			t = ev[i].ts;
			out->events++;
		}
		step(&s, &ev[i], w->sampler);
		if (ev[i].ts < w->exp)
			s.woken = false;
	}
	if (!out->events)
		window_starts(&s, w);
	kind = label(&s, w, lbl, sizeof(lbl));
	add_cause(&acc, kind, lbl, w->act - t);
	keep_largest(&acc, out);
}
