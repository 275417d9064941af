/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * deadline_wait.h - the SCHED_DEADLINE wait method (deadline_wait.c) and
 * the admission control's refusals, each said in one line with its fix.
 */
#ifndef RTLAT_DEADLINE_WAIT_H
#define RTLAT_DEADLINE_WAIT_H

#include <stddef.h>
#include "deadline/deadline_types.h"

extern const struct timer_wait_ops dl_wait_ops;
/* SIGXCPU counted per thread (before the samplers start): 0 or -errno. */
int dl_signals(void);
/* Why the kernel refused thread th (its errno th->err), and the fix. */
void dl_refusal(const struct dl_run *run, const struct dl_thread *th,
		int cpu, char *buf, size_t len);

#endif
