# SPDX-License-Identifier: GPL-2.0-or-later
"""A CPU that could not be measured is a failure (issue 45, item 1).

Each test starts a hog of its own that can never escape: a SCHED_FIFO 95
busy loop pinned to CPU 1 under a hard RLIMIT_RTTIME (the kernel kills it
after HOG_RTTIME_S of CPU), killed by PID when the test ends, while the
test itself (its killer) runs on CPU 0. rtlat's samplers run at FIFO 50,
below it, so the sampler on CPU 1 cannot run while the hog does."""
import json
import os
import re
import shutil
import signal
import subprocess
import time
from pathlib import Path

import pytest

from conftest import RTLAT, wait_for, watching

HOG_CPU = 1
HOG_PRIO = 95
HOG_RTTIME_S = 6
STALL_S = 1.0           # max(1 s, 100 intervals of -p 100 us)
# Each hog holds CPU 1 from every real-time thread below 95: no other
# make check group's test runs beside it (tests/rtlock.py).
pytestmark = pytest.mark.rt_hog

HOG = "import sys\nprint('ready', flush=True)\nwhile True:\n    pass\n"

# The hog's tests (the report's needs none of this).
needs_hog = pytest.mark.skipif(
    os.geteuid() != 0 or not {0, 1} <= os.sched_getaffinity(0) or
    not all(shutil.which(x) for x in ("prlimit", "taskset", "chrt")),
    reason="needs root (SCHED_FIFO), CPUs 0 and 1, prlimit, taskset and chrt")


@pytest.fixture
def on_cpu0():
    """The test process (the hog's killer) on CPU 0 while the hog runs on
    CPU 1; what it starts gets every CPU back (all_cpus)."""
    before = os.sched_getaffinity(0)
    ALLOWED[:] = sorted(before)
    os.sched_setaffinity(0, {0})
    try:
        yield
    finally:
        os.sched_setaffinity(0, before)


ALLOWED = []


def all_cpus():
    """In a child before it executes: the CPUs the test had."""
    os.sched_setaffinity(0, ALLOWED)


class Hog:
    """The busy loop: started, ready (it said so from CPU 1 at FIFO 95),
    and always killed by PID."""

    def __enter__(self):
        us = HOG_RTTIME_S * 1000000
        self.p = subprocess.Popen(
            ["prlimit", f"--rttime={us}:{us}", "taskset", "-c", str(HOG_CPU),
             "chrt", "-f", str(HOG_PRIO), "python3", "-c", HOG],
            stdout=subprocess.PIPE, text=True)
        try:
            assert self.p.stdout.readline() == "ready\n"
        except BaseException:
            self.__exit__()
            raise
        self.at = time.monotonic()
        return self

    def __exit__(self, *exc):
        if self.p.poll() is None:
            os.kill(self.p.pid, signal.SIGKILL)
        self.p.wait()


def rtlat_timer(d, *extra):
    return ["timer", "-c", "all", "-P", "50", "-q", "--json", str(d / "t.json"),
            "--junit", str(d / "t.xml"), "--lava", *extra]


def check_outputs(d, out):
    """CPU 1's verdict is error in the JSON, the JUnit and the LAVA lines,
    and the run's too: never pass, never skip."""
    j = json.loads((d / "t.json").read_text())
    fl = j["fleet"]
    assert fl["verdict"] == "error"
    # -c all: thread i is CPU i's sampler (its "cpu" is -1 once it was
    # moved off CPU 1 to end: its figures are not CPU 1's alone)
    cpu1 = [t for t in fl["threads"] if t["thread"] == HOG_CPU]
    assert cpu1 and cpu1[0]["cpu"] in (HOG_CPU, -1), fl["threads"]
    assert all(t["result"] == "error" for t in cpu1), fl["threads"]
    # CPU 0, measured all along, is judged as ever
    assert [t["result"] for t in fl["threads"] if t["cpu"] == 0] == ["pass"]
    assert all("could not be measured" in t["error"] for t in cpu1)
    assert all(s["result"] == "error" for s in fl["series"])
    assert j["return_code"] == 1
    xml = (d / "t.xml").read_text()
    assert re.search(r'<error type="starved" message="CPU 1 could not be measured', xml)
    assert 'errors="0"' not in xml.split("<testsuite ", 2)[1].split(">")[0]
    t = HOG_CPU
    assert re.search(rf"^# timer-latency t{t}: error: CPU 1 could not be measured",
                     out, re.M)
    assert f"lava-test-case timer-t{t}-latency --result fail" in out
    assert "lava-test-case timer-run --result fail" in out


