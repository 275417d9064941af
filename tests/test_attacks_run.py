# SPDX-License-Identifier: GPL-2.0-or-later
"""Attacks on a run's ending (issue 30): a pair run whose worker failed is
an error, never a PASS (item 3); the request server under a descriptor
limit says why and does not spin (item 9); the option errors name what
is accepted and the number the user gave (smaller items)."""
import json
import os
import socket
import subprocess
import time

import pytest

from conftest import ASAN, RTLAT, free_port, limited, run, wait_line

# ---------------------------------------------------------------- item 3


@pytest.mark.parametrize("mode", [[], ["-f"]], ids=["threads", "fork"])
def test_failed_pair_worker_is_an_error_not_a_pass(tmp_path, leakcheck, mode):
    """`prlimit --sigpending=0 rtlat sigwait --rt`: the sender's sigqueue
    fails (EAGAIN) before any cycle. The run is an error: exit 1, the
    verdict ERROR (never PASS), LAVA's run case fail, JSON return_code 1,
    JUnit an error; the summary is still printed and every output
    written; nothing is left behind."""
    js, ju = tmp_path / "r.json", tmp_path / "j.xml"
    r = limited("--sigpending=0",
                ["sigwait", "--rt"] + mode +
                ["-i", "200", "-l", "1000", "--max-latency", "1", "--lava",
                 "--json", str(js), "--junit", str(ju)])
    assert "pair 0: sigwait failed" in r.stderr, r.stderr
    assert r.returncode == 1, (r.returncode, r.stderr)
    assert "verdict: PASS" not in r.stderr
    assert "rtlat sigwait: verdict: ERROR (the run ended with an error" in r.stderr, r.stderr
    assert "sigwait-run --result fail" in r.stdout
    assert "sigwait-run --result pass" not in r.stdout
    assert "Cycles 0" in r.stdout            # the summary, still printed
    d = json.loads(js.read_text())
    assert d["return_code"] == 1
    assert "sigwait failed" in d["error"]
    # A script reading the fleet object's verdict is not told "pass".
    assert d["fleet"]["verdict"] == "error"
    assert 'errors="1"' in ju.read_text()
    leakcheck()

# ---------------------------------------------------------------- item 9


def cpu_seconds(pid):
    """utime + stime of a process, from /proc/PID/stat."""
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def test_request_server_at_the_descriptor_limit_says_why_and_never_spins(leakcheck):
    """`prlimit --nofile=8 rtlat request -s`, then 3 clients: accept()
    fails with EMFILE. The server says so on stderr, once (at most a line
    every 5 s), closes each client it cannot serve instead of leaving it
    waiting, and does not spin: over 2 s of wall time it uses far less
    than 2 s of CPU (a spin at SCHED_FIFO used all of it; this is a spin
    check, not a latency figure). SIGINT ends it as usual."""
    port = free_port()
    env = dict(os.environ)
    if ASAN:
        env["ASAN_OPTIONS"] = "detect_leaks=0"
    p = subprocess.Popen(["prlimit", "--nofile=8", RTLAT, "request", "-s",
                          "--bind", "127.0.0.1", "-p", str(port),
                          "--timeout", "2"],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         text=True, env=env, cwd="/")
    clients = []
    try:
        assert "server listening" in p.stdout.readline()
        clients = [socket.create_connection(("127.0.0.1", port), timeout=5)
                   for _ in range(3)]
        # the server has met the limit (its line, kept for the checks below)
        _, seen = wait_line(p.stderr, r"cannot accept a connection")
        c0, t0 = cpu_seconds(p.pid), time.monotonic()
        time.sleep(2)       # the 2 s over which it must not spin: the test
        cpu, wall = cpu_seconds(p.pid) - c0, time.monotonic() - t0
        assert cpu < 0.3 * wall, f"{cpu:.2f} s of CPU in {wall:.2f} s"
        # Every client gets a clean end (a close, or a silent client's
        # --timeout 2), never an endless wait.
        for c in clients:
            c.settimeout(5)
            try:
                assert c.recv(16) == b""
            except ConnectionResetError:
                pass
        p.send_signal(2)
        out, err = p.communicate(timeout=15)
        err = "".join(seen) + err
    finally:
        for c in clients:
            c.close()
        if p.poll() is None:
            p.kill()
            p.wait()
    said = [x for x in err.splitlines() if "cannot accept a connection" in x]
    assert len(said) == 1, err
    assert "Too many open files (RLIMIT_NOFILE 8: ulimit -n)" in said[0]
    assert p.returncode == 0, err
    assert "server stopped" in out
    leakcheck()

# ---------------------------------------------------------- smaller items


def test_policy_error_lists_exactly_what_is_accepted(tmp_path):
    """`cyclictest --policy xyz` lists the policies it accepts, and each
    one listed runs (batch and idle too: cyclictest 2.4 takes them, issue
    47, SCHED_BATCH and SCHED_IDLE without a priority)."""
    r = run(["cyclictest", "-l", "2", "-q", "--policy", "xyz"], cwd=tmp_path)
    assert r.returncode == 2 and len(r.stderr.splitlines()) == 1, r.stderr
    listed = r.stderr.strip().split("accepted: ", 1)[1].split(", ")
    assert listed == ["fifo", "rr", "other", "normal", "batch", "idle"], r.stderr
    for name in listed:
        ok = run(["cyclictest", "-l", "2", "-q", "--policy", name], cwd=tmp_path)
        assert ok.returncode == 0, (name, ok.stderr)


@pytest.mark.parametrize("args,said", [
    (["cyclictest", "-a", "99999999999999999999"], "'99999999999999999999' is not accepted"),
    (["cyclictest", "-a", "0-99999999999999999999"], "'0-99999999999999999999' is not accepted"),
    (["cyclictest", "-a", "5000"], "CPU 5000 is not online"),
    (["pmq", "--affinity=99999999999999999999"], "'99999999999999999999' is not accepted"),
])
def test_affinity_out_of_range_names_the_number_given(args, said, tmp_path):
    """An affinity past any CPU is bad input naming what the user gave
    (it was "CPU 1024") and the online CPUs accepted."""
    r = run(args + ["-l", "2", "-q"], cwd=tmp_path)
    assert r.returncode == 2, r.stderr
    assert len(r.stderr.splitlines()) == 1 and said in r.stderr, r.stderr
    assert "1024" not in r.stderr
    assert "accepted:" in r.stderr and "online CPU" in r.stderr
    assert r.stdout == ""
