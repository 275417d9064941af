# SPDX-License-Identifier: GPL-2.0-or-later
"""The fleet outputs taken by the real engines that consume them (issue 25):
JUnit validated against the Jenkins xunit-plugin's schema (junit-10.xsd,
tests/fixtures) and read by junitparser; OpenMetrics files scraped through
node_exporter's textfile collector and parsed by prometheus_client; the
LAVA definition (lava/rtlat.yaml, rtlat.sh, send-to-lava.sh) run by
Linaro's test-runner.py, with and without a lava-test-case on the PATH.
An engine that cannot be had here is a skip with the reason, never a pass.
No latency value is asserted: thresholds of 1 us fail, 1000000 us pass."""
import contextlib
import csv
import json
import os
import re
import shutil
import signal
import stat
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

import junitparser
import pytest
from prometheus_client.openmetrics import parser as om_parser
from prometheus_client.parser import text_string_to_metric_families

from conftest import RTLAT, ROOT, free_port, promtool_check, run, settled_leaks, snapshot

XSD = ROOT / "tests" / "fixtures" / "junit-10.xsd"
FAMILIES = {
    "rtlat_latency_seconds": "histogram",
    "rtlat_latency_quantile_seconds": "summary",
    "rtlat_threshold_exceeded": "gauge",
    "rtlat_run_timestamp_seconds": "gauge",
    "rtlat_info": "gauge",
}
# A file refreshed while its run went on (checkpoints; the timer's 1-s
# time line refreshes it every second) also says whether the run ended.
LIVE = {"rtlat_run_complete": "gauge"}
QUANTILES = {"0", "0.5", "0.99", "0.9999", "1"}
FIGURES = ("min", "avg", "p99", "max")
# Short runs: about 0.15 s for a pair test, 1 s for the timer.
PAIR = ["-l", "300", "-i", "500", "-q"]


def online_cpus():
    with open("/sys/devices/system/cpu/online") as f:
        cpus = set()
        for part in f.read().strip().split(","):
            lo, _, hi = part.partition("-")
            cpus.update(range(int(lo), int(hi or lo) + 1))
    return sorted(cpus)


# ---------------------------------------------------------------------------
# One set of real runs, each writing JUnit and OpenMetrics, shared by the
# JUnit, OpenMetrics and node_exporter tests below.

RUNS = {
    # A threshold failure on a pair test (exit 3).
    "pmq": (["pmq", *PAIR, "--max-latency", "1"], 3),
    "svsem": (["svsem", *PAIR, "--max-latency", "1000000"], 0),
    # One sampler per online CPU.
    "timer": (["timer", "-c", "all", "-T", "1", "-q",
               "--max-latency", "timer=1000000"], 0),
    # Two tests neither file above holds, in one file.
    "suite": (["suite", "--duration", "1", "--only", "sigwait,ptsem", "-q",
               "--max-latency", "sigwait=1000000,ptsem/latency=1000000"], 0),
}


@pytest.fixture(scope="module")
def fleet(tmp_path_factory):
    """{name: (result, junit path, openmetrics path, start, end)} of RUNS
    and of an errored run (its JSON written to a full device: exit 1), and
    what they all left behind."""
    d = tmp_path_factory.mktemp("fleet")
    before = snapshot()
    out = {}
    for name, (argv, _) in RUNS.items():
        extra = ["-o", str(d / "results")] if name == "suite" else []
        start = time.time()
        r = run(argv + extra + ["--junit", str(d / f"{name}.xml"),
                                "--openmetrics", str(d / f"{name}.prom")],
                timeout=60)
        out[name] = (r, d / f"{name}.xml", d / f"{name}.prom", start, time.time())
    full = d / "full"
    os.mknod(full, 0o666 | stat.S_IFCHR, os.makedev(1, 7))
    r = run(["pmq", *PAIR, "--max-latency", "1", "--json", str(full),
             "--junit", str(d / "error.xml")])
    out["error"] = (r, d / "error.xml", None, None, None)
    return out, settled_leaks(before)


def test_the_runs_end_as_meant_and_leave_nothing(fleet):
    runs, left = fleet
    for name, (argv, status) in RUNS.items():
        r = runs[name][0]
        assert r.returncode == status, (name, r.stderr)
    assert runs["error"][0].returncode == 1, runs["error"][0].stderr
    assert not left, f"left behind: {left}"


