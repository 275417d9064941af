# SPDX-License-Identifier: GPL-2.0-or-later
"""Spike rates: how many samples reached each level, per hour and per 10^6
cycles, with exact Poisson intervals; the mean time between spikes; and,
with a time line or the largest samples' times, whether spikes come in
clusters (the extremal index, Ferro and Segers' intervals estimator: the
rate's interval then counts clusters) or periodically (their period and
rate said)."""
import math
from dataclasses import dataclass
from typing import Optional

import numpy as np
from scipy import stats

from . import checks


def poisson_interval(k, conf=0.95):
    """The exact (Garwood) two-sided interval of a Poisson mean, k seen:
    chi-square quantiles."""
    a = 1 - conf
    lo = 0.0 if k <= 0 else stats.chi2.ppf(a / 2, 2 * k) / 2
    hi = stats.chi2.ppf(1 - a / 2, 2 * k + 2) / 2
    return float(lo), float(hi)


def nice_levels(lo_ns, hi_ns, most=4):
    """Round levels (1, 2, 5 x 10^k µs) from lo to hi, at most `most`,
    spread over the range."""
    if not lo_ns or not hi_ns or hi_ns <= 0:
        return []
    vals = []
    k = math.floor(math.log10(max(lo_ns, 1000) / 1000))
    while True:
        for m in (1, 2, 5):
            v = m * 10 ** k * 1000
            if lo_ns <= v <= hi_ns:
                vals.append(v)
        if 10 ** k * 1000 > hi_ns:
            break
        k += 1
    if not vals:
        # the tail lies between two round numbers: the one below the max
        v = 10 ** math.floor(math.log10(hi_ns / 1000)) * 1000
        for m in (5, 2, 1):
            if m * v <= hi_ns:
                return [m * v]
        return []
    if len(vals) > most:
        idx = np.unique(np.round(np.linspace(0, len(vals) - 1, most)))
        vals = [vals[int(i)] for i in idx]
    return vals


def default_levels(tds):
    """A few levels spanning the observed tail of these series: from the
    99th percentile to the largest sample."""
    los, his = [], []
    for td in tds:
        if td.n <= 0 or td.max_ns is None:
            continue
        his.append(td.max_ns)
        if len(td.starts):
            above = np.cumsum(td.counts[::-1])[::-1] + td.overflow
            i = np.nonzero(above <= 0.01 * td.n)[0]
            los.append(float(td.starts[i[0]]) if len(i) else td.max_ns)
    if not his:
        return []
    return nice_levels(min(los) if los else min(his), max(his))


@dataclass
class Rate:
    level_ns: float
    count_lo: int
    count_hi: int
    cycles: int
    hours: Optional[float]
    conf: float
    per_hour: Optional[tuple] = None        # (estimate, lo, hi)
    per_mcycles: Optional[tuple] = None
    mtbs_s: Optional[tuple] = None          # mean time between spikes
    clusters: Optional[int] = None
    clusters_by: str = ""
    clustered: Optional[bool] = None
    cluster_per_hour: Optional[tuple] = None
    extremal_index: Optional[float] = None
    periodic: Optional[checks.Periodic] = None

    @property
    def exact(self):
        return self.count_lo == self.count_hi

    def as_json(self):
        out = {"level_ns": self.level_ns, "count": self.count_lo
               if self.exact else None,
               "count_bounds": [self.count_lo, self.count_hi],
               "count_exact": self.exact, "cycles": self.cycles,
               "hours": self.hours, "confidence": self.conf}
        for k in ("per_hour", "per_mcycles", "mtbs_s", "cluster_per_hour"):
            v = getattr(self, k)
            out[k] = None if v is None else dict(zip(("estimate", "lo",
                                                      "hi"), v))
        out.update(clusters=self.clusters, clusters_by=self.clusters_by,
                   clustered=self.clustered,
                   extremal_index=self.extremal_index,
                   periodic=None if self.periodic is None else {
                       "period_s": self.periodic.period_s,
                       "per_hour": self.periodic.per_hour})
        return out


