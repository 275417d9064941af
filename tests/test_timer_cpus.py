# SPDX-License-Identifier: GPL-2.0-or-later
"""rtlat timer -c LIST|all: a sampler per CPU. One CPU keeps Xenomai's text
byte for byte; several name the CPU on each RTD/RTS line, end with a line
for all of them and the worst CPU, write a histogram block per CPU, a
histfile column per CPU and cpus[] in the JSON (the top level stays the
whole). Never a latency value."""
import json
import os
import re

import pytest

from conftest import run
from test_timer import BANNER, DASH, RTD, RTH, RTS, RTT, HSH, check_fixed_width

NCPU = os.cpu_count() or 1
TAG = re.compile(r"^(RT[DS]\|.*)\|CPU(\d+)$")
ALL = re.compile(r"^(RTS\|.*)\|all, worst CPU(\d+)$")

pytestmark = pytest.mark.skipif(NCPU < 2, reason="needs two online CPUs")


@pytest.fixture(scope="module")
def multi(tmp_path_factory):
    d = tmp_path_factory.mktemp("cpus")
    r = run(["timer", "-T", "2", "-c", "all", "-l", "0", "-s",
             "--histfile", str(d / "h.txt"), "--json", str(d / "t.json")])
    return {"r": r, "lines": r.stdout.splitlines(),
            "hist": (d / "h.txt").read_text().splitlines(),
            "json": json.loads((d / "t.json").read_text())}


def test_lines_name_their_cpu(multi):
    r, lines = multi["r"], multi["lines"]
    assert r.returncode == 0, r.stderr
    cpus = ",".join(str(c) for c in range(NCPU))
    assert lines[:5] == BANNER[:2] + [f"== CPUs: {cpus} (a sampler on each)"] + BANNER[2:]
    rtd = [TAG.match(l) for l in lines if l.startswith("RTD|")]
    assert all(rtd) and len(rtd) == 2 * NCPU
    for m in rtd:
        assert RTD.match(m[1]), m[0]
        check_fixed_width(m[1])
    assert sorted(int(m[2]) for m in rtd) == sorted(list(range(NCPU)) * 2)
    # Per CPU an -s block, then the dashes, an RTS per CPU and the whole.
    assert [l for l in lines if re.fullmatch(r"== CPU\d+", l)] == [f"== CPU{c}" for c in range(NCPU)]
    assert lines.count(HSH) == NCPU
    tail = lines[-(NCPU + 2):]
    assert tail[0] == DASH
    for c, l in enumerate(tail[1:-1]):
        m = TAG.match(l)
        assert m and int(m[2]) == c and RTS.match(m[1]), l
    m = ALL.match(tail[-1])
    assert m and RTS.match(m[1]), tail[-1]
    assert int(m[2]) == multi["json"]["worst_cpu"]


def test_json_has_every_cpu_and_the_whole(multi):
    d = multi["json"]
    assert d["settings"]["cpus"] == list(range(NCPU))
    assert d["settings"]["cpu"] == 0
    assert [c["cpu"] for c in d["cpus"]] == list(range(NCPU))
    assert d["latency"]["samples"] == sum(c["latency"]["samples"] for c in d["cpus"])
    assert d["overruns"] == sum(c["overruns"] for c in d["cpus"])
    assert d["latency"]["max_ns"] == max(c["latency"]["max_ns"] for c in d["cpus"])
    assert d["latency"]["min_ns"] == min(c["latency"]["min_ns"] for c in d["cpus"])
    worst = max(d["cpus"], key=lambda c: c["summary"]["max_ns"])
    assert d["worst_cpu"] == worst["cpu"]
    for c in d["cpus"]:
        assert c["summary"]["actual_s"] == 2 and c["seconds"]["full"] == 2
    assert d["summary"]["max_ns"] == max(c["summary"]["max_ns"] for c in d["cpus"])


