# SPDX-License-Identifier: GPL-2.0-or-later
"""How bad will it get: a peaks-over-threshold generalized Pareto fit of a
series' tail, from its histogram (binned likelihood: the counts per bin
over the threshold, never bin centres taken for samples) and, where the
file has them, the exact largest samples. The threshold is chosen by
ForwardStop over a ladder's chi-square tests (Bader, Yan and Zhang 2018);
return levels come with profile likelihood intervals that take in the
higher thresholds it accepts (the choice's uncertainty), and with the
diagnostics an analyst checks (the threshold, the shape over a range of
thresholds, a QQ plot's points, a binned chi-square test). The
assumptions (checks.py: trend, clusters) and a max beyond the fit are
checked first. Where the data cannot support a claim the result is a
reason in words (no_claim), never a number. docs/tail.md says why."""
import math
from dataclasses import dataclass, field, replace
from typing import List, Optional

import numpy as np
from scipy import optimize, stats

from . import checks

MIN_EXCEEDANCES = 30        # fewer over the threshold: no tail claim
STABILITY = 3               # higher thresholds fitted to judge the shape
GOF_P_MIN = 0.05            # a fit whose chi-square p is lower is refused
XI_LO, XI_HI = -0.95, 1.5   # the shapes a latency tail can have here
UNBOUNDED = 100             # an upper end beyond 100x the max: no claim
FORWARD_STOP_ALPHA = 0.05   # the false rejections ForwardStop allows
ALTERNATES = 8              # higher accepted thresholds (at most) whose
#                             intervals the levels take in: the
#                             choice's own uncertainty
ALTERNATE_MIN = 250         # ... each with this many samples over it at
#                             least (fewer: an interval too wide to say
#                             more than that the fit is uncertain)
OUTLIER_EXPECTED = 1e-3     # a run's max the fit expects fewer times
#                             than this: beyond what it explains
MAX_SPAN_MULTIPLE = 10      # no level for a period beyond 10x the run
# The ladder starts at 5 % of the samples, not 10 %: from 10 % a
# generalized Pareto is too far from a Weibull-like tail (its 95 %
# intervals held the true level in 88 % of 1000 seeds; from 5 %, 92 %,
# with the Pareto and bounded tails at 93 % and 94.5 %).
TAIL_FRACTIONS = (0.05, 0.02, 0.01, 0.005, 0.002, 0.001, 0.0005,
                  0.0002, 0.0001)


@dataclass
class TailData:
    """One series' tail as the file gives it (ns). starts/counts: the
    histogram's non-empty bins of width, in order; overflow: samples at or
    above range_end; exact: the largest samples (descending) when the file
    recorded them, seen: how many samples they were taken from."""
    name: str
    n: int
    starts: np.ndarray
    counts: np.ndarray
    width: float
    origin: float = 0.0
    range_end: Optional[float] = None
    overflow: int = 0
    max_ns: Optional[float] = None
    exact: Optional[np.ndarray] = None
    exact_times: Optional[np.ndarray] = None
    seen: Optional[int] = None
    period_ns: Optional[float] = None
    duration_s: Optional[float] = None
    steps: Optional[list] = None    # [(t_s, n, max_ns)] of the time line
    step_s: Optional[float] = None

    @property
    def exact_complete(self):
        """True when exact holds every sample above its smallest."""
        return self.exact is not None and len(self.exact) > 0

    def count_at_or_above(self, level):
        """(low, high) samples at or above level: equal (exact) from the
        largest samples, from a level at a bin edge or in an empty bin;
        else the bin holding the level makes it a range."""
        if self.exact is not None and len(self.exact) and (
                self.seen is not None and len(self.exact) >= self.seen
                or self.exact[-1] < level):
            k = int(np.sum(self.exact >= level))
            return k, k
        if self.max_ns is not None and self.max_ns < level:
            return 0, 0
        over = self.overflow
        if self.range_end is not None and level >= self.range_end:
            lo = 1 if over and self.max_ns is not None and \
                self.max_ns >= level else 0
            return (lo, over) if over else (0, 0)
        lo = int(self.counts[self.starts >= level].sum()) + over
        hi = int(self.counts[self.starts + self.width > level].sum()) + over
        return lo, hi

    def edge_at_or_above(self, level):
        k = math.ceil((level - self.origin) / self.width - 1e-9)
        return self.origin + k * self.width


