// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * cyclic_extra.c - cyclictest 2.40's options beyond the samplers' own, so
 * that every option of its --help is accepted (lab scripts must not fail
 * on one): -A and --secaligned (a common first wake-up), -F (the named pipe
 * made and removed; cyclic_output.c writes it), -M (redraw on a new maximum), -v and
 * -o (every sample as "n:c:v", printed by the display thread from a ring
 * each sampler fills), -R (the clock's resolution checked), -s (the
 * system call rtlat makes anyway), --deepest-idle-state (idle states
 * disabled for the run), -c 1 and --dbg_cyclictest (accepted,
 * one warning each: no meaning here).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include "measure/clock.h"
#include "util/opts.h"
#include "system/cleanup.h"
#include "timer/cyclic.h"

static const struct cyc_config *cfg_of(const struct timer_run *run)
{
	return (const struct cyc_config *)run->cfg;
}

/* -R: cyclictest's check: clock_getres against the smallest step of
 * clock_gettime seen; a warning when the reported one is finer. */
static void check_resolution(void)
{
	struct timespec res;
	int64_t prev = clock_now_ns(), now, step = INT64_MAX;
	int i;

	if (clock_getres(CLOCK_MONOTONIC, &res))
		return;
	for (i = 0; i < 100000; i++) {
		now = clock_now_ns();
		if (now > prev && now - prev < step)
			step = now - prev;
		prev = now;
	}
	if (step != INT64_MAX && timespec_to_ns(&res) < step)
		fprintf(stderr, "Warning: reported clock resolution: %lld nsec\nmeasured clock resolution approximately: %lld nsec\n",
			(long long)timespec_to_ns(&res), (long long)step);
}

/* -F PATH: the pipe, the run's (the cleanup registry removes it on
 * every way out); one that cannot be made is said, and the run goes on. */
static void make_fifo(const struct timer_run *run, const char *path)
{
	if (mkfifo(path, 0666) && errno != EEXIST) {
		fprintf(stderr, "%s: -F: cannot make a named pipe at %s: %s\n", run->prog, path,
			strerror(errno));
		return;
	}
	if (cleanup_add_file(path))
		unlink(path);
}

int cyc_extra_check(struct test_run *t, struct cyc_config *c)
{
	struct timer_face *f = &((struct timer_run *)t->state)->face;

	c->secaligned = opts_given(t->opts, t->given, 0, "secaligned");
	if (c->secaligned && c->secaligned_us == OPT_AUTO)
		c->secaligned_us = 0;
	if (c->oscope && !c->verbose) {
		opts_error(t->prog, opts_find(t->opts, 'o', NULL), "needs -v; accepted: -v -o RED");
		return -1;
	}
	if (c->clock == 1)
		fprintf(stderr, "%s: -c 1: not CLOCK_REALTIME here: its steps (NTP, settimeofday) would count as latency; measured on CLOCK_MONOTONIC\n",
			t->prog);
	if (c->dbg)
		fprintf(stderr, "%s: --dbg_cyclictest: not in rtlat (cyclictest's own debugging lines); --explain says why a wake-up was late\n",
			t->prog);
	if (c->resolution)
		check_resolution();
	f->verbose = c->verbose;
	return 0;
}

/* One idle state's "disable" file: its value (0/1), or -1 (none). */
static int idle_flag(int cpu, int state, int set)
{
	char path[96], v = 0;
	int fd, n;

	snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%d/cpuidle/state%d/disable",
		 cpu, state);
	fd = open(path, (set < 0 ? O_RDONLY : O_WRONLY) | O_CLOEXEC);
	if (fd < 0)
		return -1;
	if (set >= 0) {
		v = set ? '1' : '0';
		n = write(fd, &v, 1) == 1 ? set : -1;
	} else {
		n = read(fd, &v, 1) == 1 ? v == '1' : -1;
	}
	close(fd);
	return n;
}

/*
 * --deepest-idle-state N: on each thread's CPU, the idle states deeper
 * than N disabled for the run (what was there restored by
 * cyc_extra_end, as cyclictest does; a SIGKILL leaves them disabled, as
 * cyclictest's). No cpuidle here (no driver, a container's read-only
 * sysfs): one line, and the run goes on.
 */
