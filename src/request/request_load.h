/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * request_load.h - a load process (request_load.c).
 */
#ifndef RTLAT_REQUEST_LOAD_H
#define RTLAT_REQUEST_LOAD_H

#include "request/request_types.h"

/* Never returns. */
void req_load_child(struct req_run *run, int index);

#endif