# ---------------------------------------------------------------------------
# JUnit: the Jenkins/Ant schema and junitparser.

def junit_schema():
    xmlschema = pytest.importorskip("xmlschema", reason="xmlschema is not installed "
                                    "(tests/requirements.txt; make venv)")
    return xmlschema.XMLSchema(str(XSD))


def test_the_schema_fixture_is_the_xunit_plugins():
    text = XSD.read_text()
    assert "github.com/jenkinsci/xunit-plugin/blob/master/src/main/resources/" \
           "org/jenkinsci/plugins/xunit/types/model/xsd/junit-10.xsd" in text
    assert "Copyright (c) 2014, Gregory Boissinot" in text
    schema = junit_schema()
    assert {"testsuites", "testsuite", "testcase", "properties"} <= set(schema.elements)


@pytest.mark.parametrize("name", list(RUNS) + ["error"])
def test_junit_is_valid_against_junit_10_xsd(fleet, name):
    schema = junit_schema()
    path = fleet[0][name][1]
    errors = [f"{e.path}: {e.reason}" for e in schema.iter_errors(str(path))]
    assert not errors, f"{path.name} is not valid per junit-10.xsd:\n" + \
        "\n".join(errors) + "\n" + path.read_text()


def suites_of(path):
    xml = junitparser.JUnitXml.fromfile(str(path))
    return list(xml) if isinstance(xml, junitparser.JUnitXml) else [xml]


@pytest.mark.parametrize("name", list(RUNS) + ["error"])
def test_junitparser_reads_real_times_and_counts(fleet, name):
    suites = suites_of(fleet[0][name][1])
    assert suites
    for s in suites:
        cases = list(s)
        assert cases, s.name
        props = {p.name: p.value for p in s.properties()}
        # what a run is compared by, at suite level
        assert props["kernel"] == os.uname().release, props
        assert props["rtlat_version"] and props["preemption"], props
        assert s.time > 0, s.name
        for c in cases:
            assert c.time is not None and c.time > 0, (s.name, c.name, c.time)
        fails = sum(isinstance(r, junitparser.Failure) for c in cases for r in c.result)
        errs = sum(isinstance(r, junitparser.Error) for c in cases for r in c.result)
        assert (s.tests, s.failures, s.errors) == (len(cases), fails, errs), s.name


def test_junit_cases_per_series_thread_and_cpu(fleet):
    runs = fleet[0]
    pmq = suites_of(runs["pmq"][1])
    assert [s.name for s in pmq] == ["rtlat.pmq"]
    cases = {c.name: c for c in pmq[0]}
    # one pair: the series is that pair's, one case (not a copy as .t0)
    assert set(cases) == {"latency"}
    for c in cases.values():
        assert c.classname == "rtlat.pmq"
        (f,) = c.result
        assert isinstance(f, junitparser.Failure) and f.type == "max-latency"
        assert re.search(r"^max_us [\d.]+$", c.system_out, re.M), c.system_out
    timer = suites_of(runs["timer"][1])
    assert [s.name for s in timer] == ["rtlat.timer"]
    cpus = online_cpus()
    cases = {c.name: c for c in timer[0]}
    parts = {f"latency.t{i}" for i in range(len(cpus))} if len(cpus) > 1 else set()
    assert set(cases) == {"latency"} | parts
    assert all(not c.result for c in cases.values())
    assert sorted(int(re.search(r"^cpu (\d+)$", cases[n].system_out, re.M)[1])
                  for n in parts) == (cpus if parts else [])
    suite = suites_of(runs["suite"][1])
    assert [s.name for s in suite] == ["rtlat.sigwait", "rtlat.ptsem"]
    err = suites_of(runs["error"][1])
    run_cases = [(s.name, c) for s in err for c in s if c.classname == "rtlat"]
    assert len(run_cases) == 1 and run_cases[0][1].name == "run"
    assert isinstance(run_cases[0][1].result[0], junitparser.Error)


# ---------------------------------------------------------------------------
# OpenMetrics: prometheus_client's parser, then node_exporter.

def om_families(path):
    return list(om_parser.text_string_to_metric_families(path.read_text()))


