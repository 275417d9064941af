/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * doctor_context.h - rtlat doctor's checks of where it runs: in a
 * container (doctor_container.c) and in a guest (doctor_guest.c), each
 * with a verdict and the fix in the engine's or the host owner's terms.
 */
#ifndef RTLAT_DOCTOR_CONTEXT_H
#define RTLAT_DOCTOR_CONTEXT_H

#include "system/context.h"
#include "system/preflight.h"

#define DOCTOR_CONTAINER_NITEMS 6
#define DOCTOR_GUEST_NITEMS 4
#define DOCTOR_CTX_NITEMS (DOCTOR_CONTAINER_NITEMS + DOCTOR_GUEST_NITEMS)

/* The CPUs a test will ask for (doctor -c LIST); n 0: none named. */
struct doctor_want {
	const int *cpus;
	int n;
};

void doctor_container_checks(struct pf_item *items, const struct context *c,
			     const struct doctor_want *w);
/* Steal time is sampled over a short window when in a VM. */
void doctor_guest_checks(struct pf_item *items, const struct context *c);
/* Both into items[DOCTOR_CTX_NITEMS]; returns the worst verdict. */
enum verdict doctor_context_run(struct pf_item *items, const struct doctor_want *w);
/* Busy real-time tasks on the CPUs to measure (doctor_hogs.c): sampled
 * for a short while, each named with the fix. */
void doctor_hogs_check(struct pf_item *it, const struct doctor_want *w);
/* The fix in the terms of where it runs: a pod spec, podman/docker run
 * options, or the host's own. */
const char *doctor_fix(const struct context *c, const char *engine_opts,
		       const char *pod_spec, const char *host);

#endif
