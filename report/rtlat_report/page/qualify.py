# SPDX-License-Identifier: GPL-2.0-or-later
"""rtlat qualify's results directory on the page: its verdict first ("fit
for 100 µs: the level exceeded once a day is 62 µs [48–91]", or why
not), then per phase and CPU the max, the p99, the spike rate and the
tail estimate (tail/: the generalized Pareto fit and its once-a-day
return level), the load's own throughput (stress-ng's bogo-ops, so that
the page shows the load really ran), --load-cmd's command, the hwlat
phase, and the top explained causes. Anchor: rteval's report, which gives
per-CPU statistics under load."""
import math
import os

from ..model import Judged
from ..tail.analyse import analyse_run
from . import hardware
from .document import Alert, Note, Section, Table
from .tail import rng, us

# The return level the verdict names (tail/analyse.py PERIODS' label).
VERDICT_PERIOD = "day"


def phases(run):
    """[(SuiteTest, its Test or None)] in the index's order."""
    by_file = {os.path.basename(t.path): t for t in run.tests.values()}
    return [(p, by_file.get(f"{p.name}.json")) for p in run.suite.tests or ()]


def _us(ns):
    """A latency as the verdict line says it: 62 µs, 8.4 µs."""
    v = ns / 1000
    return f"{v:.0f}" if v >= 10 else f"{v:.1f}"


def _day(s):
    return next((lv for lv in s.levels if lv.label == VERDICT_PERIOD), None)


def _where(run, s):
    phase = next((p.phase for p, t in phases(run)
                  if t is not None and t.key == s.test), s.test)
    return f"{phase} phase, {s.td.name}"


def verdict(run, measured, limit_us):
    """(level: pass, fail or "" (cannot tell), the line, the details) of
    the phases' series measured [Series]."""
    if not measured:
        why = "nothing was measured"
        if run.doctor and any(c.verdict == "prevents real-time"
                              for c in run.doctor):
            why += ": the doctor found what prevents real-time work"
        return "fail", why, []
    worst_max = max(measured, key=lambda s: s.td.max_ns or 0)
    days = [(s, _day(s)) for s in measured]
    known = [(s, lv) for s, lv in days if lv is not None and lv.ns is not None]
    unknown = [(s, lv) for s, lv in days if lv is None or lv.ns is None]
    details = [f"the largest latency seen: {_us(worst_max.td.max_ns)} µs "
               f"({_where(run, worst_max)})"]
    details += [f"{_where(run, s)}: no once-a-{VERDICT_PERIOD} estimate: "
                f"{lv.no_claim if lv else 'no fit'}" for s, lv in unknown]
    level = None
    if known:
        s, lv = max(known, key=lambda x: x[1].hi)
        level = (f"the level exceeded once a {VERDICT_PERIOD} is "
                 f"{_us(lv.ns)} µs [{_us(lv.lo)}–{_us(lv.hi)}]")
        details.insert(0, f"the highest once-a-{VERDICT_PERIOD} level: "
                       f"{_where(run, s)}")
    if limit_us is None:
        return "", (level or f"no once-a-{VERDICT_PERIOD} estimate") + \
            " (no --max-latency: no verdict)", details
    lim = limit_us * 1000
    head = f"{limit_us:g} µs"
    if (worst_max.td.max_ns or 0) > lim:
        return "fail", (f"not fit for {head}: {_where(run, worst_max)} "
                        f"reached {_us(worst_max.td.max_ns)} µs"), details
    if not known or unknown:
        return "", (f"cannot tell for {head}: " +
                    (level + ", but " if level else "") +
                    f"not every CPU has a once-a-{VERDICT_PERIOD} estimate"
                    " (run longer)"), details
    if lv.ns > lim:
        return "fail", f"not fit for {head}: {level}", details
    if lv.hi > lim:
        return "", (f"cannot tell for {head}: {level}, whose interval "
                    f"reaches above {head} (run longer)"), details
    return "pass", f"fit for {head}: {level}", details


def hwlat_of(run, p):
    """The hwlat phase's Hwlat (Run.hwlat, by its file), or None."""
    return next((h for h in run.hwlat
                 if os.path.basename(h.path) == f"{p.name}.json"),
                None)


def hardware_rows(run):
    """Per phase and CPU the hardware events: the hwlat phase's events
    (and their rate per hour of the phase), every phase's SMIs."""
    rows = []
    for p, t in phases(run):
        hw = hwlat_of(run, p) if p.phase == "hwlat" else None
        if hw is not None and hw.covered_s:
            rows += [[p.phase, f"CPU{c}", hardware.events_text(evs),
                      hardware.per_hour(len(evs), hw.covered_s),
                      hardware.smi_delta(hw.smi, c)]
                     for c in hardware.hwlat_cpus(hw)
                     for evs in [hardware.cpu_events(hw, c)]]
        elif t is not None and t.smi:
            rows += [[p.phase or p.name, f"CPU{c}", "–", "–",
                      hardware.smi_delta(t.smi, c)] for c in sorted(t.smi)]
    return rows


