# SPDX-License-Identifier: GPL-2.0-or-later
"""--on-threshold (issue 47): what a run does when a sample exceeds its
--max-latency, off the measuring threads. The response test's samples are
blocks of about 1 ms of work, so a 1 us threshold is always exceeded:
no latency value is assumed beyond that, nothing depends on load."""
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import RTLAT, needs_tracefs, run, wait_line, watching

# A short response run whose every sample exceeds the threshold.
RESP = ["response", "--block", "1", "-p", "0", "-q", "--max-latency", "1"]


def env_files(d):
    return sorted(Path(d).glob("env.*"))


def read_env(path):
    return dict(line.split("=", 1) for line in
                path.read_text().splitlines() if line.startswith("RTLAT_"))


def test_exec_runs_its_command_with_the_figures_in_its_environment(tmp_path, leakcheck):
    """exec=CMD runs CMD with the test, series, thread, CPU, latency,
    threshold, time, run directory and rtlat's pid; the run still ends
    with exit 3 and its results."""
    out = tmp_path / "out"
    out.mkdir()
    with watching(RESP + ["-l", "30", "--json", str(out / "r.json"),
                          "--on-threshold",
                          'exec=env > "$RTLAT_RUN_DIR/env.$$"']) as p:
        pid = p.pid
        _, err = p.communicate(timeout=60)
    assert p.returncode == 3, err
    files = env_files(out)
    assert len(files) == 1, (files, err)
    env = read_env(files[0])
    assert env["RTLAT_TEST"] == "response"
    assert env["RTLAT_SERIES"] == "time"
    assert env["RTLAT_THREAD"] == "0"
    assert int(env["RTLAT_CPU"]) >= 0
    assert env["RTLAT_THRESHOLD_NS"] == "1000"
    assert int(env["RTLAT_LATENCY_NS"]) > 1000
    assert float(env["RTLAT_TIME_S"]) >= 0
    assert env["RTLAT_RUN_DIR"] == str(out.resolve())
    assert env["RTLAT_PID"] == str(pid)
    assert "--on-threshold: response time thread 0 (CPU" in err
    r = json.loads((out / "r.json").read_text())
    assert r["settings"]["on_threshold"].startswith("exec=")
    leakcheck()


def test_at_most_one_action_per_cpu_per_second(tmp_path, leakcheck):
    """A run over its threshold all along acts once a second at most."""
    with watching(RESP + ["-l", "0", "-D", "2", "--json", str(tmp_path / "r.json"),
                          "--on-threshold",
                          'exec=env > "$RTLAT_RUN_DIR/env.$$"']) as p:
        _, err = p.communicate(timeout=60)
    assert p.returncode == 3, err
    n = len(env_files(tmp_path))
    # the first at once, then one a second: 2 s, and the last note at
    # the end at most
    assert 2 <= n <= 3, err
    leakcheck()


def test_a_hanging_command_is_not_waited_for_and_killed_at_the_end(tmp_path, leakcheck):
    """A command still running at the end is said in one line, its
    process group killed and reaped: nothing left behind. (One command a
    second: a run the machine's load stretches past a second starts
    more, each said and killed.)"""
    pidfile = tmp_path / "pid"
    with watching(RESP + ["-l", "30", "--on-threshold",
                          f'exec=echo $$ >> {pidfile}; sleep 600 & wait']) as p:
        _, err = p.communicate(timeout=60)
    assert p.returncode == 3, err
    lines = [x for x in err.splitlines() if "still running at the end" in x]
    pids = [int(x) for x in pidfile.read_text().split()]
    # (a command killed before its echo is said with no pid written)
    assert len(lines) >= len(pids) >= 1, err
    assert not any(Path(f"/proc/{pid}").exists() for pid in pids)
    assert not any(Path(f"/proc/{d}/cmdline").read_bytes().startswith(b"sleep\x00600")
                   for d in os.listdir("/proc") if d.isdigit()
                   if Path(f"/proc/{d}/cmdline").exists())
    leakcheck()


