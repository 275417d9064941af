# SPDX-License-Identifier: GPL-2.0-or-later
"""The timer's per-second counters (interrupts, softirqs, steal, CPU
pressure, the sampler's involuntary context switches) are context columns
of its time line (issue 33: one mechanism for all): each step and CPU
carries them beside its latency, they merge with the steps by the one
rule, the schema describes them and rtlat-report draws them."""
import copy
import json
import os
import subprocess
import sys

import jsonschema
import pytest

from conftest import FIXTURES, RTLAT, ROOT

sys.path.insert(0, str(ROOT / "report"))
from rtlat_report.read import rtlat as load  # noqa: E402

# The time line's part of the schema (test_schema.py validates every
# test's whole output, the timer's time line with its context included).
SCHEMA = json.loads((ROOT / "schema" / "rtlat.schema.json").read_text())
TIMELINE = jsonschema.Draft202012Validator(
    {"$defs": SCHEMA["$defs"], "$ref": "#/$defs/timeline"},
    format_checker=jsonschema.Draft202012Validator.FORMAT_CHECKER)
SECONDS = 3
CAP = 2


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    """A 3-s timer on every CPU with its default time line, and one with
    a time line of at most CAP steps (the debug knob), side by side."""
    d = tmp_path_factory.mktemp("ctx")
    procs = {}
    for key, env in (("all", None),
                     ("capped", dict(os.environ, RTLAT_TIMELINE_CAP=str(CAP)))):
        path = d / f"{key}.json"
        p = subprocess.Popen([RTLAT, "timer", "-q", "-T", str(SECONDS), "-c", "all",
                              "--json", str(path)], stdout=subprocess.DEVNULL,
                             stderr=subprocess.PIPE, text=True, env=env)
        procs[key] = (p, path)
    out = {}
    for key, (p, path) in procs.items():
        _, err = p.communicate(timeout=60)
        assert p.returncode == 0, err
        out[key] = (json.loads(path.read_text()), path)
    return out


def context(series):
    cols = series["context_columns"]
    return [dict(zip(cols, c), t_s=st[0], n=st[2])
            for st, c in zip(series["steps"], series["context"])]


def test_each_step_and_cpu_has_the_counters(runs):
    doc, _ = runs["all"]
    assert [e.message for e in TIMELINE.iter_errors(doc["timeline"])] == []
    assert "per_second" not in doc and all("per_second" not in c for c in doc["cpus"])
    tl = doc["timeline"]
    # The timer's short run keeps its 1-second record (on by default).
    assert tl["step_s"] == 1 and doc["settings"]["timeline_s"] == 1
    assert sorted(s["cpu"] for s in tl["series"]) == [c["cpu"] for c in doc["cpus"]]
    for s in tl["series"]:
        assert s["test"] == "timer"
        assert len(s["context"]) == len(s["steps"])
        rows = context(s)
        read = [r for r in rows if r["seconds"]]
        # Seconds 1..3 after the 1-s warm-up, one reading each.
        assert [r["t_s"] for r in read] == [1, 2, 3]
        for r in read:
            assert r["seconds"] == 1
            assert r["irqs"] >= 0 and r["softirq_TIMER"] >= 0
            assert r["involuntary_switches"] >= 0 and r["steal_ms"] >= 0
        for r in rows:
            if not r["seconds"]:    # no reading: nothing claimed
                assert set(r.values()) - {0, r["t_s"], r["n"]} <= {None}


def test_report_reads_the_counters_from_the_time_line():
    """rtlat-report's reading of them, from a recorded 3-s timer run on
    both CPUs (tests/fixtures/report/timer-cpus: the runs above are
    rtlat's side)."""
    t = load.load_file(str(FIXTURES / "timer-cpus" / "timer.json"))
    assert [s.t for s in t.layer] == [1, 2, 3]
    assert all(s.irqs is not None and s.softirqs is not None for s in t.layer)
    assert [name for name, _ in t.cpu_seconds] == \
        [f"CPU{c}" for c in range(len(t.cpu_seconds))]
    assert t.seconds and all(mn <= avg <= mx for _, mn, avg, mx in t.seconds)


def test_a_tiny_cap_keeps_the_whole_span(runs):
    doc, _ = runs["capped"]
    assert [e.message for e in TIMELINE.iter_errors(doc["timeline"])] == []
    tl = doc["timeline"]
    assert tl["cap"] == CAP and tl["merges"] >= 1
    assert tl["step_s"] == 2 ** tl["merges"]
    for s in tl["series"]:
        assert len(s["steps"]) <= CAP and len(s["context"]) == len(s["steps"])
        rows = context(s)
        # Every second's reading is there, in the coarser steps.
        assert sum(r["seconds"] for r in rows) == SECONDS
        assert rows[-1]["t_s"] + tl["step_s"] > SECONDS
        # The steps hold every sample, merged by the same rule.
        cpu = next(c for c in doc["cpus"] if c["cpu"] == s["cpu"])
        assert sum(r["n"] for r in rows) == cpu["latency"]["samples"]
        assert max(st[5] for st in s["steps"] if st[2]) == cpu["latency"]["max_ns"]
    # The schema refuses context without its column names, or a row
    # whose seconds is not a count.
    for spoil in (lambda s: s.pop("context_columns"),
                  lambda s: s["context"][0].__setitem__(0, -1)):
        bad = copy.deepcopy(tl)
        spoil(bad["series"][0])
        assert list(TIMELINE.iter_errors(bad))
