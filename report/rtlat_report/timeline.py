# SPDX-License-Identifier: GPL-2.0-or-later
"""Long runs: the time line of every series (--timeline: each step's
count, min, avg, max, p99 and count over the threshold), the largest
samples (--largest), and a run that ended at a checkpoint ("complete":
false: its last checkpoint is what there is). Read here, drawn in the
spirit of OSADL's continuous-monitoring plots (max per step on a log
axis, the threshold drawn, spikes marked) and said in words at the top."""
import math
from dataclasses import dataclass, field
from datetime import datetime, timezone
from email.utils import parsedate_to_datetime
from typing import List, Optional

from .document import Alert, Figure, Note, Table

COLUMNS = ("t_s", "wall", "n", "min_ns", "avg_ns", "max_ns", "p99_ns", "over")
# Beyond this many series a plot draws their envelope (the highest step
# max of all, the band of the series' step maxima), not a line each.
MAX_LINES = 8
MARKED = 5          # without a threshold: the largest few steps marked
STOPPED = "stopped by SIGKILL or a crash after the last checkpoint"


@dataclass
class Series:
    """One series of a time line (a pair's receiver, a CPU). rows:
    [t_s from the time line's start, wall, n, min, avg, max, p99, over]
    (ns; None where the step has no sample)."""
    test: str
    name: str
    thread: int
    cpu: Optional[int]
    threshold_ns: Optional[float]
    rows: List[list] = field(default_factory=list)
    label: str = ""

    @property
    def key(self):
        return (self.name, self.thread, self.cpu)


@dataclass
class Timeline:
    """A test's time line: its step (seconds, as the last run wrote it),
    merges two by two, the wall clock of t_s 0, the series, and the spans
    no run covered (merged runs: [from_s, to_s))."""
    step_s: float
    merges: int
    cap: Optional[int]
    start_wall: Optional[datetime]
    series: List[Series] = field(default_factory=list)
    gaps: List[tuple] = field(default_factory=list)
    runs: int = 1

    def end_s(self):
        ends = [r[0] for s in self.series for r in s.rows]
        return max(ends) + self.step_s if ends else 0.0


def num(x):
    if isinstance(x, bool) or not isinstance(x, (int, float)):
        return None
    return float(x) if math.isfinite(x) else None


def wall(text):
    """An RFC 3339 (rtlat) or RFC 2822 (rt-tests' start_time) time as an
    aware datetime, or None."""
    if not isinstance(text, str) or not text:
        return None
    try:
        d = datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        try:
            d = parsedate_to_datetime(text)
        except (TypeError, ValueError, IndexError):
            return None
    return d if d.tzinfo else d.replace(tzinfo=timezone.utc)


def _row(r):
    """A step row as read, or None if it is not one."""
    if not isinstance(r, list) or len(r) < len(COLUMNS):
        return None
    t = num(r[0])
    n = num(r[2])
    if t is None or n is None or n < 0:
        return None
    vals = [num(v) for v in r[3:8]]
    return [t, r[1] if isinstance(r[1], str) else None, int(n)] + vals


def name_series(series):
    """Each series' label: its CPU where the CPUs tell the series apart,
    else its thread; its series name first where a test has several
    (request's response and jitter)."""
    cpus = [s.cpu for s in series]
    by_cpu = None not in cpus and \
        len({(s.name, s.cpu) for s in series}) == len(series)
    named = len({s.name for s in series}) > 1
    for s in series:
        who = f"CPU{s.cpu}" if by_cpu else f"thread {s.thread}" + \
            (f" (CPU{s.cpu})" if s.cpu is not None else "")
        s.label = f"{s.name} {who}" if named else who
    return series


def read_timeline(x):
    if not isinstance(x, dict):
        return None
    series = []
    for s in x.get("series") if isinstance(x.get("series"), list) else []:
        if not isinstance(s, dict):
            continue
        rows = [r for r in map(_row, s.get("steps") or []) if r]
        cpu = num(s.get("cpu"))
        series.append(Series(
            test=str(s.get("test") or ""), name=str(s.get("series") or ""),
            thread=int(num(s.get("thread")) or 0),
            cpu=None if cpu is None else int(cpu),
            threshold_ns=num(s.get("threshold_ns")), rows=rows))
    cap = num(x.get("cap"))
    return Timeline(step_s=num(x.get("step_s")) or 1.0,
                    merges=int(num(x.get("merges")) or 0),
                    cap=None if cap is None else int(cap),
                    start_wall=wall(x.get("start_wall")),
                    series=name_series(series))


