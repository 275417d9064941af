# SPDX-License-Identifier: GPL-2.0-or-later
"""A run that did not finish never reaches KernelCI or SQUAD as a pass
(issue 44, item 3). Real runs killed with SIGKILL once their first
checkpoint file exists (waited for, never a fixed sleep): a pmq run of
-D 60 and an rtlat suite killed in the middle of a test. The checkpoint's
own JSON says the run is in progress (verdict "incomplete", return_code
not 0, "complete": false), its JUnit has an error case saying the run did
not finish (the final write of a run that ends replaces it); --kcidb,
checked by kcidb-io's own validator, gives ERROR with the reason (MISS for
a test the suite never started); --squad, into a real SQUAD, fails the
run case and gives the tests never started as skip. No latency value is
asserted."""
import contextlib
import json
import os
import re
import signal
import time

import junitparser
import pytest

from conftest import running, settled_leaks, snapshot, wait_for
from test_fleet_squad import build_content, squad_starting, submit  # noqa: F401
from test_schema import errors as schema_errors

kcidb_io = pytest.importorskip("kcidb_io")
# What each export says of a run that did not finish (the reason's words).
UNFINISHED = "did not finish"


def doc_of(path):
    """path's JSON as it is now, or None (not there yet)."""
    try:
        return json.loads(path.read_text())
    except (OSError, ValueError):
        return None


def gone(pgid):
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return True
    return False


@contextlib.contextmanager
def session(args):
    """running(ARGS) in a process group of its own, and at the end of the
    block every process of the group waited for: a suite's test, which
    the suite's death ends (SIGTERM), included."""
    pgid = None
    try:
        with running(args, start_new_session=True) as p:
            pgid = p.pid
            yield p
    finally:
        deadline = time.time() + 15
        while pgid and not gone(pgid) and time.time() < deadline:
            time.sleep(0.02)
        if pgid:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(pgid, signal.SIGKILL)


@pytest.fixture(scope="module")
def killed_pmq(tmp_path_factory):
    """pmq -D 60 with every output and --checkpoint 1s, SIGKILLed once its
    first checkpoint file is there: (its files, what it left behind)."""
    d = tmp_path_factory.mktemp("killed-pmq")
    files = {"json": d / "pmq.json", "junit": d / "pmq.xml",
             "openmetrics": d / "pmq.prom"}
    before = snapshot()
    with session(["pmq", "-D", "60", "-q", "--checkpoint", "1s"] +
                 [f"--{k}={v}" for k, v in files.items()]) as p:
        wait_for(lambda: (doc_of(files["json"]) or {}).get("complete") is False
                 and files["junit"].exists(), "the first checkpoint", proc=p)
        p.kill()
        p.wait()
        assert p.returncode == -signal.SIGKILL
    return files, settled_leaks(before)


@pytest.fixture(scope="module")
def killed_suite(tmp_path_factory):
    """rtlat suite --only pmq,sigwait --checkpoint 1s, SIGKILLed once
    pmq (its first test) has written its first checkpoint: pmq was
    running, sigwait never started. (results directory, leftovers)"""
    d = tmp_path_factory.mktemp("killed-suite") / "res"
    before = snapshot()
    with session(["suite", "--only", "pmq,sigwait", "--duration", "60", "-q",
                  "--checkpoint", "1s", "-o", str(d)]) as p:
        wait_for(lambda: (doc_of(d / "pmq.json") or {}).get("complete") is False,
                 "pmq's first checkpoint", proc=p)
        p.kill()
    return d, settled_leaks(before)


def test_a_checkpoint_says_the_run_is_in_progress(killed_pmq):
    files, leaks = killed_pmq
    d = doc_of(files["json"])
    assert d["complete"] is False and d["checkpoint"]["planned_s"] == 60
    assert schema_errors(d) == []
    # no pass before the end: rt-tests' return_code is not 0, rtlat's
    # verdict says the run is in progress
    assert d["return_code"] not in (0, None)
    assert d["fleet"]["verdict"] == "incomplete"
    # JUnit: an error case says the run did not finish
    xml = junitparser.JUnitXml.fromfile(str(files["junit"]))
    errors = [(c, r) for s in xml for c in s for r in c.result
              if isinstance(r, junitparser.Error)]
    assert len(errors) == 1 and UNFINISHED in errors[0][1].message, \
        files["junit"].read_text()
    assert re.search(r'rtlat_run_complete\{run="[^"]+",test="pmq"\} 0', files["openmetrics"].read_text())
    assert not leaks, f"left behind: {leaks}"


