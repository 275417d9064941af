# SPDX-License-Identifier: GPL-2.0-or-later
"""Issue 31: the fleet outputs as their real clients read them.

- A series that was asked for and measured nothing is in every output:
  LAVA skip (the reason in the log), JUnit <skipped> with its message,
  OpenMetrics with a count of 0 and no made-up quantile, the JSON with 0
  samples. Made on purpose, not by load: `rtlat sync -l 0` measures test 1
  until stopped, and a stop signal ends the run before tests 2 and 3.
- promtool (Prometheus' lint) takes every --openmetrics file.
- --baseline reads its file as JSON whatever its layout (jq -c, jq
  --indent 4, Python's json.tool, keys reordered), and refuses what is not
  JSON in one line, exit 2.
- JUnit's <error> carries its message as text (GitLab shows the text).
No latency value is asserted."""
import json
import os
import re
import shutil
import stat
import subprocess
import sys
import xml.etree.ElementTree as ET

import junitparser
import pytest
from prometheus_client.openmetrics import parser as om_parser
from prometheus_client.parser import text_string_to_metric_families

from conftest import promtool_check, run, stop, watching

LAVA_CASE = re.compile(r"^lava-test-case (?P<name>\S+) --result (?P<result>pass|fail|skip)"
                       r"(?: --measurement (?P<value>\d+\.\d{3}) --units us)?$")
FIGURES = ("min", "avg", "p99", "max")
QUANTILE = "rtlat_latency_quantile_seconds"


@pytest.fixture(scope="module")
def unmeasured(tmp_path_factory):
    """rtlat sync stopped during test 1, once its cost has samples (its
    status says so): handoff (test 2) and blocking (test 3) were asked for
    and measured nothing, whatever the load. (A stop before test 1's first
    sample, exit 1 said on stderr, is accepted too.)"""
    d = tmp_path_factory.mktemp("unmeasured")
    files = {k: d / f"r.{k}" for k in ("json", "xml", "prom")}
    with watching(["sync", "-l", "0", "--json", str(files["json"]), "--junit",
                   str(files["xml"]), "--openmetrics", str(files["prom"]), "--lava"]) as p:
        p.measuring(r"cost: [1-9]\d* samples")
        rc, out, err = stop(p, 15, timeout=60)
    assert rc in (0, 1), err
    if rc == 1:
        assert "stopped by a signal before the first sample" in err, err
    return rc, out, err, files


def test_series_with_no_sample_is_skipped_in_lava(unmeasured):
    rc, out, _, _ = unmeasured
    lines = out.splitlines()
    cases = {m["name"]: m for m in map(LAVA_CASE.match, lines) if m}
    for series in ("handoff", "blocking"):
        for fig in FIGURES:
            m = cases[f"sync-{series}-{fig}"]
            assert m["result"] == "skip" and m["value"] is None, m.group(0)
        # the reason, in the log before the cases
        first = lines.index(f"lava-test-case sync-{series}-min --result skip")
        assert lines[first - 1] == f"# sync-{series}: skip: no sample was measured"
    assert {c["result"] for n, c in cases.items() if n.startswith("sync-cost-")} == \
        ({"pass"} if rc == 0 else {"skip"})
    assert cases["sync-run"]["result"] == ("pass" if rc == 0 else "fail")


def test_series_with_no_sample_is_skipped_in_junit(unmeasured):
    rc, _, _, files = unmeasured
    xml = junitparser.JUnitXml.fromfile(str(files["xml"]))
    (suite,) = [s for s in xml if s.name == "rtlat.sync"]
    cases = {c.name: c for c in suite}
    assert {"cost", "handoff", "blocking"} <= set(cases)
    for name in ("handoff", "blocking"):
        (res,) = cases[name].result
        assert isinstance(res, junitparser.Skipped), res
        assert res.message == "no sample was measured"
        assert res.text == "no sample was measured"
        # its figures: the count alone, no made-up min or max
        out = cases[name]._elem.find("system-out").text
        assert out.splitlines() == ["samples 0"]
    assert int(suite._elem.get("skipped")) == 2 + (rc == 1)
    assert cases["cost"].is_passed == (rc == 0)


