# SPDX-License-Identifier: GPL-2.0-or-later
"""Pair tests (pmq, sigwait, svsem, ptsem): rt-tests' text lines and JSON,
compatible names, pair parameters, and the end of every run."""
import json
import os
import re
import shutil
import signal
import subprocess
import tempfile
import time

import pytest

import rtlock

import rtjson
from conftest import (RTLAT, UNMOUNT_TRACEFS, in_mount_ns, needs_tracefs,
                      registry_compat, registry_names,
                      reachable_binary, read_pty, run, start, stop, children_of, watching)

# rt-tests' printf formats, as regular expressions.
ID_LINE = re.compile(r"^#(\d+): ID(\d+), P(\d+), CPU(-?\d+), I(\d+); "
                     r"#(\d+): ID(\d+), P(\d+), CPU(-?\d+), "
                     r"(?:TO (\d+), )?Cycles (\d+)$")
STAT_LINE = re.compile(r"^#(\d+) -> #(\d+), Min (?P<min> *\d+), "
                       r"Cur (?P<cur> *\d+), Avg (?P<avg> *\d+), "
                       r"Max (?P<max> *\d+)$")

TESTS = registry_names("pair")
COMPAT = registry_compat("pair")
FORKABLE = ["sigwait", "svsem"]
SHORT = ["-p", "99", "-i", "100", "-l", "2000"]


def parse_block(text, npairs, timeouts=False):
    """The final block: npairs ID lines then npairs stats lines, nothing
    else. Returns (id_matches, stat_matches)."""
    lines = text.splitlines()
    assert len(lines) == 2 * npairs, text
    ids = [ID_LINE.match(line) for line in lines[:npairs]]
    stats = [STAT_LINE.match(line) for line in lines[npairs:]]
    for i, m in enumerate(ids):
        assert m, f"ID line does not match rt-tests' format: {lines[i]!r}"
        assert int(m[1]) == 2 * i and int(m[6]) == 2 * i + 1
        assert (m[10] is not None) == timeouts, lines[i]
    for i, m in enumerate(stats):
        assert m, f"stats line does not match: {lines[npairs + i]!r}"
        assert int(m[1]) == 2 * i + 1 and int(m[2]) == 2 * i
        for k in ("min", "cur", "avg", "max"):
            # "%4d": at least four characters wide.
            assert len(m[k]) >= 4, lines[npairs + i]
        assert int(m["min"]) <= int(m["avg"]) <= int(m["max"])
    return ids, stats


def check_stats_json(lat, cycles):
    """rtlat's own series: counts add up, percentiles ordered."""
    assert lat["samples"] == cycles
    h = lat["histogram"]
    total = h["underflow"] + h["overflow"] + sum(c for _, c in h["counts"])
    assert total == cycles
    if cycles:
        p = lat["percentiles_ns"]
        seq = [lat["min_ns"], p["p50"], p["p90"], p["p99"], p["p99.9"],
               p["p99.99"], lat["max_ns"]]
        assert seq == sorted(seq), seq
        assert lat["min_ns"] <= lat["avg_ns"] <= lat["max_ns"]
        assert lat["stddev_ns"] >= 0


def modes():
    for t in TESTS:
        yield t, []
        if t in FORKABLE:
            yield t, ["-f"]


@pytest.mark.parametrize("test,extra", list(modes()),
                         ids=lambda v: v if isinstance(v, str) else " ".join(v) or "threads")
