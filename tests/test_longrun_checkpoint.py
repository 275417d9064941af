# SPDX-License-Identifier: GPL-2.0-or-later
"""Long runs that survive being killed (issue 33): --checkpoint rewrites
every output file asked for while the run measures, so a run killed
outright (SIGKILL: a lab job's timeout, the OOM killer) leaves valid files
up to its last checkpoint, read by the real readers (rt-tests' layout,
junitparser, promtool and prometheus_client); --openmetrics is a live view
node_exporter serves while the run goes on; SIGUSR1 prints the figures so
far (on stderr); rtlat suite keeps an index of the tests done.

Every test of the registry runs at once (one shared fixture), so the
whole file costs a few seconds of wall time."""
import contextlib
import json
import os
import random
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import junitparser
import pytest
from prometheus_client.openmetrics import parser as om_parser
from prometheus_client.parser import text_string_to_metric_families

import rtjson
import rtlock
from conftest import (RTLAT, args_for_length, promtool_check, registry, run, running,
                      settled_leaks, snapshot, wait_for, watching)
from test_fleet_engines import exporter, scrape
from test_schema import errors as schema_errors

LONG = "60"             # every run is planned long and killed long before
SAMPLES = "1099511627776"   # request's most: more than the run can do


def long_args(t):
    """The test's short check run, made long: its length option 60 s, no
    loop count and request's samples out of reach (the kill ends it)."""
    return args_for_length(t, LONG, SAMPLES)


def measuring():
    """Every test of the registry that measures a series (doctor checks,
    once; hwlat reads the kernel's tracer, whose events are no series)."""
    return [t for t in registry() if t["series"]]


def help_text(name):
    return run([name, "--help"]).stdout


def outputs(name, d):
    """The files asked for and the options asking: --json, --junit,
    --openmetrics and the histfile where the test has one."""
    h = help_text(name)
    files = {"json": d / f"{name}.json", "junit": d / f"{name}.xml",
             "openmetrics": d / f"{name}.prom"}
    if "--histfile" in h:
        files["histfile"] = d / f"{name}.hist"
    args = [f"--{k}={v}" for k, v in files.items()]
    # cyclictest's histfile is its -h histogram's (-h US)
    if re.search(r"^\s+-h, --histogram US", h, re.M):
        args += ["-h", "100"]
    if "--timeline" in h:
        args += ["--timeline", "1s"]
    return files, args


def covered(path):
    """A checkpoint's JSON as it is now: (covered_s, samples), or None."""
    try:
        d = json.loads(path.read_text())
    except (OSError, ValueError):
        return None
    if d.get("complete") is not False:
        return None
    n = sum(s["samples"] for s in d["fleet"]["series"] if s.get("thread") is None)
    return d["checkpoint"]["covered_s"], n


# Those that keep a CPU busy at SCHED_FIFO (response's work at 95, sync's
# test 1 at 90): beside the others, they starve their threads, and a CPU
# that could not be measured is an error (issue 45). Each runs alone.
SPINNERS = ("response", "sync")


@pytest.fixture(scope="module")
def killed(tmp_path_factory):
    """Every measuring test with --checkpoint 1s and every output, each
    SIGKILLed at a random moment after its second checkpoint: the others
    all at once, then each of SPINNERS alone. {name: (files, last
    checkpoint seen before the kill, its stderr)}, and what the runs left
    behind."""
    rnd = random.Random(os.environ.get("RTLAT_TEST_SEED", "33"))
    base = tmp_path_factory.mktemp("killed")
    before = snapshot()
    out = {}
    batches = [[t for t in measuring() if t["name"] not in SPINNERS]] + \
        [[t] for t in measuring() if t["name"] in SPINNERS]
    for i, batch in enumerate(batches):
        # A spinner alone, and beside no other make check group's runs.
        with rtlock.cpu_hog() if i else contextlib.nullcontext():
            out.update(kill_batch(batch, base, rnd))
    return out, settled_leaks(before)


def kill_batch(tests, base, rnd):
    runs = {}
    for t in tests:
        d = base / t["name"]
        d.mkdir()
        files, args = outputs(t["name"], d)
        err = open(d.parent / f"{t['name']}.err", "w")
        p = subprocess.Popen([RTLAT, t["name"]] + long_args(t) +
                             ["--checkpoint", "1s"] + args,
                             stdout=subprocess.DEVNULL, stderr=err)
        runs[t["name"]] = [p, files, None, rnd.uniform(0.0, 1.0), err, None]
    deadline = time.time() + 30
    try:
        while any(r[5] is None for r in runs.values()) and time.time() < deadline:
            for name, r in runs.items():
                p, files, seen, delay, err, at = r
                if at is not None:
                    continue
                if p.poll() is not None:    # ended by itself: a failure below
                    r[5] = time.time()
                    continue
                c = covered(files["json"])
                if c and c[0] >= 2.0 and c[1] > 0 and r[2] is None:
                    r[2] = c
                    r[3] = time.time() + delay
                if r[2] is not None and time.time() >= r[3]:
                    r[2] = covered(files["json"]) or r[2]
                    p.kill()
                    r[5] = time.time()
            time.sleep(0.05)
    finally:
        for r in runs.values():
            if r[0].poll() is None:
                r[0].kill()
            r[0].wait()
            r[4].close()
    return {name: (r[1], r[2], Path(r[4].name).read_text(), r[0].returncode)
            for name, r in runs.items()}


