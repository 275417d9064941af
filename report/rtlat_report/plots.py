# SPDX-License-Identifier: GPL-2.0-or-later
"""The figures. Histograms as OSADL's latency plots draw them (linear
latency, logarithmic count, one curve per CPU/pair/run), percentile plots
on a log tail axis as jitterplot's and HdrHistogram's, per-second min/avg/
max over time, and the request test's figures against the load count."""
import io
import math

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402  (after choosing the backend)
from matplotlib.ticker import (FixedLocator, FuncFormatter,  # noqa: E402
                               LogLocator, NullFormatter,
                               NullLocator)

from .model import PERCENTILES, PCT_VALUE  # noqa: E402

plt.rcParams.update({
    "svg.fonttype": "none",         # text stays text: small, sharp files
    "svg.hashsalt": "rtlat-report",  # the same input gives the same file
    "font.size": 10,
    "axes.grid": True,
    "grid.alpha": 0.3,
    "legend.fontsize": 8,
    "figure.dpi": 100,
})
COLORS = plt.rcParams["axes.prop_cycle"].by_key()["color"]
FIGSIZE = (6.4, 3.9)
WIDE = (11.0, 3.9)
MAX_BINS = 600
COUNT_FLOOR = 0.7   # zero counts are drawn here, just below 1 on the log axis


def color(i):
    return COLORS[i % len(COLORS)]


def plain(v, _pos=None):
    """Tick labels without mathtext (which costs more than the plot)."""
    if v >= 1e6:
        return f"{v / 1e6:g}M"
    if v >= 1e4:
        return f"{v / 1e3:g}k"
    return f"{v:g}"


def log_y(ax, fine=False):
    """A log y axis labelled 1, 10, 100, 1k ... (fine: also 2 and 5 of
    each decade, for data spanning a decade or two)."""
    ax.set_yscale("log")
    if fine:
        ax.yaxis.set_major_locator(LogLocator(subs=(1.0, 2.0, 5.0)))
    ax.yaxis.set_major_formatter(FuncFormatter(plain))
    ax.yaxis.set_minor_formatter(NullFormatter())


def finish(fig, ax, title, bottom=0.13, left=0.11):
    """Fixed margins: tight_layout would draw every figure twice."""
    ax.set_title(title)
    fig.subplots_adjust(left=left, right=0.98, bottom=bottom, top=0.91)


def us(ns):
    return None if ns is None else ns / 1000.0


def fmt_us(ns):
    if ns is None:
        return "–"
    v = ns / 1000.0
    return f"{v:.2f}" if abs(v) < 100000 else f"{v:.0f}"


def nice_width(span, minimum):
    """A 1-2-5 bin width no smaller than the data's own bucket, giving at
    most MAX_BINS bins over span."""
    w = max(minimum, span / MAX_BINS)
    exp = 10 ** math.floor(math.log10(w))
    for m in (1, 2, 5, 10):
        if m * exp >= w - 1e-9:
            return max(minimum, m * exp)
    return w


