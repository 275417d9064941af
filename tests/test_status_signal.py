# SPDX-License-Identifier: GPL-2.0-or-later
"""SIGUSR1 (issue 33): every test, short run or long, with or without
checkpoints, prints its status so far on stderr (per series and thread:
samples, min, avg, p99, max and the time covered) and goes on to its end;
the cyclictest face prints cyclictest's own status block, as the real one
does; rtlat suite prints which tests are done, running and to come, and
its running test prints its status too. And rtlat suite passes
--timeline, --largest and --checkpoint to its tests.

Every run is started at once by one session fixture (the registry's tests
side by side with a whole suite), so the file costs the longest of them
in wall time. Nothing waits a fixed time for something to happen: each
signal is sent once the process answers it (rtlat's status thread,
"rtlat-status", is in /proc/PID/task; real cyclictest catches it), each
status is waited for as lines on stderr, with generous timeouts."""
import json
import re
import signal
import subprocess
import threading
import time
from pathlib import Path

import pytest

import rtlock

from conftest import RTLAT, args_for_length, has_thread, registry_names, settled_leaks, snapshot, watching
from test_longrun_checkpoint import measuring

RUN_S = 6               # each test's planned length: both signals fit early
WAIT_S = 60             # a status or an end, however loaded the machine
STATUS_LINE = re.compile(
    r"^rtlat (\S+): status after (\d+\.\d) s: (?:(\S+)( t\d+)?( \(CPU \d+\))?: "
    r"(\d+ samples, min [\d.]+ avg [\d.]+ p99 [\d.]+ max [\d.]+ us"
    r"|no sample was measured)|no series measured yet)$")
SAMPLES = re.compile(r": [1-9]\d* samples, |^T: .* C: *[1-9]")
# cyclictest's SIGUSR1 block: a rule, the title, a T: line per thread, a rule
CYC_RULE = "#---------------------------"
CYC_TITLE = "# cyclictest current status:"
T_LINE = re.compile(r"^T: ?\d+ \( *\d+\) P: ?\d+ I:\d+ C: *\d+ "
                    r"Min: *\d+ Act: *\d+ Avg: *\d+ Max: *\d+$")
REAL_CYCLICTEST = subprocess.run(["sh", "-c", "command -v cyclictest"],
                                 capture_output=True, text=True).stdout.strip()


def is_face(t):
    """A test named as its rt-tests tool whose tool has a status of its own
    (the cyclictest face, .status_signals): it prints that tool's status,
    not rtlat's lines (run.c's rule for the face). cyclicdeadline has none
    (SIGUSR1 would end it): its face prints rtlat's lines."""
    return t["compat"] == t["name"] == "cyclictest"


def short_args(t):
    """The test's check run, planned RUN_S seconds, request's samples for
    about RUN_S s at its -i 1 ms."""
    return args_for_length(t, RUN_S, RUN_S * 1000)


class Proc:
    """A process whose stderr is read line by line as it comes."""

    def __init__(self, cmd):
        self.p = subprocess.Popen(cmd, stdout=subprocess.PIPE,
                                  stderr=subprocess.PIPE, text=True)
        self.lines, self.out = [], ""
        self.cond = threading.Condition()
        # stderr line by line, stdout whole: each pipe has one reader
        self.readers = [threading.Thread(target=self._read, daemon=True),
                        threading.Thread(target=self._read_out, daemon=True)]
        for r in self.readers:
            r.start()

    def _read_out(self):
        self.out = self.p.stdout.read()

    def _read(self):
        for line in self.p.stderr:
            with self.cond:
                self.lines.append(line.rstrip("\n"))
                self.cond.notify_all()

    def wait_for(self, pred, timeout=WAIT_S):
        """Waits until pred(lines) is true (the run's lines so far)."""
        with self.cond:
            return self.cond.wait_for(lambda: pred(self.lines), timeout)

    def ready(self, timeout=WAIT_S):
        """True once the process answers SIGUSR1: rtlat once its status
        thread runs (named rtlat-status; SIGUSR1 is blocked from the run's
        first step), another program once it catches it."""
        deadline, pid = time.time() + timeout, self.p.pid
        while time.time() < deadline and self.p.poll() is None:
            try:
                for task in Path(f"/proc/{pid}/task").iterdir():
                    if (task / "comm").read_text().strip() == "rtlat-status":
                        return True
                text = Path(f"/proc/{pid}/status").read_text()
            except OSError:
                return False
            m = re.search(r"^SigCgt:\s*([0-9a-f]+)$", text, re.M)
            if self.p.args[0] != RTLAT and m and \
                    int(m.group(1), 16) & (1 << (signal.SIGUSR1 - 1)):
                return True
            time.sleep(0.02)
        return False

    def tasks_at_least(self, n, timeout=WAIT_S):
        """True once the process has n threads (or more)."""
        deadline, task = time.time() + timeout, Path(f"/proc/{self.p.pid}/task")
        while time.time() < deadline and self.p.poll() is None:
            try:
                if sum(1 for _ in task.iterdir()) >= n:
                    return True
            except OSError:
                return False
            time.sleep(0.02)
        return False

    def usr1(self):
        self.p.send_signal(signal.SIGUSR1)

    def end(self):
        """The exit status, once the process and both pipes are done."""
        try:
            self.p.wait(timeout=WAIT_S)
        except subprocess.TimeoutExpired:
            self.p.kill()
            self.p.wait()
        for r in self.readers:
            r.join(timeout=WAIT_S)
        return self.p.returncode


