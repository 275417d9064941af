# SPDX-License-Identifier: GPL-2.0-or-later
"""rtlat's JSON Schema (schema/rtlat.schema.json, draft 2020-12): the
recorded results (tests/fixtures/report) follow it, as the jsonschema
package validates; a broken document is refused; rtlat-report checks its
input with it (one line naming the file and the place). That every test's
live output and a live suite's directory follow it: tests/test_report_e2e.py."""
import copy
import json

import jsonschema
import pytest

from conftest import FIXTURES, ROOT, fixture_json, needs_tracefs, report, run

SCHEMA = json.loads((ROOT / "schema" / "rtlat.schema.json").read_text())
VALIDATOR = jsonschema.Draft202012Validator(
    SCHEMA, format_checker=jsonschema.Draft202012Validator.FORMAT_CHECKER)
# The directories make-fixtures records with the rtlat of today (the
# others were recorded once, some by hand, in older forms).
RECORDED = ("checks", "suite", "suite-failed", "timer-cpus", "pmq-pairs",
            "checkpoint", "qualify", "hw", "qualify-hw")


def errors(doc):
    return [f"{list(e.absolute_path)}: {e.message}"
            for e in VALIDATOR.iter_errors(doc)]


def test_schema_is_draft_2020_12():
    jsonschema.Draft202012Validator.check_schema(SCHEMA)
    assert SCHEMA["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    # the package's copy is the schema itself
    assert (ROOT / "report" / "rtlat_report" / "read" / "rtlat.schema.json") \
        .read_bytes() == (ROOT / "schema" / "rtlat.schema.json").read_bytes()


@pytest.mark.parametrize("where", RECORDED)
def test_the_recorded_results_follow_the_schema(where):
    """The fixtures the report's tests read are what rtlat writes today:
    make-fixtures was run after the schema's last change."""
    files = sorted((FIXTURES / where).glob("*.json"))
    assert files
    for f in files:
        assert errors(json.loads(f.read_text())) == [], f


def test_shared_keys_as_specified_are_accepted():
    doc = fixture_json("checks", "timer.json")
    doc.update({
        "complete": False,
        "checkpoint": {"at_wall": "2026-11-26T06:33:04.123456Z",
                       "covered_s": 1.5, "planned_s": None},
        "timeline": {"step_s": 0.5, "merges": 1, "cap": 1000,
                     "start_wall": "2026-11-26T06:33:04.123456Z",
                     "start_monotonic_ns": 123,
                     "columns": ["t_s", "wall", "n", "min_ns", "avg_ns",
                                 "max_ns", "p99_ns", "over"],
                     "series": [{"test": "timer", "series": "latency",
                                 "thread": 0, "cpu": 1, "threshold_ns": None,
                                 "steps": [[0.0, "2026-11-26T06:33:04.123456Z",
                                            0, None, None, None, None, None],
                                           [0.5, "2026-11-26T06:33:04.623456Z",
                                            5, 1, 2.0, 3, 3, 0]]}]},
        "largest": {"k": 2, "columns": ["ns", "t_s", "cpu"],
                    "series": [{"test": "timer", "series": "latency",
                                "thread": 0, "cpu": 1, "seen": 9,
                                "rows": [[900, 0.25, 1], [800, 0.75, 1]]}]},
    })
    doc["rtlat"]["context"] = {"kind": "vm", "hypervisor": "kvm"}
    assert errors(doc) == []
    for k in ("checkpoint", "timeline", "largest"):
        assert errors(dict(doc, **{k: None})) == []


def broken(doc):
    """Ways to break a result file, each one the schema must refuse."""
    def edit(f):
        d = copy.deepcopy(doc)
        f(d)
        return d
    yield "no fleet", edit(lambda d: d.pop("fleet"))
    yield "negative samples", edit(
        lambda d: d["fleet"]["series"][0].__setitem__("samples", -1))
    yield "max as text", edit(
        lambda d: d["fleet"]["series"][0].__setitem__("max_ns", "5"))
    yield "result unknown", edit(
        lambda d: d["fleet"]["series"][0].__setitem__("result", "ok"))
    yield "rt-tests time in rfc3339", edit(
        lambda d: d["rtlat"].__setitem__("start_rfc3339", d["start_time"]))
    yield "file_version 2", edit(lambda d: d.__setitem__("file_version", 2))
    yield "histogram row of 3", edit(
        lambda d: d["thread"]["0"]["receiver"]["latency"]["histogram"]
        ["counts"].append([1, 2, 3]))
    yield "checkpoint without covered_s", edit(
        lambda d: d.__setitem__("checkpoint", {
            "at_wall": "2026-11-26T06:33:04Z", "planned_s": None}))
    yield "context kind unknown", edit(
        lambda d: d["rtlat"].__setitem__("context", {"kind": "cloud"}))


def test_broken_documents_are_refused():
    doc = fixture_json("checks", "pmq.json")
    assert errors(doc) == []
    for why, bad in broken(doc):
        assert errors(bad), why
    reg = fixture_json("suite", "registry.json")
    assert errors(reg) == []
    del reg["tests"][0]["series"]
    assert errors(reg)


def test_report_checks_its_input_with_the_schema(tmp_path):
    doc = fixture_json("checks", "pmq.json")
    doc["fleet"]["series"] = "all of them"
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(doc))
    r = report(bad, "-o", tmp_path / "r.html")
    assert r.returncode == 2 and "Traceback" not in r.stderr
    line, = r.stderr.splitlines()
    assert str(bad) in line and "JSON Schema" in line and "fleet.series" in line
    assert not (tmp_path / "r.html").exists()


