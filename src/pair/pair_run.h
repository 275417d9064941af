/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * pair_run.h - open, start, supervise, stop the workers once
 * (pair_run.c).
 */
#ifndef RTLAT_PAIR_RUN_H
#define RTLAT_PAIR_RUN_H

#include "pair/pair_types.h"

int pair_measure_once(struct pair_run *run);
/*
 * The harness inside another test (rtlat sync): run_nested() gives a
 * test_run of a pair test, its config (t->cfg, a struct pair_config) at
 * the defaults and its run (t->state, a struct pair_run); the caller sets
 * the config, then pair_check, pair_setup and pair_measure run as usual;
 * pair_transport_close() closes the transport without a report, and
 * run_nested_free() releases the rest.
 */
void pair_transport_close(struct pair_run *run);

#endif
