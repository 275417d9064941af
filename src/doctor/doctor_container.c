// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * doctor_container.c - rtlat doctor in a container: where it runs, the
 * cpuset against the CPUs a test asks for, a CPU quota and its
 * throttling, capabilities, RLIMIT_RTPRIO/RLIMIT_MEMLOCK, the devices a
 * run uses. Each fix is given as podman/docker options, a pod spec, or
 * the host's own command, after where the doctor found itself.
 */
#include <stdio.h>
#include <string.h>
#include "system/context.h"
#include "system/preflight.h"
#include "doctor/doctor_context.h"

const char *doctor_fix(const struct context *c, const char *engine_opts,
		       const char *pod_spec, const char *host)
{
	if (!c->container)
		return host;
	if (!strcmp(c->engine, "kubernetes") || !strcmp(c->engine, "cri-o") ||
	    !strcmp(c->engine, "containerd"))
		return pod_spec;
	return engine_opts;
}

static void check_where(struct pf_item *it, const struct context *c,
			const struct doctor_want *w)
{
	(void)w;
	pf_set(it, V_OK, "", "%s%s%s%s%s%s%s%s, cgroup %s", c->kind,
	       c->container ? " (" : "", c->container ? c->engine : "",
	       c->container ? ": " : "", c->container ? c->evidence : "",
	       c->vm ? "; hypervisor " : "", c->vm ? c->hypervisor : "",
	       c->container ? ")" : "",
	       c->cgroup == 2 ? "v2" : c->cgroup == 1 ? "v1" : "unknown");
}

/* Exclusive as far as can be seen: the cgroup says so, or every CPU of
 * the cpuset is one the host isolates. */
static const char *exclusive_how(const struct context *c, char *buf, size_t len)
{
	char iso[256];
	int cpus[CTX_TEXT], n, miss;

	if (c->exclusive[0])
		return c->exclusive;
	ctx_read_line("/sys/devices/system/cpu/isolated", iso, sizeof(iso));
	n = ctx_cpus_parse(c->cpuset, cpus, CTX_TEXT);
	if (!iso[0] || n <= 0 || ctx_cpus_within(iso, cpus, n, &miss) != 1)
		return NULL;
	snprintf(buf, len, "isolated by the host (isolcpus %.60s)", iso);
	return buf;
}

static void check_cpuset(struct pf_item *it, const struct context *c,
			 const struct doctor_want *w)
{
	char online[256], buf[128];
	const char *how;
	int miss = -1;

	if (!c->cpuset[0]) {
		pf_set(it, V_OK, "", "no cpuset read (no cpuset controller seen)");
		return;
	}
	if (w->n > 0 && ctx_cpus_within(c->cpuset, w->cpus, w->n, &miss) == 0) {
		pf_set(it, V_PREVENTS, doctor_fix(c,
		       "podman run (or docker run) --cpuset-cpus LIST naming the CPUs the test measures on",
		       "a guaranteed pod (requests = limits, whole CPUs) gets CPUs of its own from the static CPU manager: measure on those (the cpuset shown), not on fixed numbers",
		       "taskset -c, or the cgroup's cpuset (systemd AllowedCPUs=): give this process the CPUs the test measures on"),
		       "CPU %d asked for is not in the cpuset %s (%s): pinning to it fails", miss,
		       c->cpuset, c->cpuset_file);
		return;
	}
	how = exclusive_how(c, buf, sizeof(buf));
	ctx_read_line("/sys/devices/system/cpu/online", online, sizeof(online));
	if (how)
		pf_set(it, V_OK, "", "cpuset %s, exclusive (%s)", c->cpuset, how);
	else if (!c->container && !strcmp(online, c->cpuset))
		pf_set(it, V_OK, "", "cpuset %s: every online CPU (no cpuset limit)", c->cpuset);
	else
		pf_set(it, V_LATENCY, doctor_fix(c,
		       "podman run --cpuset-cpus N on CPUs the host isolates (isolcpus=, or a cgroup v2 isolated partition) and gives no other container",
		       "guaranteed QoS (requests = limits, whole CPUs) under the kubelet's static CPU manager policy (reservedSystemCPUs for the rest), as a performance profile sets up",
		       "an exclusive cpuset (cgroup v2: cpuset.cpus.partition = isolated; v1: cpuset.cpu_exclusive = 1 with no other cgroup on those CPUs) or isolcpus= on those CPUs"),
		       "cpuset %s (of %s online) not exclusive%s%s%s",
		       c->cpuset, online, c->cpuset_shared[0] ? ": " : "",
		       c->cpuset_shared[0] ? c->cpuset_shared : c->cpuset_root ?
		       ": the root cpuset, every cgroup's CPUs" :
		       " as far as can be seen: other cgroups may run there",
		       c->cpuset_shared[0] ? " runs there too" : "");
}

