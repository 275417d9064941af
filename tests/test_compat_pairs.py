# SPDX-License-Identifier: GPL-2.0-or-later
"""Where the pair tests, sync and response follow their original documents
(issue 31): -l with several pairs under rt-tests' names, sync between
processes with every primitive of the design's table, response's fft work
larger than the last-level cache."""
import glob
import os
import re
import signal

import pytest

import rtjson
from conftest import (children_of, registry_compat, registry_names, run,
                      running, stop, wait_busy, wait_for)
from test_determinism import RESP_HEAD, SYNC1, SYNC2, load, sync2_stopped

COMPAT = registry_compat("pair")
TESTS = registry_names("pair")
FORKABLE = ["sigwait", "svsem"]
CYCLES = re.compile(r"Cycles (\d+)$", re.M)


def modes():
    for t in TESTS:
        yield t, []
        if t in FORKABLE:
            yield t, ["-f"]


def cycles(r, js):
    """Each pair's cycles, from the text and the JSON (they agree)."""
    text = [int(n) for n in CYCLES.findall(r.stdout)]
    assert text == [p.samples for p in rtjson.read(js).pairs], r.stdout
    return text


@pytest.mark.parametrize("test,extra", list(modes()),
                         ids=lambda v: v if isinstance(v, str) else " ".join(v) or "threads")
def test_loops_end_at_the_first_pair_under_rt_tests_names(tmp_path, leakcheck,
                                                           test, extra):
    """rt-tests 2.40 (pmqtest, sigwaittest, svsematest, ptsematest -t 3
    -l 100 -i 1000 -d 500) stops every pair when the first has done -l
    loops: 100, about 70 and 50 cycles. Pair 1 here has a 501 ms interval:
    it would need 4.5 s for its 10 loops, pair 0 needs 10 ms, so whatever
    the machine's load, pair 0 finishes first and the others stop short."""
    js = tmp_path / "c.json"
    r = run(extra + ["-t", "3", "-l", "10", "-i", "1000", "-d", "500000",
                     "-q", f"--json={js}"], argv0=COMPAT[test])
    assert r.returncode == 0, r.stderr
    n = cycles(r, js)
    assert n[0] == 10 and max(n) == 10, n
    assert n[1] < 10 and n[2] < 10, n
    leakcheck()


@pytest.mark.parametrize("test", TESTS)
def test_loops_are_per_pair_under_rtlat_names(tmp_path, leakcheck, test):
    """rtlat's own names keep SPEC §1: each pair does its own -l."""
    js = tmp_path / "c.json"
    r = run([test, "-t", "3", "-l", "5", "-i", "1000", "-d", "20000",
             "-q", f"--json={js}"])
    assert r.returncode == 0, r.stderr
    assert cycles(r, js) == [5, 5, 5]
    leakcheck()


# The design's Sync table: POSIX named and unnamed semaphores and pthread
# mutexes, thread to thread or process to process.
SYNC_TYPES = ["posix", "named", "mutex", "sysv"]


@pytest.mark.parametrize("typ", SYNC_TYPES)
def test_sync_between_processes(typ, tmp_path, leakcheck):
    js = tmp_path / "s.json"
    r = run(["sync", "-f", "--type", typ, "--test", "switch", "-l", "300",
             "--json", str(js)])
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    assert SYNC1.match(lines[1])[1] == typ
    m = SYNC2.match(lines[2])
    assert m and m[1] == typ and m[2] == "processes" and m[3] == "300", r.stdout
    d = load(js, "sync")
    assert d["settings"]["mode"] == "processes"
    assert d["settings"]["type"] == typ
    assert d["switch"]["handoff"]["samples"] == 300
    leakcheck()


def workers(pid):
    """rtlat's forked workers (not its janitor, nor a worker of the test
    before that has exited and is not yet reaped: on a loaded machine
    test 1's last one and test 2's first were taken for test 2's two)."""
    out = []
    for c in children_of(pid):
        try:
            comm = open(f"/proc/{c}/comm").read().strip()
            stat = open(f"/proc/{c}/stat").read()
        except OSError:
            continue
        if comm != "rtlat-janitor" and stat[stat.rindex(")") + 2] != "Z":
            out.append(c)
    return out


def named_sems(pid):
    return [n for n in os.listdir("/dev/shm")
            if n.startswith(f"sem.rtlat-{pid}-")]


ENDINGS = ["SIGINT", "SIGTERM", "SIGKILL-worker", "SIGKILL-main"]


