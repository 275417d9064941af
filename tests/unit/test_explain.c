// SPDX-License-Identifier: GPL-2.0-or-later
/* test_explain.c - trace text parsing and spike attribution (--explain). */
#include <stdio.h>
#include <string.h>
#include "explain/explain_internal.h"
#include "explain/explain_attr.h"
#include "explain/explain_raw.h"
#include "explain/explain_trace.h"
#include "unit.h"

/* CPU 0, the sampler is tid 100 (FIFO 80), a hog tid 200 (FIFO 90). */
static const char *const canned[] = {
	"# tracer: nop",
	"          <idle>-0       [000] d..2.  1000.000000: sched_switch: prev_comm=rtlat-sampler prev_pid=100 prev_prio=19 prev_state=S ==> next_comm=swapper/0 next_pid=0 next_prio=120",
	"          <idle>-0       [000] d.h1.  1000.000090: irq_handler_entry: irq=24 name=virtio0-input.0",
	"          <idle>-0       [000] d.h1.  1000.000095: irq_handler_exit: irq=24 ret=handled",
	"          <idle>-0       [000] d..2.  1000.000096: sched_switch: prev_comm=swapper/0 prev_pid=0 prev_prio=120 prev_state=R ==> next_comm=hog next_pid=200 next_prio=9",
	"             hog-200     [000] d.h1.  1000.000100: local_timer_entry: vector=236",
	"             hog-200     [000] d.h2.  1000.000102: sched_wakeup: comm=rtlat-sampler pid=100 prio=19 target_cpu=000",
	"             hog-200     [000] d.h1.  1000.000104: local_timer_exit: vector=236",
	"             hog-200     [000] ..s1.  1000.000150: softirq_entry: vec=9 [action=RCU]",
	"             hog-200     [000] ..s1.  1000.000160: softirq_exit: vec=9 [action=RCU]",
	"             hog-200     [001] d.h1.  1000.000200: irq_handler_entry: irq=30 name=other-cpu",
	"             hog-200     [000] d..2.  1000.000400: sched_switch: prev_comm=hog prev_pid=200 prev_prio=9 prev_state=S ==> next_comm=rtlat-sampler next_pid=100 next_prio=19",
};

static int parse_all(struct xev *ev)
{
	int i, n = 0;

	for (i = 0; i < (int)(sizeof(canned) / sizeof(canned[0])); i++)
		if (!xev_parse(canned[i], &ev[n]))
			n++;
	return n;
}

UNIT_TEST(explain_parses_trace_text)
{
	struct xev ev[16];
	int n = parse_all(ev);

	CHECK_EQ_LL(n, 11);
	CHECK_EQ_LL(ev[0].type, XEV_SWITCH);
	CHECK_EQ_LL(ev[0].ts, 1000000000000LL);
	CHECK_EQ_LL(ev[0].pid, 0);
	CHECK_EQ_LL(ev[1].type, XEV_IRQ_ENTRY);
	CHECK_EQ_LL(ev[1].num, 24);
	CHECK(!strcmp(ev[1].name, "virtio0-input.0"));
	CHECK_EQ_LL(ev[1].ts, 1000000090000LL);
	CHECK_EQ_LL(ev[4].type, XEV_VEC_ENTRY);
	CHECK(!strcmp(ev[4].name, "local_timer"));
	CHECK_EQ_LL(ev[5].type, XEV_WAKEUP);
	CHECK_EQ_LL(ev[5].pid, 100);
	CHECK_EQ_LL(ev[7].type, XEV_SOFTIRQ_ENTRY);
	CHECK(!strcmp(ev[7].name, "RCU"));
	CHECK_EQ_LL(ev[9].cpu, 1);
	CHECK_EQ_LL(ev[10].prio, 19);
	CHECK(xev_parse("# tracer: nop", &ev[0]) < 0);
	CHECK(xev_parse("  x-1 [000] d..1. 5.000001: sched_waking: comm=a pid=1", &ev[0]) < 0);
	/* Seconds beyond 2^31 (a 32-bit long) still parse; beyond what
	 * int64 ns can hold are refused, on every word size. */
	CHECK(!xev_parse("  x-1 [000] d..1. 4294967296.000001: sched_switch: prev_comm=a prev_pid=1 prev_prio=120 prev_state=R ==> next_comm=b next_pid=2 next_prio=120",
			 &ev[0]));
	CHECK_EQ_LL(ev[0].ts, 4294967296000001000LL);
	CHECK(xev_parse("  x-1 [000] d..1. 9223372036.000001: sched_switch: prev_comm=a prev_pid=1 prev_prio=120 prev_state=R ==> next_comm=b next_pid=2 next_prio=120",
			&ev[0]) < 0);
	CHECK(xev_parse("  x-1 [000] d..1. 99999999999999999999.000001: sched_switch: prev_comm=a prev_pid=1 prev_prio=120 prev_state=R ==> next_comm=b next_pid=2 next_prio=120",
			&ev[0]) < 0);
}