def test_output_and_json(tmp_path, leakcheck, test, extra):
    js = tmp_path / "r.json"
    r = run([test, "-t", "2", "-a", "-q", f"--json={js}"] + SHORT + extra)
    assert r.returncode == 0, r.stderr
    ids, stats = parse_block(r.stdout, 2, timeouts=test == "pmq")
    assert "\033" not in r.stdout
    for m in ids:
        assert int(m[11]) == 2000
    res = rtjson.read(js)
    assert res.return_code == 0
    assert len(res.pairs) == 2
    for i, (p, m, s) in enumerate(zip(res.pairs, ids, stats)):
        assert p.samples == 2000
        assert p.interval == 100 + 500 * i
        assert p.sender.priority == p.receiver.priority == 99 - i
        assert p.min == int(s["min"]) and p.max == int(s["max"])
        # The text is the mean rounded to whole us, the JSON the same mean
        # to 0.01 us: at a tie (5.50 from 5.4996) only this bound holds.
        assert abs(p.avg - int(s["avg"])) <= 0.505
        assert (p.timeoutcount is not None) == (test == "pmq")
        # -a: pair i on CPU i mod ncpus.
        assert p.sender.cpu == p.receiver.cpu == i % os.cpu_count()
    d = json.loads(js.read_text())
    for i in range(2):
        check_stats_json(d["thread"][str(i)]["receiver"]["latency"], 2000)
    assert d["settings"]["mode"] == ("processes" if extra else "threads")
    for key in ("kernel", "preempt_model", "clocksource", "cmdline",
                "isolated_cpus", "governors", "sys_kernel_realtime"):
        assert key in d["system"]
    assert set(d["rt"]) >= {"rt", "mlockall", "cpu_dma_latency", "reasons"}
    assert d["rtlat"]["clock"] == "CLOCK_MONOTONIC"
    leakcheck()


PTSEM_TYPES = ["mutex", "condvar", "sem", "named-sem"]


@pytest.mark.parametrize("kind", PTSEM_TYPES)
def test_ptsem_types(tmp_path, leakcheck, kind):
    js = tmp_path / "t.json"
    r = run(["ptsem", "-t", "2", "-q", "-i", "100", "-l", "1000",
             "--type", kind, f"--json={js}"])
    assert r.returncode == 0, r.stderr
    ids, _ = parse_block(r.stdout, 2)
    assert [int(m[11]) for m in ids] == [1000, 1000]
    d = json.loads(js.read_text())
    for i in range(2):
        check_stats_json(d["thread"][str(i)]["receiver"]["latency"], 1000)
    leakcheck()


@pytest.mark.parametrize("kind", PTSEM_TYPES)
@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM], ids=["INT", "TERM"])
def test_ptsem_types_end_by_signal(leakcheck, kind, sig):
    """Whatever a worker is blocked in (a mutex lock cannot be interrupted
    by a signal), the run ends promptly with its summary."""
    for early in (True, False):
        with watching(["ptsem", "-t", "2", "-i", "300", "-d", "0", "-q",
                       "--type", kind]) as p:
            if early:
                # A stop during the set-up: the moment is the test.
                time.sleep(0.05)
            else:
                # Both pairs measured (the summary's cycles of each are
                # checked): the first status with samples may hold one
                # pair's only, on a loaded machine.
                p.measuring(r"latency t0: [1-9]\d* samples")
                p.measuring(r"latency t1: [1-9]\d* samples")
            t0 = time.monotonic()
            rc, out, err = stop(p, sig)
        assert time.monotonic() - t0 < 2.0
        if early and rc == 1:
            # 50 ms may come before the first sample on a loaded machine:
            # that ending is its own (exit 1, one line, no summary).
            assert err.strip().endswith("stopped by a signal before the first sample"), err
            continue
        assert rc == 0, err
        ids, _ = parse_block(out, 2)
        # Stopped in the set-up, one pair may not have measured yet (the
        # summary still has its line); stopped once both had, neither
        # lost its cycles.
        assert len(ids) == 2
        if not early:
            assert all(int(m[11]) > 0 for m in ids)
    leakcheck()


@pytest.mark.parametrize("extra", [[], ["-f"]], ids=["threads", "fork"])
def test_sigwait_rt_signals(leakcheck, extra):
    r = run(["sigwait", "--rt", "-q", "-i", "100", "-l", "1000"] + extra)
    assert r.returncode == 0, r.stderr
    parse_block(r.stdout, 1)
    leakcheck()


def test_pmq_message_size(leakcheck):
    r = run(["pmq", "-q", "-i", "100", "-l", "500", "--size", "4096"])
    assert r.returncode == 0, r.stderr
    parse_block(r.stdout, 1, timeouts=True)
    leakcheck()