def verdicts(d, rc, err):
    """What a failed assertion shows: the exit status and the verdicts."""
    try:
        fl = json.loads((d / "t.json").read_text())["fleet"]
        got = [fl["verdict"]] + [(t["cpu"], t["result"]) for t in fl["threads"]]
    except (OSError, ValueError, KeyError) as e:
        got = repr(e)
    return f"exit {rc}, verdicts {got}: {err[-2000:]}"


@needs_hog
def test_starved_cpu_is_an_error_said_as_it_happens(tmp_path, on_cpu0):
    """`rtlat timer -c all` with a hog holding CPU 1: one line names the
    hog (its PID and policy) as the stall passes, and the run ends with
    exit 1 within 2 s of the stall threshold, CPU 1's verdict error in
    every output (before issue 45: exit 0 and "pass", CPU 1 "skip")."""
    with watching(rtlat_timer(tmp_path, "-T", "8"), preexec_fn=all_cpus) as w:
        w.measuring(r"\(CPU 1\): [1-9]\d* samples")
        with Hog() as hog:
            out, err = w.communicate(timeout=30)
            ended = time.monotonic()
    assert w.returncode == 1, verdicts(tmp_path, w.returncode, err)
    assert ended - (hog.at + STALL_S) < 2.0, err
    line = re.search(r"CPU 1 could not be measured: its thread .*", err).group(0)
    assert f"PID {hog.p.pid} (python3) SCHED_FIFO {HOG_PRIO}" in line
    assert len(re.findall(r"CPU 1 could not be measured: its thread", err)) == 1
    check_outputs(tmp_path, out)


@needs_hog
def test_starved_worker_process_is_an_error_too(tmp_path, on_cpu0):
    """The watch covers the run's child processes: pmq --fork's pair on
    CPU 1 (two processes) starved by the hog is an error the same way
    (before issue 45: exit 0, "pass")."""
    js = tmp_path / "p.json"
    with watching(["pmq", "--fork", "-a", "1", "-p", "50", "-D", "8", "-q",
                   "--json", str(js)], preexec_fn=all_cpus) as w:
        w.measuring(r"\(CPU 1\): [1-9]\d* samples")
        with Hog() as hog:
            out, err = w.communicate(timeout=30)
            ended = time.monotonic()
    fl = json.loads(js.read_text())["fleet"]
    assert w.returncode == 1, f"exit {w.returncode}, {fl['verdict']}: {err[-2000:]}"
    assert ended - (hog.at + STALL_S) < 2.0, err
    assert f"PID {hog.p.pid} (python3) SCHED_FIFO {HOG_PRIO}" in err
    assert fl["verdict"] == "error"
    assert [t["result"] for t in fl["series"] + fl["threads"]] == ["error"] * 2


def starved_sampler(pid):
    """rtlat's sampler on CPU 1, once it is runnable and has not run since
    the last look (the hog holds its CPU): its thread id, or None."""
    for task in Path(f"/proc/{pid}/task").iterdir():
        try:
            st = (task / "stat").read_text()
            status = (task / "status").read_text()
        except OSError:
            continue
        if not re.search(rf"^Cpus_allowed_list:\s+{HOG_CPU}$", status, re.M):
            continue
        state = st.rsplit(")", 1)[1].split()[0]
        ran = (task / "schedstat").read_text().split()[0]
        seen = starved_sampler.last.get(task.name)
        starved_sampler.last[task.name] = ran
        if state == "R" and seen == ran:
            return int(task.name)
    return None


starved_sampler.last = {}


