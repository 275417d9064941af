/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * sync_inversion.h - test 3, priority inversion (sync_inversion.c).
 */
#ifndef RTLAT_SYNC_INVERSION_H
#define RTLAT_SYNC_INVERSION_H

#include <stdint.h>
#include "sync/sync_types.h"

/* 0 or 1 with *err set to a one-line reason. */
int sync_inversion(const struct sync_config *c, struct inv_result *r, int64_t end, const char **err);

#endif
