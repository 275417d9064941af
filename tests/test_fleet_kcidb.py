# SPDX-License-Identifier: GPL-2.0-or-later
"""rtlat-report --kcidb: KCIDB I/O documents that kcidb-io's own
validator takes (a pair test, the timer on every CPU, request, the
suite), and refuses when broken; and the OpenMetrics histogram, whose
buckets are fine enough that Prometheus' histogram_quantile (the real
PromQL engine: promtool test rules) gives p99 within 10 % of rtlat's."""
import copy
import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from conftest import promtool_check

kcidb_io = pytest.importorskip("kcidb_io")
REPORT = str(Path(sys.executable).parent / "rtlat-report")


def kcidb(*args):
    """rtlat-report's command line, run by the command itself."""
    return subprocess.run([REPORT, *map(str, args)], capture_output=True,
                          text=True, timeout=60)


def kcidb_here(capsys, *args):
    """The same in this process (rtlat-report starts in a second on a
    loaded machine): (exit status, stderr)."""
    from rtlat_report.cli import main as cli
    capsys.readouterr()
    rc = cli.main([str(a) for a in args])
    return rc, capsys.readouterr().err


def validate(doc):
    """kcidb-io's validator, of the newest schema it knows."""
    kcidb_io.schema.LATEST.validate(doc)


def document(capsys, tmp_path, *inputs, extra=()):
    out = tmp_path / "kcidb.json"
    rc, err = kcidb_here(capsys, *inputs, "--kcidb", out, *extra)
    assert rc == 0, err
    return json.loads(out.read_text())


def by_path(doc):
    return {t["path"]: t for t in doc["tests"]}


