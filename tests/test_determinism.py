# SPDX-License-Identifier: GPL-2.0-or-later
"""Determinism benchmarks (bintime, response, sync): text lines, JSON,
bad input, and nothing left after each way of ending."""
import json
import re
from pathlib import Path
import signal
import time

import pytest

import rtlock

from conftest import measuring_tasks, run, running, stop, wait_busy, wait_for, watching

NUM = r"-?\d+(?:\.\d+)?"
BT_HEAD = re.compile(
    rf"^# bintime: \d+ CPU\(s\), SCHED_FIFO \d+, threshold \d+ us, clock "
    rf"(mono|tsc (\d+\.\d{{3}}) MHz \(calibrated: (\d+) windows of (\d+) ms, "
    rf"spread ({NUM}) ppm\))$")
BT_LINE = re.compile(
    rf"^CPU(\d+): reads (\d+), ({NUM}) ns/read, gap min (\d+) avg ({NUM}) "
    rf"p50 (\d+) p99 (\d+) p99\.99 (\d+) max (\d+) ns, blocking ({NUM}) ns, "
    rf"over (\d+) us: (\d+) \((\d+) ns\)$")
RESP_HEAD = re.compile(rf"^# response: work (\w+) calibrated to (\d+) ms: "
                       rf"(\d+) units of ({NUM}) ns"
                       rf"(?: \(64 KiB copies\)|"
                       rf" \(1024 butterflies of a (\d+)-point transform\))?$")
RESP_LINE = re.compile(
    rf"^work (\w+): blocks (\d+), min ({NUM}) avg ({NUM}) p50 ({NUM}) "
    rf"p99 ({NUM}) max ({NUM}) us, stddev ({NUM}) us \(({NUM}) %\), "
    rf"max/min ({NUM})$")
SERIES = rf"min ({NUM}) avg ({NUM}) p50 ({NUM}) p99 ({NUM}) max ({NUM})"
SYNC_HEAD = re.compile(r"^# sync: CPU \d+, SCHED_FIFO \d+$")
SYNC1 = re.compile(rf"^test 1 cost \((\w+)\): calls (\d+), {SERIES} ns$")
SYNC2 = re.compile(rf"^test 2 switch \((\w+), (threads|processes)\): "
                   rf"hand-offs (\d+), {SERIES} ns; round trip ({NUM}) ns, "
                   rf"context switch ({NUM}) ns$")
SYNC2_NONE = re.compile(r"^test 2 switch \((\w+), (threads|processes)\): "
                        r"hand-offs 0: stopped before the first$")
SYNC3 = re.compile(rf"^test 3 inversion \((none|inherit|protect), cs (\d+) us, "
                   rf"hog (\d+) ms\): rounds (\d+), {SERIES} us blocked; "
                   rf"bounded (\d+)/(\d+) \(<= (\d+) us\): (yes|no)"
                   rf"(?:, \d+ rounds skipped \(low task late\))?$")


def check_series(s, n=None):
    """A stats object: counts add up, order holds."""
    h = s["histogram"]
    total = h["underflow"] + h["overflow"] + sum(c for _, c in h["counts"])
    assert total == s["samples"]
    if n is not None:
        assert s["samples"] == n
    if s["samples"]:
        p = s["percentiles_ns"]
        assert s["min_ns"] <= s["avg_ns"] <= s["max_ns"]
        assert s["min_ns"] <= p["p50"] <= p["p99"] <= p["p99.99"] <= s["max_ns"]


def load(path, test):
    d = json.loads(path.read_text())
    assert d["file_version"] == 1 and d["rtlat"]["test"] == test
    assert "system" in d and "rt" in d and "sysinfo" in d
    return d


def invariant_tsc():
    """Only to decide the skip: the kernel's flag for an invariant TSC."""
    return "constant_tsc" in Path("/proc/cpuinfo").read_text()


def check_clock(d, h, clock):
    """The header and the JSON name the clock; tsc's calibration in both."""
    assert d["settings"]["clock"] == clock and h[1].split()[0] == clock
    if clock == "mono":
        assert "tsc" not in d
        return
    tsc = d["tsc"]
    assert tsc["hz"] / 1e6 == pytest.approx(float(h[2]), abs=0.001)
    assert 1e6 <= tsc["hz"] <= 1e11 and tsc["spread_ppm"] >= 0
    assert tsc["spread_ppm"] == pytest.approx(float(h[5]), abs=0.05)
    assert tsc["windows"] == int(h[3]) == 5
    assert tsc["window_ms"] == int(h[4]) == 20


