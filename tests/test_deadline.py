# SPDX-License-Identifier: GPL-2.0-or-later
"""rtlat deadline (and the compatible name cyclicdeadline): SCHED_DEADLINE
threads on this machine's kernel. The wake-up latency from each period's
start is measured, runtime overruns (SIGXCPU of SCHED_FLAG_DL_OVERRUN)
and deadline misses are counted, and the admission control's refusals
are each one line with the fix. The cyclicdeadline face's lines have the
real cyclicdeadline's shapes (rt-tests, run beside it). No latency value
is asserted: counts, shapes, keys and exit statuses only."""
import json
import os
import re
import shutil
import subprocess

import pytest

from conftest import RTLAT, run

REAL = shutil.which("cyclicdeadline")
needs_real = pytest.mark.skipif(REAL is None, reason="rt-tests' cyclicdeadline not installed")
NCPU = len(os.sched_getaffinity(0))


def deadline_ok():
    """SCHED_DEADLINE needs root (CAP_SYS_NICE) and a kernel with it."""
    return os.geteuid() == 0 and os.path.exists("/proc/sys/kernel/sched_rt_runtime_us")


needs_dl = pytest.mark.skipif(not deadline_ok(), reason="SCHED_DEADLINE needs root")


@needs_dl
def test_measures_the_wake_up_from_each_period_start(tmp_path, leakcheck):
    out = tmp_path / "dl.json"
    r = run(["deadline", "-D", "1", "-q", "--json", str(out)])
    assert r.returncode == 0, r.stderr
    d = json.loads(out.read_text())
    assert d["rtlat"]["test"] == "deadline"
    assert d["settings"]["test"] == "deadline"
    assert d["settings"]["period_us"] == 1000
    assert d["settings"]["runtime_us"] > 0
    # Every job counts, from the first: no warm-up said or recorded.
    assert d["settings"]["warmup_s"] == 0 and "warming up" not in r.stdout
    cpu = d["cpus"][0]
    # A job a period: about 1000 in 1 s; some, whatever the load.
    assert cpu["latency"]["samples"] > 10
    dl = cpu["deadline"]
    assert dl["jobs"] >= cpu["latency"]["samples"]
    for k in ("misses", "overruns"):
        assert isinstance(dl[k], int) and dl[k] >= 0
    assert re.search(r"^RTS\|", r.stdout, re.M), r.stdout
    assert re.search(r"^deadline: thread 0: \d+ jobs, \d+ deadline misses, "
                     r"\d+ runtime overruns$", r.stdout, re.M), r.stdout
    leakcheck()


@needs_dl
def test_a_job_longer_than_its_runtime_is_an_overrun(tmp_path):
    """-w busy-waits 6 ms a job on a 1 ms runtime: the kernel throttles it
    (its tick at the latest) and says so with SIGXCPU, each counted."""
    out = tmp_path / "dl.json"
    r = run(["deadline", "-D", "1", "-q", "-p", "20000", "-r", "1000",
             "-w", "6000", "--json", str(out)])
    assert r.returncode == 0, r.stderr
    dl = json.loads(out.read_text())["cpus"][0]["deadline"]
    assert dl["overruns"] > 0, dl
    # Throttled past its period, each such job ends after its deadline.
    assert dl["misses"] > 0, dl


@needs_dl
def test_more_bandwidth_than_admitted_is_one_line_with_the_fix(leakcheck):
    threads = 2 * NCPU + 1      # 90 % each: more than every CPU's 95 %
    r = run(["deadline", "-D", "1", "-q", "-t", str(threads), "-r", "900"])
    assert r.returncode == 1, r.stderr
    lines = [l for l in r.stderr.splitlines() if "SCHED_DEADLINE" in l]
    assert len(lines) == 1, r.stderr
    assert "EBUSY" in lines[0] and "sched_rt_runtime_us" in lines[0], lines
    leakcheck()


