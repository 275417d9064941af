/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * pair_output.h - the pair tests' text and JSON (pair_output.c).
 */
#ifndef RTLAT_PAIR_OUTPUT_H
#define RTLAT_PAIR_OUTPUT_H

#include <stdio.h>
#include "pair/pair_types.h"

struct results;

void pair_print_block(FILE *f, const struct pair_run *run);
void pair_write_json(struct pair_run *run, struct results *res);
/* µs rounded to nearest, as rt-tests' integer columns. */
long long ns_to_us_round(double ns);

#endif
