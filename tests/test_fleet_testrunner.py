# SPDX-License-Identifier: GPL-2.0-or-later
"""Verdicts reach SQUAD and KCIDB on every path (issue 35), against the
real SQUAD tests/test_fleet_squad.py starts (one server a session: its
squad_starting, imported):

- rtlat suite -o DIR with a threshold that fails one test: the suite
  writes its verdicts into DIR/index.json ("fleet", as rtlat's JSON Schema
  says), `rtlat-report --squad DIR` gives SQUAD that test failed and the
  other passed, the same tests and results as the suite's own --lava
  lines; `rtlat-report --kcidb DIR` has FAIL for it (kcidb-io validates).
- Linaro's test-runner pushing rtlat's definition to SQUAD itself
  (--qa-reports-*, with squad-client): every verdict arrives as a test,
  under the names the other paths give, every figure as a metric with
  rtlat's value, and no unit: test-runner sends bare numbers (its
  limit, docs/fleet.md).
- The same test-runner run also given SQUAD_URL (rtlat's definition
  submits the run itself, rtlat-report --squad, to build
  testrunner-direct): the same tests and results as test-runner's push,
  every metric with test-runner's value and the unit us, and the case
  pmq-squad passed in result.csv; the definition's submission of the same
  run with a wrong token, again (a duplicate), or without SQUAD_GROUP:
  pmq-squad failed with one line, the other cases as they were. No
  latency value is asserted."""
import csv
import json
import os
import signal
import subprocess
import sys
import types

import pytest

from conftest import ROOT, RTLAT
from test_fleet_engines import PMQ_PARAMS, runner  # noqa: F401 (fixture)
from test_fleet_squad import (GROUP, PROJECT, TOKEN, build_content, expected,  # noqa: F401
                              replaying_rtlat, report, report_command, rtlat_report,
                              squad_starting, submit)


# rtlat's definition submits to this build itself (SQUAD_URL), in the
# run that test-runner pushes to testrunner-build
DIRECT_BUILD = "testrunner-direct"

SUITE_ARGS = ["suite", "--only", "pmq,svsem", "--duration", "1", "-q",
              "--max-latency", "pmq=1", "--lava"]


@pytest.fixture(scope="module")
def started(request, tmp_path_factory):
    """What this file's tests read, run at once where it can: rtlat suite,
    pmq and svsem, --max-latency pmq=1 (pmq fails, svsem has no threshold)
    while the session's SQUAD starts (or is already up), and test-runner
    pushing to it, started once SQUAD answers, while the suite may still
    run; both done before any test submits (two submissions at once to
    SQUAD's SQLite: one can fail). A namespace: suite (results directory,
    --lava lines), squad (the server, or why there is none), testrunner
    ((its exit status and output, its output directory), or why it
    cannot run)."""
    ns = types.SimpleNamespace(squad=None, testrunner=None)
    try:
        ns.squad = request.getfixturevalue("squad_starting")
    except pytest.skip.Exception as e:
        ns.squad = str(e)
    res = tmp_path_factory.mktemp("judged-suite") / "results"
    suite = subprocess.Popen([RTLAT] + SUITE_ARGS + ["-o", str(res)], stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True)
    try:
        if not isinstance(ns.squad, str):
            ns.squad.ready()
            ns.testrunner = start_testrunner(request, ns.squad, tmp_path_factory)
        else:
            ns.testrunner = ns.squad
        out, err = suite.communicate(timeout=60)
        if not isinstance(ns.testrunner, str):
            p, d = ns.testrunner
            said = p.communicate(timeout=60)[0]
            ns.testrunner = (p.returncode, said), d
    finally:
        if suite.poll() is None:
            suite.kill()
            suite.communicate()
    assert suite.returncode == 3, err
    ns.suite = res, [ln.split() for ln in out.splitlines() if ln.startswith("lava-test-case ")]
    return ns


