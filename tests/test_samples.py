# SPDX-License-Identifier: GPL-2.0-or-later
"""--samples FILE (rtlat(1): SAMPLES FILE): every sample of every series
in the file, as many as the JSON counts, on every ending (the end, -l, a
stop signal), for every test of the registry; rtlat-report samples reads
it; bad input leaves nothing. A 10 s timer run with a disturbance this
test injects at a known period (SIGSTOP/SIGCONT of the whole process,
from this ordinary-priority process: nothing to escape) has that period
found by the report's spectrum."""
import json
import os
import re
import signal
import subprocess
import threading
import time

import pytest

from conftest import (leakcheck, registry, report_here, run, start,  # noqa: F401
                      stop, watching)


def samples_of(path):
    """{(series, thread, cpu): rows} of a --samples file, read with the
    report's reader; and the file's totals."""
    from rtlat_report.read.samples import load_samples
    s = load_samples(str(path))
    return {(x.name, x.thread, x.cpu): len(x.ns) for x in s.series}, s


def check_file(path, doc, every=True):
    """The file holds, per series, what the JSON's "samples" says it
    wrote, which is every sample the run took (its "largest" seen; not
    every: bintime, whose gaps under 512 ns, tens of millions a second,
    are counted in its histogram only)."""
    rows, s = samples_of(path)
    assert s.complete and s.dropped == 0
    smp = doc["samples"]
    assert smp["format"] == "rtlat-samples-1" and smp["complete"] is True
    seen = {(x["series"], x["thread"], x["cpu"]): x["seen"]
            for x in doc["largest"]["series"]}
    for x in smp["series"]:
        key = (x["series"], x["thread"], x["cpu"])
        assert x["dropped"] == 0
        assert rows[key] == x["written"], key
        assert x["written"] == seen[key] if every else \
            0 <= x["written"] <= seen[key], key
    assert s.written == sum(rows.values())
    assert not every or s.written > 0
    return rows


# Every test that measures a series (doctor checks; hwlat and osnoise read
# the kernel's tracers, whose events are no series).
@pytest.mark.parametrize("name", [t["name"] for t in registry() if t["series"]])
def test_every_test_writes_every_sample(tmp_path, name, leakcheck):  # noqa: F811
    t = next(x for x in registry() if x["name"] == name)
    opt = "--samples-file" if name == "request" else "--samples"
    f, j = tmp_path / "s.bin", tmp_path / "r.json"
    r = run([name] + t["check_args"].split() + [opt, str(f), "--json", str(j)],
            timeout=120)
    assert r.returncode == 0, r.stderr
    check_file(f, json.loads(j.read_text()), every=name != "bintime")
    assert sorted(os.listdir(tmp_path)) == ["r.json", "s.bin"]


def test_the_timer_s_count_is_the_json_s(tmp_path):
    f, j = tmp_path / "s.bin", tmp_path / "r.json"
    r = run(["timer", "-c", "all", "-T", "1", "-q", "--samples", str(f),
             "--json", str(j)])
    assert r.returncode == 0, r.stderr
    doc = json.loads(j.read_text())
    rows = check_file(f, doc)
    for c in doc["cpus"]:
        assert rows[("latency", c["cpu"], c["cpu"])] == c["latency"]["samples"]


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM])
def test_a_stop_signal_leaves_a_whole_file(tmp_path, sig, leakcheck):  # noqa: F811
    f, j = tmp_path / "s.bin", tmp_path / "r.json"
    with watching(["timer", "-c", "all", "-T", "600", "--samples", str(f),
                   "--json", str(j)]) as w:
        w.measuring()
        rc, _, err = stop(w, sig)
    assert rc == 0, err
    check_file(f, json.loads(j.read_text()))


def test_bad_input_leaves_nothing(tmp_path):
    r = run(["timer", "-T", "1", "--samples", str(tmp_path / "no" / "x")])
    assert r.returncode == 2
    assert len(r.stderr.splitlines()) == 1 and "--samples" in r.stderr
    # refused after its file was opened (the memory check): still nothing
    r = run(["timer", "-T", "1", "--samples", str(tmp_path / "s.bin"),
             "--largest", "0", "-c", "0", "--timeline", "0", "--bogus"])
    assert r.returncode == 2
    assert os.listdir(tmp_path) == []


def test_a_disturbance_at_a_known_period_is_found(tmp_path):
    """10 s of the timer on every CPU while this test stops the whole
    process for 3 ms every 0.2 s (absolute deadlines: the period holds on
    average however late each stop comes): every sample in the file, and
    the report's spectrum says 'every 0.200 s'."""
    period = 0.2
    f, j = tmp_path / "s.bin", tmp_path / "r.json"
    p = start(["timer", "-c", "all", "-T", "10", "-q", "--samples", str(f),
               "--json", str(j)])
    done = threading.Event()

    def disturb():
        t0 = time.monotonic()
        k = 0
        while not done.is_set() and p.poll() is None:
            k += 1
            delay = t0 + k * period - time.monotonic()
            if delay > 0:
                done.wait(delay)
            try:
                os.kill(p.pid, signal.SIGSTOP)
                time.sleep(0.003)
                os.kill(p.pid, signal.SIGCONT)
            except ProcessLookupError:      # it ended meanwhile
                return

    th = threading.Thread(target=disturb)
    th.start()
    try:
        out, err = p.communicate(timeout=120)
    finally:
        done.set()
        th.join()
        if p.poll() is None:
            os.kill(p.pid, signal.SIGCONT)
            p.kill()
            p.wait()
    assert p.returncode == 0, err
    check_file(f, json.loads(j.read_text()))
    r = report_here("samples", f)
    assert r.returncode == 0, r.stderr
    # Every CPU: the period injected among what it finds (this machine
    # may have rhythms of its own: a VM's host tick).
    for cpu in r.stdout.split("\n  timer latency, ")[1:]:
        found = [float(v) / (1000 if u == "ms" else 1) for v, u in
                 re.findall(r"periodic: every ([\d.]+) (m?s)", cpu)]
        assert any(x == pytest.approx(period, rel=0.02) for x in found), \
            r.stdout
