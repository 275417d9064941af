# SPDX-License-Identifier: GPL-2.0-or-later
"""Issue 30, items 7 and 8: rtlat timer attacked. A CPU listed twice in
-c (two samplers labelled with one CPU) and a list past the CPUs there
can be are bad input; a CPU of -c taken offline during the run is said,
recorded and an error, never reported as that CPU's. Two runs of -t 2 at
once: the second is refused (the tracer is taken), and the tracer's
settings are exactly what they were when both have ended. Never a
latency value."""
import contextlib
import json
import os
import time
from pathlib import Path

import pytest

from conftest import RTLAT, in_mount_ns, run, running, stop

NCPU = os.cpu_count() or 1


@pytest.mark.parametrize("cpus,twice", [
    ("1,1,1", 1), ("0-1,1", 1), ("0," * 1023 + "0", 0)],
    ids=["1,1,1", "0-1,1", "1024 zeros"])
def test_cpu_listed_twice_is_bad_input(tmp_path, leakcheck, cpus, twice):
    if NCPU < 2 and twice:
        pytest.skip("needs CPU 1")
    js = tmp_path / "t.json"
    r = run(["timer", "-c", cpus, "-T", "1", "-q", "--json", str(js)], cwd=tmp_path)
    assert (r.returncode, r.stdout) == (2, ""), r.stderr
    err = r.stderr.splitlines()
    assert len(err) == 1, r.stderr
    assert err[0].startswith("rtlat timer: option -c: ")
    assert f"CPU {twice} is listed twice" in err[0] and "accepted:" in err[0]
    assert os.listdir(tmp_path) == []
    leakcheck()


def test_cpu_list_past_every_cpu_is_bad_input(tmp_path, leakcheck):
    """More entries than a cpu_set_t holds: one short line naming -c and
    the limit, not the 2 KB list echoed back."""
    r = run(["timer", "-c", "0," * 1024 + "0", "-T", "1", "-q"], cwd=tmp_path)
    assert (r.returncode, r.stdout) == (2, ""), r.stderr
    err = r.stderr.splitlines()
    assert len(err) == 1 and len(err[0]) < 200, r.stderr
    assert err[0].startswith("rtlat timer: option -c: ")
    assert "more than 1024 CPUs" in err[0] and "accepted:" in err[0]
    assert os.listdir(tmp_path) == []
    leakcheck()


def test_cyclictest_affinity_keeps_repeats():
    """cyclictest's -a is a CPU set, its threads placed in turn on it: a
    repeat there stays accepted, as cyclictest's own."""
    r = run(["cyclictest", "-a", "0,0", "-t", "2", "-l", "5", "-q"])
    assert r.returncode == 0, r.stderr


CPU1_ONLINE = Path("/sys/devices/system/cpu/cpu1/online")


@contextlib.contextmanager
def cpu1_offline():
    """CPU 1 offline for the with-block, online again whatever happens."""
    try:
        CPU1_ONLINE.write_text("0")
    except OSError as e:
        pytest.skip(f"cannot take CPU 1 offline: {e}")
    try:
        yield
    finally:
        for _ in range(50):
            try:
                CPU1_ONLINE.write_text("1")
                break
            except OSError:
                time.sleep(0.1)


def test_cpu_taken_offline_is_said_and_an_error(tmp_path, leakcheck):
    """timer -c 1 with CPU 1 taken offline mid-run: the kernel moves the
    sampler elsewhere. The run says so in one line, stops that sampler,
    marks its cpus[] entry (not CPU 1's figures any more) and exits 1.
    Takes CPU 1 away for well under a second: run rarely."""
    if NCPU < 2 or not CPU1_ONLINE.exists() or not os.access(CPU1_ONLINE, os.W_OK):
        pytest.skip("needs a CPU 1 that can be taken offline (root)")
    if CPU1_ONLINE.read_text().strip() != "1":
        pytest.skip("CPU 1 is offline")
    js = tmp_path / "t.json"
    with running(["timer", "-c", "1", "-T", "4", "-q", "--json", str(js)]) as p:
        time.sleep(2.0)	# the warm-up over, a second measured
        with cpu1_offline():
            time.sleep(0.3)
        out, err = p.communicate(timeout=30)
    assert p.returncode == 1, err
    lines = [l for l in err.splitlines() if "CPU 1" in l]
    assert len(lines) == 1, err
    assert lines[0].startswith("rtlat timer: -c: CPU 1 went offline"), err
    assert "RTS|" in out	# the summary, as every ending
    d = json.loads(js.read_text())
    assert d["return_code"] == 1
    cpu = d["cpus"][0]
    assert cpu["cpu"] == 1 and cpu["moved"]["after_s"] >= 1, cpu.get("moved")
    assert cpu["moved"]["affinity"] != "1"	# the kernel widened it
    assert "error" in d
    leakcheck()
