# SPDX-License-Identifier: GPL-2.0-or-later
"""How bad will it get, for the report: each series' spike rates, tail fit
and return levels (spikes.py, tail.py), the run-length plan (plan.py), the
gate (gate.py); the page's section, the --summary-json object and the
command line's --levels, --plan, --gate. A test's largest samples and
time line (model.Largest, model.Timeline, as read/ read them) are used
where the file has them."""
import json
import math
import re
from dataclasses import dataclass, field
from typing import List, Optional

from . import gate as gatemod
from . import plan as planmod
from . import fit as tail
from . import spikes
from ..io import write
from ..judge.unfinished import incomplete
from ..model import Checkpoint, duration, series_for
from ..read.rtlat import INDEX

HOUR, DAY, WEEK = 3600.0, 86400.0, 7 * 86400.0
PERIODS = (("hour", HOUR), ("day", DAY), ("week", WEEK))


# --- series of a run --------------------------------------------------------

@dataclass
class Series:
    test: str
    td: tail.TailData
    tf: tail.TailFit
    rates: List[spikes.Rate] = field(default_factory=list)
    levels: List[tail.Level] = field(default_factory=list)
    plan: Optional[planmod.Plan] = None
    kind: str = ""          # the test's (model.Test.kind)
    thread: int = 0         # thread N: its number, else its place


def period_of(t, override_us=None):
    """The cycle period in ns: the option, else the file's (read/: its
    settings, cyclictest's -i)."""
    if override_us:
        return override_us * 1000
    return t.settings.period_ns


def series_of(t, args):
    """TailData of each of a test's distributions with what the file adds
    (largest samples, time line, period, duration): each distribution's
    series of the time line and the largest samples (model.series_for:
    by CPU, else by thread)."""
    largest = t.largest.series if t.largest else []
    timeline = t.timeline.series if t.timeline else []
    step_s = t.timeline.step_s if t.timeline else None
    period = period_of(t, args.period_us)
    dur = t.stated_s or t.settings.duration_s
    dists = [d for d in t.dists if d.samples > 0]
    out = []
    for i, d in enumerate(dists):
        alone = len(dists) == 1
        lr = series_for(largest, d.cpu, i, alone)
        ex = times = seen = None
        if lr:
            ex = [r[0] for r in lr.rows]
            times = [r[1] for r in lr.rows]
            seen = lr.seen
        tr = series_for(timeline, d.cpu, i, alone)
        steps = [(r[0], r[2], r[5]) for r in tr.rows] if tr else None
        out.append(tail.tail_data(d, ex, seen, times, period, dur, steps,
                                  step_s))
    return out


def analyse_run(run, args):
    """[Series] of every test of a run."""
    conf = args.confidence
    out = []
    for key, t in run.tests.items():
        place = {d.name: i for i, d in enumerate(t.dists)}
        for td in series_of(t, args):
            m = re.match(r"thread (\d+)", td.name)
            s = Series(key, td, tail.fit_tail(td), kind=t.kind,
                       thread=int(m.group(1)) if m else place[td.name])
            levels = args.levels or spikes.default_levels([td])
            s.rates = [spikes.rate(td, lv, conf) for lv in levels]
            s.levels = return_levels(s, conf)
            out.append(s)
    return out


def return_levels(s, conf):
    """Exceeded once per hour, day, week (with the cycle period) and per
    10^9 cycles."""
    td, out = s.td, []
    hours = spikes.series_hours(td)
    per_s = td.n / (hours * 3600) if hours else None
    for label, secs in PERIODS:
        if per_s:
            out.append(tail.level_within_span(
                s.tf, td, 1 / (per_s * secs), label, conf))
        else:
            out.append(tail.Level(label, float("nan"), no_claim="the cycle "
                                  "period is unknown (give --period-us)"))
    out.append(tail.level_within_span(s.tf, td, 1e-9, "10^9 cycles",
                                      conf))
    return out


# --- JSON -------------------------------------------------------------------

