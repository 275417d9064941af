# SPDX-License-Identifier: GPL-2.0-or-later
"""A run that did not finish never reaches KernelCI or SQUAD as a pass
(issue 44, item 3). A real pmq run of -D 60 killed with SIGKILL once its
first checkpoint file exists (waited for, never a fixed sleep): the
checkpoint's own JSON says the run is in progress (verdict "incomplete",
return_code not 0, "complete": false), its JUnit has an error case saying
the run did not finish; the final write of a run that ends replaces them.
No latency value is asserted."""
import contextlib
import json
import os
import signal
import time

import junitparser
import pytest

from conftest import running, settled_leaks, snapshot
from test_schema import errors as schema_errors

# What each export says of a run that did not finish (the reason's words).
UNFINISHED = "did not finish"


def doc_of(path):
    """path's JSON as it is now, or None (not there yet)."""
    try:
        return json.loads(path.read_text())
    except (OSError, ValueError):
        return None


def wait_for(what, cond, proc, timeout=30):
    """Poll cond() until it holds; fail if the run ends first or in time."""
    deadline = time.time() + timeout
    while True:
        got = cond()
        if got:
            return got
        assert proc.poll() is None, f"the run ended before {what}"
        assert time.time() < deadline, f"no {what} in {timeout} s"
        time.sleep(0.02)


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
        wait_for("first checkpoint", lambda: (doc_of(files["json"]) or {})
                 .get("complete") is False and files["junit"].exists(), p)
        p.kill()
        p.wait()
        assert p.returncode == -signal.SIGKILL
    return files, settled_leaks(before)


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
    assert 'rtlat_run_complete{test="pmq"} 0' in files["openmetrics"].read_text()
    assert not leaks, f"left behind: {leaks}"


def test_the_final_write_of_a_run_that_ends_is_unchanged(tmp_path):
    """A run that checkpointed and then ended: its files say pass, no
    error case is left from the checkpoints."""
    js, xml = tmp_path / "pmq.json", tmp_path / "pmq.xml"
    with session(["pmq", "-D", "3", "-q", "--checkpoint", "1s", "--json", str(js),
                  "--junit", str(xml)]) as p:
        wait_for("first checkpoint", lambda: (doc_of(js) or {}).get("complete")
                 is False, p)
        _, err = p.communicate(timeout=30)
        assert p.returncode == 0, err
    d = doc_of(js)
    assert d["complete"] is True and d["return_code"] == 0
    assert d["fleet"]["verdict"] == "pass"
    cases = [c for s in junitparser.JUnitXml.fromfile(str(xml)) for c in s]
    assert cases and all(not c.result for c in cases), xml.read_text()
