# SPDX-License-Identifier: GPL-2.0-or-later
"""How long to run: the cycles (and hours, given the cycle period) needed
to show P(latency >= level) <= p per cycle at a confidence c, with no
spike observed (-ln(1 - c) / p, the rule of three at 95 %), what a run
already shows, and what its fitted tail projects."""
import math
from dataclasses import dataclass
from typing import Optional

from scipy import stats

from . import fit as tail
from ..units import count, latency, sig
from ..units import prob as prob_words

TARGET_PROBS = (1e-6, 1e-7, 1e-8, 1e-9, 1e-10, 1e-11, 1e-12)


def cycles_needed(p, conf=0.95):
    """Cycles with no spike that bound the per-cycle probability below p
    at confidence conf."""
    return -math.log(1 - conf) / p


def human_duration(s):
    if s is None:
        return "–"
    for unit, n in (("years", 365.25 * 86400), ("days", 86400),
                    ("hours", 3600), ("minutes", 60)):
        if s >= n:
            return f"{sig(s / n)} {unit}"
    return f"{sig(s)} s"


def table(periods_ns, conf=0.95, probs=TARGET_PROBS):
    """[(p, cycles, {period: seconds})]: the run length table."""
    return [(p, cycles_needed(p, conf),
             {T: cycles_needed(p, conf) * T / 1e9 for T in periods_ns})
            for p in probs]


@dataclass
class Plan:
    level_ns: float
    prob: float
    conf: float
    period_ns: Optional[float]
    cycles: float
    seconds: Optional[float]
    # what a run shows (filled when there is one)
    series: str = ""
    run_cycles: Optional[int] = None
    run_spikes: Optional[tuple] = None        # (lo, hi) at the level
    run_upper: Optional[float] = None         # one-sided upper bound of p
    met_by_count: Optional[bool] = None
    more_cycles: Optional[float] = None
    fit_prob: Optional[float] = None
    fit_level: Optional[tail.Level] = None
    fit_says: str = ""

    def as_json(self):
        lv = self.fit_level
        return {
            "level_ns": self.level_ns, "prob_per_cycle": self.prob,
            "confidence": self.conf, "period_ns": self.period_ns,
            "cycles_needed_without_spike": self.cycles,
            "seconds_needed_without_spike": self.seconds,
            "series": self.series or None, "run_cycles": self.run_cycles,
            "run_spikes_bounds": list(self.run_spikes)
            if self.run_spikes else None,
            "run_prob_upper": self.run_upper,
            "met_by_count": self.met_by_count,
            "more_cycles_without_spike": self.more_cycles,
            "fit_prob_per_cycle": self.fit_prob,
            "fit_level": level_json(lv) if lv else None,
            "fit_says": self.fit_says or None}


def level_json(lv):
    if lv.ns is None:
        return {"label": lv.label, "prob_per_cycle": lv.p,
                "no_claim": lv.no_claim}
    return {"label": lv.label, "prob_per_cycle": lv.p, "ns": lv.ns,
            "lo": lv.lo, "hi": lv.hi}


def plan(level_ns, prob, conf=0.95, period_ns=None, td=None, tf=None):
    """The plan for a target; with a series (td) and its fit (tf), what
    the run shows and what the tail projects."""
    n = cycles_needed(prob, conf)
    pl = Plan(level_ns, prob, conf, period_ns, n,
              n * period_ns / 1e9 if period_ns else None)
    if td is None:
        return pl
    pl.series, pl.run_cycles = td.name, td.n
    lo, hi = td.count_at_or_above(level_ns)
    pl.run_spikes = (lo, hi)
    if td.n:
        pl.run_upper = float(stats.chi2.ppf(conf, 2 * hi + 2) / 2 / td.n)
        pl.met_by_count = pl.run_upper <= prob
        if hi == 0 and not pl.met_by_count:
            pl.more_cycles = n - td.n
    if tf is not None and tf.fit is not None:
        pl.fit_prob = tail.exceed_prob(tf.fit, td, level_ns)
        lv = tail.level_within_span(tf, td, prob, f"1/{prob:g} cycles",
                                    conf)
        pl.fit_level = lv
        if lv.ns is None:
            pl.fit_says = f"the fitted tail cannot tell: {lv.no_claim}"
        elif lv.hi < level_ns:
            pl.fit_says = (f"the fitted tail projects the target met: the "
                           f"level exceeded once per {sig(1 / prob)} cycles "
                           f"is {latency(lv.ns)} ({latency(lv.lo)}–"
                           f"{latency(lv.hi)}), below {latency(level_ns)}"
                           " (an extrapolation: it holds only if the "
                           "tail keeps its shape)")
        elif lv.lo > level_ns:
            pl.fit_says = (f"the fitted tail projects the target missed: "
                           f"{latency(lv.ns)} ({latency(lv.lo)}–"
                           f"{latency(lv.hi)}) once per {sig(1 / prob)} "
                           "cycles")
        else:
            pl.fit_says = (f"the fitted tail cannot tell: its interval "
                           f"{latency(lv.lo)}–{latency(lv.hi)} holds "
                           f"{latency(level_ns)}; run longer")
    elif tf is not None:
        pl.fit_says = f"no fitted tail: {tf.no_claim}"
    return pl


def text(pl):
    """The plan in plain lines (rtlat-report --plan)."""
    t = [f"target: P(latency >= {latency(pl.level_ns)}) <= "
         f"{prob_words(pl.prob)} per cycle at {pl.conf * 100:g} % confidence",
         f"with no spike at or above it: {sig(pl.cycles, 4)} cycles"
         + (f" = {human_duration(pl.seconds)} at a "
            f"{latency(pl.period_ns)} cycle" if pl.seconds else
            " (give --period-us for the time)")]
    if pl.run_cycles is not None:
        lo, hi = pl.run_spikes
        cnt = str(lo) if lo == hi else f"{lo}–{hi}"
        t.append(f"{pl.series}: {count(pl.run_cycles)} cycles, {cnt} at or above "
                 f"the level: P <= {sig(pl.run_upper)} per cycle at "
                 f"{pl.conf * 100:g} % -> target "
                 + ("met" if pl.met_by_count else "not shown yet"))
        if pl.more_cycles:
            more = pl.more_cycles * pl.period_ns / 1e9 if pl.period_ns \
                else None
            t.append(f"  {sig(pl.more_cycles, 4)} more cycles with no spike "
                     "would show it" +
                     (f" ({human_duration(more)})" if more else ""))
        elif not pl.met_by_count and hi:
            t.append("  spikes at the level were seen: only a run long "
                     "enough for their rate's bound to fall below the "
                     "target shows it (if the rate is that low at all)")
        if pl.fit_says:
            t.append("  " + pl.fit_says)
    return "\n".join(t)