@pytest.mark.parametrize("clock", [
    "mono", pytest.param("tsc", marks=pytest.mark.skipif(
        not invariant_tsc(), reason="no invariant TSC"))])
def test_bintime_lines_and_json(clock, tmp_path, leakcheck):
    js = tmp_path / "b.json"
    args = [] if clock == "mono" else ["--clock", clock]
    r = run(["bintime", "-a", "0-1", "-l", "200000", "--threshold", "5",
             "--json", str(js)] + args)
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    h = BT_HEAD.match(lines[0])
    assert h and len(lines) == 3, r.stdout
    ms = [BT_LINE.match(line) for line in lines[1:]]
    assert all(ms), lines
    assert [int(m[1]) for m in ms] == [0, 1]
    for m in ms:
        assert int(m[2]) == 200000
        assert int(m[4]) <= float(m[5]) <= int(m[9])
    d = load(js, "bintime")
    assert d["settings"]["threshold_us"] == 5 and d["return_code"] == 0
    check_clock(d, h, clock)
    for cpu in ("0", "1"):
        c = d["cpus"][cpu]
        check_series(c["gaps"], 200000)
        assert c["ns_per_read"] > 0
        assert c["blocking_ns"] == pytest.approx(
            c["gaps"]["max_ns"] - c["gaps"]["avg_ns"], abs=1)
        over = c["over_threshold"]
        assert over == 0 or c["over_threshold_total_ns"] > over * 5000
    leakcheck()


def test_bintime_duration_and_quiet(leakcheck):
    args = ["bintime", "-q", "-D", "1"]
    rtlock.run_starts(args)     # its wait for make check's lock is not the run's
    t0 = time.monotonic()
    r = run(args)
    assert r.returncode == 0, r.stderr
    assert 0.9 < time.monotonic() - t0 < 5
    lines = r.stdout.splitlines()
    assert len(lines) == 1 and BT_LINE.match(lines[0])
    leakcheck()


@pytest.mark.parametrize("args,opt", [
    (["--threshold", "0"], "--threshold"), (["-a", "99"], "--cpus"),
    (["-D", "10x"], "--duration"), (["-p", "100"], "--prio"), (["x"], "x"),
    (["--clock", "bogus"], "--clock")])
def test_bintime_bad_input(args, opt, leakcheck):
    r = run(["bintime"] + args)
    assert r.returncode == 2 and r.stdout == ""
    assert len(r.stderr.splitlines()) == 1 and opt in r.stderr
    leakcheck()


@pytest.mark.parametrize("work", ["add", "copy", "whetstone", "fft"])
def test_response_works(work, tmp_path, leakcheck):
    js = tmp_path / "r.json"
    r = run(["response", "--work", work, "--block", "2", "-l", "5",
             "--json", str(js)])
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    h, m = RESP_HEAD.match(lines[0]), RESP_LINE.match(lines[1])
    assert h and m and len(lines) == 2, r.stdout
    assert h[1] == work == m[1] and h[2] == "2" and int(m[2]) == 5
    d = load(js, "response")
    check_series(d["times"], 5)
    cal = d["calibration"]
    assert cal["units"] == int(h[3]) and cal["units"] >= 1
    assert (cal["copy_bytes"] > 0) == (work == "copy")
    assert d["max_min_ratio"] >= 1.0
    leakcheck()


@pytest.mark.parametrize("args,opt", [
    (["--block", "0"], "--block"), (["--work", "mul"], "--work"),
    (["-l", "-1"], "--loops"), (["-c", "64"], "--cpu")])
def test_response_bad_input(args, opt, leakcheck):
    r = run(["response"] + args)
    assert r.returncode == 2 and r.stdout == ""
    assert len(r.stderr.splitlines()) == 1 and opt in r.stderr
    leakcheck()


def test_sync_all_three(tmp_path, leakcheck):
    js = tmp_path / "s.json"
    r = run(["sync", "-l", "500", "--rounds", "5", "--hog", "2",
             "--json", str(js)])
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    assert SYNC_HEAD.match(lines[0]) and len(lines) in (4, 5), r.stdout
    m1, m2, m3 = SYNC1.match(lines[1]), SYNC2.match(lines[2]), SYNC3.match(lines[3])
    assert m1 and m2 and m3, r.stdout
    assert int(m1[2]) == 500 and int(m2[3]) == 500
    # The estimate printed is the design text's: round trip / 2 - test 1.
    assert float(m2[10]) == pytest.approx(float(m2[9]) / 2 - float(m1[4]), abs=0.2)
    d = load(js, "sync")
    check_series(d["cost"], 500)
    check_series(d["switch"]["handoff"], 500)
    check_series(d["inversion"]["blocking"])
    inv = d["inversion"]
    assert inv["bound_ns"] == (1000 + 500) * 1000
    assert inv["bounded"] == (inv["bounded_rounds"] == inv["blocking"]["samples"] > 0)
    assert d["settings"]["protocol"] == "inherit"
    leakcheck()