def check_json(name, path, seen):
    d = json.loads(path.read_text())
    assert d["complete"] is False and d["file_version"] == 1
    assert schema_errors(d) == []
    ck = d["checkpoint"]
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z", ck["at_wall"])
    assert ck["planned_s"] in (None, float(LONG))
    # at least up to the last checkpoint seen before the kill
    assert ck["covered_s"] >= seen[0] - 1e-6
    n = sum(s["samples"] for s in d["fleet"]["series"] if s.get("thread") is None)
    assert n >= seen[1] > 0
    # the largest samples so far are kept across checkpoints (issue 34)
    lg = d["largest"]
    assert lg is not None and lg["k"] == 2048
    assert any(s["rows"] for s in lg["series"])
    for s in lg["series"]:
        assert len(s["rows"]) <= min(s["seen"], lg["k"])
        ns = [r[0] for r in s["rows"]]
        assert ns == sorted(ns, reverse=True)
    assert d["settings"]["checkpoint_s"] == 1 if "checkpoint_s" in d.get("settings", {}) \
        else True
    if any(t["family"] == "pair" and t["name"] == name for t in registry()):
        res = rtjson.read(path)       # rt-tests' layout, as its readers read it
        assert res.pairs and sum(p.samples for p in res.pairs) > 0


def check_openmetrics(path):
    text = path.read_text()
    assert text.endswith("# EOF\n")
    fams = {f.name: f for f in text_string_to_metric_families(text)}
    list(om_parser.text_string_to_metric_families(text))
    assert [s.value for s in fams["rtlat_run_complete"].samples] == [0]
    counts = [s.value for s in fams["rtlat_latency_seconds"].samples
              if s.name.endswith("_count") and s.labels["thread"] == "all"]
    assert counts and any(c > 0 for c in counts)
    assert "rtlat_last_step_max_seconds" in fams
    promtool_check(path)


def check_histfile(path):
    lines = [ln for ln in path.read_text().splitlines() if ln and not ln.startswith("#")]
    assert lines and all(re.fullmatch(r"[\d\s]+", ln) for ln in lines), lines[:3]


@pytest.mark.parametrize("name", [t["name"] for t in measuring()])
def test_sigkill_after_checkpoints_leaves_valid_files(killed, name):
    runs, _ = killed
    files, seen, err, rc = runs[name]
    assert seen is not None, f"{name}: no second checkpoint in 30 s; stderr: {err}"
    assert rc == -signal.SIGKILL, err
    check_json(name, files["json"], seen)
    suites = junitparser.JUnitXml.fromfile(str(files["junit"]))
    assert sum(1 for s in suites for _ in s) > 0
    check_openmetrics(files["openmetrics"])
    if "histfile" in files:
        check_histfile(files["histfile"])
    # nothing but the files asked for: no temp file left beside them
    assert sorted(p.name for p in files["json"].parent.iterdir()) == \
        sorted(p.name for p in files.values())


def test_sigkilled_runs_leave_nothing_behind(killed):
    _, leaks = killed
    assert not leaks, f"left behind: {leaks}"


def test_sigusr1_prints_the_status_and_the_run_goes_on(tmp_path, leakcheck):
    j = tmp_path / "o.json"
    # a run that checkpoints (every run planned over an hour by default)
    with watching(["pmq", "-D", "2", "-q", "--checkpoint", "1m", "--json", str(j)]) as p:
        p.measuring()
        out, err = p.communicate(timeout=20)
    assert p.returncode == 0, err
    assert re.search(r"^rtlat pmq: status after \d+\.\d s: latency: \d+ samples, "
                     r"min [\d.]+ avg [\d.]+ p99 [\d.]+ max [\d.]+ us$", err, re.M), err
    d = json.loads(j.read_text())
    assert d["complete"] is True and d["checkpoint"] is None
    leakcheck()


def test_checkpoint_option_is_checked_and_in_the_settings(tmp_path):
    r = run(["pmq", "--checkpoint", "soon"])
    assert r.returncode == 2 and r.stderr.count("\n") == 1 and "--checkpoint" in r.stderr
    j = tmp_path / "o.json"
    r = run(["pmq", "-l", "50", "-q", "--json", str(j)])
    assert r.returncode == 0, r.stderr
    d = json.loads(j.read_text())
    assert d["complete"] is True and d["checkpoint"] is None
    assert d["settings"]["checkpoint_s"] == 0      # a short run: off