static void limit_idle(struct timer_run *run, struct cyc_config *c)
{
	int i, k, was, max = run->ncpu * 16;

	c->idle = calloc((size_t)max, sizeof(*c->idle));
	for (i = 0; c->idle && i < run->ncpu; i++)
		for (k = (int)c->deepest_idle + 1; k < 16 && c->nidle < max; k++) {
			was = idle_flag(run->plan[i].cpu, k, -1);
			if (was < 0 || idle_flag(run->plan[i].cpu, k, 1) < 0)
				continue;
			c->idle[c->nidle++] = (struct cyc_idle){ run->plan[i].cpu, k, was == 1 };
		}
	if (!c->nidle)
		fprintf(stderr, "%s: --deepest-idle-state: no idle state deeper than %lld to disable on the threads' CPUs (no cpuidle driver, or its sysfs is read-only here)\n",
			run->prog, c->deepest_idle);
}

static void restore_idle(struct cyc_config *c)
{
	int i;

	for (i = 0; i < c->nidle; i++)
		idle_flag(c->idle[i].cpu, c->idle[i].state, c->idle[i].was);
	free(c->idle);
	c->idle = NULL;
	c->nidle = 0;
}

void cyc_extra_start(struct timer_run *run)
{
	const struct cyc_config *c = cfg_of(run);
	/* Far enough that every sampler is up and waiting by then. */
	int64_t start = clock_now_ns() + 100 * NSEC_PER_MSEC;

	if (c->fifo)
		make_fifo(run, c->fifo);
	if (c->deepest_idle >= 0)
		limit_idle(run, (struct cyc_config *)c);

	if (c->secaligned) {
		start = (start / NSEC_PER_SEC + 1) * NSEC_PER_SEC + c->secaligned_us * NSEC_PER_USEC;
		run->face.align_step_ns = 0;
	} else if (c->aligned_us) {
		run->face.align_step_ns = c->aligned_us * NSEC_PER_USEC;
	} else {
		return;
	}
	run->face.align_ns = start;
}

/* -v: every sample taken so far, "%8d:%8lu:%8ld" (thread, cycle, us) as
 * cyclictest; with -o RED one line per RED samples, their maximum. */
static void verbose_drain(struct timer_run *run)
{
	const struct cyc_config *c = cfg_of(run);
	uint64_t red = c->oscope > 1 ? (uint64_t)c->oscope : 1;
	int i;

	for (i = 0; i < run->ncpu; i++) {
		struct timer_vring *r = run->cpu[i].vring;
		uint64_t tail = r->tail, head = __atomic_load_n(&r->head, __ATOMIC_ACQUIRE);
		int64_t lat, max = INT64_MIN;

		for (; tail < head; tail++) {
			lat = r->lat[tail & (TIMER_VRING_SLOTS - 1)];
			if (lat > max)
				max = lat;
			if ((tail + 1) % red)
				continue;
			printf("%8d:%8lu:%8ld\n", i, (unsigned long)(tail / red),
			       (long)(c->nsecs ? max : max / NSEC_PER_USEC));
			max = INT64_MIN;
		}
		/* A partial -o window waits for its other samples. */
		__atomic_store_n(&r->tail, tail - (tail % red), __ATOMIC_RELEASE);
	}
	fflush(stdout);
}

void cyc_extra_poll(struct timer_run *run)
{
	if (run->face.verbose)
		verbose_drain(run);
}

void cyc_extra_end(struct timer_run *run)
{
	const struct cyc_config *c = cfg_of(run);
	uint64_t dropped = 0;
	int i;

	if (run->face.verbose) {
		verbose_drain(run);
		for (i = 0; i < run->ncpu; i++)
			dropped += run->cpu[i].vring->dropped;
		if (dropped)
			fprintf(stderr, "%s: -v: %llu samples not printed (the display thread fell behind the samplers)\n",
				run->prog, (unsigned long long)dropped);
	}
	if (c->fifo) {
		unlink(c->fifo);
		cleanup_del_file(c->fifo);
	}
	restore_idle((struct cyc_config *)c);
}

bool cyc_extra_redraw(struct timer_run *run)
{
	int64_t max = INT64_MIN;
	int i;

	if (!cfg_of(run)->refresh_on_max)
		return true;
	for (i = 0; i < run->ncpu; i++)
		if (run->cpu[i].sum.max > max)
			max = run->cpu[i].sum.max;
	if (max <= run->face.shown_max)
		return false;
	run->face.shown_max = max;
	return true;
}
