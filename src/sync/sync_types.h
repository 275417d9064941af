/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * sync_types.h - rtlat sync: test 1, a semaphore's cost (post then wait, one
 * thread, sync_cost.c); test 2, ping-pong through the pair harness and
 * the context-switch estimate (sync_switch.c); test 3, priority inversion
 * (sync_inversion.c).
 */
#ifndef RTLAT_SYNC_TYPES_H
#define RTLAT_SYNC_TYPES_H

#include <stdbool.h>
#include <stdint.h>
#include "measure/stats.h"
#include "harness/test.h"

enum sync_test { SYNC_ALL, SYNC_COST, SYNC_SWITCH, SYNC_INVERSION };
enum sync_type { TYPE_POSIX, TYPE_NAMED, TYPE_SYSV, TYPE_MUTEX };
enum sync_proto { PROTO_NONE, PROTO_INHERIT, PROTO_PROTECT };

/* PTHREAD_PRIO_PROTECT needs pthread_mutexattr_setprioceiling: glibc
 * (and uClibc-ng) have it; musl declares it but has none. */
#ifdef __GLIBC__
#define SYNC_HAVE_PRIOCEILING 1
#else
#define SYNC_HAVE_PRIOCEILING 0
#endif

struct sync_config {
	long long test, type, protocol;
	long long loops, rounds, duration_s, prio, cpu;
	long long hog_ms, cs_us, margin_us;
	bool fork;
	struct test_common common;
};

struct sync_result {
	bool ran;
	struct stats s;
	struct rec_series *rec;		/* --timeline, --largest; or NULL */
};

struct inv_result {
	bool ran;
	struct stats s;			/* high task's blocking, ns */
	struct rec_series *rec;		/* --timeline, --largest; or NULL */
	uint64_t skipped;		/* rounds the low task was late */
	uint64_t bounded;		/* rounds within cs + margin */
	int64_t bound_ns;
};

/* What one run measured (t->state), and the pair test it runs. */
struct sync_run {
	struct sync_result cost, sw;
	struct inv_result inv;
	const char *error;
	struct test_run pair;
};

#endif
