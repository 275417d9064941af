// SPDX-License-Identifier: GPL-2.0-or-later
/* test_explain.c - trace text parsing and spike attribution (--explain). */
#include <stdio.h>
#include <string.h>
#include "explain.h"
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

	xattr_window(ev, n, 0, 100, exp, act, &a);
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

UNIT_TEST(explain_empty_window_is_unexplained)
{
	struct xattr a;

	xattr_window(NULL, 0, 0, 100, 1000, 51000, &a);
	CHECK_EQ_LL(a.n, 1);
	CHECK_EQ_LL(a.c[0].kind, XC_UNEXPLAINED);
	CHECK_EQ_LL(a.c[0].ns, 50000);
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
	struct xattr a;
	int i;

	for (i = 0; i < 3; i++)
		CHECK(!xev_parse(t[i], &ev[i]));
	xattr_window(ev, 3, 2, 5, 7000005000LL, 7000070000LL, &a);
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
	xattr_window(ev, n, 0, 1, 1000000000LL, 1000200000LL, &a);
	CHECK_EQ_LL(a.n, XCAUSE_MAX);
	for (i = 0; i < a.n; i++)
		sum += a.c[i].ns;
	CHECK_EQ_LL(sum, 200000);
	CHECK(!strcmp(a.c[0].label, "unexplained: hypervisor, SMI or hardware"));
	CHECK(!strcmp(a.c[1].label, "irq 8 dev8"));
	CHECK(!strcmp(a.c[XCAUSE_MAX - 1].label, "other"));
}