@pytest.mark.parametrize("typ", ["sysv", "named", "mutex"])
def test_sync_types(typ, leakcheck):
    args = ["sync", "--test", "switch", "--type", typ, "-l", "300"]
    if typ == "sysv":
        args.append("-f")
    r = run(args)
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    m = SYNC2.match(lines[2])
    assert SYNC1.match(lines[1])[1] == typ and m and m[1] == typ
    assert m[2] == ("processes" if typ == "sysv" else "threads")
    leakcheck()


@pytest.mark.parametrize("proto", ["none", "protect"])
def test_sync_inversion_protocols(proto, leakcheck):
    r = run(["sync", "--test", "inversion", "--protocol", proto,
             "--rounds", "3", "--hog", "2", "--cs", "200"])
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    m = SYNC3.match(lines[1])
    assert m and m[1] == proto and m[2] == "200" and m[3] == "2", r.stdout
    leakcheck()


@pytest.mark.parametrize("args,opt", [
    (["-f", "--test", "inversion"], "--fork"),
    (["--protocol", "ceiling"], "--protocol"),
    (["-p", "2"], "--prio"), (["--hog", "0"], "--hog"),
    (["--hog", "101"], "--hog"), (["--test", "4"], "--test")])
def test_sync_bad_input(args, opt, leakcheck):
    r = run(["sync"] + args)
    assert r.returncode == 2 and r.stdout == ""
    assert len(r.stderr.splitlines()) == 1 and opt in r.stderr
    leakcheck()


# Each test ended by each stop signal mid-run: its lines, valid JSON with
# return code 0, nothing left (semaphores, processes, temp files).
ENDLESS = {
    "bintime": ["bintime", "-D", "0"],
    "response": ["response", "--block", "5", "-l", "0"],
    "sync": ["sync", "--test", "switch", "--type", "sysv", "-f", "-l", "0"],
}


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM, signal.SIGHUP])
@pytest.mark.parametrize("test", sorted(ENDLESS))
def test_stopped_by_signal(test, sig, tmp_path, leakcheck):
    js = tmp_path / "x.json"
    with watching(ENDLESS[test] + ["--json", str(js)]) as p:
        p.measuring()
        rc, out, err = stop(p, sig)
    assert rc == 0, err
    assert out.splitlines(), out
    d = load(js, test)
    assert d["return_code"] == 0
    leakcheck()


def test_sync_inversion_stopped(tmp_path, leakcheck):
    js = tmp_path / "x.json"
    with watching(["sync", "--test", "inversion", "--rounds", "100000",
                   "--json", str(js)]) as p:
        p.measuring(r"blocking: [1-9]\d* samples")
        rc, out, err = stop(p, signal.SIGTERM)
    assert rc == 0, err
    assert SYNC3.match(out.splitlines()[1])
    assert load(js, "sync")["inversion"]["blocking"]["samples"] > 0
    leakcheck()


def sync2_stopped(line, js):
    """Test 2's summary line and JSON of a run stopped while test 2 ran:
    (type, mode). A stop before its first hand-off (a loaded machine can
    take longer than a test's wait to make one) still has its line,
    saying so, and null figures in the JSON; else the full line, its
    count the JSON's."""
    sw = load(js, "sync")["switch"]
    m = SYNC2.match(line)
    if m:
        assert int(m[3]) == sw["handoff"]["samples"] > 0, (line, sw["handoff"])
        assert sw["round_trip_ns"] > 0 and sw["context_switch_ns"] is not None
        return m[1], m[2]
    m = SYNC2_NONE.match(line)
    assert m, line
    assert sw["handoff"]["samples"] == 0, sw["handoff"]
    assert sw["round_trip_ns"] is None and sw["context_switch_ns"] is None
    return m[1], m[2]


