# SPDX-License-Identifier: GPL-2.0-or-later
"""The page's "How bad will it get" section: each series' spike rates,
tail fit and return levels as tail/analyse.py found them, the QQ plot
of the fit, and how long to run (the plan)."""
from ..tail import checks
from ..tail import fit as tail
from ..tail import gate as gatemod
from ..tail import plan as planmod
from ..tail.analyse import PERIODS
from ..units import prob, sig
from .document import Figure, Note, Section, Table


def us(v, digits=4):
    return "–" if v is None else sig(v / 1000, digits)


def rng(v, scale=1.0, digits=3):
    if v is None:
        return "–"
    est, lo, hi = v
    f = (lambda x: "–" if x is None else sig(x * scale, digits))
    return f"{f(est)} ({f(lo)}–{f(hi)})"


def section(runs, analysed, args, g=None):
    """The section; with the gate's result g, its verdict first (and in
    the page's verdict box: Section.judged)."""
    s = Section("worst", "How bad will it get")
    if g is not None:
        s.judged = gatemod.judged(g)
        level = "warn" if g.warnings or g.status == gatemod.WORSE \
            else "note"
        s.blocks += [Note(line.strip(), level)
                     for line in gatemod.text(g).splitlines()]
    conf = args.confidence
    s.blocks.append(Note(
        f"Spike rates count samples at or above each level, with exact "
        f"Poisson {conf * 100:g} % intervals; the tail estimate fits a "
        "generalized Pareto distribution to the histogram's counts over a "
        "threshold chosen by ForwardStop over the chi-square tests of a "
        "ladder of thresholds (and the exact largest samples where the "
        "file has them); the intervals take in the higher thresholds the "
        "tests accept. Return levels are extrapolations, given only for a "
        "run with no trend, at most 10× its length: they hold only if the "
        "system keeps behaving as it did during the run. Where the data "
        "cannot support a figure, the reason is given instead."))
    rows = []
    for r, a in zip(runs, analysed):
        for x in a:
            for q in x.rates:
                cnt = str(q.count_lo) if q.exact else \
                    f"{q.count_lo}–{q.count_hi} (bin)"
                rows.append([r.label, x.test, x.td.name, us(q.level_ns, 6),
                             cnt, rng(q.per_hour), rng(q.per_mcycles),
                             rng(q.mtbs_s),
                             clusters_cell(q)])
    s.blocks.append(Table(
        f"Spike rates (at or above the level; {conf * 100:g} % intervals)",
        ["run", "test", "series", "level µs", "spikes", "per hour",
         "per 10^6 cycles", "mean time between, s", "clusters"],
        rows, numeric_from=3))
    rows = []
    notes = []
    for r, a in zip(runs, analysed):
        for x in a:
            cells = []
            for lv in x.levels:
                cells.append("no claim" if lv.ns is None else
                             f"{us(lv.ns)} ({us(lv.lo)}–{us(lv.hi)})")
            f = x.tf.fit
            rows.append([r.label, x.test, x.td.name,
                         us(f.u) if f else "–",
                         str(f.n_u) if f else "–",
                         f"{f.xi:.3f} ± {1.96 * f.xi_se:.3f}"
                         if f and f.xi_se else "–",
                         f"{f.gof_p:.2g}" if f and f.gof_p is not None
                         else "–"] + cells)
            if x.tf.no_claim:
                notes.append(f"{r.label} {x.test} {x.td.name}: no tail "
                             f"estimate: {x.tf.no_claim}")
            for lv in x.levels:
                if lv.ns is None and x.tf.fit is not None:
                    notes.append(f"{r.label} {x.test} {x.td.name}, once "
                                 f"per {lv.label}: {lv.no_claim}")
            notes += [f"{r.label} {x.test} {x.td.name}: {w}"
                      for w in x.tf.warnings]
    s.blocks.append(Table(
        f"Tail estimate: latency exceeded once per hour, day, week, 10^9 "
        f"cycles, µs ({conf * 100:g} % profile likelihood intervals)",
        ["run", "test", "series", "threshold µs", "over it", "shape ξ",
         "fit p"] + [f"once per {lb}" for lb, _ in PERIODS] +
        ["once per 10^9 cycles"], rows, numeric_from=3))
    s.blocks += [Note(n, "warn") for n in notes]
    fig = qq_figure(runs, analysed)
    if fig is not None:
        s.blocks.append(fig)
    s.blocks.append(plan_table(analysed, args))
    return s


def clusters_cell(q):
    """Periodic spikes: their period and rate; else the clusters."""
    if q.periodic is not None:
        return f"periodic: {checks.fmt_period(q.periodic)}"
    if q.clusters is None:
        return "–"
    return f"{q.clusters}" + (" (clustered)" if q.clustered else "") + (
        f", extremal index {q.extremal_index:.2f}"
        if q.extremal_index is not None and q.clustered else "")


QQ_MOST = 8        # series a QQ figure draws; beyond, it names the others


def qq_figure(runs, analysed):
    pts = [(f"{r.label} {x.td.name}", tail.qq_points(x.tf.fit), x.tf)
           for r, a in zip(runs, analysed) for x in a if x.tf.fit]
    if not pts:
        return None
    from . import plots
    fig, (ax, bx) = plots.plt.subplots(1, 2, figsize=plots.WIDE)
    for name, (m, o), tf in pts[:QQ_MOST]:
        ax.plot([v / 1000 for v in m], [v / 1000 for v in o], ".", ms=3,
                label=name)
        xs = [g.u / 1000 for g in tf.ladder]
        bx.errorbar(xs, [g.xi for g in tf.ladder],
                    yerr=[1.96 * (g.xi_se or 0) for g in tf.ladder],
                    fmt="o-", ms=3, capsize=2, label=name)
    lim = [min(min(m) for _, (m, _), _ in pts[:QQ_MOST]) / 1000,
           max(max(o) for _, (_, o), _ in pts[:QQ_MOST]) / 1000]
    ax.plot(lim, lim, "k--", lw=0.8)
    ax.set_xlabel("fitted quantile, µs")
    ax.set_ylabel("observed, µs")
    ax.set_title("QQ plot of the tail over the threshold")
    bx.set_xlabel("threshold, µs")
    bx.set_ylabel("shape ξ (95 %)")
    bx.set_title("threshold stability")
    ax.legend(fontsize=7)
    fig.tight_layout()
    left = [name for name, _, _ in pts[QQ_MOST:]]
    return Figure("tail-qq", "Tail fit diagnostics: QQ plot and the shape "
                  "over a range of thresholds" + (
                      f" (the first {QQ_MOST} of {len(pts)} fitted series: "
                      "more would not read; left out: " + ", ".join(left)
                      + ")" if left else ""), fig, wide=True)


def plan_table(analysed, args):
    pc = args.plan_confidence or args.confidence
    periods = sorted({x.td.period_ns for a in analysed for x in a
                      if x.td.period_ns} | {1e5, 1e6})
    rows = []
    for p, n, secs in planmod.table(periods, pc):
        rows.append([prob(p), sig(n)] +
                    [planmod.human_duration(secs[T]) for T in periods])
    return Table(f"How long to run: cycles with no spike that show P(latency "
                 f">= level) <= p per cycle at {pc * 100:g} % confidence",
                 ["p per cycle", "cycles"] +
                 [f"at {sig(1e9 / T)} Hz" for T in periods], rows,
                 numeric_from=1)


# --- the command line's hooks ---------------------------------------------

# Tests whose series are threads (or CPUs) of one cyclic measurement:
# rtlat timer and cyclictest, cyclictest's -h text, its --json.