def rtlat_statuses(lines, name):
    """rtlat's status lines of test name, grouped by status (the lines of
    one status share its "after S s", printed together)."""
    groups = []
    for line in lines:
        m = STATUS_LINE.match(line)
        if not m or m.group(1) != name:
            continue
        if not groups or groups[-1][0] != m.group(2):
            groups.append((m.group(2), []))
        groups[-1][1].append(line)
    return groups


def cyc_statuses(lines):
    """cyclictest's status blocks in lines: the T: lines of each."""
    blocks = []
    for i, line in enumerate(lines):
        if line == CYC_TITLE and i and lines[i - 1] == CYC_RULE:
            try:
                end = lines.index(CYC_RULE, i + 1)
            except ValueError:
                continue        # not all read yet
            blocks.append(lines[i + 1:end])
    return blocks


def statuses(t, lines):
    return cyc_statuses(lines) if is_face(t) else rtlat_statuses(lines, t["name"])


def signal_until(proc, count, enough=lambda ls: True):
    """SIGUSR1, each once the last one's status is out, at least twice and
    until enough(lines) (a status with samples: the first may come before
    the first sample); returns how many statuses were seen after each."""
    seen = []
    if not proc.ready():
        return seen
    deadline = time.time() + WAIT_S
    while proc.p.poll() is None and time.time() < deadline:
        proc.usr1()
        k = len(seen) + 1
        proc.wait_for(lambda ls: count(ls) >= k)
        # apart by more than the status's 0.1 s resolution
        time.sleep(0.3)
        with proc.cond:
            seen.append(count(proc.lines))
            if len(seen) >= 2 and enough(proc.lines):
                break
    return seen


def one_test(t, d):
    j = d / f"{t['name']}.json"
    proc = Proc([RTLAT, t["name"]] + short_args(t) + ["--json", str(j)])
    seen = signal_until(proc, lambda ls: len(statuses(t, ls)),
                        lambda ls: any(SAMPLES.search(x) for x in ls))
    rc = proc.end()
    return {"seen": seen, "rc": rc, "lines": proc.lines, "json": j}


def suite_child(pid):
    """The test rtlat suite (pid) runs now, or None."""
    try:
        kids = Path(f"/proc/{pid}/task/{pid}/children").read_text().split()
    except OSError:
        return None
    for kid in kids:
        try:
            cmd = Path(f"/proc/{kid}/cmdline").read_text().split("\0")
        except OSError:
            continue
        if len(cmd) > 1 and cmd[0] == "rtlat":
            return cmd[1]
    return None


def suite_run(d):
    """The whole suite, short, with --timeline 1s --largest 16; SIGUSR1
    twice once its first test is done (a test is then done, one runs and
    others are to come)."""
    order = registry_names(suite=True)
    proc = Proc([RTLAT, "suite", "--duration", "1", "--timeline", "1s",
                 "--largest", "16", "-o", str(d / "suite"), "-q"])
    deadline = time.time() + WAIT_S
    while time.time() < deadline and proc.p.poll() is None and \
            suite_child(proc.p.pid) not in order[1:-1]:
        time.sleep(0.02)
    seen = signal_until(proc, lambda ls: sum(1 for x in ls if x.startswith(
        "rtlat suite: status after")))
    rc = proc.end()
    return {"seen": seen, "rc": rc, "lines": proc.lines, "order": order,
            "dir": d / "suite"}


