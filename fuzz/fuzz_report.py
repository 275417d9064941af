# SPDX-License-Identifier: GPL-2.0-or-later
"""Fuzz rtlat-report's loader with hypothesis (make fuzz): for any bytes,
and for any JSON built from the keys rtlat's and rt-tests' files use,
load_file either returns a result or raises the one InputError (one line
naming the file); never another exception, never a traceback. A result
it returns must also summarise (Test.headlines) without an exception, and
a histogram it holds go through the figures' arithmetic (the percentile
curve's points, the bins of the histogram plot) without one.

    FUZZ_S=30 .venv/bin/python fuzz/fuzz_report.py    # seconds to run
"""
import json
import os
import sys
import tempfile
import time

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "report"))
from rtlat_report.load import InputError, load_file  # noqa: E402
from rtlat_report import plots  # noqa: E402

# The keys the readers look for, so that the fuzzer reaches them.
KEYS = ["samples", "min_ns", "avg_ns", "max_ns", "stddev_ns", "percentiles_ns",
        "histogram", "bucket_ns", "origin_ns", "buckets", "counts", "underflow",
        "overflow", "thread", "receiver", "sender", "latency", "cycles", "min",
        "avg", "max", "cpu", "rtlat", "test", "version", "settings", "seconds",
        "series", "per_second", "request", "rounds", "explain", "spikes",
        "causes", "log", "where", "doctor", "checks", "fleet", "system", "rt",
        "sysinfo", "resolution_in_ns", "return_code", "p99", "0", "1", "timer",
        "pmq", "cmdline:", "num_threads", "overruns", "cpus", "gaps", "cost",
        "timeline", "steps", "context", "context_columns", "irqs", "softirq_TIMER"]
SCALARS = (st.none() | st.booleans() | st.integers(-2 ** 70, 2 ** 70) |
           st.floats(allow_nan=True, allow_infinity=True) |
           st.text(max_size=8) | st.sampled_from(KEYS))
JSON = st.recursive(SCALARS, lambda inner: st.lists(inner, max_size=4) |
                    st.dictionaries(st.sampled_from(KEYS) | st.text(max_size=4),
                                    inner, max_size=6), max_leaves=40)


def check(raw):
    with tempfile.NamedTemporaryFile("wb", suffix=".json") as f:
        f.write(raw)
        f.flush()
        try:
            t = load_file(f.name)
        except InputError as e:
            assert str(e).startswith(f.name) and "\n" not in str(e)
            return
        for _, d in t.headlines():
            _ = d and (d.samples, d.has_hist, d.percentile("p99"))
            if d and d.has_hist:
                plots.tail_points(d)
                lo, hi, width = plots.hist_range([("", d, "")])
                plots.rebin(d, width, lo, hi)


def budget():
    return float(os.environ.get("FUZZ_S", "10"))


CFG = settings(max_examples=200, deadline=None, database=None,
               suppress_health_check=list(HealthCheck))


@CFG
@given(JSON)
def structured(doc):
    check(json.dumps(doc).encode())


@CFG
@given(st.binary(max_size=256))
def raw(b):
    check(b)


def run():
    """Batches of 200 fresh examples each, half the time for each kind,
    until FUZZ_S seconds have passed."""
    n = 0
    for prop in (structured, raw):
        end = time.time() + budget() / 2
        while time.time() < end:
            prop()
            n += 200
    print(f"fuzz_report: {n} inputs, no exception but InputError")


if __name__ == "__main__":
    run()
