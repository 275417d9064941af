# SPDX-License-Identifier: GPL-2.0-or-later
"""Long runs: the time line of every series (--timeline: each step's
count, min, avg, max, p99 and count over the threshold), the largest
samples (--largest), and a run that ended at a checkpoint ("complete":
false: its last checkpoint is what there is), as read by
read/longrun.py, drawn in the
spirit of OSADL's continuous-monitoring plots (max per step on a log
axis, the threshold drawn, spikes marked) and said in words at the top."""
from ..judge.overall import threshold_of
from ..judge.unfinished import coverage, incomplete
from ..model import duration
from ..read.longrun import wall
from ..units import sig
from .document import Alert, Figure, Note, Table

MARKED = 5          # without a threshold: the largest few steps marked


def partial_mark(*tests):
    """' (partial)' when a verdict rests on a run that ended at a
    checkpoint: it judges only what was measured before."""
    return " (partial: ended at a checkpoint)" if any(
        t is not None and incomplete(t) for t in tests) else ""


def incomplete_alert(runs):
    """The Overview's box: every run that ended at a checkpoint, in
    words, before any figure."""
    items = [f"{r.label} / {t.key}: {coverage(t)}" for r in runs
             for t in r.tests.values() if incomplete(t)]
    if not items:
        return []
    return [Alert("a run ended at a checkpoint: its figures and verdicts "
                  "are partial", items, "alert-incomplete")]


def spikes(s):
    """The steps to mark: those whose max is over the threshold, else
    (no threshold) the few largest step maxima."""
    rows = [r for r in s.rows if r[5] is not None]
    if s.threshold_ns is not None:
        return [r for r in rows if r[5] > s.threshold_ns]
    return sorted(rows, key=lambda r: -r[5])[:MARKED]


def summary_table(key, members):
    """Per run and series: steps, the worst step (its max and when), the
    highest step p99, steps and samples over the threshold."""
    # here, not at the top: load.py imports this module, and the man page
    # is made (cli.py through load.py) where matplotlib (alerts -> plots)
    # may not be installed
    from ..judge.alerts import plural
    rows = []
    for _, r, t in members:
        tl = t.timeline
        if tl is None:
            continue
        part = partial_mark(t)
        for s in tl.series:
            # A suite's tests run without the thresholds it judges them
            # by (its index.json has them): their time line has none.
            th = s.threshold_ns
            if th is None:
                us = threshold_of(r, t, s.name)
                th = None if us is None else us * 1000.0
            full = [x for x in s.rows if x[5] is not None]
            worst = max(full, key=lambda x: x[5], default=None)
            p99 = max((x[6] for x in full if x[6] is not None), default=None)
            over = [x for x in full if th is not None and x[5] > th]
            rows.append([
                r.label, s.label, str(len(s.rows)), f"{tl.step_s:g}",
                _us(worst[5]) if worst else "–",
                when(worst) if worst else "–",
                _us(p99), "–" if th is None else sig(th / 1000),
                ("–" if th is None else
                 f"{plural(len(over), 'step')}, " +
                 (f"{plural(sum(int(x[7] or 0) for x in s.rows), 'sample')}"
                  if s.threshold_ns is not None else "samples not counted "
                  "(the suite's threshold: the test ran without it)"))
                + part])
    return Table(f"{key}: time line per series (µs; a step's max and p99 "
                 "as the run recorded them)",
                 ["run", "series", "steps", "step (s)", "worst step max",
                  "at", "highest step p99", "threshold", "over the threshold"],
                 rows, numeric_from=2)


def largest_table(key, members):
    """The largest samples of each series (--largest), folded: the value,
    when (from the start), the CPU."""
    rows = []
    for _, r, t in members:
        for s in t.largest.series if t.largest else []:
            for ns, t_s, cpu in s.rows:
                rows.append([r.label, f"{s.name} {s.thread}", _us(ns),
                             duration(t_s), "–" if cpu is None else str(cpu),
                             "–" if s.seen is None else str(s.seen)])
    if not rows:
        return []
    return [Table(f"{key}: the largest samples of each series (µs; when: "
                  "since the start)", ["run", "series", "latency", "when",
                                       "CPU", "of samples"], rows,
                  numeric_from=2, collapsed=True)]


def when(row):
    """A step's wall clock to the second, else its time from the start."""
    w = wall(row[1])
    return f"{w:%Y-%m-%d %H:%M:%S}" if w else f"{row[0]:g} s"


def _us(ns):
    return "–" if ns is None else f"{ns / 1000:.1f}"


def blocks(key, fid, members):
    """The time line of each run of a test: a figure and its table."""
    out = []
    have = [(i, r, t) for i, r, t in members if t.timeline and
            any(s.rows for s in t.timeline.series)]
    # The timer's 1-s steps (its short runs' default) are drawn already,
    # as its per-second figure with what else happened on the CPU: the
    # time line's own figure would repeat them at a cost of a second a page.
    drawn = [(i, r, t) for i, r, t in have if not
             (t.kind == "timer" and t.seconds and t.timeline.step_s <= 1)]
    for i, r, t in drawn:
        tl = t.timeline
        title = f"{key}: time line" + (f" ({r.label})" if len(drawn) > 1
                                       else "")
        out.append(Figure(f"{fid}-timeline" + (f"-{i}" if len(drawn) > 1
                                               else ""),
                          title + f", step {duration(tl.step_s)}",
                          plot(title, tl, t), wide=True))
        if tl.gaps:
            out.append(Note(f"{r.label}: " + gap_words(tl)))
    if have:
        out.append(summary_table(key, have))
    return out + largest_table(key, members)


def gap_words(tl):
    total = sum(b - a for a, b in tl.gaps)
    return (f"{len(tl.gaps)} gap{'s' if len(tl.gaps) > 1 else ''} between "
            f"the {tl.runs} merged runs, {duration(total)} in all, "
            "measured by none (grey in the time line)")


def plot(title, tl, t):
    from .timeline_plot import timeline_figure   # matplotlib: only here
    return timeline_figure(title, tl, spikes, coverage(t))
