# SPDX-License-Identifier: GPL-2.0-or-later
"""Fleets and CI: thresholds (exit 3), baseline and iterations, JUnit XML,
OpenMetrics, LAVA lines and the LAVA test definition, each produced by a
real short run and read by a real parser."""
import json
import os
import re
import shutil
import signal
import stat
import subprocess
import time

import junitparser
import pytest
import yaml
from prometheus_client.openmetrics import parser as om_parser
from prometheus_client.parser import text_string_to_metric_families

from conftest import (RTLAT, ROOT, promtool_check, registry_names, run, stop,
                      watching, without_statuses)

TESTS = registry_names(suite=True)
FLEET_OPTS = ["--max-latency", "--max-p99", "--junit", "--openmetrics",
              "--lava", "--iterations", "--baseline", "--tolerance"]
LAVA = re.compile(r"^lava-test-case (?P<name>\S+) --result (?P<result>pass|fail|skip)"
                  r"(?: --measurement (?P<value>\d+\.\d{3}) --units us)?$")
PMQ = ["pmq", "-l", "300", "-q", "-i", "500"]


def lava_lines(out):
    return [LAVA.match(ln) for ln in out.splitlines() if ln.startswith("lava-test-case")]


@pytest.mark.parametrize("name", TESTS + ["suite"])
def test_every_subcommand_has_the_fleet_options(name):
    r = run([name, "--help"])
    assert r.returncode == 0
    wanted = FLEET_OPTS if name != "suite" else FLEET_OPTS[:5]
    for opt in wanted:
        assert re.search(rf"^  {opt} ", r.stdout, re.M), (name, opt)


@pytest.mark.parametrize("args,msg", [
    (["--max-latency", "0"], "option --max-latency: '0' is not accepted; accepted: an integer from 1 to 1000000000 (microseconds), or a comma-separated list of [TEST[/SERIES]=]US with TEST one of: pmq"),
    (["--max-p99", "x"], "option --max-p99: 'x' is not accepted; accepted: an integer from 1"),
    (["--max-latency", "timer=5"], "option --max-latency: 'timer=5' is not accepted ('timer=5' names no test of this run); accepted:"),
    (["--max-latency", "pmq/nope=5"], "('pmq/nope=5' names no series of that test)"),
    (["--max-p99", "pmq=5,pmq=6"], "('pmq=6' is given twice)"),
    (["--max-latency", "pmq=0"], "('pmq=0' is not a number of microseconds)"),
    (["--tolerance", "-1"], "option --tolerance: '-1' is not accepted; accepted: an integer from 0 to 10000"),
    (["--iterations", "0"], "option --iterations: '0' is not accepted; accepted: an integer from 1 to 1000"),
    (["--junit", "/nonexistent/j.xml"], "option --junit: cannot write '/nonexistent/j.xml'"),
    (["--openmetrics", "/nonexistent/o.prom"], "option --openmetrics: cannot write"),
    (["--baseline", "/nonexistent.json"], "option --baseline: cannot use '/nonexistent.json': No such file"),
])
def test_bad_fleet_options_are_bad_input(args, msg, leakcheck):
    r = run(PMQ + args)
    assert r.returncode == 2
    assert r.stdout == ""
    assert msg in r.stderr and len(r.stderr.splitlines()) == 1
    leakcheck()


def test_baseline_must_hold_rtlat_figures(tmp_path):
    bad = tmp_path / "b.json"
    bad.write_text('{"not": "rtlat"}')
    r = run(PMQ + ["--baseline", str(bad)])
    assert r.returncode == 2
    assert "no rtlat figures in it; accepted: a --json file of an earlier run" in r.stderr


def props_of(case):
    """A testcase's figures: "key value" lines of its <system-out>, where
    the Jenkins/Ant schema lets a case carry text."""
    out = case._elem.find("system-out").text
    return dict(ln.split(" ", 1) for ln in out.splitlines())


def suite_props(suite):
    """What the run is compared by, at suite level as the schema wants."""
    return {p.get("name"): p.get("value") for p in suite._elem.iter("property")}


