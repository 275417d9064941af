/* SPDX-License-Identifier: GPL-2.0-or-later */
/* sysinfo.h - the system snapshot recorded with every result. */
#ifndef RTLAT_SYSINFO_H
#define RTLAT_SYSINFO_H

#include <stddef.h>

struct json;

/* rt-tests' "sysinfo" object: sysname..machine, realtime. */
void sysinfo_json_compat(struct json *j);
/* rtlat's "system" object: kernel, preemption model, /sys/kernel/realtime,
 * clocksource, cmdline, isolated CPUs, governors, RT throttling. */
void sysinfo_json(struct json *j);
/* "PREEMPT_RT", "PREEMPT_DYNAMIC", "PREEMPT", "voluntary", "none"... */
const char *sysinfo_preempt_model(void);
/* 1 on a PREEMPT_RT kernel (/sys/kernel/realtime, else uname -v), else 0. */
int sysinfo_realtime(void);
/* First line of a file, trailing newline removed; "" if unreadable. */
const char *sysinfo_read_line(const char *path, char *buf, size_t len);
/* A number in a /proc or /sys file; -1 if unreadable. */
long long sysinfo_read_ll(const char *path);

#endif