static const struct xcause *find(const struct xattr *a, const char *label)
{
	int i;

	for (i = 0; i < a->n; i++)
		if (!strcmp(a->c[i].label, label))
			return &a->c[i];
	return NULL;
}

/* Expected at 1000.000080, woke at 1000.000410: 330 us. */
UNIT_TEST(explain_attributes_a_spike_to_its_causes)
{
	struct xev ev[16];
	struct xattr a;
	int64_t exp = 1000000080000LL, act = 1000000410000LL, sum = 0;
	int n = parse_all(ev), i;
	const struct xcause *c;

	xattr_window(ev, n, &(struct xwin){ .cpu = 0, .sampler = 100, .exp = exp, .act = act }, &a);
	for (i = 0; i < a.n; i++)
		sum += a.c[i].ns;
	CHECK_EQ_LL(sum, act - exp);
	/* The hog after the wake-up: 104..150, 160..400 us. */
	c = &a.c[0];
	CHECK(!strcmp(c->label, "task hog[200] FIFO/RR 90"));
	CHECK_EQ_LL(c->kind, XC_TASK);
	CHECK_EQ_LL(c->ns, 46000 + 240000);
	/* Before it, the timer's interrupt had not come: 96..100 us. */
	c = find(&a, "interrupt late while hog[200] ran");
	CHECK(c && c->ns == 4000 && c->kind == XC_LATE);
	c = find(&a, "irq 24 virtio0-input.0");
	CHECK(c && c->ns == 5000 && c->kind == XC_IRQ);
	c = find(&a, "irq vector local_timer");
	CHECK(c && c->ns == 4000);
	c = find(&a, "softirq RCU");
	CHECK(c && c->ns == 10000 && c->kind == XC_SOFTIRQ);
	/* Idle before the interrupt came: nothing in the kernel explains it. */
	c = find(&a, "unexplained: hypervisor, SMI or hardware");
	CHECK(c && c->ns == 10000 + 1000 && c->kind == XC_UNEXPLAINED);
	c = find(&a, "wake-up: switch-in and return to the sampler");
	CHECK(c && c->ns == 10000 && c->kind == XC_WAKEUP);
	CHECK_EQ_LL(a.events, 9);
}

/* PREEMPT_RT: the hog's softirq ran in the hog, preemptible: the hog's. */
UNIT_TEST(explain_softirq_in_a_task_on_preempt_rt)
{
	struct xev ev[16];
	struct xattr a;
	int n = parse_all(ev);
	const struct xcause *c;

	xattr_window(ev, n, &(struct xwin){ .cpu = 0, .sampler = 100, .exp = 1000000080000LL,
		     .act = 1000000410000LL, .task_softirqs = true }, &a);
	CHECK(!find(&a, "softirq RCU"));
	c = find(&a, "task hog[200] FIFO/RR 90");
	CHECK(c && c->ns == 46000 + 10000 + 240000 && c->kind == XC_TASK);
	/* Hard interrupts stay hard-IRQ time. */
	c = find(&a, "irq 24 virtio0-input.0");
	CHECK(c && c->ns == 5000 && c->kind == XC_IRQ);
}

UNIT_TEST(explain_empty_window_is_unexplained)
{
	struct xattr a;

	xattr_window(NULL, 0, &(struct xwin){ .cpu = 0, .sampler = 100, .exp = 1000, .act = 51000 }, &a);
	CHECK_EQ_LL(a.n, 1);
	CHECK_EQ_LL(a.c[0].kind, XC_UNEXPLAINED);
	CHECK_EQ_LL(a.c[0].ns, 50000);
}