def start_testrunner(request, squad, tmp_path_factory):
    """test-runner.py on lava/rtlat.yaml, TEST=pmq with a threshold that
    fails, pushing to squad: (its process, its output directory), not
    waited for; or why it cannot run here."""
    try:
        tr, repo = request.getfixturevalue("runner")
    except pytest.skip.Exception as e:
        return str(e)
    r = subprocess.run([sys.executable, "-c", "import squad_client.shortcuts"],
                       capture_output=True, text=True)
    if r.returncode:
        return "test-runner's push needs squad-client (tests/requirements.txt)"
    out = tmp_path_factory.mktemp("testrunner") / "out"
    # the definition's own submission (SQUAD_URL) beside test-runner's
    # push: the token in test-runner's environment, never a param
    params = dict(PMQ_PARAMS, MAX_LATENCY="1", SQUAD_URL=squad.url, SQUAD_GROUP=GROUP,
                  SQUAD_PROJECT=PROJECT, SQUAD_BUILD=DIRECT_BUILD, SQUAD_ENV="board-tr",
                  RTLAT_REPORT=str(report_command(tmp_path_factory)))
    cmd = [sys.executable, str(tr), "-o", str(out), "-e", "-d", "lava/rtlat.yaml",
           "--qa-reports-server", squad.url, "--qa-reports-token", TOKEN,
           "--qa-reports-group", GROUP, "--qa-reports-project", PROJECT,
           "--qa-reports-build-version", "testrunner-build",
           "--qa-reports-env", "board-tr", "-r"] + [f"{k}={v}" for k, v in params.items()]
    env = {k: v for k, v in os.environ.items() if k != "SQUAD_TOKEN"}
    p = subprocess.Popen(cmd, cwd=repo, env=dict(env, REPO_PATH=str(repo), SQUAD_TOKEN=TOKEN),
                         stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                         start_new_session=True)

    def stop():
        if p.poll() is None:  # a test failed before it ended: its session
            os.killpg(p.pid, signal.SIGKILL)
            p.communicate()
    request.addfinalizer(stop)
    return p, out


@pytest.fixture(scope="module")
def judged_suite(started):
    return started.suite


@pytest.fixture(scope="module")
def squad_server(started):
    if isinstance(started.squad, str):
        pytest.skip(started.squad)
    return started.squad


def lava_tests(lines):
    """{rtlat/CASE: result} of the cases without a measurement (what
    SQUAD's LAVA backend makes tests of), {rtlat/CASE} of the others."""
    tests = {f"rtlat/{w[1]}": w[3] for w in lines if "--measurement" not in w}
    metrics = {f"rtlat/{w[1]}" for w in lines if "--measurement" in w}
    return tests, metrics


def test_suite_index_holds_its_verdicts(judged_suite):
    res, _ = judged_suite
    jsonschema = pytest.importorskip("jsonschema")
    index = json.loads((res / "index.json").read_text())
    schema = json.loads((ROOT / "schema" / "rtlat.schema.json").read_text())
    jsonschema.Draft202012Validator(schema).validate(index)
    fleet = index["fleet"]
    assert fleet["verdict"] == "fail" and fleet["max_latency"] == "pmq=1"
    recs = {(r["test"], r["series"], r.get("thread")): r
            for r in fleet["series"] + fleet["threads"]}
    assert {t for t, _, _ in recs} == {"pmq", "svsem"}
    pmq = recs[("pmq", "latency", None)]
    assert pmq["result"] == "fail" and pmq["max_latency_us"] == 1
    assert "--max-latency 1 us" in pmq["failure"] and pmq["max_ns"] > 1000
    for (t, s, th), r in recs.items():
        assert r["result"] == ("fail" if t == "pmq" else "pass"), (t, s, th)
        assert r["max_latency_us"] == (1 if t == "pmq" else None)
    # the tests' own files: their figures, no threshold (each ran without)
    for t in ("pmq", "svsem"):
        own = json.loads((res / f"{t}.json").read_text())["fleet"]
        assert own["max_latency"] is None and own["verdict"] == "pass"
        assert [(r["series"], r.get("thread"), r["max_ns"]) for r in
                own["series"] + own["threads"]] == \
            [(s, th, recs[(t, s, th)]["max_ns"]) for (tt, s, th) in recs if tt == t]


def test_suite_directory_verdicts_reach_squad(squad_server, judged_suite):
    """The test the threshold failed is fail in SQUAD, the other pass:
    the same tests and results as the suite's --lava lines (SQUAD's LAVA
    backend path) and as rtlat-report's conversion."""
    res, lines = judged_suite
    r = submit(squad_server, res, "build-suite-judged")
    assert r.returncode == 0, r.stderr
    assert r.stderr == "", r.stderr  # no "verdicts as measured" note
    _, tests, metrics = build_content(squad_server, "build-suite-judged")
    lava, lava_metrics = lava_tests(lines)
    assert tests == lava
    assert set(metrics) == lava_metrics
    want_tests, want_metrics = expected(res)
    assert tests == want_tests and set(metrics) == set(want_metrics)
    assert tests["rtlat/pmq-latency"] == tests["rtlat/suite-run"] == "fail"
    assert tests["rtlat/svsem-latency"] == "pass"
    for name, status in tests.items():
        test = name.split("/")[1].split("-")[0]
        if test in ("pmq", "svsem"):
            assert status == ("fail" if test == "pmq" else "pass"), name
    assert all(unit == "us" for _, unit in metrics.values())


