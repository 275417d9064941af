// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * fuzz_trace.c - libFuzzer harness for --explain's readers of what the
 * kernel hands over: a binary ring-buffer page (any bytes, any length),
 * and the same bytes as an event's format file and as a line of trace
 * text. Oracles: nothing is read outside the input (ASan), at most max
 * events come out, each from the CPU asked, a known type, names ended.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "explain/explain.h"
#include "explain/explain_attr.h"
#include "explain/explain_internal.h"
#include "explain/explain_raw.h"

static const char header[] =
	"\tfield: u64 timestamp;\toffset:0;\tsize:8;\tsigned:0;\n"
	"\tfield: local_t commit;\toffset:8;\tsize:8;\tsigned:1;\n"
	"\tfield: char data;\toffset:16;\tsize:4080;\tsigned:0;\n";

/* sched_switch and irq_handler_entry as this kernel lays them out. */
static const char switch_fmt[] =
	"ID: 372\n"
	"\tfield:pid_t prev_pid;\toffset:24;\tsize:4;\tsigned:1;\n"
	"\tfield:long prev_state;\toffset:32;\tsize:8;\tsigned:1;\n"
	"\tfield:char next_comm[16];\toffset:40;\tsize:16;\tsigned:0;\n"
	"\tfield:pid_t next_pid;\toffset:56;\tsize:4;\tsigned:1;\n"
	"\tfield:int next_prio;\toffset:60;\tsize:4;\tsigned:1;\n";
static const char irq_fmt[] =
	"ID: 225\n"
	"\tfield:int irq;\toffset:8;\tsize:4;\tsigned:1;\n"
	"\tfield:__data_loc char[] name;\toffset:12;\tsize:4;\tsigned:0;\n";

static void check(const struct xev *ev, int n, int max, int cpu)
{
	int i;

	if (n < 0 || n > max)
		abort();
	for (i = 0; i < n; i++)
		if (ev[i].cpu != cpu || ev[i].type <= XEV_NONE || ev[i].type > XEV_WAKEUP ||
		    !memchr(ev[i].name, '\0', sizeof(ev[i].name)))
			abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct xraw r;
	struct xev ev[64];
	struct xraw_event e;
	uint64_t lost = 0;
	char *text;
	int n;

	if (!r.n) {
		if (xraw_header(&r, header) ||
		    xraw_format(&r.ev[0], XEV_SWITCH, NULL, switch_fmt) ||
		    xraw_format(&r.ev[1], XEV_IRQ_ENTRY, NULL, irq_fmt))
			abort();
		r.n = 2;
	}
	/* An exact-size copy: ASan sees any read past the page. */
	uint8_t *page = malloc(size ? size : 1);

	memcpy(page, data, size);
	n = xraw_page(&r, page, size, 5, ev, 64, &lost);
	check(ev, n, 64, 5);
	free(page);
	text = malloc(size + 1);
	memcpy(text, data, size);
	text[size] = '\0';
	xraw_format(&e, XEV_WAKEUP, "v", text);
	if (!xev_parse(text, &ev[0]) &&
	    (ev[0].type <= XEV_NONE || !memchr(ev[0].name, '\0', sizeof(ev[0].name))))
		abort();
	free(text);
	return 0;
}