@pytest.mark.parametrize("name", list(RUNS))
def test_openmetrics_labels_for_fleets(fleet, name):
    r, _, path, start, end = fleet[0][name]
    fams = {f.name: f for f in om_families(path)}
    types = {n: f.type for n, f in fams.items()}
    assert {n: t for n, t in types.items() if n not in LIVE} == FAMILIES
    for n in LIVE.keys() & types.keys():
        assert types[n] == LIVE[n]
        # the file of a run that ended says so
        assert {s.value for s in fams[n].samples} == {1.0}, fams[n].samples
    tests = {"suite": {"sigwait", "ptsem"}}.get(name, {name})
    for f in fams.values():
        for s in f.samples:
            assert "host" not in s.labels and "instance" not in s.labels, s
            assert s.labels["test"] in tests, s
    for fam in ("rtlat_latency_seconds", "rtlat_latency_quantile_seconds",
                "rtlat_threshold_exceeded"):
        for s in fams[fam].samples:
            assert {"test", "series", "thread", "cpu"} <= set(s.labels), s
    q = [s for s in fams["rtlat_latency_quantile_seconds"].samples
         if s.name == "rtlat_latency_quantile_seconds"]
    assert {s.labels["quantile"] for s in q} == QUANTILES
    # one family: no gauge per figure any more
    assert not any(re.match(r"rtlat_latency_(min|avg|p50|p99|p9999|max)_seconds", n)
                   for n in fams)
    whole = {(s.labels["test"], s.labels["series"]) for s in q
             if (s.labels["thread"], s.labels["cpu"]) == ("all", "all")}
    parts = {(s.labels["test"], s.labels["thread"], s.labels["cpu"]) for s in q
             if s.labels["thread"] != "all"}
    assert whole and parts
    if name == "timer":
        assert {(t, c) for _, t, c in parts} == {(str(i), str(c)) for i, c in
                                                 enumerate(online_cpus())}
    elif name == "pmq":
        assert parts == {("pmq", "0", "any")}
    exceeded = {s.labels["thread"]: s.value for s in fams["rtlat_threshold_exceeded"].samples}
    assert set(exceeded.values()) == ({1.0} if name == "pmq" else {0.0}), exceeded
    (info,) = [s for s in fams["rtlat_info"].samples if s.labels["test"] == sorted(tests)[0]]
    assert info.value == 1 and info.labels["kernel"] == os.uname().release
    assert info.labels["version"] and info.labels["preemption"]
    assert {s.labels["test"] for s in fams["rtlat_info"].samples} == tests
    stamps = fams["rtlat_run_timestamp_seconds"].samples
    assert {s.labels["test"] for s in stamps} == tests
    assert all(int(start) <= s.value <= end + 1 for s in stamps), (start, end, stamps)


@pytest.mark.parametrize("name", list(RUNS))
def test_promtool_accepts_every_file(fleet, name):
    """Prometheus' own lint (promtool check metrics) beside the parser
    above and node_exporter below: quantiles on a summary, no other
    complaint."""
    promtool_check(fleet[0][name][2])


def node_exporter():
    for name in ("prometheus-node-exporter", "node_exporter"):
        path = shutil.which(name)
        if path:
            return path
    pytest.skip("node_exporter is not installed (Debian package "
                "prometheus-node-exporter; tests/install-deps)")


def scrape(port, deadline):
    """GET /metrics on loopback, retried while node_exporter starts."""
    while True:
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics",
                                        timeout=5) as r:
                return r.read().decode()
        except OSError:
            if time.time() > deadline:
                raise
            time.sleep(0.1)


def sample_key(name, labels):
    """A sample's identity, with le and quantile compared as numbers
    (node_exporter prints them its own way)."""
    return (name, tuple(sorted((k, float(v) if k in ("le", "quantile") else v)
                               for k, v in labels.items())))


@contextlib.contextmanager
def exporter(textfile_dir, log):
    """node_exporter with the textfile collector only, on loopback; stopped
    and reaped whatever happens."""
    exe = node_exporter()
    # the flags of the version installed (kingpin prints --help on stderr)
    h = subprocess.run([exe, "--help"], capture_output=True, text=True, timeout=30)
    help_text = h.stdout + h.stderr
    flags = ["--collector.disable-defaults", "--collector.textfile",
             "--collector.textfile.directory", "--web.listen-address"]
    missing = [f for f in flags if f not in help_text]
    if missing:
        pytest.skip(f"{exe} lacks {missing}")
    port = free_port()
    with open(log, "w") as logf:
        p = subprocess.Popen([exe, f"--web.listen-address=127.0.0.1:{port}",
                              "--collector.disable-defaults", "--collector.textfile",
                              f"--collector.textfile.directory={textfile_dir}"],
                             stdout=logf, stderr=subprocess.STDOUT)
    try:
        yield p, port
    finally:
        if p.poll() is None:
            p.terminate()
            try:
                p.wait(timeout=10)
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait()


