// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * context_cgroup.c - the cgroup limits of where a run happens
 * (context.h): the cpuset and whether it is exclusive, the CPU quota of
 * the process' cgroup and of every parent; and what every part of
 * context.c reads through: the root prefix and cpuset lists. Reads only.
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "system/context.h"
#include "system/sysinfo.h"

const char *ctx_path(char *buf, size_t len, const char *path)
{
	const char *root = getenv("RTLAT_SYSROOT");

	snprintf(buf, len, "%.300s%.700s", root && root[0] ? root : "", path);
	return buf;
}

const char *ctx_read_line(const char *path, char *buf, size_t len)
{
	char p[1024];

	return sysinfo_read_line(ctx_path(p, sizeof(p), path), buf, len);
}

bool ctx_exists(const char *path)
{
	char p[1024];

	return access(ctx_path(p, sizeof(p), path), F_OK) == 0;
}

static long long ll_of(const char *path)
{
	char p[1024];

	return sysinfo_read_ll(ctx_path(p, sizeof(p), path));
}

/*
 * The directory of a controller: base + the path /proc/self/cgroup
 * names, or base alone where that path is not there (a container sees
 * its own cgroup at the mount's root).
 */
static void cg_dir(char *out, size_t len, const char *base, const char *path,
		   const char *probe)
{
	char f[700];

	snprintf(out, len, "%s%s", base, strcmp(path, "/") ? path : "");
	snprintf(f, sizeof(f), "%s/%s", out, probe);
	if (!ctx_exists(f))
		snprintf(out, len, "%s", base);
}

void ctx_cgroup_paths(struct ctx_cg_paths *p, char *all_paths_out, size_t len)
{
	char path[600], line[700], *q;
	size_t at = 0;
	FILE *f = fopen(ctx_path(path, sizeof(path), "/proc/self/cgroup"), "r");
	char *all = (char *)all_paths_out;

	memset(p, 0, sizeof(*p));
	all[0] = '\0';
	while (f && fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = '\0';
		q = strchr(line, ':');
		if (!q || !strchr(q + 1, ':'))
			continue;
		if (at < len)
			at += (size_t)snprintf(all + at, len - at, "%s ", strchr(q + 1, ':') + 1);
		if (!strncmp(q, "::", 2))
			snprintf(p->v2, sizeof(p->v2), "%s", q + 2);
		else if (strstr(q, ":cpuset:"))
			snprintf(p->cpuset, sizeof(p->cpuset), "%s", strchr(q + 1, ':') + 1);
		else if (strstr(q, ":cpu:") || strstr(q, ":cpu,cpuacct:") || strstr(q, ":cpuacct,cpu:"))
			snprintf(p->cpu, sizeof(p->cpu), "%s", strchr(q + 1, ':') + 1);
	}
	if (f)
		fclose(f);
}

static bool is_dir(const char *path)
{
	char p[1024];
	struct stat st;

	return stat(ctx_path(p, sizeof(p), path), &st) == 0 && S_ISDIR(st.st_mode);
}

/* The CPUs a cgroup may run on ("" when it has no cpuset file), and the
 * file they were read from (file NULL: not wanted). */
static const char *cpuset_of(const char *dir, char *buf, size_t len, char *file,
			     size_t flen)
{
	static const char *const names[] = {
		"cpuset.cpus.effective", "cpuset.effective_cpus", "cpuset.cpus",
	};
	char f[CTX_TEXT + 48];
	size_t i;

	buf[0] = '\0';
	for (i = 0; i < 3 && !buf[0]; i++) {
		snprintf(f, sizeof(f), "%.*s/%s", CTX_TEXT, dir, names[i]);
		if (ctx_read_line(f, buf, len)[0] && file)
			snprintf(file, flen, "%.*s", (int)flen - 1, f);
	}
	return buf;
}