def check_junit(path, classname, failed_type=None):
    xml = junitparser.JUnitXml.fromfile(str(path))
    cases = [c for suite in xml for c in suite]
    assert cases, "no testcase"
    for suite in xml:
        props = suite_props(suite)
        assert {"rtlat_version", "kernel", "preemption"} <= set(props)
    for c in cases:
        assert float(c._elem.get("time")) > 0, c.name
        assert c.classname == classname or c.classname.startswith("rtlat.")
        props = props_of(c)
        assert {"samples", "min_us", "avg_us", "p99_us", "max_us"} <= set(props)
        assert float(props["min_us"]) <= float(props["max_us"])
        if failed_type:
            assert len(c.result) == 1 and isinstance(c.result[0], junitparser.Failure)
            assert c.result[0].type == failed_type
        else:
            assert c.is_passed
    return cases


def check_openmetrics(path, test, samples=None):
    text = path.read_text()
    assert text.endswith("# EOF\n")
    fams = {f.name: f for f in text_string_to_metric_families(text)}
    list(om_parser.text_string_to_metric_families(text))  # OpenMetrics rules too
    hist = fams["rtlat_latency_seconds"]
    assert hist.type == "histogram"
    by = {}
    for s in hist.samples:
        assert s.labels["test"] == test and "host" not in s.labels
        if s.labels["thread"] == "all":
            assert s.labels["cpu"] == "all"
            by.setdefault(s.name, []).append(s)
        else:
            assert s.labels["cpu"] == "any" or s.labels["cpu"].isdigit()
    buckets = by["rtlat_latency_seconds_bucket"]
    les = [float(s.labels["le"]) for s in buckets]
    assert les == sorted(les) and les[-1] == float("inf")
    counts = [s.value for s in buckets]
    assert counts == sorted(counts)
    count = by["rtlat_latency_seconds_count"][0].value
    assert counts[-1] == count
    if samples:
        assert count == samples
    q = {s.labels["quantile"]: s.value
         for s in fams["rtlat_latency_quantile_seconds"].samples
         if s.labels["thread"] == "all" and "quantile" in s.labels}
    assert list(q) == ["0", "0.5", "0.99", "0.9999", "1"]
    assert 0 < q["0"] <= q["0.5"] <= q["0.99"] <= q["1"] < 10  # s, not ns
    # quantile labels on a summary, its _count the histogram's: what
    # Prometheus' own lint accepts (promtool, below).
    summ = fams["rtlat_latency_quantile_seconds"]
    assert summ.type == "summary"
    assert [s.value for s in summ.samples if s.name.endswith("_count")
            and s.labels["thread"] == "all"][0] == count
    promtool_check(path)
    info = fams["rtlat_info"].samples[0].labels
    assert info["test"] == test and info["kernel"] == os.uname().release
    assert info["preemption"] and info["version"]
    stamp = fams["rtlat_run_timestamp_seconds"].samples[0].value
    assert abs(stamp - time.time()) < 600
    return fams


def test_threshold_exceeded_exits_3_with_every_output(tmp_path, leakcheck):
    j, om, js = tmp_path / "j.xml", tmp_path / "m.prom", tmp_path / "r.json"
    r = run(PMQ + ["--max-latency", "1", "--junit", str(j), "--openmetrics",
                   str(om), "--json", str(js), "--lava"])
    assert r.returncode == 3, r.stderr
    assert re.search(r"^rtlat pmq: pmq/latency: FAIL: max \d+\.\d{3} us > --max-latency 1 us$",
                     r.stderr, re.M)
    assert "rtlat pmq: verdict: FAIL (1 of 1 series failed)" in r.stderr
    cases = check_junit(j, "rtlat.pmq", "max-latency")
    assert cases[0].name == "latency"
    assert "--max-latency 1 us" in cases[0].result[0].message
    fams = check_openmetrics(om, "pmq", samples=300)
    assert fams["rtlat_threshold_exceeded"].samples[0].value == 1
    d = json.loads(js.read_text())
    assert d["return_code"] == 3
    assert d["fleet"]["verdict"] == "fail"
    s = d["fleet"]["series"][0]
    assert (s["test"], s["series"], s["samples"], s["result"]) == ("pmq", "latency", 300, "fail")
    lines = lava_lines(r.stdout)
    assert all(lines) and len(lines) == 13
    res = {m["name"]: m["result"] for m in lines}
    # a thread's figures TEST-t<N>-<figure>-latency (unique across the
    # tests of one LAVA job, issue 35), a verdict case without measurement
    # for the series and the thread; the run fails with its threshold, as
    # the exit status 3 does
    assert res == {"pmq-latency-min": "pass", "pmq-latency-avg": "pass",
                   "pmq-latency-p99": "pass", "pmq-latency-p9999": "pass",
                   "pmq-latency-max": "fail", "pmq-latency": "fail",
                   "pmq-t0-min-latency": "pass", "pmq-t0-avg-latency": "pass",
                   "pmq-t0-p99-latency": "pass", "pmq-t0-p9999-latency": "pass",
                   "pmq-t0-max-latency": "fail", "pmq-t0-latency": "fail",
                   "pmq-run": "fail"}
    assert [m["name"] for m in lines if m["value"] is None] == \
        ["pmq-latency", "pmq-t0-latency", "pmq-run"]
    assert not list(tmp_path.glob("*.tmp*"))
    leakcheck()