def read_longrun(t, data):
    """The long-run keys of a result file into the Test (model.Test):
    timeline, largest, complete, checkpoint, and the wall clock of the
    start and end (t.extra["wall"]) that merging orders runs by."""
    rl = data.get("rtlat") if isinstance(data.get("rtlat"), dict) else {}
    t.extra["wall"] = (wall(rl.get("start_rfc3339")) or
                       wall(data.get("start_time")),
                       wall(rl.get("end_rfc3339")) or
                       wall(data.get("end_time")))
    t.timeline = read_timeline(data.get("timeline"))
    if t.timeline and t.timeline.start_wall is None:
        t.timeline.start_wall = t.extra["wall"][0]
    if isinstance(data.get("largest"), dict):
        t.largest = data["largest"]
    if isinstance(data.get("complete"), bool):
        t.complete = data["complete"]
    if isinstance(data.get("checkpoint"), dict):
        t.checkpoint = data["checkpoint"]


def duration(s):
    """23 h 10 min, 5 min 3 s, 12.5 s, 7 d 2 h."""
    if s is None:
        return "?"
    s = float(s)
    if s < 60:
        return f"{s:.3g} s"
    m = int(round(s)) // 60
    if m < 60:
        sec = int(round(s)) % 60
        return f"{m} min" + (f" {sec} s" if sec else "")
    h, m = divmod(int(round(s / 60)), 60)
    if h < 48:
        return f"{h} h" + (f" {m} min" if m else "")
    d, h = divmod(h, 24)
    return f"{d} d" + (f" {h} h" if h else "")


def incomplete(t):
    """True for a file a checkpoint wrote (the run did not end it)."""
    return t.complete is False


def coverage(t):
    """'covers 23 h 10 min of 24 h; stopped by SIGKILL or a crash after
    the last checkpoint (written ...)' for a run that ended at a
    checkpoint, else None."""
    if not incomplete(t):
        return None
    cp = t.checkpoint or {}
    covered, planned = num(cp.get("covered_s")), num(cp.get("planned_s"))
    at = cp.get("at_wall")
    what = f"covers {duration(covered)}" if covered is not None else \
        "covers an unknown span"
    what += f" of {duration(planned)}" if planned else \
        " (the planned length is not recorded)"
    if getattr(t, "merged_from", 0):
        return f"{what}; a run of the merged set {STOPPED}"
    return f"{what}; {STOPPED}" + (f" (written {at})" if isinstance(
        at, str) else "")


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
    from .alerts import plural
    rows = []
    for _, r, t in members:
        tl = t.timeline
        if tl is None:
            continue
        part = partial_mark(t)
        for s in tl.series:
            full = [x for x in s.rows if x[5] is not None]
            worst = max(full, key=lambda x: x[5], default=None)
            p99 = max((x[6] for x in full if x[6] is not None), default=None)
            over = [x for x in full if s.threshold_ns is not None and
                    x[5] > s.threshold_ns]
            rows.append([
                r.label, s.label, str(len(s.rows)), f"{tl.step_s:g}",
                _us(worst[5]) if worst else "–",
                when(worst) if worst else "–",
                _us(p99), _us(s.threshold_ns),
                ("–" if s.threshold_ns is None else
                 f"{plural(len(over), 'step')}, "
                 f"{plural(sum(int(x[7] or 0) for x in s.rows), 'sample')}")
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
        x = t.largest or {}
        for s in x.get("series") or []:
            if not isinstance(s, dict):
                continue
            for row in s.get("rows") or []:
                if isinstance(row, list) and len(row) == 3 and \
                        num(row[0]) is not None:
                    rows.append([r.label, f"{s.get('series')} "
                                 f"{s.get('thread')}", _us(num(row[0])),
                                 duration(num(row[1])) if num(row[1])
                                 is not None else "–",
                                 "–" if row[2] is None else str(row[2]),
                                 str(s.get("seen", "–"))])
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
