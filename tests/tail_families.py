# SPDX-License-Identifier: GPL-2.0-or-later
"""Known tails for the tail estimate's coverage checks
(tests/test_report_tail_fit.py, bench/tail-coverage): each family's
exact survival function, its true level exceeded with probability p per
sample, and a run of n samples drawn directly as rtlat records it: a
histogram (multinomial over the bins' exact probabilities), the samples
over a high bin edge exact (the "largest" key: drawn from the
conditional tail within each bin, with their times), and for the drift a
1-second time line. 10^7 samples cost no more than 10^5."""
import datetime
import math
from dataclasses import dataclass
from typing import Callable, Optional

import numpy as np
from scipy import special, stats

from rtlat_report.tail import fit as tail

US = 1000.0
PERIOD_NS = 1e6                 # a 1 ms cycle
HOUR_P = 1 / 3.6e6              # once per hour at 1 ms
DAY_P = 1 / 8.64e7
WIDTH = 1000.0                  # 1 µs buckets
K = 1000                        # about this many largest samples exact


@dataclass
class Family:
    name: str
    sf: Callable                # P(X > x), vectorised, x in ns
    end: float                  # the histogram's range (ns)
    smi_every_s: Optional[float] = None   # a periodic component
    smi_sf: Optional[Callable] = None
    drift_ns: float = 0.0       # latency rises by this over the run
    body_sf: Optional[Callable] = None    # the drift's body (at t = 0)
    body_isf: Optional[Callable] = None

    def level(self, p, n=None):
        """The true level exceeded with probability p per sample (for
        the drift: the run's end state's)."""
        sf = self.sf
        if self.drift_ns:
            d = self.drift_ns
            sf = (lambda x: self.body_sf(np.asarray(x, float) - d))
        lo, hi = 0.0, self.end * 50
        for _ in range(200):
            mid = (lo + hi) / 2
            if float(sf(mid)) > p:
                lo = mid
            else:
                hi = mid
        return (lo + hi) / 2


def _gpd(xi, u0=20 * US, tau=0.05, sig=8 * US, body=5 * US):
    def sf(x):
        x = np.asarray(x, float)
        b = 1 - (1 - tau) * (1 - np.exp(-x / body)) / (1 - np.exp(-u0 /
                                                                  body))
        t = tau * np.exp(tail.gpd_logsf(np.maximum(x - u0, 0), xi, sig))
        return np.where(x < u0, b, t)
    return sf


def _shifted(sf0, shift):
    return lambda x: np.where(np.asarray(x, float) < shift, 1.0,
                              sf0(np.asarray(x, float) - shift))


def _expo(mean=3 * US, shift=2 * US):
    return _shifted(lambda y: np.exp(-y / mean), shift)


def _weibull(k, scale, shift=2 * US):
    return _shifted(lambda y: np.exp(-(np.maximum(y, 0) / scale) ** k),
                    shift)


def _lognormal(mu=math.log(8 * US), s=0.5):
    return lambda x: stats.lognorm.sf(np.maximum(np.asarray(x, float),
                                                 1e-9), s,
                                      scale=math.exp(mu))


def _normal_sf(m, s):
    return lambda x: 0.5 * special.erfc((np.asarray(x, float) - m) /
                                        (s * math.sqrt(2)))


def _bimodal():
    a, b = _normal_sf(8 * US, 1 * US), _normal_sf(30 * US, 4 * US)
    return lambda x: 0.97 * a(x) + 0.03 * b(x)


BODY = _expo()


def _smi(every_s, size=100 * US):
    w = PERIOD_NS / 1e9 / every_s          # SMIs per sample
    smi = _shifted(BODY, size)
    return (lambda x: (1 - w) * BODY(x) + w * smi(x)), smi


def _drift(total=20 * US, grid=201):
    ts = np.linspace(0, 1, grid)

    def sf(x):
        x = np.asarray(x, float)
        return np.mean([BODY(x - total * t) for t in ts], axis=0)
    return sf


FAMILIES = {
    "gpd 0.1": Family("gpd 0.1", _gpd(0.1), 2e6),
    "gpd 0.3": Family("gpd 0.3", _gpd(0.3), 2e6),
    "exponential": Family("exponential", _expo(), 2e5),
    "weibull 0.7": Family("weibull 0.7", _weibull(0.7, 3 * US), 2e6),
    "weibull 2": Family("weibull 2", _weibull(2, 10 * US), 2e5),
    "lognormal": Family("lognormal", _lognormal(), 2e5),
    "bimodal": Family("bimodal", _bimodal(), 2e5),
    "smi 1 s": Family("smi 1 s", _smi(1.0)[0], 2e5, 1.0, _smi(1.0)[1]),
    "drift": Family("drift", _drift(), 2e5, drift_ns=20 * US,
                    body_sf=BODY,
                    body_isf=lambda q: 2 * US - 3 * US * np.log(q)),
}


