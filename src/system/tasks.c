// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * tasks.c - every task of the system from /proc (tasks.h).
 */
#include <dirent.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "measure/clock.h"
#include "system/tasks.h"

#ifndef SCHED_DEADLINE
#define SCHED_DEADLINE 6
#endif

static int read_small(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "re");
	size_t n;

	if (!f)
		return -1;
	n = fread(buf, 1, len - 1, f);
	fclose(f);
	buf[n] = '\0';
	return n ? 0 : -1;
}

/* The name is between the first '(' and the last ')': it may hold both. */
static int parse_stat(const char *s, struct task_use *u)
{
	const char *open = strchr(s, '('), *close = strrchr(s, ')');
	unsigned long long ut, st;
	size_t n;

	if (!open || !close || close < open)
		return -1;
	n = (size_t)(close - open - 1);
	if (n >= sizeof(u->comm))
		n = sizeof(u->comm) - 1;
	memcpy(u->comm, open + 1, n);
	u->comm[n] = '\0';
	/* state is field 3, utime 14, stime 15, processor 39, rt_priority
	 * 40, policy 41. */
	if (sscanf(close + 2, "%c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu"
		   " %*d %*d %*d %*d %*d %*d %*u %*u %*d %*u %*u %*u %*u %*u %*u %*u"
		   " %*u %*u %*u %*u %*u %*u %*d %d %d %d",
		   &u->state, &ut, &st, &u->cpu, &u->prio, &u->policy) != 6)
		return -1;
	u->exec_ns = (ut + st) * (NSEC_PER_SEC / (uint64_t)sysconf(_SC_CLK_TCK));
	return 0;
}

int task_read(pid_t pid, pid_t tid, struct task_use *u)
{
	char path[64], buf[1024];
	unsigned long long ns;

	memset(u, 0, sizeof(*u));
	u->pid = pid;
	u->tid = tid;
	snprintf(path, sizeof(path), "/proc/%d/task/%d/stat", (int)pid, (int)tid);
	if (read_small(path, buf, sizeof(buf)) || parse_stat(buf, u))
		return -1;
	/* schedstat's run time is in ns (CONFIG_SCHED_INFO); stat's ticks
	 * are the fallback. */
	snprintf(path, sizeof(path), "/proc/%d/task/%d/schedstat", (int)pid, (int)tid);
	if (!read_small(path, buf, sizeof(buf)) && sscanf(buf, "%llu", &ns) == 1)
		u->exec_ns = ns;
	return 0;
}

static bool numeric(const char *s)
{
	return *s >= '1' && *s <= '9' && strspn(s, "0123456789") == strlen(s);
}

/* Append pid's threads to (*v)[*n..]: 0 or -1 (no memory). */
static int read_threads(pid_t pid, struct task_use **v, int *n, int *cap)
{
	char path[40];
	struct dirent *e;
	DIR *d;

	snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
	d = opendir(path);
	if (!d)
		return 0;	/* gone meanwhile */
	while ((e = readdir(d))) {
		if (!numeric(e->d_name))
			continue;
		if (*n == *cap) {
			int c = *cap ? *cap * 2 : 512;
			struct task_use *nv = realloc(*v, (size_t)c * sizeof(**v));

			if (!nv) {
				closedir(d);
				return -1;
			}
			*v = nv;
			*cap = c;
		}
		if (!task_read(pid, (pid_t)atoi(e->d_name), &(*v)[*n]))
			(*n)++;
	}
	closedir(d);
	return 0;
}

static int read_all(struct task_use **v)
{
	int n = 0, cap = 0;
	struct dirent *e;
	DIR *d = opendir("/proc");

	*v = NULL;
	if (!d)
		return -1;
	while ((e = readdir(d)))
		if (numeric(e->d_name) &&
		    read_threads((pid_t)atoi(e->d_name), v, &n, &cap))
			break;
	closedir(d);
	return n;
}

static int by_tid(const void *a, const void *b)
{
	const struct task_use *x = a, *y = b;

	return (x->tid > y->tid) - (x->tid < y->tid);
}

static int by_share(const void *a, const void *b)
{
	const struct task_use *x = a, *y = b;

	return (x->share < y->share) - (x->share > y->share);
}

int tasks_sample(struct task_use **out, int64_t window_ns)
{
	struct task_use *before, *after, *was;
	struct timespec ts = ns_to_timespec(window_ns);
	int64_t t0, t1;
	int n0, n1, i;

	*out = NULL;
	/* Each reading's time is the middle of its pass over /proc. */
	t0 = clock_now_ns();
	n0 = read_all(&before);
	t0 = (t0 + clock_now_ns()) / 2;
	/* No task at all: /proc is not what it should be. */
	if (n0 <= 0 || !before) {
		free(before);
		return -1;
	}
	qsort(before, (size_t)n0, sizeof(*before), by_tid);
	nanosleep(&ts, NULL);
	t1 = clock_now_ns();
	n1 = read_all(&after);
	t1 = (t1 + clock_now_ns()) / 2;
	if (n1 <= 0 || !after) {
		free(before);
		free(after);
		return -1;
	}
	for (i = 0; i < n1; i++) {
		was = bsearch(&after[i], before, (size_t)n0, sizeof(*before), by_tid);
		if (was && after[i].exec_ns >= was->exec_ns && t1 > t0)
			after[i].share = (double)(after[i].exec_ns - was->exec_ns) /
					 (double)(t1 - t0);
		if (after[i].share > 1.0)
			after[i].share = 1.0;
	}
	free(before);
	qsort(after, (size_t)n1, sizeof(*after), by_share);
	*out = after;
	return n1;
}

const char *task_policy_name(int policy)
{
	switch (policy) {
	case SCHED_OTHER: return "SCHED_OTHER";
	case SCHED_FIFO: return "SCHED_FIFO";
	case SCHED_RR: return "SCHED_RR";
	case SCHED_BATCH: return "SCHED_BATCH";
	case SCHED_IDLE: return "SCHED_IDLE";
	case SCHED_DEADLINE: return "SCHED_DEADLINE";
	default: return "SCHED_?";
	}
}

bool task_policy_rt(int policy)
{
	return policy == SCHED_FIFO || policy == SCHED_RR || policy == SCHED_DEADLINE;
}

void task_print(FILE *f, const struct task_use *u)
{
	fprintf(f, "PID %d (%s)", (int)u->pid, u->comm);
	if (u->tid != u->pid)
		fprintf(f, " thread %d", (int)u->tid);
	fprintf(f, " %s", task_policy_name(u->policy));
	if (task_policy_rt(u->policy))
		fprintf(f, " %d", u->prio);
	fprintf(f, ", %.1f %% of CPU %d", u->share * 100.0, u->cpu);
}
