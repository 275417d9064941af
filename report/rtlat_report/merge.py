# SPDX-License-Identifier: GPL-2.0-or-later
"""--merge: consecutive runs of the same test and settings (24 one-hour
runs of a nightly job, or their suite results directories) as one run:
one exact histogram per series (bin counts, underflow and overflow added;
count, min, max exact, the mean weighted, the deviation pooled; the
percentiles from the summed histogram), one time line (the runs' steps in
wall-clock order, the spans between them shown as gaps), the largest
samples of all. Runs that differ in a setting are refused with one line
naming it (exit 2): their samples are not of one distribution. Settings
of a run's length (duration, loops, samples) and volatile ones (ports,
output paths) may differ: a nightly job's last run may be cut short."""
from dataclasses import replace

from .io import InputError
from .judge.alerts import differing_settings, plural
from .judge.unfinished import incomplete
from .model import (Checkpoint, Largest, Round, Run,
                    Timeline, TimelineSeries, duration, merge)
from .read.longrun import name_series

SYSTEM_KEYS = ("host", "kernel", "preempt_model", "machine")


def labels(args):
    """With --merge, one label for the merged run (--labels NAME)."""
    name = (args.labels or "").strip() or f"merged ({len(args.inputs)} runs)"
    if "," in name:
        raise InputError(f"--labels: with --merge one name is expected (the "
                         f"merged run's), got '{args.labels}'")
    return [name] * len(args.inputs)


def start_of(t):
    return t.wall_start


def difference(a, b):
    """The first way test b's run differs from test a's in what it
    measures, as words; None when alike."""
    if a.kind != b.kind or a.name != b.name:
        return f"test {a.name} ({a.kind}) vs {b.name} ({b.kind})"
    diff = differing_settings([(0, None, a), (1, None, b)],
                              skip_length=True)
    if diff:
        k, (va, vb) = diff[0]
        return f"setting {k}: {va} vs {vb}"
    for k in SYSTEM_KEYS:
        va, vb = getattr(a.system, k), getattr(b.system, k)
        if va is not None and vb is not None and va != vb:
            return f"system {k}: {va} vs {vb}"
    na, nb = [d.name for d in a.dists], [d.name for d in b.dists]
    if na != nb:
        return f"series {', '.join(na)} vs {', '.join(nb)}"
    for da, db in zip(a.dists, b.dists):
        if da.has_hist and db.has_hist and \
                (da.bucket_ns, da.origin_ns, da.range_end_ns, da.layout) != \
                (db.bucket_ns, db.origin_ns, db.range_end_ns, db.layout):
            return f"{da.name}: histogram {da.bucket_ns:g} ns buckets from " \
                f"{da.origin_ns:g} vs {db.bucket_ns:g} from {db.origin_ns:g}"
    ta = {s.key: s.threshold_ns for s in a.timeline.series} \
        if a.timeline else None
    tb = {s.key: s.threshold_ns for s in b.timeline.series} \
        if b.timeline else None
    if ta is not None and tb is not None and ta != tb:
        return "time line series or thresholds differ"
    return None


def span_s(t):
    """How long a run measured: its checkpoint's covered_s, its time
    line's end, its wall clock, or its planned duration."""
    if incomplete(t) and t.checkpoint and t.checkpoint.covered_s:
        return t.checkpoint.covered_s
    if t.timeline and t.timeline.series:
        return t.timeline.end_s()
    s, e = t.wall_start, t.wall_end
    if s and e and e > s:
        return (e - s).total_seconds()
    return t.settings.duration_s


def merge_runs(runs, label):
    """The runs (one per input) as one Run of merged tests."""
    out = Run(label=label, path=" + ".join(r.path for r in runs))
    for r in runs:
        out.order += [n for n in r.order if n not in out.order]
        out.unreadable += r.unreadable
        out.skipped += r.skipped
        out.doctor = out.doctor or r.doctor
    keys = []
    for r in runs:
        keys += [k for k in r.tests if k not in keys]
    for k in keys:
        members = [(r, r.tests[k]) for r in runs if k in r.tests]
        if len(members) < len(runs):
            out.notes.append(f"{k}: in {len(members)} of the {len(runs)} "
                             "merged inputs")
        out.tests[k] = merge_test(members)
    return out