def test_node_exporter_textfile_collector_takes_several_files(fleet, tmp_path):
    runs = fleet[0]
    tf = tmp_path / "textfile"
    tf.mkdir()
    for name in RUNS:
        shutil.copy(runs[name][2], tf / f"rtlat-{name}.prom")
    want = set()
    for path in tf.iterdir():
        for f in om_families(path):
            for s in f.samples:
                want.add(sample_key(s.name, s.labels))
    log = tmp_path / "node_exporter.log"
    with exporter(tf, log) as (p, port):
        text = scrape(port, time.time() + 15)
        assert p.poll() is None, log.read_text()
    assert p.returncode is not None  # stopped and reaped
    logged = log.read_text()
    assert "collected before" not in logged, logged
    assert "level=error" not in logged, logged
    assert re.search(r"^node_textfile_scrape_error 0$", text, re.M), text
    fams = {f.name: f for f in text_string_to_metric_families(text)}
    mtimes = {s.labels["file"] for s in fams["node_textfile_mtime_seconds"].samples}
    assert {Path(m).name for m in mtimes} == {f"rtlat-{n}.prom" for n in RUNS}
    assert {n: fams[n].type for n in FAMILIES} == FAMILIES
    got = {sample_key(s.name, s.labels) for n in set(FAMILIES) | (LIVE.keys() & fams.keys())
           for s in fams[n].samples}
    assert want - got == set(), sorted(want - got)[:5]
    tests = {s.labels["test"] for s in fams["rtlat_info"].samples}
    assert tests == {"pmq", "svsem", "timer", "sigwait", "ptsem"}


# ---------------------------------------------------------------------------
# LAVA: Linaro's test-runner.py runs lava/rtlat.yaml.

MIRROR = Path("/work/.mirror/Linaro+test-definitions/repo")
UNIQUE = 987123  # a sleep no one else runs: the background load's mark


def definitions_checkout(tmp):
    """test-runner.py of a Linaro/test-definitions checkout: the one
    RTLAT_TEST_DEFINITIONS names, or automated/utils extracted from the bare
    mirror; else skip."""
    env = os.environ.get("RTLAT_TEST_DEFINITIONS")
    if env:
        tr = Path(env) / "automated" / "utils" / "test-runner.py"
        if not tr.is_file():
            pytest.skip(f"RTLAT_TEST_DEFINITIONS={env} has no {tr}")
        return tr
    if not MIRROR.is_dir():
        pytest.skip(f"no Linaro/test-definitions: {MIRROR} is absent and "
                    "RTLAT_TEST_DEFINITIONS is not set")
    dest = tmp / "test-definitions"
    dest.mkdir()
    r = subprocess.run(f"git --git-dir='{MIRROR}' archive HEAD automated/utils | "
                       f"tar -x -C '{dest}'", shell=True, capture_output=True,
                       text=True, timeout=60)
    if r.returncode:
        pytest.skip(f"git archive of {MIRROR} failed: {r.stderr}")
    return dest / "automated" / "utils" / "test-runner.py"


@pytest.fixture(scope="module")
def runner(tmp_path_factory):
    """(test-runner.py, a git repository holding this tree's lava/): the
    runner copies REPO_PATH whole and runs `git rev-parse HEAD` in the
    copy, so the definition goes into a small repository of its own."""
    if os.geteuid() != 0:
        pytest.skip("test-runner.py runs automated definitions as root only")
    for mod in ("yaml", "pexpect"):
        r = subprocess.run([sys.executable, "-c", f"import {mod}"], capture_output=True)
        if r.returncode:
            pytest.skip(f"test-runner.py needs Python's {mod} (tests/requirements.txt)")
    if not shutil.which("git"):
        pytest.skip("git is missing")
    tmp = tmp_path_factory.mktemp("lava")
    tr = definitions_checkout(tmp)
    repo = tmp / "repo"
    (repo / "lava").mkdir(parents=True)
    for f in ("rtlat.yaml", "rtlat.sh", "send-to-lava.sh"):
        shutil.copy2(ROOT / "lava" / f, repo / "lava" / f)
    git = ["git", "-C", str(repo), "-c", "user.name=rtlat tests",
           "-c", "user.email=rtlat@localhost"]
    for cmd in (["init", "-q"], ["add", "-A"], ["commit", "-q", "-m", "lava"]):
        subprocess.run(git + cmd, check=True, capture_output=True)
    return tr, repo


