# SPDX-License-Identifier: GPL-2.0-or-later
"""Robustness of the C program against what its surroundings do (issue 44,
items 12, 13, 14 and 16): a standard error nobody reads, request's
processes forked beside threads, a run larger than the memory it may lock,
and the temp files a writer killed at the wrong instant leaves.

Nothing here asserts a latency or waits a fixed time: each test waits for
the event it needs (a thread, a file, a line, the process's end), bounded."""
import contextlib
import fcntl
import json
import os
import re
import shutil
import signal
import subprocess
import termios
import time
from pathlib import Path

import pytest

from conftest import (ASAN, RTLAT, descendants, has_thread, reachable_binary, settled_leaks,
                      snapshot, wait_for)

WAIT_S = 60             # an event, however loaded the machine


def status_thread_up(p):
    """Waits until the run's status thread (rtlat-status) exists: SIGUSR1 is
    then answered, never the default action."""
    wait_for(lambda: has_thread(p.pid, "rtlat-status"),
             "the run's status thread (rtlat-status)", proc=p)


def proc_status(pid):
    """/proc/PID/status as a dict (empty once the process is gone)."""
    try:
        text = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return {}
    return dict(line.split(":\t", 1) for line in text.splitlines() if ":\t" in line)


def descendants_status(pid):
    """Every process under pid, with its name and parent."""
    found = {k: proc_status(k) for k in descendants(pid)}
    return {k: st for k, st in found.items() if st}


def covered(path):
    """The covered_s of a checkpoint's JSON; None before the first, or when
    the run is complete."""
    try:
        doc = json.loads(Path(path).read_text())
    except (OSError, ValueError):
        return None
    ck = doc.get("checkpoint")
    return ck.get("covered_s") if ck else None


def unread(fd):
    return int.from_bytes(fcntl.ioctl(fd, termios.FIONREAD, b"\0\0\0\0"), "little")


@contextlib.contextmanager
def blocked_stderr(args):
    """rtlat ARGS with stderr a pipe the test never reads, once its status
    thread is up, and SIGUSR1 sent until the pipe holds more than half its
    size (a status thread that wrote the next ones would block): yields
    (the process, the pipe's read end, its size, the test's deadline); a
    run still going at the end is killed and reaped, the pipe closed."""
    rfd, wfd = os.pipe()
    cap = fcntl.fcntl(rfd, fcntl.F_GETPIPE_SZ)
    p = subprocess.Popen([RTLAT, *args], stdout=subprocess.DEVNULL, stderr=wfd)
    os.close(wfd)
    try:
        status_thread_up(p)
        deadline = time.time() + WAIT_S
        while unread(rfd) < cap // 2 and p.poll() is None and time.time() < deadline:
            p.send_signal(signal.SIGUSR1)
            time.sleep(0.001)
        assert unread(rfd) >= cap // 2, "the statuses never filled the pipe"
        yield p, rfd, cap, deadline
    finally:
        if p.poll() is None:
            p.kill()
            p.wait()
        os.close(rfd)


