// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * test_explain_stack.c - the kernel stack behind a spike (--explain):
 * one page of CPU 0's buffer captured with the stacktrace triggers
 * explain_trace.c sets (a 6.18 kernel: its formats, the page, the text
 * the kernel itself made of the same events and the kallsyms lines of
 * their functions), decoded frame for frame as the text shows them; which
 * stack a spike gets; function names from kallsyms' format.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "explain/explain_internal.h"
#include "explain/explain_attr.h"
#include "explain/explain_raw.h"
#include "explain/explain_stack.h"
#include "unit.h"

#define FIX "tests/fixtures/tracefs-6.18-stack/"
#define NEV 128

static void load(struct xraw *r)
{
	static const struct { const char *file; int type; } fmts[] = {
		{ FIX "events/sched_switch", XEV_SWITCH },
		{ FIX "events/irq_handler_entry", XEV_IRQ_ENTRY },
		{ FIX "events/kernel_stack", XEV_STACK },
	};
	static char text[8192];
	size_t i;

	unit_slurp(FIX "header_page", text, sizeof(text));
	CHECK(!xraw_header(r, text));
	for (i = 0; i < sizeof(fmts) / sizeof(fmts[0]); i++) {
		unit_slurp(fmts[i].file, text, sizeof(text));
		CHECK(!xraw_format(&r->ev[r->n++], fmts[i].type, NULL, text));
	}
}

UNIT_TEST(explain_reads_real_kernel_stacks)
{
	static uint8_t page[4096 + 1];
	static char text[32768];
	static struct xev bin[NEV];
	struct xraw r = { 0 };
	uint64_t lost = 0, pc[XSTACK_FRAMES];
	char fn[XSTACK_FRAMES][XSYM_NAME], *line, *save = NULL;
	size_t len;
	int nb, i = -1, k = 0, frames = 0, stacks = 0, n = 0;
	FILE *syms;

	load(&r);
	CHECK_EQ_LL(r.ev[2].word, 8);
	CHECK_EQ_LL(r.ev[2].caller.off, 16);
	len = unit_slurp(FIX "cpu0.raw", (char *)page, sizeof(page));
	nb = xraw_page(&r, page, len, 0, bin, NEV, &lost);
	CHECK_EQ_LL(nb, 53);
	unit_slurp(FIX "cpu0.trace", text, sizeof(text));
	syms = fopen(FIX "kallsyms", "r");
	CHECK(syms != NULL);
	/* Each event of the text in turn; each stack's "=> fn" lines. */
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		if (!strncmp(line, " => ", 4)) {
			CHECK(k < n && !strcmp(fn[k], line + 4));
			k++;
			frames++;
			continue;
		}
		CHECK(i < 0 || bin[i].type != XEV_STACK || k == n);
		if (++i >= nb) {
			CHECK(!"more events in the text than in the page");
			break;
		}
		k = n = 0;
		if (strstr(line, ": <stack trace>")) {
			CHECK_EQ_LL(bin[i].type, XEV_STACK);
			n = xraw_frames(&r, page, len, &bin[i], pc, XSTACK_FRAMES);
			CHECK(n > 0 && n == bin[i].num);
			rewind(syms);
			xsym_scan(syms, pc, n, fn);
			stacks++;
		} else {
			struct xev t;

			CHECK(!xev_parse(line, &t));
			CHECK_EQ_LL(bin[i].type, t.type);
			CHECK_EQ_LL(bin[i].prev_pid, t.prev_pid);
			CHECK_EQ_LL(bin[i].pid, t.pid);
		}
	}
	CHECK_EQ_LL(i, nb - 1);
	CHECK_EQ_LL(stacks, 26);
	CHECK(frames > 100);
	if (syms)
		fclose(syms);
}

/* kernel_stack on kernels that fill the unused slots with ULONG_MAX
 * (before the record held only the frames kept). */
UNIT_TEST(explain_stack_ends_at_the_kernels_marker)
{
	static uint8_t pg[4096];
	static char text[8192];
	struct xraw r = { 0 };
	struct xev ev[4];
	uint64_t lost = 0, pc[XSTACK_FRAMES], ts = 1000, commit;
	uint64_t calls[8] = { 0xffffffff81000010ULL, 0xffffffff81000020ULL,
			      0xffffffff81000030ULL, UINT64_MAX, UINT64_MAX,
			      UINT64_MAX, UINT64_MAX, UINT64_MAX };
	uint32_t h = 20 | 7 << 5;		/* 20 words, delta 7 */
	uint16_t id = 4;
	int size = 8;

	load(&r);
	memcpy(pg, &ts, 8);
	memcpy(pg + 16, &h, 4);
	memcpy(pg + 20, &id, 2);
	memcpy(pg + 20 + 8, &size, 4);
	memcpy(pg + 20 + 16, calls, sizeof(calls));
	commit = 4 + 80;
	memcpy(pg + 8, &commit, 8);
	CHECK_EQ_LL(xraw_page(&r, pg, sizeof(pg), 2, ev, 4, &lost), 1);
	CHECK_EQ_LL(ev[0].type, XEV_STACK);
	CHECK_EQ_LL(ev[0].ts, 1007);
	CHECK_EQ_LL(ev[0].num, 8);
	CHECK_EQ_LL(ev[0].stack_at, 16 + 4 + 16);
	CHECK_EQ_LL(xraw_frames(&r, pg, sizeof(pg), &ev[0], pc, XSTACK_FRAMES), 3);
	CHECK(pc[2] == 0xffffffff81000030ULL);
	/* A size past the record is cut to what it holds. */
	size = 50;
	memcpy(pg + 20 + 8, &size, 4);
	CHECK_EQ_LL(xraw_page(&r, pg, sizeof(pg), 2, ev, 4, &lost), 1);
	CHECK_EQ_LL(ev[0].num, 8);
	unit_slurp(FIX "events/kernel_stack", text, sizeof(text));
	CHECK(xraw_format(&r.ev[0], XEV_STACK, NULL, "name: kernel_stack\nID: 4\n") < 0);
}