def merge_test(members):
    members = sorted(members, key=lambda m: (start_of(m[1]) is None,
                                             start_of(m[1]) or 0))
    first = members[0][1]
    for r, t in members[1:]:
        why = difference(first, t)
        if why:
            raise InputError(f"--merge: {first.key}: {t.path} differs from "
                             f"{first.path}: {why} (only runs of the same "
                             "test and settings merge)")
    tests = [t for _, t in members]
    starts = [start_of(t) for t in tests]
    if None in starts and len(tests) > 1:
        bad = tests[starts.index(None)].path
        raise InputError(f"--merge: {first.key}: {bad} has no start time: "
                         "runs cannot be put in order")
    offsets = [(s - starts[0]).total_seconds() if s else 0.0 for s in starts]
    for i in range(1, len(tests)):
        end = offsets[i - 1] + (span_s(tests[i - 1]) or 0)
        if offsets[i] < end - 1.0:
            raise InputError(f"--merge: {first.key}: {tests[i].path} starts "
                             f"before {tests[i - 1].path} ends: the runs "
                             "overlap (not consecutive runs of one machine)")
    m = replace(first, path=" + ".join(t.path for t in tests),
                notes=list(first.notes), timeouts=dict(first.timeouts),
                dists=[merge(d.name, [t.dists[j] for t in tests])
                       for j, d in enumerate(first.dists)])
    m.rounds = merge_rounds(tests)
    m.return_code = next((t.return_code for t in tests
                          if t.return_code not in (None, 0)),
                         first.return_code)
    m.seconds = shifted_seconds([t.seconds for t in tests], offsets)
    m.layer = [replace(s, t=s.t + off) for t, off in zip(tests, offsets)
               for s in t.layer]
    for k in ("overruns", "msw"):
        vals = [getattr(t, k) for t in tests if getattr(t, k) is not None]
        if vals:
            setattr(m, k, sum(vals))
    m.cpu_seconds = [
        (name, shifted_seconds([dict(t.cpu_seconds).get(name)
                                for t in tests], offsets) or [])
        for name, _ in first.cpu_seconds]
    m.seconds_summary = {}
    if any(t.explain for t in tests):
        m.explain = None
        m.notes.append("--explain's spikes are not merged: see each run's "
                       "own report")
    m.timeline = merge_timelines(tests, offsets)
    m.largest = merge_largest(tests, offsets)
    stopped = [t for t in tests if incomplete(t)]
    m.complete = not stopped
    covered = sum(span_s(t) or 0 for t in tests)
    if stopped:
        planned = sum(t.settings.duration_s or
                      span_s(t) or 0 for t in tests)
        m.checkpoint = Checkpoint(covered_s=covered, planned_s=planned)
    m.merged_from = len(tests)
    w0, wl = first.wall_start, tests[-1].wall_end
    m.wall_start, m.wall_end = w0, wl
    m.notes.insert(0, f"merged from {plural(len(tests), 'run')}"
                   + (f", {w0:%Y-%m-%d %H:%M:%S} to {wl:%Y-%m-%d %H:%M:%S} "
                      "UTC" if w0 and wl else "")
                   + f"; measured {duration(covered)} in all"
                   + (f" ({len(stopped)} ended at a checkpoint)"
                      if stopped else "")
                   + ": " + ", ".join(t.path for t in tests))
    return m


def merge_rounds(tests):
    """request: each load count's series merged across the runs."""
    loads = []
    for t in tests:
        loads += [r.load_processes for r in t.rounds
                  if r.load_processes not in loads]
    out = []
    for n in loads:
        rs = [r for t in tests for r in t.rounds if r.load_processes == n]
        names = list(dict.fromkeys(s for r in rs for s in r.series))
        out.append(Round(
            index=rs[0].index, load_processes=n,
            samples=sum(r.samples for r in rs),
            partial=any(r.partial for r in rs),
            overruns=None if all(r.overruns is None for r in rs)
            else sum(r.overruns or 0 for r in rs),
            series={s: merge(s, [r.series[s] for r in rs if s in r.series])
                    for s in names}))
    return out


def shifted_seconds(lists, offsets):
    rows = [(s[0] + off, *s[1:]) for rows, off in zip(lists, offsets)
            for s in rows or []]
    return rows or None


def merge_timelines(tests, offsets):
    """The runs' time lines end to end in wall-clock order: each row's t_s
    from the first run's start, the spans between runs as gaps."""
    have = [(t, off) for t, off in zip(tests, offsets) if t.timeline]
    if not have:
        return None
    t0 = have[0][0].timeline
    tl = Timeline(step_s=max(t.timeline.step_s for t, _ in have),
                  merges=max(t.timeline.merges for t, _ in have),
                  cap=t0.cap, start_wall=t0.start_wall, runs=len(have))
    by = {}
    end = None
    for t, off in have:
        # The time line's own start, where it has one, places its rows.
        if t.timeline.start_wall and t0.start_wall:
            off = (t.timeline.start_wall - t0.start_wall).total_seconds()
        if end is not None and off > end + 1e-6:
            tl.gaps.append((end, off))
        for s in t.timeline.series:
            into = by.setdefault(s.key, TimelineSeries(
                test=s.test, name=s.name, thread=s.thread, cpu=s.cpu,
                threshold_ns=s.threshold_ns))
            into.rows += [[r[0] + off] + r[1:] for r in s.rows]
        end = off + (span_s(t) or t.timeline.end_s())
    tl.series = name_series(list(by.values()))
    return tl


def merge_largest(tests, offsets):
    """Each series' k largest samples of all the runs (t_s from the first
    run's start)."""
    have = [(t.largest, off) for t, off in zip(tests, offsets) if t.largest]
    if not have:
        return None
    k = max(x.k for x, _ in have)
    by = {}
    for x, off in have:
        for s in x.series:
            into = by.setdefault(s.key, replace(s, rows=[], seen=0))
            into.seen += s.seen or 0
            into.rows += [(r[0], r[1] + off, r[2]) for r in s.rows]
    for s in by.values():
        s.rows = sorted(s.rows, key=lambda r: -r[0])[:k]
    return Largest(k=k, series=list(by.values()))
