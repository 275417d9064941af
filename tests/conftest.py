# SPDX-License-Identifier: GPL-2.0-or-later
"""Shared fixtures: the binary under test, leak checks, and the waits
every test uses to act at the right moment (a line, a file, a thread's
state): no test places a signal with a fixed sleep."""
import contextlib
import functools
import io
import json
import os
import random
import re
import resource
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import pytest

import rtlock

ROOT = Path(__file__).resolve().parent.parent
RTLAT = os.environ.get("RTLAT_BIN", str(ROOT / "rtlat"))


@functools.lru_cache(maxsize=None)
def registry():
    """The tests as the binary declares them (rtlat --list): what every
    test file reads instead of a list of its own. tests/test_main.py holds
    the one literal list that checks it."""
    r = subprocess.run([RTLAT, "--list"], capture_output=True, text=True,
                       timeout=30)
    return tuple(json.loads(r.stdout)["tests"])


def args_for_length(t, seconds, samples):
    """A registry test's check run (its check_args) planned for seconds:
    its length option set to it, no loop count (-l 0: until the length
    or a stop), request's --samples given as samples."""
    words, out, i = t["check_args"].split(), [], 0
    while i < len(words):
        w = words[i]
        if w in ("-l", "--loops", "--samples") and i + 1 < len(words):
            out += [w, str(samples) if w == "--samples" else "0"]
            i += 2
        elif w == t["length_option"] and i + 1 < len(words):
            i += 2
        else:
            out.append(w)
            i += 1
    if t["length_option"]:
        out += [t["length_option"], str(seconds)]
    return out


def registry_names(family=None, suite=False):
    """Test names in registry order; of one family; or those the suite
    runs, in the suite's order."""
    tests = [t for t in registry() if family in (None, t["family"])]
    if suite:
        tests = sorted((t for t in tests if t["suite_order"] is not None),
                       key=lambda t: t["suite_order"])
    return [t["name"] for t in tests]


def registry_compat(family=None):
    """{name: compatible name} of the tests that have one."""
    return {t["name"]: t["compat"] for t in registry()
            if t["compat"] and family in (None, t["family"])}


def _is_asan(path):
    try:
        with open(path, "rb") as f:
            return b"__asan_init" in f.read()
    except OSError:
        return False


# The binary under test was built with AddressSanitizer (make check-asan).
ASAN = _is_asan(RTLAT)


def ensure_mqueue_mounted():
    if not os.path.ismount("/dev/mqueue"):
        os.makedirs("/dev/mqueue", exist_ok=True)
        subprocess.run(["mount", "-t", "mqueue", "none", "/dev/mqueue"],
                       check=False, capture_output=True)


TRACEFS_DIRS = ("/sys/kernel/tracing", "/sys/kernel/debug/tracing")
# A shell prefix that makes a private mount namespace look like a freshly
# booted machine's for tracing: tracefs and debugfs unmounted.
UNMOUNT_TRACEFS = ("for m in /sys/kernel/debug/tracing /sys/kernel/tracing "
                   "/sys/kernel/debug; do umount -l $m 2>/dev/null; done; "
                   "test -e /sys/kernel/tracing/tracing_on && exit 78; ")


def tracefs_unavailable():
    """Why rtlat cannot have tracefs on this machine, or None: it is
    mounted and writable, or rtlat (as root) mounts it itself."""
    if any(os.access(f"{d}/tracing_on", os.W_OK) for d in TRACEFS_DIRS):
        return None
    if os.geteuid() != 0:
        return "tracefs is not mounted and only root can mount it"
    with open("/proc/filesystems") as f:
        if not any(line.split()[-1] in ("tracefs", "debugfs") for line in f):
            return "this kernel has no tracefs"
    return None


# For tests that need tracefs (--explain, breaktrace): skipped with the
# reason where the machine cannot give it, never failed.
needs_tracefs = pytest.mark.skipif(tracefs_unavailable() is not None,
                                   reason=f"{tracefs_unavailable()}")


def tracefs_instances():
    """The names under tracefs' instances/ ({} while not mounted: rtlat
    mounts it at the first run that needs it)."""
    for d in TRACEFS_DIRS:
        try:
            return {p.name for p in Path(d, "instances").iterdir()}
        except OSError:
            continue
    return set()


