# SPDX-License-Identifier: GPL-2.0-or-later
"""rtlat's live output through rtlat-report, each path once (issue 48):
the only report tests that run rtlat (every other reads the committed
results of tests/fixtures/report). A live suite (conftest.suite_run,
shared with tests/test_suite.py), every registry test's short run
(conftest.check_runs) and two back-to-back pmq runs: rtlat's output
follows its schema and its OpenMetrics histogram agrees with its JSON;
rtlat-report takes them for the page, --gate, --plan and --tail,
--merge and --kcidb. (--squad: tests/test_fleet_squad.py submits a live
pmq run, a live suite and lava/rtlat.sh's results to a real SQUAD
server.)"""
import json
import shutil
import subprocess
from datetime import datetime, timezone
from email.utils import parsedate_to_datetime

import pytest
import yaml

from conftest import (promtool_check, registry_names, report, report_here, run,
                      tracefs_unavailable)
from test_report import parse, sections
from test_schema import errors


@pytest.fixture(scope="module")
def suite_dir(suite_run):
    r, d, _ = suite_run
    assert r.returncode == 0, r.stderr
    return d


@pytest.fixture(scope="module")
def two_runs(tmp_path_factory):
    """Two short pmq runs, one after the other (what --merge joins),
    pinned (-a): an unpinned pair's series is named by the CPU it ended
    on, and runs whose series differ are not merged."""
    d = tmp_path_factory.mktemp("two")
    out = []
    for name in ("a", "b"):
        f = d / f"{name}.json"
        r = run(["pmq", "-a", "-l", "300", "-i", "500", "-q", "--json",
                 str(f)])
        assert r.returncode == 0, r.stderr
        out.append(f)
    return out


# --- rtlat's output as its schema describes it ------------------------------

@pytest.mark.parametrize("name", registry_names())
def test_every_test_output_follows_the_schema(check_runs, name):
    r, js, _ = check_runs[name]
    assert r.returncode in (0, 3), r.stderr
    doc = json.loads(js.read_text())
    assert errors(doc) == []
    assert doc["rtlat"]["test"] == name


def test_suite_directory_follows_the_schema(suite_dir):
    """Every file the suite leaves follows the schema; its registry.json
    is rtlat --list (the page orders its sections by it)."""
    files = sorted(suite_dir.glob("*.json"))
    assert "registry.json" in [f.name for f in files] and len(files) > 2
    for f in files:
        assert errors(json.loads(f.read_text())) == [], f
    assert json.loads((suite_dir / "registry.json").read_text()) == \
        json.loads(run(["--list"]).stdout)


def rfc3339(t):
    assert t.endswith("Z") and len(t) == len("2026-11-26T06:33:04.123456Z")
    return datetime.fromisoformat(t[:-1] + "+00:00")


def test_rfc3339_times_beside_rt_tests_times(check_runs):
    doc = json.loads(check_runs["pmq"][1].read_text())
    start, end = (rfc3339(doc["rtlat"][k]) for k in ("start_rfc3339", "end_rfc3339"))
    assert start <= end and start.tzinfo == timezone.utc
    # rt-tests' layout is kept, and says the same second
    old = parsedate_to_datetime(doc["start_time"])
    assert abs((old - start).total_seconds()) < 1
    assert parsedate_to_datetime(doc["end_time"]) >= old


# --- rtlat-report's paths, each fed a live run once -------------------------

def test_page_of_a_live_suite(suite_dir, tmp_path):
    """The page: a section per result the suite left; with tracefs (the
    suite ran --explain) an Explain section per test that takes it."""
    out = tmp_path / "r.html"
    r = report("page", suite_dir, "-o", out)
    assert r.returncode == 0 and r.stdout == f"report: {out}\n", r.stderr
    tree, figs = parse(out)
    index = json.loads((suite_dir / "index.json").read_text())
    tests = {t["test"] for t in index["fleet"]["series"]}
    assert len(tests) >= 5 and {f"test-{t}" for t in tests} <= sections(tree)
    assert {"pmq-hist", "timer-hist", "timer-seconds"} <= set(figs)
    if tracefs_unavailable() is None:
        reg = json.loads((suite_dir / "registry.json").read_text())["tests"]
        takes = [t["name"] for t in reg
                 if t["explain"] and t["suite_order"] is not None]
        assert takes and {f"explain-{t}" for t in takes} <= sections(tree)


def test_gate_plan_and_tail_of_a_live_run(suite_dir, tmp_path):
    """rtlat-report gate of a run against itself: never worse (0, or 125
    when the run is too short to tell), the reason in words; plan: the run
    length and what the run shows of it; page --tail --summary-json: the
    page and every figure as JSON; summary: the run in a few lines, and
    the same JSON."""
    t = suite_dir / "timer.json"
    g = report_here("gate", t, t)
    assert g.returncode in (0, 125) and g.stdout.strip(), (g.returncode, g.stderr)
    p = report_here("plan", t, "--plan-level", "100", "--plan-prob", "1e-6")
    assert p.returncode == 0 and "cycles" in p.stdout, p.stderr
    out, summ = tmp_path / "r.html", tmp_path / "s.json"
    r = report_here("page", t, "--tail", "--summary-json", summ, "-o", out)
    assert r.returncode == 0, r.stderr
    assert json.loads(summ.read_text())["runs"][0]["series"]
    assert "How bad will it get" in out.read_text()
    s = report_here("summary", t, "--json", tmp_path / "s2.json")
    assert s.returncode == 0 and "worst series: timer" in s.stdout, s.stderr
    assert json.loads((tmp_path / "s2.json").read_text())["runs"][0]["series"]


def test_merge_of_two_live_runs(two_runs, tmp_path):
    """rtlat-report merge of two consecutive runs: one run, its samples
    the sum."""
    out = tmp_path / "m.md"
    r = report_here("merge", *two_runs, "--labels", "both", "--format", "md",
                    "-o", out)
    assert r.returncode == 0, r.stderr
    n = sum(json.loads(f.read_text())["fleet"]["series"][0]["samples"]
            for f in two_runs)
    assert "| pmq | both | " in out.read_text() and f" {n} |" in out.read_text()


def test_kcidb_of_a_live_suite(suite_dir, tmp_path):
    """rtlat-report kcidb of the live suite: a document kcidb-io's validator takes
    (rtlat-report runs it when installed), a test per figure."""
    out = tmp_path / "k.json"
    r = report_here("kcidb", suite_dir, "-o", out)
    assert r.returncode == 0, r.stderr
    doc = json.loads(out.read_text())
    kcidb_io = pytest.importorskip("kcidb_io")
    kcidb_io.schema.LATEST.validate(doc)
    assert {t["path"].split(".")[1] for t in doc["tests"]} >= {"pmq", "timer"}


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
    # One promtool test a run: promtool's query engine refuses to load
    # more than its sample limit at once, and every series has all of the
    # fixed bounds (issue 49).
    total = 0
    for name, (r, js, om) in check_runs.items():
        if om is None:
            continue
        total += promtool_p99(name, js, om, tmp_path)
    assert total >= 10


def promtool_p99(name, js, om, tmp_path):
    """promtool test rules on one run's buckets against its JSON's p99:
    the series and threads compared (within the buckets' range)."""
    series, n, past_n = [], 0, 0
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
    f = tmp_path / f"quantile-{name}.yml"
    f.write_text(yaml.safe_dump(rules))
    r = subprocess.run(["promtool", "test", "rules", str(f)],
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, name + ": " + r.stdout + r.stderr
    return n
