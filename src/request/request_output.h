/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * request_output.h - what the request test prints and writes
 * (request_output.c).
 */
#ifndef RTLAT_REQUEST_OUTPUT_H
#define RTLAT_REQUEST_OUTPUT_H

#include <stdbool.h>
#include <stdio.h>
#include "harness/results.h"
#include "request/request_types.h"

void req_print_layout(FILE *f, const struct req_run *run);
void req_print_round(FILE *f, const struct req_run *run, int k);
void req_log_round(FILE *f, const struct req_run *run, int k);
void req_print_table(FILE *f, const struct req_run *run);
void req_log_table(FILE *f, const struct req_run *run);
void req_write_json(struct req_run *run, struct results *res);
bool req_series_shown(const struct req_run *run, enum req_series s);
/* The series' name on stdout, or in the log (log: they differ only
 * under trltp, as in the design). */
const char *req_series_name(const struct req_run *run, enum req_series s,
			    bool log, char *buf, size_t len);
/* Rounds with output: begun, and (for the last) measured or partial. */
int req_rounds_reported(const struct req_run *run);
bool req_round_partial(const struct req_run *run, int k);

#endif