def iterations_run(d):
    """--iterations 2: the first iteration runs in a child of the process
    started; SIGUSR1 to that process while the child measures."""
    t = measuring()[0]
    proc = Proc([RTLAT, t["name"]] + short_args(t) + ["--iterations", "2",
                                                      "--json", str(d / "it.json")])
    deadline = time.time() + WAIT_S
    sent = False
    while time.time() < deadline and proc.p.poll() is None and not sent:
        try:
            kids = Path(f"/proc/{proc.p.pid}/task/{proc.p.pid}/children").read_text().split()
        except OSError:
            break
        if any(has_thread(k, "rtlat-status") for k in kids):
            proc.usr1()
            sent = True
        time.sleep(0.02)
    rc = proc.end()
    return {"name": t["name"], "sent": sent, "rc": rc, "lines": proc.lines}


def real_cyclictest(d):
    """Real cyclictest and the face, the same short run, SIGUSR1 twice."""
    out = {}
    for name, cmd in (("real", [REAL_CYCLICTEST]), ("face", [RTLAT, "cyclictest"])):
        proc = Proc(cmd + ["-q", "-t", "2", "-i", "1000", "-D", str(RUN_S)])
        if name == "real":
            # rt-tests' cyclictest catches SIGUSR1 before it starts its
            # threads, and its status then reads a thread not made yet:
            # SIGSEGV, its /dev/shm/cyclictest<pid> left (39 times in 40
            # here). Its first status waits for its 2 threads; the face
            # is signalled as early as it answers.
            proc.tasks_at_least(3)
        out[name] = (signal_until(proc, lambda ls: len(cyc_statuses(ls))),
                     proc.end(), proc.lines)
    return out


# Each keeps the last CPU busy at SCHED_FIFO (bintime reads the clock
# without a pause at 95, sync's test 1 calls without one at 90): side by
# side, bintime starves sync's thread for seconds, and a CPU that could
# not be measured is an error (issue 45). So they run one after the other.
SPINNERS = ("bintime", "sync")


def one_after_another(ts, d):
    out = {}
    with rtlock.cpu_hog():      # nor beside another make check group's runs
        for t in ts:
            try:
                out[t["name"]] = one_test(t, d)
            except Exception as e:      # reported by the test that reads it
                out[t["name"]] = e
    return out


@pytest.fixture(scope="session")
def runs(tmp_path_factory):
    """Every run of this file: side by side, then SPINNERS and the suite
    (whose bintime, response and sync spin too: beside sync, the suite's
    bintime was starved, exit 1) one after the other."""
    d = tmp_path_factory.mktemp("usr1")
    before = snapshot()
    jobs = {t["name"]: (one_test, t, d) for t in measuring()
            if t["name"] not in SPINNERS}
    jobs["iterations"] = (iterations_run, d)
    if REAL_CYCLICTEST:
        jobs["real-cyclictest"] = (real_cyclictest, d)
    res = {}

    def go(key, fn, *args):
        try:
            res[key] = fn(*args)
        except Exception as e:      # reported by the test that reads it
            res[key] = e

    threads = [threading.Thread(target=go, args=(k,) + v) for k, v in jobs.items()]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    go("spinners", one_after_another, [t for t in measuring() if t["name"] in SPINNERS], d)
    res.update(res.pop("spinners"))
    with rtlock.cpu_hog():
        go("suite", suite_run, d)
    return res, settled_leaks(before)


def get(runs, key):
    r = runs[0][key]
    if isinstance(r, Exception):
        raise r
    return r


@pytest.mark.parametrize("name", [t["name"] for t in measuring()])
def test_sigusr1_prints_the_status_and_the_run_ends_normally(runs, name):
    """SIGUSR1 twice (or more, until a status has samples: the first may
    come before the first sample) in a short run without checkpoints:
    each time a status on stderr, a line per series and thread with its
    samples, min, avg, p99 and max so far and the time covered (the face:
    cyclictest's block); the run ends by itself, exit 0, its JSON
    complete."""
    t, = [t for t in measuring() if t["name"] == name]
    r = get(runs, name)
    err = "\n".join(r["lines"])
    assert len(r["seen"]) >= 2 and r["seen"] == list(range(1, len(r["seen"]) + 1)), \
        (r["seen"], err)
    assert r["rc"] == 0, err
    got = statuses(t, r["lines"])
    assert len(got) == len(r["seen"]), err
    for status in got:
        if is_face(t):
            # a T: line per thread, cyclictest's own layout
            assert status and all(T_LINE.match(x) for x in status), err
        else:
            assert status[1] and all(STATUS_LINE.match(x) for x in status[1]), err
    assert any(SAMPLES.search(x) for x in r["lines"]), err
    if not is_face(t):
        # the time covered grows from one status to the next
        covered = [float(g[0]) for g in got]
        assert covered == sorted(covered) and covered[-1] > covered[0], err
    d = json.loads(r["json"].read_text())
    assert d["complete"] is True and d["checkpoint"] is None