/* An unexplained stretch while the CPU's SMI count went up is the
 * firmware's, said with the counts; no change, or nothing unexplained
 * (an interrupt's time), leaves the causes as they were. */
UNIT_TEST(explain_smi_count_relabels_the_unexplained)
{
	struct xattr a;

	xattr_window(NULL, 0, &(struct xwin){ .cpu = 0, .sampler = 100, .exp = 1000, .act = 51000 }, &a);
	CHECK(!xattr_smi(&a, 41, 41));
	CHECK_EQ_LL(a.c[0].kind, XC_UNEXPLAINED);
	CHECK(xattr_smi(&a, 41, 42));
	CHECK_EQ_LL(a.c[0].kind, XC_SMI);
	CHECK_EQ_LL(a.c[0].ns, 50000);
	CHECK(!strcmp(a.c[0].label, "SMI: the CPU's count went from 41 to 42 during this spike"));
	CHECK(!strcmp(xcause_kind_names[XC_SMI], "smi"));
	CHECK(!strcmp(xcause_kind_names[XC_OTHER], "other"));
	a.c[0].kind = XC_IRQ;
	CHECK(!xattr_smi(&a, 41, 43));
	CHECK_EQ_LL(a.c[0].kind, XC_IRQ);
}

static int parse_lines(const char *const *t, int n, struct xev *ev)
{
	int i;

	for (i = 0; i < n; i++)
		CHECK(!xev_parse(t[i], &ev[i]));
	return n;
}

/* Woken while idle, switched in late: the wake-up itself. */
UNIT_TEST(explain_idle_after_wakeup_is_wakeup_delay)
{
	static const char *const t[] = {
		"  <idle>-0  [002] d..2.  7.000000: sched_switch: prev_comm=s prev_pid=5 prev_prio=0 prev_state=S ==> next_comm=swapper/2 next_pid=0 next_prio=120",
		"  <idle>-0  [002] d.h2.  7.000010: sched_wakeup: comm=s pid=5 prio=0 target_cpu=002",
		"  <idle>-0  [002] d..2.  7.000060: sched_switch: prev_comm=swapper/2 prev_pid=0 prev_prio=120 prev_state=R ==> next_comm=s next_pid=5 next_prio=0",
	};
	struct xev ev[3];
	struct xwin w = { .cpu = 2, .sampler = 5, .exp = 7000005000LL, .act = 7000070000LL };
	struct xattr a;

	xattr_window(ev, parse_lines(t, 3, ev), &w, &a);
	CHECK(!strcmp(a.c[0].label, "wake-up: sched_wakeup to sched_switch"));
	CHECK_EQ_LL(a.c[0].ns, 50000);
	CHECK_EQ_LL(a.n, 3);
}

/* More causes than a spike keeps: the largest, then "other" with the rest. */
UNIT_TEST(explain_folds_small_causes_into_other)
{
	struct xev ev[2 * XCAUSE_MAX + 2];
	struct xattr a;
	int64_t sum = 0;
	int i, n = 0;

	for (i = 0; i <= XCAUSE_MAX; i++) {
		char line[200];

		snprintf(line, sizeof(line), "  x-0 [000] d.h1. 1.%06d: irq_handler_entry: irq=%d name=dev%d",
			 10 * i, i, i);
		CHECK(!xev_parse(line, &ev[n++]));
		snprintf(line, sizeof(line), "  x-0 [000] d.h1. 1.%06d: irq_handler_exit: irq=%d ret=handled",
			 10 * i + 1 + i, i);
		CHECK(!xev_parse(line, &ev[n++]));
	}
	xattr_window(ev, n, &(struct xwin){ .cpu = 0, .sampler = 1, .exp = 1000000000LL, .act = 1000200000LL }, &a);
	CHECK_EQ_LL(a.n, XCAUSE_MAX);
	for (i = 0; i < a.n; i++)
		sum += a.c[i].ns;
	CHECK_EQ_LL(sum, 200000);
	CHECK(!strcmp(a.c[0].label, "unexplained: hypervisor, SMI or hardware"));
	CHECK(!strcmp(a.c[1].label, "irq 8 dev8"));
	CHECK(!strcmp(a.c[XCAUSE_MAX - 1].label, "other"));
}

/* A spinning SCHED_FIFO loop preempted while runnable by a SCHED_OTHER
 * task: only RT throttling does that. */
