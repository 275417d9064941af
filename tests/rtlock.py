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
import threading
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
        self.mutex = threading.Lock()     # a test's threads start runs too

    def _open(self):
        if self.fds is None:
            d = Path(os.environ.get("RTLAT_RTLOCK_DIR", ROOT / "build"))
            d.mkdir(exist_ok=True)
            self.fds = tuple(os.open(d / f".rt-hog-{n}.lock", os.O_RDWR | os.O_CREAT, 0o666)
                             for n in ("turnstile", "lock"))
        return self.fds

    def hold(self, mode):
        """Hold the lock in mode (None: not at all), from whatever is held."""
        with self.mutex:
            self._hold(mode)

    def _hold(self, mode):
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
    """A test's set-up begins (conftest's pytest_runtest_protocol): a test
    marked as a hog takes the lock exclusively now; any other takes it
    when it first starts rtlat (run_starts), so that a test that renders,
    builds or reads files never waits for another group's hog."""
    if hog:
        _LOCK.hold(fcntl.LOCK_EX)


def run_starts(args):
    """rtlat ARGS is about to start in a test: a hog takes the lock
    exclusively, any other run shared, each until the test ends."""
    if not ACTIVE:
        return
    if is_hog(args) or sees_hogs(args):
        _LOCK.hold(fcntl.LOCK_EX)
    elif _LOCK.mode is None and not _no_measuring(args):
        _LOCK.hold(fcntl.LOCK_SH)


def test_ended(hog, next_hog, running):
    """A test's tear-down is done: a hog followed by a hog keeps the
    exclusive lock (the other groups wait once for a file's hogs, not
    once per test), as does a test that leaves rtlat running (a
    fixture's process, for the tests after it); otherwise the lock is
    given up."""
    if not ((hog and next_hog) or running):
        _LOCK.hold(None)


@contextlib.contextmanager
def cpu_hog():
    """Around whatever keeps a CPU busy at SCHED_FIFO inside a test (or a
    fixture): from here to the test's end no other group's test runs
    (not given back at the block's end: another thread of the test may
    have started a hog meanwhile)."""
    _LOCK.hold(fcntl.LOCK_EX)
    yield


# rtlat's tests that keep a CPU busy at SCHED_FIFO for their length: bintime
# reads the clock without a pause, response's work and sync's test 1 call
# without one. The suite runs them unless --only leaves them out.
SPINNERS = ("bintime", "response", "sync")


def _prio_zero(args):
    for i, a in enumerate(args):
        if a in ("-p", "--prio") and i + 1 < len(args) and args[i + 1] == "0":
            return True
        if a in ("-p0", "--prio=0"):
            return True
    return False


def _value(args, *names):
    """The value of the last of the options names in args; None: none."""
    v = None
    for i, a in enumerate(args):
        for n in names:
            if a == n and i + 1 < len(args):
                v = args[i + 1]
            elif n.startswith("--") and a.startswith(n + "="):
                v = a[len(n) + 1:]
    return v


def _short(args):
    """A run of -l N loops and no length: done in well under the second a
    starved thread is given (sync's and response's check runs: 200 calls,
    20 works), so it holds no CPU long enough to matter."""
    loops = _value(args, "-l", "--loops")
    return (loops is not None and loops.isdigit() and int(loops) > 0 and
            _value(args, "-D", "--duration") is None)


def is_hog(args):
    """Whether `rtlat ARGS` keeps a CPU busy at SCHED_FIFO for a second
    or more."""
    args = [str(a) for a in args]
    if not args:
        return False
    if args[0] == "suite":
        for i, a in enumerate(args):
            only = a[len("--only="):] if a.startswith("--only=") else \
                args[i + 1] if a == "--only" and i + 1 < len(args) else None
            if only is not None:
                return any(t in SPINNERS for t in only.split(","))
        return True
    return args[0] in SPINNERS and not _prio_zero(args) and not _short(args)


def sees_hogs(args):
    """Whether `rtlat ARGS` judges the machine by its busy real-time tasks
    (the doctor's rt_hogs check: a FIFO task over half a CPU for 200 ms
    prevents real time; qualify runs the doctor unless --force): it runs
    while no other group's test does, or another group's short spinner
    (response's 20 works, 200 ms) is what it sees (make check n2: the
    doctor's check run said "prevents real-time", exit 1)."""
    args = [str(a) for a in args]
    if not args or _no_measuring(args):
        return False
    return args[0] == "doctor" or (args[0] == "qualify" and "--force" not in args)


def _no_measuring(args):
    """rtlat ARGS measures nothing (its pages, lists, version)."""
    return not args or args[0].startswith("--") or "--help" in args or "-h" in args
