# SPDX-License-Identifier: GPL-2.0-or-later
"""Whether a later run is worse than the first one, figure by figure: the
one rule the comparison tables and the Overview both use.

A figure is judged only when both runs have enough samples for it: at
least MIN_TAIL samples in each run, and for a percentile p at least
MIN_TAIL samples beyond it (n - ceil(p * n) >= MIN_TAIL: p99 needs 1 000
samples, p99.9 10 000, p99.99 100 000); otherwise it is "n too small"
(p99.99 of 2 000 samples is the single worst one). Then, as rtlat's
--baseline judges (lower latency is better):

    regression    later > first * (1 + tolerance/100)
    improvement   first > later * (1 + tolerance/100)
    within noise  otherwise
"""
import math
from dataclasses import dataclass
from fractions import Fraction
from typing import Optional

from ..model import PCT_VALUE, PERCENTILES

MIN_TAIL = 10
DEFAULT_TOLERANCE = 10.0

REGRESSION = "regression"
IMPROVEMENT = "improvement"
NOISE = "within noise"
TOO_FEW = "n too small"
# HTML cell classes (colours; the words carry the meaning in print).
CLASS = {REGRESSION: "v-regression", IMPROVEMENT: "v-improvement",
         NOISE: "v-noise", TOO_FEW: "v-few"}
# The figures judged, in the order of the tables' columns (samples and
# overflow are counts, not latencies: they get no verdict).
FIGURES = ("min", "avg", "stddev") + PERCENTILES + ("max",)


def figure_of(d, name):
    """A distribution's figure in ns (None where it has none)."""
    if name in PCT_VALUE:
        return d.percentile(name)
    return getattr(d, f"{name}_ns")


def beyond(n, name):
    """How many of n samples lie beyond percentile name (all of them for
    a figure that is not a percentile)."""
    if name not in PCT_VALUE:
        return n
    p = Fraction(str(PCT_VALUE[name])) / 100
    return n - math.ceil(p * n)


@dataclass(frozen=True)
class Verdict:
    word: Optional[str]     # None: nothing to judge (a figure missing)
    ratio: Optional[float]  # later / first

    @property
    def css(self):
        return CLASS.get(self.word, "")

    def text(self):
        r = "–" if self.ratio is None else f"×{self.ratio:.2f}"
        return r if self.word is None else f"{r} {self.word}"


@dataclass(frozen=True)
class Rule:
    tolerance_pct: float = DEFAULT_TOLERANCE
    min_tail: int = MIN_TAIL

    def enough(self, name, n):
        return n >= self.min_tail and beyond(n, name) >= self.min_tail

    def compare(self, a, b, n_a, n_b, name="max"):
        """Figure name: first run's value a of n_a samples against the
        later run's b of n_b."""
        if a is None or b is None:
            return Verdict(None, None)
        ratio = b / a if a else None
        if not (self.enough(name, n_a) and self.enough(name, n_b)):
            return Verdict(TOO_FEW, ratio)
        k = 1 + self.tolerance_pct / 100.0
        if b > a * k:
            return Verdict(REGRESSION, ratio)
        if a > b * k:
            return Verdict(IMPROVEMENT, ratio)
        return Verdict(NOISE, ratio)

    def judge(self, base, d, name):
        """One figure of two distributions."""
        if base is None or d is None or not base.samples or not d.samples:
            return Verdict(None, None)
        return self.compare(figure_of(base, name), figure_of(d, name),
                            base.samples, d.samples, name)

    def judge_all(self, base, d):
        """{figure: Verdict} for every figure of FIGURES."""
        return {name: self.judge(base, d, name) for name in FIGURES}

    def describe(self):
        return (f"regression: later > first × (1 + {self.tolerance_pct:g} %)"
                f", improvement: first > later × (1 + "
                f"{self.tolerance_pct:g} %), else within noise; a "
                f"percentile p is judged only with at least "
                f"{self.min_tail} samples beyond it in both runs "
                f"(p99: n ≥ {self.min_tail * 100}, p99.9: n ≥ "
                f"{self.min_tail * 1000}, p99.99: n ≥ "
                f"{self.min_tail * 10000}), else \"n too small\"")