def test_pmq_forced_timeouts_counted(leakcheck, tmp_path):
    """-T with -f: timeouts are counted and the run completes (rt-tests
    deadlocks here)."""
    js = tmp_path / "t.json"
    r = run(["pmq", "-q", "-i", "100", "-l", "2", "-T", "1", "-f", "2",
             f"--json={js}"], timeout=30)
    assert r.returncode == 0, r.stderr
    ids, _ = parse_block(r.stdout, 1, timeouts=True)
    assert int(ids[0][10]) >= 1
    assert int(ids[0][11]) == 2
    assert rtjson.read(js).pairs[0].timeoutcount == int(ids[0][10])
    leakcheck()


@pytest.mark.parametrize("test", TESTS)
def test_compatible_names(tmp_path, leakcheck, test):
    js = tmp_path / "c.json"
    r = run(["-t", "1", "-q", "-i", "100", "-l", "300", f"--json={js}"],
            argv0=COMPAT[test])
    assert r.returncode == 0, r.stderr
    parse_block(r.stdout, 1, timeouts=test == "pmq")
    res = rtjson.read(js)
    assert res.cmdline.startswith(COMPAT[test] + " ")
    h = run(["--help"], argv0=COMPAT[test])
    assert h.returncode == 0 and h.stdout.startswith(f"usage: {COMPAT[test]}")
    leakcheck()


def test_compatible_symlink(tmp_path, leakcheck):
    link = tmp_path / "svsematest"
    link.symlink_to(RTLAT)
    js = tmp_path / "o.json"
    r = subprocess.run([str(link), "-t", "-a", "-p99", "-i100", "-l", "500",
                        "-q", f"--json={js}"], capture_output=True, text=True,
                       timeout=60)
    assert r.returncode == 0, r.stderr
    parse_block(r.stdout, os.cpu_count())
    assert len(rtjson.read(js).pairs) == os.cpu_count()
    leakcheck()


def test_pair_parameters(leakcheck):
    """Pair i: interval I + i*d, priority p - i; -S: one pair per CPU,
    all at the same priority, interval distance as given."""
    r = run(["svsem", "-t", "3", "-p", "80", "-i", "200", "-d", "100",
             "-l", "50", "-q"])
    assert r.returncode == 0, r.stderr
    ids, _ = parse_block(r.stdout, 3)
    assert [int(m[5]) for m in ids] == [200, 300, 400]
    assert [int(m[3]) for m in ids] == [80, 79, 78]
    assert [int(m[8]) for m in ids] == [80, 79, 78]
    r = run(["svsem", "-S", "-p", "80", "-i", "200", "-d", "0", "-l", "50", "-q"])
    ids, _ = parse_block(r.stdout, os.cpu_count())
    assert {int(m[3]) for m in ids} == {80}
    assert [int(m[4]) for m in ids] == list(range(os.cpu_count()))
    leakcheck()


def test_each_pair_runs_its_own_count(leakcheck):
    """rt-tests stops every pair when the first is done; rtlat does not."""
    r = run(["pmq", "-t", "2", "-i", "100", "-d", "2000", "-l", "200", "-q"])
    assert r.returncode == 0, r.stderr
    ids, _ = parse_block(r.stdout, 2, timeouts=True)
    assert [int(m[11]) for m in ids] == [200, 200]
    leakcheck()


def test_interval_of_seconds_printed(leakcheck):
    r = run(["svsem", "-i", "1000000", "-l", "2", "-q"], timeout=30)
    assert r.returncode == 0, r.stderr
    ids, _ = parse_block(r.stdout, 1)
    assert int(ids[0][5]) == 1000000
    leakcheck()


def test_not_quiet_without_terminal_prints_final_block_only(leakcheck):
    r = run(["svsem", "-t", "2", "-i", "100", "-l", "1000"])
    assert r.returncode == 0, r.stderr
    parse_block(r.stdout, 2)
    assert "\033" not in r.stdout and "\033" not in r.stderr
    leakcheck()


