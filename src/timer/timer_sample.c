// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * timer_sample.c - the sampling thread. Per wake-up: one clock read, the
 * latency against the expected time, O(1) statistics. Once a second the
 * finished second goes into the ring for the display thread. No
 * allocation, no formatting, no I/O (but -f's trace marker, which the
 * user asked for and which comes after the sample was taken), no lock.
 */
#include <errno.h>
#include <sched.h>
#include <stdatomic.h>
#include <sys/syscall.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <unistd.h>
#include "measure/clock.h"
#include "system/rtsetup.h"
#include "timer/timer_sample.h"
#include "system/tracefs.h"

/* Involuntary context switches of this thread: Linux's nearest thing to
 * a Xenomai mode switch (something took the CPU from the sampler). */
static uint64_t involuntary_switches(void)
{
	struct rusage ru;

	if (getrusage(RUSAGE_THREAD, &ru))
		return 0;
	return (uint64_t)ru.ru_nivcsw;
}

/* -f: lat is the run's new maximum (every CPU's, warm-up included; 0
 * at first: a maximum is a delay). The trace is the whole machine's, so
 * one maximum for the run keeps the snapshot the largest's. */
static bool new_max(struct timer_run *run, int64_t lat)
{
	int64_t cur = __atomic_load_n(&run->freeze_max, __ATOMIC_RELAXED);

	while (lat > cur)
		if (__atomic_compare_exchange_n(&run->freeze_max, &cur, lat, false,
						__ATOMIC_RELAXED, __ATOMIC_RELAXED))
			return true;
	return false;
}

/* -f, at each new maximum: a constant marker (the sampling thread
 * formats nothing), then the trace swapped into the snapshot buffer, so
 * that it keeps the largest's while tracing goes on, as the original's
 * frozen trace. Without a snapshot buffer tracing stops at the first. */
static void freeze(struct timer_cpu *c, int64_t lat)
{
	if (tracefs_snapshot("rtlat timer: new maximum latency, trace snapshot taken\n")) {
		c->frozen_ns = lat;
		c->snapshots++;
		return;
	}
	tracefs_break("rtlat timer: new maximum latency, tracing stopped\n");
	if (!c->frozen_ns)
		c->frozen_ns = lat;
}

/* The second cur is over: hand it to the display thread. */
static void publish(struct timer_feed *sp, bool partial)
{
	struct timer_cpu *c = sp->c;
	uint64_t msw;

	if (!sp->cur.index || !sp->cur.n)
		return;
	msw = sp->count_msw ? involuntary_switches() - sp->msw_base : 0;
	if (c->run->cfg->break_switch && msw > sp->msw) {
		c->switched = 1;
		atomic_store_explicit(&c->run->stop, 1, memory_order_relaxed);
	}
	sp->msw = msw;
	sp->cur.msw = msw;
	sp->cur.overruns = c->overruns;
	sp->cur.partial = partial;
	ring_push(&c->ring, &sp->cur);
}

/* This thread runs on cpu and may run nowhere else (set: its CPUs). */
static bool pinned_to(int cpu, cpu_set_t *set)
{
	CPU_ZERO(set);
	if (sched_getaffinity(0, sizeof(*set), set))
		CPU_SET(cpu, set);	/* unknown: where it runs */
	return sched_getcpu() == cpu && CPU_COUNT(set) == 1 && CPU_ISSET(cpu, set);
}

/*
 * Once a second, between two wake-ups: a CPU taken offline moves its
 * threads elsewhere and widens their affinity for good, so a sampler
 * still on its CPU and pinned to it alone has not been moved. Moved, it
 * stops: what it would measure now is another CPU's.
 */
static bool moved_off(struct timer_cpu *c, uint64_t idx)
{
	if (pinned_to(c->cpu, &c->moved_set))
		return false;
	c->moved_s = idx ? idx - 1 : 0;
	atomic_store_explicit(&c->moved, 1, memory_order_release);
	return true;
}

/* A sample of second idx arrived: close the current one. Returns false
 * when the run is over (-T seconds measured). */
static bool next_second(struct timer_feed *sp, uint64_t idx)
{
	struct timer_cpu *c = sp->c;

	if (sp->cur.index == 0 && sp->count_msw)	/* warm-up over */
		sp->msw_base = involuntary_switches();
	else
		publish(sp, false);
	second_reset(&sp->cur, idx);
	if (c->switched)	/* -b: nothing after the second that broke */
		return false;
	if (sp->watch && moved_off(c, idx))
		return false;
	return !c->run->cfg->duration_s || idx <= (uint64_t)c->run->cfg->duration_s;
}

/* The cyclictest face's extras: --spike, -h's overflow cycles, -b. All
 * O(1) into what setup sized. Returns false when -b ends the run. */
