// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * context.c - where a run happens (context.h): container markers and
 * cgroup limits, hypervisor, clocksource, idle and steal time. Reads only.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif
#include "system/context.h"
#include "system/sysinfo.h"

/* The boot time (/proc/stat btime), or -1. */
static long long boot_time(void)
{
	char p[1024], line[256];
	long long bt = -1;
	FILE *f = fopen(ctx_path(p, sizeof(p), "/proc/stat"), "r");

	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "btime %lld", &bt) == 1)
			break;
	if (f)
		fclose(f);
	return bt;
}

/*
 * An engine's marker file (/.dockerenv, /run/.containerenv), made when
 * its container was: one older than this boot is another system's seen
 * through a shared filesystem (a guest booted over its host's root).
 */
static bool marker(const char *path)
{
	char p[1024];
	struct stat st;
	long long bt;

	if (stat(ctx_path(p, sizeof(p), path), &st))
		return false;
	bt = boot_time();
	return bt < 0 || (long long)st.st_mtime >= bt;
}

/* An engine named in a cgroup path or PID 1's container= variable. */
static const char *engine_in(const char *s)
{
	static const char *const names[][2] = {
		{ "kubepods", "kubernetes" }, { "libpod", "podman" },
		{ "podman", "podman" }, { "docker", "docker" }, { "crio", "cri-o" },
		{ "containerd", "containerd" }, { "lxc", "lxc" },
		{ "systemd-nspawn", "systemd-nspawn" },
	};
	size_t i;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (strstr(s, names[i][0]))
			return names[i][1];
	return NULL;
}

/* PID 1's container= (systemd's convention: podman, lxc, nspawn set it). */
static void pid1_container(char *out, size_t len)
{
	char p[1024], buf[8192];
	ssize_t n, i;
	int fd = open(ctx_path(p, sizeof(p), "/proc/1/environ"), O_RDONLY | O_CLOEXEC);

	out[0] = '\0';
	if (fd < 0)
		return;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	for (i = 0; n > 0 && i < n; i += (ssize_t)strlen(buf + i) + 1) {
		buf[n] = '\0';
		if (!strncmp(buf + i, "container=", 10)) {
			snprintf(out, len, "%s", buf + i + 10);
			return;
		}
	}
}

static void set_container(struct context *c, const char *engine, const char *why)
{
	if (c->container)
		return;
	c->container = true;
	snprintf(c->engine, sizeof(c->engine), "%.*s", (int)sizeof(c->engine) - 1, engine);
	snprintf(c->evidence, sizeof(c->evidence), "%s", why);
}

static void detect_container(struct context *c, const char *cgpath)
{
	char env[64], why[CTX_TEXT];
	const char *e = engine_in(cgpath);

	/* Kubernetes first: its pods also carry their runtime's marks. */
	if (e && !strcmp(e, "kubernetes"))
		set_container(c, e, "kubepods in the cgroup path");
	if (getenv("KUBERNETES_SERVICE_HOST") && !getenv("RTLAT_SYSROOT"))
		set_container(c, "kubernetes", "KUBERNETES_SERVICE_HOST set");
	if (marker("/run/.containerenv"))
		set_container(c, "podman", "/run/.containerenv");
	if (marker("/.dockerenv"))
		set_container(c, "docker", "/.dockerenv");
	pid1_container(env, sizeof(env));
	if (env[0]) {
		snprintf(why, sizeof(why), "container=%s in PID 1's environment", env);
		set_container(c, engine_in(env) ? engine_in(env) : env, why);
	}
	if (e) {
		snprintf(why, sizeof(why), "cgroup path %.200s", cgpath);
		set_container(c, e, why);
	}
}

static void read_cgroups(struct context *c)
{
	struct ctx_cg_paths p;
	char all[1024];

	ctx_cgroup_paths(&p, all, sizeof(all));
	detect_container(c, all);
	ctx_cgroup_limits(c, &p);
}