def test_terminal_redraws_in_place(leakcheck):
    """On a terminal the live block is redrawn with cursor-up, and the
    final block replaces it."""
    import pty
    master, slave = pty.openpty()
    p = subprocess.Popen([RTLAT, "svsem", "-i", "1000", "-D", "1"],
                         stdout=slave, stderr=subprocess.PIPE)
    os.close(slave)
    text = read_pty(master).decode()
    p.wait(timeout=20)
    assert p.returncode == 0
    assert "\033[2A" in text
    last = text.split("\033[2A")[-1].replace("\r", "")
    parse_block(last, 1)
    leakcheck()


def test_help_lists_every_option():
    r = run(["pmq", "--help"])
    assert r.returncode == 0 and r.stderr == ""
    for opt in ("-a", "-b", "-d", "-D", "-f", "-h", "-i", "--json", "-l",
                "-p", "-q", "-S", "-t", "-T", "--size", "--strict",
                "--no-mlock", "--no-dma-latency"):
        assert re.search(rf"(^|[ ,]){re.escape(opt)}[ ,=\[]", r.stdout, re.M), opt
    assert "(0..99)" in r.stdout    # ranges come from the table
    top = run(["--help"])
    assert top.returncode == 0
    for t in TESTS:
        assert re.search(rf"^  {t} ", top.stdout, re.M)


# --- bad input: one line naming the option and what is accepted, exit 2 ---

def mqueue_limit(name):
    with open(f"/proc/sys/fs/mqueue/{name}") as f:
        return int(f.read())


BAD = [
    (["pmq", "-i", "0"], r"-i/--interval.*'0'.*1 to 3600000000"),
    (["pmq", "-i", "-5"], r"-i/--interval.*'-5'.*accepted"),
    (["svsem", "-i", "3600000001"], r"-i/--interval.*1 to 3600000000"),
    (["svsem", "-t", "2", "-i", "3600000000", "-d", "1"], r"-d/--distance.*1 hour"),
    (["sigwait", "-p", "100"], r"-p/--prio.*'100'.*0 to 99"),
    (["sigwait", "-p", "-1"], r"-p/--prio.*0 to 99"),
    (["ptsem", "-a", "4096"], r"-a/--affinity.*'4096'.*online CPU"),
    (["ptsem", "-a", "x"], r"unexpected argument 'x'"),
    (["svsem", "-t", "1025"], r"-t/--threads.*'1025'.*1 to 1024"),
    (["pmq", "-D", "10x"], r"-D/--duration.*'10x'.*suffix s, m, h or d"),
    (["pmq", "-D", "-5"], r"-D/--duration.*'-5'"),
    (["pmq", "-D", ""], r"-D/--duration"),
    (["pmq", "-l", "-1"], r"-l/--loops.*'-1'"),
    (["pmq", "--bogus"], r"unknown option --bogus"),
    (["svsem", "-z"], r"unknown option -z"),
    (["svsem", "-i"], r"-i/--interval: needs an argument"),
    (["svsem", "--json"], r"--json: needs an argument"),
    (["pmq", "--json=/nonexistent-dir/x.json"], r"--json.*/nonexistent-dir.*existing"),
    (["pmq", "-f", "1"], r"-f/--forcetimeout.*needs -T"),
    (["pmq", "-T", "0"], r"-T/--timeout.*'0'"),
    (["ptsem", "--type", "spin"], r"--type.*'spin'.*mutex, condvar, sem, named-sem"),
    (["pmq", "-f"], r"-f/--forcetimeout: needs an argument"),
    (["svsem", "extra"], r"unexpected argument 'extra'"),
    (["nosuch"], r"unknown subcommand 'nosuch'; accepted: pmq"),
]


@pytest.mark.parametrize("args,pattern", BAD, ids=lambda v: " ".join(v) if isinstance(v, list) else "")
def test_bad_input(leakcheck, args, pattern):
    r = run(args)
    assert r.returncode == 2, (r.returncode, r.stderr)
    assert r.stdout == ""
    lines = r.stderr.splitlines()
    assert len(lines) == 1, r.stderr
    assert re.search(pattern, lines[0]), lines[0]
    leakcheck()


def test_bad_input_no_subcommand():
    r = run([])
    assert r.returncode == 2 and "usage" in r.stderr


