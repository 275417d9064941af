# SPDX-License-Identifier: GPL-2.0-or-later
"""The assumptions a tail figure rests on, checked before one is given
(as the measurement-based probabilistic WCET tools do, DiagXtrm's
stationarity, independence and extremal independence):

- a trend over the run (Mann-Kendall over the time line's per-step
  maxima, else a Kolmogorov-Smirnov test of the largest samples' times,
  one per cluster, against an even spread over the run);
- spikes that come in clusters: the extremal index by the intervals
  estimator of Ferro and Segers (2003) and its declustering;
- spikes that come periodically (an SMI every 0.5 s), said with their
  period and rate rather than taken for one cluster.

Each returns words or figures; fit.py and spikes.py decide what to do
with them."""
import math
from dataclasses import dataclass
from typing import Optional

import numpy as np
from scipy import stats

TREND_P = 1e-3          # Mann-Kendall / KS p below this: a trend
TREND_IQR = 0.5         # ... and a change over the run of half the IQR
THETA_CLUSTERED = 0.8   # an extremal index below this: clustered
PERIODIC_SHARE = 0.9    # of the gaps a whole multiple of the period
PERIODIC_TOL = 0.05     # how close to a whole multiple (of a period)
PERIODIC_MIN = 8        # fewer spikes: no period is said


@dataclass
class Trend:
    """A trend found over the run, in words, and the figures behind."""
    words: str
    p: float
    change_ns: float


def trend_of_steps(steps, step_s=None):
    """A Trend over the time line's per-step maxima [(t_s, n, max_ns)],
    or None: Mann-Kendall (Kendall's tau of the maxima against time,
    p < TREND_P) with a Theil-Sen change over the run of at least
    TREND_IQR of the maxima's interquartile range (a trend too small to
    matter against their spread is not one)."""
    if not steps:
        return None
    rows = [(t, m) for t, n, m in steps if n and m is not None]
    if len(rows) < 10:
        return None
    t = np.array([r[0] for r in rows], float)
    m = np.array([r[1] for r in rows], float)
    tau, p = stats.kendalltau(t, m)
    if not np.isfinite(p) or p >= TREND_P:
        return None
    slope = stats.theilslopes(m, t)[0] if len(t) <= 2000 else \
        _theil_sub(t, m)
    change = float(slope * (t[-1] - t[0]))
    q1, q3 = np.percentile(m, [25, 75])
    if abs(change) < TREND_IQR * max(q3 - q1, 1.0):
        return None
    word = "rise" if change > 0 else "fall"
    return Trend(f"the per-second maxima {word} by {abs(change) / 1000:.3g}"
                 f" µs over the run (Mann-Kendall p = {p:.1g})", float(p),
                 change)


def _theil_sub(t, m, most=2000):
    """Theil-Sen's slope of an evenly thinned sample (its cost is
    quadratic in the points)."""
    idx = np.linspace(0, len(t) - 1, most).astype(int)
    return stats.theilslopes(m[idx], t[idx])[0]


def trend_of_times(times, span_s, period_s=None):
    """A Trend from the largest samples' times, or None: their spread
    over [0, span_s] against an even one (Kolmogorov-Smirnov, p <
    TREND_P), the test's sample size the clusters' number where they
    cluster (theta N: spikes of one cluster are not independent times,
    and a burst must not pass for a trend)."""
    if times is None or span_s is None or span_s <= 0:
        return None
    t = np.sort(np.asarray(times, float))
    if len(t) < 10:
        return None
    ei = extremal_index(t, period_s)
    n = len(t)
    if ei is not None and ei.theta < THETA_CLUSTERED:
        n = max(3, int(round(ei.theta * n)))
    d = stats.kstest(np.clip(t / span_s, 0, 1), "uniform").statistic
    p = float(stats.kstwo.sf(d, n))
    if p >= TREND_P:
        return None
    where = "late" if np.median(t) > span_s / 2 else "early"
    return Trend(f"the largest samples crowd {where} in the run (their "
                 f"times against an even spread: Kolmogorov-Smirnov "
                 f"p = {p:.1g})", p, 0.0)


@dataclass
class ExtremalIndex:
    """theta (1: spikes independent; 1/theta: the mean cluster size),
    the clusters found by intervals declustering and the gap (s) that
    separates them."""
    theta: float
    clusters: int
    run_s: float


def extremal_index(times, period_s=None):
    """Ferro and Segers' intervals estimator of the extremal index from
    the times (s) of the exceedances of a level, and the declustering it
    implies (the C - 1 largest gaps, C = theta N rounded up, separate the
    clusters). None with fewer than 3 exceedances."""
    t = np.sort(np.asarray(times, float))
    n = len(t)
    if n < 3:
        return None
    gaps = np.diff(t)
    unit = period_s or (gaps[gaps > 0].min() if np.any(gaps > 0) else 1.0)
    T = np.maximum(np.round(gaps / unit), 1.0)
    if T.max() <= 2:
        theta = 2 * T.sum() ** 2 / ((n - 1) * (T ** 2).sum())
    else:
        den = ((n - 1) * ((T - 1) * (T - 2)).sum())
        theta = 2 * (T - 1).sum() ** 2 / den if den > 0 else 1.0
    theta = float(min(1.0, theta))
    c = min(n, int(math.floor(theta * n)) + 1)
    if c >= n:
        return ExtremalIndex(theta, n, 0.0)
    # the (c - 1) largest gaps end clusters: the c-th largest is the run
    run = float(np.sort(gaps)[::-1][c - 1])
    clusters = 1 + int(np.sum(gaps > run))
    return ExtremalIndex(theta, clusters, run)


@dataclass
class Periodic:
    period_s: float
    per_hour: float


def periodic(times, period_s=None):
    """A Periodic when nearly every gap between these spikes' times is a
    whole multiple of the smallest one (some slots may lack a spike: at a
    high level only the larger SMIs count), else None."""
    t = np.sort(np.asarray(times, float))
    if len(t) < PERIODIC_MIN:
        return None
    gaps = np.diff(t)
    small = max(3 * (period_s or 0.0), 1e-6)
    gaps = gaps[gaps > small]
    if len(gaps) < PERIODIC_MIN - 1:
        return None
    base = float(np.percentile(gaps, 5))
    # the smallest gaps, averaged: a period measured over one gap is only
    # as exact as the cycle's time
    near = gaps[np.abs(gaps / base - 1) <= PERIODIC_TOL]
    base = float(near.mean()) if len(near) else base
    k = np.round(gaps / base)
    ok = (k >= 1) & (np.abs(gaps / base - k) <= PERIODIC_TOL)
    if ok.mean() < PERIODIC_SHARE:
        return None
    return Periodic(base, 3600 / base)


def fmt_period(pr: Optional[Periodic]):
    """"every 0.500 s: 7,200/h"."""
    if pr is None:
        return ""
    return f"every {pr.period_s:.3f} s: {pr.per_hour:,.0f}/h"