def in_mount_ns(shell, timeout=60):
    """Run a shell snippet in a private mount namespace, or skip. Exit 78
    from the snippet: the namespace could not be made fresh (skip)."""
    if not shutil.which("unshare"):
        pytest.skip("unshare(1) missing")
    probe = subprocess.run(["unshare", "-m", "true"], capture_output=True)
    if probe.returncode:
        pytest.skip("cannot make a mount namespace here")
    r = subprocess.run(["unshare", "-m", "--propagation", "private", "sh",
                        "-c", shell], capture_output=True, text=True,
                       timeout=timeout)
    if r.returncode == 78:
        pytest.skip("tracefs could not be unmounted in a private namespace")
    return r


def ipc_sems():
    out = subprocess.run(["ipcs", "-s"], capture_output=True, text=True).stdout
    return {line.split()[1] for line in out.splitlines()
            if len(line.split()) > 1 and line.split()[1].isdigit()}


# make check runs its tests in two groups at once (tests/run-tests): each
# group's runs carry the group's name in their environment, so a group
# counts its own processes only.
GROUP = os.environ.get("RTLAT_TEST_GROUP", "")


def of_this_group(pid):
    if not GROUP:
        return True
    try:
        env = Path(f"/proc/{pid}/environ").read_bytes().split(b"\0")
    except OSError:
        return False
    return f"RTLAT_TEST_GROUP={GROUP}".encode() in env


def rtlat_processes():
    """PIDs of processes running the binary under test (any name: workers,
    janitor, forked children). Matched on the executable's path, so runs of
    another checkout's rtlat on the same machine are not counted, nor
    those of the other group of make check's tests."""
    me = os.path.realpath(RTLAT)
    pids = set()
    for d in Path("/proc").iterdir():
        if not d.name.isdigit():
            continue
        try:
            exe = os.readlink(d / "exe")
        except OSError:
            continue
        if exe.removesuffix(" (deleted)") == me and of_this_group(int(d.name)):
            pids.add(int(d.name))
    return pids


def snapshot():
    ensure_mqueue_mounted()
    tmp = Path(os.environ.get("TMPDIR", "/tmp"))
    return {
        "mqueue": set(os.listdir("/dev/mqueue")),
        "sems": ipc_sems(),
        # rtlat names every shm object and named semaphore "rtlat-..."
        # (cleanup_unique_name), but for its cyclictest face's status file,
        # named as cyclictest names its own: cyclictest<pid>. (A real
        # cyclictest removes its file when it ends as the tests end it.)
        "shm": {n for n in os.listdir("/dev/shm")
                if "rtlat" in n or re.fullmatch(r"cyclictest\d+", n)},
        # Everything in the runs' private TMPDIR, and rtlat's names in /tmp
        # in case something ignored TMPDIR.
        "tmp": {str(p) for p in tmp.iterdir()} |
               {str(p) for p in Path("/tmp").glob("rtlat*")},
        "procs": rtlat_processes(),
    }


@pytest.fixture(autouse=True)
def private_tmpdir(tmp_path_factory, monkeypatch):
    """Each test's runs inherit a private, empty TMPDIR: the leak check
    sees everything they leave there, and nothing other programs on this
    machine leave in /tmp."""
    monkeypatch.setenv("TMPDIR", str(tmp_path_factory.mktemp("tmpdir")))


def leaks(before, after):
    """What appeared between two snapshots (the run's leftovers)."""
    return {k: sorted(after[k] - before[k]) for k in before
            if after[k] - before[k]}


def settled_leaks(before):
    """What a run left behind, allowing its processes 2 s to go."""
    deadline = time.time() + 2.0
    while True:
        found = leaks(before, snapshot())
        if not found or time.time() > deadline:
            return found
        time.sleep(0.05)


@pytest.fixture
def leakcheck():
    """Yields a checker: call it at the end of a test to assert no leak."""
    before = snapshot()

    def check():
        found = settled_leaks(before)
        assert not found, f"left behind: {found}"
    yield check


