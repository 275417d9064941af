# SPDX-License-Identifier: GPL-2.0-or-later
"""What a result file must hold before it is read: numbers a measurement
can have (finite, within 64-bit nanoseconds), counts that are not
negative. check() raises InputError naming the file and the first
problem, so that a broken file is one line, never a traceback and never
a page that shows nonsense without a word."""
import json
import math

from ..io import InputError

# rtlat writes int64 nanoseconds; anything beyond is not a measurement.
LIMIT = 2 ** 63
# Keys whose values count something (samples, loops, histogram cells).
COUNTS = {"samples", "cycles", "underflow", "overflow", "buckets",
          "overruns", "msw", "timeoutcount", "num_threads", "events"}


def _number(v, where):
    """Why v cannot be a measurement, or None."""
    if isinstance(v, float) and not math.isfinite(v):
        return f"{where} is {v}, not a number a measurement can have"
    if abs(v) >= LIMIT:
        return f"{where} = {v:.6g} is out of range (beyond 64-bit nanoseconds)"
    return None


def _negative(key, v, where):
    if key in COUNTS and not isinstance(v, bool) and \
            isinstance(v, (int, float)) and v < 0:
        return f"{where} = {v}: a count cannot be negative"
    return None


def _is_number(v):
    return isinstance(v, (int, float)) and not isinstance(v, bool) and \
        math.isfinite(v)


def _count(v, where):
    """Why v cannot be a histogram's count (a whole number, not
    negative), or None."""
    if _is_number(v) and v < 0:
        return f"{where} has a negative count ({v})"
    if _is_number(v) and v != int(v):
        return f"{where} has a count that is not a whole number ({v})"
    return None


def _histogram_rows(rows, where):
    """[[start_ns, count], ...]: counts whole and not negative."""
    for i, r in enumerate(rows):
        if isinstance(r, list) and len(r) == 2:
            why = _count(r[1], f"{where}[{i}]")
            if why:
                return why
    return None


def _histogram(o, where, key):
    """A histogram object's counts (rtlat's {counts: [[start_ns, count]
    ...], underflow, overflow}; rt-tests' thread "histogram" {"<us>":
    count...}) are whole, not negative, and add up to fewer than 2^63,
    what rtlat's 64-bit counters hold: beyond, the figures' arithmetic
    is not exact (a percentile's rank, the log axes)."""
    if isinstance(o.get("counts"), list):
        counts = [r[1] for r in o["counts"] if isinstance(r, list)
                  and len(r) == 2] + \
            [o[k] for k in ("underflow", "overflow") if k in o]
    elif key == "histogram":
        counts = []
        for k, v in o.items():
            if k.lstrip("-").isdigit():
                why = _count(v, f"{where}.{k}")
                if why:
                    return why
                counts.append(v)
    else:
        return None
    total = sum(int(c) for c in counts if _is_number(c) and c > 0)
    if total >= LIMIT:
        return f"{where}: its counts add up to {total:.6g}, beyond " \
            "64-bit counters"
    return None


def _key(k):
    """A key as the message names it: as it is when printable, else
    quoted with its escapes (a newline in a key must not break the one
    line of the message)."""
    return k if k and k.isprintable() else json.dumps(k)


def problem(data):
    """The first thing in data that no result can hold, or None. Walks
    iteratively: a deeply nested file cannot exhaust the stack."""
    todo = [(data, "", None)]
    while todo:
        o, where, key = todo.pop()
        if isinstance(o, bool) or o is None or isinstance(o, str):
            continue
        if isinstance(o, (int, float)):
            why = _number(o, where or "the value") or _negative(key, o, where)
            if why:
                return why
        elif isinstance(o, dict):
            why = _histogram(o, where or "the file", key)
            if why:
                return why
            for k, v in o.items():
                todo.append((v, f"{where}.{_key(k)}" if where else _key(k), k))
        elif isinstance(o, list):
            if key == "counts":
                why = _histogram_rows(o, where)
                if why:
                    return why
            todo += [(v, f"{where}[{i}]", None) for i, v in enumerate(o)]
    return None


def check(data, path):
    why = problem(data)
    if why:
        raise InputError(f"{path}: unreadable: {why}")


def decimal(k):
    """k (a key or figure of a file) as a whole number when it is ASCII
    digits, else None: str.isdigit() takes '²', which int() refuses."""
    return int(k) if isinstance(k, str) and k.isascii() and k.isdigit() \
        else None


def _dist_problem(d):
    """Why a distribution read from another tool's text cannot be a
    measurement (what problem() says of a JSON file): a count or value
    beyond 64 bits, counts that add up past a 64-bit counter."""
    def count(key):
        v = getattr(d, key)
        if v < 0:
            return f"{d.name}: its {key} {v} is negative"
        return f"{d.name}: its {key} {v} is beyond 64-bit counters" \
            if v >= LIMIT else None
    why = count("overflow") or count("underflow")
    if why:
        return why
    for start, _ in d.bins:
        if abs(start) >= LIMIT:
            return f"{d.name}: a bin at {start:.6g} ns is beyond 64-bit " \
                "nanoseconds"
    total = d.underflow + sum(c for _, c in d.bins) + d.overflow
    if total >= LIMIT:
        return f"{d.name}: its counts add up to {total:.6g}, beyond " \
            "64-bit counters"
    why = count("samples")
    if why:
        return why
    for key in ("min_ns", "avg_ns", "max_ns"):
        v = getattr(d, key)
        if v is not None and abs(v) >= LIMIT:
            return f"{d.name}: its {key} {v:.6g} is beyond 64-bit " \
                "nanoseconds"
    return None


def check_dists(t):
    """InputError naming t's file and the first of its distributions
    that no measurement can have (another tool's text, read by hand)."""
    why = next(filter(None, map(_dist_problem, t.dists)), None)
    if why:
        raise InputError(f"{t.path}: unreadable: {why}")
