/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * timer_kernel.h - -t 1 and 2 through the kernel's timerlat tracer
 * (timer_kernel.c).
 */
#ifndef RTLAT_TIMER_KERNEL_H
#define RTLAT_TIMER_KERNEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "timer/timer_types.h"

/* One sample line of the timerlat tracer. */
struct timerlat_sample {
	bool irq;		/* IRQ context, else a thread's */
	int ctx;		/* TL_CTX_*: irq, thread or user-ret (-t 3) */
	uint64_t seq;		/* the activation (#N), shared by both */
	int64_t ts;		/* the trace's stamp, ns */
	int64_t lat;		/* timer_latency, ns */
};

int timerlat_start(struct timer_cpu *c, char *err, size_t len);
/* Restore the tracer's settings (once; safe if never started). */
void timerlat_stop(struct timer_run *run);
void *timer_kernel_reader(void *arg);
/* The reader's loop on fd (trace_pipe): feeds the samples of the mode
 * measured until the run ends; returns 0 or an errno (EIO at EOF). */
int timerlat_read(struct timer_cpu *c, int fd);
/* Parse one timerlat trace line: 0, or -1 if it is not a sample. */
int timerlat_parse(const char *line, struct timerlat_sample *s);

#endif