@pytest.fixture(scope="session")
def suite_run(tmp_path_factory):
    """One real `rtlat suite --duration 1 --explain` for the suite's and
    the report's tests (a suite run is the longest thing make check does):
    (its result, its results directory, what it left behind)."""
    d = tmp_path_factory.mktemp("suite") / "res"
    before = snapshot()
    r = run(["suite", "--duration", "1", "--explain", "-o", str(d)], timeout=120)
    return r, d, settled_leaks(before)


@contextlib.contextmanager
def reachable_binary():
    """A copy of the binary in a mode-755 directory, for runs as another
    user: the checkout may sit in root's mode-700 home, which that user
    cannot enter."""
    with tempfile.TemporaryDirectory(prefix="rtlat-nobody-") as d:
        os.chmod(d, 0o755)
        exe = os.path.join(d, "rtlat")
        shutil.copy2(RTLAT, exe)
        os.chmod(exe, 0o755)
        yield exe


def limited(limit, argv, user=None, env=None, timeout=60):
    """Run rtlat under prlimit (as uid user, if given). Under ASan the leak
    checker is off: at exit it needs threads and file descriptors of its
    own, which these very limits deny it (it then reports a fatal error
    of its own, not one of rtlat's)."""
    if ASAN:
        env = {**(env or os.environ), "ASAN_OPTIONS": "detect_leaks=0"}
    if not user:
        return subprocess.run(["prlimit", limit, RTLAT] + argv,
                              capture_output=True, text=True,
                              timeout=timeout, env=env, cwd="/")
    with reachable_binary() as exe:
        cmd = ["setpriv", f"--reuid={user}", f"--regid={user}",
               "--clear-groups", "prlimit", limit, exe] + argv
        return subprocess.run(cmd, capture_output=True, text=True,
                              timeout=timeout, env=env, cwd="/")


def run(args, argv0=None, timeout=60, **kw):
    """Run rtlat (optionally as a compatible name via argv0)."""
    cmd = [RTLAT] + list(args)
    exe = None
    if argv0:
        exe = RTLAT
        cmd = [argv0] + list(args)
    return subprocess.run(cmd, executable=exe, capture_output=True,
                          text=True, timeout=timeout, **kw)


def start(args, argv0=None, **kw):
    cmd = [argv0 or RTLAT] + list(args)
    return subprocess.Popen(cmd, executable=RTLAT, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, **kw)


@contextlib.contextmanager
def reaped(p):
    """A started process for a with-block: one the test did not finish (an
    assertion failed) is killed and reaped, so it cannot outlive the test."""
    try:
        yield p
    finally:
        if p.poll() is None:
            p.kill()
            p.wait()


def running(args, **kw):
    """start() for a with-block (reaped)."""
    return reaped(start(args, **kw))


def children_of(pid):
    """pid's child processes (those of each of its threads), from /proc:
    quick enough to poll while a run's phase lasts."""
    out = []
    try:
        for task in Path(f"/proc/{pid}/task").iterdir():
            try:
                out += [int(x) for x in (task / "children").read_text().split()]
            except OSError:
                continue
    except OSError:
        pass
    return sorted(out)


def descendants(pid):
    """Every process under pid (children, theirs, ...)."""
    out, todo = [], [pid]
    while todo:
        kids = children_of(todo.pop())
        out += kids
        todo += kids
    return out


def handler_installed(pid, sig):
    """Is sig caught (SigCgt) by pid right now? False before main()."""
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith("SigCgt:"):
                    return bool(int(line.split()[1], 16) >> (sig - 1) & 1)
    except OSError:
        pass
    return False


# How long a wait for an event may take before the test fails: generous,
# as a loaded machine can take seconds to start a run (each wait returns
# as soon as its event comes, so a passing test never waits this long).
WAIT_S = 60


def wait_for(pred, what, timeout=WAIT_S, proc=None, every=0.02):
    """Polls pred() until it returns something true, and returns that.
    Fails the test naming what it waited for (what, or what() to say the
    state then), after timeout s, or as soon as proc (a process the event
    depends on) has ended without it."""
    deadline = time.monotonic() + timeout
    while True:
        got = pred()
        if got:
            return got
        ended = proc is not None and proc.poll() is not None
        if ended or time.monotonic() > deadline:
            said = what() if callable(what) else what
            pytest.fail(f"the process ended (status {proc.returncode}) before {said}"
                        if ended else f"waited {timeout} s for {said}")
        time.sleep(every)


