# SPDX-License-Identifier: GPL-2.0-or-later
"""-q on every subcommand that prints progress or per-round lines (issue
20): declared in each option table, so --help shows it, and it silences
exactly those lines."""
import re

from conftest import run

# The subcommands that print neither progress nor per-round lines: their
# whole output is the result (the oracle the registry is checked against).
NO_PROGRESS = {"sync", "doctor"}


def subcommands():
    out = run(["--help"]).stdout
    return [m.group(1) for m in re.finditer(r"^  ([a-z]+) {2,}", out, re.M)]


def test_every_subcommand_with_progress_takes_q():
    names = subcommands()
    assert NO_PROGRESS < set(names) and len(names) >= 10
    for name in names:
        usage = run([name, "--help"]).stdout
        has_q = re.search(r"^  -q(, --quiet)? ", usage, re.M) is not None
        assert has_q == (name not in NO_PROGRESS), name


def test_request_quiet_prints_the_summary_table_only(leakcheck, tmp_path):
    log = tmp_path / "r.csv"
    r = run(["request", "-q", "-i", "2", "--samples", "100", "-l", str(log)])
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    assert lines[0] == "Summary"
    assert re.fullmatch(r" +Total Jitter \(MicroSec\) +Response Time \(MicroSec\)", lines[1])
    assert [l.split()[0] for l in lines[3:]] == ["0", "1"]
    assert not any(l.startswith(("===", "Layout")) for l in lines)
    assert r.stderr == ""
    assert log.read_text().count("\n") > 2     # -l still logs each round
    leakcheck()


def test_suite_quiet_has_no_running_lines(tmp_path, leakcheck):
    r = run(["suite", "-q", "--only", "svsem", "--duration", "1",
             "-o", str(tmp_path / "s")])
    assert r.returncode == 0, r.stderr
    assert "running" not in r.stderr
    assert r.stdout.splitlines()[0].startswith("test ")
    leakcheck()
