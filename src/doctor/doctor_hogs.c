// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * doctor_hogs.c - rtlat doctor's check of the CPUs a test would measure
 * for busy real-time tasks: a SCHED_FIFO, SCHED_RR or SCHED_DEADLINE task
 * that used DOCTOR_HOG_SHARE of one of them or more over a short sample
 * delays a sampler below it (will add latency); one that used
 * DOCTOR_HOG_STARVES or more starves it for as long as it runs (prevents
 * real-time: the run would end with that CPU's verdict error, harness/
 * starve.h). Each is named (PID, name, policy, priority, CPU, share) with
 * the fix.
 */
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include "system/tasks.h"
#include "doctor/doctor_context.h"

#define DOCTOR_HOG_SAMPLE_NS	(200 * 1000 * 1000LL)
#define DOCTOR_HOG_SHARE	0.10
#define DOCTOR_HOG_STARVES	0.50

/* The CPUs asked for (-c), else every CPU this process may run on. */
static void wanted(cpu_set_t *set, const struct doctor_want *w)
{
	int i;

	CPU_ZERO(set);
	for (i = 0; i < w->n; i++)
		if (w->cpus[i] >= 0 && w->cpus[i] < CPU_SETSIZE)
			CPU_SET(w->cpus[i], set);
	if (!w->n && sched_getaffinity(0, sizeof(*set), set))
		CPU_ZERO(set);
}

static bool hog(const struct task_use *u, const cpu_set_t *set)
{
	return task_policy_rt(u->policy) && u->share >= DOCTOR_HOG_SHARE &&
	       u->pid != getpid() && u->cpu >= 0 && u->cpu < CPU_SETSIZE &&
	       CPU_ISSET(u->cpu, set);
}

void doctor_hogs_check(struct pf_item *it, const struct doctor_want *w)
{
	struct task_use *v;
	char *list = NULL;
	size_t len = 0;
	int i, n, found = 0;
	double most = 0;
	cpu_set_t set;
	FILE *f;

	it->key = "rt_hogs";
	it->title = "busy real-time tasks";
	wanted(&set, w);
	n = tasks_sample(&v, DOCTOR_HOG_SAMPLE_NS);
	f = open_memstream(&list, &len);
	for (i = 0; f && i < n; i++) {
		if (!hog(&v[i], &set))
			continue;
		fputs(found++ ? "; " : "", f);
		task_print(f, &v[i]);
		if (v[i].share > most)
			most = v[i].share;
	}
	if (f)
		fclose(f);
	if (n < 0)
		pf_set(it, V_OK, "", "the tasks could not be read from /proc");
	else if (!found)
		pf_set(it, V_OK, "", "none on the CPUs to measure over %.1f s (a real-time task using %.0f %% of one or more)",
		       DOCTOR_HOG_SAMPLE_NS / 1e9, DOCTOR_HOG_SHARE * 100);
	else
		pf_set(it, most >= DOCTOR_HOG_STARVES ? V_PREVENTS : V_LATENCY,
		       "stop it, or move it off the CPUs to measure (taskset -a -p -c OTHER_CPUS PID), or lower it (chrt -o -a -p 0 PID), or measure on other CPUs (-c): a sampler below it cannot run while it is busy",
		       "%s", list ? list : "?");
	free(list);
	free(v);
}
