# SPDX-License-Identifier: GPL-2.0-or-later
"""The log-linear histogram in the JSON (issue 49): what rtlat writes
follows the schema, names its layout so that rtlat-report needs no table
(the percentiles it derives from the buckets are rtlat's own), merges,
and an older file's linear histogram still reads."""
import json
import random

import pytest

from conftest import run
from rtlat_report.model import LogLinear, hist_percentile, merge
from rtlat_report.read import rtlat as reader
from rtlat_report.read import schema

FINE = dict(layout="log-linear", origin_ns=0, unit_ns=1, sub_bucket_bits=11,
            max_width_ns=64, max_width_until_ns=2097152, top_ns=2 ** 37)


def fine_index(v):
    """The C layout's bucket start of v (histogram.h), computed apart."""
    q = v
    k = max(q.bit_length() - 1, 0)
    sh = max(0, k - 10)
    if k < 21:
        sh = min(sh, 6)
    return (q >> sh) << sh


@pytest.fixture(scope="module")
def live(tmp_path_factory):
    d = tmp_path_factory.mktemp("hist")
    r = run(["timer", "-T", "1", "-q", "--json", str(d / "t.json")])
    assert r.returncode == 0, r.stderr
    return json.loads((d / "t.json").read_text())


def test_rtlat_writes_the_layout_and_follows_the_schema(live):
    h = live["latency"]["histogram"]
    assert {k: h[k] for k in FINE} == FINE
    assert schema.problems(live) == []
    starts = [s for s, _ in h["counts"]]
    assert starts == sorted(starts) and all(c > 0 for _, c in h["counts"])
    assert all(fine_index(s) == s for s in starts)
    assert sum(c for _, c in h["counts"]) + h["underflow"] + \
        h["overflow"] == live["latency"]["samples"]


def test_percentiles_from_the_buckets_are_rtlats(live):
    d = reader.dist_from_stats("latency", live["latency"])
    assert d.layout is not None
    for key, p in (("p50", 50.0), ("p90", 90.0), ("p99", 99.0),
                   ("p99.9", 99.9), ("p99.99", 99.99)):
        assert hist_percentile(d, p) == live["latency"]["percentiles_ns"][key]


def synthetic(name, values):
    """A Dist as rtlat would write it for values (ns), fine layout."""
    rows = {}
    for v in values:
        rows[fine_index(v)] = rows.get(fine_index(v), 0) + 1
    s = {"samples": len(values), "min_ns": min(values), "max_ns": max(values),
         "avg_ns": sum(values) / len(values), "stddev_ns": 0.0,
         "percentiles_ns": {},
         "histogram": dict(FINE, underflow=0, overflow=0,
                           counts=sorted([s, c] for s, c in rows.items()))}
    return reader.dist_from_stats(name, s)


def test_widths_tile_and_stay_within_0_1_percent():
    lay = LogLinear(0, 1, 11, 64, 2097152, 2 ** 37)
    v, n = 0, 0
    while v < 2 ** 37:      # every bucket, as the C layout has them
        w = int(lay.width(v))
        assert w <= max(1, v / 1000) and (v >= 2_000_000 or w <= 100)
        assert fine_index(v) == v and fine_index(v + w - 1) == v
        v, n = v + w, n + 1
    assert n == 55296


def test_merge_is_the_histogram_of_both():
    rnd = random.Random(49)
    a = [rnd.randrange(1, 50_000_000) for _ in range(3000)]
    b = [int(rnd.lognormvariate(10, 2)) + 1 for _ in range(3000)]
    m = merge("both", [synthetic("a", a), synthetic("b", b)])
    both = synthetic("both", a + b)
    assert m.bins == both.bins and m.layout == both.layout
    for p in (50, 99, 99.99):
        assert hist_percentile(m, p) == hist_percentile(both, p)


def test_an_older_linear_histogram_still_reads():
    s = {"samples": 3, "min_ns": 150, "max_ns": 5000, "avg_ns": 1800,
         "percentiles_ns": {},
         "histogram": {"origin_ns": 0, "bucket_ns": 100, "buckets": 20,
                       "underflow": 0, "overflow": 1,
                       "counts": [[100, 1], [200, 1]]}}
    d = reader.dist_from_stats("old", s)
    assert d.layout is None and d.bucket_ns == 100 and d.overflow == 1
    assert d.range_end_ns == 2000
    assert hist_percentile(d, 50) == 299
    assert hist_percentile(d, 99) == 5000