def test_suite_directory_kcidb_has_the_failure(judged_suite, tmp_path, capsys):
    kcidb_io = pytest.importorskip("kcidb_io")
    res, _ = judged_suite
    out = tmp_path / "kcidb.json"
    cli = rtlat_report().cli
    assert cli.main([str(res), "--kcidb", str(out)]) == 0, capsys.readouterr().err
    doc = json.loads(out.read_text())
    kcidb_io.schema.LATEST.validate(doc)
    status = {t["path"]: t["status"] for t in doc["tests"]}
    assert status["rtlat.pmq"] == status["rtlat.pmq.max"] == "FAIL"
    assert status["rtlat.svsem"] == status["rtlat.svsem.max"] == "PASS"
    assert {s for p, s in status.items() if p.startswith("rtlat.pmq")} == {"FAIL"}
    assert {s for p, s in status.items() if p.startswith("rtlat.svsem")} == {"PASS"}


# ---------------------------------------------------------------------------
# test-runner's own push (--qa-reports-*, squad-client).

@pytest.fixture(scope="module")
def pushed(started):
    """test-runner's run done, its push to SQUAD with it: (result.csv's
    rows, the run's JSON)."""
    if isinstance(started.testrunner, str):
        pytest.skip(started.testrunner)
    (rc, said), out = started.testrunner
    # (it says "pushed" whatever SQUAD answered: the tests ask SQUAD)
    assert rc == 0 and "Results pushed to QA Reports" in said, said
    (test_dir,) = [d for d in out.iterdir() if d.is_dir() and d.name.startswith("rtlat_")]
    with open(test_dir / "result.csv") as f:
        rows = [(w["test_case_id"], w["result"], w["measurement"], w["units"])
                for w in csv.DictReader(f)]
    js = test_dir / "lava" / "output" / "rtlat-pmq.json"
    assert js.is_file(), sorted(p.name for p in (test_dir / "lava" / "output").iterdir())
    return rows, js


@pytest.fixture(scope="module")
def testrunner_log(started, pushed):
    """What test-runner said (the definition's output with it)."""
    return started.testrunner[0][1]


def test_testrunner_push_carries_the_verdicts(squad_server, pushed):
    """What test-runner's push gives SQUAD: a test per verdict case (the
    series', the thread's, the run's), named and judged as
    rtlat-report --squad names and judges them; a metric per figure with
    rtlat's value (result.csv's, rtlat's %.3f us), its unit lost."""
    rows, js = pushed
    _, tests, metrics = build_content(squad_server, "testrunner-build")
    assert tests == {f"rtlat/{n}": res for n, res, v, _ in rows if v == ""}
    assert tests["rtlat/pmq-latency"] == tests["rtlat/pmq-t0-latency"] == \
        tests["rtlat/pmq-run"] == "fail"
    # the definition's own submission (SQUAD_URL) is a case of the run:
    # test-runner pushes it too; it is not one of rtlat's figures
    assert tests.pop("rtlat/pmq-squad") == "pass"
    direct_tests, direct_metrics = expected(js)
    assert tests == direct_tests
    assert set(metrics) == set(direct_metrics) == \
        {f"rtlat/{n}" for n, _, v, _ in rows if v != ""}
    figures = {f"rtlat/{n}": float(v) for n, _, v, u in rows if v != ""}
    assert all(u == "us" for _, _, v, u in rows if v != "")
    for name, (value, unit) in metrics.items():
        assert value == figures[name] == pytest.approx(direct_metrics[name]["value"],
                                                       abs=0.0015), name
        # test-runner sends a bare number: SQUAD has no unit for it
        assert unit is None, (name, unit)


# ---------------------------------------------------------------------------
# rtlat's definition submitting the same run itself (SQUAD_URL).

