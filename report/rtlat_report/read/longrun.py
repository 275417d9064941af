# SPDX-License-Identifier: GPL-2.0-or-later
"""The long-run keys of rtlat's JSON (and rt-tests' start/end times):
the time line of every series (each step's count, min, avg, max, p99 and
count over the threshold), the largest samples, and whether a checkpoint
wrote the file ("complete": false)."""
import math
from datetime import datetime, timezone
from email.utils import parsedate_to_datetime

from ..model import (Checkpoint, Largest, LargestSeries, Second, Timeline,
                     TimelineSeries)

COLUMNS = ("t_s", "wall", "n", "min_ns", "avg_ns", "max_ns", "p99_ns", "over")


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


LAYER = (("irqs", "irqs"), ("steal_ms", "steal_ms"),
         ("psi_some_us", "cpu_pressure_some_us"),
         ("nivcsw", "involuntary_switches"))


def layer_from_context(s):
    """The always-on layer of a timer's time line series: each step's
    context row (its seconds of readings, then the counters' increase)
    as rates per second, at the step's t_s."""
    cols, rows, steps = (s.get(k) for k in ("context_columns", "context", "steps"))
    if not all(isinstance(x, list) for x in (cols, rows, steps)):
        return []
    at = {c: i for i, c in enumerate(cols) if isinstance(c, str)}
    out = []
    for st, row in zip(steps, rows):
        t = num(st[0]) if isinstance(st, list) and st else None
        secs = num(row[0]) if isinstance(row, list) and row else None
        if t is None or not secs:
            continue

        def per(k, row=row, secs=secs):
            i = at.get(k)
            v = num(row[i]) if i is not None and i < len(row) else None
            return None if v is None else v / secs
        soft = [per(c) for c in at if c.startswith("softirq_")]
        out.append(Second(t=t, softirqs=sum(soft) if soft and None not in soft
                          else None, **{f: per(k) for f, k in LAYER}))
    return out


def _head(s):
    """(test, series, thread, CPU) of a series of "timeline" or
    "largest" (the same head in both)."""
    cpu = num(s.get("cpu"))
    return dict(test=str(s.get("test") or ""), name=str(s.get("series") or ""),
                thread=int(num(s.get("thread")) or 0),
                cpu=None if cpu is None else int(cpu))


def _series(x):
    """The series objects of a "timeline" or "largest" key."""
    v = x.get("series")
    return [s for s in v if isinstance(s, dict)] if isinstance(v, list) \
        else []


def read_timeline(x):
    if not isinstance(x, dict):
        return None
    series = [TimelineSeries(
        **_head(s), threshold_ns=num(s.get("threshold_ns")),
        rows=[r for r in map(_row, s.get("steps") or []) if r],
        layer=layer_from_context(s)) for s in _series(x)]
    cap = num(x.get("cap"))
    return Timeline(step_s=num(x.get("step_s")) or 1.0,
                    merges=int(num(x.get("merges")) or 0),
                    cap=None if cap is None else int(cap),
                    start_wall=wall(x.get("start_wall")),
                    series=name_series(series))


def _largest_row(r):
    """(ns, t_s, CPU) of a row of "largest", or None if it is not one."""
    if not isinstance(r, list) or len(r) < 2 or \
            num(r[0]) is None or num(r[1]) is None:
        return None
    cpu = num(r[2]) if len(r) > 2 else None
    return (num(r[0]), num(r[1]), None if cpu is None else int(cpu))


def _count(x):
    return x if isinstance(x, int) and not isinstance(x, bool) else None


def read_largest(x):
    """The "largest" key (the k largest samples of each series)."""
    if not isinstance(x, dict):
        return None
    series = [LargestSeries(
        **_head(s), seen=_count(s.get("seen")),
        rows=[r for r in map(_largest_row, s.get("rows"))
              if r] if isinstance(s.get("rows"), list) else [])
        for s in _series(x)]
    return Largest(k=int(num(x.get("k")) or 0), series=series)


def read_checkpoint(x):
    """The "checkpoint" key, or None where it is not an object."""
    if not isinstance(x, dict):
        return None
    at = x.get("at_wall")
    return Checkpoint(covered_s=num(x.get("covered_s")),
                      planned_s=num(x.get("planned_s")),
                      at_wall=at if isinstance(at, str) else None)


def read_longrun(t, data):
    """The long-run keys of a result file into the Test (model.Test):
    timeline, largest, complete, checkpoint, and the wall clock of the
    start and end that merging orders runs by."""
    rl = data.get("rtlat") if isinstance(data.get("rtlat"), dict) else {}
    t.wall_start = wall(rl.get("start_rfc3339")) or wall(data.get("start_time"))
    t.wall_end = wall(rl.get("end_rfc3339")) or wall(data.get("end_time"))
    t.timeline = read_timeline(data.get("timeline"))
    if t.timeline and t.timeline.start_wall is None:
        t.timeline.start_wall = t.wall_start
    t.largest = read_largest(data.get("largest"))
    if isinstance(data.get("complete"), bool):
        t.complete = data["complete"]
    t.checkpoint = read_checkpoint(data.get("checkpoint"))