def our_processes():
    """PIDs whose command line holds the background load's mark."""
    pids = []
    for d in Path("/proc").iterdir():
        if not d.name.isdigit() or int(d.name) == os.getpid():
            continue
        try:
            cmd = (d / "cmdline").read_bytes()
        except OSError:
            continue
        if str(UNIQUE).encode() in cmd:
            pids.append(int(d.name))
    return pids


def kill_ours():
    for pid in our_processes():
        with contextlib.suppress(OSError):
            os.kill(pid, signal.SIGKILL)


def run_test_runner(runner, tmp_path, params, stub_dir=None):
    """Run test-runner.py on lava/rtlat.yaml with params; returns (cases as
    [(name, result, measurement, units)] from result.csv, the same from
    result.json, stdout.log, the test's copy of the tree). With stub_dir,
    that directory is bound on /usr/local/sbin in a mount namespace of the
    run's own: run.sh resets PATH to the system's directories, so that is
    how a lava-test-case gets on its PATH without touching the machine."""
    tr, repo = runner
    out = tmp_path / "out"
    cmd = [sys.executable, str(tr), "-o", str(out), "-e", "-d", "lava/rtlat.yaml",
           "-r"] + [f"{k}={v}" for k, v in params.items()]
    if stub_dir is not None:
        if not shutil.which("unshare") or subprocess.run(
                ["unshare", "-m", "true"], capture_output=True).returncode:
            pytest.skip("cannot make a mount namespace for the lava-test-case stub")
        for e in Path("/usr/local/sbin").iterdir():
            if not (stub_dir / e.name).exists():
                (stub_dir / e.name).symlink_to(e)
        cmd = ["unshare", "-m", "--propagation", "private", "sh", "-c",
               'mount --bind "$0" /usr/local/sbin && exec "$@"', str(stub_dir)] + cmd
    env = dict(os.environ, REPO_PATH=str(repo))
    try:
        r = subprocess.run(cmd, cwd=repo, env=env, capture_output=True, text=True,
                           timeout=30, start_new_session=True)
    except subprocess.TimeoutExpired:
        kill_ours()
        raise
    assert r.returncode == 0, r.stdout + r.stderr
    (test_dir,) = [d for d in out.iterdir() if d.is_dir() and d.name.startswith("rtlat_")]
    with open(test_dir / "result.csv") as f:
        rows = [(row["test_case_id"], row["result"], row["measurement"], row["units"])
                for row in csv.DictReader(f)]
    (result,) = json.loads((test_dir / "result.json").read_text())
    assert result["name"] == "rtlat" and result["params"]["TEST"] == params["TEST"]
    metrics = result["metrics"]
    js = [(m["test_case_id"], m["result"], str(m["measurement"]), m["units"])
          for m in metrics]
    return rows, js, (test_dir / "stdout.log").read_text(), test_dir


LAVA_FIGURES = ("min", "avg", "p99", "p9999", "max")


def pmq_cases(max_result):
    """What lava/rtlat.sh records for TEST=pmq, one pair: the series'
    figures and verdict, the thread's (pmq-t0-..., unique across the tests
    of a job), the run."""
    names = [f"pmq-latency-{f}" for f in LAVA_FIGURES] + ["pmq-latency"] + \
            [f"pmq-t0-{f}-latency" for f in LAVA_FIGURES] + ["pmq-t0-latency"]
    return [(n, max_result if "max" in n or n in ("pmq-latency", "pmq-t0-latency")
             else "pass") for n in names] + [("pmq-run", max_result)]


def verdict_case(name):
    """A case without a measurement: the run's, a series' or a thread's
    verdict (TEST-run, TEST-SERIES, TEST-t<N>-latency)."""
    return name.endswith("-run") or not re.search(r"-(min|avg|p99|p9999|max)(-latency)?$",
                                                  name)


PMQ_PARAMS = {"TEST": "pmq", "DURATION": "1s", "ARGS": "-l 500 -i 500",
              "RTLAT": RTLAT, "SKIP_INSTALL": "true"}


