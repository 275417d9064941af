# SPDX-License-Identifier: GPL-2.0-or-later
"""The time line figure: each step's max (solid) and p99 (dashed) on a log
latency axis against the time since the start, the threshold drawn, the
spikes marked, the spans no run measured shaded. Up to MAX_LINES series a
line each; more (a 64-CPU machine), their envelope: the highest step max
of all series, the band from the lowest to the highest series max, and
the highest p99; each marked spike named by its series."""
import math

from .plots import MARK, WIDE, color, log_y, plt

# Beyond this many series a plot draws their envelope (the highest step
# max of all, the band of the series' step maxima), not a line each.
MAX_LINES = 8

UNITS = ((2 * 86400, 86400, "days"), (2 * 3600, 3600, "hours"),
         (120, 60, "minutes"), (0, 1, "seconds"))


def unit_of(span_s):
    return next((div, name) for lo, div, name in UNITS if span_s >= lo)


def _line(tl, s):
    """x, max and p99 of a series with None where a step measured
    nothing or a gap lies (the line breaks there)."""
    xs, mx, p99 = [], [], []
    gaps = list(tl.gaps)
    prev = None
    for r in s.rows:
        if prev is not None and any(prev < a + 1e-9 and r[0] >= b - 1e-9
                                    for a, b in gaps):
            xs.append(r[0])
            mx.append(math.nan)
            p99.append(math.nan)
        xs.append(r[0])
        mx.append(math.nan if r[5] is None else r[5] / 1000)
        p99.append(math.nan if r[6] is None else r[6] / 1000)
        prev = r[0]
    if xs:      # the last step holds until its end
        xs.append(xs[-1] + tl.step_s)
        mx.append(mx[-1])
        p99.append(p99[-1])
    return xs, mx, p99


def timeline_figure(title, tl, spikes, coverage=None):
    fig, ax = plt.subplots(figsize=(WIDE[0], 4.4))
    span = max(tl.end_s(), tl.step_s)
    div, unit = unit_of(span)
    series = [s for s in tl.series if s.rows]
    if len(series) <= MAX_LINES:
        for j, s in enumerate(series):
            xs, mx, p99 = _line(tl, s)
            ax.plot([x / div for x in xs], mx, color=color(j), lw=1.2,
                    label=f"{s.label} max", drawstyle="steps-post")
            ax.plot([x / div for x in xs], p99, color=color(j), lw=0.8,
                    ls="--", alpha=0.8, drawstyle="steps-post")
        if series:
            ax.plot([], [], color="#555", lw=0.8, ls="--",
                    label="p99 of each step (dashed)")
    else:
        _envelope(ax, tl, series, div)
    thresholds = sorted({s.threshold_ns for s in series
                         if s.threshold_ns is not None})
    for th in thresholds:
        ax.axhline(th / 1000, color=MARK, ls=":", lw=1.2)
    if thresholds:
        ax.plot([], [], color=MARK, ls=":", lw=1.2,
                label="threshold " + ", ".join(f"{th / 1000:g} µs"
                                               for th in thresholds))
    _mark(ax, series, spikes, div, tl.step_s, named=len(series) > MAX_LINES)
    for a, b in tl.gaps:
        ax.axvspan(a / div, b / div, color="#999", alpha=0.25, lw=0)
    if tl.gaps:
        ax.fill_between([], [], color="#999", alpha=0.25,
                        label="not measured (between runs)")
    log_y(ax, fine=True)
    ax.set_ylabel("latency (µs)")
    start = tl.start_wall.strftime("%Y-%m-%d %H:%M:%S UTC") \
        if tl.start_wall else "the start"
    ax.set_xlabel(f"{unit} since {start}")
    ax.set_xlim(0, span / div)
    if coverage:
        ax.text(0.99, 0.02, coverage, transform=ax.transAxes, ha="right",
                va="bottom", fontsize=8, color="#a61b1b",
                bbox={"fc": "white", "ec": "#a61b1b", "alpha": 0.85})
    # The legend beside the plot: over it, it would hide the first steps.
    ax.legend(loc="upper left", bbox_to_anchor=(1.005, 1.0), fontsize=7.5,
              framealpha=0.85, borderaxespad=0)
    ax.set_title(title)
    fig.subplots_adjust(left=0.065, right=0.775, bottom=0.12, top=0.92)
    return fig


def _envelope(ax, tl, series, div):
    """Many series: per step time, the highest and lowest series max and
    the highest p99."""
    at = {}
    for s in series:
        for r in s.rows:
            if r[5] is not None:
                at.setdefault(r[0], []).append((r[5], r[6]))
    xs = sorted(at)
    hi = [max(v for v, _ in at[x]) / 1000 for x in xs]
    lo = [min(v for v, _ in at[x]) / 1000 for x in xs]
    p99 = [max((p for _, p in at[x] if p is not None), default=math.nan)
           / 1000 for x in xs]
    # A gap breaks the lines: a NaN where no run measured.
    for a, _ in tl.gaps:
        if xs and a < xs[-1]:
            i = next(k for k, x in enumerate(xs) if x >= a)
            xs.insert(i, a)
            for ys in (hi, lo, p99):
                ys.insert(i, math.nan)
    if xs:      # the last step holds until its end
        xs.append(xs[-1] + tl.step_s)
        for ys in (hi, lo, p99):
            ys.append(ys[-1])
    x = [v / div for v in xs]
    ax.fill_between(x, lo, hi, step="post", color=color(0), alpha=0.22,
                    lw=0, label=f"band of the {len(series)} series' max")
    ax.plot(x, hi, color=color(0), lw=1.2, drawstyle="steps-post",
            label="highest max of any series")
    ax.plot(x, p99, color=color(1), lw=0.9, ls="--", drawstyle="steps-post",
            label="highest p99 of any series")


def _mark(ax, series, spikes, div, step_s, named):
    """A triangle over the middle of each spike's step."""
    pts = [(r[0] + step_s / 2, r[5], s.label) for s in series
           for r in spikes(s)]
    if not pts:
        return
    over = any(s.threshold_ns is not None for s in series)
    ax.scatter([p[0] / div for p in pts], [p[1] / 1000 for p in pts],
               marker="v", s=28, color=MARK, zorder=5,
               label="spike: step max over threshold" if over else
               f"spike: the {len(pts)} largest step maxima")
    if named or len(pts) <= 12:
        worst = sorted(pts, key=lambda p: -p[1])[:6]
        for t, v, lab in worst:
            ax.annotate(f"{lab} {v / 1000:.0f} µs", (t / div, v / 1000),
                        xytext=(3, 5), textcoords="offset points",
                        fontsize=7, color=MARK)
