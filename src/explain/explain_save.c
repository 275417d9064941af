// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * explain_save.c - --trace-out DIR (as rtla's -t): each spike the
 * explaining thread attributes leaves its trace window as text in
 * DIR/rtlat-spike-N.txt: its figures and causes, then the CPU's events
 * from LOOKBACK before the expected wake-up to the actual one, one a line.
 * Written by the explaining thread (not real-time), never the measuring
 * one; a file that cannot be written is said once.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include "measure/clock.h"
#include "explain/explain_internal.h"
#include "explain/explain_save.h"
#include "explain/explain_stack.h"
#include "explain/explain_trace.h"

static const char *const ev_names[] = {
	[XEV_NONE] = "none",
	[XEV_IRQ_ENTRY] = "irq_handler_entry", [XEV_IRQ_EXIT] = "irq_handler_exit",
	[XEV_SOFTIRQ_ENTRY] = "softirq_entry", [XEV_SOFTIRQ_EXIT] = "softirq_exit",
	[XEV_VEC_ENTRY] = "vector_entry", [XEV_VEC_EXIT] = "vector_exit",
	[XEV_SWITCH] = "sched_switch", [XEV_WAKEUP] = "sched_wakeup",
	[XEV_STACK] = "<stack trace>",
};

static void print_event(FILE *f, const struct xev *e)
{
	fprintf(f, "%6lld.%09lld CPU %d: %s", (long long)(e->ts / NSEC_PER_SEC),
		(long long)(e->ts % NSEC_PER_SEC), e->cpu, ev_names[e->type]);
	switch (e->type) {
	case XEV_IRQ_ENTRY:
	case XEV_IRQ_EXIT:
		fprintf(f, " irq=%d name=%s\n", e->num, e->name);
		break;
	case XEV_SOFTIRQ_ENTRY:
	case XEV_SOFTIRQ_EXIT:
		fprintf(f, " vec=%d action=%s\n", e->num, e->name);
		break;
	case XEV_VEC_ENTRY:
	case XEV_VEC_EXIT:
		fprintf(f, " vector=%s\n", e->name);
		break;
	case XEV_SWITCH:
		fprintf(f, " prev_pid=%d prev_state=%s ==> next_comm=%s next_pid=%d next_prio=%d\n",
			e->prev_pid, e->preempted ? "R" : "S", e->name, e->pid, e->prio);
		break;
	case XEV_WAKEUP:
		fprintf(f, " comm=%s pid=%d prio=%d\n", e->name, e->pid, e->prio);
		break;
	case XEV_STACK:		/* its frames follow, as the trace shows them */
	default:
		fputc('\n', f);
	}
}

/* A stack event and its frames, " => function" a line, as the trace
 * shows them; nothing if its frames were overwritten since. */
static void print_stack(FILE *f, const struct xev *e, const struct xtrace *t,
			const struct xsyms *syms)
{
	uint64_t pc[XSTACK_FRAMES];
	int i, n = xtrace_stack(t, e->cpu, e, pc);

	if (n)
		print_event(f, e);
	for (i = 0; i < n; i++) {
		const char *name = xsym_get(syms, pc[i]);

		if (name)
			fprintf(f, " => %s\n", name);
		else
			fprintf(f, " => 0x%llx\n", (unsigned long long)pc[i]);
	}
}

/* Name every frame of the window's stacks, one read of kallsyms. */
static void name_frames(const struct xev *win, int n, const struct xtrace *t,
			struct xsyms *syms)
{
	uint64_t pc[XSYM_BATCH];
	int i, k = 0;

	for (i = 0; i < n && k + XSTACK_FRAMES <= XSYM_BATCH; i++)
		if (win[i].type == XEV_STACK)
			k += xtrace_stack(t, win[i].cpu, &win[i], pc + k);
	xsym_fill(syms, "/proc/kallsyms", pc, k);
}

static void print_header(FILE *f, const struct explain *x, const struct xspike *s,
			 int64_t from, uint64_t n)
{
	int i;

	fprintf(f, "# %s: spike %llu at %.6f s: %lld ns late, %s on CPU %d\n",
		x->prog, (unsigned long long)n,
		(double)(s->exp - x->start_ns) / NSEC_PER_SEC, (long long)s->lat,
		x->src[s->src].name, s->cpu);
	fprintf(f, "# window: %lld.%09lld to %lld.%09lld (expected %lld.%09lld), CLOCK_MONOTONIC, %d events in it\n",
		(long long)(from / NSEC_PER_SEC), (long long)(from % NSEC_PER_SEC),
		(long long)((s->exp + s->lat) / NSEC_PER_SEC),
		(long long)((s->exp + s->lat) % NSEC_PER_SEC),
		(long long)(s->exp / NSEC_PER_SEC), (long long)(s->exp % NSEC_PER_SEC),
		s->a.events);
	fprintf(f, "# causes:");
	for (i = 0; i < s->a.n; i++)
		fprintf(f, "%s %s %lld ns", i ? "," : "", s->a.c[i].label,
			(long long)s->a.c[i].ns);
	fputc('\n', f);
	if (!s->st.n)
		return;
	fprintf(f, "# stack of %s:", s->st.of);
	for (i = 0; i < s->st.n; i++)
		fprintf(f, " %s%s", i ? "< " : "", s->st.fn[i]);
	fputc('\n', f);
}

void explain_save(struct explain *x, const struct xspike *s, int64_t from,
		  const struct xev *win, int n, const struct xtrace *t,
		  struct xsyms *syms)
{
	char path[PATH_MAX_SAVE];
	uint64_t k = ++x->saved;
	FILE *f;
	int fd, i;

	snprintf(path, sizeof(path), "%s/rtlat-spike-%llu.txt", x->trace_out,
		 (unsigned long long)k);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	f = fd >= 0 ? fdopen(fd, "w") : NULL;
	if (!f) {
		if (!x->save_failed)
			fprintf(stderr, "%s: --trace-out: %s: %s; no more windows saved\n",
				x->prog, path, strerror(errno));
		x->save_failed = true;
		x->trace_out = NULL;
		if (fd >= 0)
			close(fd);
		return;
	}
	print_header(f, x, s, from, k);
	name_frames(win, n, t, syms);
	for (i = 0; i < n; i++)
		if (win[i].type == XEV_STACK)
			print_stack(f, &win[i], t, syms);
		else
			print_event(f, &win[i]);
	if (fclose(f) && !x->save_failed) {
		fprintf(stderr, "%s: --trace-out: %s: %s\n", x->prog, path, strerror(errno));
		x->save_failed = true;
	}
}