/* Does a cpuset list share a CPU with the cpus[0..n-1]? */
static bool overlaps(const char *set, const int *cpus, int n)
{
	int i, miss;

	for (i = 0; i < n; i++)
		if (ctx_cpus_within(set, cpus + i, 1, &miss) == 1)
			return true;
	return false;
}

/*
 * The first cgroup beside dir or beside one of its ancestors up to base
 * whose processes may run on the CPUs of dir (a sibling with no cpuset
 * file has its parent's: all of them) into c->cpuset_shared; false when
 * none does.
 */
static bool cpuset_sibling(struct context *c, const char *dir, const char *base)
{
	char node[CTX_TEXT], p[1024], sib[CTX_TEXT * 2], set[CTX_TEXT], *slash;
	int cpus[1024], n = ctx_cpus_parse(c->cpuset, cpus, 1024);
	struct dirent *e;
	bool found = false;
	DIR *d;

	snprintf(node, sizeof(node), "%s", dir);
	while (n > 0 && !found && strlen(node) > strlen(base) &&
	       (slash = strrchr(node, '/'))) {
		*slash = '\0';
		d = opendir(ctx_path(p, sizeof(p), node));
		while (d && !found && (e = readdir(d))) {
			if (e->d_name[0] == '.' || !strcmp(e->d_name, slash + 1))
				continue;
			snprintf(sib, sizeof(sib), "%s/%s", node, e->d_name);
			if (!is_dir(sib))
				continue;
			cpuset_of(sib, set, sizeof(set), NULL, 0);
			found = !set[0] || overlaps(set, cpus, n);
			if (found)
				snprintf(c->cpuset_shared, sizeof(c->cpuset_shared), "%.200s (CPUs %.40s)",
					 sib, set[0] ? set : "its parent's");
		}
		if (d)
			closedir(d);
	}
	return found;
}

/*
 * Exclusive: a valid partition root ("root invalid (...)" is not one),
 * whose CPUs neither its parent nor any sibling has; or, below the root,
 * no cgroup beside it or beside an ancestor whose CPUs overlap its own
 * (v1's cpu_exclusive = 1 keeps only the siblings out). The root cpuset
 * (v1's cpu_exclusive is always 1 there) holds every cgroup's CPUs.
 */
static void read_cpuset(struct context *c, const char *dir, const char *base)
{
	char f[CTX_TEXT + 32], buf[64];

	cpuset_of(dir, c->cpuset, sizeof(c->cpuset), c->cpuset_file, sizeof(c->cpuset_file));
	c->cpuset_root = !strcmp(dir, base);
	snprintf(f, sizeof(f), "%s/cpuset.cpus.partition", dir);
	ctx_read_line(f, buf, sizeof(buf));
	if (!strcmp(buf, "root") || !strcmp(buf, "isolated")) {
		snprintf(c->exclusive, sizeof(c->exclusive), "cpuset.cpus.partition = %.30s", buf);
		return;
	}
	if (c->cpuset_root || !c->cpuset[0] || cpuset_sibling(c, dir, base))
		return;
	snprintf(f, sizeof(f), "%s/cpuset.cpu_exclusive", dir);
	snprintf(c->exclusive, sizeof(c->exclusive), "%s", ll_of(f) == 1 ?
		 "cpuset.cpu_exclusive = 1" : "no sibling cgroup's CPUs overlap");
}

/* The quota a cgroup sets itself: 1, or 0 when none. */
static int quota_at(const struct context *c, const char *dir, long long *q,
		    long long *per)
{
	char f[CTX_TEXT + 32], buf[64];

	if (c->cgroup == 2) {
		snprintf(f, sizeof(f), "%s/cpu.max", dir);
		ctx_read_line(f, buf, sizeof(buf));
		return sscanf(buf, "%lld %lld", q, per) == 2 && *q > 0 && *per > 0;
	}
	snprintf(f, sizeof(f), "%s/cpu.cfs_quota_us", dir);
	*q = ll_of(f);
	snprintf(f, sizeof(f), "%s/cpu.cfs_period_us", dir);
	*per = ll_of(f);
	return *q > 0 && *per > 0;
}

