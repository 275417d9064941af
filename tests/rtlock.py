# SPDX-License-Identifier: GPL-2.0-or-later
"""One CPU hog at a time across make check's test groups.

make check runs its test groups side by side (tests/run-tests). A test
that keeps a CPU busy at SCHED_FIFO (test_starved's hog, bintime at 95,
sync's test 1, response's work) holds that CPU from every real-time
thread below it: another group's run pinned there is starved for seconds,
and a CPU that could not be measured is rightly an error (issue 45). So
every test runs under a shared lock, and a hog takes it exclusively: the
other groups finish the test they are in, then wait until the hog is
gone.

Two lock files, as a writer-preferring read-write lock: a turnstile
everyone passes (a hog holds it while it waits and runs, so no new test
starts under it and the hog cannot be starved by a stream of readers),
and the lock itself (shared by tests, exclusive for a hog). Both are in
the checkout's build/ directory, which every group sees (tests/isolated
gives each its own /tmp). Outside make check's groups (RTLAT_TEST_GROUP
unset) nothing is locked.
"""
import contextlib
import fcntl
import os
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
# Set while this process holds the lock exclusively, for its children: a
# test that runs pytest again (test_chaos in a private IPC namespace) is
# inside its parent's hold, and waiting for the lock would wait for itself.
HELD = "RTLAT_RT_HOG_HELD"
ACTIVE = bool(os.environ.get("RTLAT_TEST_GROUP")) and not os.environ.get(HELD)


class _Lock:
    """This process's hold: None, LOCK_SH or LOCK_EX."""

    def __init__(self):
        self.fds = None
        self.mode = None

    def _open(self):
        if self.fds is None:
            d = ROOT / "build"
            d.mkdir(exist_ok=True)
            self.fds = tuple(os.open(d / f".rt-hog-{n}.lock", os.O_RDWR | os.O_CREAT, 0o666)
                             for n in ("turnstile", "lock"))
        return self.fds

    def hold(self, mode):
        """Hold the lock in mode (None: not at all), from whatever is held."""
        if not ACTIVE or mode == self.mode:
            return
        gate, lock = self._open()
        if self.mode is not None:
            os.environ.pop(HELD, None)
            fcntl.flock(lock, fcntl.LOCK_UN)
            if self.mode == fcntl.LOCK_EX:
                fcntl.flock(gate, fcntl.LOCK_UN)
            self.mode = None
        if mode is None:
            return
        fcntl.flock(gate, fcntl.LOCK_EX)
        fcntl.flock(lock, mode)
        if mode == fcntl.LOCK_SH:
            fcntl.flock(gate, fcntl.LOCK_UN)
        else:
            os.environ[HELD] = str(os.getpid())
        self.mode = mode


_LOCK = _Lock()


def test_starts(hog):
    """A test's set-up begins (conftest's pytest_runtest_protocol): the
    shared lock, or for a hog the exclusive one."""
    _LOCK.hold(fcntl.LOCK_EX if hog else fcntl.LOCK_SH)


def test_ended(hog, next_hog):
    """A test's tear-down is done: a hog followed by a hog keeps the
    exclusive lock (the other groups wait once for a file's hogs, not
    once per test); otherwise the lock is given up until the next test."""
    if not (hog and next_hog):
        _LOCK.hold(None)


@contextlib.contextmanager
def cpu_hog():
    """Around whatever keeps a CPU busy at SCHED_FIFO inside a test (or a
    fixture): no other group's test runs meanwhile."""
    before = _LOCK.mode
    _LOCK.hold(fcntl.LOCK_EX)
    try:
        yield
    finally:
        _LOCK.hold(before)