def test_thresholds_met_exit_0(tmp_path, leakcheck):
    j, om = tmp_path / "j.xml", tmp_path / "m.prom"
    r = run(["timer", "-T", "1", "-q", "--max-latency", "1000000", "--max-p99",
             "1000000", "--junit", str(j), "--openmetrics", str(om)])
    assert r.returncode == 0, r.stderr
    assert "rtlat timer: verdict: PASS (0 of 1 series failed)" in r.stderr
    check_junit(j, "rtlat.timer")
    fams = check_openmetrics(om, "timer")
    assert fams["rtlat_threshold_exceeded"].samples[0].value == 0
    leakcheck()


def test_max_p99_fails_the_p99_figure(leakcheck):
    r = run(["svsem", "-l", "200", "-q", "--max-p99", "1", "--lava"])
    assert r.returncode == 3
    assert "FAIL: p99 " in r.stderr and "> --max-p99 1 us" in r.stderr
    res = {m["name"]: m["result"] for m in lava_lines(r.stdout)}
    assert res["svsem-latency-p99"] == "fail" and res["svsem-latency-max"] == "pass"
    leakcheck()


def baseline_file(tmp_path, max_ns):
    base = tmp_path / "base.json"
    r = run(PMQ + ["--json", str(base)])
    assert r.returncode == 0
    d = json.loads(base.read_text())
    d["fleet"]["series"][0]["max_ns"] = max_ns
    base.write_text(json.dumps(d, indent=2))
    return base


def test_baseline_regression_exits_3(tmp_path, leakcheck):
    base = baseline_file(tmp_path, 1)
    j, js = tmp_path / "j.xml", tmp_path / "r.json"
    r = run(PMQ + ["--baseline", str(base), "--tolerance", "5", "--junit", str(j),
                   "--json", str(js)])
    assert r.returncode == 3, r.stderr
    assert re.search(r"^rtlat pmq: pmq/latency: worst \d+\.\d{3} us, baseline 0\.001 us$",
                     r.stderr, re.M)
    assert re.search(r"FAIL: worst \d+\.\d{3} us > baseline 0\.001 us \+ 5%$", r.stderr, re.M)
    case = check_junit(j, "rtlat.pmq", "baseline")[0]
    assert props_of(case)["baseline_max_us"] == "0.001"
    s = json.loads(js.read_text())["fleet"]["series"][0]
    assert s["baseline_max_ns"] == 1 and s["result"] == "fail"
    assert s["worst_ns"] == s["max_ns"]
    leakcheck()


def test_iterations_against_a_baseline_pass(tmp_path, leakcheck):
    base = baseline_file(tmp_path, 10**9)
    js = tmp_path / "r.json"
    r = run(["pmq", "-l", "100", "-q", "-i", "500", "--iterations", "3",
             "--baseline", str(base), "--json", str(js)])
    assert r.returncode == 0, r.stderr
    assert [ln for ln in r.stderr.splitlines() if "iteration" in ln] == [
        f"rtlat pmq: iteration {i} of 3" for i in (1, 2, 3)]
    assert len(re.findall(r"^#1 -> #0", r.stdout, re.M)) == 3
    f = json.loads(js.read_text())["fleet"]
    assert f["iterations"] == 3 and f["verdict"] == "pass"
    assert f["series"][0]["samples"] == 300
    assert f["series"][0]["baseline_max_ns"] == 10**9
    leakcheck()


def test_suite_thresholds_and_outputs(tmp_path, leakcheck):
    j, om = tmp_path / "j.xml", tmp_path / "m.prom"
    r = run(["suite", "--only", "svsem", "--duration", "1", "-o", str(tmp_path / "res"),
             "--max-latency", "1", "--junit", str(j), "--openmetrics", str(om), "--lava"],
            timeout=60)
    assert r.returncode == 3, r.stderr
    assert "rtlat suite: svsem/latency: FAIL: max" in r.stderr
    assert check_junit(j, "rtlat.svsem", "max-latency")[0].classname == "rtlat.svsem"
    check_openmetrics(om, "svsem")
    res = {m["name"]: m["result"] for m in lava_lines(r.stdout)}
    assert res["svsem-latency-max"] == "fail" and res["suite-run"] == "fail"
    assert res["svsem-t0-max-latency"] == "fail"
    leakcheck()