def test_pmq_size_above_msgsize_max(leakcheck):
    limit = mqueue_limit("msgsize_max")
    r = run(["pmq", "--size", str(limit + 1), "-l", "10"])
    assert r.returncode == 2
    assert len(r.stderr.splitlines()) == 1
    assert re.search(rf"--size.*msgsize_max \({limit}\).*1 to {limit}.*sysctl",
                     r.stderr), r.stderr
    leakcheck()


def test_pmq_more_queues_than_queues_max(leakcheck):
    qmax = mqueue_limit("queues_max")
    pairs = qmax // 2 + 1
    if pairs > 1024:
        pytest.skip("queues_max above what -t accepts")
    r = run(["pmq", "-t", str(pairs), "-l", "10"])
    assert r.returncode == 2
    assert len(r.stderr.splitlines()) == 1
    assert re.search(r"-t/--threads.*queues_max.*sysctl", r.stderr), r.stderr
    leakcheck()


@needs_tracefs
def test_breaktrace_mounts_tracefs(leakcheck):
    """-b needs tracefs: on a machine where it is not mounted, root's run
    mounts it, says so in one line and runs."""
    r = in_mount_ns(UNMOUNT_TRACEFS +
                    f"{RTLAT} svsem -b 1000000 -l 10; rc=$?; "
                    "test -e /sys/kernel/tracing/tracing_on || rc=99; exit $rc")
    assert r.returncode == 0, r.stderr
    assert r.stderr.splitlines() == [
        "rtlat svsem: tracefs was not mounted; mounted it on "
        "/sys/kernel/tracing (left mounted, as trace-cmd does)"]
    parse_block("\n".join(r.stdout.splitlines()[:2]), 1)
    leakcheck()


def test_breaktrace_without_tracefs(leakcheck):
    """-b needs tracefs: where it cannot be mounted (not root), a clear
    error before the run, not mid-run."""
    with reachable_binary() as exe:
        r = in_mount_ns(UNMOUNT_TRACEFS + "exec setpriv --reuid=65534 --regid=65534 "
                        f"--clear-groups {exe} svsem -b 100 -l 10")
    assert r.returncode == 2, r.stderr
    assert r.stdout == ""
    assert r.stderr.splitlines() == [
        "rtlat svsem: option -b/--breaktrace: tracefs is not mounted and only "
        "root can mount it (mount -t tracefs nodev /sys/kernel/tracing)"]
    leakcheck()


def test_breaktrace_stops_tracing(leakcheck):
    """A latency above -b stops ftrace, writes a marker and ends the run
    with the summary."""
    r = in_mount_ns("mountpoint -q /sys/kernel/tracing || "
                    "mount -t tracefs nodev /sys/kernel/tracing || exit 77; "
                    "echo 1 > /sys/kernel/tracing/tracing_on; "
                    f"{RTLAT} svsem -b 1 -i 100 -l 100000 -q; rc=$?; "
                    "echo tracing_on=$(cat /sys/kernel/tracing/tracing_on); "
                    "grep -c 'rtlat: pair 0 latency' /sys/kernel/tracing/trace; "
                    "echo 1 > /sys/kernel/tracing/tracing_on; exit $rc")
    if r.returncode == 77:
        pytest.skip("cannot mount tracefs")
    assert r.returncode == 0, r.stderr
    assert "tracing_on=0" in r.stdout
    assert re.search(r"breaktrace: pair 0 latency \d+ us > 1 us; tracing stopped",
                     r.stderr)
    parse_block("\n".join(r.stdout.splitlines()[:2]), 1)
    assert int(r.stdout.splitlines()[-1]) >= 1
    leakcheck()


# --- every way of ending: summary printed, JSON written, nothing left ---

def test_end_by_duration(tmp_path, leakcheck):
    js = tmp_path / "d.json"
    args = ["pmq", "-t", "2", "-i", "1000", "-D", "1", "-q", f"--json={js}"]
    rtlock.run_starts(args)     # its wait for make check's lock is not the run's
    t0 = time.monotonic()
    r = run(args)
    took = time.monotonic() - t0
    assert r.returncode == 0, r.stderr
    ids, _ = parse_block(r.stdout, 2, timeouts=True)
    assert all(int(m[11]) > 0 for m in ids)
    assert took < 10
    assert rtjson.read(js).return_code == 0
    leakcheck()


