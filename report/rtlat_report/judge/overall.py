# SPDX-License-Identifier: GPL-2.0-or-later
"""The verdict the page opens with: every judged item (each threshold a
run or its suite judged, how each run ended, each comparison of a later
run with the first; the gate and a qualification add their own Judged
items), the failures named, the worst CPU and the worst series.

A suite's results directory: its index.json's "fleet" holds the
thresholds (--max-latency, --max-p99) and the suite's judgement of every
record; the tests' own files hold none. A single file: its own "fleet"."""
from dataclasses import dataclass
from typing import List, Optional

from ..model import Judged
from ..units import latency, sig, us
from .unfinished import coverage, incomplete


def records(run, t, which="series"):
    """The judged records of test t in run (which: "series" or
    "threads"): the suite's (its index.json) where it judged the test,
    else the file's own."""
    if run.fleet is not None:
        mine = [r for r in getattr(run.fleet, which) if r.test == t.name]
        if mine:
            return mine
    return getattr(t.fleet, which) if t.fleet else []


def measured(rec):
    """False for a record rtlat judged "skip" (no sample was measured) or
    that counts no sample: never a pass, with or without a threshold."""
    return rec.result in ("pass", "fail") and rec.samples > 0


def limits(rec):
    """The thresholds of a record in words: "max ≤ 100 µs, p99 ≤ 50 µs"."""
    out = []
    if rec.max_latency_us:
        out.append(f"max ≤ {us(rec.max_latency_us)}")
    if rec.max_p99_us:
        out.append(f"p99 ≤ {us(rec.max_p99_us)}")
    return ", ".join(out)


def threshold_of(run, t, series):
    """The --max-latency (µs) the run or its suite judged a series of t
    by, None without one."""
    for r in records(run, t):
        if r.series == series and r.max_latency_us:
            return r.max_latency_us
    return None


def thresholds(run, t, label=""):
    out = []
    for r in records(run, t):
        lim = limits(r)
        if r.result == "error":
            # a CPU of it could not be measured: an error, whatever its
            # figures (rtlat's harness/starve.h)
            out.append(Judged("measurement", f"{label}{r.test}/{r.series}",
                              "ERROR", r.error or "rtlat judged it an error"))
            continue
        if not measured(r):
            out.append(Judged("measurement", f"{label}{r.test}/{r.series}"
                              + (f" {lim}" if lim else ""), "NOT MEASURED",
                              "no sample was measured"))
            continue
        if not lim:
            continue
        figures = f"max {latency(r.max_ns)}" + \
            (f", p99 {latency(r.p99_ns)}" if r.max_p99_us else "")
        verdict = {"pass": "PASS", "fail": "FAIL"}.get(r.result, r.result.upper()
                                                       or "NOT JUDGED")
        out.append(Judged("threshold", f"{label}{r.test}/{r.series} {lim}",
                          verdict, figures))
    return out


def ending(t):
    """Why a run ended early, in words; None for a run that ended as
    asked (a threshold exceeded ends it as asked: exit 3)."""
    why = []
    for m in t.moved:
        after = "" if m.after_s is None else f" after {m.after_s:g} s measured"
        where = f" (now on CPUs {m.affinity})" if m.affinity else ""
        why.append(f"CPU {m.cpu} went offline or its sampler was unpinned"
                   f"{after}{where}: that sampler stopped and its figures "
                   f"are not CPU {m.cpu}'s alone; the other CPUs measured "
                   "to the end")
    if t.stopped_by:
        why.append(f"stopped by {t.stopped_by}")
    if t.error and not t.moved:
        why.append(t.error)
    if incomplete(t):
        why.append(coverage(t))
    elif not why:
        short = stopped_short(t)
        if short:
            why.append(short)
    if not why and t.return_code not in (None, 0, 3):
        why.append(f"exit status {t.return_code} (an error; the file says "
                   "no more)")
    return "; ".join(why) or None


# A run that measured less than this share of the time it was asked for
# was stopped (a stop signal leaves a complete file with exit 0: only its
# seconds tell).
SHORT = 0.9


def stopped_short(t):
    """'measured 2.51 s of the 10 s asked: ...' for a run that ended well
    before its --duration, else None."""
    asked = t.settings.duration_s
    if isinstance(asked, bool) or not isinstance(asked, (int, float)) or \
            asked <= 0 or not t.elapsed_s or t.elapsed_s >= SHORT * asked:
        return None
    return (f"measured {sig(t.elapsed_s)} s of the {sig(asked)} s asked: "
            "stopped early (a stop signal, SIGINT or SIGTERM, or the "
            "suite's end)")


@dataclass
class Worst:
    """The worst CPU (from the judged thread records) and the worst series
    (by max) of a page: (name, max ns, where) or None."""
    cpu: Optional[tuple] = None
    series: Optional[tuple] = None


def worst(runs):
    w = Worst()
    for run in runs:
        several = len(runs) > 1
        for t in run.tests.values():
            pre = f"{run.label} " if several else ""
            for r in records(run, t, "threads"):
                if r.cpu is not None and r.max_ns is not None and \
                        (w.cpu is None or r.max_ns > w.cpu[1]):
                    w.cpu = (f"CPU {r.cpu}", r.max_ns, f"{pre}{t.key}")
            for d in t.dists:
                if d.max_ns is None:
                    continue
                if w.series is None or d.max_ns > w.series[1]:
                    w.series = (f"{t.key} {d.name}", d.max_ns, pre.strip())
                # a series that names its CPU (Dist.cpu) where the file
                # has no judged thread records (rt-tests, older rtlat)
                if d.cpu is not None and \
                        (w.cpu is None or d.max_ns > w.cpu[1]):
                    w.cpu = (f"CPU {d.cpu}", d.max_ns, f"{pre}{t.key}")
    return w


def judged_items(runs) -> List[Judged]:
    """Every threshold and every run's ending, run by run."""
    out = []
    for run in runs:
        label = f"{run.label} / " if len(runs) > 1 else ""
        for t in run.tests.values():
            out += thresholds(run, t, label)
            e = ending(t)
            if e:
                out.append(Judged("ending", f"{label}{t.key}", "ENDED EARLY",
                                  e))
    return out