def _probs(fam, width):
    edges = np.arange(0, fam.end + width, width)
    s = fam.sf(edges)
    pr = np.clip(np.append(-np.diff(s), s[-1]), 0, None)
    return edges, pr / pr.sum()


_cache = {}


def probs(fam, width=WIDTH):
    key = (fam.name, width)
    if key not in _cache:
        _cache[key] = _probs(fam, width)
    return _cache[key]


def _within(sf, a, b, rng):
    """Values drawn from the distribution conditioned on [a, b) (b may
    be inf), one per pair: bisection on the exact survival function."""
    sa, sb = sf(a), np.where(np.isinf(b), 0.0, sf(np.where(np.isinf(b),
                                                           a, b)))
    target = sb + rng.random(len(a)) * (sa - sb)
    lo, hi = a.copy(), np.where(np.isinf(b), a * 50 + 1e7, b)
    for _ in range(50):
        mid = (lo + hi) / 2
        up = sf(mid) > target
        lo, hi = np.where(up, mid, lo), np.where(up, hi, mid)
    return (lo + hi) / 2


def draw(fam, n, seed, width=WIDTH, k=K, timeline=None):
    """A TailData of n samples of fam at a 1 ms cycle (seed: numpy's),
    with the samples over the bin edge that about k samples exceed
    exact and their times; the drift's time line (1-second maxima) too,
    or any family's with timeline=True."""
    rng = np.random.default_rng(seed)
    edges, pr = probs(fam, width)
    c = rng.multinomial(n, pr)
    over = c[-1]
    c = c[:-1].astype(float)
    tailp = np.cumsum(pr[::-1])[::-1]
    i0 = int(np.searchsorted(-tailp, -k / n))   # first edge with <= k/n
    i0 = min(max(i0, 1), len(edges) - 1)
    idx = np.nonzero(c[i0:])[0] + i0
    a = np.repeat(edges[idx], c[idx].astype(int))
    b = a + width
    if over:
        a = np.append(a, np.full(over, edges[-1]))
        b = np.append(b, np.full(over, np.inf))
    exact = _within(fam.sf, a, b, rng)
    span_s = n * PERIOD_NS / 1e9
    times = _times(fam, exact, span_s, n, rng)
    nz = np.nonzero(c)[0]
    td = tail.TailData(fam.name, int(n), edges[nz], c[nz], width, 0.0,
                       float(edges[-1]), int(over),
                       float(exact.max()) if len(exact) else
                       float(edges[nz[-1]] + width / 2),
                       None, None, int(n), PERIOD_NS, span_s)
    if len(exact):
        order = np.argsort(exact)[::-1]
        td.exact, td.exact_times = exact[order], times[order]
    if fam.drift_ns or timeline:
        td.steps, td.step_s = _steps(fam, n, rng), 1.0
    return td


def _times(fam, x, span_s, n, rng):
    if fam.drift_ns:
        # a sample of value x at time t: its density f_b(x - d t)
        ts = np.linspace(0, 1, 201)
        d = fam.drift_ns
        dens = np.array([fam.body_sf(x - d * t - 1.0) -
                         fam.body_sf(x - d * t) for t in ts]).T
        dens = np.maximum(dens, 0) + 1e-300
        cum = np.cumsum(dens, axis=1)
        u = rng.random(len(x))[:, None] * cum[:, -1:]
        j = (cum < u).sum(axis=1)
        return (ts[np.minimum(j, 200)] + rng.random(len(x)) / 200) * span_s
    t = rng.random(len(x)) * span_s
    if fam.smi_every_s:
        # each exact sample an SMI with the SMIs' share of its density
        w = PERIOD_NS / 1e9 / fam.smi_every_s
        fs = w * (fam.smi_sf(x - 1.0) - fam.smi_sf(x))
        fa = fam.sf(x - 1.0) - fam.sf(x)
        smi = rng.random(len(x)) < np.clip(fs / np.maximum(fa, 1e-300), 0, 1)
        slots = int(span_s / fam.smi_every_s)
        pick = rng.choice(slots, size=min(int(smi.sum()), slots),
                          replace=False)
        ts = 0.123 + pick * fam.smi_every_s
        smi[np.nonzero(smi)[0][len(pick):]] = False
        t[np.nonzero(smi)[0]] = ts
    return np.round(t * 1e3) / 1e3          # at a cycle's time


def _steps(fam, n, rng):
    """[(t_s, n, max_ns)] of each second (1000 cycles)."""
    secs = n // 1000
    t = np.arange(secs, dtype=float)
    u = rng.random(secs)
    q = 1 - u ** (1 / 1000)                 # the max's exceedance prob
    if fam.drift_ns:
        m = fam.body_isf(q) + fam.drift_ns * t / max(secs, 1)
    else:
        m = _isf(fam.sf, q)
    return [(float(a), 1000, float(b)) for a, b in zip(t, m)]


