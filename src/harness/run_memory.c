// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * run_memory.c - before a run measures, the memory it will lock, against
 * what can hold it: a run larger than its room was OOM-killed without a
 * word as soon as mlockall made its preallocations resident (pmq -t 64
 * --largest 1048576: 65 series of 24 MiB in a 1 GiB cgroup).
 *
 * The figure: what the process has mapped once the test is set up
 * (VmSize: its histograms, the --largest rows of every series and thread,
 * shared or not; mlockall(MCL_CURRENT) makes all of it resident), the
 * --timeline steps every series may still grow to, and an allowance for
 * what its threads map later (RUN_MEM_*). The room: the
 * RLIMIT_MEMLOCK (when memory is locked, without CAP_IPC_LOCK), what every
 * memory cgroup above the process leaves (v2 memory.max, v1
 * memory.limit_in_bytes, less what is charged there), and MemAvailable;
 * the last two against what is not resident yet.
 *
 * A run is refused only where the options sizing it make the difference
 * (the same run with --largest 0 and no time line would fit): then it is
 * bad input, said in one line with what would fit, exit 2. A machine
 * short of memory whatever the options stays the warnings' business.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>
#include "measure/record.h"
#include "measure/timeline.h"
#include "harness/test.h"

#define MIB (1024.0 * 1024.0)
#define CAP_IPC_LOCK_BIT 14
/*
 * What is mapped after the check, locked as it comes (MCL_FUTURE): the
 * threads' stacks (256 KiB each, rt_thread_attr, and their guard) and
 * arenas, the libraries' pages mlockall faults in, the status and
 * recorder threads. Measured (VmLck) against VmSize at the check: pmq
 * -t 1 locks 13 MiB, -t 64 (128 threads, 65 series) 55 MiB; allowed for
 * as a fixed part and two threads a series.
 */
#define RUN_MEM_FIXED		(16LL << 20)
#define RUN_MEM_PER_SERIES	(2 * (320LL << 10))

/* A "Key:  N kB" line of a /proc file, in bytes; -1: none. */
static long long proc_kb(const char *file, const char *key)
{
	char line[256];
	size_t n = strlen(key);
	long long v = -1;
	FILE *f = fopen(file, "r");

	while (f && fgets(line, sizeof(line), f))
		if (!strncmp(line, key, n) && line[n] == ':') {
			v = strtoll(line + n + 1, NULL, 10) * 1024;
			break;
		}
	if (f)
		fclose(f);
	return v;
}

static bool cap_ipc_lock(void)
{
	char line[256];
	bool has = false;
	FILE *f = fopen("/proc/self/status", "r");

	while (f && fgets(line, sizeof(line), f))
		if (!strncmp(line, "CapEff:", 7)) {
			has = strtoull(line + 7, NULL, 16) >> CAP_IPC_LOCK_BIT & 1;
			break;
		}
	if (f)
		fclose(f);
	return has;
}

static long long file_ll(const char *dir, const char *name)
{
	char path[700], buf[64] = "";
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "r");
	if (!f)
		return -1;
	if (!fgets(buf, sizeof(buf), f))
		buf[0] = '\0';
	fclose(f);
	return buf[0] >= '0' && buf[0] <= '9' ? strtoll(buf, NULL, 10) : -1;
}

/* The process's memory cgroup directory (v2, or v1's memory controller)
 * and its files; false: none found. */
static bool memcg_dir(char *dir, size_t len, char *base, size_t blen,
		      const char **max, const char **cur)
{
	char line[700], *path = NULL, *c;
	FILE *f = fopen("/proc/self/cgroup", "r");
	bool v1 = false;

	while (f && fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = '\0';
		c = strchr(line, ':');
		if (!c || !strchr(c + 1, ':'))
			continue;
		*strchr(c + 1, ':') = '\0';
		/* The controller list, between the two colons. */
		if (!strcmp(c + 1, "memory") || strstr(c + 1, "memory,") ||
		    strstr(c + 1, ",memory")) {
			free(path);
			path = strdup(c + strlen(c + 1) + 2);
			v1 = true;
			break;
		}
		if (!c[1] && !path)
			path = strdup(c + 2);
	}
	if (f)
		fclose(f);
	if (!path)
		return false;
	snprintf(base, blen, "%s", v1 ? "/sys/fs/cgroup/memory" : "/sys/fs/cgroup");
	*max = v1 ? "memory.limit_in_bytes" : "memory.max";
	*cur = v1 ? "memory.usage_in_bytes" : "memory.current";
	snprintf(dir, len, "%s%s", base, strcmp(path, "/") ? path : "");
	free(path);
	/* A container sees its own cgroup at the mount's root. */
	if (access(dir, F_OK))
		snprintf(dir, len, "%s", base);
	return true;
}

struct room {
	char what[400];		/* "the cgroup ... (memory.max 1024 MiB)" */
	long long bytes;	/* what the run may still take; -1: no limit */
};

