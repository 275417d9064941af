# SPDX-License-Identifier: GPL-2.0-or-later
"""rtlat-report BASE NEW --gate: is NEW worse than BASE?

A NEW that did not finish (ended at a checkpoint, a non-zero return_code)
is worse whatever its samples say; a BASE that did not finish cannot
vouch for NEW (too little to tell, unless NEW is worse even so). Then, on
the series matched (by name, else thread N of one = thread N of the
other), the tail and the largest samples, at levels fixed from BASE
alone (so no test follows NEW's spikes):

- above BASE's max: the samples of NEW above the largest BASE reached
  (in one test's series). Under equal distributions each of the K
  samples above all of BASE is NEW's with its share of the cycles, so K
  is worse with p = share^K: a run of another length is scaled by it
  (the chance that the top K of both runs are all NEW's).
- the tail: the spikes at or above BASE's high quantiles (the levels
  BASE exceeds in 1 %, 0.1 %, ... of its cycles, while it has at least
  MIN_BASE samples; --levels gives others), each by an exact test
  (given K spikes in both runs, NEW's share is Binomial(K, its share of
  the cycles) when the rates are equal), one-sided.

One correction over everything tested: weighted Holm at 1 - confidence,
half the weight on the max tests (the largest samples first), half on
the tail's levels, each split evenly. Exit 3 when any is rejected.

"Not worse" needs a tail that could have shown a difference: the power
against a tail DETECT larger (BASE's excesses over its 99th percentile
times 1 + DETECT, a generalized Pareto tail's scale 30 % larger: an SMI
of 108 µs over an 8 µs body becomes 140 µs) is found by SIMS draws of
NEW from BASE's own histogram so grown, through the same tests (at
Holm's first step: a lower bound), for each series alone; its least is
said, and below MIN_POWER the gate cannot tell (125). Too short, nothing
matched, or BASE did not finish: 125 too (git bisect run skips it). The
return levels of both runs are shown beside, not tested (their
intervals are of fits the gate does not rely on).

The gate says what it compared (each series: its samples and seconds in
BASE and NEW) and warns, without changing its verdict or exit status,
when the runs differ enough to matter: one is more than LENGTH_RATIO
times longer than the other (samples or seconds: the longer one had the
chance to meet rarer events, so its max and its rare levels are not
alike), or they differ in a setting that changes what is measured (the
period or interval, the priority, the scheduling policy: MATTER)."""
import re
from dataclasses import dataclass, field
from typing import List, Optional

import numpy as np
from scipy import stats

from ..model import Judged
from ..units import count, latency, sig

NOT_WORSE, WORSE, CANNOT_TELL = 0, 3, 125
LENGTH_RATIO = 2.0
MATTER = re.compile(r"(^|\.)(period_us|interval_us|priority|prio|policy|"
                    r"sched_policy)$")
VERDICT = {NOT_WORSE: "not worse", WORSE: "worse", CANNOT_TELL: "cannot tell"}
# BASE's levels: exceeded in these shares of its cycles, while that share
# is at least MIN_BASE of its samples (fewer: the max test speaks for the
# top; each level more dilutes the correction)
QUANTILES = tuple(10.0 ** -k for k in range(2, 10))
MIN_BASE = 5
DETECT = 0.30           # the tail growth the gate must be able to see
MIN_POWER = 0.80        # with at least this probability, for "not worse"
SIMS = 400              # draws of NEW for the power (seeded: repeatable)


@dataclass
class Pair:
    """A series of BASE and its match in NEW: tail.TailData, the return
    levels ([tail.Level]) of each; name as the gate says it."""
    test: str
    name: str
    base: object
    new: object
    base_levels: list = field(default_factory=list)
    new_levels: list = field(default_factory=list)


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
    # "rate": spikes at or above the level; "max": samples above BASE's
    # max (the level), which BASE has none of
    kind: str = "rate"
    alpha: Optional[float] = None
    new_max_ns: Optional[float] = None
    best: float = 1.0       # the smallest p-value these counts could give
    weight: float = 0.0     # its share of Holm's weights
    pairs: list = field(default_factory=list, repr=False)

    def as_json(self):
        return {"series": self.series, "kind": self.kind,
                "level_ns": self.level_ns,
                "base_spikes": self.base[0], "base_cycles": self.base[1],
                "new_spikes": self.new[0], "new_cycles": self.new[1],
                "rate_ratio": self.ratio, "p_value": self.p_value,
                "alpha": self.alpha, "testable": self.testable,
                "worse": self.worse}

    def words(self):
        """The comparison as the reason says it."""
        if self.kind == "max":
            return (f"{self.series}: {count(self.new[0])} samples above "
                    f"BASE's max {latency(self.level_ns)} (NEW's max "
                    f"{latency(self.new_max_ns or 0)}) in "
                    f"{count(self.new[1])} cycles, BASE none in "
                    f"{count(self.base[1])} "
                    f"(p = {self.p_value:.2g} < {self.alpha:.2g})")
        return (f"{self.series}: {count(self.new[0])} spikes at or above "
                f"{latency(self.level_ns)} in {count(self.new[1])} cycles "
                f"against {count(self.base[0])} in {count(self.base[1])} (p = "
                f"{self.p_value:.2g} < {self.alpha:.2g})")