static bool face_sample(struct timer_cpu *c, int64_t exp, int64_t lat)
{
	const struct timer_face *f = &c->run->face;
	struct timer_run *run = c->run;

	if (c->vring)
		vring_push(c->vring, lat);
	if (f->spike_ns && lat > f->spike_ns) {
		if (c->nspikes < f->spike_max)
			c->spikes[c->nspikes] = (struct timer_spike){ lat, exp + lat };
		c->nspikes++;
	}
	if (f->over_ns && lat >= f->over_ns) {
		if (c->nover < f->over_max)
			c->over_cycle[c->nover] = c->cycles - 1;
		c->nover++;
	}
	if (!f->break_ns || lat <= f->break_ns)
		return true;
	if (f->tracemark)
		tracefs_break("rtlat cyclictest: latency over -b, tracing stopped\n");
	if (!__atomic_load_n(&run->broke, __ATOMIC_RELAXED)) {
		run->broke_ns = lat;
		__atomic_store_n(&run->broke, (int)(c - run->cpu) + 1, __ATOMIC_RELEASE);
	}
	atomic_store_explicit(&run->stop, 1, memory_order_relaxed);
	return false;
}

static bool record(struct timer_feed *sp, int64_t exp, int64_t lat, uint64_t missed)
{
	struct timer_cpu *c = sp->c;

	second_add(&sp->cur, lat);
	stats_add(&c->all, lat);
	record_add(c->rec, exp + lat, lat);
	hist_add_abs(&c->avg, lat);
	c->overruns += missed;
	c->cycles++;
	if (c->run->cfg->freeze && new_max(c->run, lat))
		freeze(c, lat);
	if (!face_sample(c, exp, lat))
		return false;
	if (!c->run->face.loops || c->cycles < c->run->face.loops)
		return true;
	/* -l: as cyclictest, the first thread at -l ends them all. */
	atomic_store_explicit(&c->run->stop, 1, memory_order_relaxed);
	return false;
}

uint64_t timer_missed(uint64_t ticks, int64_t lat, int64_t period)
{
	if (ticks)
		return ticks - 1;
	/* Woken a whole period late or more: those expiries have passed. */
	return lat >= period ? (uint64_t)(lat / period) : 0;
}

void feed_init(struct timer_feed *sp, struct timer_cpu *c, bool count_msw)
{
	sp->c = c;
	sp->count_msw = count_msw;
	sp->msw_base = sp->msw = 0;
	sp->watch = false;
	second_reset(&sp->cur, 0);
}

bool feed_sample(struct timer_feed *sp, int64_t exp, int64_t lat, uint64_t missed)
{
	struct timer_cpu *c = sp->c;
	/* Second 0 is the warm-up, unless the face counts from the first. */
	uint64_t idx = (uint64_t)((exp - c->start_ns) / NSEC_PER_SEC) +
		       (c->run->face.no_warmup ? 1 : 0);
	bool more = true;

	if (idx != sp->cur.index && !next_second(sp, idx))
		return false;
	if (idx) {
		more = record(sp, exp, lat, missed);
		if (c->explain)
			explain_note(c->explain, exp, lat);
		return more;
	}
	else if (c->run->cfg->freeze)	/* -f: beat the warm-up too */
		new_max(c->run, lat);
	return true;
}

void feed_end(struct timer_feed *sp)
{
	if (sp->cur.index && sp->cur.n)
		publish(sp, true);
}

static int sample_loop(struct timer_feed *sp)
{
	struct timer_cpu *c = sp->c;
	struct timer_wait *w = &c->wait;
	uint64_t ticks, missed;
	int64_t now, exp, lat;
	int err;

	for (;;) {
		err = w->ops->wait(w, &ticks);
		now = clock_now_ns();
		if (atomic_load_explicit(&c->run->stop, memory_order_relaxed))
			return 0;
		if (err == -EINTR)
			continue;
		if (err)
			return err;
		exp = w->expected;
		if (now < exp && w->ops->reanchor)
			exp = now;
		lat = now - exp;
		missed = timer_missed(ticks, lat, w->period);
		w->expected = exp + (int64_t)(1 + missed) * w->period;
		if (!feed_sample(sp, exp, lat, missed))
			return 0;
	}
}

void *timer_sampler(void *arg)
{
	struct timer_cpu *c = arg;
	struct timer_feed sp;
	int err;

	prctl(PR_SET_NAME, "rtlat-sampler");
	/* Atomic: a status (SIGUSR1) may print it from the display thread
	 * before this thread's first second. */
	__atomic_store_n(&c->tid, (int)syscall(SYS_gettid), __ATOMIC_RELEASE);
	feed_init(&sp, c, true);
	rt_thread_setup_policy(c->plan.policy, c->plan.prio, c->cpu);
	/* Watched where the pinning took (rt_warn said it if not). */
	sp.watch = c->run->face.watch_cpu && c->cpu >= 0 &&
		   pinned_to(c->cpu, &c->moved_set);
	explain_attach(c->explain);
	c->wait.period = c->plan.period_ns;
	/* The first expiry 1 ms from now, as the original, or the face's
	 * common one (-A, --secaligned: thread N at its offset). */
	c->start_ns = c->run->face.align_ns ?
		      c->run->face.align_ns + (c - c->run->cpu) * c->run->face.align_step_ns :
		      clock_now_ns() + NSEC_PER_MSEC;
	err = c->wait.ops->open(&c->wait, c->start_ns);
	if (!err)
		err = sample_loop(&sp);
	if (err)
		c->error = -err;
	else
		feed_end(&sp);
	c->wait.ops->close(&c->wait);
	c->last_cpu = sched_getcpu();
	atomic_store_explicit(&c->sampler_done, 1, memory_order_release);
	return NULL;
}
