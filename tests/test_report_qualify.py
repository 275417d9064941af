# SPDX-License-Identifier: GPL-2.0-or-later
"""rtlat-report on rtlat qualify's results directory (the committed
fixture tests/fixtures/report/qualify, recorded by make-fixtures): the
verdict comes first, then per phase and CPU the figures and the load's
own throughput (stress-ng's bogo-ops)."""
import json
import re
import subprocess
import sys
from types import SimpleNamespace

import pytest

from conftest import FIXTURES, report
from rtlat_report.page import qualify
from rtlat_report.tail.fit import Level

QUALIFY = FIXTURES / "qualify"
VERDICT = re.compile(r"^(fit|not fit|cannot tell) for 100 µs: ")


@pytest.fixture(scope="module")
def page(tmp_path_factory):
    """The fixture's page in markdown (rendered once: the tail analysis
    takes seconds on a loaded machine)."""
    out = tmp_path_factory.mktemp("qualify") / "page.md"
    r = report(QUALIFY, "--format", "md", "-o", out, here=True)
    assert r.returncode == 0, r.stderr
    return out.read_text()


def test_the_verdict_line_comes_first(page):
    """The page's first section after its title is the qualification's,
    headed by the verdict against --max-latency 100 (the fixture's), and
    its first block says the same line as the verdict."""
    text = page
    sections = re.findall(r"^## (.*)$", text, re.M)
    assert sections[0].startswith("Qualification: "), sections
    line = sections[0].removeprefix("Qualification: ")
    assert VERDICT.match(line), line
    body = text.split("\n## ", 2)[1]
    first = next(x for x in body.splitlines()[1:] if x.strip())
    assert first == f"> **verdict: {line}**"
    # The fixture's run went over 100 µs (its index says fail): not fit,
    # naming where.
    index = json.loads((QUALIFY / "index.json").read_text())
    assert index["fleet"]["verdict"] == "fail"
    assert re.match(r"not fit for 100 µs: (idle|load) phase, CPU\d reached [\d.]+ µs$",
                    line), line


def test_per_phase_and_cpu_and_the_load_shown(page):
    text = page
    rows = re.findall(r"^\| (idle|load) \| CPU(\d) \|", text, re.M)
    assert sorted(rows) == [("idle", "0"), ("idle", "1"), ("load", "0"), ("load", "1")]
    assert "| hwlat |" in text and "not run: this rtlat has no hwlat test" in text
    assert re.search(r"^\*\*The load beside the load phase: stress-ng [\d.]+ "
                     r"\(exit status 0\)", text, re.M)
    for stressor in ("cpu", "vm", "io", "sock", "udp"):
        assert re.search(rf"^\| {stressor} \| \d+ \| [\d.]+ \|$", text, re.M), stressor


def series(cpu, max_us, day):
    """A phase's series as the tail analysis gives it: its CPU, largest
    sample and once-a-day level (estimate, interval) in µs, or None: no
    estimate."""
    lv = Level("day", 1e-9, *(x * 1000 for x in day)) if day else \
        Level("day", 1e-9, no_claim="too few samples over the threshold")
    return SimpleNamespace(test="timer (timer-load.json)", levels=[lv],
                           td=SimpleNamespace(name=f"CPU{cpu}", max_ns=max_us * 1000))


RUN = SimpleNamespace(doctor=[], tests={}, suite=SimpleNamespace(tests=[]))


@pytest.mark.parametrize("limit,measured,level,line", [
    (100, [series(0, 40, (62, 48, 91)), series(1, 30, (20, 15, 30))], "pass",
     "fit for 100 µs: the level exceeded once a day is 62 µs [48–91]"),
    (100, [series(0, 140, (62, 48, 91))], "fail", "not fit for 100 µs:"),
    (80, [series(0, 40, (62, 48, 91))], "", "cannot tell for 80 µs: the level "
     "exceeded once a day is 62 µs [48–91], whose interval reaches above 80 µs"),
    (50, [series(0, 40, (62, 48, 91))], "fail", "not fit for 50 µs: the level"),
    (100, [series(0, 40, (62, 48, 91)), series(1, 30, None)], "",
     "cannot tell for 100 µs:"),
    (None, [series(0, 40, (62, 48, 91))], "",
     "the level exceeded once a day is 62 µs [48–91]"),
    (100, [], "fail", "nothing was measured"),
])
def test_the_verdict_on_known_levels(limit, measured, level, line):
    """The verdict of known once-a-day levels and maxima: fit only when the
    whole interval is under the limit and no sample over it; cannot tell
    when the interval straddles it or a CPU has no estimate."""
    got_level, got, _ = qualify.verdict(RUN, measured, limit)
    assert (got_level, got[:len(line)]) == (level, line), got
    if limit is None:
        assert got.endswith("(no --max-latency: no verdict)")


def test_a_page_of_no_qualify_run_does_not_import_scipy(tmp_path):
    """The qualification's section needs SciPy (the tail fit); a page of
    anything else does not pay for its import (seconds on a loaded
    machine: a suite's --report timed out at 120 s with it)."""
    code = ("import sys\nfrom rtlat_report.cli.main import main\n"
            f"rc = main([{str(FIXTURES / 'checks' / 'timer.json')!r}, '--format', 'md', "
            f"'-o', {str(tmp_path / 'p.md')!r}])\n"
            "print(rc, 'scipy' in sys.modules)\n")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True,
                       text=True, timeout=300)
    assert r.stdout.split()[-2:] == ["0", "False"], r.stdout + r.stderr


def test_the_overview_carries_the_qualify_verdict(page):
    """The Overview's verdict box says what the qualification said (its
    threshold and outcome), not "nothing judged (no threshold set)" under
    a "not fit for 100 µs" (the two contradicted each other)."""
    line = re.findall(r"^## Qualification: (.*)$", page, re.M)[0]
    overview = page.split("\n## Overview\n", 1)[1].split("\n## ", 1)[0]
    head = re.search(r"^> \*\*Verdict: (.*)\*\*$", overview, re.M).group(1)
    assert "nothing judged" not in head, head
    assert head.startswith("FAIL (1 of 1 qualification failed"), head
    assert f"> - FAIL: qualification for 100 µs: {line}" in overview
