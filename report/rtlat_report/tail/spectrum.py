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
FLOOR_BINS = 101
OVERSAMPLE = 4
REFINE_STEPS = 25


def spikes(series):
    """The times (ns) of the spikes of a model.SampleSeries, a run of
    them (each within DECLUSTER sample periods of the last) as one: the
    disturbance that delays several samples in a row is one event."""
    ns, t = series.ns, series.t_ns
    med = float(np.median(ns))
    mad = 1.4826 * float(np.median(np.abs(ns - med)))
    thr = med + max(MIN_EXCESS_NS, SPIKE_MADS * mad)
    times = t[ns > thr]
    if len(times) < 2:
        return times
    dt = float(np.median(np.diff(t)))
    first = np.concatenate(([True], np.diff(times) > DECLUSTER * dt))
    return times[first]


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


def folded_excess(series, period_s):
    """How far the disturbance stands over the median: the mean excess
    of the samples in the phase bin (1 % of a period) where it is
    largest."""
    phase = ((series.t_ns / 1e9) % period_s / period_s * 100).astype(int)
    e = (series.ns - np.median(series.ns)).clip(min=0).astype(float)
    sums = np.bincount(phase, weights=e, minlength=100)
    counts = np.bincount(phase, minlength=100)
    return float((sums / np.maximum(counts, 1)).max())


def find(series):
    """The periodic disturbance of one model.SampleSeries, or None."""
    if len(series.ns) < 64:
        return None
    times = spikes(series)
    if len(times) < MIN_PERIODS:
        return None
    if len(times) > MAX_SPIKES:
        times = times[np.linspace(0, len(times) - 1, MAX_SPIKES).astype(int)]
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
    period = 1.0 / f
    periods = int(span_s / period)
    if logp > math.log(ALPHA) or periods < MIN_PERIODS:
        return None
    return Periodic(key=series.key, label=series.label, period_s=period,
                    excess_ns=folded_excess(series, period), periods=periods,
                    p=math.exp(logp))


def find_all(samples):
    """[Periodic] of every series of a model.Samples that has one."""
    return [f for f in (find(s) for s in samples.series) if f]
