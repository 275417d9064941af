// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * manpage_samples.c - the SAMPLES FILE section of every test's man page:
 * the binary layout --samples writes (measure/record_samples.c), what a
 * reader needs without rtlat's sources.
 */
#include <stdio.h>
#include "manpage.h"
#include "util/opts.h"

/* --samples' binary layout (measure/record_samples.c), for every test. */
void man_samples_section(FILE *f, const struct opt *tbl)
{
	if (!opts_find(tbl, 0, "samples-file"))
		return;
	fputs(".SH SAMPLES FILE\n\\fB\\-\\-samples\\fR \\fIFILE\\fR (or \\fB\\-\\-samples\\-file\\fR; in rtlat request, whose \\fB\\-\\-samples\\fR counts cycles, only that) holds every sample, "
	      "in the byte order of the machine that wrote it (\\fIbyte_order\\fR reads "
	      "0x01020304 there). All integers are fixed width (u32, i32: 4 bytes; i64, u64: 8).\n"
	      ".TP\nheader, 64 bytes\n\"RTLATSMP\", u32 byte_order, u32 version (1), i64 origin "
	      "(CLOCK_MONOTONIC ns at the run's start), i64 the same instant in CLOCK_REALTIME ns, "
	      "u32 ring rows, u32 0, char test[24] (NUL-padded).\n"
	      ".TP\nblock head, 16 bytes\nu32 kind, u32 series (its number, from 0), u32 rows, "
	      "u32 0; then by kind:\n"
	      ".TP\nkind 1, a series (once, before its samples), 88 bytes\ni32 thread (\\-1: the "
	      "whole series), i32 cpu (\\-1: not pinned to one), i64 threshold ns (\\-1: none), "
	      "char test[24], char series[48].\n"
	      ".TP\nkind 2, samples\nrows times 16 bytes: i64 time in ns since origin, i64 the "
	      "sample in ns. Each series' rows come in time order; blocks of different series "
	      "interleave.\n"
	      ".TP\nkind 3, the end (last)\nu64 samples written, u64 samples dropped (the ring "
	      "was full: the writer fell behind the measuring thread).\n"
	      ".PP\nA file without the end block was cut short. Each series has a ring of u32 "
	      "ring rows (16 bytes each, in locked memory), emptied every 20 ms by the recorder's "
	      "thread; the measuring thread never waits for it. "
	      "\\fBrtlat\\-report samples\\fR \\fIFILE\\fR reads it: counts, the periodic "
	      "disturbances its spectrum finds, and jittersamples' CSV (\\fB\\-\\-csv\\fR).\n"
	      ".PP\nThe JSON's \"samples\" (null without \\fB\\-\\-samples\\fR): format "
	      "(rtlat\\-samples\\-1), ring_rows, complete (the end block written), and per series "
	      "and thread (test, series, thread, cpu) the samples written and dropped. "
	      "rtlat bintime writes its slow path's gaps only (512 ns or cycles and more): "
	      "the shorter ones, tens of millions a second, are counted in its histogram.\n", f);
}
