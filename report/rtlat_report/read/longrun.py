# SPDX-License-Identifier: GPL-2.0-or-later
"""The long-run keys of rtlat's JSON (and rt-tests' start/end times):
the time line of every series (each step's count, min, avg, max, p99 and
count over the threshold), the largest samples, and whether a checkpoint
wrote the file ("complete": false)."""
import math
from datetime import datetime, timezone
from email.utils import parsedate_to_datetime

from ..model import Timeline, TimelineSeries

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


def read_timeline(x):
    if not isinstance(x, dict):
        return None
    series = []
    for s in x.get("series") if isinstance(x.get("series"), list) else []:
        if not isinstance(s, dict):
            continue
        rows = [r for r in map(_row, s.get("steps") or []) if r]
        cpu = num(s.get("cpu"))
        series.append(TimelineSeries(
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
