# SPDX-License-Identifier: GPL-2.0-or-later
"""rtlat qualify: the doctor, the hwlat phase (where rtlat has the test),
the timer idle and under a real load (stress-ng, hackbench) into one
results directory; --load-cmd's command beside the measurement, its exit
status and output recorded; every load process gone and its temp files
removed on every ending. No latency is compared (see the first test)."""
import json
import os
import signal
import uuid
from pathlib import Path

import pytest

from conftest import RTLAT, run, running, wait_for

pytestmark = pytest.mark.skipif(
    not any(os.access(os.path.join(d, "stress-ng"), os.X_OK)
            for d in os.environ.get("PATH", "").split(os.pathsep) if d),
    reason="stress-ng is not installed (tests/install-deps brings it)")


def marked(marker):
    """The processes whose environment holds marker: what a run started,
    whatever its name (stress-ng's stressors, hackbench, the command)."""
    found = []
    for d in Path("/proc").iterdir():
        if not d.name.isdigit():
            continue
        try:
            env = (d / "environ").read_bytes()
            comm = (d / "comm").read_text().strip()
        except OSError:
            continue
        if marker.encode() in env:
            found.append((int(d.name), comm))
    return found


@pytest.fixture
def marker(monkeypatch):
    """An environment variable every process a run starts inherits."""
    m = f"RTLAT_QUALIFY_TEST={uuid.uuid4().hex}"
    monkeypatch.setenv(*m.split("=", 1))
    return m


def gone(marker):
    """Nothing the run started is left (allowing 2 s for the last to be
    reaped by whoever inherits it)."""
    wait_for(lambda: not marked(marker),
             lambda: f"the load's processes to end: {marked(marker)}", timeout=2)


# The tests of the phases run with --force: make check's other groups run
# real-time spinners beside them, and the doctor (its rt_hogs check, issue
# 45) rightly finds them; the doctor's own stop is
# test_the_doctor_stops_it_where_real_time_cannot_work's.


def index_of(d):
    return json.loads((d / "index.json").read_text())


def phase(index, name):
    return next(t for t in index["tests"] if t["phase"] == name)


def test_qualify_runs_every_phase_under_stress_ng_and_the_load_shows(tmp_path, marker, leakcheck):
    """`rtlat qualify --load default`, short phases (10 s in all: a 2 m
    run's phases, shorter, each still thousands of samples a CPU): the
    doctor's file, the hwlat phase said not run where rtlat has no hwlat
    test, each phase's JSON and text on every CPU, stress-ng's bogo-ops
    for each stressor in the loaded phase, judged per phase."""
    d = tmp_path / "q"
    r = run(["qualify", "--force", "--duration", "10", "--load", "default", "-q",
             "--max-latency", "1000000", "-o", str(d)], timeout=120)
    assert r.returncode == 0, r.stderr
    index = index_of(d)
    assert index["command"] == "qualify" and index["complete"] is True
    assert [t["phase"] for t in index["tests"]] == ["hwlat", "idle", "load"]
    hw = phase(index, "hwlat")
    if hw["state"] == "not run":
        assert hw["why"] == "this rtlat has no hwlat test"
        assert "no hwlat phase" in r.stderr
    assert (d / "doctor.json").exists()
    for name in ("timer-idle", "timer-load"):
        assert phase(index, name.split("-")[1])["state"] == "done"
        assert (d / f"{name}.json").exists() and (d / f"{name}.txt").exists()
    assert "load" not in phase(index, "idle")
    load = phase(index, "load")["load"]
    assert load["stress_ng"] and load["stress_ng_status"] == 0, load
    names = {s["name"]: s for s in load["stressors"]}
    assert set(names) == {"cpu", "vm", "io", "sock", "udp"}, load
    assert all(s["bogo_ops"] > 0 for n, s in names.items() if n != "vm"), load
    assert load["cmd"] is None
    # The fleet judged both phases, by their names.
    judged = {s["test"] for s in index["fleet"]["series"]}
    assert judged == {"timer-idle", "timer-load"}, index["fleet"]
    # Both phases measured every CPU. Their p99s are not compared: on
    # this machine (a VM whose idle vCPUs halt, on a host make check's
    # other groups share) the loaded phase's p99 came out below the idle
    # one's as often as above it (31 us loaded against 88 us idle once):
    # a busy vCPU wakes without the host's halt and resume.
    for name in ("timer-idle", "timer-load"):
        data = json.loads((d / f"{name}.json").read_text())
        assert len(data["cpus"]) == os.cpu_count()
        assert all(c["latency"]["samples"] > 0 for c in data["cpus"])
    gone(marker)
    leakcheck()


