# SPDX-License-Identifier: GPL-2.0-or-later
"""Readers of results rtlat did not make, beside those of rtlat.py (rt-tests'
JSON, cyclictest's -h text): `rtla timerlat hist` (and osnoise hist) text
and jitterdebugger's results.json. Each becomes a Test of histogram
distributions, so every figure (and the tail analysis) reads them."""
import json
import os
import re

from ..model import Dist, Test
from ..io import InputError
from .validate import decimal

RTLA = re.compile(rb"^# RTLA (timerlat|osnoise) histogram", re.M)


def is_rtla(raw):
    return RTLA.search(raw[:4096]) is not None


def _duration(text):
    """'# Duration:   0 00:10:00' (days hh:mm:ss) in seconds."""
    m = re.search(r"^# Duration:\s*(\d+)\s+(\d+):(\d+):(\d+)", text, re.M)
    if not m:
        return None
    d, h, mi, s = map(int, m.groups())
    return ((d * 24 + h) * 60 + mi) * 60 + s


def read_rtla_hist(path, text):
    """rtla timerlat/osnoise hist: an Index column (the bucket's lower
    edge, in the time unit), a column per CPU and context (IRQ-000,
    Thr-000, Usr-000), then over:, count:, min:, avg:, max: rows."""
    unit = 1.0 if re.search(r"^# Time unit is nanoseconds", text, re.M) \
        else 1000.0
    head, rows, foot = None, [], {}
    for line in text.splitlines():
        f = line.split()
        if not f or line.startswith("#"):
            continue
        if f[0] == "ALL:":
            # rtla timerlat hist from Linux 6.10 on: the same rows once
            # more, summed over every CPU (timerlat_print_stats_all):
            # read on, they would overwrite each CPU's count and max
            break
        if f[0] == "Index":
            head = f[1:]
        elif head and len(f) == len(head) + 1 and \
                None not in map(decimal, f):
            rows.append([int(x) for x in f])
        elif head and f[0].endswith(":") and len(f) >= 2:
            foot[f[0][:-1].lower()] = f[1:]
    if not head or not rows:
        raise InputError(f"{path}: unreadable: an rtla histogram header "
                         "without an Index line or rows")
    idx = [r[0] for r in rows]
    steps = [b - a for a, b in zip(idx, idx[1:]) if b > a]
    width = float(min(steps) if steps else 1) * unit
    t = Test(key=os.path.basename(path), name="rtla-timerlat"
             if b"timerlat" in text[:200].encode() else "rtla-osnoise",
             kind="cyclic", path=path, tool="rtla hist output")
    dur = _duration(text)
    if dur:
        t.stated_s = float(dur)

    def cell(key, j):
        v = foot.get(key, [])
        return decimal(v[j]) if j < len(v) else None
    for j, name in enumerate(head):
        d = Dist(name=name)
        d.bins = [(r[0] * unit, r[1 + j]) for r in rows if r[1 + j]]
        d.bucket_ns = width
        d.range_end_ns = idx[-1] * unit + width
        d.overflow = cell("over", j) or 0
        d.samples = cell("count", j) or (sum(c for _, c in d.bins) +
                                         d.overflow)
        mn, av, mx = (cell(k, j) for k in ("min", "avg", "max"))
        d.min_ns = None if mn is None else mn * unit
        d.avg_ns = None if av is None else av * unit
        d.max_ns = None if mx is None else mx * unit
        if d.samples:
            t.dists.append(d)
    t.alike = False
    t.notes.append("read from rtla's histogram text: the period is not "
                   "in it (give --period-us; rtla's default is 1000 µs)")
    return t


def is_jitterdebugger(data):
    cpu = data.get("cpu")
    return isinstance(cpu, dict) and cpu and all(
        isinstance(v, dict) and isinstance(v.get("histogram"), dict)
        for v in cpu.values())


def _bins(path, where, hist):
    """(µs, count) of a jitterdebugger histogram's non-empty bins;
    InputError for a bin or count it never writes."""
    for a, b in hist.items():
        if decimal(a) is None:
            raise InputError(f"{path}: unreadable: {where}: bin "
                             f"{a!r} is not a whole number of µs")
        if isinstance(b, bool) or not isinstance(b, int) or b < 0:
            raise InputError(f"{path}: unreadable: {where}.{a}: "
                             f"{json.dumps(b)[:40]} is not a count")
        if b:
            yield int(a), b


def jd_resolution(path, data):
    """jitterdebugger's unit in ns: sysinfo.resolution_in_ns (1 with -N,
    else 1000); a file without it (before version 3) is in µs."""
    sysinfo = data.get("sysinfo")
    res = sysinfo.get("resolution_in_ns", 1000) \
        if isinstance(sysinfo, dict) else 1000
    if isinstance(res, bool) or not isinstance(res, int) or res <= 0:
        raise InputError(f"{path}: unreadable: sysinfo.resolution_in_ns: "
                         f"{json.dumps(res)[:40]} is not a number of ns")
    return float(res)


# jitterdebugger has a slot per unit for 1 ms (hist_size = NSEC_PER_SEC /
# resolution / 1000): a sample from 1 ms on is counted in no slot
JD_RANGE_NS = 1e6


def read_jitterdebugger(path, data):
    """jitterdebugger's results.json: {"sysinfo": {"resolution_in_ns"},
    "cpu": {"N": {"histogram": {"slot": count}, "count", "min", "avg",
    "max"}}}, in its unit (µs, ns with -N). count holds every sample:
    those beyond the histogram's 1 ms are its overflow (without count, an
    older file: a max beyond the last slot says at least one)."""
    t = Test(key=os.path.basename(path), name="jitterdebugger",
             kind="cyclic", path=path, tool="jitterdebugger")
    unit = jd_resolution(path, data)
    bad = next((k for k in data["cpu"] if decimal(k) is None), None)
    if bad is not None:
        raise InputError(f"{path}: unreadable: cpu: {bad!r} is "
                         "not a CPU number")
    for k in sorted(data["cpu"], key=int):
        c = data["cpu"][k]
        rows = sorted(_bins(path, f"cpu.{k}.histogram", c["histogram"]))
        d = Dist(name=f"CPU{k}", cpu=int(k))
        d.bins = [(a * unit, b) for a, b in rows]
        d.bucket_ns = unit
        in_slots = sum(b for _, b in rows)
        for key, attr in (("min", "min_ns"), ("avg", "avg_ns"),
                          ("max", "max_ns")):
            v = c.get(key)
            if isinstance(v, (int, float)) and not isinstance(v, bool):
                setattr(d, attr, float(v) * unit)
        d.range_end_ns = max(JD_RANGE_NS, rows[-1][0] * unit + unit) \
            if rows else JD_RANGE_NS
        n = c.get("count")
        if n is not None:
            if isinstance(n, bool) or not isinstance(n, int) or \
                    n < in_slots:
                raise InputError(f"{path}: unreadable: cpu.{k}.count: "
                                 f"{json.dumps(n)[:40]} is not a count of "
                                 f"at least its histogram's {in_slots}")
            d.overflow = n - in_slots
        elif d.max_ns is not None and d.max_ns >= d.range_end_ns:
            d.overflow = 1      # at least the max lies beyond
        d.samples = in_slots + d.overflow
        if d.samples:
            t.dists.append(d)
    if not t.dists:
        raise InputError(f"{path}: unreadable: jitterdebugger results with "
                         "no samples")
    t.notes.append("read from jitterdebugger's results.json: the period is "
                   "not in it (give --period-us)")
    return t
