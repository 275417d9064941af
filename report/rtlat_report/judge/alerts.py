# SPDX-License-Identifier: GPL-2.0-or-later
"""What the Overview puts in its warning boxes, before any figure: compared
runs that are not alike (their settings, their length), and samples a run
lost or could not place (timer overruns, histogram overflows, timeouts)."""
import re

from ..model import fmt_us
from ..units import count, latency

# Settings that differ between any two runs without meaning anything:
# ports and servers chosen at run time, thread ids, output paths, whether
# the terminal got the figures, and what happened rather than was asked.
VOLATILE = re.compile(r"(^|\.)(port|server|tid|json|cmdline|output|"
                      r"histfile|gnuplot|quiet|breaktrace_hit)$")
# Settings that set how long a run is: judged by the length warning.
LENGTH = re.compile(r"(^|\.)(duration_s|loops|samples|rounds)$")
# Two runs differ in length when one has more than this much more samples
# (or seconds) than the other.
LENGTH_SLACK = 0.20


def cell(v):
    if v is None or v == "":
        return "–"
    if isinstance(v, list):
        return ", ".join(str(x) for x in v) or "–"
    return str(v)


def plural(n, word):
    """3 samples, 1 step, 2,132 timer overruns."""
    return f"{count(n)} {word}" + ("" if n == 1 else "s")


def differing_settings(members, skip_length=False):
    """[(key, [value per run])] of the settings that differ between the
    runs of one test, volatile ones left out."""
    keys = []
    for _, _, t in members:
        keys += [k for k in t.settings.shown if k not in keys]
    out = []
    for k in keys:
        vals = [cell(t.settings.shown.get(k)) for _, _, t in members]
        if len(set(vals)) > 1 and not VOLATILE.search(k) and \
                not (skip_length and LENGTH.search(k)):
            out.append((k, vals))
    return out


def samples_of(t):
    return sum(d.samples for _, d in t.headlines() if d is not None)


def seconds_of(t):
    """How long the test measured: the fleet record's seconds, else the
    requested duration."""
    if t.elapsed_s:
        return t.elapsed_s
    v = t.settings.duration_s
    return v if v and v > 0 else None


def differs(a, b):
    if not a or not b:
        return False
    return max(a, b) / min(a, b) > 1 + LENGTH_SLACK


def length_warning(key, first, run, t0, t):
    parts = []
    n0, n = samples_of(t0), samples_of(t)
    if differs(n0, n):
        parts.append(f"×{n / n0:.2f} the samples ({n} vs {n0})")
    s0, s = seconds_of(t0), seconds_of(t)
    if differs(s0, s):
        parts.append(f"×{s / s0:.2f} the time ({s:.1f} s vs {s0:.1f} s)")
    if not parts:
        return None
    return (f"{key}: {run.label} is not as long as {first.label}: "
            + " and ".join(parts) + f" (more than {LENGTH_SLACK:.0%} apart: "
            "maxima and the tail are not comparable)")


def comparison_warnings(grouped):
    """One line per test whose compared runs differ in settings, and one
    per later run whose length differs from the first's."""
    out = []
    for key, members in grouped:
        if len(members) < 2:
            continue
        diff = differing_settings(members, skip_length=True)
        if diff:
            runs = " vs ".join(r.label for _, r, _ in members)
            out.append(f"{key}: settings differ ({runs}): " + "; ".join(
                f"{k} " + " vs ".join(v) for k, v in diff))
        _, first, t0 = members[0]
        for _, run, t in members[1:]:
            w = length_warning(key, first, run, t0, t)
            if w:
                out.append(w)
    return out


def lost_samples(runs):
    """One line per test and run with overruns, overflows, underflows or
    timeouts."""
    out = []
    for r in runs:
        for t in r.tests.values():
            out += [f"{r.label} / {t.key}: {w}" for w in test_losses(t)]
    return out


def test_losses(t):
    out = []
    if t.overruns:
        out.append(f"{plural(t.overruns, 'timer overrun')} "
                   "(periods that passed without a sample: the thread "
                   "woke a period late or more)")
    late = [f"{plural(r.load_processes, 'load')}: {r.overruns}"
            for r in t.rounds if r.overruns]
    if late:
        out.append("timer overruns in the request rounds (" +
                   ", ".join(late) + ")")
    for d in t.dists:
        if d.bucket_ns and d.overflow:
            out.append(f"{d.name}: {count(d.overflow)} of "
                       f"{count(d.samples)} samples beyond the histogram "
                       f"(≥ {latency(d.range_end_ns)}; max "
                       f"{latency(d.max_ns)})")
        if d.bucket_ns and d.underflow:
            out.append(f"{d.name}: {d.underflow} samples below the "
                       "histogram")
    c = t.cells
    if c and (c.avg or c.max):
        n, ns = c.cells, c.bucket_ns
        size = f" ({n:g} cells of {fmt_us(ns)} µs)" if n and ns else ""
        out.append(f"the -h histograms{size} overflowed: "
                   f"{plural(c.avg, 'sample')} beyond the "
                   f"last cell, and {c.max} of the seconds' "
                   "maxima (histograms.avg/max.overflow)")
    for name, n in t.timeouts.items():
        out.append(f"{name}: {n} receive timeouts")
    return out