def wait_file(path, what=None, timeout=WAIT_S, proc=None):
    """Waits until path exists (and returns it)."""
    path = Path(path)
    return wait_for(lambda: path.exists() and path, what or f"{path} to appear",
                    timeout, proc)


def _ephemeral_low():
    try:
        with open("/proc/sys/net/ipv4/ip_local_port_range") as f:
            return int(f.read().split()[0])
    except (OSError, ValueError, IndexError):
        return 32768


def free_port():
    """A TCP port on 127.0.0.1 nobody listens on now, below the kernel's
    ephemeral range: a port bind(0) gave could be handed, before the
    test's server binds it, to a client's connect() in a test group
    running beside this one (the groups share the network namespace),
    and the server then failed to start (exit 1)."""
    low = _ephemeral_low()
    for _ in range(200):
        port = random.randrange(10000, max(10001, low))
        with socket.socket() as s:
            try:
                s.bind(("127.0.0.1", port))
            except OSError:
                continue
            return port
    raise RuntimeError("no free TCP port below the ephemeral range")


def wait_line(stream, pattern, timeout=15):
    """Reads lines of a pipe (a Popen's stdout or stderr) until one
    matches; returns the match and the lines read. (Watched.wait_line is
    the same for a process whose both pipes are read as they come.)"""
    seen = []
    deadline = time.time() + timeout
    while time.time() < deadline:
        line = stream.readline()
        if not line:
            break
        seen.append(line)
        m = re.search(pattern, line)
        if m:
            return m, seen
    raise AssertionError(f"no line matching {pattern!r} in {seen}")


def tasks(pid):
    """{tid: (name, Cpus_allowed_list)} of each thread of pid ({} once it
    has gone)."""
    out = {}
    try:
        for task in Path(f"/proc/{pid}/task").iterdir():
            try:
                st = (task / "status").read_text()
            except OSError:
                continue
            name = re.search(r"^Name:\s+(.*)$", st, re.M).group(1)
            cpus = re.search(r"^Cpus_allowed_list:\s+(\S+)", st, re.M).group(1)
            out[int(task.name)] = (name, cpus)
    except OSError:
        pass
    return out


def has_thread(pid, name):
    return any(n == name for n, _ in tasks(pid).values())


def wait_threads_pinned(pid, n, name, timeout=WAIT_S, proc=None):
    """The CPU of each thread of pid called name that is pinned to one CPU,
    in thread id order, once n of them are (a thread pins itself after it
    starts: read before, its affinity is still its parent's)."""
    def pinned():
        rows = [cpus for _, (nm, cpus) in sorted(tasks(pid).items())
                if nm == name and re.fullmatch(r"\d+", cpus)]
        return rows if len(rows) >= n else None
    return wait_for(pinned, lambda: f"{n} threads named {name} each pinned "
                    f"to one CPU (threads now: {tasks(pid)})", timeout, proc)


# A status line (SIGUSR1) that counts samples: rtlat's, or a T: line of
# the cyclictest face's (and real cyclictest's) status block.
STATUS_LINE = re.compile(r"^rtlat \S+: status after |^T: ?\d+ \(")
MEASURED = re.compile(r": [1-9]\d* samples, |^T: .* C: *[1-9]")