UNIT_TEST(explain_names_rt_throttling)
{
	static const char *const t[] = {
		"  bt-7  [001] d..2.  9.000100: sched_switch: prev_comm=bt prev_pid=7 prev_prio=4 prev_state=R ==> next_comm=kworker next_pid=50 next_prio=120",
		"  kworker-50 [001] d..2.  9.000300: sched_switch: prev_comm=kworker prev_pid=50 prev_prio=120 prev_state=S ==> next_comm=swapper/1 next_pid=0 next_prio=120",
		"  <idle>-0  [001] d..2.  9.050100: sched_switch: prev_comm=swapper/1 prev_pid=0 prev_prio=120 prev_state=R ==> next_comm=bt next_pid=7 next_prio=4",
	};
	struct xev ev[3];
	struct xwin w = { .cpu = 1, .sampler = 7, .exp = 9000090000LL,
			  .act = 9050105000LL, .running = true };
	struct xattr a;

	xattr_window(ev, parse_lines(t, 3, ev), &w, &a);
	CHECK(ev[0].preempted && ev[0].prev_pid == 7);
	CHECK(!ev[1].preempted);
	CHECK(!strcmp(a.c[0].label, "RT throttling (sched_rt_runtime_us)"));
	CHECK_EQ_LL(a.c[0].kind, XC_THROTTLE);
	CHECK_EQ_LL(a.c[0].ns, 50000000);
	/* The loop ran before the switch and after it: no event, so not
	 * its own (a few ns a read) but time taken from the CPU. */
	CHECK(!strcmp(a.c[1].label, "unexplained: hypervisor, SMI or hardware"));
	CHECK_EQ_LL(a.c[1].ns, 10000);
	CHECK_EQ_LL(a.n, 3);	/* and the wake-up's return */
}

/* A spinning loop whose switch-in is older than the look-back still
 * counts as running; an interrupt in its gap is named. */
UNIT_TEST(explain_spinning_loop_interrupted)
{
	static const char *const t[] = {
		"  bt-7  [001] d.h1.  9.000010: irq_handler_entry: irq=5 name=eth0",
		"  bt-7  [001] d.h1.  9.000030: irq_handler_exit: irq=5 ret=handled",
	};
	struct xev ev[2];
	struct xwin w = { .cpu = 1, .sampler = 7, .exp = 9000009000LL,
			  .act = 9000031000LL, .running = true };
	struct xattr a;

	xattr_window(ev, parse_lines(t, 2, ev), &w, &a);
	CHECK(!strcmp(a.c[0].label, "irq 5 eth0"));
	CHECK_EQ_LL(a.c[0].ns, 20000);
	CHECK(!strcmp(a.c[1].label, "unexplained: hypervisor, SMI or hardware"));
	CHECK_EQ_LL(a.c[1].ns, 2000);
}

/* A pair's receiver: idle before its wake-up is the sender's side; a
 * task that ran then is named as a task, not a late interrupt. */
UNIT_TEST(explain_remote_side_and_tasks)
{
	static const char *const t[] = {
		"  <idle>-0  [001] d..2.  3.000000: sched_switch: prev_comm=rx prev_pid=9 prev_prio=19 prev_state=S ==> next_comm=swapper/1 next_pid=0 next_prio=120",
		"  <idle>-0  [001] d..2.  3.000020: sched_switch: prev_comm=swapper/1 prev_pid=0 prev_prio=120 prev_state=R ==> next_comm=cc next_pid=40 next_prio=120",
		"  cc-40     [001] d..2.  3.000050: sched_wakeup: comm=rx pid=9 prio=19 target_cpu=001",
		"  cc-40     [001] d..2.  3.000060: sched_switch: prev_comm=cc prev_pid=40 prev_prio=120 prev_state=R ==> next_comm=rx next_pid=9 next_prio=19",
	};
	struct xev ev[4];
	struct xwin w = { .cpu = 1, .sampler = 9, .exp = 3000010000LL,
			  .act = 3000065000LL, .remote = "the sender's side" };
	const struct xcause *c;
	struct xattr a;

	xattr_window(ev, parse_lines(t, 4, ev), &w, &a);
	/* 30 us before the wake-up, 10 after it, when it kept the CPU. */
	CHECK(!strcmp(a.c[0].label, "task cc[40] nice 0"));
	CHECK_EQ_LL(a.c[0].ns, 30000);
	c = find(&a, "task cc[40] nice 0, not preempted (kernel section or RT throttling)");
	CHECK(c && c->ns == 10000 && c->kind == XC_TASK);
	c = find(&a, "the sender's side");
	CHECK(c && c->ns == 10000 && c->kind == XC_REMOTE);
	c = find(&a, "wake-up: switch-in and return to the sampler");
	CHECK(c && c->ns == 5000);
}

