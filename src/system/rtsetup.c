// SPDX-License-Identifier: GPL-2.0-or-later
/* rtsetup.c - mlockall, SCHED_FIFO, affinity, cpu_dma_latency. */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <sched.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <unistd.h>
#include "system/cleanup.h"
#include "util/json.h"
#include "system/rtsetup.h"

#define RT_MAX_REASONS 16
#define RT_REASON_LEN 200

/* Shared between the main process and forked workers. */
struct rt_record {
	pthread_mutex_t lock;
	int nreasons;
	char reasons[RT_MAX_REASONS][RT_REASON_LEN];
	bool mlocked;
	bool dma_held;
	bool strict;
	char prog[64];
};

static struct rt_record *rec;
static int dma_fd = -1;

static struct rt_record *record(void)
{
	pthread_mutexattr_t a;

	if (rec)
		return rec;
	rec = shared_alloc(sizeof(*rec));
	if (!rec)
		return NULL;
	pthread_mutexattr_init(&a);
	pthread_mutexattr_setpshared(&a, PTHREAD_PROCESS_SHARED);
	pthread_mutex_init(&rec->lock, &a);
	pthread_mutexattr_destroy(&a);
	snprintf(rec->prog, sizeof(rec->prog), "rtlat");
	return rec;
}

void rt_warn(const char *fmt, ...)
{
	struct rt_record *r = record();
	char msg[RT_REASON_LEN];
	va_list ap;
	int i;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (!r) {
		fprintf(stderr, "rtlat: warning: %s\n", msg);
		return;
	}
	pthread_mutex_lock(&r->lock);
	for (i = 0; i < r->nreasons; i++)
		if (!strcmp(r->reasons[i], msg))
			goto out;
	if (r->nreasons < RT_MAX_REASONS)
		memcpy(r->reasons[r->nreasons++], msg, sizeof(msg));
	fprintf(stderr, "%s: %s: %s\n", r->prog,
		r->strict ? "error" : "warning", msg);
out:
	pthread_mutex_unlock(&r->lock);
}

bool rt_all_applied(void)
{
	return !rec || rec->nreasons == 0;
}

static void hold_dma_latency(void)
{
	int32_t zero = 0;

	dma_fd = open("/dev/cpu_dma_latency", O_RDWR | O_CLOEXEC);
	if (dma_fd < 0) {
		rt_warn("cannot hold /dev/cpu_dma_latency at 0: %s", strerror(errno));
		return;
	}
	if (write(dma_fd, &zero, sizeof(zero)) != sizeof(zero)) {
		rt_warn("cannot write /dev/cpu_dma_latency: %s", strerror(errno));
		close(dma_fd);
		dma_fd = -1;
		return;
	}
	rec->dma_held = true;
}

static void lock_memory(void)
{
#if defined(__SANITIZE_ADDRESS__)
	/* ASan's shadow memory is terabytes of reservations: never lock it.
	 * The JSON shows "mlockall": false; no warning, so tests read the
	 * same stderr from both builds. */
#else
	if (mlockall(MCL_CURRENT | MCL_FUTURE)) {
		rt_warn("mlockall failed: %s", strerror(errno));
		return;
	}
	rec->mlocked = true;
#endif
}

int rt_init(const char *prog, const struct rt_options *o)
{
	const char *slash = strrchr(prog, '/');

	if (!record())
		return -1;
	snprintf(rec->prog, sizeof(rec->prog), "%s", slash ? slash + 1 : prog);
	rec->strict = o->strict;
	if (!o->no_mlock)
		lock_memory();
	if (!o->no_dma_latency)
		hold_dma_latency();
	return o->strict && rec->nreasons ? -1 : 0;
}

int rt_record_share(void)
{
	return record() ? 0 : -ENOMEM;
}

void rt_child_init(void)
{
	if (rec && rec->mlocked && mlockall(MCL_CURRENT | MCL_FUTURE))
		rt_warn("mlockall failed in a worker process: %s", strerror(errno));
}

