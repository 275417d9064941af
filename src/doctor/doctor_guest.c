// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * doctor_guest.c - rtlat doctor in a virtual machine: steal time during a
 * short window (not only since boot), the guest's clocksource, whether
 * its idle polls, its preemption model; the fixes are the host owner's
 * (vCPU pinning, halt-polling, an RT host kernel) or the guest's boot
 * options. Outside a VM each says so and is ok.
 */
#include <string.h>
#include <time.h>
#include "system/context.h"
#include "system/preflight.h"
#include "system/sysinfo.h"
#include "doctor/doctor_context.h"

/* How long the doctor watches steal time in a guest. */
#define STEAL_WINDOW_NS 250000000L

#define HOST_PINNING "on the host: pin each vCPU to its own host CPU (libvirt <vcpupin>, taskset of the vCPU threads), no overcommit, those CPUs isolated there"

static void check_steal(struct pf_item *it, const struct context *c)
{
	struct timespec ts = { 0, STEAL_WINDOW_NS };
	struct ctx_snap after;
	double boot = ctx_steal_pct(&c->snap, NULL), during;

	if (!c->vm) {
		pf_set(it, V_OK, "", "not a VM: no steal time");
		return;
	}
	nanosleep(&ts, NULL);
	context_snap(&after);
	during = ctx_steal_pct(&c->snap, &after);
	if (during > 0 || boot >= 1)
		pf_set(it, V_LATENCY, HOST_PINNING,
		       "steal %.2f%% of CPU time during %ld ms, %.2f%% since boot: the host ran something else on this guest's vCPUs",
		       during, STEAL_WINDOW_NS / 1000000, boot);
	else
		pf_set(it, V_OK, "", "steal %.2f%% during %ld ms, %.2f%% since boot",
		       during < 0 ? 0 : during, STEAL_WINDOW_NS / 1000000, boot < 0 ? 0 : boot);
}

static void check_guest_clock(struct pf_item *it, const struct context *c)
{
	const char *cs = c->clocksource;

	if (!c->vm)
		pf_set(it, V_OK, "", "not a VM (clocksource %s)", cs[0] ? cs : "unknown");
	else if (!strcmp(cs, "tsc") || !strcmp(cs, "kvm-clock") || !strcmp(cs, "arch_sys_counter") ||
		 !strncmp(cs, "hyperv_clocksource_tsc", 22) || !strcmp(cs, "xen") ||
		 !strcmp(cs, "riscv_clocksource"))
		pf_set(it, V_OK, "", "%s: read in the guest without an exit to the hypervisor%s", cs,
		       strcmp(cs, "tsc") ? " (tsc, where the host gives an invariant TSC, is cheaper still)" : "");
	else
		pf_set(it, V_LATENCY,
		       "on the host: give the guest an invariant TSC (QEMU -cpu host,+invtsc; libvirt <feature policy='require' name='invtsc'/>); in the guest: tsc=reliable or clocksource=kvm-clock",
		       "clocksource '%s' in a VM: each clock read may exit to the hypervisor",
		       cs[0] ? cs : "unknown");
}

static void check_guest_idle(struct pf_item *it, const struct context *c)
{
	if (!c->vm)
		pf_set(it, V_OK, "", "not a VM (cpuidle driver %s)",
		       c->idle_driver[0] ? c->idle_driver : "none");
	else if (c->idle_poll)
		pf_set(it, V_OK, "", "guest idle polls (%s): a wake-up needs no VM entry", c->idle_how);
	else
		pf_set(it, V_LATENCY,
		       "in the guest: boot with idle=poll, or load cpuidle-haltpoll (guest_halt_poll_ns); on the host: KVM halt-polling (halt_poll_ns), vCPUs pinned",
		       "guest idle halts (cpuidle driver %s): each wake-up of an idle vCPU goes through the host, which may have idled the CPU",
		       c->idle_driver[0] ? c->idle_driver : "none");
}

static void check_guest_preempt(struct pf_item *it, const struct context *c)
{
	const char *m = sysinfo_preempt_model();

	if (!c->vm)
		pf_set(it, V_OK, "", "not a VM (%s)", m);
	else if (!strcmp(m, "PREEMPT_RT"))
		pf_set(it, V_OK, "", "guest %s; the host's kernel cannot be seen from here: it needs PREEMPT_RT too, with the vCPU threads SCHED_FIFO",
		       m);
	else
		pf_set(it, V_LATENCY,
		       "a PREEMPT_RT guest kernel, and on the host a PREEMPT_RT kernel running the vCPU threads SCHED_FIFO on isolated CPUs",
		       "guest %s: neither the guest nor (as far as can be seen) the host preempts for a real-time task",
		       m);
}

static const struct {
	const char *key, *title;
	void (*fn)(struct pf_item *, const struct context *);
} guest_checks[DOCTOR_GUEST_NITEMS] = {
	{ "steal", "steal time (VM)", check_steal },
	{ "guest_clocksource", "guest clocksource", check_guest_clock },
	{ "guest_idle", "guest idle (polling)", check_guest_idle },
	{ "guest_preemption", "guest and host preemption", check_guest_preempt },
};

void doctor_guest_checks(struct pf_item *items, const struct context *c)
{
	int i;

	for (i = 0; i < DOCTOR_GUEST_NITEMS; i++) {
		memset(&items[i], 0, sizeof(items[i]));
		items[i].key = guest_checks[i].key;
		items[i].title = guest_checks[i].title;
		guest_checks[i].fn(&items[i], c);
	}
}
