// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * preflight.c - the doctor's checks. Each reads what the kernel exposes,
 * never changes it, and says ok / will add latency / prevents real-time
 * with the fix.
 */
#include <errno.h>
#include <fcntl.h>
#include <glob.h>
#include <pthread.h>
#include <sched.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>
#include "system/context.h"
#include "util/json.h"
#include "system/preflight.h"
#include "system/sysinfo.h"
#include "system/tracefs.h"

const char *const verdict_names[] = {
	"ok", "will add latency", "prevents real-time",
};

void pf_set(struct pf_item *it, enum verdict v, const char *fix,
		const char *fmt, ...)
{
	va_list ap;

	it->verdict = v;
	va_start(ap, fmt);
	vsnprintf(it->detail, sizeof(it->detail), fmt, ap);
	va_end(ap);
	snprintf(it->fix, sizeof(it->fix), "%s", v == V_OK ? "" : fix);
}

static void check_throttling(struct pf_item *it)
{
	long long rt = sysinfo_read_ll("/proc/sys/kernel/sched_rt_runtime_us");
	long long period = sysinfo_read_ll("/proc/sys/kernel/sched_rt_period_us");

	if (rt < 0)
		pf_set(it, V_OK, "", "disabled (sched_rt_runtime_us = -1)");
	else
		pf_set(it, V_LATENCY, "sysctl -w kernel.sched_rt_runtime_us=-1",
		    "RT tasks are stopped after %lld us of every %lld us (a busy RT task stalls up to %lld us)",
		    rt, period, period - rt);
}

/* The true test: can a child of ours become SCHED_FIFO (capabilities,
 * RLIMIT_RTPRIO and an RT group budget all decide it)? Through
 * pthread_setschedparam, as the tests do: musl's sched_setscheduler is a
 * stub that always fails with ENOSYS (the static build, the image). */
static int fifo_errno(void)
{
	struct sched_param sp = { .sched_priority = 1 };
	int st;
	pid_t pid = fork();

	if (pid < 0)
		return errno;
	if (pid == 0)
		_exit(pthread_setschedparam(pthread_self(), SCHED_FIFO, &sp) & 0x7f);
	if (waitpid(pid, &st, 0) != pid || !WIFEXITED(st))
		return EIO;
	return WEXITSTATUS(st);
}

static void check_rtprio(struct pf_item *it)
{
	struct rlimit rl = { 0, 0 };
	int err = fifo_errno();

	getrlimit(RLIMIT_RTPRIO, &rl);
	if (!err)
		pf_set(it, V_OK, "", "SCHED_FIFO allowed (%s, RLIMIT_RTPRIO %lld)",
		    geteuid() ? "unprivileged" : "root",
		    rl.rlim_cur == RLIM_INFINITY ? -1LL : (long long)rl.rlim_cur);
	else
		pf_set(it, V_PREVENTS,
		    "setcap cap_sys_nice+ep $(command -v rtlat), or 'ulimit -r 99' (limits.conf: @realtime - rtprio 99); in a container: --cap-add=SYS_NICE --ulimit rtprio=99",
		    "SCHED_FIFO refused: %s (RLIMIT_RTPRIO %lld, euid %d)", strerror(err),
		    rl.rlim_cur == RLIM_INFINITY ? -1LL : (long long)rl.rlim_cur,
		    (int)geteuid());
}

/* The cgroup v1 RT budget of this process's cpu cgroup (context.c finds
 * it, at the path /proc/self/cgroup names or, in a container, at the
 * mount's root). */
static void check_cgroup(struct pf_item *it)
{
	struct context c;

	context_read(&c);
	if (c.rt_runtime_us < 0)
		pf_set(it, V_OK, "", "no RT group budget applies (no CONFIG_RT_GROUP_SCHED limit on this cgroup)");
	else if (c.rt_runtime_us == 0)
		pf_set(it, V_PREVENTS, c.container ?
		       "podman/docker run --cpu-rt-runtime=900000, the parent's budget given first on the host (podman: echo 950000 > /sys/fs/cgroup/cpu/libpod_parent/cpu.rt_runtime_us; docker: dockerd --cpu-rt-runtime=950000)" :
		       "echo 950000 > cpu.rt_runtime_us of the cgroup (and its parents), or run from the root cpu cgroup",
		       "%s/cpu.rt_runtime_us is 0: SCHED_FIFO fails with EPERM", c.cpu_dir);
	else
		pf_set(it, V_OK, "", "%s/cpu.rt_runtime_us = %lld", c.cpu_dir, c.rt_runtime_us);
}

