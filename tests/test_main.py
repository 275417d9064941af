# SPDX-License-Identifier: GPL-2.0-or-later
"""rtlat itself: --version, the registry's list of tests and compatible
names, and make install-compat built from it."""
import os
import json
import re
import subprocess

import pytest

from conftest import ROOT, registry_names, run

TESTS = ["pmq", "sigwait", "svsem", "ptsem", "timer", "request", "bintime",
         "response", "sync", "doctor", "cyclictest"]
COMPAT = ["pmqtest", "sigwaittest", "svsematest", "ptsematest", "latency", "trltp",
          "cyclictest"]


def test_version():
    r = run(["--version"])
    assert r.returncode == 0 and r.stderr == ""
    assert re.fullmatch(r"rtlat \d+\.\d+\.\d+\n", r.stdout)


# The one literal list of the tests and what they are: the oracle that
# checks the registry (rtlat --list), which every other test file reads.
# Each is there, in this order, as described: a test that vanishes or
# changes fails here. A new row (one folder and its row, anywhere in the
# registry) needs no line here: every other list reads it from --list.
FAMILY = {"pmq": "pair", "sigwait": "pair", "svsem": "pair", "ptsem": "pair",
          "timer": "timer", "request": "request", "bintime": "determinism",
          "response": "determinism", "sync": "determinism", "doctor": "doctor",
          "cyclictest": "timer"}
SERIES = {"request": ["response", "total_jitter"], "bintime": ["gap"],
          "response": ["time"], "sync": ["cost", "handoff", "blocking"],
          "doctor": []}
EXPLAIN = {"pmq", "sigwait", "svsem", "ptsem", "timer", "request", "bintime",
           "cyclictest"}
NOT_IN_SUITE = {"doctor", "cyclictest", "deadline", "cyclicdeadline", "hwlat",
                "osnoise"}


def test_list_is_the_registry():
    r = run(["--list"])
    assert r.returncode == 0 and r.stderr == ""
    reg = json.loads(r.stdout)
    assert reg["registry_version"] == 1
    tests = reg["tests"]
    names = [t["name"] for t in tests]
    assert len(set(names)) == len(names)
    assert [n for n in names if n in TESTS] == TESTS
    known = [t for t in tests if t["name"] in TESTS]
    assert [t["compat"] for t in known if t["compat"]] == COMPAT
    assert [t["name"] for t in known if not t["compat"]] == \
        ["bintime", "response", "sync", "doctor"]
    for t in known:
        assert t["family"] == FAMILY[t["name"]]
        assert t["series"] == SERIES.get(t["name"], ["latency"])
        assert t["explain"] == (t["name"] in EXPLAIN)
        assert (t["suite_order"] is None) == (t["name"] in NOT_IN_SUITE)
    # The suite's order is the registry's, of the rows it runs.
    order = [t["suite_order"] for t in tests if t["suite_order"] is not None]
    assert order == list(range(len(order)))
    top = run(["--help"]).stdout
    for t in tests:
        assert t["title"] in top


def test_help_and_list_compat_come_from_the_registry():
    tests = json.loads(run(["--list"]).stdout)["tests"]
    r = run(["--list-compat"])
    assert r.returncode == 0
    assert r.stdout.split() == [t["compat"] for t in tests if t["compat"]]
    assert [c for c in r.stdout.split() if c in COMPAT] == COMPAT
    top = run(["--help"]).stdout
    for t in tests:
        if t["compat"]:
            assert re.search(rf"^  {t['name']} +\S.*\(as {t['compat']}\)$", top, re.M), t
    for t in TESTS:
        assert re.search(rf"^  {t} +\S", top, re.M), t
    assert re.search(r"^  suite ", top, re.M)
    bad = run(["nosuch"])
    assert bad.returncode == 2
    assert bad.stderr == ("rtlat: unknown subcommand 'nosuch'; accepted: "
                          + ", ".join(t["name"] for t in tests) + ", suite, qualify\n")


def test_install_compat_links_every_compatible_name(tmp_path):
    r = subprocess.run(["make", "-s", "-C", str(ROOT), "install-compat",
                        f"DESTDIR={tmp_path}", "PREFIX=/usr"],
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    bindir = tmp_path / "usr" / "bin"
    links = sorted(p.name for p in bindir.iterdir() if p.is_symlink())
    assert links == sorted(run(["--list-compat"]).stdout.split())
    assert set(COMPAT) <= set(links)
    assert all(os.readlink(bindir / n) == "rtlat" for n in links)


def test_list_carries_what_the_checks_restated():
    """Each row carries the suite's arguments (at its defaults, where the
    suite runs the test) and the checks' short run: arguments and a line
    of the output, what cross-check and the autopkgtest listed by hand."""
    for t in json.loads(run(["--list"]).stdout)["tests"]:
        in_suite = t["name"] not in NOT_IN_SUITE
        assert (t["suite_args"] is not None) == in_suite, t["name"]
        if in_suite:
            assert re.fullmatch(r"\S+( \S+)*", t["suite_args"]), t
        assert isinstance(t["check_args"], str), t["name"]
        assert t["check_line"] and re.compile(t["check_line"]), t["name"]
        # what sets its length, for scripts that run any test for a time
        if t["length_option"] is not None:
            help_line, = [ln for ln in run([t["name"], "--help"]).stdout.splitlines()
                          if re.match(rf"\s+{t['length_option']}[ ,]", ln)]
            assert "N[s|m|h|d]" in help_line, (t["name"], help_line)
    doctor, = [t for t in json.loads(run(["--list"]).stdout)["tests"]
               if t["name"] == "doctor"]
    assert doctor["check_args"] == ""


def test_list_plain_is_the_registry_for_shell_scripts():
    """rtlat --list-plain: a test a line, "NAME FAMILY ORDER LENGTH
    ARGS...", the same rows as --list ("-": not in the suite, no option
    sets its length)."""
    r = run(["--list-plain"])
    assert r.returncode == 0 and r.stderr == ""
    tests = json.loads(run(["--list"]).stdout)["tests"]
    lines = r.stdout.splitlines()
    assert [ln.split()[0] for ln in lines] == [t["name"] for t in tests]
    for ln, t in zip(lines, tests):
        order = "-" if t["suite_order"] is None else str(t["suite_order"])
        length = t["length_option"] or "-"
        assert ln == " ".join(w for w in (t["name"], t["family"], order, length,
                                          t["check_args"]) if w)
    assert "--list-plain" in run(["--help"]).stdout
    assert "--list-plain" in run(["--man", "rtlat"]).stdout.replace("\\-", "-")


@pytest.mark.parametrize("name", registry_names())
def test_every_test_runs_its_check(name, tmp_path, leakcheck):
    """The checks' short run of every test in the registry (as make
    cross-check and the autopkgtest run it): exit 0, the line its row
    names, its JSON written, nothing left behind."""
    t, = [t for t in json.loads(run(["--list"]).stdout)["tests"]
          if t["name"] == name]
    js = tmp_path / f"{name}.json"
    r = run([name] + t["check_args"].split() + ["--json", str(js)],
            cwd=tmp_path, timeout=120)
    assert r.returncode == 0, r.stderr
    assert re.search(t["check_line"], r.stdout, re.M), r.stdout[-800:]
    d = json.loads(js.read_text())
    assert d["file_version"] == 1 and d["return_code"] == 0
    leakcheck()