/* The binary buffers: formats as tracefs writes them, a page built by
 * hand in the ring buffer's layout (events/header_event). */
static const char header_page[] =
	"\tfield: u64 timestamp;\toffset:0;\tsize:8;\tsigned:0;\n"
	"\tfield: local_t commit;\toffset:8;\tsize:8;\tsigned:1;\n"
	"\tfield: int overwrite;\toffset:8;\tsize:1;\tsigned:1;\n"
	"\tfield: char data;\toffset:16;\tsize:4080;\tsigned:0;\n";

static const char switch_format[] =
	"name: sched_switch\nID: 372\nformat:\n"
	"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
	"\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"
	"\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"
	"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n"
	"\tfield:char prev_comm[16];\toffset:8;\tsize:16;\tsigned:0;\n"
	"\tfield:pid_t prev_pid;\toffset:24;\tsize:4;\tsigned:1;\n"
	"\tfield:int prev_prio;\toffset:28;\tsize:4;\tsigned:1;\n"
	"\tfield:long prev_state;\toffset:32;\tsize:8;\tsigned:1;\n"
	"\tfield:char next_comm[16];\toffset:40;\tsize:16;\tsigned:0;\n"
	"\tfield:pid_t next_pid;\toffset:56;\tsize:4;\tsigned:1;\n"
	"\tfield:int next_prio;\toffset:60;\tsize:4;\tsigned:1;\n\n"
	"print fmt: \"prev_comm=%s ...\"\n";

static const char irq_format[] =
	"name: irq_handler_entry\nID: 225\nformat:\n"
	"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
	"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n"
	"\tfield:int irq;\toffset:8;\tsize:4;\tsigned:1;\n"
	"\tfield:__data_loc char[] name;\toffset:12;\tsize:4;\tsigned:0;\n";

static const char softirq_format[] =
	"name: softirq_entry\nID: 223\nformat:\n"
	"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
	"\tfield:unsigned int vec;\toffset:8;\tsize:4;\tsigned:0;\n";

static size_t put32(uint8_t *p, uint32_t v)
{
	memcpy(p, &v, 4);
	return 4;
}

static size_t header(uint8_t *p, uint32_t type_len, uint32_t delta)
{
	return put32(p, type_len | delta << 5);
}

UNIT_TEST(explain_reads_formats_and_the_page_header)
{
	struct xraw r;

	CHECK(!xraw_header(&r, header_page));
	CHECK_EQ_LL(r.ts_off, 0);
	CHECK_EQ_LL(r.commit_off, 8);
	CHECK_EQ_LL(r.commit_size, 8);
	CHECK_EQ_LL(r.data_off, 16);
	CHECK(!xraw_format(&r.ev[0], XEV_SWITCH, NULL, switch_format));
	CHECK_EQ_LL(r.ev[0].id, 372);
	CHECK_EQ_LL(r.ev[0].prev_pid.off, 24);
	CHECK_EQ_LL(r.ev[0].prev_state.size, 8);
	CHECK_EQ_LL(r.ev[0].comm.off, 40);
	CHECK_EQ_LL(r.ev[0].comm.size, 16);
	CHECK_EQ_LL(r.ev[0].pid.off, 56);
	CHECK_EQ_LL(r.ev[0].prio.off, 60);
	CHECK(!xraw_format(&r.ev[1], XEV_IRQ_ENTRY, NULL, irq_format));
	CHECK_EQ_LL(r.ev[1].num.off, 8);
	CHECK_EQ_LL(r.ev[1].name.off, 12);
	CHECK(xraw_format(&r.ev[2], XEV_SWITCH, NULL, "name: x\nformat:\n") < 0);
	CHECK(xraw_header(&r, "nothing") < 0);
}

