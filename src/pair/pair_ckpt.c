// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * pair_ckpt.c - --checkpoint for the pair tests (harness/checkpoint.h):
 * the pairs' series copied while their receivers go on adding, written
 * by the report's own writers. Stream mode (--throughput) has no
 * checkpoint: its figures are per size, at the end.
 */
#include <stdlib.h>
#include <string.h>
#include "harness/checkpoint.h"
#include "pair/pair_output.h"
#include "pair/pair_test.h"

void pair_checkpoint(struct test_run *t)
{
	const struct pair_run *run = t->state;
	struct pair_run snap;
	int i, err = 0;

	if (!run->pairs || run->cfg->stream || !run->started_any)
		return;
	snap = *run;
	snap.pairs = calloc((size_t)run->npairs, sizeof(*snap.pairs));
	if (!snap.pairs)
		return;
	for (i = 0; i < run->npairs && !err; i++) {
		snap.pairs[i] = run->pairs[i];
		memset(&snap.pairs[i].lat.hist, 0, sizeof(snap.pairs[i].lat.hist));
		err = checkpoint_stats_copy(&snap.pairs[i].lat, &run->pairs[i].lat);
	}
	if (!err) {
		pair_summary(&t->res, &snap);
		pair_write_json(&snap, &t->res);
	}
	while (i-- > 0)
		checkpoint_stats_free(&snap.pairs[i].lat);
	free(snap.pairs);
}
