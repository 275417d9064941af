# SPDX-License-Identifier: GPL-2.0-or-later
"""Fuzz rtlat-report's loader with hypothesis (make fuzz): for any bytes,
and for any JSON built from the keys rtlat's and rt-tests' files use,
and for the other tools' results it reads (rtla's and cyclictest -h's
text, jitterdebugger's JSON: recorded ones with their numbers and keys
changed), load_file either returns a result or raises the one InputError
(one line naming the file); never another exception, never a traceback. A result
it returns must also summarise (Test.headlines) without an exception, and
a histogram it holds go through the figures' arithmetic (the percentile
curve's points, the bins of the histogram plot) without one.

    FUZZ_S=30 .venv/bin/python fuzz/fuzz_report.py    # seconds to run
"""
import json
import os
import re
import sys
import tempfile
import time

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "report"))
from rtlat_report.io import InputError  # noqa: E402
from rtlat_report.read.rtlat import load_file  # noqa: E402
from rtlat_report.page import plots  # noqa: E402

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


# Recorded results of the other tools (tests/fixtures/report/tail).
TAIL = os.path.join(os.path.dirname(__file__), "..", "tests", "fixtures",
                    "report", "tail")
FOREIGN = [(name, open(os.path.join(TAIL, name), encoding="utf-8").read())
           for name in ("rtla-timerlat-hist.txt", "cyclictest-h.txt",
                        "jitterdebugger-results.json")]
# What a number or key of theirs becomes: huge, negative, not ASCII
# digits, not a number, gone.
TOKENS = st.integers(-2 ** 80, 2 ** 80).map(str) | st.sampled_from(
    ["", "-", "²", "٣", "1e400", "nan", "x", "0x10", " ", "\t", "\n", '"'])


def check(raw, suffix=".json"):
    with tempfile.NamedTemporaryFile("wb", suffix=suffix) as f:
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


@CFG
@given(st.sampled_from(FOREIGN), st.data())
def foreign(case, data):
    """Up to 4 of a recorded result's numbers (digit runs: figures, bins,
    CPUs, footers) replaced."""
    name, text = case
    for _ in range(data.draw(st.integers(1, 4))):
        spans = [m.span() for m in re.finditer(r"\d+", text)]
        a, b = spans[data.draw(st.integers(0, len(spans) - 1))]
        text = text[:a] + data.draw(TOKENS) + text[b:]
    check(text.encode(), os.path.splitext(name)[1])


def run():
    """Batches of 200 fresh examples each, a third of the time for each kind,
    until FUZZ_S seconds have passed."""
    n = 0
    for prop in (structured, raw, foreign):
        end = time.time() + budget() / 3
        while time.time() < end:
            prop()
            n += 200
    print(f"fuzz_report: {n} inputs, no exception but InputError")


if __name__ == "__main__":
    run()
