// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * starve.c - the run's watch for a measuring thread that cannot run
 * (starve.h), on the status thread.
 */
#include <dirent.h>
#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/syscall.h>
#include "measure/clock.h"
#include "system/tasks.h"
#include "harness/starve.h"
#include "harness/test.h"

/* The test's cycle (us): its row keyed period_us (the timer's -p) or
 * interval_us (cyclictest's and the pair tests' -i); 0: none. */
static long long interval_us(const struct opt *tbl)
{
	for (; tbl && (tbl->long_name || tbl->short_name); tbl++)
		if (tbl->key && tbl->dest && tbl->type == OPT_INT &&
		    (!strcmp(tbl->key, "period_us") || !strcmp(tbl->key, "interval_us")))
			return *(const long long *)tbl->dest;
	return 0;
}

void starve_begin(struct starve *s, struct test_run *t, int64_t now)
{
	long long us = interval_us(t->opts);

	memset(s, 0, sizeof(*s));
	s->t = t;
	s->limit_ns = STARVE_MIN_NS;
	if (us > 0 && us * NSEC_PER_USEC * STARVE_INTERVALS > s->limit_ns)
		s->limit_ns = us * NSEC_PER_USEC * STARVE_INTERVALS;
	s->next_ns = now + STARVE_TICK_NS;
	CPU_ZERO(&t->res.starved);
	t->res.nstarved = 0;
}

/* A thread that measures a CPU: pinned to it alone (*cpu), real-time or
 * not (a run without real-time rights). One the scheduler may move (a
 * pair without -a, request's load processes at SCHED_RR 1) measures no
 * CPU in particular, and is moved where it can run. */
static bool measuring(const struct task_use *u, int *cpu)
{
	cpu_set_t set;
	int i;

	*cpu = u->cpu;
	/* request's load processes are the load on a client's CPU: they
	 * measure nothing, and one may wait behind another. */
	if (!strncmp(u->comm, "rtlat-load", 10))
		return false;
	if (sched_getaffinity(u->tid, sizeof(set), &set) || CPU_COUNT(&set) != 1)
		return false;
	for (i = 0; i < CPU_SETSIZE; i++)
		if (CPU_ISSET(i, &set))
			*cpu = i;
	return true;
}

static struct starve_thr *thr_of(struct starve *s, pid_t tid, const struct task_use *u,
				 int64_t now)
{
	int i;

	for (i = 0; i < s->n; i++)
		if (s->thr[i].tid == tid)
			return &s->thr[i];
	if (s->n == STARVE_MAX)
		return NULL;
	s->thr[s->n] = (struct starve_thr){ .tid = tid, .exec_ns = u->exec_ns,
					    .since_ns = now };
	return &s->thr[s->n++];
}

/* The tasks that hold cpu (but the starved thread), the busiest first:
 * those that used 1 % of it or more over STARVE_SAMPLE_NS. */
static void print_holders(FILE *f, int cpu, pid_t starved)
{
	struct task_use *v;
	int i, n = tasks_sample(&v, STARVE_SAMPLE_NS), said = 0;

	for (i = 0; i < n && said < 5; i++) {
		if (v[i].cpu != cpu || v[i].tid == starved || v[i].share < 0.01)
			continue;
		fputs(said++ ? "; " : "", f);
		task_print(f, &v[i]);
	}
	if (!said)
		fputs("no task seen using it (a hypervisor, interrupts or RT throttling)", f);
	free(v);
}

/* The CPU's mark, for its series (results_summary_part) and the exit. */
static void mark(struct results *r, int cpu, const char *why)
{
	if (cpu < 0 || cpu >= CPU_SETSIZE || CPU_ISSET(cpu, &r->starved))
		return;
	CPU_SET(cpu, &r->starved);
	if (r->nstarved < RESULTS_STARVED_MAX) {
		r->starved_cpu[r->nstarved].cpu = cpu;
		snprintf(r->starved_cpu[r->nstarved].why,
			 sizeof(r->starved_cpu[0].why), "%s", why);
	}
	r->nstarved++;
}