def test_report_checks_every_row_as_jsonschema_does():
    """rtlat-report checks the rows of "largest" (thousands of them) with
    a fast check of its own: it judges every row as jsonschema does
    (a bad row deep in the list is found, and named where it is), and a
    problem is one short line, not the whole list quoted."""
    import copy
    from rtlat_report.read import schema
    doc = fixture_json("checks", "pmq.json")
    rows = doc["largest"]["series"][0]["rows"]
    assert len(rows) > 20
    assert schema.problems(doc) == []
    i = len(rows) - 3
    for col, value in ((0, "x"), (0, True), (0, 1.5), (1, None), (2, "cpu0")):
        bad = copy.deepcopy(doc)
        bad["largest"]["series"][0]["rows"][i][col] = value
        assert errors(bad), (col, value)             # jsonschema's own verdict
        found = schema.problems(bad)
        assert found and found[0].startswith(f"largest.series[0].rows[{i}][{col}]: "), found
        assert len(found[0]) < 300
    bad = copy.deepcopy(doc)
    bad["largest"]["series"][0]["rows"][i] = [1, 2]
    assert errors(bad) and schema.problems(bad)
    bad["largest"]["series"][0]["rows"][i] = [1.0, 2, 0]   # 1.0 is an integer to JSON Schema
    assert not errors(bad) and not schema.problems(bad)


# Issue 47's keys: timer -t 3's "timerlat_contexts" (as timer_tlu.c
# writes it), --explain's "trace_out" and each spike's kernel "stack",
# and --on-threshold in "settings".
CONTEXTS = {c: {"samples": 10, "min_ns": 1000, "avg_ns": 1500.5, "max_ns": 2000}
            for c in ("irq", "thread", "user_ret")}


@needs_tracefs
def test_issue_47_keys_of_a_real_output_validate(tmp_path, leakcheck):
    out = tmp_path / "windows"
    out.mkdir()
    js = tmp_path / "r.json"
    r = run(["timer", "-q", "-T", "1", "--explain", "--trace-out", str(out),
             "--max-latency", "1000000", "--on-threshold", "continue",
             "--json", str(js)])
    assert r.returncode == 0, r.stderr
    doc = json.loads(js.read_text())
    assert doc["settings"]["on_threshold"] == "continue"
    assert doc["explain"]["trace_out"] == str(out)
    assert errors(doc) == []
    # -t 3 runs only on a kernel with timerlat_fd (the rt612 guest checks
    # its own output against the schema): its object as rtlat writes it
    doc["timerlat_contexts"] = CONTEXTS
    assert errors(doc) == []
    leakcheck()


def test_issue_47_keys_of_a_wrong_type_are_refused():
    doc = fixture_json("checks", "timer.json")
    doc["timerlat_contexts"] = copy.deepcopy(CONTEXTS)
    doc["settings"]["on_threshold"] = "exec=true"
    doc["explain"] = fixture_json("suite", "pmq.json")["explain"]
    doc["explain"]["trace_out"] = None
    doc["explain"]["stack_unavailable"] = None
    doc["explain"]["spikes"][0]["stack"] = ["__schedule", "schedule"]
    doc["explain"]["spikes"][0]["stack_of"] = "task hog[12]"
    assert errors(doc) == []

    def edit(f):
        d = copy.deepcopy(doc)
        f(d)
        return d
    x = lambda d: d["explain"]  # noqa: E731
    bad = {
        "trace_out a number": edit(lambda d: x(d).__setitem__("trace_out", 5)),
        "on_threshold a list": edit(
            lambda d: d["settings"].__setitem__("on_threshold", ["stop"])),
        "a context's max as text": edit(
            lambda d: d["timerlat_contexts"]["irq"].__setitem__("max_ns", "5")),
        "a context missing": edit(lambda d: d["timerlat_contexts"].pop("thread")),
        "contexts' samples negative": edit(
            lambda d: d["timerlat_contexts"]["user_ret"].__setitem__("samples", -1)),
        "stack as text": edit(
            lambda d: x(d)["spikes"][0].__setitem__("stack", "__schedule")),
        "a frame a number": edit(
            lambda d: x(d)["spikes"][0].__setitem__("stack", [0xffff])),
        "stack_unavailable a boolean": edit(
            lambda d: x(d).__setitem__("stack_unavailable", True)),
        "explain without spikes": edit(lambda d: x(d).pop("spikes")),
    }
    for why, d in bad.items():
        assert errors(d), why