/* cpu.stat's throttling counters (v1: throttled_time in ns). */
static void snap_throttling(struct ctx_snap *s, const char *cpu_dir)
{
	char p[1024], f[CTX_TEXT + 32], key[64];
	long long val;
	FILE *fp;

	s->nr_periods = s->nr_throttled = s->throttled_us = -1;
	if (!cpu_dir[0])
		return;
	snprintf(f, sizeof(f), "%s/cpu.stat", cpu_dir);
	fp = fopen(ctx_path(p, sizeof(p), f), "r");
	while (fp && fscanf(fp, "%63s %lld", key, &val) == 2) {
		if (!strcmp(key, "nr_periods"))
			s->nr_periods = val;
		else if (!strcmp(key, "nr_throttled"))
			s->nr_throttled = val;
		else if (!strcmp(key, "throttled_usec"))
			s->throttled_us = val;
		else if (!strcmp(key, "throttled_time"))
			s->throttled_us = val / 1000;
	}
	if (fp)
		fclose(fp);
}

/* The cgroup whose cpu.stat counts the throttling: the one whose quota
 * holds the process (a parent's throttling is counted in the parent). */
static const char *throttled_dir(const struct context *c)
{
	return c->quota_dir[0] ? c->quota_dir : c->cpu_dir;
}

static void snap_in(struct ctx_snap *s, const char *cpu_dir)
{
	char p[1024];
	long long v[8] = { 0 };
	FILE *f = fopen(ctx_path(p, sizeof(p), "/proc/stat"), "r");
	int i, n = 0;

	s->steal = s->total = -1;
	if (f) {
		n = fscanf(f, "cpu %lld %lld %lld %lld %lld %lld %lld %lld", &v[0], &v[1],
			   &v[2], &v[3], &v[4], &v[5], &v[6], &v[7]);
		fclose(f);
	}
	if (n == 8) {
		for (s->total = 0, i = 0; i < 8; i++)
			s->total += v[i];
		s->steal = v[7];
	}
	snap_throttling(s, cpu_dir);
}

void context_snap(struct ctx_snap *s)
{
	struct context c;

	memset(&c, 0, sizeof(c));
	read_cgroups(&c);
	snap_in(s, throttled_dir(&c));
}

double ctx_steal_pct(const struct ctx_snap *a, const struct ctx_snap *b)
{
	long long dt = (b ? b->total : a->total) - (b ? a->total : 0);
	long long ds = (b ? b->steal : a->steal) - (b ? a->steal : 0);

	if (a->total < 0 || (b && b->total < 0) || dt <= 0 || ds < 0)
		return -1;
	return 100.0 * (double)ds / (double)dt;
}

bool ctx_has_cap(const struct context *c, int cap)
{
	return c->caps_known && (c->capeff >> cap & 1);
}

/* A soft limit of /proc/self/limits: -1 unlimited, -2 unknown. */
static long long limit_of(const char *name)
{
	char p[1024], line[256];
	long long v = -2;
	FILE *f = fopen(ctx_path(p, sizeof(p), "/proc/self/limits"), "r");
	size_t n = strlen(name);

	while (f && fgets(line, sizeof(line), f)) {
		if (strncmp(line, name, n) != 0 || strlen(line) < 26)
			continue;
		if (!strncmp(line + 26, "unlimited", 9))
			v = -1;
		else if (sscanf(line + 26, "%lld", &v) != 1)
			v = -2;
	}
	if (f)
		fclose(f);
	return v;
}

static void read_process(struct context *c)
{
	char p[1024], line[256];
	FILE *f = fopen(ctx_path(p, sizeof(p), "/proc/self/status"), "r");
	int fd;

	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "CapEff: %llx", &c->capeff) == 1)
			c->caps_known = true;
	if (f)
		fclose(f);
	c->rtprio = limit_of("Max realtime priority");
	c->memlock = limit_of("Max locked memory");
	fd = open(ctx_path(p, sizeof(p), "/dev/cpu_dma_latency"), O_RDWR | O_CLOEXEC);
	c->dma_latency = fd >= 0;
	if (fd >= 0)
		close(fd);
	c->tracefs = ctx_exists("/sys/kernel/tracing/trace") ||
		ctx_exists("/sys/kernel/debug/tracing/trace");
}

/* CPUID: the hypervisor bit and leaf 0x40000000's vendor (x86 only). */
static void cpuid_vendor(char *out, size_t len)
{
	out[0] = '\0';
#if defined(__x86_64__) || defined(__i386__)
	unsigned int a, b, cx, d;
	char v[13];

	if (getenv("RTLAT_SYSROOT") || !__get_cpuid(1, &a, &b, &cx, &d) || !(cx >> 31 & 1))
		return;
	__cpuid(0x40000000, a, b, cx, d);
	memcpy(v, &b, 4);
	memcpy(v + 4, &cx, 4);
	memcpy(v + 8, &d, 4);
	v[12] = '\0';
	snprintf(out, len, "%s", v[0] ? v : "(hypervisor bit, no vendor)");
#else
	(void)len;
#endif
}