def test_series_with_no_sample_counts_0_in_openmetrics(unmeasured):
    rc, _, _, files = unmeasured
    text = files["prom"].read_text()
    list(om_parser.text_string_to_metric_families(text))  # OpenMetrics' rules
    promtool_check(files["prom"])
    fams = {f.name: f for f in text_string_to_metric_families(text)}
    for series in ("handoff", "blocking"):
        mine = {(s.name, s.labels.get("le"), s.labels.get("quantile")): s.value
                for f in fams.values() for s in f.samples
                if s.labels.get("series") == series}
        assert mine[("rtlat_latency_seconds_count", None, None)] == 0
        assert mine[("rtlat_latency_seconds_bucket", "+Inf", None)] == 0
        assert mine[(QUANTILE + "_count", None, None)] == 0
        assert mine[(QUANTILE + "_sum", None, None)] == 0
        assert not [k for k in mine if k[0] == QUANTILE], "a quantile of nothing"
        assert mine[("rtlat_threshold_exceeded", None, None)] == 0
    cost = [s for s in fams[QUANTILE].samples
            if s.labels["series"] == "cost" and s.name == QUANTILE]
    assert len(cost) == (5 if rc == 0 else 0)


def test_series_with_no_sample_has_0_samples_in_the_json(unmeasured):
    rc, _, _, files = unmeasured
    d = json.loads(files["json"].read_text())
    series = {s["series"]: s for s in d["fleet"]["series"]}
    assert list(series) == ["cost", "handoff", "blocking"]
    for name in ("handoff", "blocking"):
        s = series[name]
        assert (s["samples"], s["result"], s["skipped"]) == (0, "skip", "no sample was measured")
        assert all(s[k] is None for k in ("min_ns", "avg_ns", "max_ns", "p99_ns",
                                          "p99.99_ns", "worst_ns")), s
    assert (series["cost"]["samples"] > 0) == (rc == 0)


def test_a_baseline_with_an_unmeasured_series_judges_it_not(unmeasured):
    """A series with no figure in the baseline is not in it: nothing is
    compared against a made-up 0; a baseline with no figure at all is
    refused."""
    rc, _, _, files = unmeasured
    r = run(["sync", "-l", "2000", "--rounds", "5", "--baseline", str(files["json"])])
    if rc == 1:
        assert r.returncode == 2 and "no rtlat figures in it" in r.stderr, r.stderr
        return
    assert r.returncode in (0, 3), r.stderr
    for series in ("handoff", "blocking"):
        # measured now (not in the baseline) or not (nothing to judge)
        assert (f"sync/{series}: not in the baseline, not judged against it" in r.stderr or
                f"sync/{series}: no sample was measured, not judged" in r.stderr), r.stderr
    assert re.search(r"sync/cost: worst [\d.]+ us, baseline [\d.]+ us", r.stderr), r.stderr


def test_suite_keeps_a_series_with_no_sample(tmp_path):
    """The suite takes its tests' records through a pipe: sync under the
    suite, which always runs tests 1 to 3; whether a series measured or
    not (a loaded machine), it is a case with the same result in LAVA's
    lines and in the JSON."""
    res = tmp_path / "res"
    r = run(["suite", "--only", "sync", "--duration", "1", "-o", str(res), "--lava"],
            timeout=90)
    assert r.returncode == 0, r.stderr
    cases = {m["name"]: m["result"] for m in map(LAVA_CASE.match, r.stdout.splitlines()) if m}
    js = {s["series"]: s for s in json.loads((res / "sync.json").read_text())["fleet"]["series"]}
    for series in ("cost", "handoff", "blocking"):
        want = "pass" if js[series]["samples"] else "skip"
        assert {cases[f"sync-{series}-{f}"] for f in FIGURES} == {want}, series


# ---------------------------------------------------------------------------
# promtool on the --openmetrics of each kind of test (pmq, svsem, timer -c
# all and a suite are in tests/test_fleet_engines.py's runs).

@pytest.mark.parametrize("argv", [
    ["pmq", "-l", "300", "-i", "500", "-q"],
    ["timer", "-c", "all", "-T", "1", "-q"],
    ["request", "-i", "1", "--samples", "100"],
    ["cyclictest", "-q", "-p90", "-i500", "-l", "300", "-t", "2"],
    ["suite", "--duration", "1", "--only", "pmq,sync", "-q"],
], ids=lambda a: a[0])
def test_promtool_accepts_the_openmetrics_of(argv, tmp_path):
    om = tmp_path / "m.prom"
    extra = ["-o", str(tmp_path / "res")] if argv[0] == "suite" else []
    r = run(argv + extra + ["--openmetrics", str(om)], timeout=90)
    assert r.returncode == 0, r.stderr
    fams = {f.name: f for f in text_string_to_metric_families(om.read_text())}
    assert fams[QUANTILE].type == "summary"
    promtool_check(om)


# ---------------------------------------------------------------------------
# --baseline: the file read as JSON, whatever its layout.

