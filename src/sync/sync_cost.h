/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * sync_cost.h - test 1, the cost of a wake-up (sync_cost.c).
 */
#ifndef RTLAT_SYNC_COST_H
#define RTLAT_SYNC_COST_H

#include <stdint.h>
#include "harness/test.h"
#include "sync/sync_types.h"

/* 0 or 1 with *err set to a one-line reason. */
int sync_cost(const struct sync_config *c, struct test_run *pt, struct sync_result *r, int64_t end, const char **err);

#endif