/* The least room any memory cgroup above the process leaves. */
static void cgroup_room(struct room *r)
{
	char dir[600], base[64], *slash;
	const char *maxf, *curf;
	long long max, cur;

	r->bytes = -1;
	if (!memcg_dir(dir, sizeof(dir), base, sizeof(base), &maxf, &curf))
		return;
	for (;;) {
		max = file_ll(dir, maxf);
		cur = file_ll(dir, curf);
		/* v1's "no limit" is a huge page-rounded number. */
		if (max > 0 && max < (1LL << 60) && cur >= 0 &&
		    (r->bytes < 0 || max - cur < r->bytes)) {
			r->bytes = max > cur ? max - cur : 0;
			snprintf(r->what, sizeof(r->what), "the memory cgroup %.300s (%s %.0f MiB, %.0f MiB used)",
				 dir, maxf, (double)max / MIB, (double)cur / MIB);
		}
		slash = strrchr(dir, '/');
		if (!strcmp(dir, base) || !slash || slash <= dir + strlen(base))
			break;
		*slash = '\0';
	}
}

/* The thread-count row of the test's options (" -t 64"), or "". */
static void threads_row(const struct test_run *t, char *buf, size_t len)
{
	const struct opt *o = opts_find(t->opts, 't', NULL);

	if (!o)
		o = opts_find(t->opts, 0, "threads");
	buf[0] = '\0';
	if (!o || !o->dest || o->type != OPT_INT)
		return;
	if (o->short_name)
		snprintf(buf, len, ", -%c %lld", o->short_name, *(const long long *)o->dest);
	else
		snprintf(buf, len, ", --%s %lld", o->long_name, *(const long long *)o->dest);
}

/* Refuse: one line naming the options and what would fit in r. */
static int refuse(const struct test_run *t, const struct room *r, long long need,
		  long long base, int nseries, long long tl_each)
{
	const struct recorder *rec = t->rec;
	long long row = (long long)sizeof(struct largest_row);
	/* The suggestion keeps an eighth of the room free: what else the
	 * cgroup holds moves from one run to the next, and a --largest that
	 * fitted to the MiB was refused when the user ran it (found by the
	 * test that runs the suggestion). */
	long long room = r->bytes - r->bytes / 8;
	long long left = room - base - (long long)nseries * tl_each;
	bool tl = left <= 0;
	long long k = (tl ? room - base : left) / nseries / row;
	char thr[64];

	threads_row(t, thr, sizeof(thr));
	if (k < 0)
		k = 0;
	if (k > 1024)
		k -= k % 1024;
	fprintf(stderr, "%s: --largest %u%s (%d series and threads%s) needs %.0f MiB of memory, locked; %s leaves %.0f MiB: at most %s--largest %lld fits%s\n",
		t->prog, rec->k, rec->step_ns ? " and --timeline" : "", nseries, thr,
		(double)need / MIB, r->what, (double)r->bytes / MIB,
		tl ? "--timeline 0 and " : "", k, *thr ? " (or fewer threads)" : "");
	return -1;
}

int run_memory_check(struct test_run *t)
{
	const struct recorder *rec = t->rec;
	long long vm = proc_kb("/proc/self/status", "VmSize");
	long long rss = proc_kb("/proc/self/status", "VmRSS");
	long long tl_each, sized, total, unres, base_unres;
	struct room r;
	struct rlimit rl;

	if (!rec || !rec->n || vm < 0 || rss < 0)
		return 0;
	tl_each = rec->step_ns ? (long long)rec->cap * (long long)sizeof(struct tl_step) : 0;
	sized = (long long)rec->n * ((long long)largest_bytes(rec->k) + tl_each);
	total = vm + RUN_MEM_FIXED + (long long)rec->n * (RUN_MEM_PER_SERIES + tl_each);
	unres = total > rss ? total - rss : 0;
	base_unres = unres > sized ? unres - sized : 0;
	if (!t->common->no_mlock && !cap_ipc_lock() && !getrlimit(RLIMIT_MEMLOCK, &rl) &&
	    rl.rlim_cur != RLIM_INFINITY && (long long)rl.rlim_cur < total &&
	    (long long)rl.rlim_cur >= total - sized) {
		r.bytes = (long long)rl.rlim_cur;
		snprintf(r.what, sizeof(r.what), "RLIMIT_MEMLOCK (ulimit -l %llu)",
			 (unsigned long long)rl.rlim_cur / 1024);
		return refuse(t, &r, total, total - sized, rec->n, tl_each);
	}
	cgroup_room(&r);
	if (r.bytes >= 0 && r.bytes < unres && r.bytes >= base_unres)
		return refuse(t, &r, unres, base_unres, rec->n, tl_each);
	r.bytes = proc_kb("/proc/meminfo", "MemAvailable");
	snprintf(r.what, sizeof(r.what), "MemAvailable (/proc/meminfo)");
	if (r.bytes >= 0 && r.bytes < unres && r.bytes >= base_unres)
		return refuse(t, &r, unres, base_unres, rec->n, tl_each);
	return 0;
}