def test_status_lines_never_hold_a_blocked_stderr(tmp_path):
    """Item 13: stderr a pipe nobody drains, SIGUSR1 over and over: the
    status lines are dropped once the pipe fills, the checkpoints go on,
    the run ends at its -D, and once stderr is read again the next status
    says how many were dropped."""
    out = tmp_path / "pmq.json"
    args = ["pmq", "-D", "5", "--checkpoint", "1", "--json", str(out), "-q"]
    with blocked_stderr(args) as (p, rfd, cap, deadline):
        # Keep signalling: the checkpoints must go on meanwhile.
        first = None
        while p.poll() is None and time.time() < deadline:
            p.send_signal(signal.SIGUSR1)
            c = covered(out)
            if c is not None and first is None:
                first = c
            if first is not None and c is not None and c >= first + 2:
                break
            time.sleep(0.005)
        assert first is not None and covered(out) is not None and \
            covered(out) >= first + 2, \
            f"checkpoints stopped while stderr was blocked (covered_s {first} -> {covered(out)})"
        assert unread(rfd) < cap, "the statuses filled the pipe whole"
        # stderr read again: the next status says what was dropped.
        os.set_blocking(rfd, False)
        text = b""
        while True:
            try:
                chunk = os.read(rfd, 65536)
            except BlockingIOError:
                break
            if not chunk:
                break
            text += chunk
        got = b""
        while b"dropped" not in got and p.poll() is None and time.time() < deadline:
            p.send_signal(signal.SIGUSR1)
            time.sleep(0.05)
            try:
                got += os.read(rfd, 65536)
            except BlockingIOError:
                pass
        note = [line for line in got.decode().splitlines() if "dropped" in line]
        assert len(note) == 1, got.decode()[-2000:]
        assert "standard error" in note[0], note
        # The run ends at its -D, on its own.
        rc = p.wait(timeout=WAIT_S)
    assert rc == 0
    doc = json.loads(out.read_text())
    assert doc["complete"] is True


def test_cyclictest_face_status_never_holds_the_end():
    """Item 13, the cyclictest face: its SIGUSR1 block (cyclictest's, by
    its display thread, which the run's end joins) is dropped, not waited
    on, when stderr is a pipe nobody reads: the run ends at its -D."""
    args = ["cyclictest", "-t", "16", "-D", "3", "-q"]
    with blocked_stderr(args) as (p, _, _, deadline):
        # Until the run ends (at its -D, or never if a status blocks).
        while p.poll() is None and time.time() < deadline:
            p.send_signal(signal.SIGUSR1)
            time.sleep(0.005)
        rc = p.wait(timeout=1)
    assert rc == 0


def dead_pid():
    """A PID that no process has now (a child that ended and was reaped)."""
    p = subprocess.Popen(["true"])
    p.wait()
    return p.pid


def leftovers(d):
    """The temp files of a writer that died in between (SIGKILL at the
    instant a checkpoint made its temp file): a dead PID's, empty and half
    written; and two that must stay: a live writer's (this process, which
    holds its lock as rtlat's writers do) and one named for a PID that runs
    (no lock: it may be a writer that has not locked it yet)."""
    dead = [d / f"pmq.json.tmp-{dead_pid()}-0", d / f"pmq.json.tmp-{dead_pid()}-3"]
    dead[0].write_bytes(b"")
    dead[1].write_bytes(b'{"thread": {')
    live = d / f"pmq.json.tmp-{os.getpid()}-0"
    live.write_bytes(b'{"half')
    lock = os.open(live, os.O_RDONLY)
    fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
    sleeper = subprocess.Popen(["sleep", "600"])
    running = d / f"pmq.json.tmp-{sleeper.pid}-1"
    running.write_bytes(b"")
    return dead, [live, running], lambda: (os.close(lock), sleeper.kill(), sleeper.wait())


def test_next_run_removes_a_dead_writers_temp_files(tmp_path):
    """Item 16, rtlat's part: the next run writing that output removes the
    temp files of a writer that no longer runs, and only those."""
    dead, kept, done = leftovers(tmp_path)
    try:
        r = subprocess.run([RTLAT, "pmq", "-l", "50", "-q", "--json",
                            str(tmp_path / "pmq.json")],
                           capture_output=True, text=True, timeout=WAIT_S)
        assert r.returncode == 0, r.stderr
        assert [f.name for f in dead if f.exists()] == []
        assert [f.name for f in kept if not f.exists()] == []
        json.loads((tmp_path / "pmq.json").read_text())
    finally:
        done()


def test_report_removes_a_dead_writers_temp_files(tmp_path):
    """Item 16, rtlat-report's part: reading a results directory removes
    what a dead writer left there, and only that."""
    import sys
    fix = Path(__file__).resolve().parent / "fixtures" / "report" / "suite-a"
    d = tmp_path / "res"
    shutil.copytree(fix, d)
    dead, kept, done = leftovers(d)
    try:
        r = subprocess.run([str(Path(sys.executable).parent / "rtlat-report"),
                            str(d), "--format", "md"],
                           capture_output=True, text=True, timeout=WAIT_S)
        assert r.returncode == 0, r.stderr
        assert [f.name for f in dead if f.exists()] == []
        assert [f.name for f in kept if not f.exists()] == []
    finally:
        done()


