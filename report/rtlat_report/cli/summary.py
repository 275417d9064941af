# SPDX-License-Identifier: GPL-2.0-or-later
"""rtlat-report summary RUN...: what pyperf's `show` is to its results, a
few lines per run for a terminal or a CI log: each test, whether it
finished and passed the suite's thresholds, each series' samples, min,
avg, p99 and max, then the worst series and the worst CPU. --json FILE
writes the tail summary JSON (the old form's --summary-json) as well, or
alone with '-' (stdout). Exit status: 0 done, 1 not written, 2 bad input."""
import sys

from ..io import InputError, fail
from ..judge.overall import limits, measured, records, worst
from ..judge.unfinished import coverage
from ..model import fmt_us

FIGURES = ("min_ns", "avg_ns", "p99", "max_ns")


def figure(d, key):
    return d.percentile(key) if key == "p99" else getattr(d, key)


def state(run, t):
    """How the test ended, in words."""
    why = coverage(t)
    if why:
        return f"unfinished: {why}"
    recs = records(run, t)
    err = [f"{r.series}: {r.error}" for r in recs if r.result == "error"]
    if err:
        return "ERROR: " + "; ".join(err)
    bad = [f"{r.series}: {r.failure or 'fail'}" for r in recs
           if r.result == "fail"]
    if bad:
        return "FAIL: " + "; ".join(bad)
    none = [r.series for r in recs if not measured(r)]
    if none:
        return f"NOT MEASURED: {', '.join(none)} (no sample was measured)"
    if t.return_code not in (None, 0):
        return f"return code {t.return_code}"
    return "finished" + (", thresholds passed" if any(map(limits, recs))
                         else "")


def text(run):
    lines = [f"{run.label} ({run.path})"]
    for t in run.tests.values():
        lines.append(f"  {t.name} ({t.kind}): {state(run, t)}")
        for d in t.dists:
            figs = "  ".join(f"{k.replace('_ns', '')} {fmt_us(figure(d, k))}"
                             for k in FIGURES)
            lines.append(f"    {d.name}: {d.samples} samples  {figs}")
    for why in run.unreadable:
        lines.append(f"  unreadable: {why}")
    w = worst([run])
    if w.series:
        lines.append(f"  worst series: {w.series[0]}, max "
                     f"{fmt_us(w.series[1])}")
    if w.cpu:
        lines.append(f"  worst CPU: {w.cpu[0].split()[-1]}, max "
                     f"{fmt_us(w.cpu[1])}")
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
