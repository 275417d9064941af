# SPDX-License-Identifier: GPL-2.0-or-later
"""rtlat itself: --version, the registry's list of tests and compatible
names, and make install-compat built from it."""
import os
import json
import re
import subprocess

from conftest import ROOT, run

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
FAMILY = {"pmq": "pair", "sigwait": "pair", "svsem": "pair", "ptsem": "pair",
          "timer": "timer", "request": "request", "bintime": "determinism",
          "response": "determinism", "sync": "determinism", "doctor": "doctor",
          "cyclictest": "timer"}
SERIES = {"request": ["response", "total_jitter"], "bintime": ["gap"],
          "response": ["time"], "sync": ["cost", "handoff", "blocking"],
          "doctor": []}
EXPLAIN = {"pmq", "sigwait", "svsem", "ptsem", "timer", "request", "bintime",
           "cyclictest"}
NOT_IN_SUITE = {"doctor", "cyclictest"}


def test_list_is_the_registry():
    r = run(["--list"])
    assert r.returncode == 0 and r.stderr == ""
    reg = json.loads(r.stdout)
    assert reg["registry_version"] == 1
    tests = reg["tests"]
    assert [t["name"] for t in tests] == TESTS
    assert [t["compat"] for t in tests if t["compat"]] == COMPAT
    for i, t in enumerate(tests):
        assert t["family"] == FAMILY[t["name"]]
        assert t["series"] == SERIES.get(t["name"], ["latency"])
        assert t["explain"] == (t["name"] in EXPLAIN)
        assert t["suite_order"] == (None if t["name"] in NOT_IN_SUITE else i)
        assert t["title"] in run(["--help"]).stdout


def test_help_and_list_compat_come_from_the_registry():
    r = run(["--list-compat"])
    assert r.returncode == 0 and r.stdout.split() == COMPAT
    top = run(["--help"]).stdout
    with_compat = [t for t in TESTS if t not in ("bintime", "response", "sync", "doctor")]
    for t, c in zip(with_compat, COMPAT):
        assert re.search(rf"^  {t} +\S.*\(as {c}\)$", top, re.M), t
    assert re.search(r"^  suite ", top, re.M)
    bad = run(["nosuch"])
    assert bad.returncode == 2
    assert bad.stderr == ("rtlat: unknown subcommand 'nosuch'; accepted: "
                          + ", ".join(TESTS) + ", suite\n")


def test_install_compat_links_every_compatible_name(tmp_path):
    r = subprocess.run(["make", "-s", "-C", str(ROOT), "install-compat",
                        f"DESTDIR={tmp_path}", "PREFIX=/usr"],
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    bindir = tmp_path / "usr" / "bin"
    links = sorted(p.name for p in bindir.iterdir() if p.is_symlink())
    assert links == sorted(COMPAT)
    assert all(os.readlink(bindir / n) == "rtlat" for n in links)