static const char *hv_name(const char *s)
{
	static const char *const names[][2] = {
		{ "KVMKVMKVM", "KVM" }, { "Microsoft Hv", "Hyper-V" },
		{ "Microsoft Corporation", "Hyper-V" }, { "VMware", "VMware" },
		{ "XenVMMXenVMM", "Xen" }, { "Xen", "Xen" }, { "TCGTCGTCGTCG", "QEMU (TCG)" },
		{ "QEMU", "QEMU/KVM" }, { "ACRN", "ACRN" }, { "bhyve", "bhyve" },
		{ "VBox", "VirtualBox" }, { "innotek", "VirtualBox" },
		{ "Amazon EC2", "Amazon EC2 (Nitro/KVM)" }, { "Google", "Google Compute Engine (KVM)" },
		{ "Jailhouse", "Jailhouse" }, { "Firecracker", "Firecracker (KVM)" },
	};
	size_t i;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (strstr(s, names[i][0]))
			return names[i][1];
	return NULL;
}

static bool cpuinfo_hypervisor(void)
{
	char p[1024], line[4096];
	bool hv = false;
	FILE *f = fopen(ctx_path(p, sizeof(p), "/proc/cpuinfo"), "r");

	while (f && !hv && fgets(line, sizeof(line), f))
		hv = !strncmp(line, "flags", 5) && strstr(line, " hypervisor");
	if (f)
		fclose(f);
	return hv;
}

static void read_hypervisor(struct context *c)
{
	char id[32], vend[64], prod[64], xen[32];
	const char *n;

	cpuid_vendor(id, sizeof(id));
	ctx_read_line("/sys/class/dmi/id/sys_vendor", vend, sizeof(vend));
	ctx_read_line("/sys/class/dmi/id/product_name", prod, sizeof(prod));
	ctx_read_line("/sys/hypervisor/type", xen, sizeof(xen));
	if (id[0] && (n = hv_name(id)))
		snprintf(c->hv_evidence, sizeof(c->hv_evidence), "CPUID 0x40000000 '%s'", id);
	else if ((n = hv_name(vend)) || (n = hv_name(prod)))
		snprintf(c->hv_evidence, sizeof(c->hv_evidence), "DMI '%.60s' '%.60s'", vend, prod);
	else if (xen[0] && (n = "Xen"))
		snprintf(c->hv_evidence, sizeof(c->hv_evidence), "/sys/hypervisor/type %.20s", xen);
	else if ((id[0] || cpuinfo_hypervisor()) && (n = "unknown hypervisor"))
		snprintf(c->hv_evidence, sizeof(c->hv_evidence), "%s",
			 id[0] ? "CPUID hypervisor bit" : "hypervisor flag in /proc/cpuinfo");
	if (n && c->hv_evidence[0]) {
		c->vm = true;
		snprintf(c->hypervisor, sizeof(c->hypervisor), "%s", n);
	}
}

static void read_guest(struct context *c)
{
	char cmd[4096];

	ctx_read_line("/sys/devices/system/clocksource/clocksource0/current_clocksource",
		c->clocksource, sizeof(c->clocksource));
	ctx_read_line("/sys/devices/system/cpu/cpuidle/current_driver",
		c->idle_driver, sizeof(c->idle_driver));
	ctx_read_line("/proc/cmdline", cmd, sizeof(cmd));
	if (!strcmp(c->idle_driver, "haltpoll"))
		snprintf(c->idle_how, sizeof(c->idle_how), "cpuidle driver haltpoll");
	if (strstr(cmd, "idle=poll"))
		snprintf(c->idle_how, sizeof(c->idle_how), "idle=poll on the command line");
	c->idle_poll = c->idle_how[0] != '\0';
}

void context_read(struct context *c)
{
	memset(c, 0, sizeof(*c));
	read_cgroups(c);
	read_process(c);
	read_hypervisor(c);
	read_guest(c);
	snap_in(&c->snap, throttled_dir(c));
	c->kind = c->container ? (c->vm ? "container-in-vm" : "container") :
		(c->vm ? "vm" : "bare-metal");
}
