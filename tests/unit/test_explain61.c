// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * test_explain61.c - --explain's binary reader on a real 6.1 PREEMPT_RT
 * kernel: the formats and one page of CPU 0's buffer captured from
 * Debian's linux-image-rt-amd64 (tests/kernels/guest.sh, check info),
 * decoded event for event as the kernel's own text shows them. 6.1's
 * RT events carry common_preempt_lazy_count, so every field sits 4 bytes
 * later than on a stock kernel; nothing here may assume an offset.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "explain/explain_internal.h"
#include "explain/explain_attr.h"
#include "explain/explain_raw.h"
#include "explain/explain_trace.h"
#include "unit.h"

#define FIX "tests/fixtures/tracefs-6.1-rt/"
#define NEV 512

/* A fixture file whole, NUL-terminated (the other tests' too). */
size_t unit_slurp(const char *name, char *buf, size_t len)
{
	FILE *f = fopen(name, "rb");
	size_t n = 0;

	if (f) {
		n = fread(buf, 1, len - 1, f);
		fclose(f);
	}
	buf[n] = '\0';
	CHECK(n > 0);
	return n;
}

static const struct { const char *path, *vector; int type; } fmts[] = {
	{ "sched/sched_switch", NULL, XEV_SWITCH },
	{ "sched/sched_wakeup", NULL, XEV_WAKEUP },
	{ "irq/irq_handler_entry", NULL, XEV_IRQ_ENTRY },
	{ "irq/irq_handler_exit", NULL, XEV_IRQ_EXIT },
	{ "irq/softirq_entry", NULL, XEV_SOFTIRQ_ENTRY },
	{ "irq/softirq_exit", NULL, XEV_SOFTIRQ_EXIT },
	{ "irq_vectors/local_timer_entry", "local_timer", XEV_VEC_ENTRY },
	{ "irq_vectors/local_timer_exit", "local_timer", XEV_VEC_EXIT },
};

static void load_formats(struct xraw *r)
{
	static char text[8192];
	char path[256];
	int i;

	unit_slurp(FIX "events/header_page", text, sizeof(text));
	CHECK(!xraw_header(r, text));
	for (i = 0; i < (int)(sizeof(fmts) / sizeof(fmts[0])); i++) {
		snprintf(path, sizeof(path), FIX "events/%s/format", fmts[i].path);
		unit_slurp(path, text, sizeof(text));
		CHECK(!xraw_format(&r->ev[r->n], fmts[i].type, fmts[i].vector, text));
		r->n++;
	}
}

/* The text's events of the types we read, in order. */
static int text_events(struct xev *ev, int max)
{
	static char text[65536];
	char *line, *save = NULL;
	int n = 0;

	unit_slurp(FIX "cpu0.trace", text, sizeof(text));
	for (line = strtok_r(text, "\n", &save); line && n < max;
	     line = strtok_r(NULL, "\n", &save))
		if (line[0] != '#' && !xev_parse(line, &ev[n]))
			n++;
	return n;
}

static void same_event(const struct xev *b, const struct xev *t)
{
	CHECK_EQ_LL(b->type, t->type);
	/* The text shows us, rounded (the kernel's ns2usecs()). */
	CHECK_EQ_LL((b->ts + 500) / 1000, t->ts / 1000);
	CHECK_EQ_LL(b->cpu, 0);
	if (b->type == XEV_SWITCH) {
		CHECK_EQ_LL(b->prev_pid, t->prev_pid);
		CHECK_EQ_LL(b->pid, t->pid);
		CHECK_EQ_LL(b->prio, t->prio);
		CHECK_EQ_LL(b->preempted, t->preempted);
	}
	if (b->type == XEV_WAKEUP)
		CHECK_EQ_LL(b->pid, t->pid);
	if (b->type == XEV_IRQ_ENTRY || b->type == XEV_SOFTIRQ_ENTRY)
		CHECK_EQ_LL(b->num, t->num);
	if (b->type != XEV_IRQ_EXIT && b->type != XEV_SOFTIRQ_EXIT && strcmp(b->name, t->name))
		CHECK(!fprintf(stderr, "binary '%s', text '%s'\n", b->name, t->name));
}

UNIT_TEST(explain_reads_a_real_6_1_rt_buffer)
{
	static struct xev bin[NEV], txt[NEV];
	static uint8_t page[4096 + 1];
	struct xraw r = { 0 };
	uint64_t lost = 0;
	int nb, nt, i;

	load_formats(&r);
	CHECK_EQ_LL(r.data_off, 16);
	CHECK_EQ_LL(r.commit_size, 8);
	CHECK_EQ_LL(r.ev[0].prev_pid.off, 28);	/* 24 on a stock kernel */
	CHECK_EQ_LL(r.ev[0].pid.off, 64);
	CHECK_EQ_LL(r.ev[2].num.off, 12);
	nb = xraw_page(&r, page, unit_slurp(FIX "cpu0.raw", (char *)page, sizeof(page)),
		       0, bin, NEV, &lost);
	nt = text_events(txt, NEV);
	CHECK(nb >= 20);
	CHECK(nt >= nb);
	CHECK_EQ_LL(lost, 0);
	for (i = 0; i < nb && i < nt; i++)
		same_event(&bin[i], &txt[i]);
}
