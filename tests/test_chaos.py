# SPDX-License-Identifier: GPL-2.0-or-later
"""Chaos (issue 14): for every subcommand and mode, SIGKILL, SIGTERM or
SIGINT to the parent or to a random descendant at a random moment (half of
the trials within the first 20 ms of start-up). After each trial: nothing
left (IPC objects, shm, temp files, tracefs instances, processes) and the
next run works.

CHAOS_TRIALS (make chaos: 20) trials per scenario and signal. Without it,
make check runs a bounded sample: one trial per scenario, or as many as
fit in CHAOS_S seconds, the signal drawn at random. CHAOS_SEED repeats a
run (the seed is in every failure message)."""
import os
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

from conftest import (RTLAT, args_for_length, descendants, free_port, leaks,
                      registry, registry_names, snapshot, start,
                      tracefs_instances, wait_file, watching)

# Its bintime (-a 0-1, FIFO 95) and sync runs hold their CPUs from every
# real-time thread below: no other make check group's test runs beside
# this file's (tests/rtlock.py).
pytestmark = pytest.mark.rt_hog

# The trials run in a private IPC and mount namespace (a pytest of this
# file inside unshare -im) with their own /dev/mqueue and /dev/shm: other
# runs on this shared machine then cannot show up as our leftovers, and
# ours are all seen (their objects die with the namespace otherwise).
INNER = os.environ.get("CHAOS_INNER") == "1"
TRIALS = int(os.environ.get("CHAOS_TRIALS", "0"))
BUDGET_S = float(os.environ.get("CHAOS_S", "0"))
SEED = int(os.environ.get("CHAOS_SEED", str(int(time.time()))))
SIGNALS = [signal.SIGKILL, signal.SIGTERM, signal.SIGINT]

# One long-enough run per subcommand (every test of the registry, rtlat
# --list: its check run made 30 s long; a stop ends it early) and mode (a
# test's run with a mode's arguments added), and rtlat suite.
RUN_S = 30
MODES = {
    "sigwait-f": ("sigwait", ["-f"]),
    "svsem-f": ("svsem", ["-f"]),
    "ptsem-condvar": ("ptsem", ["--type", "condvar"]),
    "ptsem-named": ("ptsem", ["--type", "named-sem"]),
    "timer-explain": ("timer", ["--explain"]),
    "svsem-f-explain": ("svsem", ["-f", "--explain"]),
    "bintime-explain": ("bintime", ["-a", "0-1", "--explain"]),
    "request-clients": ("request", ["--clients", "3"]),
    "sync-f": ("sync", ["--test", "switch", "--type", "sysv", "-f"]),
    "sync-inversion": ("sync", ["--test", "inversion", "--rounds", "1000"]),
}


def scenarios():
    base = {t["name"]: [t["name"]] + args_for_length(t, RUN_S, 10 ** 6)
            for t in registry()}
    out = dict(base)
    for name, (test, extra) in MODES.items():
        out[name] = base[test] + extra
    out["request-s-c"] = None		# server and client, started below
    # The suite over two tests of two families (pair and timer).
    first = {}
    for t in sorted((t for t in registry() if t["suite_order"] is not None),
                    key=lambda t: t["suite_order"]):
        first.setdefault(t["family"], t["name"])
    out["suite"] = ["suite", "--duration", "2", "--only",
                    ",".join(list(first.values())[:2])]
    return out


SCENARIOS = scenarios()


def test_every_registry_test_has_a_scenario():
    """A new test gets its chaos trials from its registry row alone."""
    names = registry_names()
    assert names and set(names) <= set(SCENARIOS)
    assert all(test in names for test, _ in MODES.values())


def launch(name, tmp):
    """The processes of one trial: [main] or [server, client]."""
    if SCENARIOS[name] is not None:
        argv = SCENARIOS[name]
        if name == "suite":
            argv = argv + ["-o", str(tmp / f"res{time.monotonic_ns()}")]
        return [start(argv)]
    port = str(free_port())
    srv = start(["request", "-s", "-p", port])
    time.sleep(0.05)
    cli = start(["request", "-c", "127.0.0.1", "-p", port, "-i", "1",
                 "--samples", "20000"])
    return [srv, cli]


def finish(procs, timeout=20):
    """Stop what is still running (SIGINT), reap it; the statuses."""
    codes = []
    for p in procs:
        if p.poll() is None:
            p.send_signal(signal.SIGINT)
    for p in procs:
        try:
            p.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            p.kill()
            p.communicate()
            pytest.fail(f"{p.args} did not end {timeout} s after SIGINT "
                        f"(CHAOS_SEED={SEED})")
        codes.append(p.returncode)
    return codes


def trial(name, sig, rng, tmp):
    procs = launch(name, tmp)
    time.sleep(rng.uniform(0, 0.02) if rng.random() < 0.5
               else rng.uniform(0.02, 0.6))
    main = rng.choice(procs)
    kids = descendants(main.pid)
    target = main.pid if not kids or rng.random() < 0.5 else rng.choice(kids)
    try:
        os.kill(target, sig)
    except ProcessLookupError:
        pass
    time.sleep(0.1)
    codes = finish(procs)
    for c in codes:
        # Never a crash: ended normally, by the test's own error, or by the
        # signal itself (SIGKILL, or one that came before the handlers).
        assert c in (0, 1, 3) or -c in (sig, signal.SIGINT), \
            f"{name}: {signal.Signals(sig).name} to {target}: status {c}"
    return target == main.pid