def tail_data(d, exact=None, seen=None, times=None, period_ns=None,
              duration_s=None, steps=None, step_s=None):
    """A TailData from a model.Dist (and what else the file has)."""
    starts = np.array([s for s, _ in d.bins], float)
    counts = np.array([c for _, c in d.bins], float)
    ex = None
    if exact is not None and len(exact):
        order = np.argsort(exact)[::-1]
        ex = np.asarray(exact, float)[order]
        times = None if times is None else np.asarray(times, float)[order]
    return TailData(d.name, int(d.samples), starts, counts,
                    float(d.bucket_ns or 1.0), float(d.origin_ns or 0),
                    d.range_end_ns, int(d.overflow or 0), d.max_ns, ex, times,
                    seen, period_ns, duration_s, steps, step_s)


# --- the generalized Pareto distribution, vectorised -----------------------

def _logsf(y, xi, sigma, ascending=False):
    """gpd_logsf under the caller's np.errstate (one per likelihood, not
    one per call: the sweeps evaluate it some 10^5 times); ascending: y is
    a sorted 1-d array."""
    if abs(xi) < 1e-7:
        return -y / sigma
    z = xi * y / sigma
    out = -np.log1p(z) / xi
    if ascending:
        # z is monotone in y: its ends tell whether all lie in the support
        if 1 + z[0] > 0 and 1 + z[-1] > 0:
            return out
    elif np.logical_and.reduce(1 + z > 0, axis=None):
        return out
    return np.where(1 + z > 0, out, -np.inf)


def _logpdf(y, xi, sigma):
    """gpd_logpdf under the caller's np.errstate."""
    if abs(xi) < 1e-7:
        return -np.log(sigma) - y / sigma
    z = xi * y / sigma
    out = -np.log(sigma) - (1 + 1 / xi) * np.log1p(z)
    return np.where(1 + z > 0, out, -np.inf)


def gpd_logsf(y, xi, sigma):
    """log P(Y > y) of GPD(xi, sigma), -inf beyond a finite end."""
    with np.errstate(divide="ignore", invalid="ignore"):
        return _logsf(np.asarray(y, float), xi, sigma)


def gpd_logpdf(y, xi, sigma):
    with np.errstate(divide="ignore", invalid="ignore"):
        return _logpdf(np.asarray(y, float), xi, sigma)


def gpd_isf(q, xi, sigma):
    """y with P(Y > y) = q."""
    q = np.asarray(q, float)
    if abs(xi) < 1e-7:
        return -sigma * np.log(q)
    return sigma / xi * (q ** -xi - 1)