# --load-cmd's cases (rtlat timer's tests too): the command, its exit
# status, stopped by rtlat, its last lines.
LOAD_CMD_CASES = [
    ("echo one; echo two; exit 7", 7, False, ["one", "two"]),
    ("echo started; exec sleep 1000", 128 + signal.SIGTERM, True, ["started"]),
]


@pytest.mark.parametrize("cmd,status,stopped,tail", LOAD_CMD_CASES)
def test_load_cmd_records_its_status_and_output(tmp_path, marker, leakcheck,
                                                cmd, status, stopped, tail):
    """--load-cmd (jitterdebugger's -c): the command runs beside the loaded
    phase; one that ended says its status, one still running is stopped
    (SIGTERM to its group: 143) and nothing of it is left."""
    d = tmp_path / "q"
    r = run(["qualify", "--force", "--duration", "4", "--load", "none", "--load-cmd", cmd,
             "-q", "-o", str(d)], timeout=60)
    assert r.returncode == 0, r.stderr
    command_only(phase(index_of(d), "load")["load"], cmd, status, stopped, tail)
    gone(marker)
    leakcheck()


def command_only(load, cmd, status, stopped, tail):
    """A load of --load-cmd alone (qualify's phase, the timer's JSON): no
    stress-ng, the command's status, whether it was stopped, its last
    lines."""
    assert load["stress_ng"] is False and load["stressors"] == []
    assert load["cmd"] == {"command": cmd, "exit_status": status,
                           "stopped": stopped, "output_tail": tail}


def test_a_stop_signal_in_the_loaded_phase_ends_the_load(tmp_path, marker, leakcheck):
    """SIGINT while stress-ng and hackbench run: the run ends (status 1,
    stopped), its index complete with what ran, every load process gone
    and stress-ng's temp files removed (its --temp-path is in the run's
    private temp dir, which goes too: the leak check sees TMPDIR)."""
    d = tmp_path / "q"
    with running(["qualify", "--force", "--duration", "600", "--idle-time", "1", "-q",
                  "-o", str(d)]) as p:
        wait_for(lambda: any(c.startswith("stress-ng") for _, c in marked(marker)),
                 "stress-ng to run", timeout=60, proc=p)
        p.send_signal(signal.SIGINT)
        _, err = p.communicate(timeout=60)
    assert p.returncode == 1, err
    assert "stopped by" in err
    index = index_of(d)
    assert index["complete"] is True
    assert phase(index, "idle")["state"] == "done"
    gone(marker)
    leakcheck()


def test_without_stress_ng_the_load_is_bad_input(tmp_path):
    """Where stress-ng is missing: one line naming the package, exit 2,
    nothing made."""
    d = tmp_path / "q"
    r = run(["qualify", "--duration", "4", "-o", str(d)],
            env={**os.environ, "PATH": str(tmp_path)})
    assert r.returncode == 2
    lines = r.stderr.splitlines()
    assert len(lines) == 1 and "--load" in lines[0] and \
        "apt-get install stress-ng" in lines[0], r.stderr
    assert not d.exists()
    # --load none needs no stress-ng.
    r = run(["qualify", "--force", "--duration", "4", "--load", "none", "--load-cmd", "true",
             "-q", "-o", str(d)], env={**os.environ, "PATH": str(tmp_path)})
    assert r.returncode == 0, r.stderr


def test_qualify_is_in_the_help_and_has_a_man_page():
    r = run(["--help"])
    assert "qualify" in r.stdout
    r = run(["--man", "qualify"])
    assert r.returncode == 0 and "--load-cmd" in r.stdout.replace("\\-", "-")
    assert os.path.basename(RTLAT)


def test_the_doctor_stops_it_where_real_time_cannot_work(tmp_path, marker, leakcheck):
    """A doctor verdict that prevents real time (a container without
    CAP_SYS_NICE, a stand-in root: RTLAT_SYSROOT) stops qualify before
    anything is measured: exit 1, one line naming --force, the doctor's
    files and an index whose phases did not run; no load started."""
    from test_doctor_context import PODMAN_CAPS, fake_root
    root = fake_root(tmp_path / "root", engine="podman", caps=PODMAN_CAPS)
    d = tmp_path / "q"
    r = run(["qualify", "--duration", "4", "-q", "-o", str(d)],
            env={**os.environ, "RTLAT_SYSROOT": str(root)})
    assert r.returncode == 1, r.stderr
    assert "the doctor finds what prevents real-time work" in r.stderr
    assert "--force measures anyway" in r.stderr
    assert (d / "doctor.json").exists() and (d / "doctor.txt").exists()
    assert not list(d.glob("timer-*"))
    index = index_of(d)
    assert index["complete"] is True
    assert {t["state"] for t in index["tests"]} == {"not run"}
    gone(marker)
    leakcheck()