def rebin(d, width, lo, hi):
    """Counts of d's bins in [lo, hi) on a grid of width (ns)."""
    n = max(1, int(math.ceil((hi - lo) / width)))
    counts = [0] * n
    for start, c in d.bins:
        i = int((start - lo) // width)
        counts[min(max(i, 0), n - 1)] += c
    return counts


def hist_range(curves):
    ds = [d for _, d, _ in curves]
    lo = min(min((s for s, _ in d.bins), default=d.origin_ns) for d in ds)
    hi = max(max((s + d.bucket_ns for s, _ in d.bins), default=lo + 1)
             for d in ds)
    lo = min(lo, min(d.origin_ns for d in ds))
    lo = 0 if lo >= 0 else lo
    width = nice_width(hi - lo, max(d.bucket_ns for d in ds))
    return lo, hi + width, width


def histogram_figure(title, curves, xlabel="latency (µs)"):
    """curves: [(label, Dist, color)], each with a histogram. Overflow
    (and underflow) are drawn as marked bars beyond the range's ends."""
    fig, ax = plt.subplots(figsize=FIGSIZE)
    lo, hi, width = hist_range(curves)
    n = len(rebin(curves[0][1], width, lo, hi))
    xs = [us(lo + i * width) for i in range(n + 1)]
    top = 1
    for label, d, col in curves:
        counts = rebin(d, width, lo, hi)
        top = max(top, max(counts), d.overflow, d.underflow)
        ys = [c if c > 0 else COUNT_FLOOR for c in counts]
        ax.stairs(ys, xs, color=col, linewidth=1.2, baseline=COUNT_FLOOR,
                  label=f"{label} (n={d.samples}, max {fmt_us(d.max_ns)} µs)")
        _outside(ax, d, col, us(hi), us(lo), us(width))
    log_y(ax)
    ax.set_ylim(COUNT_FLOOR, top * 2.5)
    ax.set_xlabel(f"{xlabel}, bins of {us(width):g} µs")
    ax.set_ylabel("samples (log)")
    ax.legend(loc="upper right")
    finish(fig, ax, title)
    return fig


def _outside(ax, d, col, right, left, w):
    """Samples outside the histogram: a bar past the axis' end, labelled
    with the count and the exact max."""
    if d.overflow:
        x = right + w
        ax.bar([x], [d.overflow], width=w * 1.5, bottom=COUNT_FLOOR,
               color=col, alpha=0.6, hatch="//", edgecolor=col)
        ax.annotate(f"overflow {d.overflow}\nmax {fmt_us(d.max_ns)} µs",
                    (x, d.overflow), textcoords="offset points",
                    xytext=(-4, 4), ha="right", fontsize=7, color=col)
    if d.underflow:
        x = left - w
        ax.bar([x], [d.underflow], width=w * 1.5, bottom=COUNT_FLOOR,
               color=col, alpha=0.6, hatch="\\\\", edgecolor=col)
        ax.annotate(f"underflow {d.underflow}", (x, d.underflow),
                    textcoords="offset points", xytext=(4, 4), fontsize=7,
                    color=col)


def tail_points(d):
    """(x, latency ns) steps of the percentile curve: x = 1/(1-q), so 90%
    is at 10, 99% at 100 ...; the last sample sits at x = n."""
    n = d.underflow + sum(c for _, c in d.bins) + d.overflow
    rows = ([(d.min_ns, d.underflow)] if d.underflow else []) + \
        [(min(s + d.bucket_ns - 1, d.max_ns or s + d.bucket_ns), c)
         for s, c in d.bins] + \
        ([(d.max_ns, d.overflow)] if d.overflow else [])
    xs, ys, cum = [1.0], [rows[0][0]], 0
    for value, c in rows:
        xs.append(xs[-1])
        ys.append(value)
        cum += c
        xs.append(n if cum >= n else 1.0 / (1.0 - cum / n))
        ys.append(value)
    return xs, ys, n


def tail_label(label, d):
    parts = [f"{p} {fmt_us(d.percentile(p))}" for p in ("p99.9", "p99.99")]
    return f"{label}: " + ", ".join(parts) + f", max {fmt_us(d.max_ns)} µs"


def percentile_figure(title, curves):
    """Latency against percentile, the tail stretched on a log axis; the
    legend carries p99.9, p99.99 and max as jitterplot's does."""
    fig, ax = plt.subplots(figsize=FIGSIZE)
    xmax, ymin, ymax = 10.0, None, 1.0
    for label, d, col in curves:
        xs, ys, n = tail_points(d)
        ax.plot(xs, [us(y) for y in ys], color=col, linewidth=1.2,
                label=tail_label(label, d))
        for p in PERCENTILES:
            x = 1.0 / (1.0 - PCT_VALUE[p] / 100.0)
            if d.percentile(p) is not None and x <= max(n, 2):
                ax.plot([x], [us(d.percentile(p))], "o", color=col, ms=3)
        ax.plot([max(n, 1)], [us(d.max_ns)], "v", color=col, ms=5)
        xmax = max(xmax, n)
        ymin = min(v for v in (ymin, d.min_ns) if v is not None)
        ymax = max(ymax, d.max_ns or 0)
    ax.set_xscale("log")
    ticks = [10 ** k for k in range(0, int(math.log10(xmax)) + 2)]
    ax.xaxis.set_major_locator(FixedLocator([2] + ticks[1:]))
    ax.xaxis.set_minor_locator(NullLocator())
    ax.xaxis.set_major_formatter(FuncFormatter(_pct_tick))
    ax.set_xlim(1, xmax * 1.5)
    if ymin and ymin > 0 and ymax / ymin > 30:
        log_y(ax, fine=ymax / ymin < 300)
    ax.set_xlabel("percentile (log tail axis: each step is one more nine)")
    ax.set_ylabel("latency (µs)")
    ax.legend(loc="upper left")
    finish(fig, ax, title)
    return fig


def _pct_tick(x, _pos):
    if x <= 1:
        return "0%"
    q = 100.0 * (1.0 - 1.0 / x)
    return f"{q:.10g}%"


def seconds_figure(title, curves):
    """curves: [(label, [(t, min, avg, max) ns], color)]: the band from
    each second's minimum to its maximum, the average and the maximum."""
    fig, ax = plt.subplots(figsize=WIDE)
    lo, hi = None, 1.0
    for label, rows, col in curves:
        t = [r[0] for r in rows]
        mn, av, mx = ([us(r[k]) for r in rows] for k in (1, 2, 3))
        ax.fill_between(t, mn, mx, color=col, alpha=0.15)
        ax.plot(t, mx, color=col, linewidth=1.2, marker=".",
                label=f"{label}: max of each second")
        ax.plot(t, av, color=col, linewidth=1, linestyle="--",
                label=f"{label}: average")
        lo = min(v for v in [lo] + mn if v is not None)
        hi = max([hi] + mx)
    if lo and lo > 0 and hi / lo > 30:
        log_y(ax, fine=hi / lo < 300)
    ax.set_xlabel("time after warm-up (s)")
    ax.set_ylabel("latency (µs): min–max band")
    ax.legend(loc="upper left")
    finish(fig, ax, title, left=0.065)
    return fig


REQUEST_PANELS = (("response", "Response Time"),
                  ("total_jitter", "Total Jitter"))


def loads_figure(title, curves):
    """curves: [(label, [Round], color)]: average and maximum Response
    Time and Total Jitter against the number of load processes."""
    fig, axes = plt.subplots(1, 2, figsize=WIDE)
    for ax, (key, name) in zip(axes, REQUEST_PANELS):
        for label, rounds, col in curves:
            pts = [(r.load_processes, r.series[key]) for r in rounds
                   if key in r.series and r.series[key].samples > 0]
            if not pts:
                continue
            x = [p[0] for p in pts]
            ax.plot(x, [us(p[1].avg_ns) for p in pts], "o-", color=col,
                    label=f"{label} avg")
            ax.plot(x, [us(p[1].max_ns) for p in pts], "^--", color=col,
                    label=f"{label} max")
        log_y(ax, fine=True)
        ax.set_xlabel("load processes")
        ax.set_ylabel(f"{name} (µs, log)")
        ax.set_title(name)
        ax.xaxis.get_major_locator().set_params(integer=True)
        ax.legend(loc="best")   # few points: cheap, and no line hidden
    fig.suptitle(title)
    fig.subplots_adjust(left=0.065, right=0.98, bottom=0.13, top=0.86,
                        wspace=0.2)
    return fig


def to_svg(fig):
    buf = io.StringIO()
    fig.savefig(buf, format="svg")
    return buf.getvalue()


def to_png(fig, path):
    fig.savefig(path, format="png", dpi=110)


def close(fig):
    plt.close(fig)
