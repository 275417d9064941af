# SPDX-License-Identifier: GPL-2.0-or-later
"""rtlat-report --kcidb: KCIDB I/O documents that kcidb-io's own
validator takes (a pair test, the timer on every CPU, request, the
suite: recorded results, tests/fixtures/report), and refuses when broken.
(rtlat's OpenMetrics histogram against its JSON's p99, by Prometheus'
histogram_quantile, needs live runs: tests/test_report_e2e.py.)"""
import copy
import json

import pytest

from conftest import FIXTURES, report, report_here

kcidb_io = pytest.importorskip("kcidb_io")
CHECKS = FIXTURES / "checks"


def validate(doc):
    """kcidb-io's validator, of the newest schema it knows."""
    kcidb_io.schema.LATEST.validate(doc)


def document(tmp_path, *inputs, extra=()):
    out = tmp_path / "kcidb.json"
    # in this process: rtlat-report starts in a second on a loaded machine
    r = report_here(*inputs, "--kcidb", out, *extra)
    assert r.returncode == 0, r.stderr
    return json.loads(out.read_text())


def by_path(doc):
    return {t["path"]: t for t in doc["tests"]}


@pytest.mark.parametrize("name", ["pmq", "timer", "request"])
def test_kcidb_io_takes_a_test(tmp_path, name):
    js = CHECKS / f"{name}.json"
    doc = document(tmp_path, js, extra=[
        "--origin", "lab_a", "--kcidb-url-base", "https://lab.example/n1/"])
    validate(doc)
    assert doc["version"] == {"major": 5, "minor": 3}
    data = json.loads(js.read_text())
    tests = by_path(doc)
    head = tests[f"rtlat.{name}"]
    assert head["status"] == "PASS" and head["output_files"] == [
        {"name": js.name, "url": f"https://lab.example/n1/{js.name}"}]
    assert head["start_time"] == data["rtlat"]["start_rfc3339"]
    assert all(t["id"].startswith("lab_a:") and t["origin"] == "lab_a"
               for t in doc["tests"])
    assert len({t["id"] for t in doc["tests"]}) == len(doc["tests"])
    # a figure per record of the JSON's fleet, in seconds, as rtlat judged
    single = len(data["fleet"]["series"]) == 1
    for rec in data["fleet"]["series"]:
        path = f"rtlat.{name}" + ("" if single else f".{rec['series']}")
        t = tests[f"{path}.max"]
        assert t["number"] == {"value": rec["max_ns"] / 1e9, "unit": "s",
                               "prefix": "metric"}
        assert t["status"] == rec["result"].upper()
        assert tests[f"{path}.p99_99"]["number"]["value"] == rec["p99.99_ns"] / 1e9


def test_kcidb_timer_on_every_cpu(tmp_path):
    js = FIXTURES / "timer-cpus" / "timer.json"
    data = json.loads(js.read_text())
    doc = document(tmp_path, js)
    validate(doc)
    tests = by_path(doc)
    cpus = [c["cpu"] for c in data["cpus"]]
    assert len(cpus) == len(data["fleet"]["threads"]) == 2
    for rec in data["fleet"]["threads"]:
        assert tests[f"rtlat.timer.cpu{rec['cpu']}.max"]["number"]["value"] == \
            rec["max_ns"] / 1e9
    assert sorted(r["cpu"] for r in data["fleet"]["threads"]) == sorted(cpus)
    # the kernel that ran: checkout and build from the JSON's system record
    build, = doc["builds"]
    assert build["misc"]["kernel_release"] == data["system"]["kernel"]
    assert build["architecture"] == data["system"]["machine"]
    assert build["checkout_id"] == doc["checkouts"][0]["id"]


def test_kcidb_a_failed_series_is_fail(tmp_path):
    data = json.loads((CHECKS / "pmq.json").read_text())
    for rec in data["fleet"]["series"] + data["fleet"]["threads"]:
        rec["result"] = "fail"
    data["fleet"]["verdict"] = "fail"
    f = tmp_path / "pmq.json"
    f.write_text(json.dumps(data))
    doc = document(tmp_path, f, extra=[
        "--kcidb-checkout-id", "abc", "--kcidb-build-id", "b1",
        "--kcidb-git-commit", "a" * 40])
    validate(doc)
    assert {t["status"] for t in doc["tests"]} == {"FAIL"}
    assert doc["checkouts"][0]["id"] == "rtlat:abc"
    assert doc["checkouts"][0]["git_commit_hash"] == "a" * 40
    assert doc["builds"][0]["id"] == "rtlat:b1"


def test_kcidb_io_takes_the_suite_and_refuses_it_broken(tmp_path):
    doc = document(tmp_path, FIXTURES / "suite")
    validate(doc)
    names = {t["path"].split(".")[1] for t in doc["tests"]}
    assert names >= {"pmq", "timer", "request", "sync"}
    # deliberately broken, kcidb-io's validator refuses each
    import jsonschema
    rt_tests_time = "Thu, 26 Nov 2026 06:33:04 +0000"
    for breakage in (lambda x: x["tests"][1].__setitem__("status", "GOOD"),
                     lambda x: x["tests"][1]["number"].__setitem__("unit", 5),
                     lambda x: x["tests"][1].__setitem__("path", "rtlat timer"),
                     lambda x: x["tests"][1].__setitem__("start_time", rt_tests_time),
                     lambda x: x["tests"][1].pop("build_id"),
                     lambda x: x.__setitem__("version", {"major": 99, "minor": 0})):
        bad = copy.deepcopy(doc)
        breakage(bad)
        with pytest.raises(jsonschema.exceptions.ValidationError):
            validate(bad)


def test_kcidb_bad_input_is_one_line(tmp_path):
    js = CHECKS / "pmq.json"
    out = tmp_path / "k.json"
    r = report(js, "--kcidb", out, "--origin", "Lab A")
    assert r.returncode == 2 and "Traceback" not in r.stderr
    line, = r.stderr.splitlines()
    assert "--origin" in line and "'Lab A'" in line
    rt_tests = tmp_path / "rt.json"
    data = json.loads(js.read_text())
    rt_tests.write_text(json.dumps({k: v for k, v in data.items() if k != "rtlat"}))
    half = tmp_path / "half.json"
    half.write_text(json.dumps({k: v for k, v in data.items() if k != "fleet"}))
    for f, says in ((rt_tests, "not an rtlat result"), (half, "fleet"),
                    (tmp_path / "none.json", "no such file")):
        r = report_here(f, "--kcidb", out)
        assert r.returncode == 2, r.stderr
        line, = r.stderr.splitlines()
        assert str(f) in line and says in line
    assert not out.exists()


def test_kcidb_of_a_failed_suite_and_of_an_unfinished_run(tmp_path):
    """A suite over its thresholds (recorded: exit 3, index.json's verdict
    fail) is FAIL in every test; a run killed after its first checkpoint
    is no PASS nor FAIL: its tests say it did not finish, and how much it
    covered."""
    doc = document(tmp_path, FIXTURES / "suite-failed")
    validate(doc)
    assert {t["status"] for t in doc["tests"]} == {"FAIL"}
    assert {t["path"].split(".")[1] for t in doc["tests"]} == {"pmq", "timer"}
    doc = document(tmp_path, FIXTURES / "checkpoint" / "timer.json")
    validate(doc)
    assert {t["status"] for t in doc["tests"]} <= {"ERROR", "SKIP"}
    assert all("covers 1 s of 1 min" in t["misc"]["unfinished"]
               for t in doc["tests"])
