# SPDX-License-Identifier: GPL-2.0-or-later
"""Exhaustion (issue 14): a resource limit reached is one clear line on
stderr naming it, the right exit status, and nothing left behind.
RLIMIT_NOFILE small; RLIMIT_NPROC small in fork mode and RLIMIT_MEMLOCK 0
(both as an unprivileged user: root is exempt); fs.mqueue.queues_max tiny
in a private IPC namespace (the host's sysctl is never changed); tracefs
read-only in a private mount namespace (a bind remount: the superblock,
shared with the host, stays writable); a full disk (/dev/full) for
--json."""
import json
import os
import re
import shutil
import stat
import subprocess
import tempfile
from pathlib import Path

import pytest

from conftest import ASAN, RTLAT, limited

NOBODY = 64123		# an unprivileged uid with no other processes


def lines(err):
    return [x for x in err.splitlines() if x.strip()]


@pytest.fixture
def open_tmpdir(monkeypatch):
    """A TMPDIR the unprivileged user can reach and write (pytest's are
    under a root-only directory)."""
    d = tempfile.mkdtemp(prefix="exh", dir="/tmp")
    os.chmod(d, 0o777)
    monkeypatch.setenv("TMPDIR", d)
    yield Path(d)
    shutil.rmtree(d, ignore_errors=True)


@pytest.mark.parametrize("argv,n,what", [
    (["pmq", "-t", "2", "-l", "50"], 4, r"cannot set up: Too many open files \(RLIMIT_NOFILE"),
    (["pmq", "-t", "2", "-l", "50"], 6, r"cannot set up pmq for pair 0: Too many open files"),
    (["svsem", "-f", "-t", "2", "-l", "50"], 4, r"cannot set up: Too many open files \(RLIMIT_NOFILE"),
    (["timer", "-T", "1", "-q"], 4, r"cannot set up: Too many open files \(RLIMIT_NOFILE"),
    (["request", "-i", "1", "--samples", "50"], 6, r"cannot set up: Too many open files \(RLIMIT_NOFILE"),
    (["request", "-i", "1", "--samples", "50"], 4,
     r"cannot open a socket: Too many open files \(RLIMIT_NOFILE"),
], ids=["pmq-4", "pmq-6", "svsem-f-4", "timer-4", "request-6", "request-4"])
def test_nofile_small(leakcheck, argv, n, what):
    r = limited(f"--nofile={n}", argv)
    assert r.returncode == 1, r.stderr
    assert len(lines(r.stderr)) == 1, r.stderr
    assert re.search(what, r.stderr), r.stderr
    leakcheck()


def nobody_left():
    """Semaphores and processes of NOBODY: what these runs could leave
    (the global leak check also counts other users' runs on the host)."""
    sems = [x for x in subprocess.run(["ipcs", "-s"], capture_output=True,
                                      text=True).stdout.splitlines()
            if len(x.split()) > 2 and x.split()[2] == str(NOBODY)]
    procs = subprocess.run(["pgrep", "-u", str(NOBODY)], capture_output=True,
                           text=True).stdout.split()
    return sems + [p for p in procs if same_ipc_namespace(p)]


def same_ipc_namespace(pid):
    """Under tests/isolated, this run's IPC namespace is its own: another
    checkout's tests running as NOBODY at the same time are not ours."""
    try:
        return os.readlink(f"/proc/{pid}/ns/ipc") == \
            os.readlink("/proc/self/ns/ipc")
    except OSError:
        return False        # gone meanwhile


@pytest.mark.parametrize("n", [1, 2, 4])
def test_nproc_small_in_fork_mode(open_tmpdir, n):
    r = limited(f"--nproc={n}", ["svsem", "-f", "-t", "2", "-l", "50",
                                 "--no-mlock", "--no-dma-latency"], user=NOBODY)
    assert r.returncode == 1, r.stderr
    assert len(lines(r.stderr)) == 1, r.stderr
    assert re.search(r"(cannot fork for pair \d|cannot set up): Resource "
                     r"temporarily unavailable \(RLIMIT_NPROC", r.stderr)
    assert not nobody_left()
    assert not list(open_tmpdir.iterdir())


@pytest.mark.skipif(ASAN, reason="ASan intercepts mlockall() as a no-op, "
                    "so RLIMIT_MEMLOCK cannot make it fail")
def test_memlock_zero_with_mlock(open_tmpdir):
    js = open_tmpdir / "r.json"
    argv = ["svsem", "-l", "50", "--no-dma-latency"]
    r = limited("--memlock=0", argv + ["--json", str(js)], user=NOBODY)
    assert r.returncode == 0, r.stderr
    assert lines(r.stderr) == [
        "rtlat svsem: warning: mlockall failed: Operation not permitted"]
    assert json.loads(js.read_text())["rt"]["mlockall"] is False
    r = limited("--memlock=0", argv + ["--strict"], user=NOBODY)
    assert r.returncode == 1
    assert "mlockall failed" in r.stderr and "--strict" in r.stderr
    js.unlink()
    assert not nobody_left()
    assert not list(open_tmpdir.iterdir())


def in_namespace(flags, shell):
    if not shutil.which("unshare"):
        pytest.skip("unshare(1) missing")
    return subprocess.run(["unshare"] + flags + ["sh", "-c", shell],
                          capture_output=True, text=True, timeout=60)


def test_queues_max_tiny(leakcheck):
    r = in_namespace(["-i"], "echo 1 > /proc/sys/fs/mqueue/queues_max && "
                     f"exec {RTLAT} pmq -l 10")
    assert r.returncode == 2, r.stderr
    assert len(lines(r.stderr)) == 1
    assert re.search(r"-t/--threads: 1 pairs need 2 message queues, above "
                     r"fs.mqueue.queues_max \(1\)", r.stderr), r.stderr
    leakcheck()


@pytest.mark.parametrize("argv,opt", [
    (["svsem", "-b", "100", "-l", "10"], "-b/--breaktrace"),
    (["timer", "-f", "-T", "1", "-q"], "-f")], ids=["svsem-b", "timer-f"])
def test_tracefs_read_only(leakcheck, argv, opt):
    r = in_namespace(["-m", "--propagation", "private"],
                     "mountpoint -q /sys/kernel/tracing || exit 77; "
                     "mount -o remount,bind,ro /sys/kernel/tracing || exit 77; "
                     f"exec {RTLAT} " + " ".join(argv))
    if r.returncode == 77:
        pytest.skip("no tracefs to remount")
    assert r.returncode == 2, r.stderr
    assert lines(r.stderr) == [
        f"rtlat {argv[0]}: option {opt}: cannot write "
        "/sys/kernel/tracing/tracing_on: Read-only file system"]
    leakcheck()


@pytest.mark.parametrize("argv", [
    ["pmq", "-l", "50", "-q"], ["sigwait", "-l", "50", "-q"],
    ["ptsem", "-l", "50", "-q"], ["sigwait", "-f", "-l", "50", "-q"]],
    ids=["pmq", "sigwait", "ptsem", "sigwait-f"])
def test_json_to_a_full_disk(leakcheck, tmp_path, argv):
    """The subcommands issue 16's test does not cover."""
    full = tmp_path / "full"
    os.mknod(full, 0o666 | stat.S_IFCHR, os.makedev(1, 7))
    r = subprocess.run([RTLAT] + argv + ["--json", str(full)],
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 1, r.stderr
    assert len(lines(r.stderr)) == 1, r.stderr
    assert "--json" in r.stderr and "No space left on device" in r.stderr
    assert stat.S_ISCHR(os.lstat(full).st_mode)
    leakcheck()
