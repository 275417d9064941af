/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * context.h - where a run happens: bare metal, a container (its engine,
 * cpuset, CPU quota, capabilities), a VM (its hypervisor, clocksource,
 * idle, steal time) or a container in a VM. Read by rtlat doctor's
 * container and guest checks and written into every result as
 * "rtlat": {"context": ...}.
 *
 * Every path read here is prefixed with $RTLAT_SYSROOT when it is set
 * (a directory holding proc/, sys/, dev/, run/ and .dockerenv as a real
 * root has them): tests point it at constructed cgroup v1 and v2 trees.
 * With it set, CPUID is not read (the fake root has no CPU).
 */
#ifndef RTLAT_CONTEXT_H
#define RTLAT_CONTEXT_H

#include <stdbool.h>
#include <stddef.h>

struct json;

#define CTX_TEXT 256

/* The counters that change during a run: -1 where unknown. */
struct ctx_snap {
	long long steal, total;		/* /proc/stat "cpu" line, ticks */
	long long nr_periods, nr_throttled, throttled_us;	/* cpu.stat */
};

struct context {
	bool container, vm;
	const char *kind;		/* "bare-metal", "container", "vm", "container-in-vm" */
	char engine[32];		/* "podman", "docker", "kubernetes", ...; "" */
	char evidence[CTX_TEXT];	/* what said it is a container */
	int cgroup;			/* 1, 2; 0 unknown */
	char cpuset[CTX_TEXT];		/* effective CPUs ("1", "0-3"); "" unknown */
	char cpuset_file[CTX_TEXT];
	char exclusive[64];		/* how the cpuset is exclusive; "" not seen */
	bool cpuset_root;		/* the hierarchy's root (as seen here) */
	char cpuset_shared[CTX_TEXT];	/* a cgroup sharing its CPUs; "" none seen */
	/* The tightest quota of the cgroup and its ancestors (systemd's
	 * CPUQuota= on a slice, podman --cgroup-parent: a parent's) and the
	 * cgroup that sets it, whose cpu.stat counts its throttling. */
	long long quota_us, period_us;	/* -1: no quota */
	char quota_dir[CTX_TEXT];	/* "" no quota */
	char cpu_dir[CTX_TEXT];		/* the cpu controller's directory */
	long long rt_runtime_us;	/* cgroup v1 RT budget; -1 none */
	bool caps_known;
	unsigned long long capeff;	/* /proc/self/status CapEff */
	long long rtprio, memlock;	/* soft limits; -1 unlimited, -2 unknown */
	bool dma_latency, tracefs;	/* reachable */
	char hypervisor[48];		/* "KVM", "Hyper-V"...; "" none seen */
	char hv_evidence[CTX_TEXT];
	char clocksource[48];
	char idle_driver[48];		/* cpuidle current_driver */
	bool idle_poll;			/* haltpoll driver or idle=poll */
	char idle_how[64];
	struct ctx_snap snap;		/* when read */
};

#define CTX_CAP_IPC_LOCK 14
#define CTX_CAP_SYS_ADMIN 21
#define CTX_CAP_SYS_NICE 23

/* A path under $RTLAT_SYSROOT (or the path itself). */
const char *ctx_path(char *buf, size_t len, const char *path);
/* Is there such a path under the root? */
bool ctx_exists(const char *path);
/* First line of a file under the root; "" if unreadable. */
const char *ctx_read_line(const char *path, char *buf, size_t len);
void context_read(struct context *c);
/* context_cgroup.c: the paths /proc/self/cgroup names (all: every one,
 * space-separated), then the cpuset and quota they lead to. */
struct ctx_cg_paths {
	char v2[CTX_TEXT], cpuset[CTX_TEXT], cpu[CTX_TEXT];
};
void ctx_cgroup_paths(struct ctx_cg_paths *p, char *all, size_t len);
void ctx_cgroup_limits(struct context *c, const struct ctx_cg_paths *p);
/* A cpuset list ("0-3,6") into cpus[0..max-1]: how many, -1 bad text. */
int ctx_cpus_parse(const char *s, int *cpus, int max);
void context_snap(struct ctx_snap *s);
bool ctx_has_cap(const struct context *c, int cap);
/* Steal as % of CPU time between two snapshots (-1: no figure). */
double ctx_steal_pct(const struct ctx_snap *a, const struct ctx_snap *b);
/* The "context" object; before: the run's first snapshot, or NULL. */
void context_json(struct json *j, const char *key, const struct ctx_snap *before);
/* A --baseline file's text that ran in another place than this run
 * (its "rtlat": {"context"}): one warning line on stderr. */
void context_baseline_warn(const char *prog, const char *text, size_t len);
/* 1 if every CPU of cpus (a list as parse_cpu_list takes) is in the
 * cpuset list set, 0 if one is not (its number in *missing), -1 unknown. */
int ctx_cpus_within(const char *set, const int *cpus, int n, int *missing);

#endif