def series_json(s):
    tf, td = s.tf, s.td
    fit = None
    if tf.fit:
        f = tf.fit
        model, obs = tail.qq_points(f)
        fit = {"model": "generalized Pareto (peaks over threshold, binned "
               "likelihood" + (", exact largest samples" if len(f.ex.exact)
                               else "") + ")",
               "threshold_ns": f.u, "exceedances": f.n_u,
               "shape_xi": f.xi, "shape_xi_se": f.xi_se,
               "scale_ns": f.sigma, "upper_bound_ns": f.endpoint(),
               "gof": {"test": "binned chi-square", "statistic": f.gof_stat,
                       "df": f.gof_df, "p_value": f.gof_p},
               "qq": {"model_ns": model, "observed_ns": obs}}
    ladder = [{"threshold_ns": g.u, "exceedances": g.n_u, "shape_xi": g.xi,
               "shape_xi_se": g.xi_se, "gof_p": g.gof_p}
              for g in tf.ladder]
    return {"test": s.test, "series": td.name, "samples": td.n,
            "period_ns": td.period_ns, "hours": spikes.series_hours(td),
            "max_ns": td.max_ns, "overflow": td.overflow,
            "largest_samples": None if td.exact is None else len(td.exact),
            "spike_rates": [r.as_json() for r in s.rates],
            "tail": fit if fit else {"no_claim": tf.no_claim},
            "threshold_stability": {"stable": tf.stable, "fits": ladder,
                                    "warnings": tf.warnings},
            "return_levels": [planmod.level_json(lv) for lv in s.levels],
            "plan": s.plan.as_json() if s.plan else None}


def summary(runs, analysed, args, g=None):
    pc = args.plan_confidence or args.confidence
    return {"format": "rtlat-report tail summary 1",
            "confidence": args.confidence,
            "levels_ns": args.levels,
            "plan_target": {"level_ns": args.plan_level * 1000,
                            "prob_per_cycle": args.plan_prob,
                            "confidence": pc},
            "runs": [{"label": r.label, "path": r.path,
                      "series": [series_json(s) for s in a]}
                     for r, a in zip(runs, analysed)],
            "gate": g.as_json() if g else None}


def add_plans(analysed, args):
    pc = args.plan_confidence or args.confidence
    for a in analysed:
        for s in a:
            s.plan = planmod.plan(args.plan_level * 1000, args.plan_prob, pc,
                                  s.td.period_ns, s.td, s.tf)


CYCLIC = ("timer", "cyclic")


def by_test(a):
    out = {}
    for s in a:
        out.setdefault(s.test, []).append(s)
    return out


def matched_tests(t0, t1):
    """(BASE test, NEW test) pairs: by name; a cyclic test left alone on
    each side with the other (rtlat timer's JSON is "timer", its -h text
    "cyclictest": the same samples)."""
    out = [(k, k) for k in t1 if k in t0]
    r0 = [k for k in t0 if k not in t1 and t0[k][0].kind in CYCLIC]
    r1 = [k for k in t1 if k not in t0 and t1[k][0].kind in CYCLIC]
    if len(r0) == 1 and len(r1) == 1:
        out.append((r0[0], r1[0]))
    return out


def cpu_of(s):
    m = re.search(r"CPU(\d+)", s.td.name)
    return int(m.group(1)) if m else None


def series_pairs(s0, s1):
    """(BASE, NEW) series of two tests: by name, else (cyclic tests)
    thread N of one with thread N of the other, where both say a CPU the
    same one (-h text names threads, rtlat's JSON CPUs too)."""
    names = {s.td.name: s for s in s0}
    out = [(names[s.td.name], s) for s in s1 if s.td.name in names]
    left0 = [b for b in s0 if all(b is not x for x, _ in out)]
    for s in s1:
        if s.td.name in names or s.kind not in CYCLIC:
            continue
        b = next((b for b in left0 if b.kind in CYCLIC and
                  b.thread == s.thread and
                  (None in (cpu_of(b), cpu_of(s)) or
                   cpu_of(b) == cpu_of(s))), None)
        if b is not None:
            left0.remove(b)
            out.append((b, s))
    return out