@needs_dl
@pytest.mark.skipif(NCPU < 2, reason="one CPU is its own root domain")
def test_a_thread_pinned_inside_a_wider_root_domain_is_explained():
    r = run(["deadline", "-D", "1", "-q", "-c", "1"])
    assert r.returncode == 1, r.stderr
    lines = [l for l in r.stderr.splitlines() if "SCHED_DEADLINE" in l]
    assert len(lines) == 1, r.stderr
    assert "EPERM" in lines[0] and "root domain" in lines[0], lines
    assert "cpuset" in lines[0], lines


@pytest.mark.parametrize("args,word", [
    (["-r", "2000", "-p", "1000"], "-r"),
    (["-d", "2000", "-p", "1000"], "-d"),
    (["-c", "0", "-t", "2"], "-t"),
])
def test_bad_parameters_are_refused_before_the_run(args, word):
    r = run(["deadline", "-D", "1"] + args)
    assert r.returncode == 2, r.stderr
    assert len(r.stderr.splitlines()) == 1 and word in r.stderr, r.stderr


def shapes(out):
    """Each line with its numbers (and their padding: widths follow the
    values) as N, cursor moves dropped."""
    out = re.sub(r"\x1b\[\d+[AB]", "\n", out)
    return {re.sub(r" *\d+", " N", l) for l in out.splitlines() if l.strip()}


@needs_real
@needs_dl
def test_the_face_prints_the_real_cyclicdeadlines_lines():
    """Short runs side by side on every CPU (-a with no list: no cpuset
    made): the same kinds of lines, values aside."""
    args = ["-q", "-D", "1", "-i", "4000", "-t", "2", "-a"]
    mine = subprocess.run(["cyclicdeadline"] + args, executable=RTLAT,
                          capture_output=True, text=True, timeout=60)
    real = subprocess.run([REAL] + args, capture_output=True, text=True,
                          timeout=60)
    assert mine.returncode == real.returncode == 0, mine.stderr
    assert shapes(mine.stdout) == shapes(real.stdout), (mine.stdout, real.stdout)
    t = [l for l in mine.stdout.splitlines() if l.startswith("T:")]
    assert len(t) == 2, mine.stdout
    assert re.match(r"^T: 0 \( *\d+\) I:4000 C: +\d+ Min: +\d+ Act: +\d+ "
                    r"Avg: +\d+ Max: +\d+$", t[0]), t
    assert " I:4500 " in t[1], t


REAL_JSON = os.path.join(os.path.dirname(__file__), "fixtures", "rt-tests",
                         "cyclicdeadline-2.40.json")


@needs_dl
def test_the_faces_json_is_the_real_cyclicdeadlines(tmp_path, leakcheck):
    """--json FILE in rt-tests 2.40 cyclicdeadline's layout (its
    rt_write_json, the recorded file): every key of the real tool's where
    it puts it, of the same type; the threads under thread.N with their
    cycles, min, max and avg in us. rtlat's own keys may be beside them."""
    with open(REAL_JSON) as f:
        real = json.load(f)
    out = tmp_path / "cd.json"
    r = subprocess.run(["cyclicdeadline", "-q", "-D", "1", "-i", "4000", "-t", "2",
                        "--json", str(out)], executable=RTLAT,
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    mine = json.loads(out.read_text())
    for k, v in real.items():
        assert k in mine and isinstance(mine[k], type(v)), (k, mine.get(k))
    assert mine["rt_test_version:"] == real["rt_test_version:"]
    assert mine["num_threads"] == 2 and mine["resolution_in_ns"] == 0
    assert sorted(mine["thread"]) == ["0", "1"]
    want = real["thread"]["0"]
    for t in mine["thread"].values():
        for k in want:
            assert isinstance(t[k], (int, float) if k == "avg" else int), (k, t)
        assert t["cycles"] > 0 and t["min"] <= t["max"]
        assert round(t["avg"], 2) == t["avg"]
    leakcheck()