static struct xev sw(int64_t ts, int prev, bool preempted, int next)
{
	struct xev e = { .ts = ts, .type = XEV_SWITCH, .prev_pid = prev,
			 .preempted = preempted, .pid = next };

	snprintf(e.name, sizeof(e.name), "%s", next == 100 ? "rtlat-sampler" : "hog");
	return e;
}

static struct xev stk(int64_t ts, int seq, int frames)
{
	return (struct xev){ .ts = ts, .type = XEV_STACK, .pid = seq, .num = frames };
}

UNIT_TEST(explain_picks_the_stack_of_the_main_cause)
{
	struct xev irq = { .ts = 1150, .type = XEV_IRQ_ENTRY, .num = 24, .name = "virtio0" };
	struct xev irqx = { .ts = 1160, .type = XEV_IRQ_EXIT, .num = 24 };
	struct xev win[] = {
		sw(1000, 100, false, 0), stk(1001, 1, 10),	/* the sampler slept */
		sw(1096, 0, true, 200),				/* idle: no stack */
		irq, stk(1151, 2, 7), irqx,
		sw(1400, 200, true, 100), stk(1402, 3, 6),	/* the hog let go */
	};
	struct xwin w = { .cpu = 0, .sampler = 100, .exp = 1100, .act = 1405 };
	struct xattr a = { .n = 2, .c = {
		{ XC_TASK, "task hog[200] FIFO/RR 90", 250 },
		{ XC_IRQ, "irq 24 virtio0", 10 } } };
	int n = (int)(sizeof(win) / sizeof(win[0]));
	char of[XCAUSE_LABEL];

	CHECK_EQ_LL(xstack_pick(win, n, &w, &a, of, sizeof(of)), 7);
	CHECK(!strcmp(of, "task hog[200]"));
	a.c[0].kind = XC_LATE;
	snprintf(a.c[0].label, XCAUSE_LABEL, "interrupt late while hog[200] ran");
	CHECK_EQ_LL(xstack_pick(win, n, &w, &a, of, sizeof(of)), 7);
	CHECK(!strcmp(of, "task hog[200]"));
	/* The interrupt first: its own stack. */
	a.c[1] = a.c[0];
	a.c[0] = (struct xcause){ XC_IRQ, "irq 24 virtio0", 300 };
	CHECK_EQ_LL(xstack_pick(win, n, &w, &a, of, sizeof(of)), 4);
	CHECK(!strcmp(of, "irq 24 virtio0"));
	/* The cause's stack missing (lost, or before the window): the next
	 * cause's; none: no stack. */
	win[4].num = 0;
	CHECK_EQ_LL(xstack_pick(win, n, &w, &a, of, sizeof(of)), 7);
	a.n = 1;
	CHECK_EQ_LL(xstack_pick(win, n, &w, &a, of, sizeof(of)), -1);
	a.c[0] = (struct xcause){ XC_WAKEUP, "wake-up: sched_wakeup to sched_switch", 5 };
	CHECK_EQ_LL(xstack_pick(win, n, &w, &a, of, sizeof(of)), -1);
	/* The sampler's own switch before the expected wake-up is no cause. */
	a.c[0] = (struct xcause){ XC_TASK, "task rtlat-sampler[100] nice 0", 5 };
	CHECK_EQ_LL(xstack_pick(win, n, &w, &a, of, sizeof(of)), -1);
}

UNIT_TEST(explain_names_frames_from_kallsyms)
{
	static char text[] =
		"0000000000000000 T hidden\n"
		"ffffffff81000000 T _stext\n"
		"ffffffff81000100 t do_nanosleep\n"
		"ffffffff81000180 d a_variable\n"
		"ffffffff81000200 W weak_fn\n"
		"ffffffffc0000000 t mod_fn\t[virtio_net]\n";
	uint64_t pc[] = { 0xffffffff81000105ULL, 0xffffffff81000190ULL,
			  0xffffffff81000200ULL, 0xffffffffc0000010ULL, 0x1000 };
	char fn[5][XSYM_NAME];
	FILE *f = fmemopen(text, sizeof(text) - 1, "r");
	struct xsyms *c = calloc(1, sizeof(*c));
	struct xstack st = { .n = 2, .pc = { 0xffffffff81000105ULL, 0x1000 } };

	CHECK(f != NULL && c != NULL);
	xsym_scan(f, pc, 5, fn);
	fclose(f);
	CHECK(!strcmp(fn[0], "do_nanosleep"));
	CHECK(!strcmp(fn[1], "do_nanosleep"));	/* data is no function */
	CHECK(!strcmp(fn[2], "weak_fn"));
	CHECK(!strcmp(fn[3], "mod_fn"));
	CHECK(!strcmp(fn[4], "0x1000"));
	/* Through the cache: a file that cannot be read leaves addresses. */
	xsym_names(c, "/nonexistent/kallsyms", &st);
	CHECK(!strcmp(st.fn[0], "0xffffffff81000105") && !strcmp(st.fn[1], "0x1000"));
	free(c);
}