static void check_quota(struct pf_item *it, const struct context *c,
			const struct doctor_want *w)
{
	const struct ctx_snap *s = &c->snap;
	char fix[PF_TEXT];

	(void)w;
	if (c->quota_us < 0) {
		pf_set(it, V_OK, "", "no CPU quota (%s)", c->cgroup == 2 ?
		       "cpu.max is max here and in every parent" : c->cgroup == 1 ?
		       "cpu.cfs_quota_us is -1 here and in every parent" : "no cpu controller seen");
		return;
	}
	/* The cgroup that sets it: a parent's (a systemd slice's CPUQuota=,
	 * podman --cgroup-parent) holds the process whatever its own. */
	snprintf(fix, sizeof(fix), "%s; the quota is %.100s's: %s %.100s/%s",
		 doctor_fix(c, "run without --cpus / --cpu-quota, under a --cgroup-parent without a quota (podman run --cpuset-cpus N gives whole CPUs without a quota)",
			    "annotation cpu-quota.crio.io: \"disable\" with runtimeClassName: performance-<profile> on a guaranteed pod with whole CPUs (or the kubelet's cpuCFSQuota: false)",
			    "remove the quota (systemd: CPUQuota= empty on the unit or slice)"),
		 c->quota_dir, c->cgroup == 2 ? "echo max >" : "echo -1 >", c->quota_dir,
		 c->cgroup == 2 ? "cpu.max" : "cpu.cfs_quota_us");
	pf_set(it, V_LATENCY, fix,
	       "CPU quota %lld us of every %lld us (%.2f CPUs) set by %s: a thread that used its share waits for the next period; throttled in %lld of %lld periods so far (%lld us)",
	       c->quota_us, c->period_us, (double)c->quota_us / (double)c->period_us,
	       c->quota_dir, s->nr_throttled, s->nr_periods, s->throttled_us);
}

static void check_caps(struct pf_item *it, const struct context *c,
		       const struct doctor_want *w)
{
	const char *admin = ctx_has_cap(c, CTX_CAP_SYS_ADMIN) ? "CAP_SYS_ADMIN" :
		"no CAP_SYS_ADMIN (--explain and timer -t 1|2 need it for tracefs)";

	(void)w;
	if (!c->caps_known) {
		pf_set(it, V_OK, "", "capabilities unknown (no CapEff in /proc/self/status)");
	} else if (!ctx_has_cap(c, CTX_CAP_SYS_NICE) && c->rtprio == 0) {
		pf_set(it, V_PREVENTS, doctor_fix(c,
		       "podman run --cap-add SYS_NICE (or --ulimit rtprio=99), or --privileged",
		       "securityContext: capabilities: add: [SYS_NICE, IPC_LOCK] in the container spec",
		       "run as root, or setcap cap_sys_nice,cap_ipc_lock+ep $(command -v rtlat)"),
		       "no CAP_SYS_NICE and RLIMIT_RTPRIO 0: SCHED_FIFO is refused, a test runs at SCHED_OTHER; %s",
		       admin);
	} else {
		pf_set(it, V_OK, "", "%s; %s; %s",
		       ctx_has_cap(c, CTX_CAP_SYS_NICE) ? "CAP_SYS_NICE" : "SCHED_FIFO by RLIMIT_RTPRIO",
		       ctx_has_cap(c, CTX_CAP_IPC_LOCK) ? "CAP_IPC_LOCK" : "no CAP_IPC_LOCK", admin);
	}
}

