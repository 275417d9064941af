# SPDX-License-Identifier: GPL-2.0-or-later
"""rtlat-report on input it cannot read (issue 20): each broken file is
one line naming the file and the problem, exit 2 (or, beside readable
files, a page that marks it unreadable); never a traceback. The loader's
fuzz harness (fuzz/fuzz_report.py, make fuzz) runs here briefly too."""
import json
import math
import re
import sys

import pytest

from conftest import FIXTURES as FIX, ROOT, report


def a_result():
    """A real pair-test result (recorded), as a dict to break."""
    return json.loads((FIX / "suite-a" / "pmq.json").read_text())


def with_latency(change):
    d = a_result()
    change(d["thread"]["0"]["receiver"]["latency"])
    return json.dumps(d).encode()


BROKEN = {
    "truncated": (json.dumps(a_result()).encode()[:500],
                  r"unreadable: not JSON \(.+ at line 1 column \d+; truncated\?\)"),
    "not UTF-8": (b'\xff\xfe{"thread": {}}',
                  r"unreadable: not UTF-8 text \(invalid start byte at byte 0\)"),
    "huge histogram": (with_latency(lambda s: s["histogram"]["counts"].append(
        [10 ** 30, 1])), r"unreadable: thread\.0\.receiver\.latency\.histogram"
        r"\.counts\[\d+\]\[0\] = 1e\+30 is out of range"),
    "NaN latency": (with_latency(lambda s: s.update(max_ns=math.nan)),
                    r"unreadable: thread\.0\.receiver\.latency\.max_ns is "
        r"nan, not a number a measurement can have"),
    "negative samples": (with_latency(lambda s: s.update(samples=-3)),
                         r"unreadable: thread\.0\.receiver\.latency\.samples = "
                         r"-3: a count cannot be negative"),
    "negative histogram count": (with_latency(
        lambda s: s["histogram"]["counts"][0].__setitem__(1, -1)),
        r"unreadable: .*histogram\.counts\[0\] has a negative count \(-1\)"),
    "empty object": (b"{}", r"unreadable: no test result in it"),
    # Found by the loader's fuzz harness: a key's newline broke the line.
    "newline in a key": (b'{"\\n": 9.3e18}',
                         r'unreadable: "\\n" = 9\.3e\+18 is out of range'),
    "not an object": (b"[1, 2]", r"unreadable: not a result file"),
}


@pytest.mark.parametrize("case", list(BROKEN))
def test_a_broken_file_is_one_line_and_exit_2(tmp_path, case):
    raw, why = BROKEN[case]
    f = tmp_path / "pmq.json"
    f.write_bytes(raw)
    r = report(f, "-o", tmp_path / "r.html")
    assert r.returncode == 2, r.stderr
    assert r.stdout == "" and not (tmp_path / "r.html").exists()
    lines = r.stderr.splitlines()
    assert len(lines) == 1 and "Traceback" not in r.stderr, r.stderr
    assert re.fullmatch(rf"rtlat-report: {re.escape(str(f))}: {why}.*", lines[0]), \
        lines[0]


def test_a_directory_of_broken_files_names_the_first(tmp_path):
    d = tmp_path / "res"
    d.mkdir()
    (d / "pmq.json").write_bytes(BROKEN["truncated"][0])
    (d / "timer.json").write_bytes(b"{}")
    r = report(d)
    assert r.returncode == 2
    assert r.stderr.splitlines() == [
        f"rtlat-report: {d}: no readable result file: {d}/pmq.json: "
        + r.stderr.split(f"{d}/pmq.json: ", 1)[1].splitlines()[0]]
    assert r.stderr.rstrip().endswith("(and 1 more)")
    assert "not JSON" in r.stderr


def test_a_broken_file_beside_good_ones_is_marked_on_the_page(tmp_path):
    d = tmp_path / "res"
    d.mkdir()
    for f in ("pmq.json", "svsem.json"):
        (d / f).write_bytes((FIX / "suite-a" / f).read_bytes())
    (d / "svsem.json").write_bytes(BROKEN["NaN latency"][0])
    r = report(d, "--format", "md", "-o", "-")
    assert r.returncode == 0, r.stderr
    warn = [l for l in r.stdout.splitlines() if "UNREADABLE" in l]
    assert len(warn) == 1 and f"{d}/svsem.json: unreadable:" in warn[0]
    assert "| pmq |" in r.stdout and "| svsem |" not in r.stdout


def test_the_loader_fuzz_harness_finds_nothing():
    """fuzz/fuzz_report.py's three properties, one batch each (the third,
    the other tools' texts with numbers changed, found tracebacks: issue
    44 item 18)."""
    sys.path.insert(0, str(ROOT / "fuzz"))
    import fuzz_report
    fuzz_report.structured()
    fuzz_report.raw()
    fuzz_report.foreign()