#define RT_STACK_BYTES (256 * 1024)

int rt_thread_attr(pthread_attr_t *attr)
{
	int err = pthread_attr_init(attr);

	if (!err)
		err = pthread_attr_setstacksize(attr, RT_STACK_BYTES);
	return err;
}

int rt_thread_create_quiet(pthread_t *t, const pthread_attr_t *attr,
			   void *(*fn)(void *), void *arg)
{
	sigset_t all, old;
	int err;

	/* The new thread inherits the mask: blocked from its first step. */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	err = pthread_create(t, attr, fn, arg);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	return err;
}

void rt_fini(void)
{
	if (dma_fd >= 0)
		close(dma_fd);
	dma_fd = -1;
}

static int set_affinity(int cpu)
{
	cpu_set_t set;
	int err;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	err = pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
	if (err)
		rt_warn("cannot pin to CPU %d: %s", cpu, strerror(err));
	return err;
}

static int set_policy(int policy, int prio)
{
	struct sched_param sp = { .sched_priority = prio };
	int err = pthread_setschedparam(pthread_self(), policy, &sp);

	if (err)
		rt_warn("cannot set %s priority %d: %s (needs root, CAP_SYS_NICE or RLIMIT_RTPRIO)",
			policy == SCHED_RR ? "SCHED_RR" : "SCHED_FIFO", prio,
			strerror(err));
	return err;
}

int rt_thread_setup_policy(int policy, int prio, int cpu)
{
	int bad = 0;

	record();
	if (cpu >= 0)
		bad |= set_affinity(cpu) != 0;
	/* SCHED_BATCH and SCHED_IDLE have no priority (the cyclictest
	 * face's --policy batch|idle). */
	if (prio > 0 || policy == SCHED_BATCH || policy == SCHED_IDLE)
		bad |= set_policy(policy, prio) != 0;
	return bad && rec && rec->strict ? -1 : 0;
}

bool rt_dma_held(void)
{
	return dma_fd >= 0;
}

int rt_dma_set(int32_t us)
{
	if (dma_fd < 0)
		return -EBADF;
	/* The request held is the last value written on this descriptor. */
	if (write(dma_fd, &us, sizeof(us)) != sizeof(us))
		return -errno;
	return 0;
}

int rt_thread_setup(int prio, int cpu)
{
	return rt_thread_setup_policy(SCHED_FIFO, prio, cpu);
}

int rt_probe(int prio, int cpu)
{
	struct sched_param sp;
	cpu_set_t set;
	int policy, ret;

	pthread_getschedparam(pthread_self(), &policy, &sp);
	pthread_getaffinity_np(pthread_self(), sizeof(set), &set);
	ret = rt_thread_setup(prio, cpu);
	pthread_setschedparam(pthread_self(), policy, &sp);
	pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
	return ret;
}

void rt_json(struct json *j, const char *key)
{
	int i;

	record();
	json_obj_open(j, key);
	json_bool(j, "rt", rt_all_applied());
	json_bool(j, "mlockall", rec && rec->mlocked);
	json_bool(j, "cpu_dma_latency", rec && rec->dma_held);
	json_bool(j, "strict", rec && rec->strict);
	json_arr_open(j, "reasons");
	for (i = 0; rec && i < rec->nreasons; i++)
		json_str(j, NULL, rec->reasons[i]);
	json_arr_close(j);
	json_obj_close(j);
}

void rt_sigpending_hint(char *buf, size_t len)
{
	char line[128], q[64] = "unknown";
	struct rlimit rl;
	FILE *f = fopen("/proc/self/status", "r");

	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "SigQ: %63s", q) == 1)
			break;
	if (f)
		fclose(f);
	if (getrlimit(RLIMIT_SIGPENDING, &rl))
		rl.rlim_cur = 0;
	snprintf(buf, len, "the user's queued signals (SigQ %s) reached RLIMIT_SIGPENDING (%llu); raise it with ulimit -i or prlimit --sigpending",
		 q, (unsigned long long)rl.rlim_cur);
}