@pytest.mark.parametrize("test,extra", list(modes()),
                         ids=lambda v: v if isinstance(v, str) else " ".join(v) or "threads")
@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM], ids=["INT", "TERM"])
def test_end_by_signal(tmp_path, leakcheck, test, extra, sig):
    js = tmp_path / "s.json"
    with watching([test, "-t", "2", "-p", "99", "-i", "1000", "-q",
                   f"--json={js}"] + extra) as p:
        # both pairs measuring (a status line each has samples)
        p.measuring(r" t1: [1-9]\d* samples|^T: 1 .* C: *[1-9]")
        p.measuring(r" t0: [1-9]\d* samples|^T: 0 .* C: *[1-9]")
        rc, out, err = stop(p, sig)
    assert rc == 0, err
    ids, _ = parse_block(out, 2, timeouts=test == "pmq")
    assert all(int(m[11]) > 0 for m in ids)
    res = rtjson.read(js)
    assert res.return_code == 0
    check_stats_json(json.loads(js.read_text())["thread"]["0"]["receiver"]["latency"],
                     res.pairs[0].samples)
    leakcheck()


def test_signal_during_startup(leakcheck):
    """A signal at once, while the run is being set up, still ends it
    cleanly: summary block (maybe with 0 cycles) and nothing left. A signal
    that lands before rtlat's handler exists (during exec) kills it with
    nothing created yet and nothing printed. Stopped before any pair took
    a sample, the run delivered nothing: exit 1 with the reason (issue 16)."""
    for delay in (0.0, 0.005, 0.01, 0.02, 0.05):
        p = start(["svsem", "-f", "-t", "4", "-i", "1000", "-q"])
        # Moments in the set-up: the fixed delays are the test.
        time.sleep(delay)
        rc, out, err = stop(p, signal.SIGTERM)
        if rc == -signal.SIGTERM:
            assert out == "" and err == ""
        elif rc == 1 and "before the first sample" in err:
            parse_block(out, 4)
        else:
            assert rc == 0, err
            parse_block(out, 4)
    leakcheck()


@pytest.mark.parametrize("test", FORKABLE)
def test_child_killed_ends_run_with_error(tmp_path, leakcheck, test):
    js = tmp_path / "k.json"
    with watching([test, "-f", "-t", "2", "-i", "1000", "-q", f"--json={js}"]) as p:
        p.measuring(r" t1: [1-9]\d* samples")
        workers = [k for k in children_of(p.pid)
                   if open(f"/proc/{k}/comm").read().strip() != "rtlat-janitor"]
        assert len(workers) == 4
        os.kill(workers[-1], signal.SIGKILL)
        out, err = p.communicate(timeout=15)
    assert p.returncode == 1
    assert re.search(r"pair 1 receiver \(pid \d+\) was killed by signal 9", err)
    parse_block(out, 2)
    res = rtjson.read(js)
    assert res.return_code != 0
    assert "killed by signal 9" in json.loads(js.read_text())["error"]
    leakcheck()


@pytest.mark.parametrize("test", FORKABLE)
def test_parent_sigkill_takes_children(leakcheck, test):
    with watching([test, "-f", "-t", "2", "-i", "1000", "-q"]) as p:
        p.measuring()
        p.kill()
        p.communicate(timeout=10)
    leakcheck()


def test_error_at_startup(tmp_path, leakcheck):
    """No message queue can be made (RLIMIT_MSGQUEUE 0): one line naming
    what failed, non-zero status, JSON with the failure, nothing left."""
    import resource
    js = tmp_path / "e.json"

    def nomq():
        resource.setrlimit(resource.RLIMIT_MSGQUEUE, (0, 0))
    r = run(["pmq", "-t", "2", "-l", "100", f"--json={js}"], preexec_fn=nomq)
    assert r.returncode == 1
    lines = r.stderr.splitlines()
    assert len(lines) == 1 and "cannot set up pmq for pair 0" in lines[0], r.stderr
    res = rtjson.read(js)
    assert res.return_code == 1
    leakcheck()