def _dist(t, name):
    return next((d for d in t.dists if d.name == name), None)


def phase_rows(run, analysed):
    rows = []
    for p, t in phases(run):
        if t is None and hwlat_of(run, p) is not None:
            continue        # in the hardware events' table
        if t is None:
            rows.append([p.phase or p.name, "–", "–", "–", "–", "–",
                         f"not run: {p.why or p.state}"])
            continue
        for s in (x for x in analysed if x.test == t.key):
            d = _dist(t, s.td.name)
            q = s.rates[0] if s.rates else None
            lv = _day(s)
            rows.append([
                p.phase or p.name, s.td.name, str(s.td.n),
                us(s.td.max_ns), us(d.percentile("p99")) if d else "–",
                f"{rng(q.per_hour)} at ≥ {us(q.level_ns, 6)} µs"
                if q and q.per_hour else "–",
                "no claim" if lv is None or lv.ns is None else
                f"{us(lv.ns)} ({us(lv.lo)}–{us(lv.hi)})"])
    return rows


def load_blocks(run):
    out = []
    for p, _ in phases(run):
        ld = p.load
        if ld is None:
            continue
        if ld.stress_ng:
            out.append(Table(
                f"The load beside the {p.phase or p.name} phase: stress-ng "
                f"{ld.version} (exit status {ld.status}), hackbench "
                f"{'beside it' if ld.hackbench else 'not run'}",
                ["stressor", "bogo-ops", "bogo-ops/s"],
                [[x.name, f"{x.bogo_ops:.0f}", f"{x.per_s:.1f}"]
                 for x in ld.stressors]))
            if not any(x.bogo_ops > 0 for x in ld.stressors):
                out.append(Note("stress-ng counted no bogo-op: the load may "
                                "not have run", "warn"))
        if ld.cmd:
            c = ld.cmd
            out.append(Note(
                f"--load-cmd {c.command!r}: exit status {c.exit_status}"
                + (" (stopped by rtlat at the phase's end)" if c.stopped
                   else "") +
                ("; its last lines: " + " / ".join(c.output_tail)
                 if c.output_tail else "")))
    return out


def cause_rows(run):
    rows = []
    for p, t in phases(run):
        if t is None or t.explain is None:
            continue
        total = t.explain.where_total() or math.inf
        for c in sorted(t.explain.where, key=lambda c: -c.ns)[:5]:
            rows.append([p.phase or p.name, c.cause, c.kind,
                         f"{100 * c.ns / total:.1f} %"])
    return rows


def section(run, args):
    """The section, first on the page: the verdict, then the phases."""
    analysed = analyse_run(run, args)
    tests = {t.key for p, t in phases(run)
             if t is not None and p.phase in ("idle", "load")}
    measured = [s for s in analysed if s.test in tests]
    # index.json says 0 where no --max-latency was given
    level, line, details = verdict(run, measured,
                                   run.suite.max_latency_us or None)
    s = Section("qualify", "Qualification: " + line)
    # The Overview's verdict carries the qualification's (build.with_section)
    # where --max-latency gave it a threshold: without it, nothing is judged
    # there either.
    limit = run.suite.max_latency_us or None
    if limit is not None:
        word = {"pass": "PASS", "fail": "FAIL"}.get(level, "cannot tell")
        s.judged = [Judged("qualification", f"for {limit:g} µs", word, line)]
    s.blocks.append(Alert(line, details, id="alert-qualify", word="verdict",
                          level=level))
    s.blocks.append(Table(
        "Per phase and CPU (µs; spike rate per hour and the once-a-"
        f"{VERDICT_PERIOD} level with {args.confidence * 100:g} % intervals)",
        ["phase", "CPU", "samples", "max", "p99", "spikes per hour",
         f"once a {VERDICT_PERIOD}"], phase_rows(run, analysed),
        numeric_from=2))
    s.blocks += load_blocks(run)
    hw = next((p for p, _ in phases(run) if p.phase == "hwlat"), None)
    if hw is not None and hw.state != "done":
        s.blocks.append(Note(f"hwlat phase not run: {hw.why or hw.state}"))
    elif hw is not None and hwlat_of(run, hw) is not None:
        s.blocks += hardware.not_measured("hwlat phase", hwlat_of(run, hw))
    hw_rows = hardware_rows(run)
    if hw_rows:
        s.blocks.append(Table(
            "Hardware events per phase and CPU (hwlat: its events, per hour "
            "of the phase with 95 % intervals; SMIs: the CPU's SMI count's "
            "growth during the phase)",
            ["phase", "CPU", "hwlat events", "per hour", "SMIs"], hw_rows,
            numeric_from=3))
    causes = cause_rows(run)
    if causes:
        s.blocks.append(Table("The top explained causes (--explain), share "
                              "of the time over the trigger",
                              ["phase", "cause", "kind", "share"], causes,
                              numeric_from=3))
    return s
