# SPDX-License-Identifier: GPL-2.0-or-later
"""Long-run result files for the report's tests and docs/make-longrun-png:
a real `rtlat pmq` JSON (tests/fixtures/report/suite-a/pmq.json) given a
known sample list per thread and step, and the long-run keys in the
shared format ("timeline", "largest", "complete", "checkpoint",
rtlat.start_rfc3339/end_rfc3339). The statistics are computed here from
the samples as rtlat computes them (histogram buckets, percentiles as
the upper bound of their bucket, at most the max), so a merged report
can be checked against the report of one run over the same samples."""
import copy
import json
import math
import random
from datetime import datetime, timedelta, timezone
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BASE = ROOT / "tests" / "fixtures" / "report" / "suite-a" / "pmq.json"
BUCKET, BUCKETS = 100, 20000        # pmq's histogram: 100 ns x 20,000
START = datetime(2026, 11, 20, 0, 0, 0, tzinfo=timezone.utc)


def rfc3339(d):
    return d.astimezone(timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def rank_value(sorted_ns, p):
    return sorted_ns[max(1, math.ceil(p / 100 * len(sorted_ns))) - 1]


def stats(samples):
    """rtlat's statistics object of a sample list (ns)."""
    n = len(samples)
    out = {"samples": n}
    counts, over = {}, 0
    for v in samples:
        if v >= BUCKET * BUCKETS:
            over += 1
        else:
            b = v // BUCKET * BUCKET
            counts[b] = counts.get(b, 0) + 1
    hist = {"origin_ns": 0, "bucket_ns": BUCKET, "buckets": BUCKETS,
            "underflow": 0, "overflow": over,
            "counts": [[k, counts[k]] for k in sorted(counts)]}
    if n:
        avg = sum(samples) / n
        sd = math.sqrt(sum((v - avg) ** 2 for v in samples) / (n - 1)) \
            if n > 1 else 0.0
        mx = max(samples)
        pct = {}
        for key, p in (("p50", 50), ("p90", 90), ("p99", 99),
                       ("p99.9", 99.9), ("p99.99", 99.99)):
            v = rank_value(sorted(samples), p)
            pct[key] = mx if v >= BUCKET * BUCKETS else \
                min(v // BUCKET * BUCKET + BUCKET - 1, mx)
        out.update(min_ns=min(samples), avg_ns=avg, max_ns=mx, stddev_ns=sd,
                   percentiles_ns=pct)
    out["histogram"] = hist
    return out


def samples(threads=2, steps=60, per_step=40, seed=1, spikes=()):
    """[thread][step] -> sample list (ns): about 3 µs, a drift over the
    run, and spikes [(thread, step, ns)] (one past the histogram)."""
    rng = random.Random(seed)
    out = [[[int(rng.lognormvariate(math.log(3000 + 8 * s), 0.25))
             for _ in range(per_step)] for s in range(steps)]
           for _ in range(threads)]
    for th, st, ns in spikes:
        out[th][st].append(ns)
    return out


SPIKES = ((0, 17, 180_000), (1, 41, 3_100_000), (0, 50, 95_000))


def step_row(t_s, when, xs, threshold):
    if not xs:
        return [t_s, rfc3339(when), 0, None, None, None, None,
                None if threshold is None else 0]
    s = sorted(xs)
    return [t_s, rfc3339(when), len(xs), s[0], sum(xs) / len(xs), s[-1],
            rank_value(s, 99),
            None if threshold is None else sum(v > threshold for v in xs)]


def result(data, start=START, step_s=60.0, threshold=100_000,
           complete=True, covered_s=None, planned_s=None, settings=None,
           largest_k=5, first_step=0):
    """A pmq result of data[thread][step] (steps first_step...), started
    at start: statistics, time line and largest from the samples."""
    js = json.loads(BASE.read_text())
    base_thread = js["thread"]["0"]
    nsteps = len(data[0])
    length = nsteps * step_s
    end = start + timedelta(seconds=covered_s if covered_s else length)
    js["thread"], series, largest = {}, [], []
    for th, steps in enumerate(data):
        flat = [v for st in steps for v in st]
        t = copy.deepcopy(base_thread)
        t["sender"]["samples"] = len(flat)
        t["sender"]["cpu"] = t["receiver"]["cpu"] = th % 64
        lat = stats(flat)
        t["receiver"]["latency"] = lat
        for k in ("min", "avg", "max"):
            t["receiver"][k] = round(lat[f"{k}_ns"] / 1000, 2)
        js["thread"][str(th)] = t
        rows = [step_row(i * step_s, start + timedelta(seconds=i * step_s),
                         st, threshold) for i, st in enumerate(steps)]
        series.append({"test": "pmq", "series": "receiver", "thread": th,
                       "cpu": th % 64, "threshold_ns": threshold,
                       "steps": rows})
        top = sorted(((v, i * step_s + 0.5, th % 64)
                      for i, st in enumerate(steps) for v in st),
                     reverse=True)[:largest_k]
        largest.append({"test": "pmq", "series": "receiver", "thread": th,
                        "cpu": th % 64, "seen": len(flat),
                        "rows": [list(r) for r in top]})
    js["num_threads"] = len(data)
    js["settings"]["pairs"] = len(data)
    js["settings"]["duration_s"] = int(planned_s or length)
    js["settings"].update(settings or {})
    js["start_time"] = start.strftime("%a, %d %b %Y %H:%M:%S +0000")
    js["end_time"] = end.strftime("%a, %d %b %Y %H:%M:%S +0000")
    js["rtlat"]["start_rfc3339"] = rfc3339(start)
    js["rtlat"]["end_rfc3339"] = rfc3339(end)
    js["timeline"] = {"step_s": step_s, "merges": 0, "cap": 10000,
                      "start_wall": rfc3339(start),
                      "start_monotonic_ns": 1_000_000_000,
                      "columns": ["t_s", "wall", "n", "min_ns", "avg_ns",
                                  "max_ns", "p99_ns", "over"],
                      "series": series}
    js["largest"] = {"k": largest_k, "columns": ["ns", "t_s", "cpu"],
                     "series": largest}
    js["complete"] = complete
    js["checkpoint"] = None if complete else {
        "at_wall": rfc3339(end), "covered_s": covered_s or length,
        "planned_s": planned_s}
    return js


def write(path, js):
    Path(path).write_text(json.dumps(js, indent=1))
    return Path(path)


def halves(d, data, gap_s=30.0, step_s=60.0, **kw):
    """The samples as one run (whole.json) and as two consecutive runs
    (a.json, b.json: the second starts gap_s after the first ends)."""
    k = len(data[0]) // 2
    a = [th[:k] for th in data]
    b = [th[k:] for th in data]
    whole = write(d / "whole.json", result(data, step_s=step_s, **kw))
    fa = write(d / "a.json", result(a, step_s=step_s, **kw))
    fb = write(d / "b.json", result(
        b, start=START + timedelta(seconds=k * step_s + gap_s),
        step_s=step_s, **kw))
    return whole, fa, fb


def examples(d, per_step=30):
    """The docs' three pages' inputs under d: a day's run with a time
    line, 4 consecutive runs to merge, and a run stopped at a
    checkpoint; and a 64-series run. per_step: samples per step and
    series (p99 under the max from 100 on)."""
    d = Path(d)
    d.mkdir(parents=True, exist_ok=True)
    data = samples(threads=4, steps=96, per_step=per_step, seed=3,
                   spikes=((0, 20, 140_000), (2, 61, 260_000),
                           (1, 80, 2_500_000)))
    write(d / "day.json", result(data, step_s=900.0))
    for i in range(4):
        part = [th[i * 24:(i + 1) * 24] for th in data]
        write(d / f"night-{i + 1}.json", result(
            part, start=START + timedelta(seconds=i * 24 * 900 + i * 240),
            step_s=900.0))
    cut = [th[:93] for th in data]
    write(d / "stopped.json", result(cut, step_s=900.0, complete=False,
                                     covered_s=93 * 900.0,
                                     planned_s=86400.0))
    many = samples(threads=64, steps=48, per_step=5, seed=4,
                   spikes=((7, 10, 150_000), (40, 30, 400_000)))
    write(d / "cpus64.json", result(many, step_s=60.0))
    return d
