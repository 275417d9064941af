/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * tasks.h - who uses a CPU: every task (thread) of the system read from
 * /proc, twice over a short window, with the share of a CPU each used in
 * between. The status thread names what holds a starved CPU with it
 * (harness/starve.c), rtlat doctor the busy real-time tasks on the CPUs
 * it would measure (doctor/doctor_hogs.c). Never on a measuring path: it
 * allocates and reads files.
 */
#ifndef RTLAT_TASKS_H
#define RTLAT_TASKS_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

struct task_use {
	pid_t pid, tid;
	char comm[32];
	char state;		/* R, S, D, ... (/proc/PID/task/TID/stat) */
	int cpu;		/* the CPU it ran on last */
	int policy;		/* SCHED_OTHER, SCHED_FIFO, ... */
	int prio;		/* rt_priority (0: not real-time) */
	uint64_t exec_ns;	/* CPU time so far */
	double share;		/* of one CPU over the window, 0..1 */
};

/* One task: pid's thread tid now (share 0); 0 or -1 (gone). */
int task_read(pid_t pid, pid_t tid, struct task_use *u);
/*
 * Every task of the system, read twice window_ns apart: *out (malloc'd,
 * the caller frees) holds the second reading with each share, the
 * busiest first. Returns how many, or -1.
 */
int tasks_sample(struct task_use **out, int64_t window_ns);
/* "SCHED_FIFO", "SCHED_RR", "SCHED_DEADLINE", "SCHED_OTHER", ... */
const char *task_policy_name(int policy);
bool task_policy_rt(int policy);
/* "PID 123 (name) SCHED_FIFO 95, 99.8 % of CPU 1": its process's PID,
 * and "thread 124" after the name where the thread is another. */
void task_print(FILE *f, const struct task_use *u);

#endif
