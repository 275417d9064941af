// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * request_load.c - a load process of the request test, at SCHED_RR
 * minimum priority: it waits for REQ_SIG_LOAD, then until told to stop:
 * open a file in the run's private temp directory, a 65536-point FFT
 * forward and inverse, write the 65536 values, close and delete the file,
 * sched_yield. CPU, cache, memory and file-system load in one.
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "measure/clock.h"
#include "measure/fft.h"
#include "request/request_types.h"
#include "request/request_child.h"
#include "request/request_load.h"

#define LOAD_POINTS	65536

struct load {
	struct fft_plan plan;
	double *re, *im;
	char path[128];
};

static void fill(struct load *w, int index)
{
	size_t i;

	/* Two tones and a ramp: a signal with something in every bin. */
	for (i = 0; i < LOAD_POINTS; i++) {
		w->re[i] = sin(2.0 * M_PI * 50.0 * (double)i / LOAD_POINTS) +
			   0.5 * cos(2.0 * M_PI * (120.0 + index) * (double)i /
				     LOAD_POINTS) + (double)i / LOAD_POINTS;
		w->im[i] = 0.0;
	}
}

static int work(struct load *w)
{
	size_t len = LOAD_POINTS * sizeof(double);
	ssize_t n;
	int fd;

	fd = open(w->path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0)
		return -errno;
	fft_forward(&w->plan, w->re, w->im);
	fft_inverse(&w->plan, w->re, w->im);
	n = write(fd, w->re, len);
	close(fd);
	unlink(w->path);
	sched_yield();
	return n == (ssize_t)len ? 0 : n < 0 ? -errno : -EIO;
}

/* Wait for the start signal, looking at stop now and then. */
static bool wait_start(struct req_shared *sh, const sigset_t *set)
{
	struct timespec ts = { 0, 100 * NSEC_PER_MSEC };

	while (!sh->stop)
		if (sigtimedwait(set, NULL, &ts) == REQ_SIG_LOAD)
			return true;
	return false;
}

void req_load_child(struct req_run *run, int index)
{
	const struct req_layout *l = &run->layout;
	struct load w;
	char name[16];
	sigset_t set;
	int err;

	sigemptyset(&set);
	sigaddset(&set, REQ_SIG_LOAD);
	sigprocmask(SIG_BLOCK, &set, NULL);
	snprintf(name, sizeof(name), "rtlat-load%d", index);
	req_child_begin(run, name, -1, SCHED_RR, l->load_prio,
			req_load_cpu(l, index));
	snprintf(w.path, sizeof(w.path), "%s/load-%d", run->tmpdir, index);
	w.re = malloc(LOAD_POINTS * sizeof(double));
	w.im = malloc(LOAD_POINTS * sizeof(double));
	if (!w.re || !w.im || fft_plan_init(&w.plan, LOAD_POINTS)) {
		req_fail(run->sh, "load process %d: out of memory", index);
		_exit(1);
	}
	fill(&w, index);
	atomic_store_explicit(&run->sh->load_ready[index], 1, memory_order_release);
	if (!wait_start(run->sh, &set))
		_exit(0);
	while (!run->sh->stop) {
		err = work(&w);
		if (err) {
			req_fail(run->sh, "load process %d: %s: %s", index,
				 w.path, strerror(-err));
			_exit(1);
		}
	}
	_exit(0);
}