STUB = """#!/bin/sh
echo "$*" >> "$LAVA_RECORD"
"""


def test_lava_definition_runs_with_a_stub(tmp_path, leakcheck):
    d = yaml.safe_load((ROOT / "lava" / "rtlat.yaml").read_text())
    assert {"metadata", "params", "run"} <= set(d)
    assert d["metadata"]["format"] == "Lava-Test Test Definition 1.0"
    stubdir = tmp_path / "bin"
    stubdir.mkdir()
    (stubdir / "lava-test-case").write_text(STUB)
    (stubdir / "lava-test-case").chmod(0o755)
    params = dict(d["params"], RTLAT=RTLAT, TEST="pmq", ARGS="-l 200 -i 500",
                  MAX_LATENCY="1", DURATION="10s", SKIP_INSTALL="true")
    record = tmp_path / "record"
    env = dict(os.environ, **{k: str(v) for k, v in params.items()},
               PATH=f"{stubdir}:{os.environ['PATH']}", LAVA_RECORD=str(record))
    script = "\n".join(d["run"]["steps"]) + "\n"
    # LAVA runs the steps at the top of the definition's repository
    shutil.copytree(ROOT / "lava", tmp_path / "lava")
    r = subprocess.run(["bash", "-c", script], cwd=tmp_path, env=env,
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    out = tmp_path / "lava" / "output"
    assert json.loads((out / "rtlat-pmq.json").read_text())["return_code"] == 3
    calls = record.read_text().splitlines()
    got = {}
    for c in calls:
        m = re.match(r"^(\S+) --result (pass|fail)(?: --measurement (\d+\.\d+) --units us)?$", c)
        assert m, c
        got[m[1]] = (m[2], m[3])
    assert got["pmq-latency-max"][0] == "fail"
    assert got["pmq-latency-min"][0] == "pass"
    assert float(got["pmq-latency-min"][1]) <= float(got["pmq-latency-max"][1])
    assert got["pmq-t0-max-latency"][0] == "fail"
    assert got["pmq-t0-latency"] == ("fail", None)
    assert got["pmq-run"] == ("fail", None)
    assert len(calls) == 13 == len((out / "result.txt").read_text().splitlines())
    leakcheck()


def test_stop_signal_ends_the_iterations(tmp_path, leakcheck):
    js = tmp_path / "r.json"
    with watching(["pmq", "-q", "-i", "1000", "-D", "20", "--iterations", "3",
                   "--json", str(js), "--lava"]) as p:
        p.measuring()
        rc, out, err = stop(p, signal.SIGINT)
    assert rc == 0, err
    assert without_statuses(err).splitlines() == ["rtlat pmq: iteration 1 of 3"]
    assert len(re.findall(r"^#1 -> #0", out, re.M)) == 1
    assert {m["name"] for m in lava_lines(out)} >= {"pmq-latency-max", "pmq-run"}
    # the stopped iteration's JSON stays
    d = json.loads(js.read_text())
    assert d["return_code"] == 0 and d["fleet"]["series"][0]["samples"] > 0
    leakcheck()


def test_an_error_wins_over_a_threshold_and_is_in_the_junit(tmp_path, leakcheck):
    full = tmp_path / "full"
    os.mknod(full, 0o666 | stat.S_IFCHR, os.makedev(1, 7))
    j = tmp_path / "j.xml"
    r = run(PMQ + ["--max-latency", "1", "--json", str(full), "--junit", str(j), "--lava"])
    assert r.returncode == 1
    cases = [c for s in junitparser.JUnitXml.fromfile(str(j)) for c in s]
    assert [(c.classname, c.name) for c in cases] == [("rtlat.pmq", "latency"), ("rtlat", "run")]
    assert isinstance(cases[0].result[0], junitparser.Failure)
    assert isinstance(cases[1].result[0], junitparser.Error)
    res = {m["name"]: m["result"] for m in lava_lines(r.stdout)}
    assert res["pmq-run"] == "fail" and res["pmq-latency-max"] == "fail"
    leakcheck()


@pytest.mark.parametrize("argv", [
    ["bintime", "-D", "1"],
    ["response", "-l", "3", "--block", "2"],
    ["sync", "--test", "cost", "-l", "1000"],
], ids=["bintime", "response", "sync"])
def test_determinism_tests_are_judged_too(argv):
    """The later tests report their series through the same hook, so a
    threshold judges them without code of their own."""
    r = run(argv + ["--max-latency", "1"])
    assert r.returncode == 3, r.stderr
    assert re.search(r"FAIL: max [\d.]+ us > --max-latency 1 us", r.stderr), r.stderr


def test_thresholds_per_test_and_series_in_a_suite(tmp_path, leakcheck):
    """Unlike series get their own numbers: one failing test does not
    fail the other; the most specific entry applies to a series."""
    res = tmp_path / "res"
    r = run(["suite", "--only", "svsem,sync", "--duration", "1", "-o", str(res),
             "--max-latency", "svsem=1,sync=1000000,sync/cost=1", "--lava"],
            timeout=90)
    assert r.returncode == 3, r.stderr
    fails = re.findall(r"^rtlat suite: (\S+): FAIL", r.stderr, re.M)
    assert "svsem/latency" in fails and "sync/cost" in fails
    assert not [f for f in fails if f.startswith("sync/") and f != "sync/cost"]
    lines = {m["name"]: m["result"] for m in lava_lines(r.stdout)}
    assert lines["svsem-latency-max"] == "fail" and lines["sync-cost-max"] == "fail"
    # Under load a 1-second run may measure no blocking round: the series
    # is then there all the same, skipped (tests/test_outputs_clients.py),
    # and judged by nothing; with samples it passes its 1 s threshold.
    (blocking,) = [s for s in json.loads((res / "sync.json").read_text())["fleet"]["series"]
                   if s["series"] == "blocking"]
    assert lines["sync-blocking-max"] == ("pass" if blocking["samples"] else "skip")
    assert blocking["result"] == lines["sync-blocking-max"]
    leakcheck()


def test_every_cpu_is_a_case(tmp_path, leakcheck):
    """timer -c all: a case per CPU (timer-t<N>-...), with
    its CPU in the JUnit figures and the OpenMetrics cpu label."""
    j, om = tmp_path / "j.xml", tmp_path / "m.prom"
    ncpu = len(os.sched_getaffinity(0))
    r = run(["timer", "-c", "all", "-T", "1", "-q", "--max-latency", "1000000",
             "--junit", str(j), "--openmetrics", str(om), "--lava"])
    assert r.returncode == 0, r.stderr
    names = {m["name"] for m in lava_lines(r.stdout)}
    for n in range(ncpu):
        assert {f"timer-t{n}-min-latency", f"timer-t{n}-max-latency"} <= names
    cases = check_junit(j, "rtlat.timer")
    if ncpu > 1:
        per = {c.name: props_of(c) for c in cases if "." in c.name}
        assert len(per) == ncpu
        assert sorted(int(p["cpu"]) for p in per.values()) == list(range(ncpu))
    fams = check_openmetrics(om, "timer")
    cpus = {s.labels["cpu"] for s in fams["rtlat_latency_quantile_seconds"].samples}
    assert cpus == {"all"} | {str(n) for n in range(ncpu)}
    leakcheck()


def test_bad_threshold_list_is_one_line_naming_the_tests():
    r = run(["suite", "--max-latency", "nosuch=5"])
    assert r.returncode == 2 and r.stdout == ""
    assert len(r.stderr.splitlines()) == 1
    assert "'nosuch=5' names no test of this run" in r.stderr
    assert "TEST one of: pmq, sigwait" in r.stderr


def test_json_records_the_thresholds_that_applied(tmp_path):
    js = tmp_path / "r.json"
    r = run(["pmq", "-t", "2", "-l", "200", "-q", "-i", "500", "--max-latency",
             "pmq=1000000", "--max-p99", "500000", "--json", str(js)])
    assert r.returncode == 0, r.stderr
    f = json.loads(js.read_text())["fleet"]
    assert (f["max_latency"], f["max_p99"]) == ("pmq=1000000", "500000")
    assert (f["max_latency_us"], f["max_p99_us"]) == (None, 500000)
    assert [s["series"] for s in f["series"]] == ["latency"]
    assert [(t["thread"], t["samples"]) for t in f["threads"]] == [(0, 200), (1, 200)]
    for s in f["series"] + f["threads"]:
        assert (s["max_latency_us"], s["max_p99_us"]) == (1000000, 500000)
        assert s["result"] == "pass" and s["seconds"] > 0