def full_snapshot():
    s = snapshot()
    # Only the runs' private TMPDIR: other checkouts' runs on this machine
    # come and go in /tmp.
    tmp = Path(os.environ["TMPDIR"])
    s["tmp"] = {str(p) for p in tmp.iterdir()}
    # tracefs is machine-wide: a live process's instance is another
    # run's (the other group of make check's tests, another checkout's).
    s["tracefs"] = {n for n in tracefs_instances() if "rtlat" in n
                    and not Path(f"/proc/{n.rsplit('-', 1)[-1]}").exists()}
    return s


def assert_clean(before, what):
    deadline = time.time() + 5
    while True:
        found = leaks(before, full_snapshot())
        if not found or time.time() > deadline:
            break
        time.sleep(0.1)
    assert not found, f"{what}: left behind: {found}"


def next_run_works():
    r = subprocess.run([RTLAT, "svsem", "-l", "100", "-i", "100", "-q"],
                       capture_output=True, text=True, timeout=30)
    assert r.returncode == 0, r.stderr


def plan():
    """make chaos: TRIALS of each signal; else None (a timed sample)."""
    if TRIALS:
        return [s for s in SIGNALS for _ in range(TRIALS)]
    return None


@pytest.fixture
def short_tmpdir(monkeypatch):
    """A TMPDIR short enough for request's temp directory (which falls
    back to /tmp under a long one), so the check sees it."""
    d = tempfile.mkdtemp(prefix="chaos", dir="/tmp")
    monkeypatch.setenv("TMPDIR", d)
    yield d
    shutil.rmtree(d, ignore_errors=True)


@pytest.mark.skipif(INNER, reason="the outer run")
def test_chaos_in_a_private_ipc_namespace():
    if subprocess.run(["unshare", "-im", "true"]).returncode:
        pytest.skip("cannot make IPC and mount namespaces here")
    r = subprocess.run(["unshare", "-im", "--propagation", "private",
                        sys.executable, "-m", "pytest", "-q", "-p",
                        "no:cacheprovider", __file__],
                       env={**os.environ, "CHAOS_INNER": "1"},
                       capture_output=True, text=True, timeout=3600)
    print(r.stdout[-3000:])
    assert r.returncode == 0, r.stdout[-8000:] + r.stderr[-2000:]


@pytest.fixture(scope="module")
def private_ipc():
    for cmd in (["mount", "-t", "mqueue", "none", "/dev/mqueue"],
                ["mount", "-t", "tmpfs", "-o", "size=64m", "none", "/dev/shm"]):
        subprocess.run(cmd, check=True)


@pytest.mark.skipif(not INNER, reason="run inside the namespace")
@pytest.mark.parametrize("name", list(SCENARIOS))
def test_chaos(name, tmp_path, short_tmpdir, private_ipc):
    rng = random.Random(f"{SEED}-{name}")
    sigs = plan()
    deadline = time.monotonic() + BUDGET_S
    before = full_snapshot()
    n = 0
    while (sigs and n < len(sigs)) or \
          (not sigs and (n == 0 or time.monotonic() < deadline)):
        sig = sigs[n] if sigs else rng.choice(SIGNALS)
        to_main = trial(name, sig, rng, tmp_path)
        n += 1
        assert_clean(before, f"seed {SEED} {name} trial {n} "
                     f"{signal.Signals(sig).name} to "
                     f"{'the parent' if to_main else 'a child'}")
    next_run_works()


@pytest.mark.parametrize("argv", [
    ["cyclictest", "-q", "-t", "2", "-i", "1000"],     # /dev/shm/cyclictest<pid>
    # (pmq's -f is rt-tests' --forcetimeout: "pmq -q -f -i 1000" was bad
    # input, exit 2 at once, and left nothing for want of a run)
    ["pmq", "-q", "-i", "1000"],                       # queues
    ["svsem", "-q", "-f", "-i", "1000"],               # SysV semaphores, forked workers
], ids=["cyclictest", "pmq", "svsem-f"])
def test_sigkill_of_the_whole_process_group_leaves_nothing(argv, leakcheck):
    """timeout -s KILL, a lab job's end or kill -9 -PGID kill the run's
    whole process group at once: its janitor, in a group of its own,
    still removes what the run made. (It died with the group, and the
    cyclictest face's status file stayed in /dev/shm.)"""
    with watching(argv, start_new_session=True) as p:
        # until the run has made what it makes: its status file, or it
        # measures (its queues, semaphores and workers are there)
        if argv[0] == "cyclictest":
            wait_file(f"/dev/shm/cyclictest{p.pid}", proc=p)
        else:
            p.measuring()
        os.killpg(p.pid, signal.SIGKILL)
        p.wait(timeout=10)
    leakcheck()