def gate_pairs(a0, a1):
    """[gate.Pair] of the series of BASE (a0) and NEW (a1) that match,
    and {"BASE"/"NEW": {test: [series]}} of those that do not."""
    t0, t1 = by_test(a0), by_test(a1)
    out, used = [], []
    for k0, k1 in matched_tests(t0, t1):
        for b, s in series_pairs(t0[k0], t1[k1]):
            name = f"{k1} {s.td.name}"
            if (k0, b.td.name) != (k1, s.td.name):
                name += f" (BASE: {k0} {b.td.name})"
            out.append(gatemod.Pair(k1, name, b.td, s.td, b.levels,
                                    s.levels))
            used += [b, s]
    left = {}
    for side, a in (("BASE", a0), ("NEW", a1)):
        for s in a:
            if all(s is not u for u in used):
                left.setdefault(side, {}).setdefault(s.test, []).append(
                    s.td.name)
    return out, left


RC_WORDS = {1: "an error", 2: "bad input",
            3: "a threshold or gate exceeded"}


def ended(run, side):
    """[(word, why)]: how a run did not finish (a result file a
    checkpoint wrote; a non-zero return_code; a suite whose index says it
    did not reach its end). BASE's return_code 3 is a run that finished
    and exceeded a limit it was given: its samples are whole."""
    out = []
    for t in run.tests.values():
        if incomplete(t):
            cp = t.checkpoint or Checkpoint()
            cov, plan = cp.covered_s, cp.planned_s
            out.append(("did not finish", f"{t.key}: its file is a "
                        "checkpoint, not the run's end (covers "
                        f"{duration(cov)}" +
                        (f" of {duration(plan)}"
                         if isinstance(plan, (int, float)) else "") + ")"))
        rc = t.return_code
        if rc in (None, 0) or rc == 3 and side == "BASE":
            continue
        word = "failed" if rc == 3 else "did not finish"
        out.append((word, f"{t.key}: exited with status {rc}" + (
            f" ({RC_WORDS[rc]})" if rc in RC_WORDS else "")))
    return out + suite_ended(run)


def suite_ended(run):
    """A suite's results directory whose index.json says complete false:
    the tests it did not finish."""
    idx = run.suite
    if idx is None:
        return []
    if not idx.readable:
        return [("did not finish", f"the suite's {INDEX} cannot be read")]
    if idx.complete is not False:
        return []
    todo = [t.name for t in idx.tests or [] if t.state in ("pending",
                                                            "running")]
    return [("did not finish", f"the suite's {INDEX} says it did not reach "
             "its end" + (f" (not done: {', '.join(todo)})" if todo
                          else ""))]


def run_gate(runs, analysed, args):
    """The gate of BASE and NEW (runs, analysed: [BASE, NEW]; runs may be
    empty where only the samples are judged)."""
    def levels_of(b):
        return args.levels or gatemod.quantile_levels(b)
    pairs, left = gate_pairs(analysed[0], analysed[1])
    ends = {}
    for side, r in zip(("BASE", "NEW"), runs):
        e = ended(r, side)
        if e:
            ends[side] = e
    g = gatemod.gate(pairs, args.confidence, levels_of, ends, left)
    g.warnings += gatemod.settings_warnings(gate_settings(runs, pairs))
    return g


def gate_settings(runs, pairs):
    """[(test, BASE's settings, NEW's)] of the tests the gate compared."""
    if len(runs) < 2:
        return []
    out = []
    for test in dict.fromkeys(p.test for p in pairs):
        new = runs[1].tests.get(test)
        base = runs[0].tests.get(test) or (
            next(iter(runs[0].tests.values())) if len(runs[0].tests) == 1
            else None)
        if base is not None and new is not None:
            out.append((test, base.settings.shown, new.settings.shown))
    return out


def write_json(path, obj):
    write(path, json.dumps(obj, indent=1, allow_nan=False,
                           default=_jsonable) + "\n")


def _jsonable(x):
    return float(x) if hasattr(x, "__float__") else str(x)


def clean(o):
    """NaN and infinities as null (valid JSON)."""
    if isinstance(o, float):
        return o if math.isfinite(o) else None
    if isinstance(o, dict):
        return {k: clean(v) for k, v in o.items()}
    if isinstance(o, (list, tuple)):
        return [clean(v) for v in o]
    if hasattr(o, "item"):
        return clean(o.item())
    return o