/* Every cgroup from the process' up to base: a parent's quota holds its
 * children to it whatever theirs. The tightest one (the fewest CPUs). */
static void read_quota(struct context *c, const char *base)
{
	char dir[CTX_TEXT], f[CTX_TEXT + 32], *slash;
	long long q, per;

	c->quota_us = c->period_us = -1;
	if (!c->cgroup)
		return;
	snprintf(dir, sizeof(dir), "%s", c->cpu_dir);
	for (;;) {
		if (quota_at(c, dir, &q, &per) &&
		    (c->quota_us < 0 || q * c->period_us < c->quota_us * per)) {
			c->quota_us = q;
			c->period_us = per;
			snprintf(c->quota_dir, sizeof(c->quota_dir), "%s", dir);
		}
		if (strlen(dir) <= strlen(base) || !(slash = strrchr(dir, '/')))
			break;
		*slash = '\0';
	}
	if (c->cgroup == 1) {
		snprintf(f, sizeof(f), "%s/cpu.rt_runtime_us", c->cpu_dir);
		c->rt_runtime_us = ll_of(f);
	}
}

void ctx_cgroup_limits(struct context *c, const struct ctx_cg_paths *pp)
{
	const struct ctx_cg_paths *p = pp;
	char dir[CTX_TEXT];
	const char *base;

	c->rt_runtime_us = -1;
	if (p->v2[0] && !p->cpuset[0] && !p->cpu[0] && ctx_exists("/sys/fs/cgroup/cgroup.controllers")) {
		c->cgroup = 2;
		base = "/sys/fs/cgroup";
		cg_dir(c->cpu_dir, sizeof(c->cpu_dir), base, p->v2, "cpu.max");
		read_cpuset(c, c->cpu_dir, base);
	} else if (p->cpuset[0] || p->cpu[0]) {
		c->cgroup = 1;
		base = "/sys/fs/cgroup/cpuset";
		cg_dir(dir, sizeof(dir), base, p->cpuset, "cpuset.cpus");
		read_cpuset(c, dir, base);
		base = ctx_exists("/sys/fs/cgroup/cpu,cpuacct") ? "/sys/fs/cgroup/cpu,cpuacct" :
			"/sys/fs/cgroup/cpu";
		cg_dir(c->cpu_dir, sizeof(c->cpu_dir), base, p->cpu, "cpu.cfs_quota_us");
	} else {
		base = "";
	}
	read_quota(c, base);
}

/* Is cpu in a cpuset list ("0-3,6")? */
static bool in_list(const char *s, int cpu)
{
	long a, b;
	char *end;

	while (*s) {
		a = strtol(s, &end, 10);
		if (end == s)
			return false;
		b = a;
		if (*end == '-')
			b = strtol(end + 1, &end, 10);
		if (cpu >= a && cpu <= b)
			return true;
		s = *end == ',' ? end + 1 : end;
		if (*end && *end != ',')
			return false;
	}
	return false;
}

int ctx_cpus_parse(const char *s, int *cpus, int max)
{
	long a, b;
	char *end;
	int n = 0;

	while (*s) {
		a = strtol(s, &end, 10);
		if (end == s || a < 0)
			return -1;
		b = a;
		if (*end == '-')
			b = strtol(end + 1, &end, 10);
		if (*end && *end != ',')
			return -1;
		for (; a <= b && n < max; a++)
			cpus[n++] = (int)a;
		s = *end ? end + 1 : end;
	}
	return n;
}

int ctx_cpus_within(const char *set, const int *cpus, int n, int *missing)
{
	int i;

	if (!set[0])
		return -1;
	for (i = 0; i < n; i++)
		if (!in_list(set, cpus[i])) {
			*missing = cpus[i];
			return 0;
		}
	return 1;
}