class Watched:
    """A started process whose stdout and stderr are read line by line as
    they come, by a thread each, so a test can wait for a line. Has what
    stop() and the tests use of a Popen (pid, poll, send_signal, kill,
    wait, communicate, returncode)."""

    def __init__(self, cmd, executable=None, **kw):
        self.p = subprocess.Popen(cmd, executable=executable,
                                  stdout=subprocess.PIPE,
                                  stderr=subprocess.PIPE, text=True, **kw)
        self.pid, self.args = self.p.pid, self.p.args
        self.out, self.err = [], []
        self.cond = threading.Condition()
        self.readers = [threading.Thread(target=self._read, args=(f, to),
                                         daemon=True)
                        for f, to in ((self.p.stdout, self.out),
                                      (self.p.stderr, self.err))]
        for r in self.readers:
            r.start()

    def _read(self, f, to):
        for line in f:
            with self.cond:
                to.append(line)
                self.cond.notify_all()

    @property
    def returncode(self):
        return self.p.returncode

    def poll(self):
        return self.p.poll()

    def send_signal(self, sig):
        self.p.send_signal(sig)

    def kill(self):
        self.p.kill()

    def wait(self, timeout=None):
        return self.p.wait(timeout=timeout)

    def communicate(self, timeout=None):
        """stdout and stderr whole, once the process and both pipes are
        done."""
        self.p.wait(timeout=timeout)
        for r in self.readers:
            r.join(timeout=timeout)
        with self.cond:
            return "".join(self.out), "".join(self.err)

    def wait_line(self, pattern, stream="err", timeout=WAIT_S, what=None):
        """The match of the first line of stdout ("out") or stderr ("err")
        that matches pattern, once there is one. Fails naming what it
        waited for, with the lines so far, if the process ends first."""
        rx = re.compile(pattern)
        lines = self.out if stream == "out" else self.err

        def seen():
            return next((m for m in map(rx.search, lines) if m), None)
        deadline = time.monotonic() + timeout
        with self.cond:
            while not seen():
                left = deadline - time.monotonic()
                done = self.p.poll() is not None and \
                    not any(r.is_alive() for r in self.readers)
                if left <= 0 or done:
                    pytest.fail(f"{'ended' if done else f'waited {timeout} s'} "
                                f"before {what or f'a line matching {pattern!r}'}"
                                f" on std{stream}: {lines[-20:]}")
                self.cond.wait(min(left, 0.1))
            return seen()

    def ready(self):
        """Waits until the run answers SIGUSR1: its status thread
        (rtlat-status) is there, or its child's (--iterations: the child
        runs the iteration, and the SIGUSR1 goes on to it). SIGUSR1 is
        blocked from the run's first step; sent before, it would end the
        process."""
        wait_for(lambda: any(has_thread(q, "rtlat-status") for q in
                             [self.pid] + children_of(self.pid)),
                 "the run's status thread (rtlat-status)", proc=self.p)

    def measuring(self, pattern=MEASURED, timeout=WAIT_S, every=0.1):
        """Waits until the run has measured: SIGUSR1, once it answers it,
        then again (every s at most) once each status is out, until a
        status line matches pattern (by default: a series with samples).
        Returns the match. The statuses are on stderr with the rest
        (STATUS_LINE; without_statuses() takes them out)."""
        self.ready()
        rx, deadline = re.compile(pattern), time.monotonic() + timeout
        while True:
            with self.cond:
                n = len(self.err)
                m = next((m for m in map(rx.search, self.err) if m), None)
            if m:
                return m
            if time.monotonic() > deadline:
                pytest.fail(f"waited {timeout} s for a status matching "
                            f"{pattern!r}: {self.err[-20:]}")
            sent = time.monotonic()
            self.send_signal(signal.SIGUSR1)
            # its status's lines, or the run's end
            with self.cond:
                self.cond.wait_for(lambda: len(self.err) > n or
                                   self.p.poll() is not None, 5)
            if self.p.poll() is not None:
                pytest.fail(f"the run ended before a status matching "
                            f"{pattern!r}: {self.err[-20:]}")
            # a poll's pace, not a moment: the next status is asked for
            # no sooner than every s after this one
            time.sleep(max(0, sent + every - time.monotonic()))


def without_statuses(err):
    """stderr without the SIGUSR1 status lines a wait asked for."""
    return "".join(x for x in err.splitlines(True) if not STATUS_LINE.search(x))


@contextlib.contextmanager
def watching(args, argv0=None, cmd=None, **kw):
    """running() with a Watched process: rtlat with args (optionally as a
    compatible name), or cmd as it is. Killed and reaped if the block
    leaves it running."""
    if cmd is None:
        cmd = [argv0 or RTLAT] + list(args)
        kw.setdefault("executable", RTLAT)
    w = Watched(cmd, **kw)
    try:
        with reaped(w):
            yield w
    finally:
        for r in w.readers:
            r.join(timeout=5)


# A run's own threads that do not measure (src/harness/status.h).
HELPERS = {"rtlat-status"}