@needs_hog
def test_sigint_during_the_stall_ends_the_run(tmp_path, on_cpu0):
    """SIGINT while the sampler of CPU 1 cannot run (before the stall is
    said): the run ends in under 3 s, its outputs written with what it
    measured and CPU 1 marked (before issue 45: the run waited for the
    hog to let the sampler run, here until the kernel killed it)."""
    with watching(rtlat_timer(tmp_path, "-T", "8"), preexec_fn=all_cpus) as w:
        w.measuring(r"\(CPU 1\): [1-9]\d* samples")
        with Hog():
            starved_sampler.last = {}
            wait_for(lambda: starved_sampler(w.pid), "rtlat's sampler on CPU 1 "
                     "runnable and not running", proc=w, every=0.05)
            sent = time.monotonic()
            w.send_signal(signal.SIGINT)
            out, err = w.communicate(timeout=20)
            assert time.monotonic() - sent < 3.0, \
                verdicts(tmp_path, w.returncode, err)
    assert w.returncode == 1, verdicts(tmp_path, w.returncode, err)
    assert "CPU 1 could not be measured" in err
    check_outputs(tmp_path, out)


@needs_hog
def test_doctor_names_a_busy_real_time_task(tmp_path, on_cpu0):
    """rtlat doctor on the CPUs it would measure: the hog is named with
    its PID, policy, priority and CPU, and the fix; real time is
    prevented there (exit 1)."""
    with Hog() as hog:
        r = subprocess.run([RTLAT, "doctor", "-c", "0-1", "--json",
                            str(tmp_path / "d.json")], capture_output=True,
                           text=True, timeout=30, preexec_fn=all_cpus)
    assert r.returncode == 1, r.stderr
    line = next(x for x in r.stdout.splitlines() if x.startswith("busy real-time tasks"))
    assert "prevents real-time" in line
    assert f"PID {hog.p.pid} (python3) SCHED_FIFO {HOG_PRIO}" in line
    assert f"of CPU {HOG_CPU}" in line
    check = next(c for c in json.loads((tmp_path / "d.json").read_text())["checks"]
                 if c["check"] == "rt_hogs")
    assert check["verdict"] == "prevents real-time"
    assert "chrt" in check["fix"] and "taskset" in check["fix"]


STARVED = ("CPU 1 could not be measured: its thread did not run for 1.0 s, "
           "held by PID 4242 (hog) SCHED_FIFO 95, 99.5 % of CPU 1")


def starved_file(tmp_path):
    """A recorded timer -c 0,1 run (tests/fixtures/report/timer-cpus) as
    rtlat writes it when CPU 1 could not be measured: CPU 1's record and
    the whole series "error" with the reason, the run's verdict error,
    exit 1; its figures are those measured (CPU 1 had samples)."""
    from conftest import fixture_json
    d = fixture_json("timer-cpus", "timer.json")
    d["return_code"] = 1
    fl = d["fleet"]
    fl["verdict"] = "error"
    for rec in fl["series"] + [t for t in fl["threads"] if t["cpu"] == 1]:
        rec["result"], rec["error"] = "error", STARVED
    f = tmp_path / "timer.json"
    f.write_text(json.dumps(d))
    return f, d


def test_report_never_passes_a_starved_cpu(tmp_path):
    """rtlat-report on such a file: the summary says ERROR with the
    reason, the page's verdict items have it as ERROR (a failure, never
    a pass nor "no sample was measured"), SQUAD's cases of CPU 1 fail,
    and a suite's judgement keeps the error over its figures."""
    from conftest import report
    from rtlat_report.export.squad import record_cases
    from rtlat_report.judge.overall import judged_items
    from rtlat_report.judge.suite import judged
    from rtlat_report.read.rtlat import load_input
    f, d = starved_file(tmp_path)
    r = report("summary", f, here=True)
    assert r.returncode == 0, r.stderr
    assert f"timer (timer): ERROR: latency: {STARVED}" in r.stdout
    items = judged_items([load_input(str(f), "timer")])
    err = [j for j in items if j.verdict == "ERROR"]
    assert err and all(j.failed and j.detail == STARVED for j in err)
    assert not any(j.verdict == "PASS" for j in items)
    cpu1 = next(t for t in d["fleet"]["threads"] if t["cpu"] == 1)
    cases = record_cases(cpu1)
    assert cases and all(c[1] == "fail" for c in cases), cases
    assert cases[-1][3] == STARVED
    suite = {"series": [dict(s, result="pass") for s in d["fleet"]["series"]],
             "threads": [dict(cpu1)]}
    out = judged(d, suite)
    assert out["fleet"]["verdict"] == "error"
    assert next(t for t in out["fleet"]["threads"] if t["cpu"] == 1)["error"] == STARVED