static void check_limits(struct pf_item *it, const struct context *c,
			 const struct doctor_want *w)
{
	(void)w;
	if (c->memlock == -1 || ctx_has_cap(c, CTX_CAP_IPC_LOCK) || c->memlock == -2)
		pf_set(it, V_OK, "", "RLIMIT_RTPRIO %lld, RLIMIT_MEMLOCK %s%s", c->rtprio,
		       c->memlock == -1 ? "unlimited" : c->memlock == -2 ? "unknown" : "limited",
		       ctx_has_cap(c, CTX_CAP_IPC_LOCK) ? " (CAP_IPC_LOCK: mlockall is not limited)" : "");
	else
		pf_set(it, V_LATENCY, doctor_fix(c,
		       "podman run --cap-add IPC_LOCK, or --ulimit memlock=-1:-1",
		       "securityContext: capabilities: add: [IPC_LOCK]",
		       "ulimit -l unlimited (limits.conf: memlock unlimited), or run as root"),
		       "RLIMIT_MEMLOCK %lld KiB without CAP_IPC_LOCK: mlockall fails, pages can fault while measuring; RLIMIT_RTPRIO %lld",
		       c->memlock / 1024, c->rtprio);
}

static void check_devices(struct pf_item *it, const struct context *c,
			  const struct doctor_want *w)
{
	const char *tr = c->tracefs ? "tracefs reachable" :
		doctor_fix(c, "tracefs not reachable, no --explain or timer -t 1|2 (podman: --privileged, or -v /sys/kernel/tracing:/sys/kernel/tracing --cap-add SYS_ADMIN)",
			   "tracefs not reachable, no --explain or timer -t 1|2 (privileged: true, or a hostPath /sys/kernel/tracing with SYS_ADMIN)",
			   "tracefs not reachable, no --explain or timer -t 1|2 (as root rtlat mounts it)");

	(void)w;
	if (c->dma_latency)
		pf_set(it, V_OK, "", "/dev/cpu_dma_latency can be held at 0; %s", tr);
	else
		pf_set(it, V_LATENCY, doctor_fix(c,
		       "podman run --device /dev/cpu_dma_latency (rootful), or --privileged",
		       "the performance profile's annotation cpu-c-states.crio.io: \"disable\", or privileged: true",
		       "run as root (rtlat holds /dev/cpu_dma_latency at 0)"),
		       "/dev/cpu_dma_latency cannot be opened: idle states may deepen between samples; %s",
		       tr);
}

static const struct {
	const char *key, *title;
	void (*fn)(struct pf_item *, const struct context *, const struct doctor_want *);
} container_checks[DOCTOR_CONTAINER_NITEMS] = {
	{ "context", "where it runs", check_where },
	{ "cpuset", "cpuset", check_cpuset },
	{ "cpu_quota", "CPU quota, throttling", check_quota },
	{ "capabilities", "capabilities", check_caps },
	{ "limits", "memlock / rtprio limits", check_limits },
	{ "devices", "cpu_dma_latency, tracefs", check_devices },
};

void doctor_container_checks(struct pf_item *items, const struct context *c,
			     const struct doctor_want *w)
{
	int i;

	for (i = 0; i < DOCTOR_CONTAINER_NITEMS; i++) {
		memset(&items[i], 0, sizeof(items[i]));
		items[i].key = container_checks[i].key;
		items[i].title = container_checks[i].title;
		container_checks[i].fn(&items[i], c, w);
	}
}

enum verdict doctor_context_run(struct pf_item *items, const struct doctor_want *w)
{
	struct context c;
	enum verdict worst = V_OK;
	int i;

	context_read(&c);
	doctor_container_checks(items, &c, w);
	doctor_guest_checks(items + DOCTOR_CONTAINER_NITEMS, &c);
	for (i = 0; i < DOCTOR_CTX_NITEMS; i++)
		if (items[i].verdict > worst)
			worst = items[i].verdict;
	return worst;
}