def test_runs_signalled_leave_nothing_behind(runs):
    assert not runs[1], f"left behind: {runs[1]}"


@pytest.mark.skipif(not REAL_CYCLICTEST, reason="rt-tests' cyclictest not installed")
def test_face_status_has_the_real_cyclictests_shape(runs):
    """SIGUSR1 as real cyclictest answers it: on stderr, the rule, the
    title, a T: line per thread (its T: layout), the rule; the run goes on
    to its end. The real one and the face side by side, line shapes
    compared (not their figures)."""
    got = get(runs, "real-cyclictest")

    def shape(lines):
        out = []
        for x in lines:
            if x in (CYC_RULE, CYC_TITLE):
                out.append(x)
            elif T_LINE.match(x):
                out.append("T:")
        return out

    shapes = {}
    for name, (seen, rc, lines) in got.items():
        assert len(seen) >= 2 and rc == 0, (name, lines)
        blocks = cyc_statuses(lines)
        assert len(blocks) == len(seen) and all(len(b) == 2 for b in blocks), \
            (name, lines)
        # one block's shape (the number of signals may differ)
        shapes[name] = shape(lines)[:len(shape(lines)) // len(blocks)]
    assert shapes["face"] == shapes["real"]


def test_sigusr1_reaches_an_iterations_child(runs):
    """--iterations N runs each iteration but the last in a child: a
    SIGUSR1 to the process started goes on to it, whose status prints
    within that iteration."""
    r = get(runs, "iterations")
    err = "\n".join(r["lines"])
    assert r["sent"] and r["rc"] == 0, err
    first = r["lines"].index(f"rtlat {r['name']}: iteration 1 of 2")
    second = r["lines"].index(f"rtlat {r['name']}: iteration 2 of 2")
    assert rtlat_statuses(r["lines"][first:second], r["name"]), err


def names(line, label):
    """The test names of a "rtlat suite: LABEL: a, b (exit status N)" line."""
    assert line.startswith(f"rtlat suite: {label}:"), line
    rest = line.split(":", 2)[2].strip()
    return [] if rest == "none" else [x.split()[0] for x in rest.split(", ")]


def test_suite_sigusr1_lists_the_tests_and_the_running_ones_status(runs):
    """SIGUSR1 to rtlat suite: the tests done, the one running (for how
    long), those to come, in the suite's order, and the running test's own
    status after it (the suite forwards SIGUSR1); the suite goes on."""
    r = get(runs, "suite")
    order, lines = r["order"], r["lines"]
    err = "\n".join(lines)
    assert r["rc"] == 0, err
    assert len(r["seen"]) >= 2, err
    starts = [i for i, x in enumerate(lines) if x.startswith("rtlat suite: status after")]
    assert len(starts) == len(r["seen"]), err
    followed = 0
    for i in starts:
        done, running = names(lines[i + 1], "done"), lines[i + 2]
        to_come = names(lines[i + 3], "to come")
        m = re.match(r"^rtlat suite: running: (?:(\S+) for \d+\.\d s|none)$", running)
        assert m, err
        now = [m.group(1)] if m.group(1) else []
        # each test once, in the suite's order, one of the three
        assert done + now + to_come == order and done, err
        if now and rtlat_statuses(lines[i + 4:], now[0]):
            followed += 1
    # a test ending as the signal came may print none: one is enough
    assert followed >= 1, err


def test_suite_passes_timeline_and_largest_to_every_test(runs):
    """rtlat suite --timeline 1s --largest 16: each test's JSON in the
    results directory has its time line (1 s steps) and its 16 largest."""
    r = get(runs, "suite")
    for name in r["order"]:
        d = json.loads((r["dir"] / f"{name}.json").read_text())
        assert d["timeline"] and d["timeline"]["step_s"] >= 1.0, name
        assert d["timeline"]["series"], name
        assert d["largest"] and d["largest"]["k"] == 16, name
        assert d["complete"] is True, name


def test_status_during_sync_test_2_counts_its_handoffs():
    """rtlat sync's test 2 (the switch, through the pair harness): a
    status while it measures shows its hand-offs so far. It said
    "handoff: no sample was measured" until the test ended (the series is
    the pair's until then)."""
    with watching(["sync", "--test", "switch", "-l", "2000000"]) as w:
        m = w.measuring(r"status after [\d.]+ s: handoff: (\d+) samples")
        assert int(m.group(1)) > 0
        w.send_signal(signal.SIGINT)
        out, err = w.communicate(timeout=60)
    assert w.returncode == 0, err
    assert "test 2 switch" in out, out