def test_json_into_a_directory_refused_before_the_run(tmp_path, leakcheck):
    """--json naming an existing directory is bad input: found before
    anything runs, no temporary file written beside it."""
    target = tmp_path / "adir"
    target.mkdir()
    r = run(["svsem", "-l", "10", "-i", "100", "-q", f"--json={target}"])
    assert r.returncode == 2
    assert r.stdout == ""
    assert len(r.stderr.splitlines()) == 1
    assert re.search(r"--json.*directory", r.stderr), r.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["adir"]
    leakcheck()


def test_json_directory_gone_at_the_end(tmp_path, leakcheck):
    """The JSON cannot be written at the end (its directory was removed
    during the run): the summary is still printed, one line names --json,
    the status is non-zero and no temporary file is left."""
    d = tmp_path / "out"
    d.mkdir()
    with watching(["svsem", "-i", "1000", "-q", f"--json={d}/r.json"]) as p:
        p.measuring()
        d.rmdir()
        rc, out, err = stop(p, signal.SIGINT)
    assert rc == 1
    parse_block(out, 1)
    assert re.search(r"--json .*r\.json: No such file or directory", err), err
    assert list(tmp_path.iterdir()) == []
    leakcheck()


def test_two_runs_at_once(leakcheck):
    procs = [start([t, "-t", "2", "-i", "100", "-l", "2000", "-q"] + extra)
             for t, extra in (("pmq", []), ("pmq", []), ("svsem", ["-f"]),
                              ("svsem", ["-f"]), ("ptsem", ["--type", "named-sem"]),
                              ("ptsem", ["--type", "named-sem"]))]
    for p in procs:
        out, err = p.communicate(timeout=60)
        assert p.returncode == 0, err
        ids, _ = parse_block(out, 2, timeouts="pmq" in p.args)
        assert [m[11] for m in ids] == ["2000", "2000"]
    leakcheck()


def test_strict_fails_when_setting_cannot_apply(leakcheck):
    """As an unprivileged user SCHED_FIFO is refused: a warning and the run
    goes on; with --strict it is an error."""
    if os.geteuid() != 0:
        pytest.skip("needs root to drop privileges")
    # nobody may not enter the checkout (a clone in root's mode-700 home):
    # run a copy of the binary from a directory everyone can reach.
    with reachable_binary() as exe:
        nobody = dict(cwd=os.path.dirname(exe), capture_output=True, text=True, timeout=60,
                      preexec_fn=lambda: (os.setgid(65534), os.setuid(65534)))
        r = subprocess.run([exe, "svsem", "-p", "90", "-l", "100", "-i", "100", "-q",
                            "--no-mlock", "--no-dma-latency"], **nobody)
        assert r.returncode == 0, r.stderr
        assert re.search(r"warning: cannot set SCHED_FIFO priority 90", r.stderr)
        parse_block(r.stdout, 1)
        r = subprocess.run([exe, "svsem", "-p", "90", "-l", "100", "-i", "100", "-q",
                            "--strict", "--no-mlock", "--no-dma-latency"], **nobody)
        assert r.returncode == 1
        assert "error: cannot set SCHED_FIFO priority 90" in r.stderr
    leakcheck()


def test_progress_on_terminal_stderr_has_no_escape_codes(leakcheck):
    """stdout to a pipe, stderr a terminal: progress (elapsed, remaining,
    worst) goes to stderr with carriage returns only; stdout gets the
    final block."""
    import pty
    master, slave = pty.openpty()
    p = subprocess.Popen([RTLAT, "svsem", "-i", "1000", "-D", "1"],
                         stdout=subprocess.PIPE, stderr=slave, text=True)
    os.close(slave)
    out = p.stdout.read()
    p.wait(timeout=20)
    err = read_pty(master)
    assert p.returncode == 0
    parse_block(out, 1)
    assert "\033" not in out
    assert b"\033" not in err
    assert re.search(rb"elapsed \d+s, remaining \d+s, worst \d+ us", err)
    leakcheck()
