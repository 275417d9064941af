# SPDX-License-Identifier: GPL-2.0-or-later
"""rtlat-report samples FILE: what an rtlat --samples file holds (its
series, counts, figures, whether it is complete), the periodic
disturbances its spectrum finds (tail/spectrum.py), and with --csv OUT
jittersamples' CSV of it (export/jittersamples.py)."""
import sys

import numpy as np

from ..io import InputError, PROG, fail, write
from ..read.samples import load_samples
from ..tail import spectrum
from ..export import jittersamples


def us(ns):
    return f"{ns / 1000:,.1f} µs"


def describe(s, found):
    lines = []
    n = sum(len(x.ns) for x in s.series)
    span = max((int(x.t_ns[-1] - x.t_ns[0]) for x in s.series
                if len(x.t_ns)), default=0) / 1e9
    state = (f"complete, {s.dropped:,} dropped" if s.complete else
             "cut short (no end block: the run was killed)")
    lines.append(f"{s.path}: {s.test}, {len(s.series)} series, {n:,} "
                 f"samples over {span:.1f} s; {state}")
    if s.complete and s.dropped:
        lines.append(f"  {s.dropped:,} samples were dropped (the writer fell "
                     "behind): the file is not every sample")
    by_key = {p.key: p for p in found}
    for x in s.series:
        if not len(x.ns):
            lines.append(f"  {x.label}: no sample")
            continue
        lines.append(f"  {x.label}: {len(x.ns):,} samples, min {us(x.ns.min())}"
                     f", median {us(float(np.median(x.ns)))}, max "
                     f"{us(x.ns.max())}")
        p = by_key.get(x.key)
        if p:
            lines.append(f"    periodic: every {p.period_s:.3f} s "
                         f"({p.per_hour:,.0f}/h), {us(p.excess_ns)} over the "
                         f"median, {p.periods} periods seen (p = {p.p:.1g} "
                         "with no rhythm)")
        else:
            lines.append("    periodic: none found")
    return "\n".join(lines) + "\n"


def run(args):
    try:
        s = load_samples(args.file)
    except InputError as e:
        return fail(str(e))
    found = spectrum.find_all(s)
    try:
        if args.csv:
            jittersamples.export(s, args.csv, args.cpu)
        sys.stdout.write(describe(s, found))
    except OSError as e:
        return fail(f"cannot write: {e}", 1)
    return 0