/* The deepest enabled idle state of cpu0: its name and exit latency. */
static long long deepest_idle(char *name, size_t len)
{
	char path[128], buf[64];
	long long lat, worst = -1;
	glob_t g;
	size_t i;

	name[0] = '\0';
	if (glob("/sys/devices/system/cpu/cpu0/cpuidle/state*", 0, NULL, &g))
		return -1;
	for (i = 0; i < g.gl_pathc; i++) {
		snprintf(path, sizeof(path), "%s/disable", g.gl_pathv[i]);
		if (sysinfo_read_ll(path) == 1)
			continue;
		snprintf(path, sizeof(path), "%s/latency", g.gl_pathv[i]);
		lat = sysinfo_read_ll(path);
		if (lat <= worst)
			continue;
		worst = lat;
		snprintf(path, sizeof(path), "%s/name", g.gl_pathv[i]);
		snprintf(name, len, "%s", sysinfo_read_line(path, buf, sizeof(buf)));
	}
	globfree(&g);
	return worst;
}

static void check_idle(struct pf_item *it)
{
	char name[64];
	long long lat = deepest_idle(name, sizeof(name));
	int fd = open("/dev/cpu_dma_latency", O_RDWR | O_CLOEXEC);
	const char *dma = fd >= 0 ? "rtlat holds /dev/cpu_dma_latency at 0 while it measures" :
		"/dev/cpu_dma_latency cannot be opened";

	if (fd >= 0)
		close(fd);
	if (lat <= 10 || fd >= 0)
		pf_set(it, V_OK, "", "%s%s%s; %s", lat < 0 ? "no cpuidle states" : "deepest idle state ",
		    lat < 0 ? "" : name, lat < 0 ? "" : " exit latency", dma);
	else
		pf_set(it, V_LATENCY, "run as root (rtlat then holds /dev/cpu_dma_latency at 0), or boot with processor.max_cstate=1 intel_idle.max_cstate=0, or cpupower idle-set -D 10",
		    "deepest idle state %s: up to %lld us to wake; %s", name, lat, dma);
}

static void check_isolation(struct pf_item *it)
{
	char iso[128], nohz[128];

	sysinfo_read_line("/sys/devices/system/cpu/isolated", iso, sizeof(iso));
	sysinfo_read_line("/sys/devices/system/cpu/nohz_full", nohz, sizeof(nohz));
	if (nohz[0] == '(')	/* "(null)" */
		nohz[0] = '\0';
	if (iso[0] && nohz[0])
		pf_set(it, V_OK, "", "isolated %s, nohz_full %s", iso, nohz);
	else
		pf_set(it, V_LATENCY, "boot with isolcpus=managed_irq,domain,N nohz_full=N rcu_nocbs=N and measure on CPU N (-c N)",
		    "isolated CPUs: %s, nohz_full: %s (the scheduler tick and other tasks share the measuring CPU)",
		    iso[0] ? iso : "none", nohz[0] ? nohz : "none");
}

static void check_clocksource(struct pf_item *it)
{
	char cs[64];

	sysinfo_read_line("/sys/devices/system/clocksource/clocksource0/current_clocksource",
			  cs, sizeof(cs));
	if (!strcmp(cs, "tsc") || !strcmp(cs, "arch_sys_counter") || !strcmp(cs, "kvm-clock") ||
	    !strcmp(cs, "riscv_clocksource"))
		pf_set(it, V_OK, "", "%s", cs);
	else if (!strcmp(cs, "jiffies") || !cs[0])
		pf_set(it, V_PREVENTS, "boot with tsc=reliable (or clocksource=tsc) on a CPU with an invariant TSC",
		    "clocksource '%s': no high-resolution time", cs[0] ? cs : "unknown");
	else
		pf_set(it, V_LATENCY, "echo tsc > /sys/devices/system/clocksource/clocksource0/current_clocksource (boot: tsc=reliable)",
		    "clocksource '%s' (the TSC was found unstable or is absent): each clock read is a slow device access", cs);
}

static void check_smt(struct pf_item *it)
{
	long long on = sysinfo_read_ll("/sys/devices/system/cpu/smt/active");

	if (on == 1)
		pf_set(it, V_LATENCY, "echo off > /sys/devices/system/cpu/smt/control (boot: nosmt)",
		    "SMT active: a sibling thread shares the measuring core's pipeline");
	else
		pf_set(it, V_OK, "", "%s", on == 0 ? "SMT off" : "no SMT control (none)");
}

static void check_hypervisor(struct pf_item *it)
{
	struct context c;

	context_read(&c);
	if (c.vm)
		pf_set(it, V_LATENCY, "pin the VM's vCPUs to dedicated host CPUs (no overcommit), or measure on bare metal",
		       "running under a hypervisor (%s: %s); steal time %.2f%% since boot (the host can stop a vCPU at any time)",
		       c.hypervisor, c.hv_evidence, ctx_steal_pct(&c.snap, NULL) < 0 ? 0 : ctx_steal_pct(&c.snap, NULL));
	else
		pf_set(it, V_OK, "", "bare metal (no hypervisor seen: CPUID, DMI, /proc/cpuinfo)");
}