static size_t put_switch(uint8_t *p, uint32_t delta, int prev, int64_t state, int next, int prio)
{
	uint8_t d[64] = { 0 };
	uint16_t id = 372;

	memcpy(d, &id, 2);
	memcpy(d + 24, &prev, 4);
	memcpy(d + 32, &state, 8);
	memcpy(d + 40, "hog", 3);
	memcpy(d + 56, &next, 4);
	memcpy(d + 60, &prio, 4);
	header(p, 16, delta);		/* 16 words of data */
	memcpy(p + 4, d, 64);
	return 68;
}

/* irq_handler_entry with its name after the fields, a long record:
 * type_len 0, the length in array[0]. */
static size_t put_irq(uint8_t *p, uint32_t delta)
{
	uint8_t d[24] = { 0 };
	uint16_t id = 225;
	int irq = 24;
	uint32_t loc = 16 | 8 << 16;	/* "virtio0" and its NUL at 16 */

	memcpy(d, &id, 2);
	memcpy(d + 8, &irq, 4);
	memcpy(d + 12, &loc, 4);
	memcpy(d + 16, "virtio0", 8);
	header(p, 0, delta);
	put32(p + 4, sizeof(d) + 4);
	memcpy(p + 8, d, sizeof(d));
	return 8 + sizeof(d);
}

UNIT_TEST(explain_decodes_a_binary_page)
{
	static uint8_t pg[4096];
	struct xraw r;
	struct xev ev[8];
	uint64_t ts = 5000000000ULL, commit, lost = 0;
	size_t at = 16;
	int n;

	CHECK(!xraw_header(&r, header_page));
	r.n = 3;
	CHECK(!xraw_format(&r.ev[0], XEV_SWITCH, NULL, switch_format));
	CHECK(!xraw_format(&r.ev[1], XEV_IRQ_ENTRY, NULL, irq_format));
	CHECK(!xraw_format(&r.ev[2], XEV_SOFTIRQ_ENTRY, NULL, softirq_format));
	memset(pg, 0, sizeof(pg));
	memcpy(pg, &ts, 8);
	at += put_switch(pg + at, 100, 7, 0, 0, 120);		/* preempted: R */
	at += header(pg + at, 30, 5);				/* extend: 2^27 + 5 */
	at += put32(pg + at, 1);
	at += put_irq(pg + at, 10);
	at += header(pg + at, 29, 3);		/* a discarded event, 16 bytes */
	at += put32(pg + at, 12);		/* its length after the header */
	at += 8;
	at += put_switch(pg + at, 7, 200, 1, 7, 4);		/* slept: S */
	at += header(pg + at, 3, 1);				/* an event we skip */
	at += 12;
	commit = at - 16;
	memcpy(pg + 8, &commit, 8);
	n = xraw_page(&r, pg, sizeof(pg), 3, ev, 8, &lost);
	CHECK_EQ_LL(n, 3);
	CHECK_EQ_LL(ev[0].type, XEV_SWITCH);
	CHECK_EQ_LL(ev[0].ts, 5000000100LL);
	CHECK_EQ_LL(ev[0].cpu, 3);
	CHECK(ev[0].preempted && ev[0].prev_pid == 7 && ev[0].pid == 0 && ev[0].prio == 120);
	CHECK(!strcmp(ev[0].name, "hog"));
	CHECK_EQ_LL(ev[1].type, XEV_IRQ_ENTRY);
	CHECK_EQ_LL(ev[1].ts, 5000000100LL + (1LL << 27) + 5 + 10);
	CHECK_EQ_LL(ev[1].num, 24);
	CHECK(!strcmp(ev[1].name, "virtio0"));
	CHECK_EQ_LL(ev[2].ts, ev[1].ts + 3 + 7);
	CHECK(!ev[2].preempted && ev[2].pid == 7 && ev[2].prio == 4);
	CHECK_EQ_LL(lost, 0);
	/* Lost events before the page are flagged in the commit word. */
	commit |= 1ULL << 31;
	memcpy(pg + 8, &commit, 8);
	CHECK_EQ_LL(xraw_page(&r, pg, sizeof(pg), 3, ev, 8, &lost), 3);
	CHECK_EQ_LL(lost, 1);
	/* A short read is cut at its length, never past it. */
	CHECK_EQ_LL(xraw_page(&r, pg, 16 + 68 + 4, 3, ev, 8, &lost), 1);
}
