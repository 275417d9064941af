# SPDX-License-Identifier: GPL-2.0-or-later
"""The latency spectrum of every sample (rtlat --samples): what comes back
at a fixed period (a timer interrupt, an SMI every second, a daemon's
poll), found in each series' spikes.

1. The spikes: the samples over the median by SPIKE_MADS robust standard
   deviations (1.4826 MAD) and by MIN_EXCESS_NS at least. Their times,
   not their heights, carry the rhythm: one huge stall cannot pass for
   one.
2. Search, by the FFT (SciPy): the spikes binned on a regular grid (the
   median time between samples, at most MAX_BINS bins), the periodogram
   P(f) = |FFT|^2 normalised by its running median (FLOOR_BINS
   ordinates: bursts raise the low frequencies, a global floor would call
   them a rhythm). A train of period T has peaks at every multiple of
   1/T: each candidate fundamental, in quarter bins, is scored by the sum
   of its first HARMONICS harmonics (the largest ordinate within a bin of
   each); the best candidate goes on.
3. Test and refine, on the spike times themselves: the Z^2_m statistic of
   their phases (Buccheri et al. 1983: m = HARMONICS harmonics; under no
   periodicity it is chi-square with 2m degrees of freedom), maximised
   over a fine grid of frequencies around the candidate and its
   subharmonics 1/2 and 1/3 (the lowest one within HARMONIC_TIE of the
   best is the fundamental: a pulse train scores alike at its double).
   The period is said only when its p-value times the number of
   frequencies the search could have picked (the trials) is under ALPHA,
   and when the samples span MIN_PERIODS periods at least.
The period is then good to a small part of one FFT bin: a 1 s period over
a 10 s run reads 1.000 s."""
import math

import numpy as np
from scipy import fft as sfft
from scipy import stats
from scipy.ndimage import median_filter

from ..model import Periodic

MAX_BINS = 1 << 22
MAX_SPIKES = 200000
ALPHA = 0.01
HARMONICS = 8
HARMONIC_TIE = 0.8
MIN_PERIODS = 4
SPIKE_MADS = 8.0
MIN_EXCESS_NS = 1000
DECLUSTER = 3
MAX_REFINED = 5000
MAX_SUBHARMONIC = 32
MAX_RHYTHMS = 3
TIER = 8.0
MIN_COVERAGE = 0.5
# Where a rhythm puts its events: within 5 % of a period (a disturbance
# is late by a few ms now and then).
PHASE_WINDOW = 0.05
FLOOR_BINS = 101
OVERSAMPLE = 4
REFINE_STEPS = 25


def spikes(series, over=None):
    """The times (ns) of the spikes of a model.SampleSeries (those over
    the median by over ns; None: by the spike threshold), a run of them
    (each within DECLUSTER sample periods of the last) as one: the
    disturbance that delays several samples in a row is one event."""
    ns, t = series.ns, series.t_ns
    times = t[ns > np.median(ns) + (over or spike_excess(ns))]
    if len(times) < 2:
        return times
    dt = float(np.median(np.diff(t)))
    first = np.concatenate(([True], np.diff(times) > DECLUSTER * dt))
    return times[first]


def spike_excess(ns):
    """How far over the median a spike is: SPIKE_MADS robust standard
    deviations, MIN_EXCESS_NS at least."""
    med = float(np.median(ns))
    mad = 1.4826 * float(np.median(np.abs(ns - med)))
    return max(MIN_EXCESS_NS, SPIKE_MADS * mad)