@pytest.mark.parametrize("ending", ENDINGS)
@pytest.mark.parametrize("typ", ["posix", "named", "mutex"])
def test_sync_processes_every_ending(typ, ending, tmp_path, leakcheck):
    """Test 2 between processes ended every way: the named semaphores
    (which the workers open by name) are gone from /dev/shm, the workers
    reaped; a stop signal is a normal ending, a worker's death an error."""
    js = tmp_path / "s.json"
    # Test 1 runs 3 s, then test 2 3 s: the ending comes in test 2.
    with running(["sync", "-f", "--type", typ, "--test", "switch", "-l", "0",
                  "-D", "3", "--json", str(js)]) as p:
        # Test 2's two workers, both past their start: each has run (a
        # worker blocked on a semaphore uses no CPU), so they hand off.
        kids = wait_for(lambda: len(workers(p.pid)) == 2 and workers(p.pid),
                        "test 2's two worker processes", proc=p)
        wait_busy(p.pid, 2, proc=p)
        if typ == "named":
            assert len(named_sems(p.pid)) == 2, os.listdir("/dev/shm")
        if ending == "SIGKILL-worker":
            os.kill(kids[-1], signal.SIGKILL)
            rc, out, err = p.wait(timeout=15), *p.communicate()
        elif ending == "SIGKILL-main":
            p.kill()
            rc = p.wait(timeout=15)
        else:
            rc, out, err = stop(p, getattr(signal, ending))
    if ending in ("SIGINT", "SIGTERM"):
        assert rc == 0, err
        assert len(out.splitlines()) == 3, out
        assert sync2_stopped(out.splitlines()[2], js) == (typ, "processes")
        assert load(js, "sync")["return_code"] == 0
    elif ending == "SIGKILL-worker":
        assert rc == 1, err
        assert "killed by signal 9" in err, err
        assert load(js, "sync")["return_code"] == 1
    leakcheck()
    # (After SIGKILL of the main process, its janitor removes them.)
    assert not named_sems(p.pid)


def sysfs_llc():
    """The largest data or unified cache of CPU 0, in bytes."""
    best = 0
    for d in sorted(glob.glob("/sys/devices/system/cpu/cpu0/cache/index*")):
        with open(f"{d}/type") as f:
            if f.read().strip() == "Instruction":
                continue
        with open(f"{d}/size") as f:
            v = f.read().strip()
        best = max(best, int(v.rstrip("KM")) *
                   {"K": 1024, "M": 1 << 20}.get(v[-1], 1))
    return best


def test_response_fft_larger_than_the_llc(tmp_path, leakcheck):
    """The design's fft work causes cache misses: by default its data and
    twiddles (32 bytes a point) exceed the last-level cache, the smallest
    power of two that does; the block stays calibrated to --block."""
    js = tmp_path / "r.json"
    r = run(["response", "--work", "fft", "--block", "2", "-l", "3",
             "--json", str(js)], timeout=120)
    assert r.returncode == 0, r.stderr
    cal = load(js, "response")["calibration"]
    n, llc = cal["fft_points"], cal["llc_bytes"]
    assert llc == sysfs_llc() or not sysfs_llc()
    assert n & (n - 1) == 0 and cal["fft_bytes"] == 32 * n
    if llc:
        assert 32 * n > llc and (n == 1024 or 32 * n // 2 <= llc), cal
    h = RESP_HEAD.match(r.stdout.splitlines()[0])
    assert h and h[2] == "2" and int(h[5]) == n, r.stdout
    assert cal["block_ns"] == pytest.approx(2e6, rel=0.5)
    leakcheck()


def test_response_fft_points_option(tmp_path, leakcheck):
    js = tmp_path / "r.json"
    r = run(["response", "--work", "fft", "--fft-points", "4096",
             "--block", "1", "-l", "3", "--json", str(js)])
    assert r.returncode == 0, r.stderr
    assert int(RESP_HEAD.match(r.stdout.splitlines()[0])[5]) == 4096
    d = load(js, "response")
    assert d["calibration"]["fft_points"] == 4096
    assert d["settings"]["fft_points"] == 4096
    leakcheck()


@pytest.mark.parametrize("n", ["1000", "512", "3072", str(1 << 27), "-1"])
def test_response_fft_points_refused(n, leakcheck):
    r = run(["response", "--work", "fft", "--fft-points", n])
    assert r.returncode == 2 and r.stdout == ""
    assert len(r.stderr.splitlines()) == 1 and "--fft-points" in r.stderr
    leakcheck()
