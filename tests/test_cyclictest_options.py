# SPDX-License-Identifier: GPL-2.0-or-later
"""Every option the installed cyclictest's own --help lists is accepted by
rtlat's cyclictest face (lab scripts written for cyclictest must not fail
with exit 2): done with its meaning, or, where it has none here, with one
warning line. The list of options is read from the real tool's --help,
so a new cyclictest option shows up here as a failure."""
import os
import re
import shutil
import subprocess

import pytest

from conftest import RTLAT, run, stop, wait_for

REAL = shutil.which("cyclictest")
pytestmark = pytest.mark.skipif(REAL is None, reason="rt-tests' cyclictest not installed")

# -h/--help is cyclictest's histogram (its own help is --help alone).
SHORT_LONG = re.compile(r"^(?:-(\w)\s+(?:\[?[A-Z]+\]?\s+)?)?\s*--([\w-]+)(?:[= ]\[?<?([\w ]+)>?\]?)?")
# A value each option takes here, and what it needs beside it.
VALUES = {
    "affinity": ["0"], "aligned": ["100"], "breaktrace": ["100000"],
    "clock": ["0"], "distance": ["100"], "duration": ["1"],
    "fifo": None, "histogram": ["50"], "histofall": ["50"],
    "histfile": None, "interval": ["1000"], "json": None,
    "latency": ["10"], "loops": ["20"], "mainaffinity": ["0"],
    "oscope": ["10"], "priority": ["80"], "policy": ["batch"],
    "secaligned": [], "spike": ["100000"], "spike-nodes": ["16"],
    "threads": ["1"],
}
NEEDS = {"histfile": ["-h", "50"], "tracemark": ["-b", "100000"],
         "oscope": ["-v"], "spike-nodes": ["--spike", "100000"]}
LEFT = {"smi"}      # SMI counting: another change's (issue 47, i45-hw)


def help_options():
    out = subprocess.run([REAL, "--help"], capture_output=True, text=True).stdout
    opts = []
    for line in out.splitlines():
        m = SHORT_LONG.match(line.strip())
        if m and m.group(2) not in ("help",):
            opts.append((m.group(1), m.group(2)))
    return opts


OPTIONS = help_options() if REAL else []


def test_the_help_was_read():
    names = {long for _, long in OPTIONS}
    assert {"latency", "aligned", "secaligned", "fifo", "refresh_on_max",
            "verbose", "resolution", "policy", "system"} <= names, names


def argv_for(long, tmp_path):
    if long == "fifo":
        return [f"--fifo={tmp_path}/ct.fifo"]
    if long == "histfile":
        return ["-h", "50", f"--histfile={tmp_path}/h.txt"]
    if long == "json":
        return [f"--json={tmp_path}/r.json"]
    vals = VALUES.get(long, [])
    # Options with an optional argument take it attached, as getopt does.
    if long in ("secaligned", "affinity", "threads") and vals:
        return [f"--{long}={vals[0]}"]
    return NEEDS.get(long, []) + [f"--{long}"] + (vals or [])


@pytest.mark.parametrize("short,long", [o for o in OPTIONS if o[1] not in LEFT],
                         ids=[o[1] for o in OPTIONS if o[1] not in LEFT])
def test_each_option_of_cyclictests_help_is_accepted(short, long, tmp_path):
    args = argv_for(long, tmp_path)
    base = ["-q", "-i", "1000"] + ([] if long in ("loops", "duration") else ["-l", "20"])
    r = run(["cyclictest"] + base + args, timeout=60)
    assert r.returncode == 0, (args, r.returncode, r.stderr)
    warned = [l for l in r.stderr.splitlines() if "not" in l and long in l]
    assert len(warned) <= 1, r.stderr


def test_latency_writes_its_value_and_holds_it():
    r = run(["cyclictest", "-q", "-l", "20", "--latency", "10"])
    assert r.returncode == 0, r.stderr
    assert r.stdout.splitlines()[0] == "# /dev/cpu_dma_latency set to 10us", r.stdout


def test_verbose_prints_every_sample_in_cyclictests_format():
    r = run(["cyclictest", "-v", "-l", "50", "-t", "2", "-i", "1000"])
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    rows = [l for l in lines if re.fullmatch(r" *\d+: *\d+: *\d+", l)]
    # Every line but the first (the cpu_dma_latency line) is a sample.
    assert len(rows) == len(lines) - 1, r.stdout
    per = {}
    for l in rows:
        t, c, _ = (int(x) for x in l.split(":"))
        per.setdefault(t, []).append(c)
    # cyclictest's "n:c:v": thread, its cycle from 0 in order, value in us;
    # the run ends when the first thread has its -l (which one: the load's).
    assert set(per) <= {0, 1}, per.keys()
    for cycles in per.values():
        assert cycles == list(range(len(cycles))), cycles
    assert max(len(c) for c in per.values()) == 50, {t: len(c) for t, c in per.items()}


def test_fifo_is_a_named_pipe_for_the_run(tmp_path):
    path = tmp_path / "ct.fifo"
    r = run(["cyclictest", "-q", "-l", "200", f"--fifo={path}"])
    assert r.returncode == 0, r.stderr
    assert not path.exists(), "the pipe is the run's: removed at its end"


def test_policy_batch_runs_the_threads_sched_batch():
    r = run(["cyclictest", "--policy=batch", "-l", "20"])
    assert r.returncode == 0, r.stderr
    assert re.search(r"^policy: batch", r.stdout, re.M), r.stdout


def idle_disabled(cpu):
    """{state: disabled} of a CPU's cpuidle states (empty: no cpuidle)."""
    d = f"/sys/devices/system/cpu/cpu{cpu}/cpuidle"
    if not os.path.isdir(d):
        return {}
    return {s: open(f"{d}/{s}/disable").read().strip() == "1"
            for s in sorted(os.listdir(d)) if s.startswith("state")}


def test_deepest_idle_state_limits_the_threads_cpus_for_the_run():
    """--deepest-idle-state 0 (cyclictest 2.4+): the states deeper than
    state0 disabled on the thread's CPU while it runs, as they were after."""
    before = idle_disabled(0)
    deeper = [s for s in before if s != "state0" and not before[s]]
    if not deeper or not os.access(f"/sys/devices/system/cpu/cpu0/cpuidle/{deeper[0]}/disable",
                                   os.W_OK):
        pytest.skip("no deeper idle state to disable on CPU 0 here")
    p = subprocess.Popen([RTLAT, "cyclictest", "-q", "-a", "0", "-l", "100000",
                          "--deepest-idle-state", "0"], stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True)
    try:
        wait_for(lambda: idle_disabled(0)[deeper[0]], "the idle state disabled", proc=p)
    finally:
        rc, _, err = stop(p)
    assert rc == 0, err
    assert idle_disabled(0) == before