def test_request_forks_its_processes_where_no_thread_runs(tmp_path):
    """Item 12: request's server, client and load processes are forked by a
    process that has one thread (a fork beside threads is undefined for
    anything but async-signal-safe calls; TSan stops such children), while
    the run itself has its status thread. The forking process (the
    spawner) never makes a thread, so its thread count now is the one at
    each fork."""
    p = subprocess.Popen([RTLAT, "request", "-i", "3", "--samples", "1500", "-q",
                          "--json", str(tmp_path / "r.json")],
                         stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    seen, forkers = set(), {}
    try:
        status_thread_up(p)
        deadline = time.time() + WAIT_S
        # Until the third round's load process: every kind has been forked.
        while p.poll() is None and time.time() < deadline and \
                not {"rtlat-server", "rtlat-client", "rtlat-load1"} <= seen:
            for pid, st in descendants_status(p.pid).items():
                name = st["Name"].strip()
                if name in ("rtlat-server", "rtlat-client") or \
                        name.startswith("rtlat-load"):
                    ppid = int(st["PPid"])
                    threads = proc_status(ppid).get("Threads")
                    if threads is not None:
                        seen.add(name)
                        forkers.setdefault(name, (ppid, int(threads)))
            time.sleep(0.01)
        main_threads = int(proc_status(p.pid).get("Threads", "0"))
        rc = p.wait(timeout=WAIT_S)
    finally:
        if p.poll() is None:
            p.kill()
            p.wait()
    assert {"rtlat-server", "rtlat-client", "rtlat-load1"} <= seen, (seen, p.stderr.read())
    assert main_threads >= 2, "the run had no thread beside main: nothing tested"
    assert {n: t for n, (_, t) in forkers.items() if t != 1} == {}, \
        f"forked by a process with threads: {forkers} (main pid {p.pid})"
    assert rc == 0, p.stderr.read()


REFUSED = re.compile(r"^rtlat pmq: --largest 1048576 \((\d+) series and threads, -t (\d+)\) "
                     r"needs (\d+) MiB of memory, locked; (.+) leaves (\d+) MiB: "
                     r"at most --largest (\d+) fits \(or fewer threads\)$")


def refused(r, where):
    """The run refused in one line naming --largest, -t and where the room
    ran out: exit 2, nothing on stdout; the K it says fits."""
    assert r.returncode == 2, (r.returncode, r.stderr[-2000:])
    lines = r.stderr.splitlines()
    assert len(lines) == 1, lines
    m = REFUSED.match(lines[0])
    assert m, lines[0]
    assert where in m.group(4), lines[0]
    assert r.stdout == ""
    return int(m.group(6))


def test_memlock_too_small_for_largest_is_refused():
    """Item 14 under RLIMIT_MEMLOCK: a user without CAP_IPC_LOCK whose
    locked-memory limit cannot hold what --largest preallocates is told so
    before anything runs (exit 2, nothing left behind); the --largest the
    line says fits runs, and so does a run with the defaults."""
    if os.geteuid() != 0 or not shutil.which("setpriv") or not shutil.which("prlimit"):
        pytest.skip("needs root, setpriv and prlimit to run as nobody under a memlock limit")
    # 64 MiB: a run with the defaults fits (about 13 MiB locked), one
    # with --largest 1048576 (24 MiB a series) does not.
    limit = f"--memlock={64 << 20}:{64 << 20}"
    if subprocess.run(["prlimit", limit, "true"], capture_output=True).returncode:
        pytest.skip("RLIMIT_MEMLOCK cannot be raised to 64 MiB here (no CAP_SYS_RESOURCE); "
                    "under its hard limit no run fits, whatever its options")
    before = snapshot()
    with reachable_binary() as exe:
        out = Path(exe).parent / "r.json"       # a directory nobody can write
        os.chmod(out.parent, 0o777)
        def as_nobody(*args):
            return subprocess.run(["prlimit", limit, "setpriv", "--reuid=nobody",
                                   "--regid=nogroup", "--clear-groups", "--inh-caps=-all",
                                   exe, *args],
                                  capture_output=True, text=True, timeout=WAIT_S)
        r = as_nobody("pmq", "-t", "1", "--largest", "1048576", "-l", "100", "-q",
                      "--json", str(out))
        k = refused(r, "RLIMIT_MEMLOCK (ulimit -l 65536)")
        assert not out.exists()
        assert 0 < k < 1048576
        ok = as_nobody("pmq", "-t", "1", "--largest", str(k), "-l", "100", "-q")
        assert ok.returncode == 0, ok.stderr
        assert as_nobody("pmq", "-l", "100", "-q").returncode == 0
    assert not settled_leaks(before)


def memory_cgroup(limit):
    """A memory cgroup limited to limit bytes, made for the test: v2 under
    /sys/fs/cgroup, else (a v1 machine) under the process's own v1 memory
    cgroup. Its directory, or None where neither can be made."""
    name = f"rtlat-test-{os.getpid()}"
    v2 = Path("/sys/fs/cgroup")
    try:
        if "memory" in (v2 / "cgroup.subtree_control").read_text().split():
            d = v2 / name
            d.mkdir()
            (d / "memory.max").write_text(str(limit))
            return d
    except OSError:
        pass
    for line in Path("/proc/self/cgroup").read_text().splitlines():
        _, ctl, path = line.split(":", 2)
        if "memory" in ctl.split(","):
            d = Path("/sys/fs/cgroup/memory" + path.rstrip("/")) / name
            try:
                d.mkdir()
                (d / "memory.limit_in_bytes").write_text(str(limit))
                return d
            except OSError:
                return None
    return None


# AddressSanitizer's shadow memory makes VmSize terabytes and mlockall
# fail: an ASan build locks nothing and its size says nothing of a run's.
@pytest.mark.skipif(ASAN, reason="an ASan build's VmSize is its shadow memory, not the run's")
def test_cgroup_too_small_for_largest_is_refused(tmp_path):
    """Item 14 in a memory cgroup of 1 GiB: pmq -t 64 --largest 1048576
    would lock 65 series of 24 MiB and was OOM-killed without a word; it is
    refused before it starts (exit 2, one line), the --largest the line
    says fits runs, and a run with the defaults too."""
    if os.geteuid() != 0:
        pytest.skip("needs root to make a memory cgroup")
    d = memory_cgroup(1 << 30)
    if d is None:
        pytest.skip("no memory cgroup can be made here (v2 memory controller or v1 memory mount)")
    out = tmp_path / "r.json"
    before = snapshot()

    def inside(*args):
        return subprocess.run(["sh", "-c", 'echo $$ > "$0/cgroup.procs" && exec "$@"',
                               str(d), RTLAT, *args],
                              capture_output=True, text=True, timeout=WAIT_S)
    try:
        r = inside("pmq", "-t", "64", "--largest", "1048576", "-l", "100", "-q",
                   "--json", str(out))
        k = refused(r, f"the memory cgroup {d}")
        assert not out.exists()
        assert 0 < k < 1048576
        ok = inside("pmq", "-t", "64", "--largest", str(k), "-l", "100", "-q")
        assert ok.returncode == 0, ok.stderr[-2000:]
        ok = inside("pmq", "-t", "64", "-l", "100", "-q")
        assert ok.returncode == 0, ok.stderr[-2000:]
    finally:
        deadline = time.time() + WAIT_S
        while True:
            try:
                d.rmdir()
                break
            except OSError:
                if time.time() > deadline:
                    raise
                time.sleep(0.05)
    assert not settled_leaks(before)
