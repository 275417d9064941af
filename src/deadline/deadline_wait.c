// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * deadline_wait.c - the SCHED_DEADLINE wait method of the timer's sampler:
 * admitted once (sched_setattr, by syscall: glibc has no wrapper before
 * 2.41), each wait ends the job (its -w work, its deadline checked) with
 * sched_yield(), after which the kernel runs the thread at its next
 * period's start. Runtime overruns come as SIGXCPU (SCHED_FLAG_DL_OVERRUN)
 * to the overrunning thread, counted by a handler on that thread. No
 * allocation, no I/O, no lock on this path.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sched.h>
#include <sys/syscall.h>
#include <unistd.h>
#include "measure/clock.h"
#include "util/opts.h"
#include "deadline/deadline_wait.h"

#ifndef SCHED_DEADLINE
#define SCHED_DEADLINE		6
#endif
#define DL_FLAG_OVERRUN		0x04	/* SCHED_FLAG_DL_OVERRUN */
#define DL_ATTR_SIZE_VER0	48

/* The kernel's struct sched_attr, first version (<linux/sched/types.h>;
 * glibc's own only from 2.41, so a name of ours). */
struct dl_attr {
	uint32_t size, policy;
	uint64_t flags;
	int32_t nice;
	uint32_t priority;
	uint64_t runtime, deadline, period;
};

/*
 * The SIGXCPU handler has no argument: each sampler points it at its own
 * counter. SIGXCPU of a deadline overrun is sent to the overrunning thread
 * (it runs when its runtime runs out), so the count is that thread's.
 */
static __thread atomic_uint_fast64_t *overrun_count;

static void on_overrun(int sig)
{
	(void)sig;
	if (overrun_count)
		atomic_fetch_add_explicit(overrun_count, 1, memory_order_relaxed);
}

int dl_signals(void)
{
	struct sigaction sa = { .sa_handler = on_overrun, .sa_flags = SA_RESTART };

	sigemptyset(&sa.sa_mask);
	return sigaction(SIGXCPU, &sa, NULL) ? -errno : 0;
}

static int dl_open(struct timer_wait *w, int64_t first)
{
	struct dl_thread *th = dl_thread_of(w);
	struct dl_attr a = {
		.size = DL_ATTR_SIZE_VER0, .policy = SCHED_DEADLINE,
		.flags = DL_FLAG_OVERRUN, .runtime = (uint64_t)th->runtime_ns,
		.deadline = (uint64_t)th->deadline_ns, .period = (uint64_t)th->period_ns,
	};
	sigset_t xcpu;

	overrun_count = &th->overruns;
	sigemptyset(&xcpu);
	sigaddset(&xcpu, SIGXCPU);
	pthread_sigmask(SIG_UNBLOCK, &xcpu, NULL);
	/* The timer counts seconds from first: no expected start before. */
	if (first - th->period_ns > clock_now_ns())
		clock_sleep_until(first - th->period_ns);
	if (syscall(SYS_sched_setattr, 0, &a, 0)) {
		th->err = errno;
		return -errno;
	}
	/*
	 * The grid's origin: the first period's start as this thread sees
	 * it, the wake-up after its first sched_yield(), as cyclicdeadline
	 * (the kernel starts the first period somewhere inside
	 * sched_setattr, tens of us long here: no clock read brackets it).
	 */
	sched_yield();
	w->expected = clock_now_ns() + th->period_ns;
	return 0;
}

static int64_t spin_until(int64_t end)
{
	int64_t now;

	while ((now = clock_now_ns()) < end)
		;
	return now;
}

/*
 * The job ends: its work, its deadline, then the wait for the next. The
 * period the job ran in is the one the sampler found its wake-up in: its
 * next expected start (w->expected, periods missed added) less a period.
 */