def grid(t_ns, times):
    """(bin width ns, the binned spike train)."""
    span = int(t_ns[-1] - t_ns[0])
    dt = int(np.median(np.diff(t_ns))) if len(t_ns) > 1 else 1
    dt = max(dt, 1, -(-span // MAX_BINS))
    x = np.zeros(span // dt + 1)
    np.add.at(x, (times - t_ns[0]) // dt, 1.0)
    return dt, x


def normalised_periodogram(x):
    """(P(f) over its running median, ~ Exp(1) where there is only noise
    (the median of an exponential is ln 2 times its mean); the length
    transformed: x zero-padded to one the FFT does fast, a prime length
    is slow)."""
    n = sfft.next_fast_len(len(x), True)
    p = np.abs(sfft.rfft(x - x.mean(), n)) ** 2
    r = np.zeros_like(p)
    floor = median_filter(p[1:], size=FLOOR_BINS, mode="mirror") / math.log(2)
    r[1:] = p[1:] / np.maximum(floor, 1e-300)
    return r, n


def candidate(r, k_min):
    """The fundamental (in bins, fractional) whose harmonics sum most."""
    top = np.maximum(r, np.maximum(np.roll(r, 1), np.roll(r, -1)))
    top[0] = 0.0
    nb = len(r)
    k = np.arange(k_min * OVERSAMPLE, (nb - 1) * OVERSAMPLE // 2) / OVERSAMPLE
    if not len(k):
        return None
    score = np.zeros(len(k))
    for h in range(1, HARMONICS + 1):
        idx = np.rint(k * h).astype(np.int64)
        ok = idx < nb
        score[ok] += top[idx[ok]]
    return float(k[int(np.argmax(score))])


def z2(phase_t, f, m=HARMONICS):
    """Z^2_m of event times phase_t (s) at frequency f (Hz)."""
    e = np.exp(2j * np.pi * f * phase_t)
    w, z = e, 0.0
    for _ in range(m):
        z += abs(w.sum()) ** 2
        w = w * e
    return 2.0 * z / len(phase_t)


def refine(t_s, f, span_s):
    """(Z^2, f) maximised over +-1 FFT bin around f."""
    fs = f + np.linspace(-1, 1, REFINE_STEPS) / span_s
    fs = fs[fs > 0]
    zs = [z2(t_s, g) for g in fs]
    i = int(np.argmax(zs))
    return zs[i], float(fs[i])


def near_phase(t_s, f, phi, dt_s):
    """(which of the times t_s (s) fall within a window of where a rhythm
    of frequency f and phase phi puts its events (3 sample periods dt_s,
    or PHASE_WINDOW of the period), the number of its period each is
    in)."""
    cycles = t_s * f - phi
    nearest = np.rint(cycles)
    return np.abs(cycles - nearest) <= max(3 * dt_s * f, PHASE_WINDOW), nearest


def phase_of(spike_s, f):
    return float(np.angle(np.exp(2j * np.pi * f * spike_s).sum())) / (2 * np.pi)


def folded_excess(series, f, phi):
    """How far the disturbance stands over the median: per period, the
    largest excess of the samples near where its phase puts it; the
    median of those over the periods."""
    t = series.t_ns / 1e9
    dt = float(np.median(np.diff(t))) if len(t) > 1 else 0.0
    near, nearest = near_phase(t, f, phi, dt)
    if not near.any():
        return 0.0
    e = (series.ns - np.median(series.ns)).clip(min=0).astype(float)
    k = (nearest[near] - nearest[near].min()).astype(np.int64)
    top = np.zeros(int(k.max()) + 1)
    np.maximum.at(top, k, e[near])
    return float(np.median(top))


def strongest(series, times):
    """(frequency Hz, p) of the strongest rhythm in the spike times
    (ns), or None."""
    if len(times) < MIN_PERIODS:
        return None
    dt, x = grid(series.t_ns, times)
    span_s = len(x) * dt / 1e9
    r, n = normalised_periodogram(x)
    k = candidate(r, MIN_PERIODS)
    if k is None:
        return None
    # The FFT's candidate may be any harmonic of the fundamental: each of
    # its subharmonics is tested on the spike times (at most MAX_REFINED
    # of them, evenly taken), the lowest that scores near the best wins.
    sub = times if len(times) <= MAX_REFINED else \
        times[np.linspace(0, len(times) - 1, MAX_REFINED).astype(int)]
    t_s = (sub - sub[0]) / 1e9
    f_k = k / (n * dt / 1e9)
    top = max(1, min(MAX_SUBHARMONIC, int(f_k * span_s / MIN_PERIODS)))
    found = [refine(t_s, f_k / d, span_s) + (d,)
             for d in range(1, top + 1)]
    best = max(z for z, _, _ in found)
    z, f, _ = min((c for c in found if c[0] >= HARMONIC_TIE * best),
                  key=lambda c: c[1])
    trials = len(r) * OVERSAMPLE / 2 * top
    logp = stats.chi2.logsf(z, 2 * HARMONICS) + math.log(trials)
    if logp > math.log(ALPHA) or span_s * f < MIN_PERIODS:
        return None
    return f, math.exp(logp)


def related(f, g):
    """Is f a harmonic or subharmonic of g (within 1 %)?"""
    q = f / g if f > g else g / f
    return abs(q - round(q)) < 0.01 * q


def find(series):
    """The periodic disturbances of one model.SampleSeries, the largest
    first, at most MAX_RHYTHMS. The spikes are taken in tiers of height
    (each TIER times the one below, the highest first): a rhythm of few
    large spikes (an SMI, a stop every 200 ms) is found among the large
    ones before a tick's thousands of small ones drown it. Within a tier,
    after each rhythm the spikes it explains (near its phase) are taken
    out and the rest searched again; a rhythm a harmonic of one already
    found is not said twice, nor one whose spikes come in fewer than
    MIN_COVERAGE of its periods."""
    if len(series.ns) < 64:
        return []
    t = series.t_ns
    dt_s = float(np.median(np.diff(t))) / 1e9
    span_s = (int(t[-1]) - int(t[0])) / 1e9
    base = spike_excess(series.ns)
    top = float(series.ns.max() - np.median(series.ns))
    levels = [base]
    while levels[-1] * TIER < top:
        levels.append(levels[-1] * TIER)
    out = []
    for over in reversed(levels):
        times = spikes(series, over)
        if len(times) > MAX_SPIKES:
            times = times[np.linspace(0, len(times) - 1,
                                      MAX_SPIKES).astype(int)]
        for _ in range(2 * MAX_RHYTHMS):
            got = strongest(series, times) if len(out) < MAX_RHYTHMS \
                else None
            if not got:
                break
            f, p = got
            phi = phase_of(times / 1e9, f)
            near, cycle = near_phase(times / 1e9, f, phi, dt_s)
            if not near.any():
                break
            hit = len(np.unique(cycle[near])) / max(1.0, span_s * f)
            times = times[~near]
            # A rhythm is a disturbance in most of its periods: a few
            # spikes that happen to line up are not one.
            if hit < MIN_COVERAGE or \
                    any(related(f, 1.0 / o.period_s) for o in out):
                continue
            out.append(Periodic(key=series.key, label=series.label,
                                period_s=1.0 / f,
                                excess_ns=folded_excess(series, f, phi),
                                periods=int(span_s * f), p=p))
    return out


def find_all(samples):
    """[Periodic] of every series of a model.Samples, each series'
    strongest first."""
    return [f for s in samples.series for f in find(s)]
