# SPDX-License-Identifier: GPL-2.0-or-later
"""rtlat suite: every test with short defaults, one table, one JSON and
one text file per test in the results directory."""
import json
import re
import signal

from conftest import registry, registry_names, run, stop, tracefs_unavailable, watching

HEADER = re.compile(r"^test +series +samples +min +avg +p99 +p99\.99 +max$")
ROW = re.compile(r"^(?P<test>\S+) +(?P<series>\S+) +(?P<n>\d+)"
                 r"(?: +-?\d+\.\d{2}){5}$")
# The tests the suite runs, in its order, and what each reports (the
# registry: rtlat --list; tests/test_main.py checks it against its list).
SUITE = registry_names(suite=True)
EXPECTED = {(t["name"], s) for t in registry() if t["name"] in SUITE
            for s in t["series"]}
EXPLAIN = {t["name"] for t in registry() if t["explain"]}


def table(out):
    lines = out.splitlines()
    i = next(k for k, line in enumerate(lines) if HEADER.match(line))
    rows = []
    for line in lines[i + 1:]:
        m = ROW.match(line)
        if not m:
            break
        rows.append(m)
    return rows, lines


def test_suite_runs_every_test(suite_run):
    r, out_dir, left = suite_run
    assert r.returncode == 0, r.stderr
    rows, lines = table(r.stdout)
    assert {(m["test"], m["series"]) for m in rows} == EXPECTED
    # A series may measure nothing in a short run on a loaded machine
    # (sync's inversion rounds in 1 s): then its JSON says so, skipped,
    # never a figure; every test measured something.
    for m in rows:
        if int(m["n"]) == 0:
            d = json.loads((out_dir / f"{m['test']}.json").read_text())
            rec = [s for s in d["fleet"]["series"] if s["series"] == m["series"]]
            assert rec and rec[0]["samples"] == 0 and rec[0]["result"] == "skip", m
    for t in SUITE:
        assert any(int(m["n"]) > 0 for m in rows if m["test"] == t), t
    assert lines[-1] == f"results: {out_dir}"
    assert len(SUITE) >= 9
    for t in SUITE:
        d = json.loads((out_dir / f"{t}.json").read_text())
        assert d["file_version"] == 1 and d["return_code"] == 0
        assert (out_dir / f"{t}.txt").stat().st_size > 0
        # --explain reached the tests that take it, and only those (where
        # tracefs cannot be had, they say why).
        takes = t in EXPLAIN
        key = "explain" if tracefs_unavailable() is None else "explain_unavailable"
        assert (key in d) == takes, t
    assert not left, f"left behind: {left}"


def test_suite_subset_and_bad_input(tmp_path, leakcheck):
    # Two tests of two families (the timer, a pair test), named against
    # the suite's order: they run in its order.
    two = [registry_names("timer", suite=True)[0], registry_names("pair", suite=True)[-1]]
    r = run(["suite", "--only", ",".join(two), "--duration", "1",
             "-o", str(tmp_path / "s")], timeout=60)
    assert r.returncode == 0, r.stderr
    rows, _ = table(r.stdout)
    assert [m["test"] for m in rows] == sorted(two, key=SUITE.index)
    # A registry row the suite does not run (doctor: no measurement).
    idle = next(n for n in registry_names() if n not in SUITE)
    for args, pattern in ((["--duration", "0"], r"--duration.*'0'"),
                          (["--only", f"{SUITE[0]},timr"],
                           rf"--only: 'timr' is not a test; accepted: .*{SUITE[0]}"),
                          (["--only", ""], r"--only: '' is not a test"),
                          (["--only", f"{two[0]},{idle}"],
                           rf"--only: '{idle}' measures nothing .*; accepted: "
                           + re.escape(",".join(SUITE)) + "$"),
                          (["--bogus"], r"unknown option --bogus")):
        bad = run(["suite", "-o", str(tmp_path / "never")] + args)
        assert bad.returncode == 2, bad.stderr
        assert re.search(pattern, bad.stderr), bad.stderr
        assert len(bad.stderr.splitlines()) == 1
        assert not (tmp_path / "never").exists()
    leakcheck()


def test_suite_interrupted_prints_what_ran(tmp_path, leakcheck):
    with watching(["suite", "--duration", "3", "-o", str(tmp_path / "i")]) as p:
        # the first test done, the second measuring
        p.measuring(rf"^rtlat {SUITE[1]}: status .*: [1-9]\d* samples")
        rc, out, err = stop(p, signal.SIGINT, timeout=30)
    assert rc == 1
    rows, _ = table(out)
    tests = [m["test"] for m in rows]
    assert tests[:1] == SUITE[:1] and not set(tests) & set(SUITE[5:])
    json.loads((tmp_path / "i" / f"{SUITE[0]}.json").read_text())
    leakcheck()


def report_tool():
    import shutil
    import sys
    from pathlib import Path
    tool = Path(sys.executable).parent / "rtlat-report"
    return str(tool) if tool.exists() else shutil.which("rtlat-report")


def test_suite_report_writes_the_page_and_says_where(tmp_path, leakcheck):
    import os
    tool = report_tool()
    assert tool, "make check installs rtlat-report into the venv"
    out = tmp_path / "r"
    r = run(["suite", "--only", SUITE[0], "--duration", "1", "--report",
             "-o", str(out)], env={**os.environ, "RTLAT_REPORT": tool},
            timeout=120)
    assert r.returncode == 0, r.stderr
    assert r.stdout.splitlines()[-1] == f"report: {out}/report.html"
    page = (out / "report.html").read_text()
    assert "<html" in page.lower() and SUITE[0] in page
    leakcheck()


def test_suite_report_finds_the_tool_beside_rtlat(tmp_path, leakcheck):
    """An install outside the PATH (PREFIX/bin of its own): rtlat runs the
    rtlat-report next to its own executable."""
    import os
    import shutil
    import subprocess
    from conftest import RTLAT
    bindir = tmp_path / "bin"
    bindir.mkdir()
    shutil.copy2(RTLAT, bindir / "rtlat")
    tool = bindir / "rtlat-report"
    tool.write_text('#!/bin/sh\necho "<html>$1" > "$1/report.html"\n'
                    'echo "report: $1/report.html"\n')
    tool.chmod(0o755)
    env = {k: v for k, v in os.environ.items() if k != "RTLAT_REPORT"}
    env["PATH"] = "/usr/bin:/bin"
    out = tmp_path / "r"
    r = subprocess.run([str(bindir / "rtlat"), "suite", "--only", SUITE[0], "--duration", "1",
                        "--report", "-o", str(out)], env=env, capture_output=True,
                       text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    assert r.stdout.splitlines()[-1] == f"report: {out}/report.html"
    assert (out / "report.html").read_text() == f"<html>{out}\n"
    leakcheck()


def test_suite_report_without_the_tool_is_bad_input(tmp_path):
    import os
    env = {**os.environ, "RTLAT_REPORT": str(tmp_path / "missing")}
    r = run(["suite", "--only", SUITE[0], "--report", "-o", str(tmp_path / "r")],
            env=env)
    assert r.returncode == 2
    line, = r.stderr.strip().splitlines()
    assert "--report" in line and "accepted:" in line
    assert not (tmp_path / "r").exists()
