# SPDX-License-Identifier: GPL-2.0-or-later
"""Robustness of the C program against what its surroundings do (issue 44,
items 12, 13, 14 and 16): a standard error nobody reads, request's
processes forked beside threads, a run larger than the memory it may lock,
and the temp files a writer killed at the wrong instant leaves.

Nothing here asserts a latency or waits a fixed time: each test waits for
the event it needs (a thread, a file, a line, the process's end), bounded."""
import fcntl
import json
import os
import signal
import subprocess
import termios
import time
from pathlib import Path

from conftest import RTLAT

WAIT_S = 60             # an event, however loaded the machine


def status_thread_up(pid, timeout=WAIT_S):
    """True once the run's status thread (rtlat-status) exists: SIGUSR1 is
    then answered, never the default action."""
    deadline = time.time() + timeout
    while time.time() < deadline:
        try:
            for task in Path(f"/proc/{pid}/task").iterdir():
                if (task / "comm").read_text().strip() == "rtlat-status":
                    return True
        except OSError:
            return False
        time.sleep(0.02)
    return False


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


def test_status_lines_never_hold_a_blocked_stderr(tmp_path):
    """Item 13: stderr a pipe nobody drains, SIGUSR1 over and over: the
    status lines are dropped once the pipe fills, the checkpoints go on,
    the run ends at its -D, and once stderr is read again the next status
    says how many were dropped."""
    out = tmp_path / "pmq.json"
    rfd, wfd = os.pipe()
    cap = fcntl.fcntl(rfd, fcntl.F_GETPIPE_SZ)
    p = subprocess.Popen([RTLAT, "pmq", "-D", "8", "--checkpoint", "1",
                          "--json", str(out), "-q"],
                         stdout=subprocess.DEVNULL, stderr=wfd)
    os.close(wfd)
    try:
        assert status_thread_up(p.pid), "the run's status thread never came"
        # Statuses until the pipe holds more than half its size: the
        # status thread would block on the next ones if it wrote them.
        deadline = time.time() + WAIT_S
        while unread(rfd) < cap // 2 and p.poll() is None and time.time() < deadline:
            p.send_signal(signal.SIGUSR1)
            time.sleep(0.001)
        assert unread(rfd) >= cap // 2, "the statuses never filled the pipe"
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
    finally:
        if p.poll() is None:
            p.kill()
            p.wait()
        os.close(rfd)
    assert rc == 0
    doc = json.loads(out.read_text())
    assert doc["complete"] is True