def test_json_on_stdout_is_one_document_with_checkpoints(leakcheck):
    """--json=- cannot be rewritten: stdout gets the final document only,
    not one more at each checkpoint (it was one per checkpoint, concatenated,
    which no JSON reader takes)."""
    r = run(["pmq", "-D", "3", "-q", "--json=-", "--timeline", "1s", "--checkpoint", "1s"])
    assert r.returncode == 0, r.stderr
    # pmq's summary lines come first on stdout, as rt-tests' do with -q.
    d = json.loads(r.stdout[r.stdout.index("\n{\n") + 1:])
    assert d["complete"] is True and d["checkpoint"] is None
    assert d["settings"]["checkpoint_s"] == 1
    leakcheck()


def test_streams_get_the_final_write_only(tmp_path, leakcheck):
    """A checkpoint rewrites files whole; stdout and a FIFO cannot be
    rewritten: each gets one copy, the final one, for every output (it was
    one more histogram on stdout at each checkpoint, and a checkpoint
    waited for each FIFO's reader). The timer and the cyclictest face at
    once, a checkpoint a second."""
    import threading
    fifos = {k: tmp_path / k for k in ("json", "junit", "openmetrics", "gnuplot")}
    got = {}

    def read(k):
        with open(fifos[k]) as f:
            got[k] = f.read()
    readers = []
    for k, p in fifos.items():
        os.mkfifo(p)
        readers.append(threading.Thread(target=read, args=(k,), daemon=True))
        readers[-1].start()
    ck = ["--checkpoint", "1s", "--timeline", "1s", "--histfile=-"]
    with running(["timer", "-T", "3", "-q", "-c", "0", "-g", str(fifos["gnuplot"]),
                  *(f"--{k}={fifos[k]}" for k in ("json", "junit", "openmetrics")),
                  *ck]) as timer, \
            running(["cyclictest", "-D", "3", "-q", "-m", "-t1", "-h", "100", *ck]) as face:
        outs = [p.communicate(timeout=30) for p in (timer, face)]
    for p, (out, err) in zip((timer, face), outs):
        assert p.returncode == 0, err
        assert len(re.findall(r"^# Histogram$", out, re.M)) == 1, out
    for k, t in zip(fifos, readers):
        t.join(timeout=10)
        if t.is_alive():        # never opened by rtlat: let the reader go
            try:
                os.close(os.open(fifos[k], os.O_WRONLY | os.O_NONBLOCK))
            except OSError:
                pass
    assert set(got) == set(fifos), f"never written: {set(fifos) - set(got)}"
    d = json.loads(got["json"])
    assert d["complete"] is True and d["settings"]["checkpoint_s"] == 1
    assert got["junit"].count("<?xml") == 1
    junitparser.JUnitXml.fromstring(got["junit"])
    assert got["openmetrics"].count("# EOF") == 1
    assert re.search(r'rtlat_run_complete\{run="[^"]+",test="timer"\} 1', got["openmetrics"])
    first = got["gnuplot"].splitlines()[0]
    assert got["gnuplot"].count(first + "\n") == 1, got["gnuplot"]
    leakcheck()


def test_node_exporter_serves_a_running_timer(tmp_path, leakcheck):
    tf = tmp_path / "textfile"
    tf.mkdir()
    prom = tf / "rtlat.prom"
    with running(["timer", "-c", "all", "-q", "-T", LONG, "--checkpoint", "1s",
                  "--openmetrics", str(prom)]) as p, \
            exporter(tf, tmp_path / "ne.log") as (ne, port):
        def count():
            deadline = time.time() + 15
            while True:
                text = scrape(port, deadline)
                m = re.search(r'^rtlat_latency_seconds_count\{[^}]*thread="all"[^}]*\} '
                              r'(\S+)$', text, re.M)
                if m or time.time() > deadline:
                    break
                time.sleep(0.2)
            assert m, text
            assert re.search(r"^node_textfile_scrape_error 0$", text, re.M), text
            assert re.search(r'^rtlat_run_complete\{run="[^"]+",test="timer"\} 0$', text, re.M)
            return float(m.group(1))
        first = count()
        # a later checkpoint (every 1 s) served with more samples
        wait_for(lambda: count() > first, "a scrape with a larger count",
                 proc=p, every=0.2)
        p.send_signal(signal.SIGINT)
        p.communicate(timeout=20)
    assert ne.returncode is not None
    assert re.search(r'rtlat_run_complete\{run="[^"]+",test="timer"\} 1', prom.read_text())
    leakcheck()