@pytest.mark.parametrize("mode", [["--type", "sysv", "-f"], ["--type", "posix"]])
def test_sync_switch_stops_on_sigint_in_test_2(mode, tmp_path, leakcheck):
    """A stop signal while test 2 runs ends it at once with its summary.
    Test 1 pointed the stop signal at its own flag, and with -f test 2
    then ran on after SIGINT (found by the chaos test)."""
    js = tmp_path / "s.json"
    # Each test runs 3 s (-D): the stop must come long before test 2's end.
    with running(["sync", "--test", "switch", "-l", "0", "-D", "3",
                  "--json", str(js)] + mode) as p:
        # Test 1 is one thread, test 2 two (threads or processes): wait
        # until test 2's both have run. (Its SIGUSR1 status shows no
        # hand-off while it runs: reported, so no status is waited for.)
        wait_for(lambda: len(measuring_tasks(p.pid)) >= 3,
                 "test 2's threads", proc=p)
        wait_busy(p.pid, 2, proc=p)
        t0 = time.monotonic()
        rc, out, err = stop(p, signal.SIGINT)
    assert time.monotonic() - t0 < 2
    assert rc == 0, err
    lines = out.splitlines()
    assert len(lines) == 3, out
    assert sync2_stopped(lines[2], js)[1] == ("processes" if "-f" in mode else "threads")
    leakcheck()


TPUT = re.compile(rf"^pmq throughput: size (\d+) B, (threads|processes), "
                  rf"(\d+) pair\(s\): (\d+) msgs in ({NUM}) s, ({NUM}) msgs/s, "
                  rf"({NUM}) MB/s$")


@pytest.mark.parametrize("mode", [[], ["--fork"]])
def test_pmq_sizes_lines_and_json(mode, tmp_path, leakcheck):
    js = tmp_path / "t.json"
    r = run(["pmq", "--sizes", "8,64,4096", "-l", "3000", "--json", str(js)] + mode)
    assert r.returncode == 0, r.stderr
    ms = [TPUT.match(line) for line in r.stdout.splitlines()]
    assert len(ms) == 3 and all(ms), r.stdout
    assert [int(m[1]) for m in ms] == [8, 64, 4096]
    assert {m[2] for m in ms} == {"processes" if mode else "threads"}
    for m in ms:
        assert int(m[4]) == 3000
        # MB/s is printed with two decimals.
        assert float(m[7]) == pytest.approx(float(m[6]) * int(m[1]) / 1e6,
                                            rel=0.01, abs=0.006)
    d = load(js, "pmq")
    rows = d["throughput"]
    assert [e["size_bytes"] for e in rows] == [8, 64, 4096]
    for e in rows:
        assert e["messages"] == 3000 and e["seconds"] > 0
        assert e["messages_per_s"] == pytest.approx(3000 / e["seconds"])
        assert e["mb_per_s"] == pytest.approx(e["messages_per_s"] * e["size_bytes"] / 1e6)
    leakcheck()


def test_pmq_throughput_duration(leakcheck):
    args = ["pmq", "--throughput", "--size", "256", "-D", "1"]
    rtlock.run_starts(args)     # its wait for make check's lock is not the run's
    t0 = time.monotonic()
    r = run(args)
    assert r.returncode == 0, r.stderr
    assert 0.9 < time.monotonic() - t0 < 5
    m = TPUT.match(r.stdout.strip())
    assert m and m[1] == "256" and int(m[4]) > 0
    leakcheck()


@pytest.mark.parametrize("args", [["--sizes", "8,x"], ["--sizes", "0"],
                                  ["--sizes", "8,99999999"], ["--sizes", ""],
                                  ["--throughput", "-T", "1"]])
def test_pmq_throughput_bad_input(args, leakcheck):
    r = run(["pmq"] + args)
    assert r.returncode == 2 and r.stdout == ""
    assert len(r.stderr.splitlines()) == 1
    assert ("--sizes" in r.stderr) or ("--timeout" in r.stderr)
    leakcheck()


@pytest.mark.parametrize("mode", [[], ["--fork"]])
def test_pmq_sweep_stopped(mode, tmp_path, leakcheck):
    js = tmp_path / "t.json"
    with running(["pmq", "--sizes", "8,64,512", "-D", "10", "--json", str(js)] + mode) as p:
        # Throughput has no status series: its pair passing messages.
        wait_busy(p.pid, 2, proc=p)
        rc, out, err = stop(p, signal.SIGINT)
    assert rc == 0, err
    ms = [TPUT.match(line) for line in out.splitlines()]
    assert len(ms) == 1 and ms[0] and ms[0][1] == "8", out
    assert load(js, "pmq")["throughput"][0]["messages"] > 0
    leakcheck()