def measuring_tasks(pid):
    """{tid: CPU time so far in clock ticks} of the measuring threads of pid
    and its descendants: not the janitor process, nor a run's own helper
    threads (HELPERS), which every run has from its start."""
    out, todo = {}, [pid]
    while todo:
        q = todo.pop()
        try:
            if Path(f"/proc/{q}/comm").read_text().strip() == "rtlat-janitor":
                continue
            for t in os.listdir(f"/proc/{q}/task"):
                st = Path(f"/proc/{q}/task/{t}/stat").read_text()
                name, rest = st[st.index("(") + 1:].rsplit(")", 1)
                if name not in HELPERS:
                    f = rest.split()
                    out[int(t)] = int(f[11]) + int(f[12])
        except OSError:
            continue
        todo += children_of(q)
    return out


def wait_busy(pid, n, ticks=1, proc=None):
    """Waits until n measuring threads of pid (or of its workers), not its
    main thread, have each run ticks clock ticks on a CPU: for what no
    status shows (pmq's throughput, sync's test 2), the sign that its
    threads pass messages or hand-offs, as a thread blocked on a queue or
    a semaphore uses no CPU time."""
    def busy():
        return sum(v >= ticks for t, v in measuring_tasks(pid).items()
                   if t != pid) >= n
    return wait_for(busy, lambda: f"{n} measuring threads each {ticks} ticks "
                    f"on a CPU (now {measuring_tasks(pid)})", proc=proc)


def stop(proc, sig=signal.SIGINT, timeout=15):
    proc.send_signal(sig)
    out, err = proc.communicate(timeout=timeout)
    return proc.returncode, out, err


def read_pty(master):
    """Everything written to a pseudo-terminal until its last writer
    closes it (Linux reports that as EIO), then close it."""
    data = b""
    while True:
        try:
            chunk = os.read(master, 4096)
        except OSError:
            break
        if not chunk:
            break
        data += chunk
    os.close(master)
    return data


def promtool_check(path):
    """Prometheus' own lint of a metrics file (promtool check metrics, the
    Debian package prometheus: tests/install-deps): clean, or the test
    fails with what it says. Not installed: a skip saying so."""
    exe = shutil.which("promtool")
    if not exe:
        pytest.skip("promtool is not installed (Debian package prometheus; "
                    "tests/install-deps)")
    with open(path, "rb") as f:
        r = subprocess.run([exe, "check", "metrics"], stdin=f,
                           capture_output=True, text=True, timeout=60)
    assert (r.returncode, r.stdout, r.stderr) == (0, "", ""), (path, r.stdout + r.stderr)


@pytest.fixture(scope="session")
def check_runs(tmp_path_factory):
    """Every registry test's short run (its check_args) at once, each with
    --json (and --openmetrics where it has series): {name: (result, json path,
    openmetrics path or None)}. For the schema's and KCIDB's tests."""
    d = tmp_path_factory.mktemp("check-runs")
    procs = {}
    for t in registry():
        args = [t["name"]] + (t["check_args"] or "").split()
        js, om = d / f"{t['name']}.json", None
        args += ["--json", str(js)]
        if t["series"]:     # a test with no series (doctor, hwlat) has no figures
            om = d / f"{t['name']}.om"
            args += ["--openmetrics", str(om)]
        procs[t["name"]] = (start(args), js, om)
    out = {}
    for name, (p, js, om) in procs.items():
        try:
            so, se = p.communicate(timeout=60)
        finally:
            if p.poll() is None:
                p.kill()
                p.wait()
        out[name] = (subprocess.CompletedProcess(p.args, p.returncode, so, se),
                     js, om)
    return out


def real_cyclictest_json(path):
    """rt-tests' cyclictest's --json file as a dict. cyclictest writes
    "avg": -nan for a thread with no cycles (one that started late on a
    loaded machine, ended by another's -l), which is not JSON: read as
    NaN, the float it meant. Only for the real one's files: rtlat's must
    parse as they are."""
    return json.loads(re.sub(r":\s*-nan\b", ": NaN", Path(path).read_text()))


# ---------------------------------------------------------------------------
# rtlat-report as the tests run it (issue 48: one report() for every test
# file) and the committed results the report's tests read instead of live
# rtlat runs (tests/fixtures/report, made by its make-fixtures script).