def test_histfile_has_a_column_per_cpu(multi):
    h, d = multi["hist"], multi["json"]
    assert h[0] == "# Histogram"
    assert h[-1] == ""      # cyclictest ends it with an empty line
    h = h[:-1]
    rows = [l for l in h if not l.startswith("#")]
    assert all(re.fullmatch(r"\d{6} \d{6}(\t\d{6})" + "{%d}" % (NCPU - 1), l) for l in rows)
    totals = next(l for l in h if l.startswith("# Total:")).split()[2:]
    overs = next(l for l in h if l.startswith("# Histogram Overflows:")).split()[3:]
    assert len(totals) == len(overs) == NCPU
    # The histfile's rows end at 2 ms: what is past them is its own
    # overflow column (the JSON's histogram now goes on to 100 s, and its
    # "overflow" is only what is past that, issue 49).
    for c, (t, over) in enumerate(zip(totals, overs)):
        assert int(t) + int(over) == d["cpus"][c]["latency"]["samples"]
    assert h[-NCPU:] == [f"# Thread {c}:" for c in range(NCPU)]


def test_one_cpu_keeps_xenomai_text():
    r = run(["timer", "-T", "1", "-c", "1"])
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    assert lines[:4] == BANNER
    assert RTT.match(lines[4]) and lines[5] == RTH and RTD.match(lines[6])
    assert lines[-2] == DASH and RTS.match(lines[-1])
    assert not any("CPU" in l for l in lines)


def usable_text():
    """This process's CPUs as rtlat names them: "0-3,6"."""
    cpus, parts = sorted(os.sched_getaffinity(0)), []
    for c in cpus:
        if parts and parts[-1][1] == c - 1:
            parts[-1][1] = c
        else:
            parts.append([c, c])
    return ",".join(f"{a}-{b}" if b > a else f"{a}" for a, b in parts)


@pytest.mark.parametrize("args,accepted", [
    (["-c", "0,0-99"], "online CPUs (%s), or all" % usable_text()),
    (["-c", "one"], "online CPUs, or all"),
])
def test_bad_cpu_lists(tmp_path, args, accepted):
    r = run(["timer", "-T", "1"] + args, cwd=tmp_path)
    assert r.returncode == 2
    assert len(r.stderr.splitlines()) == 1
    assert "-c" in r.stderr and accepted in r.stderr
    assert r.stdout == "" and os.listdir(tmp_path) == []


def on_last_cpu():
    """Run a child on the last CPU only, as `taskset -c N` would."""
    last = max(os.sched_getaffinity(0))
    return last, (lambda: os.sched_setaffinity(0, {last}))


@pytest.mark.parametrize("args,key", [
    (["timer", "-c", "all", "-T", "1", "-q"], "timer"),
    (["cyclictest", "-S", "-l", "20", "-i", "1000", "-q"], "cyclictest"),
    (["cyclictest", "-a", "-t", "-l", "20", "-i", "1000", "-q"], "cyclictest"),
    (["pmq", "-S", "-l", "20", "-i", "1000", "-q"], "pair"),
], ids=["timer-all", "cyclictest-S", "cyclictest-a-t", "pmq-S"])
def test_every_cpu_means_the_cpus_it_may_use(tmp_path, args, key):
    """Under taskset (or a cpuset), "every CPU" is the CPUs the process may
    run on, as cyclictest -S takes them: one thread on the one CPU left,
    not a thread per online CPU pinned where it may not run."""
    last, pin = on_last_cpu()
    f = tmp_path / "r.json"
    r = run(args + ["--json", str(f)], preexec_fn=pin)
    assert r.returncode == 0, r.stderr
    d = json.loads(f.read_text())
    if key == "timer":
        assert [c["cpu"] for c in d["cpus"]] == [last]
    elif key == "cyclictest":
        assert d["num_threads"] == 1 and d["thread"]["0"]["cpu"] == last
    else:
        assert d["num_threads"] == 1 and d["thread"]["0"]["receiver"]["cpu"] == last