static void check_preempt(struct pf_item *it)
{
	const char *m = sysinfo_preempt_model();

	if (!strcmp(m, "PREEMPT_RT"))
		pf_set(it, V_OK, "", "%s", m);
	else
		pf_set(it, V_LATENCY, "boot a PREEMPT_RT kernel (on PREEMPT_DYNAMIC at least preempt=full)",
		    "%s: interrupt handlers and spinlock sections are not preemptible", m);
}

/* Not a source of latency: whether --explain and timer -t 1|2 can run.
 * Reads only; rtlat doctor mounts tracefs first where it can. */
static void check_tracing(struct pf_item *it)
{
	const char *d = tracefs_dir();

	if (!d) {
		pf_set(it, V_OK, "", "tracefs not available (as root rtlat mounts it): --explain and timer -t 1|2 cannot run");
		return;
	}
	pf_set(it, V_OK, "", "tracefs at %s; timerlat tracer %s", d,
	    tracefs_has_tracer("timerlat") ? "present" : "absent (timer -t 1|2 need CONFIG_TIMERLAT_TRACER)");
}

static const struct {
	const char *key, *title;
	void (*fn)(struct pf_item *);
} checks[PF_NITEMS] = {
	{ "rt_throttling", "RT throttling", check_throttling },
	{ "cgroup_rt_budget", "cgroup RT budget", check_cgroup },
	{ "rtprio", "RLIMIT_RTPRIO / capabilities", check_rtprio },
	{ "idle_states", "idle states, cpu_dma_latency", check_idle },
	{ "isolation", "isolcpus / nohz_full", check_isolation },
	{ "clocksource", "clocksource", check_clocksource },
	{ "smt", "SMT siblings", check_smt },
	{ "hypervisor", "hypervisor steal", check_hypervisor },
	{ "preemption", "preemption model", check_preempt },
	{ "tracing", "tracing (--explain, timerlat)", check_tracing },
};

enum verdict preflight_run(struct pf_item *items)
{
	enum verdict worst = V_OK;
	int i;

	for (i = 0; i < PF_NITEMS; i++) {
		memset(&items[i], 0, sizeof(items[i]));
		items[i].key = checks[i].key;
		items[i].title = checks[i].title;
		checks[i].fn(&items[i]);
		if (items[i].verdict > worst)
			worst = items[i].verdict;
	}
	return worst;
}

void preflight_print(FILE *f, const struct pf_item *items)
{
	preflight_print_n(f, items, PF_NITEMS);
}

void preflight_print_n(FILE *f, const struct pf_item *items, int n)
{
	int i;

	for (i = 0; i < n; i++) {
		fprintf(f, "%-30s %s: %s\n", items[i].title,
			verdict_names[items[i].verdict], items[i].detail);
		if (items[i].fix[0])
			fprintf(f, "%-30s   fix: %s\n", "", items[i].fix);
	}
}

void preflight_json(struct json *j, const char *key, const struct pf_item *items)
{
	preflight_json_n(j, key, items, PF_NITEMS);
}

void preflight_json_n(struct json *j, const char *key, const struct pf_item *items, int n)
{
	int i;

	json_arr_open(j, key);
	for (i = 0; i < n; i++) {
		json_obj_open(j, NULL);
		json_str(j, "check", items[i].key);
		json_str(j, "title", items[i].title);
		json_str(j, "verdict", verdict_names[items[i].verdict]);
		json_str(j, "detail", items[i].detail);
		if (items[i].fix[0])
			json_str(j, "fix", items[i].fix);
		else
			json_null(j, "fix");
		json_obj_close(j);
	}
	json_arr_close(j);
}

void preflight_json_short(struct json *j, const char *key)
{
	struct pf_item items[PF_NITEMS];
	enum verdict worst = preflight_run(items);
	int i;

	json_obj_open(j, key);
	json_str(j, "verdict", verdict_names[worst]);
	json_obj_open(j, "checks");
	for (i = 0; i < PF_NITEMS; i++)
		json_str(j, items[i].key, verdict_names[items[i].verdict]);
	json_obj_close(j);
	json_obj_close(j);
}

void preflight_print_short(FILE *f, const char *prog)
{
	struct pf_item items[PF_NITEMS];
	enum verdict worst = preflight_run(items);
	char list[512] = "";
	size_t at = 0;
	int i;

	if (worst == V_OK)
		return;
	for (i = 0; i < PF_NITEMS && at < sizeof(list); i++)
		if (items[i].verdict == worst)
			at += (size_t)snprintf(list + at, sizeof(list) - at, "%s%s",
					       at ? ", " : "", items[i].title);
	fprintf(f, "%s: doctor: %s (%s); rtlat doctor gives the figures and the fixes\n",
		prog, verdict_names[worst], list);
}
