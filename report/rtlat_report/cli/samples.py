# SPDX-License-Identifier: GPL-2.0-or-later
"""rtlat-report samples FILE: what an rtlat --samples file holds (its
series, counts, figures, whether it is complete), the periodic
disturbances its spectrum finds (tail/spectrum.py), and with --csv OUT
jittersamples' CSV of it (export/jittersamples.py)."""
import math
import sys

from ..io import InputError, fail


def us(ns):
    return f"{ns / 1000:,.1f} µs"


def period(s):
    """Four figures: 4.000 ms, 200.0 ms, 1.000 s."""
    v, unit = (s * 1000, "ms") if s < 1 else (s, "s")
    return f"{v:.{max(0, 3 - int(math.log10(max(v, 1))))}f} {unit}"


def describe(s, found):
    import numpy as np
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
    for x in s.series:
        if not len(x.ns):
            lines.append(f"  {x.label}: no sample")
            continue
        lines.append(f"  {x.label}: {len(x.ns):,} samples, min {us(x.ns.min())}"
                     f", median {us(float(np.median(x.ns)))}, max "
                     f"{us(x.ns.max())}")
        mine = [p for p in found if p.key == x.key]
        for p in mine:
            lines.append(f"    periodic: every {period(p.period_s)} "
                         f"({p.per_hour:,.0f}/h), {us(p.excess_ns)} over the "
                         f"median, {p.periods} periods seen (p = {p.p:.1g} "
                         "with no rhythm)")
        if not mine:
            lines.append("    periodic: none found")
    return "\n".join(lines) + "\n"


def run(args):
    # numpy and SciPy only here: the man page is made without them.
    from ..export import jittersamples
    from ..read.samples import load_samples
    from ..tail import spectrum
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