def _isf(sf, q):
    lo, hi = np.zeros(len(q)), np.full(len(q), 1e8)
    for _ in range(60):
        mid = (lo + hi) / 2
        up = sf(mid) > q
        lo, hi = np.where(up, mid, lo), np.where(up, hi, mid)
    return (lo + hi) / 2


def timer_json(td):
    """rtlat timer's JSON of a drawn run: its histogram, the exact
    samples as the "largest" key, the time line where it has one."""
    width = td.width
    stats_ = {"samples": td.n, "min_ns": float(td.starts[0]),
              "avg_ns": 1.0, "max_ns": float(td.max_ns),
              "histogram": {"origin_ns": 0, "bucket_ns": width,
                            "buckets": int(td.range_end / width),
                            "underflow": 0, "overflow": td.overflow,
                            "counts": [[float(s), int(c)] for s, c in
                                       zip(td.starts, td.counts)]}}
    d = {"rtlat": {"version": "0.1.0", "test": "timer"},
         "settings": {"test": "timer", "period_us": td.period_ns / 1000},
         "latency": stats_}
    if td.exact is not None:
        d["largest"] = {
            "k": len(td.exact), "columns": ["ns", "t_s", "cpu"],
            "series": [{"test": "timer", "series": "latency", "thread": 0,
                        "cpu": 0, "seen": td.n,
                        "rows": [[int(v), float(t), 0] for v, t in
                                 zip(td.exact, td.exact_times)]}]}
    if td.steps:
        base = datetime.datetime(2026, 1, 1, tzinfo=datetime.timezone.utc)

        def wall(t):
            w = base + datetime.timedelta(seconds=t)
            return w.strftime("%Y-%m-%dT%H:%M:%S.000000Z")
        d["timeline"] = {
            "step_s": td.step_s, "merges": 0, "cap": len(td.steps),
            "start_wall": wall(0), "start_monotonic_ns": 1,
            "columns": ["t_s", "wall", "n", "min_ns", "avg_ns", "max_ns",
                        "p99_ns", "over"],
            "series": [{"test": "timer", "series": "latency", "thread": 0,
                        "cpu": None, "threshold_ns": None,
                        "steps": [[t, wall(t), n, 1000, 3000, int(m),
                                   int(m), None] for t, n, m in td.steps]}]}
    return d


def exact_over(fam, n, seed, u, k=K):
    """The run draw(fam, n, seed) gives (the same histogram) with every
    sample over u exact."""
    k = max(k, int(1.2 * n * float(fam.sf(u))) + 100)
    td = draw(fam, n, seed, k=k)
    while td.exact is None or not len(td.exact) or td.exact[-1] >= u:
        k *= 2
        td = draw(fam, n, seed, k=k)
    return td


def pyextremes_levels(x, n, u, ps, boot=0):
    """pyextremes' POT levels exceeded with probability p per 1 ms cycle
    (each p in ps), the GPD fitted by maximum likelihood to the samples
    x over u of a run of n cycles: (levels, lo, hi), the bootstrap 95 %
    intervals from boot resamples (None without). The run's ends are two
    samples below u, so pyextremes' span, and its rate, is the run's; no
    declustering (r half a cycle)."""
    import pandas as pd
    from pyextremes import EVA
    x = np.sort(x[x > u])
    t = np.sort(np.random.default_rng(0).choice(np.arange(1, n - 1),
                                                len(x), replace=False))
    s = pd.Series(np.concatenate([[u - 1], x, [u - 1]]),
                  index=pd.to_datetime(np.concatenate([[0], t, [n - 1]]),
                                       unit="ms"))
    eva = EVA(s)
    eva.get_extremes(method="POT", threshold=u, r="0.5ms")
    # the GPD forced: by default pyextremes may choose the exponential
    # (xi = 0) by its own likelihood ratio test
    eva.fit_model(model="MLE", distribution="genpareto")
    hours = [1 / (p * 3.6e6) for p in ps]
    v, lo, hi = eva.get_return_value(return_period=hours,
                                     return_period_size="1h",
                                     alpha=0.95 if boot else None,
                                     n_samples=boot or 100)
    return (np.asarray(v, float), np.asarray(lo, float) if boot else None,
            np.asarray(hi, float) if boot else None)


def scipy_levels(x, n, u, ps):
    """SciPy's genpareto maximum likelihood (location u) levels."""
    ex = x[x > u] - u
    c, _, scale = stats.genpareto.fit(ex, floc=0)
    return [u + stats.genpareto.isf(p * n / len(ex), c, scale=scale)
            for p in ps]