def reordered(o):
    """Every object's keys in the reverse order."""
    if isinstance(o, dict):
        return {k: reordered(o[k]) for k in reversed(list(o))}
    if isinstance(o, list):
        return [reordered(x) for x in o]
    return o


def layouts(own, tmp_path):
    """rtlat's own file, and the same JSON as jq -c, jq --indent 4, Python's
    json.tool --indent 4 write it, and with its keys in reverse order."""
    if not shutil.which("jq"):
        pytest.skip("jq is not installed (Debian package jq; tests/install-deps)")
    out = {"own": own}
    for name, cmd in (("jq-c", ["jq", "-c", "."]), ("jq-4", ["jq", "--indent", "4", "."]),
                      ("json.tool", [sys.executable, "-m", "json.tool", "--indent", "4"])):
        out[name] = tmp_path / f"{name}.json"
        with open(own) as src, open(out[name], "w") as dst:
            subprocess.run(cmd, stdin=src, stdout=dst, check=True, timeout=30)
    out["reordered"] = tmp_path / "reordered.json"
    out["reordered"].write_text(json.dumps(reordered(json.loads(own.read_text())), indent=2))
    return out


@pytest.mark.parametrize("base_ns,status", [(1, 3), (10**12, 0)], ids=["fail", "pass"])
def test_baseline_in_any_layout_gives_the_same_verdict(tmp_path, base_ns, status):
    """A baseline maximum of 1 ns fails any run, one of 1000 s passes it:
    the same verdict, and the same figure read, from every layout."""
    own = tmp_path / "own.json"
    r = run(["pmq", "-l", "300", "-i", "500", "-q", "--json", str(own)])
    assert r.returncode == 0, r.stderr
    measured = json.loads(own.read_text())["fleet"]["series"][0]["max_ns"]
    # the figure set in rtlat's own layout (a stats object's max_ns of the
    # same value too: only the fleet's is read)
    text = own.read_text()
    assert f'"max_ns": {measured},' in text
    own.write_text(text.replace(f'"max_ns": {measured},', f'"max_ns": {base_ns},'))
    said = f"pmq/latency: worst [\\d.]+ us, baseline {base_ns / 1e3:.3f} us"
    for name, path in layouts(own, tmp_path).items():
        r = run(["pmq", "-l", "300", "-i", "500", "-q", "--baseline", str(path)])
        assert r.returncode == status, (name, r.stderr)
        assert re.search(said, r.stderr), (name, r.stderr)


@pytest.mark.parametrize("text", ["not json\n", '{"fleet": {"series": [\n', "",
                                  '{"fleet": {"series": [{"test": "pmq"}]}}',
                                  '{"a": "\\x"}', "{\"fleet\": 1}\n\x00",
                                  # figures in a text that is not JSON
                                  'x "fleet": { "series": [{"test": "pmq", '
                                  '"series": "latency", "max_ns": 5}]'],
                         ids=["text", "truncated", "empty", "no-max", "bad-escape", "nul",
                              "figures-in-garbage"])
def test_baseline_not_json_is_one_line_exit_2(tmp_path, text):
    bad = tmp_path / "bad.json"
    bad.write_text(text)
    r = run(["pmq", "-l", "300", "-i", "500", "-q", "--baseline", str(bad)])
    assert r.returncode == 2 and r.stdout == "", r.stderr
    assert len(r.stderr.splitlines()) == 1, r.stderr
    assert r.stderr.startswith(f"rtlat pmq: option --baseline: cannot use '{bad}': ")
    assert "accepted: a --json file of an earlier run of this rtlat" in r.stderr


# ---------------------------------------------------------------------------
# JUnit <error>: its message as attribute and as text.

def test_junit_error_has_its_message_as_text(tmp_path):
    full = tmp_path / "full"
    os.mknod(full, 0o666 | stat.S_IFCHR, os.makedev(1, 7))  # /dev/full
    j = tmp_path / "j.xml"
    r = run(["pmq", "-l", "300", "-i", "500", "-q", "--json", str(full), "--junit", str(j)])
    assert r.returncode == 1, r.stderr
    xml = junitparser.JUnitXml.fromfile(str(j))
    errors = [res for suite in xml for case in suite for res in case.result
              if isinstance(res, junitparser.Error)]
    assert len(errors) == 1
    assert "ended with an error" in errors[0].message
    assert errors[0].text == errors[0].message
    # the same without junitparser: the element's own text
    (el,) = ET.parse(j).getroot().iter("error")
    assert el.text and "ended with an error" in el.text
