// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * timer_tlu.c - -t 3, timerlat's user-space mode (Linux 6.5+, as rtla
 * timerlat -u): the tracer runs without its kernel threads
 * (NO_OSNOISE_WORKLOAD, timer_kernel.c), and rtlat's own thread, pinned
 * to its CPU alone at -P (one per CPU of -c), opens that CPU's
 * osnoise/per_cpu/cpuN/timerlat_fd; each
 * read() arms timerlat's timer, blocks until it fires and returns once
 * the thread runs again. The tracer then writes three samples per
 * activation: the timer IRQ's latency ("irq"), the thread's wake-up in
 * the kernel ("thread": the series, as -t 1's) and its return to the
 * kernel at the next read ("user-ret": what the thread did between
 * included). The reader (timer_kernel.c) takes them from trace_pipe.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>
#include "measure/clock.h"
#include "util/json.h"
#include "system/rtsetup.h"
#include "system/tracefs.h"
#include "harness/test.h"
#include "timer/timer_tlu.h"

static const char *const ctx_names[TL_CTXS] = { "irq", "thread", "user_ret" };

void tlu_context(struct timer_cpu *c, const struct timerlat_sample *s)
{
	const struct timer_config *cfg = c->run->cfg;
	struct timer_second *x = &c->tlr.ctx[s->ctx];
	int64_t from = c->start_ns + TIMER_WARMUP_S * NSEC_PER_SEC;
	int64_t exp = s->ts - s->lat;

	/* The seconds measured: after the warm-up, before the end of -T. */
	if (!c->start_ns || exp < from ||
	    (cfg->duration_s && exp >= from + cfg->duration_s * NSEC_PER_SEC))
		return;
	second_add(x, s->lat);
}

/* --user-work: the thread's own work between two wake-ups, on the CPU. */
static void spin(int64_t ns)
{
	int64_t until = clock_now_ns() + ns;

	while (clock_now_ns() < until)
		;
}

static void *tlu_thread(void *arg)
{
	struct timer_cpu *c = arg;
	struct timer_run *run = c->run;
	int64_t work = run->cfg->user_work_us * NSEC_PER_USEC;
	char path[320], buf[64];
	int fd, err = 0;

	prctl(PR_SET_NAME, "rtlat-timerlat-u");
	/* timerlat_fd refuses a thread that may run elsewhere (EPERM). */
	rt_thread_setup_policy(c->plan.policy, c->plan.prio, c->cpu);
	snprintf(path, sizeof(path), "%s/osnoise/per_cpu/cpu%d/timerlat_fd",
		 tracefs_dir(), c->cpu);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		err = errno;
	/* A read returns at each wake-up (the period is at most 1 s): the
	 * stop flag is seen within a period. */
	while (!err && !atomic_load_explicit(&run->stop, memory_order_relaxed)) {
		if (read(fd, buf, sizeof(buf)) < 0 && errno != EINTR)
			err = errno;
		else if (work)
			spin(work);
	}
	if (fd >= 0)
		close(fd);
	atomic_store_explicit(&c->tlr.uthread_error, err, memory_order_relaxed);
	atomic_store_explicit(&c->tlr.uthread_done, 1, memory_order_release);
	if (err)
		atomic_store_explicit(&run->stop, 1, memory_order_relaxed);
	return NULL;
}

int tlu_start(struct timer_cpu *c)
{
	struct tl_reader *tl = &c->tlr;
	int err, i;

	for (i = 0; i < TL_CTXS; i++)
		second_reset(&tl->ctx[i], 0);
	atomic_store_explicit(&tl->uthread_done, 0, memory_order_relaxed);
	atomic_store_explicit(&tl->uthread_error, 0, memory_order_relaxed);
	err = run_thread(&tl->uthread, tlu_thread, c);
	if (err) {
		fprintf(stderr, "%s: cannot start a thread: %s\n", c->run->prog, strerror(err));
		return -1;
	}
	tl->uthread_started = true;
	return 0;
}

/* One CPU's thread stopped and joined: its errno, or 0. */
static int tlu_stop_cpu(struct timer_cpu *c)
{
	struct tl_reader *tl = &c->tlr;

	if (!tl->uthread_started)
		return 0;
	while (!atomic_load_explicit(&tl->uthread_done, memory_order_acquire)) {
		pthread_kill(tl->uthread, RUN_KICK_SIGNAL);
		usleep(1000);
	}
	pthread_join(tl->uthread, NULL);
	tl->uthread_started = false;
	return atomic_load_explicit(&tl->uthread_error, memory_order_relaxed);
}

int tlu_stop(struct timer_run *run)
{
	int i, err, failed = -1, first = 0;

	for (i = 0; run->cpu && i < run->ncpu; i++) {
		err = tlu_stop_cpu(&run->cpu[i]);
		if (err && failed < 0) {
			failed = i;
			first = err;
		}
	}
	if (failed < 0)
		return 0;
	snprintf(run->tl.error, sizeof(run->tl.error), "timerlat: osnoise/per_cpu/cpu%d/timerlat_fd: %s",
		 run->cpu[failed].cpu, strerror(first));
	fprintf(stderr, "%s: %s\n", run->prog, run->tl.error);
	return -1;
}

void tlu_json(struct json *j, const struct timer_run *run)
{
	int i, k;

	if (run->cfg->mode != MODE_TIMERLAT_USER)
		return;
	json_obj_open(j, "timerlat_contexts");
	for (i = 0; i < TL_CTXS; i++) {
		struct timer_second all, *x = &all;

		/* Over every CPU's thread. */
		second_reset(x, 0);
		for (k = 0; k < run->ncpu; k++) {
			const struct timer_second *y = &run->cpu[k].tlr.ctx[i];

			if (!y->n)
				continue;
			x->n += y->n;
			x->sum += y->sum;
			x->min = y->min < x->min ? y->min : x->min;
			x->max = y->max > x->max ? y->max : x->max;
		}
		json_obj_open(j, ctx_names[i]);
		json_uint(j, "samples", x->n);
		json_int(j, "min_ns", x->n ? x->min : 0);
		json_double(j, "avg_ns", x->n ? (double)x->sum / (double)x->n : 0);
		json_int(j, "max_ns", x->n ? x->max : 0);
		json_obj_close(j);
	}
	json_obj_close(j);
}