def test_definition_submission_has_units_and_verdicts(squad_server, pushed, testrunner_log):
    """The build the definition submitted (testrunner-direct) holds the
    tests of test-runner's push, with the same results (but pmq-squad,
    the submission's own case), and the same metrics with test-runner's
    values (result.csv's, %.3f us), each with the unit us, which
    test-runner's push cannot give."""
    rows, js = pushed
    _, pushed_tests, pushed_metrics = build_content(squad_server, "testrunner-build")
    _, tests, metrics = build_content(squad_server, DIRECT_BUILD)
    assert pushed_tests.pop("rtlat/pmq-squad") == "pass"
    assert tests == pushed_tests
    assert tests["rtlat/pmq-latency"] == tests["rtlat/pmq-run"] == "fail"
    assert set(metrics) == set(pushed_metrics)
    figures = {f"rtlat/{n}": float(v) for n, _, v, _ in rows if v != ""}
    for name, (value, unit) in metrics.items():
        assert unit == "us", (name, unit)
        assert value == pytest.approx(pushed_metrics[name][0], abs=0.0015) and \
            value == pytest.approx(figures[name], abs=0.0015), name
    assert "squad: " in testrunner_log and f"build {DIRECT_BUILD}" in testrunner_log, \
        testrunner_log
    assert TOKEN not in testrunner_log


def test_definition_submission_is_a_case_of_result_csv(pushed):
    """pmq-squad passed, after the run's case, without a measurement; the
    run's cases as a run without SQUAD_URL has them."""
    rows, _ = pushed
    assert rows[-2:] == [("pmq-run", "fail", "", ""), ("pmq-squad", "pass", "", "")], rows
    assert [n for n, _, _, _ in rows].count("pmq-squad") == 1


@pytest.fixture(scope="module")
def replay(pushed, tmp_path_factory):
    """lava/rtlat.sh run again on test-runner's run without running rtlat
    (a stub gives the same JSON and lines): (run(params, token) ->
    (completed process, result.txt's lines), the first run's result.txt
    lines)."""
    _, js = pushed
    d = tmp_path_factory.mktemp("replay")
    exe = replaying_rtlat(d, js)
    first = (js.parent / "result.txt").read_text().splitlines()

    def run(name, params, token):
        out = d / name
        env = {k: v for k, v in os.environ.items() if k != "SQUAD_TOKEN"}
        env["SQUAD_TOKEN"] = token
        r = subprocess.run(["sh", str(ROOT / "lava" / "rtlat.sh"), "-t", "pmq", "-D", "1s",
                            "-m", "1", "-r", str(exe), "-s", "true", "-o", str(out)] + params,
                           cwd=d, env=env, capture_output=True, text=True, timeout=60)
        return r, (out / "result.txt").read_text().splitlines()
    return run, first


def squad_params(squad, build, *extra):
    return ["-U", squad.url, "-G", GROUP, "-P", PROJECT, "-B", build,
            "-R", str(report_command()), *extra]


@pytest.mark.parametrize("how", ["wrong-token", "duplicate", "no-group"])
def test_failed_submission_fails_only_its_case(squad_server, replay, how):
    """The definition's submission refused (a wrong token; the same run
    again: SQUAD refuses its job_id as a duplicate) or not made (no
    SQUAD_GROUP): pmq-squad failed with one line saying why, every other
    case as the run had it, the script's exit status as without SQUAD."""
    run, first = replay
    if how == "no-group":
        params = [p for p in squad_params(squad_server, "never") if p not in ("-G", GROUP)]
    else:
        params = squad_params(squad_server, DIRECT_BUILD if how == "duplicate" else "never")
    token = "not-the-token" if how == "wrong-token" else TOKEN
    r, lines = run(how, params, token)
    assert r.returncode == 0, r.stdout + r.stderr
    assert lines[:-1] == first[:-1] and lines[-1] == "pmq-squad fail", lines
    said = [ln for ln in r.stderr.splitlines() if "submitted" in ln]
    assert len(said) == 1, r.stderr
    line = said[0]
    if how == "wrong-token":
        assert "HTTP 40" in line and "refused" in line, line
    elif how == "duplicate":
        assert "HTTP 400" in line and "job_id" in line, line
    else:
        assert line.startswith("rtlat.sh: pmq-squad: not submitted: SQUAD_GROUP (-G) is empty"), line
        assert "--squad=" not in r.stdout  # rtlat-report never ran
    assert "not-the-token" not in r.stdout + r.stderr and TOKEN not in r.stdout + r.stderr
    (b,) = squad_server.api(f"builds/?version={DIRECT_BUILD}&project__slug={PROJECT}")["results"]
    assert len(squad_server.all(f"builds/{b['id']}/testruns/")) == 1
    assert squad_server.api(f"builds/?version=never&project__slug={PROJECT}")["count"] == 0