static int dl_wait(struct timer_wait *w, uint64_t *ticks)
{
	struct dl_thread *th = dl_thread_of(w);
	int64_t now;

	*ticks = 0;	/* lateness decides the periods skipped */
	if (th->started) {
		now = clock_now_ns();
		if (th->work_ns)
			now = spin_until(now + th->work_ns);
		if (now > w->expected - w->period + th->deadline_ns)
			th->misses++;
		th->jobs++;
	}
	th->started = true;
	sched_yield();
	return 0;
}

static void dl_close(struct timer_wait *w)
{
	(void)w;
	overrun_count = NULL;
}

const struct timer_wait_ops dl_wait_ops = {
	.name = "sched_deadline", .open = dl_open, .wait = dl_wait,
	.close = dl_close, .reanchor = true,
};

/* A number from /proc/sys/kernel/NAME, or def. */
static long long sysctl_ll(const char *name, long long def)
{
	char path[96];
	long long v;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/sys/kernel/%s", name);
	f = fopen(path, "r");
	if (!f)
		return def;
	if (fscanf(f, "%lld", &v) != 1)
		v = def;
	fclose(f);
	return v;
}

/* The bandwidth the run's threads ask for, in CPUs (0.6: 60 % of one). */
static double asked(const struct dl_run *run)
{
	double bw = 0;
	int i;

	for (i = 0; i < run->t.ncpu; i++)
		bw += (double)run->th[i].runtime_ns / (double)run->th[i].period_ns;
	return bw;
}

static void busy(const struct dl_run *run, char *buf, size_t len)
{
	long long rt = sysctl_ll("sched_rt_runtime_us", 950000);
	long long per = sysctl_ll("sched_rt_period_us", 1000000);
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);

	snprintf(buf, len, "SCHED_DEADLINE refused (EBUSY): the threads ask for %.2f CPUs of bandwidth (runtime/period summed) and the kernel admits %.2f of each CPU of the root domain (sched_rt_runtime_us/sched_rt_period_us = %lld/%lld, %ld CPUs online) less what other deadline tasks hold; fix: a smaller -r, fewer threads, or a larger /proc/sys/kernel/sched_rt_runtime_us (-1: no limit)",
		 asked(run), rt < 0 ? 1.0 : (double)rt / (double)per, rt, per, ncpu);
}

void dl_refusal(const struct dl_run *run, const struct dl_thread *th,
		int cpu, char *buf, size_t len)
{
	switch (th->err) {
	case EBUSY:
		busy(run, buf, len);
		break;
	case EPERM:
		if (th->pinned)
			snprintf(buf, len, "SCHED_DEADLINE refused (EPERM): a deadline thread's affinity must span its whole root domain (here every CPU the scheduler balances over) and -c pinned it to CPU %d; fix: make CPU %d a root domain of its own with an exclusive cpuset partition (cgroup v2: cpuset.cpus.partition=root; v1: cpuset.cpu_exclusive=1 and sched_load_balance=0 on its parent) and run rtlat in it, or run without -c",
				 cpu, cpu);
		else
			snprintf(buf, len, "SCHED_DEADLINE refused (EPERM): it needs CAP_SYS_NICE (root), an affinity spanning the root domain (taskset or a cpuset narrowed rtlat's) and a bandwidth limit above 0 (sched_rt_runtime_us); fix: run as root with every CPU of the root domain allowed");
		break;
	case EINVAL:
		snprintf(buf, len, "SCHED_DEADLINE refused (EINVAL): the kernel takes runtime <= deadline <= period, a runtime of 1 us or more and a period within /proc/sys/kernel/sched_deadline_period_min_us and _max_us; fix: -r, -d and -p within those");
		break;
	case ENOSYS:
		snprintf(buf, len, "SCHED_DEADLINE refused (ENOSYS): this kernel has no sched_setattr; fix: a kernel with SCHED_DEADLINE (3.14 or later)");
		break;
	default:
		snprintf(buf, len, "SCHED_DEADLINE refused: sched_setattr: %s", strerror(th->err));
	}
}