@dataclass
class Power:
    """The probability that a tail DETECT larger in one series would
    have been called worse: the least over the series (and which)."""
    detect: float
    least: Optional[float] = None
    series: str = ""
    each: dict = field(default_factory=dict)

    def as_json(self):
        return {"tail_larger_by": self.detect, "least": self.least,
                "series": self.series, "by_series": self.each,
                "needed": MIN_POWER, "draws": SIMS}

    def words(self):
        return (f"a {self.detect * 100:g} % larger tail would have been "
                f"seen with probability {self.least:.2f}" +
                (f" (the least, {self.series})" if len(self.each) > 1
                 else ""))


@dataclass
class Gate:
    conf: float
    comparisons: List[Comparison] = field(default_factory=list)
    levels: List[dict] = field(default_factory=list)
    status: int = CANNOT_TELL
    reason: str = ""
    # {"BASE"/"NEW": [(word, why)]} for a run that did not finish, and
    # {"BASE"/"NEW": {test: [series]}} of what was not compared
    ended: dict = field(default_factory=dict)
    unmatched: dict = field(default_factory=dict)
    # what was compared, in words, and why the comparison may mislead
    compared: List[str] = field(default_factory=list)
    warnings: List[str] = field(default_factory=list)
    power: Optional[Power] = None

    def as_json(self):
        return {"confidence": self.conf, "status": self.status,
                "verdict": VERDICT[self.status],
                "reason": self.reason,
                "ended": {k: [why for _, why in v]
                          for k, v in self.ended.items()},
                "not_compared": self.unmatched,
                "correction": "weighted Holm (half on the max tests, "
                "half on the tail's levels)",
                "rates": [c.as_json() for c in self.comparisons],
                "power": self.power.as_json() if self.power else None,
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


def rate_p(k1, n1, k2, n2):
    """rate_test's p-value of arrays of NEW's counts k2 (1 where no
    spike in either run)."""
    k2 = np.asarray(k2)
    share = n2 / (n1 + n2)
    p = stats.binom.sf(k2 - 1, k1 + k2, share)
    return np.where(k1 + k2 > 0, p, 1.0)


def quantile_levels(td):
    """BASE's levels: the bin edges it exceeds in at most QUANTILES of
    its cycles, while at least MIN_BASE of its samples are there."""
    if td.n <= 0 or not len(td.starts):
        return []
    out = []
    above = np.cumsum(td.counts[::-1])[::-1] + td.overflow
    for q in QUANTILES:
        i = np.nonzero(above <= q * td.n)[0]
        if q * td.n < MIN_BASE or not len(i) or above[i[0]] == 0:
            break
        lv = float(td.starts[i[0]])
        if lv not in out:
            out.append(lv)
    return out


def above_base_max(test, pairs):
    """The samples of NEW above the largest BASE reached in the series of
    one test (their maxima's largest): BASE has none there by definition,
    so under equal distributions each of the K samples above is NEW's
    with its share of the cycles. NEW's count is the least it can be (a
    bin holding BASE's max is not counted). None without a BASE max."""
    known = [p for p in pairs if p.base.max_ns is not None and p.base.n > 0]
    if not known:
        return None
    top = max(p.base.max_ns for p in known)
    # "above": a level 1 ns beyond (rtlat's samples are whole ns)
    k2 = sum(p.new.count_at_or_above(top + 1)[0] for p in known)
    n1 = sum(p.base.n for p in known)
    n2 = sum(p.new.n for p in known)
    nmax = [p.new.max_ns for p in known if p.new.max_ns is not None]
    c = Comparison(test, top, (0, n1), (k2, n2), None, False, False, None,
                   "max", new_max_ns=max(nmax) if nmax else None,
                   pairs=known)
    c.p_value, c.best = rate_test(0, n1, k2, n2)
    return c


def compare(pairs, levels_of):
    """The comparisons (max tests first, then the tail's levels) with
    their p-values (alphas unset), and the return level rows."""
    maxes, rates, rows = [], [], []
    tests = []
    for p in pairs:
        if p.test not in tests:
            tests.append(p.test)
    for t in tests:
        c = above_base_max(t, [p for p in pairs if p.test == t])
        if c is not None:
            maxes.append(c)
    for p in pairs:
        b, n = p.base, p.new
        for lv in levels_of(b):
            k1 = b.count_at_or_above(lv)[1]
            k2 = n.count_at_or_above(lv)[0]
            c = Comparison(p.name, lv, (k1, b.n), (k2, n.n), None, False,
                           False, (k2 / n.n) / (k1 / b.n)
                           if k1 and b.n and n.n else None, pairs=[p])
            c.p_value, c.best = rate_test(k1, b.n, k2, n.n)
            rates.append(c)
        for x, y in zip(p.base_levels, p.new_levels):
            row = {"series": p.name, "label": x.label, "base": None,
                   "new": None}
            if x.ns is not None:
                row["base"] = [x.ns, x.lo, x.hi]
            if y.ns is not None:
                row["new"] = [y.ns, y.lo, y.hi]
            rows.append(row)
    return maxes, rates, rows


def holm(comparisons, alpha):
    """Weighted Holm (Holm 1979) over every comparison: in the order of
    p / weight, each rejected while p <= alpha * weight / the weight not
    yet rejected; the first that is not stops it. Sets alpha (its
    threshold at the first step), testable and worse."""
    for c in comparisons:
        c.alpha = alpha * c.weight
        c.testable = c.best <= c.alpha
        c.worse = False
    left = sum(c.weight for c in comparisons)
    for c in sorted((c for c in comparisons if c.p_value is not None),
                    key=lambda c: c.p_value / c.weight):
        if c.p_value > alpha * c.weight / left:
            break
        c.worse = True
        left -= c.weight


def weigh(maxes, rates):
    """Half the weight on the max tests, half on the tail's levels (all
    on one where the other has none), each split evenly."""
    fams = [f for f in (maxes, rates) if f]
    for fam in fams:
        for c in fam:
            c.weight = 1 / len(fams) / len(fam)


def survival(td):
    """BASE's P(X >= x) as a function of arrays x: linear within each
    bin (its samples spread evenly), flat across empty ones, the
    overflow up to the histogram's end and nothing beyond."""
    w = td.width
    edges = np.unique(np.concatenate([td.starts, td.starts + w]))
    above = np.cumsum(td.counts[::-1])[::-1] + td.overflow
    at = {float(a): float(k) for a, k in zip(td.starts, above)}
    for a, c in zip(td.starts, td.counts):
        at.setdefault(float(a + w), at[float(a)] - float(c))
    ys = np.array([at[float(e)] for e in edges]) / td.n
    end = td.range_end if td.range_end is not None else edges[-1]

    def sf(x):
        x = np.asarray(x, float)
        out = np.interp(x, edges, ys, left=1.0, right=td.overflow / td.n)
        return np.where(x > max(end, edges[-1]), 0.0, out)
    return sf


def power_of(pair, tests, n_new, detect, rng):
    """The probability that NEW, n_new cycles drawn from pair's BASE with
    its excesses over its 99th percentile grown by detect, is called
    worse by one of tests (the comparisons of this series, at their
    first-step Holm thresholds). NEW's counts at the levels are drawn at
    once: a multinomial over the cells between the levels."""
    td = pair.base
    if not len(td.starts) or td.n <= 0 or not tests:
        return 0.0
    lv = quantile_levels(td)
    u = lv[0] if lv else float(td.starts[-1])
    # "above BASE's max" is "at or above 1 ns beyond" (whole ns)
    at = np.array(sorted({c.level_ns + (c.kind == "max") for c in tests}))
    sf = survival(td)
    orig = np.where(at > u, u + (at - u) / (1 + detect), at)
    s = sf(orig)
    cells = np.append(np.append(1 - s[0], s[:-1] - s[1:]), s[-1])
    cells = np.clip(cells, 0, None)
    draws = rng.multinomial(n_new, cells / cells.sum(), size=SIMS)
    at_or_above = np.cumsum(draws[:, ::-1], axis=1)[:, ::-1][:, 1:]
    seen = np.zeros(SIMS, bool)
    end = pair.new.range_end
    for c in tests:
        lv = c.level_ns + (c.kind == "max")
        k2 = at_or_above[:, int(np.searchsorted(at, lv))]
        if end is not None and lv >= end:
            # beyond NEW's histogram only its max is seen: one sample
            k2 = np.minimum(k2, 1)
        k1 = 0 if c.kind == "max" else c.base[0]
        seen |= rate_p(k1, c.base[1], k2, c.new[1]) <= c.alpha
    return float(seen.mean())


def power(pairs, comparisons, detect=DETECT):
    """Power of the gate against each series' tail detect larger: the
    least over the series, which, and each."""
    rng = np.random.default_rng(46)
    pw = Power(detect)
    for p in pairs:
        tests = [c for c in comparisons if any(x is p for x in c.pairs)]
        pw.each[p.name] = power_of(p, tests, p.new.n, detect, rng)
    if pw.each:
        pw.series = min(pw.each, key=pw.each.get)
        pw.least = pw.each[pw.series]
    return pw


def seconds(s):
    return "? s" if s is None else f"{sig(s)} s"


def ratio(a, b):
    """max/min of two positive figures, None where one is unknown."""
    if not a or not b:
        return None
    return max(a, b) / min(a, b)


def lengths(pairs):
    """(what was compared, one line per series; the warnings of lengths
    LENGTH_RATIO apart)."""
    said, warn = [], []
    for p in pairs:
        b, n = p.base, p.new
        said.append(f"{p.name}: BASE {count(b.n)} samples in "
                    f"{seconds(b.duration_s)}, NEW {count(n.n)} samples in "
                    f"{seconds(n.duration_s)}")
        far = [(what, r, x, y) for what, r, x, y in (
            ("samples", ratio(b.n, n.n), count(b.n), count(n.n)),
            ("seconds", ratio(b.duration_s, n.duration_s),
             seconds(b.duration_s), seconds(n.duration_s)))
            if r is not None and r > LENGTH_RATIO]
        if far:
            warn.append(f"{p.name}: the runs' lengths differ: " + ", ".join(
                f"×{sig(r)} the {what} ({x} vs {y})" for what, r, x, y in far)
                + f" (more than ×{LENGTH_RATIO:g}: the longer run had the "
                "chance to meet rarer events; its max and rare levels are "
                "not alike)")
    return said, warn


def settings_warnings(settings):
    """[(test, BASE settings, NEW settings)] -> one warning per test whose
    runs differ in a setting of MATTER."""
    out = []
    for test, a, b in settings:
        diff = [f"{k} {a.get(k, '–')} vs {b.get(k, '–')}"
                for k in dict.fromkeys(list(a) + list(b))
                if MATTER.search(k) and a.get(k) != b.get(k)]
        if diff:
            out.append(f"{test}: the runs' settings differ: " +
                       "; ".join(diff) + " (they do not measure the same "
                       "thing)")
    return out


def gate(pairs, conf=0.95, levels_of=None, ended=None, unmatched=None,
         detect=DETECT):
    """pairs: [Pair]; levels_of(base TailData) gives the tail's levels
    (default: BASE's quantile_levels; fixed from BASE alone: chosen from
    NEW as well, the levels would follow NEW's spikes and the tests be no
    longer exact). Spike counts that the histogram only bounds are taken
    at their least favourable ends (base high, new low). ended and
    unmatched: see Gate."""
    g = Gate(conf, ended=ended or {}, unmatched=unmatched or {})
    maxes, rates, g.levels = compare(pairs, levels_of or quantile_levels)
    weigh(maxes, rates)
    g.comparisons = maxes + rates
    holm(g.comparisons, 1 - conf)
    g.compared, g.warnings = lengths(pairs)
    if pairs and not any(c.worse for c in g.comparisons):
        g.power = power(pairs, g.comparisons, detect)
    decide(g, pairs)
    return g


def said(side, items):
    """'NEW did not finish: a; b' (and 'NEW failed: c')."""
    out = []
    for word in dict.fromkeys(w for w, _ in items):
        out.append(f"{side} {word}: " + "; ".join(
            why for w, why in items if w == word))
    return "; ".join(out)


def named(tests, most=8):
    """{test: [series]} as 'timer: CPU0, CPU1; pmq: ...' (at most `most`
    series, then how many more)."""
    if not tests:
        return "no series"
    out, left = [], most
    for t, names in tests.items():
        if left <= 0:
            break
        out.append(f"{t}: " + ", ".join(names[:left]))
        left -= len(names)
    rest = sum(len(v) for v in tests.values()) - most
    return "; ".join(out) + (f" and {rest} more" if rest > 0 else "")


def decide(g, pairs):
    worse = [c for c in g.comparisons if c.worse]
    new_end, base_end = g.ended.get("NEW"), g.ended.get("BASE")
    if new_end:
        # a crashed, hung or failed run is never good, whatever its
        # samples before the end say
        g.status = WORSE
        g.reason = said("NEW", new_end)
    elif worse:
        g.status = WORSE
        g.reason = worse[0].words()
    elif base_end:
        g.status = CANNOT_TELL
        g.reason = said("BASE", base_end) + (
            ": a BASE that did not finish cannot vouch for NEW")
    elif not pairs:
        g.status = CANNOT_TELL
        g.reason = ("nothing matched: no series of one run is in the "
                    f"other (BASE has {named(g.unmatched.get('BASE'))}; "
                    f"NEW has {named(g.unmatched.get('NEW'))})")
    elif g.power.least is not None and g.power.least >= MIN_POWER:
        g.status = NOT_WORSE
        g.reason = ("no sample above BASE's max and no spike rate at "
                    "BASE's tail is worse beyond the "
                    f"{g.conf * 100:g} % confidence; " + g.power.words())
    else:
        g.status = CANNOT_TELL
        g.reason = ("the runs are too short to tell: nothing is worse at "
                    f"{g.conf * 100:g} % confidence, but " +
                    g.power.words() + f" (at least {MIN_POWER:g} needed "
                    "to call NEW not worse)" + beyond(pairs))
    if g.status == WORSE and base_end:
        g.reason += " (" + said("BASE", base_end) + \
            ": the comparison rests on its samples before the end)"


def beyond(pairs):
    """'; BASE's max lies beyond its histogram ...' where one does (or
    BASE has none): its tail is then seen by the max alone."""
    bare = [p for p in pairs if not len(p.base.starts)]
    if bare:
        return (f"; {bare[0].name}: BASE has no histogram (only its max is "
                "known)")
    far = [p for p in pairs if p.base.max_ns is not None and
           p.base.range_end is not None and p.base.max_ns >= p.base.range_end]
    if not far:
        return ""
    p = far[0]
    return (f"; {p.name}: BASE's max {latency(p.base.max_ns)} lies beyond "
            f"its histogram (to {latency(p.base.range_end)}): its tail is "
            "seen by the max alone (a wider histogram would show it)")


def judged(g):
    """The gate as the page's verdict lists it: one Judged item, with
    what it compared and its warnings in the words."""
    detail = g.reason
    if g.warnings:
        detail += "; warning: " + "; ".join(g.warnings)
    if g.compared:
        detail += "; compared: " + "; ".join(g.compared)
    return [Judged("gate", "NEW against BASE", VERDICT[g.status], detail)]


def text(g):
    lines = [f"gate: {VERDICT[g.status]} ({g.reason})"]
    lines += [f"  warning: {w}" for w in g.warnings]
    lines += [f"  compared: {c}" for c in g.compared]
    if g.power and g.power.least is not None:
        lines.append(f"  power: {g.power.words()}")
    for c in g.comparisons:
        what = (f"above BASE's max {latency(c.level_ns)}"
                if c.kind == "max" else f">= {latency(c.level_ns)}")
        lines.append(
            f"  {c.series} {what}: base {count(c.base[0])}/"
            f"{count(c.base[1])}, new {count(c.new[0])}/{count(c.new[1])}"
            + (f", p = {c.p_value:.3g}" if c.p_value is not None else "")
            + ("" if c.testable else " (too few spikes to tell)")
            + (" WORSE" if c.worse else ""))
    for r in g.levels:
        def fmt(v):
            return "no claim" if v is None else \
                f"{latency(v[0])} ({latency(v[1])}–{latency(v[2])})"
        lines.append(f"  {r['series']} level once per {r['label']}: base "
                     f"{fmt(r['base'])}, new {fmt(r['new'])} (shown, "
                     "not tested)")
    for side in ("BASE", "NEW"):
        if g.unmatched.get(side) and (g.comparisons or g.levels):
            lines.append(f"  not compared, {side} only: "
                         f"{named(g.unmatched[side])}")
    return "\n".join(lines)