@dataclass
class Exceedances:
    """What lies over a threshold u: binned counts on [a, b) (relative to
    u), a count censored at [c, inf) (overflow), and exact excesses."""
    u: float
    a: np.ndarray
    b: np.ndarray
    c: np.ndarray
    cens_at: Optional[float]
    cens: int
    exact: np.ndarray
    _e: Optional[tuple] = field(default=None, repr=False, compare=False)

    @property
    def n(self):
        return int(self.c.sum() + self.cens + len(self.exact))

    def _edges(self):
        """The bins' edges once each (a bin's end is the next one's
        start where no empty bin lies between) and where a and b are
        among them: the survival function is evaluated once per edge."""
        if self._e is None:
            n = len(self.a)
            if n and np.array_equal(self.a[1:], self.b[:-1]):
                self._e = (np.append(self.a, self.b[-1]), slice(0, n),
                           slice(1, n + 1))
            else:
                e, inv = np.unique(np.concatenate([self.a, self.b]),
                                   return_inverse=True)
                self._e = (e, inv[:n], inv[n:])
        return self._e

    def loglik(self, xi, sigma):
        if sigma <= 0:
            return -np.inf
        ll = 0.0
        with np.errstate(divide="ignore", invalid="ignore"):
            if len(self.c):
                e, ia, ib = self._edges()
                le = _logsf(e, xi, sigma, ascending=True)
                la, lb = le[ia], le[ib]
                # a bin starting beyond a finite end has la = -inf: its
                # cell is nan here (-inf once masked), the sum is not
                # finite either way and the likelihood is -inf
                cell = la + np.log1p(-np.exp(lb - la))
                ll += float(np.add.reduce(self.c * cell))
            if self.cens:
                ll += self.cens * float(_logsf(np.asarray(self.cens_at,
                                                          float), xi, sigma))
            if len(self.exact):
                ll += float(_logpdf(self.exact, xi, sigma).sum())
        return ll if np.isfinite(ll) else -np.inf

    def top(self):
        """The largest excess known (the last bin's end, the largest
        exact sample, the censoring point)."""
        vals = [0.0]
        if len(self.c):
            vals.append(float(self.a[-1]))
        if len(self.exact):
            vals.append(float(self.exact.max()))
        if self.cens:
            vals.append(float(self.cens_at))
        return max(vals)


def exceedances(td, u):
    """The excesses over u (a bin edge): bins, and the overflow replaced by
    the exact largest samples where those cover it (else censored). When
    the exact samples hold every sample over u, they are used alone."""
    ex = np.empty(0)
    if td.exact is not None and len(td.exact) and (
            td.exact[-1] < u or (td.seen is not None and
                                 len(td.exact) >= td.seen)):
        ex = td.exact[td.exact >= u] - u
        return Exceedances(u, np.empty(0), np.empty(0), np.empty(0), None, 0,
                           ex)
    sel = td.starts >= u
    a = td.starts[sel] - u
    b = a + td.width
    c = td.counts[sel]
    cens, cens_at = td.overflow, None
    if cens:
        cens_at = (td.range_end if td.range_end is not None
                   else td.starts[-1] + td.width) - u
        if td.exact is not None and len(td.exact):
            above = td.exact[td.exact >= td.range_end] if td.range_end \
                is not None else np.empty(0)
            if len(above) >= cens:
                ex, cens = above[:cens] - u, 0
    return Exceedances(u, a, b, c, cens_at, cens, ex)


@dataclass
class Fit:
    u: float
    n_u: int
    xi: float
    sigma: float
    loglik: float
    xi_se: Optional[float] = None
    gof_p: Optional[float] = None
    gof_stat: Optional[float] = None
    gof_df: Optional[int] = None
    ex: Optional[Exceedances] = None

    def endpoint(self):
        return self.u - self.sigma / self.xi if self.xi < 0 else None


def _start(ex):
    """Starting values from the mean excess (method of moments)."""
    mids = np.concatenate([(ex.a + ex.b) / 2, ex.exact])
    w = np.concatenate([ex.c, np.ones(len(ex.exact))])
    if ex.cens:
        mids = np.append(mids, ex.cens_at * 1.5)
        w = np.append(w, ex.cens)
    m = float(np.average(mids, weights=w)) if w.sum() else 1.0
    return max(m, 1e-9)


def fit_gpd(ex, start=None):
    """Maximum likelihood (xi, sigma) of the excesses; None if it fails.
    start: a neighbouring threshold's (xi, sigma), tried first."""
    m = _start(ex)

    def nll(t):
        xi, ls = t
        if not XI_LO <= xi <= XI_HI:
            return 1e300
        v = ex.loglik(xi, math.exp(ls))
        return -v if np.isfinite(v) else 1e300
    best = None
    starts = [(0.1, math.log(m * 0.9)), (-0.2, math.log(m * 1.2))]
    if start is not None:
        starts = [(start[0], math.log(start[1]))]
    for x0 in starts:
        r = optimize.minimize(nll, x0, method="Nelder-Mead",
                              options={"xatol": 1e-5, "fatol": 1e-6,
                                       "maxiter": 2000})
        if r.fun < 1e299 and (best is None or r.fun < best.fun):
            best = r
    if best is None:
        return None
    xi, sigma = float(best.x[0]), math.exp(best.x[1])
    f = Fit(ex.u, ex.n, xi, sigma, -float(best.fun), ex=ex)
    f.xi_se = _xi_se(ex, xi, sigma)
    gof(f)
    return f