def rate(td, level, conf=0.95):
    """The spike rate at level for one series (a TailData)."""
    lo, hi = td.count_at_or_above(level)
    hours = series_hours(td)
    r = Rate(level, lo, hi, td.n, hours, conf)
    plo, _ = poisson_interval(lo, conf)
    _, phi = poisson_interval(hi, conf)
    mid = (lo + hi) / 2
    if td.n:
        r.per_mcycles = (mid / td.n * 1e6, plo / td.n * 1e6,
                         phi / td.n * 1e6)
    if hours:
        r.per_hour = (mid / hours, plo / hours, phi / hours)
        s = hours * 3600
        r.mtbs_s = (s / mid if mid else None, s / phi,
                    s / plo if plo else None)
    clusters(td, level, r, conf)
    return r


def series_hours(td):
    if td.period_ns and td.n:
        return td.n * td.period_ns / 3.6e12
    if td.duration_s:
        return td.duration_s / 3600
    return None


def spike_times(td, level):
    """The times of the spikes at or above level that the largest
    samples hold (every one when they reach below the level), and
    whether that is all of them."""
    if td.exact_times is None or td.exact is None or not len(td.exact):
        return None, False
    sel = td.exact >= level
    return np.sort(td.exact_times[sel]), bool(td.exact[-1] < level)


def clusters(td, level, r, conf):
    """Periodic spikes (from the largest samples' times, even when they
    hold only the largest of the spikes: an SMI's slots without a spike
    at this level still leave whole multiples of its period) are said
    with their period and rate. Else clusters: from every spike's time,
    the extremal index (Ferro and Segers) and its declustering, the
    rate's intervals counted by clusters where it is below
    checks.THETA_CLUSTERED; from a time line, spikes within one step
    count once. Said clustered when far fewer clusters than spikes are
    seen than independent (Poisson) spikes would leave (one-sided, z >
    2.33)."""
    k = r.count_lo
    if k < 2 or not r.exact:
        return
    period_s = td.period_ns / 1e9 if td.period_ns else None
    times, whole = spike_times(td, level)
    if times is not None:
        r.periodic = checks.periodic(times, period_s)
        if r.periodic is not None:
            r.clustered = False
            return
    if whole and len(times) == k:
        ei = checks.extremal_index(times, period_s)
        if ei is None:
            return
        r.extremal_index = ei.theta
        c = ei.clusters if ei.theta < checks.THETA_CLUSTERED else k
        r.clusters = c
        r.clusters_by = (f"extremal index {ei.theta:.2f} (Ferro-Segers): "
                         f"spikes closer than {ei.run_s:.3g} s count once"
                         if c < k else f"extremal index {ei.theta:.2f} "
                         "(Ferro-Segers): spikes independent")
        r.clustered = c < k
        if r.clustered:
            by_clusters(r, c, conf)
        return
    if td.steps:
        ns = np.array([s[1] for s in td.steps], float)
        mx = np.array([s[2] if s[2] is not None else -1 for s in td.steps],
                      float)
        c = int(np.sum((mx >= level) & (ns > 0)))
        w = ns / ns.sum() if ns.sum() else ns
        p = 1 - np.exp(-k * w)
        exp_c, var = float(p.sum()), float(np.sum(p * (1 - p)))
        r.clusters_by = (f"time-line steps of {td.step_s:g} s with a "
                         "spike" if td.step_s else "time-line steps")
    else:
        return
    r.clusters = c
    r.clustered = bool(var > 0 and (exp_c - c) / math.sqrt(var) > 2.33)
    if r.hours:
        lo, hi = poisson_interval(c, conf)
        r.cluster_per_hour = (c / r.hours, lo / r.hours, hi / r.hours)


def by_clusters(r, c, conf):
    """The rate's intervals from the clusters' Poisson interval times
    the mean cluster size (spikes of a cluster are not independent
    draws: their count's own interval is too narrow)."""
    k = r.count_lo
    lo, hi = poisson_interval(c, conf)
    size = k / c
    if r.hours:
        r.cluster_per_hour = (c / r.hours, lo / r.hours, hi / r.hours)
        r.per_hour = (k / r.hours, lo * size / r.hours, hi * size / r.hours)
        s = r.hours * 3600
        r.mtbs_s = (s / k, s / (hi * size), s / (lo * size) if lo else None)
    if r.cycles:
        r.per_mcycles = (k / r.cycles * 1e6, lo * size / r.cycles * 1e6,
                         hi * size / r.cycles * 1e6)