def check_records(rows, js, want):
    assert [(n, res) for n, res, _, _ in rows] == want, rows
    assert [(n, res) for n, res, _, _ in js] == want, js
    for n, _, value, units in rows:
        if verdict_case(n):
            assert (value, units) == ("", ""), (n, value, units)
        else:
            assert float(value) > 0 and units == "us", (n, value, units)


@pytest.mark.parametrize("limit,result", [("1", "fail"), ("pmq/latency=1000000", "pass")],
                         ids=["threshold-fails", "threshold-passes"])
def test_test_runner_records_every_case(runner, tmp_path, leakcheck, limit, result):
    rows, js, log, test_dir = run_test_runner(runner, tmp_path,
                                          dict(PMQ_PARAMS, MAX_LATENCY=limit))
    check_records(rows, js, pmq_cases(result))
    # without LAVA the cases went through send-to-lava.sh's signal lines
    assert len(re.findall(r"^<LAVA_SIGNAL_TESTCASE TEST_CASE_ID=", log, re.M)) == len(rows)
    output = test_dir / "lava" / "output"
    assert (output / "result.txt").read_text().splitlines()[-1] == f"pmq-run {result}"
    # the JSON and the JUnit report stay as artifacts
    assert json.loads((output / "rtlat-pmq.json").read_text())["return_code"] == \
        (3 if result == "fail" else 0)
    assert suites_of(output / "rtlat-pmq.junit.xml")[0].name == "rtlat.pmq"
    leakcheck()


LAVA_STUB = """#!/bin/sh
# lava-test-case as the tests' stub: each call recorded, one line.
echo "$*" >> "{record}"
"""


def test_test_runner_with_lava_test_case_on_the_path(runner, tmp_path, leakcheck):
    stub_dir = tmp_path / "sbin"
    stub_dir.mkdir()
    record = tmp_path / "calls"
    (stub_dir / "lava-test-case").write_text(LAVA_STUB.format(record=record))
    (stub_dir / "lava-test-case").chmod(0o755)
    rows, js, log, _ = run_test_runner(runner, tmp_path, dict(PMQ_PARAMS, MAX_LATENCY="1"),
                                   stub_dir=stub_dir)
    # LAVA had the cases: no signal lines for test-runner to read
    assert "<LAVA_SIGNAL_TESTCASE" not in log, log
    assert [r[0] for r in rows] == ["no-result-found"]
    calls = record.read_text().splitlines()
    got = []
    for c in calls:
        m = re.fullmatch(r"(\S+) --result (pass|fail)(?: --measurement (\d+\.\d+) --units us)?", c)
        assert m, c
        assert (m[3] is None) == verdict_case(m[1]), c
        got.append((m[1], m[2]))
    assert got == pmq_cases("fail")
    leakcheck()


def test_test_runner_missing_rtlat_fails_the_run(runner, tmp_path, leakcheck):
    rows, js, log, _ = run_test_runner(runner, tmp_path, dict(
        PMQ_PARAMS, RTLAT=str(tmp_path / "no" / "rtlat"), SKIP_INSTALL="true"))
    assert [(n, res) for n, res, _, _ in rows] == [("pmq-run", "fail")], log
    assert "no rtlat" in log
    leakcheck()


CRASHING = """#!/bin/sh
# rtlat that crashes: at once, or after its first line (its version and
# its registry, the real one's, said first).
{version}
echo "lava-test-case pmq-latency-min --result pass --measurement 1.000 --units us"
kill -SEGV $$
"""


@pytest.mark.parametrize("when", ["at-start", "mid-run"])
def test_test_runner_crashing_rtlat_fails_the_run(runner, tmp_path, leakcheck, when):
    stub = tmp_path / "rtlat"
    version = ('if [ "$1" = --version ]; then echo "rtlat 0.1.0"; exit 0; fi\n'
               f'if [ "$1" = --list-plain ]; then exec {RTLAT} --list-plain; fi') \
        if when == "mid-run" else ""
    stub.write_text(CRASHING.format(version=version))
    stub.chmod(0o755)
    rows, js, log, _ = run_test_runner(runner, tmp_path, dict(PMQ_PARAMS, RTLAT=str(stub)))
    res = {n: r for n, r, _, _ in rows}
    assert res["pmq-run"] == "fail", log
    assert list(res)[-1] == "pmq-run"
    if when == "mid-run":
        assert "rtlat exit status: 139" in log, log
    leakcheck()


