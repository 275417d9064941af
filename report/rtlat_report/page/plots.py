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

from ..model import PERCENTILES, PCT_VALUE, fmt_us  # noqa: E402

plt.rcParams.update({
    # Every text is drawn as it is: a '$' in a label, a file name or a
    # cause (task $x^$[1]) is not TeX (mathtext raised on it).
    "text.parse_math": False,
    "text.usetex": False,
    "svg.fonttype": "none",         # text stays text: small, sharp files
    "svg.hashsalt": "rtlat-report",  # the same input gives the same file
    "font.size": 10,
    "axes.grid": True,
    "grid.alpha": 0.3,
    "legend.fontsize": 8,
    "figure.dpi": 100,
    "figure.max_open_warning": 0,   # cli.py closes each once rendered
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
    hi = max(max((s + d.width(s) for s, _ in d.bins), default=lo + 1)
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
        ys = [float(c) if c > 0 else COUNT_FLOOR for c in counts]
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
        ax.bar([x], [float(d.overflow)], width=w * 1.5, bottom=COUNT_FLOOR,
               color=col, alpha=0.6, hatch="//", edgecolor=col)
        ax.annotate(f"overflow {d.overflow}\nmax {fmt_us(d.max_ns)} µs",
                    (x, d.overflow), textcoords="offset points",
                    xytext=(-4, 4), ha="right", fontsize=7, color=col)
    if d.underflow:
        x = left - w
        ax.bar([x], [float(d.underflow)], width=w * 1.5, bottom=COUNT_FLOOR,
               color=col, alpha=0.6, hatch="\\\\", edgecolor=col)
        ax.annotate(f"underflow {d.underflow}", (x, d.underflow),
                    textcoords="offset points", xytext=(4, 4), fontsize=7,
                    color=col)


def tail_points(d):
    """(x, latency ns) steps of the percentile curve: x = 1/(1-q), so 90%
    is at 10, 99% at 100 ...; the last sample sits at x = n."""
    n = d.underflow + sum(c for _, c in d.bins) + d.overflow
    rows = ([(d.min_ns, d.underflow)] if d.underflow else []) + \
        [(min(s + d.width(s) - 1, d.max_ns or s + d.width(s)), c)
         for s, c in d.bins] + \
        ([(d.max_ns, d.overflow)] if d.overflow else [])
    xs, ys, cum = [1.0], [rows[0][0]], 0
    for value, c in rows:
        xs.append(xs[-1])
        ys.append(value)
        cum += c
        # n / (n - cum), whole numbers: exact for any count (1 - cum / n
        # rounds to 0 once n passes 2^53).
        xs.append(float(n) if cum >= n else n / (n - cum))
        ys.append(value)
    return xs, ys, float(n)    # a float for the axes: n may pass 2^64


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
        ymin = min((v for v in (ymin, d.min_ns) if v is not None),
                   default=None)
        ymax = max(ymax, d.max_ns or 0)
    ax.set_xscale("log")
    ticks = [10.0 ** k for k in range(0, int(math.log10(xmax)) + 2)]
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


def seconds_figure(title, curves, layers=(), marks=()):
    """curves: [(label, [(t, min, avg, max) ns], color)]: the band from
    each second's minimum to its maximum, the average and the maximum.
    layers: [(label, [Second], color)]: the always-on layer, in panels
    below sharing the time axis; marks: [(t, color)] explained spikes, a
    dotted line across every panel."""
    panels = [p for p in LAYER_PANELS
              if any(getattr(s, f) is not None for _, rows, _ in layers
                     for s in rows for f, *_ in p[1])]
    if not panels:
        fig, ax = plt.subplots(figsize=WIDE)
        axes = [ax]
    else:
        fig, axes = plt.subplots(
            1 + len(panels), 1, sharex=True,
            figsize=(WIDE[0], 3.6 + 1.45 * len(panels)),
            gridspec_kw={"height_ratios": [2.4] + [1] * len(panels)})
    _latency_panel(axes[0], curves)
    for ax, panel in zip(axes[1:], panels):
        _layer_panel(ax, panel, layers)
    for t, col in marks:
        for ax in axes:
            ax.axvline(t, color=col, linestyle=":", linewidth=1.1, alpha=0.8)
    if marks:
        axes[0].plot([], [], color=marks[0][1], linestyle=":",
                     label="explained spike (--explain)")
    axes[0].legend(loc="upper left")
    axes[-1].set_xlabel("time since the start (s; second 0 is the warm-up)")
    axes[0].set_title(title)
    h = fig.get_size_inches()[1]
    fig.subplots_adjust(left=0.065, right=0.98, bottom=0.5 / h,
                        top=1 - 0.35 / h, hspace=0.12)
    return fig


def steps(t, ys):
    """A second's value holds over the whole second: [t, t + 1) (a spike
    at 3.4 s lies over second 3's step)."""
    return t + [t[-1] + 1], ys + [ys[-1]]


def _latency_panel(ax, curves):
    lo, hi = None, 1.0
    for label, rows, col in curves:
        t = [r[0] for r in rows]
        mn, av, mx = ([us(r[k]) for r in rows] for k in (1, 2, 3))
        x, mx2 = steps(t, mx)
        ax.fill_between(x, steps(t, mn)[1], mx2, step="post", color=col,
                        alpha=0.15)
        ax.step(x, mx2, where="post", color=col, linewidth=1.2,
                label=f"{label}: max of each second")
        ax.step(x, steps(t, av)[1], where="post", color=col, linewidth=1,
                linestyle="--", label=f"{label}: average")
        lo = min(v for v in [lo] + mn if v is not None)
        hi = max([hi] + mx)
    if lo and lo > 0 and hi / lo > 30:
        log_y(ax, fine=hi / lo < 300)
    ax.set_ylabel("latency (µs): min–max band")


# The always-on layer's panels: (y label, [(Second field, name, scale,
# line style)]).
LAYER_PANELS = (
    ("interrupts / s", (("irqs", "interrupts", 1, "-"),
                        ("softirqs", "softirqs", 1, "--"))),
    ("ms of each second", (("steal_ms", "steal", 1, "-"),
                           ("psi_some_us", "CPU pressure (some)", 1e-3,
                            "--"))),
    ("involuntary\nswitches / s", (("nivcsw", "involuntary switches", 1,
                                     "-"),)),
)


def _layer_panel(ax, panel, layers):
    ylabel, fields = panel
    for label, rows, col in layers:
        for f, name, scale, style in fields:
            pts = [(s.t, getattr(s, f) * scale) for s in rows
                   if getattr(s, f) is not None]
            if pts:
                ax.step(*steps([p[0] for p in pts], [p[1] for p in pts]),
                        where="post", color=col, linestyle=style,
                        linewidth=1.1, label=f"{label}: {name}")
    ax.set_ylabel(ylabel, fontsize=9)
    ax.set_ylim(bottom=0)
    ax.yaxis.set_major_formatter(FuncFormatter(plain))
    ax.legend(loc="upper left", fontsize=7, ncol=2)


# --explain's kinds of cause: legend name and colour (dark enough for white
# text inside a bar).
KINDS = {
    "irq": ("interrupt", "#c0392b"),
    "softirq": ("softirq", "#d35400"),
    "task": ("other task", "#2468a8"),
    "wakeup": ("wake-up", "#2e8b57"),
    "late_interrupt": ("late interrupt", "#8e44ad"),
    "late": ("late interrupt", "#8e44ad"),
    "throttling": ("RT throttling", "#7b241c"),
    "remote": ("the other side", "#16a085"),
    "self": ("the thread itself", "#5d6d7e"),
    "unexplained": ("unexplained", "#666666"),
    "other": ("other", "#a0a0a0"),
}
UNKNOWN_KIND = "#b8860b"
MARK = "#d62728"          # an explained spike in the per-second plot
CHAR_IN = 0.058         # inches per character of 7.5-8.5 pt text (about)


def kind_color(kind):
    return KINDS.get(kind, (kind, UNKNOWN_KIND))[1]


def kind_name(kind):
    return KINDS.get(kind, (kind, UNKNOWN_KIND))[0]


def shorten(text, n):
    return text if len(text) <= n else text[:max(n - 1, 0)] + "…"


def _kind_legend(fig, kinds):
    """The kinds drawn, in KINDS' order, in one row at the top right."""
    from matplotlib.patches import Patch
    order = list(KINDS)
    kinds = sorted(set(kinds), key=lambda k: order.index(k) if k in order
                   else len(order))
    names = []
    handles = []
    for k in kinds:
        if kind_name(k) not in names:
            names.append(kind_name(k))
            handles.append(Patch(color=kind_color(k)))
    fig.legend(handles, names, loc="upper right", ncol=len(names),
               frameon=False, fontsize=8, bbox_to_anchor=(0.985, 1.0),
               handlelength=1.2, columnspacing=1.0)


def _bars_layout(fig, labels, rows):
    """Margins that fit the y labels (longest first) and the legend row."""
    w, h = fig.get_size_inches()
    left = min(0.45, (0.3 + CHAR_IN * 1.1 * max(map(len, labels))) / w)
    fig.subplots_adjust(left=left, right=0.97, bottom=0.55 / h,
                        top=1 - 0.62 / h)
    return (0.97 - left) * w      # the axes' width in inches


def spikes_figure(title, spikes, labels):
    """The worst spikes, one horizontal bar each (named by labels), worst
    on top, made of its causes in order, coloured by kind; a cause's name
    inside its part of the bar where it fits."""
    n = len(spikes)
    fig, ax = plt.subplots(figsize=(WIDE[0], 1.3 + 0.55 * n))
    xmax = max(sum(c.ns for c in s.causes) for s in spikes) / 1000.0 or 1
    width_in = _bars_layout(fig, labels, n)
    for i, s in enumerate(spikes):
        y, left = n - 1 - i, 0.0
        for c in s.causes:
            w = c.ns / 1000.0
            ax.barh(y, w, left=left, height=0.62, color=kind_color(c.kind),
                    edgecolor="white", linewidth=0.6)
            room = int(w / (xmax * 1.02) * width_in / CHAR_IN) - 1
            if room >= 6:
                ax.text(left + w / 2, y, shorten(c.cause, room), ha="center",
                        va="center", color="white", fontsize=7.5)
            left += w
    ax.set_yticks(range(n))
    ax.set_yticklabels(labels[::-1], fontsize=8.5)
    ax.set_xlim(0, xmax * 1.02)
    ax.set_ylim(-0.6, n - 0.4)
    ax.grid(axis="y", visible=False)
    ax.set_xlabel("µs (each bar's causes add up to its latency)")
    ax.set_title(title, loc="left")
    _kind_legend(fig, [c.kind for s in spikes for c in s.causes])
    return fig


def where_figure(title, rows, total):
    """rows: [Cause] largest first: one bar each, coloured by kind, with
    its duration and share of total."""
    n = len(rows)
    fig, ax = plt.subplots(figsize=(WIDE[0], 1.25 + 0.3 * n))
    labels = [shorten(c.cause, 56) for c in rows]
    _bars_layout(fig, labels, n)
    xmax = max(c.ns for c in rows) / 1000.0 or 1
    ys = list(range(n))[::-1]
    ax.barh(ys, [c.ns / 1000.0 for c in rows], height=0.66,
            color=[kind_color(c.kind) for c in rows])
    for y, c in zip(ys, rows):
        ax.text(c.ns / 1000.0 + xmax * 0.01, y,
                f"{fmt_us(c.ns)} µs  {100.0 * c.ns / total:.1f}%",
                va="center", fontsize=7.5)
    ax.set_yticks(ys)
    ax.set_yticklabels(labels, fontsize=8.5)
    ax.set_xlim(0, xmax * 1.3)
    ax.set_ylim(-0.6, n - 0.4)
    ax.grid(axis="y", visible=False)
    ax.set_xlabel("µs, all explained spikes together")
    ax.set_title(title, loc="left")
    _kind_legend(fig, [c.kind for c in rows])
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
