# SPDX-License-Identifier: GPL-2.0-or-later
"""rtlat-report summary RUN...: what pyperf's `show` is to its results, a
few lines per run for a terminal or a CI log: each test, whether it
finished and passed the suite's thresholds, each series' samples, min,
avg, p99 and max, then the worst series and the worst CPU. --json FILE
writes the tail summary JSON (the old form's --summary-json) as well, or
alone with '-' (stdout). Exit status: 0 done, 1 not written, 2 bad input."""
import re
import sys

from ..io import InputError, fail
from ..judge.suite import suite_fleet
from ..judge.unfinished import coverage
from ..model import fmt_us

FIGURES = ("min_ns", "avg_ns", "p99", "max_ns")
CPU = re.compile(r"CPU ?(\d+)")


def figure(d, key):
    return d.percentile(key) if key == "p99" else getattr(d, key)


def failed(fleet, test):
    """The suite's failed records of a test: ["SERIES: why", ...]."""
    recs = (fleet or {}).get("series") or []
    return [f"{r.get('series')}: {r.get('failure') or 'fail'}" for r in recs
            if isinstance(r, dict) and r.get("test") == test and
            r.get("result") == "fail"]


def state(t, fleet):
    """How the test ended, in words."""
    why = coverage(t)
    if why:
        return f"unfinished: {why}"
    bad = failed(fleet, t.name)
    if bad:
        return "FAIL: " + "; ".join(bad)
    if t.return_code not in (None, 0):
        return f"return code {t.return_code}"
    return "finished" + (", thresholds passed" if fleet else "")


def worst(run):
    """(test, series, max) of the largest max, {cpu: max} over every
    series that names its CPU."""
    top, cpus = None, {}
    for t in run.tests.values():
        for d in t.dists:
            if d.max_ns is None:
                continue
            if top is None or d.max_ns > top[2]:
                top = (t.name, d.name, d.max_ns)
            m = CPU.search(d.name)
            if m:
                c = int(m.group(1))
                cpus[c] = max(cpus.get(c, d.max_ns), d.max_ns)
    return top, cpus


def text(run):
    fleet = suite_fleet(run.suite)
    lines = [f"{run.label} ({run.path})"]
    for t in run.tests.values():
        lines.append(f"  {t.name} ({t.kind}): {state(t, fleet)}")
        for d in t.dists:
            figs = "  ".join(f"{k.replace('_ns', '')} {fmt_us(figure(d, k))}"
                             for k in FIGURES)
            lines.append(f"    {d.name}: {d.samples} samples  {figs}")
    for why in run.unreadable:
        lines.append(f"  unreadable: {why}")
    top, cpus = worst(run)
    if top:
        lines.append(f"  worst series: {top[0]} {top[1]}, max "
                     f"{fmt_us(top[2])}")
    if cpus:
        c = max(cpus, key=cpus.get)
        lines.append(f"  worst CPU: {c}, max {fmt_us(cpus[c])}")
    return "\n".join(lines)


def run(args, load):
    """The text of each run on stdout (not with --json -), the tail
    summary JSON to --json FILE."""
    try:
        runs, _ = load(args)
    except InputError as e:
        return fail(str(e))
    if args.summary_json:
        from .tail import analyse
        try:
            analyse(args, runs)
        except OSError as e:
            return fail(f"--json: cannot write: {e}", 1)
    if args.summary_json != "-":
        print("\n\n".join(text(r) for r in runs))
    sys.stdout.flush()
    return 0