@pytest.mark.parametrize("load", [f"sleep {UNIQUE}",
                                  f"sleep {UNIQUE} & while :; do :; done"],
                         ids=["sleep", "busy-loop"])
def test_test_runner_background_cmd_started_and_stopped(runner, tmp_path, leakcheck, load):
    flag = tmp_path / "started"
    kill_ours()
    assert not our_processes()
    try:
        rows, js, log, test_dir = run_test_runner(runner, tmp_path, dict(
            PMQ_PARAMS, MAX_LATENCY="1000000",
            BACKGROUND_CMD=f"touch {flag}; {load}"))
        left = our_processes()
    finally:
        kill_ours()
    assert flag.exists(), log
    assert "background load started" in log and "background load stopped" in log, log
    check_records(rows, js, pmq_cases("pass"))
    assert not left, f"background load left running: {left}"
    assert not (test_dir / "lava" / "output" / "background.pgid").exists()
    leakcheck()


def test_lava_shell_passes_shellcheck():
    sc = shutil.which("shellcheck")
    if not sc:
        pytest.skip("shellcheck is not installed")
    r = subprocess.run([sc, str(ROOT / "lava" / "rtlat.sh"),
                        str(ROOT / "lava" / "send-to-lava.sh")],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stdout + r.stderr


def test_test_runner_suite_thresholds_per_test(runner, tmp_path, leakcheck):
    """TEST=suite: each test's cases prefixed with its name (the suite's
    tests would share t<N>-...), thresholds per test, one suite-run case,
    and the results directory kept in output/."""
    rows, js, log, test_dir = run_test_runner(runner, tmp_path, dict(
        PMQ_PARAMS, TEST="suite", ARGS="--only pmq,timer",
        MAX_LATENCY="pmq=1,timer=1000000"))
    res = {n: r for n, r, _, _ in rows}
    assert [n for n, _, _, _ in rows][-1] == "suite-run"
    assert res["suite-run"] == "fail", log
    assert res["pmq-latency-max"] == "fail" and res["timer-latency-max"] == "pass"
    for t in ("pmq", "timer"):
        assert {f"{t}-latency-{f}" for f in FIGURES} <= set(res)
        threads = {m[1] for n in res if (m := re.fullmatch(rf"{t}-t(\d+)-max-latency", n))}
        assert threads, res
        for i in threads:
            assert {f"{t}-t{i}-{f}-latency" for f in FIGURES} <= set(res)
            assert res[f"{t}-t{i}-max-latency"] == res[f"{t}-latency-max"]
    assert len(threads) == len(online_cpus())  # the timer's samplers
    assert not any(re.fullmatch(r"t\d+-.*", n) for n in res)
    check_records(rows, js, [(n, r) for n, r, _, _ in rows])
    results = test_dir / "lava" / "output" / "rtlat-suite"
    assert {"pmq.json", "timer.json"} <= {p.name for p in results.iterdir()}
    leakcheck()


def test_rtlat_sh_as_non_root_sends_only_its_own_failure(tmp_path):
    """Without root, one failing case, never the previous run's cases."""
    if os.geteuid() != 0 or not shutil.which("setpriv"):
        pytest.skip("needs root and setpriv(1) to run the script as nobody")
    with tempfile.TemporaryDirectory(prefix="rtlat-lava-") as d:
        os.chmod(d, 0o755)
        lava = Path(d) / "lava"
        shutil.copytree(ROOT / "lava", lava, ignore=shutil.ignore_patterns("output"))
        (lava / "output").mkdir()
        (lava / "output" / "result.txt").write_text("pmq-run pass\n")
        subprocess.run(["chown", "-R", "nobody", str(lava)], check=True)
        r = subprocess.run(["setpriv", "--reuid=nobody", "--regid=nogroup",
                            "--clear-groups", "sh", "-c",
                            "./rtlat.sh -t pmq -r /nonexistent && "
                            "./send-to-lava.sh ./output/result.txt"],
                           cwd=lava, capture_output=True, text=True, timeout=30)
    assert r.returncode == 0, r.stderr
    assert "as root" in r.stderr
    assert re.findall(r"^<LAVA_SIGNAL_TESTCASE .*>$", r.stdout, re.M) == \
        ["<LAVA_SIGNAL_TESTCASE TEST_CASE_ID=pmq-run RESULT=fail>"], r.stdout
