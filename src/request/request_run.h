/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * request_run.h - the request test's run (request_run.c): local and
 * client-only modes, server-only mode, then what they print and write.
 */
#ifndef RTLAT_REQUEST_RUN_H
#define RTLAT_REQUEST_RUN_H

#include "harness/results.h"
#include "request/request_types.h"

int req_measure(struct req_run *run);
int req_serve(struct req_run *run);
int req_report(struct req_run *run, struct results *res);
/* --checkpoint (harness/checkpoint.h). */
void req_checkpoint(struct test_run *t);
/* The series results_summary() reports (rtlat --list). */
extern const char *const req_series[];

#endif