@pytest.mark.parametrize("name", ["pmq", "timer", "request"])
def test_kcidb_io_takes_a_test(check_runs, tmp_path, capsys, name):
    r, js, _ = check_runs[name]
    assert r.returncode == 0, r.stderr
    doc = document(capsys, tmp_path, js, extra=[
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


def test_kcidb_timer_on_every_cpu(check_runs, tmp_path, capsys):
    js = check_runs["timer"][1]
    data = json.loads(js.read_text())
    doc = document(capsys, tmp_path, js)
    validate(doc)
    tests = by_path(doc)
    cpus = [c["cpu"] for c in data["cpus"]]
    assert len(cpus) == len(data["fleet"]["threads"]) >= 1
    for rec in data["fleet"]["threads"]:
        assert tests[f"rtlat.timer.cpu{rec['cpu']}.max"]["number"]["value"] == \
            rec["max_ns"] / 1e9
    assert sorted(r["cpu"] for r in data["fleet"]["threads"]) == sorted(cpus)
    # the kernel that ran: checkout and build from the JSON's system record
    build, = doc["builds"]
    assert build["misc"]["kernel_release"] == data["system"]["kernel"]
    assert build["architecture"] == data["system"]["machine"]
    assert build["checkout_id"] == doc["checkouts"][0]["id"]


def test_kcidb_a_failed_series_is_fail(check_runs, tmp_path, capsys):
    data = json.loads(check_runs["pmq"][1].read_text())
    for rec in data["fleet"]["series"] + data["fleet"]["threads"]:
        rec["result"] = "fail"
    data["fleet"]["verdict"] = "fail"
    f = tmp_path / "pmq.json"
    f.write_text(json.dumps(data))
    doc = document(capsys, tmp_path, f, extra=[
        "--kcidb-checkout-id", "abc", "--kcidb-build-id", "b1",
        "--kcidb-git-commit", "a" * 40])
    validate(doc)
    assert {t["status"] for t in doc["tests"]} == {"FAIL"}
    assert doc["checkouts"][0]["id"] == "rtlat:abc"
    assert doc["checkouts"][0]["git_commit_hash"] == "a" * 40
    assert doc["builds"][0]["id"] == "rtlat:b1"


def test_kcidb_io_takes_the_suite_and_refuses_it_broken(suite_run, tmp_path, capsys):
    _, d, _ = suite_run
    doc = document(capsys, tmp_path, d)
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


def test_kcidb_bad_input_is_one_line(check_runs, tmp_path, capsys):
    js = check_runs["pmq"][1]
    out = tmp_path / "k.json"
    r = kcidb(js, "--kcidb", out, "--origin", "Lab A")
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
        rc, err = kcidb_here(capsys, f, "--kcidb", out)
        assert rc == 2, err
        line, = err.splitlines()
        assert str(f) in line and says in line
    assert not out.exists()


def om_samples(path):
    """(name, labels, value) of an OpenMetrics file, by prometheus_client."""
    from prometheus_client.openmetrics.parser import text_string_to_metric_families
    for fam in text_string_to_metric_families(path.read_text()):
        for s in fam.samples:
            yield s.name, s.labels, s.value


def series_label(labels):
    return "{" + ",".join(f'{k}="{v}"' for k, v in sorted(labels.items())) + "}"


def test_histogram_quantile_within_10_percent_of_rtlat_p99(check_runs, tmp_path):
    """Prometheus' own PromQL (promtool test rules, no server) computes
    histogram_quantile(0.99) from each run's buckets and compares it with
    the p99 of that run's JSON: within 10 % for every series and thread
    that has samples, in every run. A p99 past the histogram's range (a
    stall on a loaded machine, in a short run) is in the +Inf bucket,
    where no Prometheus histogram can place it: there histogram_quantile
    must give a lower bound (the last finite bound, never above the JSON's
    p99), not a figure past what the buckets know."""
    if not shutil.which("promtool"):
        pytest.skip("promtool is not installed (Debian package prometheus; "
                    "tests/install-deps)")
    series, n, past_n = [], 0, 0
    for name, (r, js, om) in check_runs.items():
        if om is None:
            continue
        promtool_check(om)
        fleet = json.loads(js.read_text())["fleet"]
        finite = {}     # the last finite bucket's count, per series
        for name_, labels, value in om_samples(om):
            if name_ == "rtlat_latency_seconds_bucket":
                series.append({"series": "rtlat_latency_seconds_bucket"
                               + series_label(labels), "values": repr(value)})
                key = (labels["test"], labels["series"], labels["thread"])
                if labels["le"] != "+Inf":
                    finite[key] = max(finite.get(key, 0), value)
        for rec in fleet["series"] + fleet["threads"]:
            if not rec["samples"]:
                continue
            thread = "all" if rec.get("thread", -1) < 0 else str(rec["thread"])
            labels = {"test": rec["test"], "series": rec["series"],
                      "thread": thread}
            key = (rec["test"], rec["series"], thread)
            # Prometheus' rank is q x count; past the finite buckets it is
            # in +Inf.
            past = finite.get(key, 0) < 0.99 * rec["samples"]
            metric = "rtlat_json_p99_past_seconds" if past else "rtlat_json_p99_seconds"
            series.append({"series": metric + series_label(labels),
                           "values": repr(rec["p99_ns"] / 1e9)})
            n += not past
            past_n += past
    ratio = ("histogram_quantile(0.99, rtlat_latency_seconds_bucket) "
             "/ on(test, series, thread) rtlat_json_p99_seconds")
    past = ("histogram_quantile(0.99, rtlat_latency_seconds_bucket) "
            "/ on(test, series, thread) rtlat_json_p99_past_seconds")
    exprs = [{"expr": f"count({ratio})", "eval_time": "0m",
              "exp_samples": [{"labels": "{}", "value": n}]},
             {"expr": f"abs({ratio} - 1) > 0.10", "eval_time": "0m",
              "exp_samples": []}]
    if past_n:
        exprs += [{"expr": f"count({past})", "eval_time": "0m",
                   "exp_samples": [{"labels": "{}", "value": past_n}]},
                  {"expr": f"{past} > 1", "eval_time": "0m", "exp_samples": []}]
    rules = {"rule_files": [], "evaluation_interval": "1m", "tests": [{
        "interval": "1m", "input_series": series,
        "promql_expr_test": exprs}]}
    f = tmp_path / "quantile.yml"
    f.write_text(yaml.safe_dump(rules))
    r = subprocess.run(["promtool", "test", "rules", str(f)],
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 0 and n >= 10, r.stdout + r.stderr