def test_suite_index_says_which_tests_are_done(tmp_path):
    d = tmp_path / "res"
    om = tmp_path / "suite.prom"
    with running(["suite", "--duration", "1", "--only", "pmq,sigwait", "-q",
                  "--checkpoint", "1s", "--openmetrics", str(om),
                  "-o", str(d)]) as p:
        mid = mid_om = None
        deadline = time.time() + 20
        while p.poll() is None and time.time() < deadline:
            try:
                idx = json.loads((d / "index.json").read_text())
            except (OSError, ValueError):
                idx = None
            if idx and idx["complete"] is False and \
                    [t["state"] for t in idx["tests"]] == ["done", "running"]:
                mid = idx
                mid_om = om.read_text() if om.exists() else None
            time.sleep(0.05)
        p.communicate(timeout=20)
    assert p.returncode == 0
    assert mid and mid["checkpoint"]["covered_s"] > 0
    assert schema_errors(mid) == []
    assert mid["tests"][0]["exit_status"] == 0 and mid["tests"][1]["exit_status"] is None
    # the suite's OpenMetrics after its first test: pmq's, marked running
    assert mid_om and re.search(r'rtlat_run_complete\{run="[^"]+",test="pmq"\} 0', mid_om)
    assert re.search(r'rtlat_run_complete\{run="[^"]+",test="sigwait"\} 1', om.read_text())
    # its tests checkpointed too: their JSON says so in the settings
    assert json.loads((d / "pmq.json").read_text())["settings"]["checkpoint_s"] == 1
    end = json.loads((d / "index.json").read_text())
    assert end["complete"] is True and end["checkpoint"] is None
    assert schema_errors(end) == []
    assert [(t["name"], t["state"], t["exit_status"]) for t in end["tests"]] == \
        [("pmq", "done", 0), ("sigwait", "done", 0)]


# Run in a PID namespace of its own, so ns_last_pid counts the runs' tasks
# alone: it starts the runs, reads the counter once each has written a
# checkpoint, waits for two more of each, and reads it again. Nothing in
# it forks meanwhile (no shell, no subprocess).
NO_FORK = r'''
import json, signal, subprocess, sys, time
def last():
    with open("/proc/sys/kernel/ns_last_pid") as f:
        return int(f.read())
def covered(p):
    try:
        with open(p) as f:
            d = json.load(f)
    except (OSError, ValueError):
        return None
    return d["checkpoint"]["covered_s"] if d.get("complete") is False else None
runs = [(a[0], subprocess.Popen(a[1:], stdout=subprocess.DEVNULL))
        for a in json.loads(sys.argv[1])]
deadline, first, before = time.time() + 40, {}, None
while time.time() < deadline:
    c = {p: covered(p) for p, _ in runs}
    if before is None and all(v is not None and v >= 1.0 for v in c.values()):
        before, first = last(), c
    if before is not None and all(c[p] is not None and c[p] >= first[p] + 2.0
                                  for p in c):
        break
    time.sleep(0.05)
after = last()
for _, r in runs:
    r.send_signal(signal.SIGINT)
print(json.dumps({"before": before, "after": after, "first": first, "last": c,
                  "rc": [r.wait() for _, r in runs]}))
'''


def test_checkpoints_start_no_process_while_measuring(tmp_path):
    """A checkpoint is written off the measuring threads and leaves them
    alone: no fork while they run (a fork holds their address space's lock
    and turns their pages copy-on-write: page faults in the measuring
    loop). The doctor's verdicts in a checkpoint are those taken before
    the measurement, rendered then; the final file has them afresh."""
    runs = []
    for name, args in (("cyclictest", ["-S", "-m", "-i", "100", "-h", "100", "-q"]),
                       ("pmq", ["-q"])):
        j = tmp_path / f"{name}.json"
        runs.append([str(j), RTLAT, name, "-D", "60", "--timeline", "1s",
                     "--checkpoint", "1s", f"--json={j}"] + args)
    r = subprocess.run(["unshare", "--pid", "--fork", sys.executable, "-c", NO_FORK,
                        json.dumps(runs)], capture_output=True, text=True, timeout=90)
    if r.returncode and r.stderr.startswith("unshare: "):
        pytest.skip(f"no PID namespace here: {r.stderr.strip()}")
    assert r.returncode == 0, r.stderr
    got = json.loads(r.stdout)
    assert got["rc"] == [0, 0], r.stderr
    assert got["before"] is not None, got           # each wrote a checkpoint
    for p, c in got["last"].items():
        assert c is not None and c >= got["first"][p] + 2.0, got   # two more each
    assert got["after"] == got["before"], got       # and no task started meanwhile
    for p, *_ in runs:
        d = json.loads(Path(p).read_text())
        assert d["complete"] is True
        assert d["doctor"]["verdict"] and d["doctor"]["checks"], d["doctor"]
        assert d["system"]["kernel"] == os.uname().release