def _xi_se(ex, xi, sigma):
    """The shape's standard error from the observed information."""
    h = np.array([1e-3, 1e-3])
    x0 = np.array([xi, math.log(sigma)])

    def ll(t):
        return ex.loglik(t[0], math.exp(t[1]))
    H = np.zeros((2, 2))
    for i in range(2):
        for j in range(2):
            ei, ej = np.eye(2)[i] * h[i], np.eye(2)[j] * h[j]
            H[i, j] = (ll(x0 + ei + ej) - ll(x0 + ei - ej) -
                       ll(x0 - ei + ej) + ll(x0 - ei - ej)) / \
                (4 * h[i] * h[j])
    try:
        cov = np.linalg.inv(-H)
    except np.linalg.LinAlgError:
        return None
    return float(math.sqrt(cov[0, 0])) if cov[0, 0] > 0 else None


def gof(f, groups=None):
    """Binned chi-square: the excesses in about n/5 (at most 20) groups of
    equal fitted probability, their edges moved to the histogram's bin
    edges; df = groups - 1 - 2 parameters. Leaves gof_p None when fewer
    than 4 groups remain."""
    ex = f.ex
    g = groups or int(min(20, max(4, ex.n // 5)))
    qs = np.linspace(0, 1, g + 1)[1:-1]
    edges = gpd_isf(1 - qs, f.xi, f.sigma)
    if len(ex.c):
        # snap to the bin edges (relative to u): the counts stay exact
        w = float(ex.b[0] - ex.a[0])
        edges = np.unique(np.ceil(edges / w - 1e-9) * w)
        if ex.cens:
            edges = edges[edges < ex.cens_at]
            edges = np.append(edges, ex.cens_at)
    edges = np.unique(edges[edges > 0])
    lo = np.concatenate([[0.0], edges])
    hi = np.concatenate([edges, [np.inf]])
    obs = np.zeros(len(lo))
    if len(ex.c):
        idx = np.searchsorted(edges, ex.a, side="right")
        np.add.at(obs, idx, ex.c)
    if len(ex.exact):
        idx = np.searchsorted(edges, ex.exact, side="right")
        np.add.at(obs, idx, 1)
    if ex.cens:
        obs[-1] += ex.cens
    sf_lo = np.exp(gpd_logsf(lo, f.xi, f.sigma))
    sf_hi = np.where(np.isinf(hi), 0.0,
                     np.exp(gpd_logsf(np.where(np.isinf(hi), 0, hi),
                                      f.xi, f.sigma)))
    exp_ = ex.n * (sf_lo - sf_hi)
    # merge groups expecting fewer than 5 into their neighbour
    o2, e2 = [], []
    ao, ae = 0.0, 0.0
    for o, e in zip(obs, exp_):
        ao, ae = ao + o, ae + e
        if ae >= 5:
            o2.append(ao)
            e2.append(ae)
            ao, ae = 0.0, 0.0
    if ae > 0 and e2:
        o2[-1] += ao
        e2[-1] += ae
    df = len(e2) - 3
    if df < 1:
        return
    o2, e2 = np.array(o2), np.array(e2)
    f.gof_stat = float(np.sum((o2 - e2) ** 2 / e2))
    f.gof_df = df
    f.gof_p = float(stats.chi2.sf(f.gof_stat, df))


def qq_points(f):
    """(model quantile, observed) pairs in ns for a QQ plot: at each bin's
    upper edge (or exact sample) the fitted quantile of its empirical
    probability."""
    ex = f.ex
    if len(ex.exact):
        obs = np.sort(ex.exact)
        pp = (np.arange(1, len(obs) + 1) - 0.5) / ex.n
    else:
        cum = np.cumsum(ex.c)
        obs = ex.b
        pp = cum / ex.n
        keep = pp < 1
        obs, pp = obs[keep], pp[keep]
    model = gpd_isf(1 - pp, f.xi, f.sigma)
    return (model + f.u).tolist(), (obs + f.u).tolist()


# --- thresholds ------------------------------------------------------------

def candidates(td):
    """Bin edges with about N*f samples over them for f in TAIL_FRACTIONS,
    then on by halves down to 2 * MIN_EXCEEDANCES samples over them (a
    long run's ladder reaches its far tail: a threshold at a fixed share
    of the samples extrapolates a day level from its body), at least
    MIN_EXCEEDANCES over each, lowest first."""
    if not len(td.starts):
        return []
    # tail counts at each bin start (samples at or above it)
    above = np.cumsum(td.counts[::-1])[::-1] + td.overflow
    # the threshold's own bin says little of the shape: as many again
    # beyond it
    beyond = above - td.counts
    out = []
    targets = [td.n * f for f in TAIL_FRACTIONS]
    while targets[-1] / 2 >= 2 * MIN_EXCEEDANCES:
        targets.append(targets[-1] / 2)
    for target in targets:
        if target < MIN_EXCEEDANCES:
            break
        i = int(np.argmin(np.abs(above - target)))
        if beyond[i] >= MIN_EXCEEDANCES and (not out or
                                             td.starts[i] > out[-1]):
            out.append(float(td.starts[i]))
    if td.exact is not None and len(td.exact) >= MIN_EXCEEDANCES:
        # the exact samples' own threshold (their smallest, floored to a
        # bin edge) when it lies above the histogram's candidates
        u = td.edge_at_or_above(float(td.exact[-1]))
        if not out or u > out[-1]:
            out.append(u)
    return out


def forward_stop(pvalues, alpha=FORWARD_STOP_ALPHA):
    """How many of the ordered hypotheses (thresholds, lowest first)
    ForwardStop rejects (G'Sell et al. 2016, as Bader, Yan and Zhang
    2018 use it for thresholds): the largest k whose mean of
    -log(1 - p_i), i <= k, is at most alpha (0: none)."""
    y = -np.log1p(-np.clip(np.asarray(pvalues, float), 0, 1 - 1e-12))
    means = np.cumsum(y) / np.arange(1, len(y) + 1)
    ok = np.nonzero(means <= alpha)[0]
    return int(ok[-1]) + 1 if len(ok) else 0


@dataclass
class TailFit:
    """The chosen fit and its diagnostics, or no_claim (the words).
    alternates: the higher thresholds ForwardStop also accepts, whose
    intervals the levels take in; theta: the extremal index (clusters of
    spikes: 1/theta their mean size) where below checks.THETA_CLUSTERED;
    trend: the trend found over the run (then no_claim says it)."""
    fit: Optional[Fit] = None
    no_claim: Optional[str] = None
    ladder: List[Fit] = field(default_factory=list)   # shape vs threshold
    stable: Optional[bool] = None
    warnings: List[str] = field(default_factory=list)
    alternates: List[Fit] = field(default_factory=list)
    rejected: int = 0           # thresholds ForwardStop rejected
    theta: float = 1.0
    extremal: Optional[checks.ExtremalIndex] = None
    trend: Optional[checks.Trend] = None
    outlier_ns: Optional[float] = None


def trend(td):
    """A checks.Trend over the run: its time line's per-step maxima,
    else its largest samples' times."""
    if td.steps:
        return checks.trend_of_steps(td.steps, td.step_s)
    if td.exact_times is not None and td.exact is not None:
        hours = td.n * td.period_ns / 3.6e12 if td.period_ns else None
        span = hours * 3600 if hours else td.duration_s
        return checks.trend_of_times(td.exact_times, span, period_s=(
            td.period_ns / 1e9 if td.period_ns else None))
    return None


def extremal(td):
    """The extremal index of the largest samples (with their times)."""
    if td.exact_times is None or td.exact is None or \
            len(td.exact) < MIN_EXCEEDANCES:
        return None
    return checks.extremal_index(td.exact_times, td.period_ns / 1e9
                                 if td.period_ns else None)


def _choose(td, stability):
    """The ladder's fits and ForwardStop's choice among them (a TailFit
    with fit, alternates and the ladder; or no_claim)."""
    cands = candidates(td)
    if not cands:
        over = td.count_at_or_above(td.starts[0])[0] if len(td.starts) \
            else td.n
        return TailFit(no_claim=f"too few samples in the tail: {td.n} "
                       f"samples leave fewer than {MIN_EXCEEDANCES} over any "
                       f"threshold worth fitting (the whole tail is {over} "
                       "samples), so no estimate is made")
    ladder, prev = [], None
    for u in cands:
        ex = exceedances(td, u)
        if ex.n < MIN_EXCEEDANCES:
            continue
        f = fit_gpd(ex, prev)
        if f is None:
            continue
        ladder.append(f)
        prev = (f.xi, f.sigma)
    tf = TailFit(ladder=ladder)
    if not ladder:
        tf.no_claim = "the fit failed at every threshold tried: no estimate"
        return tf
    tested = [f for f in ladder if f.gof_p is not None]
    k = forward_stop([f.gof_p for f in tested])
    tf.rejected = k
    if k >= len(tested):
        worst = ladder[0]
        tf.no_claim = ("the generalized Pareto model does not fit this tail "
                       "at any threshold tried (chi-square p = "
                       f"{worst.gof_p:.2g} at {worst.u / 1000:g} µs"
                       if worst.gof_p is not None else
                       "the tail cannot be tested (too few groups)") + \
            "): no estimate is made"
        return tf
    f = tested[k]
    tf.fit = f
    tf.alternates = [g for g in tested[k + 1:k + 1 + ALTERNATES]
                     if g.gof_p >= GOF_P_MIN and g.n_u >= ALTERNATE_MIN]
    tf.ladder = ladder[:ladder.index(f) + 1 + stability]
    return tf


def _beyond(f, td, x):
    """True when the fit expects fewer than OUTLIER_EXPECTED samples at or
    above x in a run of td's length."""
    e = exceed_prob(f, td, x)
    return e is not None and e * td.n < OUTLIER_EXPECTED


def without_lone_max(td):
    """td without its largest sample when that one stands alone (at least
    twice the next largest), else None: a fit of the rest tells whether
    the fit could explain it."""
    if td.max_ns is None or td.n < 2:
        return None
    if td.exact is not None and len(td.exact) >= 2:
        second = float(td.exact[1])
    else:
        nz = td.starts[td.counts > 0]
        if not len(nz):
            return None
        top_bin = td.counts[-1] if len(td.counts) else 0
        second = float(nz[-2] + td.width) if top_bin <= 1 and \
            len(nz) >= 2 else float(td.max_ns)
    if td.max_ns < 2 * second:
        return None
    starts, counts, over = td.starts, td.counts.copy(), td.overflow
    if over and td.range_end is not None and td.max_ns >= td.range_end:
        over -= 1
    elif len(counts):
        counts[-1] -= 1
        keep = counts > 0
        starts, counts = starts[keep], counts[keep]
    ex = times = None
    if td.exact is not None and len(td.exact):
        ex = td.exact[1:]
        times = None if td.exact_times is None else td.exact_times[1:]
    return replace(td, n=td.n - 1, starts=starts, counts=counts,
                   overflow=over, max_ns=second, exact=ex, exact_times=times,
                   seen=None if td.seen is None else td.seen - 1)


def fit_tail(td, stability=STABILITY):
    """Fit the tail over a ladder of thresholds and choose one by
    ForwardStop over their chi-square tests (Bader, Yan and Zhang 2018);
    check the assumptions first (a trend over the run: no figure) and
    after (the run's max beyond what the fit explains: no figure; the
    extremal index); refuse with a reason when the data cannot carry
    the claim. stability: the higher fits kept beyond the chosen one
    (the whole ladder is fitted for ForwardStop)."""
    if td.n <= 0 or not len(td.starts) and td.exact is None:
        return TailFit(no_claim="no histogram in this file: a tail cannot "
                       "be fitted from min/avg/max")
    if td.overflow and not (td.exact is not None and
                            len(td.exact) >= td.overflow):
        return TailFit(no_claim=f"{td.overflow} samples overflowed the "
                       "histogram and the file has no exact largest samples: "
                       "the tail beyond its range is unknown, so no "
                       "estimate is made (raise the histogram range or "
                       "record the largest samples)")
    tr = trend(td)
    if tr is not None:
        return TailFit(trend=tr, no_claim=f"not stationary: {tr.words}; a "
                       "level exceeded once per hour or day assumes the run "
                       "kept behaving alike throughout, and the file holds "
                       "no histogram of its last stationary stretch, so no "
                       "estimate is made")
    tf = _choose(td, stability)
    # a lone largest sample can drag the fit (or its test) with it: the
    # fit of the rest says whether it could be explained
    lone = without_lone_max(td)
    alt = _choose(lone, stability) if lone is not None else None
    if alt is not None and alt.fit is not None and \
            _beyond(alt.fit, lone, td.max_ns):
        tf = alt
    elif tf.fit is None:
        return tf
    f = tf.fit
    end = f.endpoint()
    if td.max_ns and _beyond(f, td, td.max_ns):
        tf.fit, tf.outlier_ns = None, td.max_ns
        if end is not None and td.max_ns > end * 1.001:
            why = (f"the fit puts a finite upper bound at {end / 1000:.4g} "
                   "µs: the data contradict the fitted bound")
        else:
            why = (f"it expects {exceed_prob(f, td, td.max_ns) * td.n:.1g}"
                   " such samples in the run")
        tf.no_claim = (f"the run's largest sample, {td.max_ns / 1000:.4g} "
                       f"µs, lies beyond what the fitted tail explains "
                       f"({why}): another cause (an SMI, a stall) or a tail "
                       "the model misses, so no estimate; the spike rates "
                       "count it")
        return tf
    ei = extremal(td)
    tf.extremal = ei
    if ei is not None and ei.theta < checks.THETA_CLUSTERED:
        tf.theta = ei.theta
        tf.warnings.append(f"the largest samples come in clusters "
                           f"(extremal index {ei.theta:.2f}: "
                           f"{1 / ei.theta:.2g} spikes a cluster): the "
                           "levels count clusters, their intervals the "
                           "clusters' number")
    higher = [g for g in tf.ladder if g.u > f.u and g.xi_se]
    if higher:
        tf.stable = all(abs(g.xi - f.xi) <= 1.96 * g.xi_se for g in higher)
        if not tf.stable:
            tf.warnings.append("the shape estimate changes with the "
                               "threshold beyond its uncertainty: the tail "
                               "model is doubtful")
    return tf


def beyond_span(td, p, label):
    """The words when a level exceeded once per 1/p cycles lies beyond
    MAX_SPAN_MULTIPLE times the run (None when it does not)."""
    if td.n <= 0 or 1 / p <= MAX_SPAN_MULTIPLE * td.n:
        return None
    return (f"once per {label} is {1 / p / td.n:.3g}× this run's "
            f"{td.n:,} cycles, more than the {MAX_SPAN_MULTIPLE}× a tail "
            "estimate may reach beyond what it saw: no estimate (run at "
            f"least {1 / p / MAX_SPAN_MULTIPLE:,.0f} cycles)")


# --- return levels ----------------------------------------------------------

@dataclass
class Level:
    """The latency exceeded with probability p per cycle (once per 1/p
    cycles), its interval, or the reason there is none."""
    label: str
    p: float
    ns: Optional[float] = None
    lo: Optional[float] = None
    hi: Optional[float] = None
    no_claim: Optional[str] = None


def _sigma_for(x, u, xi, r):
    """sigma that puts the 1/p level at x, r = zeta_u / p."""
    if abs(xi) < 1e-7:
        return (x - u) / math.log(r)
    return (x - u) * xi / (r ** xi - 1)


def return_level(tf, td, p, label, conf=0.95):
    """The level exceeded once per 1/p cycles: the chosen fit's estimate
    and its profile likelihood interval, widened to take in the
    intervals at the higher thresholds ForwardStop also accepted (the
    threshold's choice is uncertain too). Where spikes cluster (theta <
    1) the level is the one whose clusters come once per 1/p cycles and
    the likelihood counts clusters (scaled by theta)."""
    f = tf.fit
    if f is None:
        return Level(label, p, no_claim=tf.no_claim)
    theta = tf.theta or 1.0
    x_hat, lo, hi, why = _level(f, td, p, conf, theta)
    if why:
        return Level(label, p, no_claim=why)
    for g in tf.alternates:
        _, glo, ghi, gwhy = _level(g, td, p, conf, theta)
        if gwhy or glo is None:
            continue
        lo, hi = min(lo, glo), max(hi, ghi)
    seen = max(td.max_ns or 0, f.ex.top() + f.u)
    if hi > UNBOUNDED * seen:
        return Level(label, p, no_claim=f"the interval's upper end is more "
                     f"than {UNBOUNDED}× the largest sample seen: the data do "
                     "not bound it, no estimate")
    return Level(label, p, x_hat, min(lo, x_hat), max(hi, x_hat))


def level_within_span(tf, td, p, label, conf=0.95):
    """return_level, refused in words beyond MAX_SPAN_MULTIPLE times the
    run's length (beyond_span)."""
    why = beyond_span(td, p, label) if tf.fit else None
    if why:
        return Level(label, p, no_claim=why)
    return return_level(tf, td, p, label, conf)


def _level(f, td, p, conf, theta=1.0):
    """(estimate, lo, hi, None) of one fit's level exceeded once per 1/p
    cycles, or (None, None, None, the words)."""
    zeta = f.n_u / td.n
    r = theta * zeta / p
    if r <= 1:
        return None, None, None, ("exceeded more often than the fit's "
                                  "threshold: read it from the histogram")
    x_hat = f.u + float(gpd_isf(1 / r, f.xi, f.sigma))
    crit = stats.chi2.ppf(conf, 1) / 2 / theta
    target = f.loglik - crit

    def prof(x):
        def nll(xi):
            s = _sigma_for(x, f.u, xi, r)
            if s <= 0:
                return 1e300
            v = f.ex.loglik(xi, s)
            return -v if np.isfinite(v) else 1e300
        res = optimize.minimize_scalar(nll, bounds=(XI_LO, XI_HI),
                                       method="bounded",
                                       options={"xatol": 1e-4})
        return -res.fun if res.fun < 1e299 else -np.inf

    seen_g = {}

    def g(x):
        # brentq asks again for the ends the bracket search evaluated
        if x not in seen_g:
            seen_g[x] = prof(x) - target
        return seen_g[x]
    lo = hi = None
    # lower end: between the largest excess seen (the level cannot be
    # below what the likelihood allows) and the estimate
    span = max(x_hat - f.u, td.width)
    a = x_hat
    for k in range(1, 40):
        b = max(f.u + 1e-9, x_hat - span * (1 - 0.5 ** k))
        if g(b) < 0:
            lo = optimize.brentq(g, b, a, xtol=td.width * 0.02)
            break
        a = b
    if lo is None:
        lo = f.u
    a = x_hat
    step = span
    for _ in range(60):
        b = a + step
        if g(b) < 0:
            hi = optimize.brentq(g, a, b, xtol=td.width * 0.02)
            break
        a, step = b, step * 2
        if step > 1e6 * span:
            break
    if hi is None:
        return None, None, None, ("the data do not bound it from above (the "
                                  "profile likelihood never falls below its "
                                  "95 % limit): no estimate")
    return x_hat, lo, hi, None


def exceed_prob(f, td, level):
    """The fitted probability per cycle of a latency at or above level."""
    if level <= f.u:
        return None
    return f.n_u / td.n * float(np.exp(gpd_logsf(level - f.u, f.xi,
                                                 f.sigma)))