FIXTURES = ROOT / "tests" / "fixtures" / "report"
REPORT = str(Path(sys.executable).parent / "rtlat-report")


def _report_main():
    """rtlat-report's main(), found as the command finds it (its
    console_scripts entry point), wherever its module lives."""
    from importlib.metadata import entry_points
    ep, = entry_points(group="console_scripts", name="rtlat-report")
    return ep.load()


def _set_environ(values):
    """Set each name to its value in os.environ; None unsets it."""
    for k, v in values.items():
        if v is None:
            os.environ.pop(k, None)
        else:
            os.environ[k] = v


@contextlib.contextmanager
def _environ(changes):
    """os.environ with changes ({name: value, or None to unset}) for a
    with-block."""
    old = {k: os.environ.get(k) for k in changes}
    _set_environ(changes)
    try:
        yield
    finally:
        _set_environ(old)


def report(*args, env=None, here=False, limit_as=None, timeout=120):
    """rtlat-report ARGS: a CompletedProcess (returncode, stdout, stderr).
    env: changes to the environment ({name: value, or None to unset}).
    here: its main() in this process (matplotlib imported once: a second
    saved per call on a loaded machine), else the installed command.
    limit_as: the command's address space in bytes (RLIMIT_AS; numpy's
    BLAS then gets one thread, as it reserves address space per CPU)."""
    args = [str(a) for a in args]
    env = dict(env or {})
    if here:
        out, err = io.StringIO(), io.StringIO()
        with _environ(env), contextlib.redirect_stdout(out), \
                contextlib.redirect_stderr(err):
            try:
                rc = _report_main()(args)
            except SystemExit as e:
                rc = e.code
        return subprocess.CompletedProcess(args, rc, out.getvalue(), err.getvalue())

    def limit():
        resource.setrlimit(resource.RLIMIT_AS, (limit_as, limit_as))
    if limit_as:
        env.update(OPENBLAS_NUM_THREADS="1", OMP_NUM_THREADS="1")
    full = {k: v for k, v in {**os.environ, **env}.items() if v is not None}
    return subprocess.run([REPORT, *args], capture_output=True, text=True,
                          timeout=timeout, env=full,
                          preexec_fn=limit if limit_as else None)


# rtlat-report's main() in this process (the imports paid once).
report_here = functools.partial(report, here=True)


def fixture_json(*path):
    """A committed result (tests/fixtures/report/PATH...) as a dict."""
    return json.loads(FIXTURES.joinpath(*path).read_text())


class _HogWatch(subprocess.Popen):
    """Every process a test starts (subprocess.run and Popen, directly or
    through the helpers above): one that runs rtlat (by its path, as a
    compatible name, or in a shell's command) takes make check's
    cross-group lock first (tests/rtlock.py): exclusively if it keeps a
    CPU busy at SCHED_FIFO, shared otherwise. Kept for the test's end,
    which holds on while one of them still runs."""

    started = []

    def __init__(self, args, *a, **kw):
        words = [str(w) for w in args] if isinstance(args, (list, tuple)) else [str(args)]
        rtlat = None
        if RTLAT in words:
            rtlat = words[words.index(RTLAT) + 1:]
        elif kw.get("executable") == RTLAT:
            rtlat = words[1:]
        elif any(RTLAT in w for w in words):
            rtlat = ["(shell)"]
        if rtlat is not None:
            rtlock.run_starts(rtlat)
        super().__init__(args, *a, **kw)
        if rtlat is not None:
            _HogWatch.started.append(self)

    @classmethod
    def any_running(cls):
        cls.started = [p for p in cls.started if p.poll() is None]
        return bool(cls.started)


subprocess.Popen = _HogWatch


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item, nextitem):
    """Each test under make check's cross-group lock (tests/rtlock.py),
    its fixtures' set-up and tear-down included: a test marked rt_hog
    (it keeps a CPU busy at SCHED_FIFO) runs while no other group's test
    does; the others take it as they start rtlat (_HogWatch)."""
    hog = item.get_closest_marker("rt_hog") is not None
    rtlock.test_starts(hog)
    try:
        yield
    finally:
        rtlock.test_ended(hog, nextitem is not None and
                          nextitem.get_closest_marker("rt_hog") is not None,
                          _HogWatch.any_running())
