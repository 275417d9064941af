# SPDX-License-Identifier: GPL-2.0-or-later
"""rtlat-report BASE NEW --gate: is NEW worse than BASE? The spike rates
of each series at each level compared with an exact test (conditional
binomial test of two Poisson rates: given K spikes in both runs, NEW's
share is Binomial(K, its share of the cycles) when the rates are equal),
one-sided at the confidence, Bonferroni over the comparisons; the return
levels compared by their intervals. Exit 0 not worse, 3 worse beyond the
confidence, 125 too short to tell (git bisect run skips it)."""
from dataclasses import dataclass, field
from typing import List, Optional

from scipy import stats

NOT_WORSE, WORSE, CANNOT_TELL = 0, 3, 125


@dataclass
class Comparison:
    series: str
    level_ns: float
    base: tuple         # (spikes, cycles)
    new: tuple
    p_value: Optional[float]
    testable: bool
    worse: bool
    ratio: Optional[float]

    def as_json(self):
        return {"series": self.series, "level_ns": self.level_ns,
                "base_spikes": self.base[0], "base_cycles": self.base[1],
                "new_spikes": self.new[0], "new_cycles": self.new[1],
                "rate_ratio": self.ratio, "p_value": self.p_value,
                "testable": self.testable, "worse": self.worse}


@dataclass
class Gate:
    conf: float
    comparisons: List[Comparison] = field(default_factory=list)
    levels: List[dict] = field(default_factory=list)
    status: int = CANNOT_TELL
    reason: str = ""

    def as_json(self):
        return {"confidence": self.conf, "status": self.status,
                "verdict": {0: "not worse", 3: "worse",
                            125: "too short to tell"}[self.status],
                "reason": self.reason,
                "rates": [c.as_json() for c in self.comparisons],
                "return_levels": self.levels}


def rate_test(k1, n1, k2, n2):
    """One-sided p-value that rate 2 (k2 in n2) exceeds rate 1 (k1 in n1),
    and the smallest p-value the data could give (all spikes in run 2):
    that is what decides whether the runs can tell at all."""
    k = k1 + k2
    if k == 0 or n1 <= 0 or n2 <= 0:
        return None, 1.0
    share = n2 / (n1 + n2)
    return float(stats.binom.sf(k2 - 1, k, share)), share ** k


def gate(pairs, conf=0.95, levels_of=None):
    """pairs: [(series name, base TailData, new TailData, base TailFit,
    new TailFit, [Level] base, [Level] new)]; levels_of(base td, new td)
    gives the spike levels. Spike counts that the histogram only bounds
    are taken at their least favourable ends (base high, new low)."""
    g = Gate(conf)
    tests = []
    for name, b, n, _, _, lb, ln in pairs:
        for lv in levels_of(b, n):
            k1 = b.count_at_or_above(lv)[1]
            k2 = n.count_at_or_above(lv)[0]
            p, best = rate_test(k1, b.n, k2, n.n)
            tests.append((name, lv, k1, b.n, k2, n.n, p, best))
        for x, y in zip(lb, ln):
            row = {"series": name, "label": x.label, "base": None,
                   "new": None, "worse": False}
            if x.ns is not None:
                row["base"] = [x.ns, x.lo, x.hi]
            if y.ns is not None:
                row["new"] = [y.ns, y.lo, y.hi]
            if x.ns is not None and y.ns is not None:
                row["worse"] = y.lo > x.hi
            g.levels.append(row)
    alpha = (1 - conf) / max(1, len(tests))
    for name, lv, k1, n1, k2, n2, p, best in tests:
        testable = best < alpha
        ratio = (k2 / n2) / (k1 / n1) if k1 and n1 and n2 else None
        g.comparisons.append(Comparison(name, lv, (k1, n1), (k2, n2), p,
                                        testable, testable and p is not None
                                        and p < alpha, ratio))
    worse_rates = [c for c in g.comparisons if c.worse]
    worse_levels = [r for r in g.levels if r["worse"]]
    if worse_rates or worse_levels:
        g.status = WORSE
        w = worse_rates[0] if worse_rates else None
        g.reason = (f"{w.series}: {w.new[0]} spikes at or above "
                    f"{w.level_ns / 1000:g} µs in {w.new[1]} cycles against "
                    f"{w.base[0]} in {w.base[1]} (p = {w.p_value:.2g} < "
                    f"{alpha:.2g})" if w else
                    f"{worse_levels[0]['series']}: the return level "
                    f"{worse_levels[0]['label']} is above the base's "
                    "interval")
    elif any(c.testable for c in g.comparisons) or any(
            r["base"] and r["new"] for r in g.levels):
        g.status = NOT_WORSE
        g.reason = ("no spike rate or return level is worse beyond the "
                    f"{conf * 100:g} % confidence")
    else:
        g.status = CANNOT_TELL
        g.reason = ("the runs are too short to tell: at no level could "
                    "the spikes seen show a difference at "
                    f"{conf * 100:g} % confidence, and no tail was fitted "
                    "in both")
    return g


def text(g):
    lines = [f"gate: {g.as_json()['verdict']} ({g.reason})"]
    for c in g.comparisons:
        lines.append(
            f"  {c.series} >= {c.level_ns / 1000:g} µs: base {c.base[0]}/"
            f"{c.base[1]}, new {c.new[0]}/{c.new[1]}"
            + (f", p = {c.p_value:.3g}" if c.p_value is not None else "")
            + ("" if c.testable else " (too few spikes to tell)")
            + (" WORSE" if c.worse else ""))
    for r in g.levels:
        def fmt(v):
            return "no claim" if v is None else \
                f"{v[0] / 1000:.4g} µs ({v[1] / 1000:.4g}–{v[2] / 1000:.4g})"
        lines.append(f"  {r['series']} level once per {r['label']}: base "
                     f"{fmt(r['base'])}, new {fmt(r['new'])}"
                     + (" WORSE" if r["worse"] else ""))
    return "\n".join(lines)
