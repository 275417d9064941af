/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * request_layout.h - the CPU layout (request_layout.c).
 */
#ifndef RTLAT_REQUEST_LAYOUT_H
#define RTLAT_REQUEST_LAYOUT_H

#include "request/request_types.h"

/* The default layout over the usable CPUs cpus[0..n-1] (SPEC §4). */
void req_layout_default(struct req_layout *l, const int *cpus, int n);
/* Parse "1,3-5" into l->load_cpus; -1 with *bad set to the bad CPU or -2
 * for a syntax error. */
int req_parse_cpu_list(const char *s, struct req_layout *l, int *bad);
int req_max_loads(const struct req_layout *l);

#endif