def test_a_failing_command_is_said(tmp_path, leakcheck):
    r = run(RESP + ["-l", "30", "--on-threshold", "exec=exit 7"])
    assert r.returncode == 3, r.stderr
    assert "--on-threshold: exec exit 7 exited 7" in r.stderr
    leakcheck()


def test_signal_reaches_the_pid_given(tmp_path, leakcheck):
    waiter = subprocess.Popen(
        [sys.executable, "-c",
         "import signal, sys\n"
         "signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGUSR1})\n"
         "print('ready', flush=True)\n"
         "signal.sigwait({signal.SIGUSR1})\n"
         "print('got', flush=True)\n"],
        stdout=subprocess.PIPE, text=True)
    try:
        wait_line(waiter.stdout, "ready")
        r = run(RESP + ["-l", "30", "--on-threshold",
                        f"signal=USR1,pid={waiter.pid}"])
        assert r.returncode == 3, r.stderr
        assert waiter.stdout.readline().strip() == "got"
        assert waiter.wait(timeout=30) == 0
    finally:
        if waiter.poll() is None:
            waiter.kill()
            waiter.wait()
    leakcheck()


def test_stop_ends_the_run_with_its_results(tmp_path, leakcheck):
    """A run until stopped ends at the first sample over the threshold,
    with exit 3 and its complete JSON."""
    out = tmp_path / "r.json"
    r = run(RESP + ["-l", "0", "--json", str(out), "--on-threshold", "stop"],
            timeout=60)
    assert r.returncode == 3, r.stderr
    j = json.loads(out.read_text())
    assert j["complete"] is True and j["return_code"] == 3
    leakcheck()


@needs_tracefs
def test_trace_saves_the_kernels_trace_as_text(tmp_path, leakcheck):
    r = run(RESP + ["-l", "30", "--json", str(tmp_path / "r.json"),
                    "--on-threshold", "trace"])
    assert r.returncode == 3, r.stderr
    saved = list(tmp_path.glob("rtlat-trace-*-1.txt"))
    assert len(saved) == 1, r.stderr
    assert saved[0].read_text().startswith("# tracer:")
    leakcheck()


@pytest.mark.parametrize("spec,why", [
    ("bogus", "not exec=CMD"),
    ("signal=NOPE", "unknown signal"),
    ("exec=", "without a command"),
    ("pid=3", "pid= not right after signal="),
    ("stop,continue", "both stop and continue"),
    ("signal=USR1,pid=x", "not a process number"),
])
def test_bad_actions_exit_2_in_one_line(tmp_path, spec, why, leakcheck):
    r = run(RESP + ["-l", "30", "--json", str(tmp_path / "r.json"),
                    "--on-threshold", spec])
    assert r.returncode == 2, r.stderr
    assert r.stderr.count("\n") == 1 and "--on-threshold" in r.stderr
    assert why in r.stderr, r.stderr
    assert r.stdout == "" and not (tmp_path / "r.json").exists()
    leakcheck()


def test_without_a_threshold_exit_2(tmp_path, leakcheck):
    r = run(["response", "-l", "30", "-q", "--on-threshold", "stop"])
    assert r.returncode == 2, r.stderr
    assert "--on-threshold" in r.stderr and "--max-latency" in r.stderr
    assert r.stderr.count("\n") == 1
    leakcheck()


def test_every_test_has_it_from_one_table_row():
    """Declared once (TEST_COMMON_OPTS): every test's --help has it."""
    for t in json.loads(subprocess.run([RTLAT, "--list"], capture_output=True,
                                       text=True, timeout=30).stdout)["tests"]:
        h = subprocess.run([RTLAT, t["name"], "--help"], capture_output=True,
                           text=True, timeout=30).stdout
        assert "--on-threshold" in h, t["name"]



def test_without_a_record_it_says_so(leakcheck):
    """--largest 0 (the time line off by default in a short run): the
    run keeps no record to act on, said in one line; it still runs."""
    r = run(RESP + ["-l", "5", "--largest", "0", "--on-threshold", "stop"])
    assert r.returncode == 3, r.stderr
    assert "--on-threshold: the run keeps no record" in r.stderr
    leakcheck()