def test_the_final_write_of_a_run_that_ends_is_unchanged(tmp_path):
    """A run that checkpointed and then ended: its files say pass, no
    error case is left from the checkpoints. That it checkpointed is
    read from its final OpenMetrics file (rtlat_run_complete is there
    only in a run that wrote one), not raced for while it runs."""
    js, xml, om = tmp_path / "pmq.json", tmp_path / "pmq.xml", tmp_path / "pmq.prom"
    with session(["pmq", "-D", "3", "-q", "--checkpoint", "1s", "--json", str(js),
                  "--junit", str(xml), "--openmetrics", str(om)]) as p:
        _, err = p.communicate(timeout=30)
        assert p.returncode == 0, err
    assert re.search(r'rtlat_run_complete\{run="[^"]+",test="pmq"\} 1', om.read_text())
    d = doc_of(js)
    assert d["complete"] is True and d["return_code"] == 0
    assert d["fleet"]["verdict"] == "pass"
    cases = [c for s in junitparser.JUnitXml.fromfile(str(xml)) for c in s]
    assert cases and all(not c.result for c in cases), xml.read_text()


def kcidb(capsys, tmp_path, *inputs):
    from rtlat_report.cli import main as cli
    out = tmp_path / "kcidb.json"
    capsys.readouterr()
    rc = cli.main([str(i) for i in inputs] + ["--kcidb", str(out)])
    assert rc == 0, capsys.readouterr().err
    doc = json.loads(out.read_text())
    kcidb_io.schema.LATEST.validate(doc)
    return doc


def statuses(doc):
    return {t["path"]: t["status"] for t in doc["tests"]}


def why(test):
    """The reason a KCIDB test gives (its misc and its log excerpt)."""
    return json.dumps(test.get("misc", {})) + test.get("log_excerpt", "")


def test_kcidb_of_a_killed_run_is_error_with_the_reason(killed_pmq, capsys, tmp_path):
    files, _ = killed_pmq
    doc = kcidb(capsys, tmp_path, files["json"])
    st = statuses(doc)
    print("KCIDB of the killed pmq run:", st)
    assert st["rtlat.pmq"] == "ERROR"
    assert "PASS" not in st.values()
    (head,) = [t for t in doc["tests"] if t["path"] == "rtlat.pmq"]
    assert UNFINISHED in why(head) and "covers" in why(head)


def test_kcidb_of_a_killed_suite(killed_suite, capsys, tmp_path):
    d, leaks = killed_suite
    doc = kcidb(capsys, tmp_path, d)
    st = statuses(doc)
    print("KCIDB of the killed suite:", st)
    tests = {t["path"]: t for t in doc["tests"]}
    assert st["rtlat.pmq"] == "ERROR" and UNFINISHED in why(tests["rtlat.pmq"])
    assert "PASS" not in st.values()
    # the test never started is there, MISS, and says why
    assert st["rtlat.sigwait"] == "MISS"
    assert "never started" in why(tests["rtlat.sigwait"])
    assert not leaks, f"left behind: {leaks}"


@pytest.fixture(scope="module")
def squad(squad_starting):  # noqa: F811
    squad_starting.ready()
    return squad_starting


def test_squad_of_a_killed_run_fails_the_run_case(squad, killed_pmq):
    files, _ = killed_pmq
    r = submit(squad, files["json"], "killed-pmq")
    assert r.returncode == 0, r.stderr
    _, tests, _ = build_content(squad, "killed-pmq")
    print("SQUAD of the killed pmq run:", tests)
    assert tests["rtlat/pmq-run"] == "fail"
    assert "pass" not in tests.values()
    logs = squad_logs(squad, "killed-pmq")
    assert UNFINISHED in logs["rtlat/pmq-run"]


def test_squad_of_a_killed_suite(squad, killed_suite):
    d, _ = killed_suite
    r = submit(squad, d, "killed-suite")
    assert r.returncode == 0, r.stderr
    _, tests, _ = build_content(squad, "killed-suite")
    print("SQUAD of the killed suite:", tests)
    assert tests["rtlat/suite-run"] == "fail"
    assert tests["rtlat/pmq-latency"] == "fail"
    assert "pass" not in tests.values()
    # the test never started: its case is there, skipped, with the reason
    assert tests["rtlat/sigwait-latency"] == "skip"
    logs = squad_logs(squad, "killed-suite")
    assert "never started" in logs["rtlat/sigwait-latency"]
    assert UNFINISHED in logs["rtlat/suite-run"]


def squad_logs(squad, version):
    b, _, _ = build_content(squad, version)
    return {t["name"]: t.get("log") or "" for t in
            squad.all(f"builds/{b['id']}/tests/?limit=500")}
