/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * sync_switch.h - test 2, the switch, through the pair harness
 * (sync_switch.c).
 */
#ifndef RTLAT_SYNC_SWITCH_H
#define RTLAT_SYNC_SWITCH_H

#include "harness/test.h"
#include "sync/sync_types.h"

/* Check and set up the pair harness for tests 1 and 2 (sync_switch.c):
 * 0, or -1 after the message. */
int sync_pair_prepare(const struct sync_config *c, const char *prog,
		      struct test_run *pt);
/* 0 or 1 with *err set to a one-line reason. */
int sync_switch(struct test_run *pt, struct sync_result *r, const char **err);
/* Test 2's series as it stands, for a status or checkpoint: its result
 * once it ran, the pair harness's live series while it runs (the
 * checkpoint thread copies it with checkpoint_stats_copy, as
 * pair_checkpoint does), else the empty result. */
const struct stats *sync_switch_live(const struct test_run *pt,
				     const struct sync_result *r);
/* Test 2's estimate from the design text: round trip / 2 - test 1. */
double sync_ctx_estimate(double round_trip_ns, double cost_ns);

#endif
