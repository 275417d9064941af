# SPDX-License-Identifier: GPL-2.0-or-later
"""Long runs (issues 33 and 34, the recording): every test's --timeline
and --largest in the JSON's shared format, the time line's steps adding
up to the run's samples and maximum, merging two by two past the cap,
the automatic --timeline of a long run, and memory that does not grow
with the run's length. The runs start together (one fixture) so the
file adds a few seconds, whatever the number of tests. No latency value
is asserted: only that the figures agree with each other."""
import json
import os
import shlex
import signal
import subprocess
import time

import pytest

from conftest import RTLAT, Watched, registry, run
from rtlat_report.read.rtlat import dist_from_stats

TL_COLUMNS = ["t_s", "wall", "n", "min_ns", "avg_ns", "max_ns", "p99_ns", "over"]
K = 64
CAP = 2


def measuring_tests():
    return [t for t in registry() if t["series"]]


def rss_kib(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    raise AssertionError("no VmRSS")


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    """Every test's short check run with --timeline 1s --largest K; the
    timer with a cap of 2 steps; a timer planned for 2 h (stopped early);
    a timer whose RSS is read twice. All at once."""
    d = tmp_path_factory.mktemp("longrun")
    procs = {}

    def launch(key, args, env=None, how=subprocess.Popen):
        path = d / f"{key}.json"
        kw = {} if how is Watched else {"stdout": subprocess.DEVNULL,
                                        "stderr": subprocess.PIPE, "text": True}
        p = how([RTLAT] + args + ["--json", str(path)], env=env, **kw)
        procs[key] = (p, path)
        return p

    for t in measuring_tests():
        launch(t["name"], [t["name"]] + shlex.split(t["check_args"]) +
               ["--timeline", "1s", "--largest", str(K)])
    launch("over", ["pmq", "-l", "200", "-q", "--max-latency", "3",
                    "--timeline", "1s", "--largest", "2048"])
    env = dict(os.environ, RTLAT_TIMELINE_CAP=str(CAP))
    launch("capped", ["timer", "-q", "-T", "4", "--timeline", "1s"], env=env)
    launch("long", ["timer", "-q", "-T", "2h", "--no-mlock"])
    rss = launch("rss", ["timer", "-q", "-T", "1h", "--no-mlock", "-c", "all",
                         "--timeline", "1s", "--largest", "2048"], how=Watched)
    rss.measuring()     # set up, warmed up, measuring
    first = rss_kib(rss.pid)
    time.sleep(2.5)     # RSS 2.5 s apart: the test
    second = rss_kib(rss.pid)
    for key in ("long", "rss"):
        procs[key][0].send_signal(signal.SIGINT)
    out = {}
    for key, (p, path) in procs.items():
        _, err = p.communicate(timeout=60)
        # "over": 3 when a sample exceeded --max-latency 3 (us)
        assert p.returncode in ((0, 3) if key == "over" else (0,)), f"{key}: {err}"
        with open(path) as f:
            out[key] = json.load(f)
    out["_rss"] = (first, second)
    return out


def fleet_figures(doc, series, thread, nthreads):
    """The run's own count and maximum of a series (thread), from the
    JSON's fleet records: per thread where the test reports threads."""
    fl = doc["fleet"]
    for r in fl.get("threads") or []:
        if r["series"] == series and r["thread"] == thread:
            return r["samples"], r["max_ns"]
    assert nthreads == 1, (series, thread)
    for r in fl["series"]:
        if r["series"] == series:
            return r["samples"], r["max_ns"]
    raise AssertionError(f"no fleet record of {series}")


@pytest.mark.parametrize("name", [t["name"] for t in measuring_tests()])
def test_timeline_adds_up_to_the_run(runs, name):
    doc = runs[name]
    tl = doc["timeline"]
    assert tl["columns"] == TL_COLUMNS
    assert tl["step_s"] == 1 and tl["merges"] == 0 and tl["cap"] == 10000
    assert tl["start_wall"].endswith("Z") and "T" in tl["start_wall"]
    assert isinstance(tl["start_monotonic_ns"], int)
    if "settings" in doc:   # the tests that write their settings
        assert doc["settings"]["timeline_s"] == 1
        assert doc["settings"]["largest"] == K
    series = tl["series"]
    assert series, "no series recorded"
    assert {s["series"] for s in series} <= set(
        next(t for t in registry() if t["name"] == name)["series"])
    for s in series:
        assert s["test"] == name and s["threshold_ns"] is None
        steps = s["steps"]
        same = [x for x in series if x["series"] == s["series"]]
        n, mx = fleet_figures(doc, s["series"], s["thread"], len(same))
        assert sum(st[2] for st in steps) == n, s["series"]
        if not n:
            continue
        full = [st for st in steps if st[2]]
        assert max(st[5] for st in full) == mx, s["series"]
        for i, st in enumerate(steps):
            assert len(st) == len(TL_COLUMNS) and st[0] == i * tl["step_s"]
            if st[2]:
                assert st[3] <= st[4] <= st[5] and st[3] <= st[6] <= st[5]
            else:
                assert st[3:7] == [None] * 4
            assert st[7] is None


@pytest.mark.parametrize("name", [t["name"] for t in measuring_tests()])
def test_largest_is_the_top_of_the_run(runs, name):
    doc = runs[name]
    lg = doc["largest"]
    assert lg["k"] == K and lg["columns"] == ["ns", "t_s", "cpu"]
    for s in lg["series"]:
        same = [x for x in lg["series"] if x["series"] == s["series"]]
        n, mx = fleet_figures(doc, s["series"], s["thread"], len(same))
        rows = s["rows"]
        assert s["seen"] == n
        assert len(rows) == min(K, n)
        assert [r[0] for r in rows] == sorted((r[0] for r in rows), reverse=True)
        if rows:
            assert rows[0][0] == mx
        for r in rows:
            assert r[1] >= 0 and (r[2] is None or r[2] >= 0)


def test_largest_rows_are_the_histograms_top(runs):
    """The K largest, in the histogram's buckets, are the histogram's top
    K samples bucket for bucket (the timer's per-CPU histograms)."""
    doc = runs["timer"]
    by_thread = {s["thread"]: s for s in doc["largest"]["series"]}
    for i, c in enumerate(doc["cpus"]):
        h = c["latency"]["histogram"]
        lay = dist_from_stats("latency", c["latency"]).layout
        limit = lay.origin_ns + lay.top_ns
        top, left = [], K
        if h["overflow"]:
            take = min(left, h["overflow"])
            top.append(("over", take))
            left -= take
        for b, cnt in sorted(h["counts"], reverse=True):
            if left <= 0:
                break
            take = min(left, cnt)
            top.append((b, take))
            left -= take
        rows = by_thread[i]["rows"]
        got = {}
        for r in rows:
            key = "over" if r[0] >= limit else lay.start(r[0])
            got[key] = got.get(key, 0) + 1
        assert got == dict(top)


def test_timeline_merges_two_by_two_past_the_cap(runs):
    doc = runs["capped"]
    tl = doc["timeline"]
    assert tl["cap"] == CAP
    assert tl["merges"] >= 1 and tl["step_s"] == 2 ** tl["merges"]
    for s in tl["series"]:
        assert len(s["steps"]) <= CAP
        n, mx = fleet_figures(doc, s["series"], s["thread"], len(tl["series"]))
        assert sum(st[2] for st in s["steps"]) == n
        assert max(st[5] for st in s["steps"] if st[2]) == mx
        assert [st[0] for st in s["steps"]] == \
            [i * tl["step_s"] for i in range(len(s["steps"]))]


def test_over_counts_the_samples_above_max_latency(runs):
    """With fewer samples than K, the largest rows are every sample: the
    steps' counts over --max-latency equal the rows above it."""
    doc = runs["over"]
    rows = {s["thread"]: s["rows"] for s in doc["largest"]["series"]}
    for s in doc["timeline"]["series"]:
        assert s["threshold_ns"] == 3000
        n = sum(st[2] for st in s["steps"])
        assert len(rows[s["thread"]]) == n
        assert sum(st[7] for st in s["steps"]) == \
            sum(1 for r in rows[s["thread"]] if r[0] > 3000)


def test_long_run_has_a_timeline_by_default(runs):
    assert runs["long"]["timeline"]["step_s"] == 60
    assert runs["long"]["settings"]["timeline_s"] == 60
    assert runs["long"]["largest"]["k"] == 2048
    # A short run has none unless asked; --timeline 0 is off.
    assert runs["capped"]["settings"]["timeline_s"] == 1


def test_short_run_and_timeline_0_have_none(tmp_path):
    for extra in ([], ["--timeline", "0", "--largest", "0"]):
        path = tmp_path / "t.json"
        r = run(["pmq", "-l", "20", "-q", "--json", str(path)] + extra)
        assert r.returncode == 0, r.stderr
        doc = json.loads(path.read_text())
        assert doc["timeline"] is None
        assert (doc["largest"] is None) == bool(extra)


def test_rss_does_not_grow_with_the_run(runs):
    """VmRSS of one run 2.5 s apart (steps of 1 s recorded, no mlockall
    prefaulting): what it keeps does not grow with its length."""
    first, second = runs["_rss"]
    assert second - first <= 256, f"VmRSS {first} -> {second} KiB"
    assert runs["rss"]["timeline"]["series"]


@pytest.mark.parametrize("args,option", [
    (["--timeline", "5x"], "--timeline"),
    (["--timeline", "-1"], "--timeline"),
    (["--largest", "-1"], "--largest"),
    (["--largest", "99999999"], "--largest"),
])
def test_bad_values_are_refused(args, option):
    r = run(["pmq", "-l", "1"] + args)
    assert r.returncode == 2
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and option in lines[0] and "accepted" in lines[0]


@pytest.mark.parametrize("name", [t["name"] for t in measuring_tests()])
def test_every_length_option_takes_7_days(name):
    """The length option is read before the unknown option after it: 7d is
    accepted (request: its samples per round for 7 days at 1 kHz)."""
    t = next(t for t in registry() if t["name"] == name)
    length = [t["length_option"], "7d"] if t["length_option"] else \
        ["--samples", str(7 * 86400 * 1000)]
    r = run([name] + length + ["--no-such-option"])
    assert r.returncode == 2
    assert "unknown option --no-such-option" in r.stderr, r.stderr