/* One line on stderr, once per CPU, and the CPU marked. */
static void say(struct starve *s, const struct task_use *u, int cpu, int64_t for_ns)
{
	struct test_run *t = s->t;
	char *held = NULL, why[RESULTS_STARVED_WHY];
	size_t len = 0;
	FILE *f;

	if (cpu >= 0 && cpu < CPU_SETSIZE && CPU_ISSET(cpu, &t->res.starved))
		return;
	f = open_memstream(&held, &len);
	if (f) {
		print_holders(f, cpu, u->tid);
		fclose(f);
	}
	snprintf(why, sizeof(why), "CPU %d could not be measured: its thread did not run for %.1f s, held by %s",
		 cpu, (double)for_ns / 1e9, held ? held : "?");
	fprintf(stderr, "%s: %s; the run stops, the CPU's verdict is error (move those tasks off the measuring CPUs, or measure on others: rtlat doctor names them)\n",
		t->prog, why);
	fflush(stderr);
	mark(&t->res, cpu, why);
	free(held);
}

/* Let a starved thread run, so that it sees the stop and ends: off its
 * CPU, or down to SCHED_OTHER (which RT throttling lets run); else one
 * line says what holds the run. */
static void release(struct starve *s, struct starve_thr *th, int cpu)
{
	struct sched_param sp = { .sched_priority = 0 };
	cpu_set_t set;
	int err = 0;

	th->moved = true;
	if (!sched_getaffinity(0, sizeof(set), &set)) {
		if (cpu >= 0 && cpu < CPU_SETSIZE)
			CPU_CLR(cpu, &set);
		if (CPU_COUNT(&set) && !sched_setaffinity(th->tid, sizeof(set), &set))
			return;
		err = errno;
	}
	if (!sched_setscheduler(th->tid, SCHED_OTHER, &sp))
		return;
	fprintf(stderr, "%s: CPU %d: its thread %d cannot be moved off it nor lowered (%s): the run ends when that CPU lets it run\n",
		s->t->prog, cpu, (int)th->tid, strerror(err ? err : errno));
}

static void look(struct starve *s, pid_t pid, pid_t tid, int64_t now)
{
	struct starve_thr *th;
	struct task_use u;
	int cpu;

	if (tid == s->self || task_read(pid, tid, &u) || !measuring(&u, &cpu))
		return;
	th = thr_of(s, tid, &u, now);
	if (!th || th->moved)
		return;
	if (u.state != 'R' || u.exec_ns != th->exec_ns) {
		th->exec_ns = u.exec_ns;
		th->since_ns = now;
		return;
	}
	if (now - th->since_ns < s->limit_ns)
		return;
	say(s, &u, cpu, now - th->since_ns);
	/* Stopped as by ^C: every test ends on it, its outputs written. */
	if (!s->stopped)
		kill(getpid(), SIGTERM);
	s->stopped = true;
	release(s, th, cpu);
}

/* pid's threads, then its children's (a pair's --fork workers, their
 * forker's, request's processes), STARVE_DEPTH generations down. */
static void look_process(struct starve *s, pid_t pid, int depth, int64_t now)
{
	char path[64];
	struct dirent *e;
	pid_t tid, kid;
	FILE *f;
	DIR *d;

	snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
	d = opendir(path);
	while (d && (e = readdir(d))) {
		if (e->d_name[0] < '1' || e->d_name[0] > '9')
			continue;
		tid = (pid_t)atoi(e->d_name);
		look(s, pid, tid, now);
		snprintf(path, sizeof(path), "/proc/%d/task/%d/children", (int)pid, (int)tid);
		f = depth < STARVE_DEPTH ? fopen(path, "re") : NULL;
		while (f && fscanf(f, "%d", &kid) == 1)
			look_process(s, kid, depth + 1, now);
		if (f)
			fclose(f);
	}
	if (d)
		closedir(d);
}

int64_t starve_tick(struct starve *s, int64_t now)
{
	if (now < s->next_ns)
		return s->next_ns;
	if (!s->self)
		s->self = (pid_t)syscall(SYS_gettid);
	look_process(s, getpid(), 0, now);
	s->next_ns = now + STARVE_TICK_NS;
	return s->next_ns;
}
