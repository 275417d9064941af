# SPDX-License-Identifier: GPL-2.0-or-later
"""rtlat-report reads rtlat hwlat and rtlat osnoise results (issue 45):
the committed fixtures tests/fixtures/report/hw/ (rtlat hwlat and rtlat
osnoise against the stand-in tracers of tests/test_hwlat.py and
tests/test_osnoise.py, recorded by make-hw-fixtures) and qualify-hw/
(rtlat qualify with its hwlat phase). Before, each file was refused
("no test result in it"): exit 2 alone, left out of a qualify page."""
import json
import re

import pytest
from scipy import stats

from conftest import FIXTURES, report
from rtlat_report.model import Hwlat, Osnoise
from rtlat_report.read.rtlat import load_input

HW = FIXTURES / "hw"
QHW = FIXTURES / "qualify-hw"
NUM = r"([\d.,]+(?:e[+-]?\d+)?)"


def page_of(tmp_path, *inputs):
    out = tmp_path / "page.md"
    r = report(*inputs, "--format", "md", "-o", out, here=True)
    assert r.returncode == 0, r.stderr
    return out.read_text()


def section(text, title):
    part = text.split(f"\n## {title}", 1)[1]
    return part.split("\n## ", 1)[0]


def number(s):
    return float(s.replace(",", ""))


def test_hwlat_and_osnoise_are_read_into_the_typed_model():
    run = load_input(str(HW), "hw")
    (hw,) = run.hwlat
    (on,) = run.osnoise
    assert isinstance(hw, Hwlat) and isinstance(on, Osnoise)
    data = json.loads((HW / "hwlat.json").read_text())
    assert [(e.seq, e.cpu, e.inner_us, e.outer_us, e.nmi_count, e.nmi_total_us)
            for e in hw.events] == [
        (e["seq"], e["cpu"], e["inner_us"], e["outer_us"], e["nmi_count"],
         e["nmi_total_us"]) for e in data["events"]]
    assert [(e.cpu, e.inner_us, e.outer_us) for e in hw.events] == \
        [(1, 11, 12), (0, 25, 3), (1, 9, 15)]
    assert hw.threshold_us == 10 and hw.covered_s == data["summary"]["covered_s"]
    assert hw.smi == {0: (5, 5), 1: (9, 9)}
    c0 = next(c for c in on.cpus if c.cpu == 0)
    assert (c0.periods, c0.noise_us, c0.max_single_us) == (2, 500, 44)
    assert c0.noise_share == pytest.approx(500 / 2000000)
    assert c0.counts == {"hw": 20, "nmi": 1, "irq": 2010, "softirq": 38, "thread": 4}
    assert run.tests == {}     # no latency series: not a test's section


def test_hwlat_page_shows_each_event_and_the_rate_per_hour(tmp_path):
    """Each event with its inner/outer gap and NMIs; per CPU the count and
    the rate per hour with the exact Poisson interval (the report's spike
    rates'), checked against chi-square quantiles here."""
    text = section(page_of(tmp_path, HW / "hwlat.json"), "Hardware")
    assert "UNREADABLE" not in text
    rows = re.findall(r"^\| (\d+) \| CPU(\d) \| (\d+) \| (\d+) \| (\d+) \| ([\d–]+) \|",
                      text, re.M)
    assert rows == [("1", "1", "11", "12", "0", "–"), ("2", "0", "25", "3", "1", "7"),
                    ("3", "1", "9", "15", "0", "–")]
    hours = json.loads((HW / "hwlat.json").read_text())["summary"]["covered_s"] / 3600
    for cpu, k in ((0, 1), (1, 2)):
        m = re.search(rf"^\| CPU{cpu} \| {k} \| \d+ \| \d+ \| \d+ \| {NUM} \({NUM}–{NUM}\) \|$",
                      text, re.M)
        assert m, text
        lo = stats.chi2.ppf(0.025, 2 * k) / 2 / hours
        hi = stats.chi2.ppf(0.975, 2 * k + 2) / 2 / hours
        got = [number(x) for x in m.groups()]
        assert got == pytest.approx([k / hours, lo, hi], rel=5e-3)
    assert "SMI: CPU0 5 → 5, CPU1 9 → 9" in text


def test_osnoise_page_shows_each_cpus_noise(tmp_path):
    text = section(page_of(tmp_path, HW / "osnoise.json"), "Hardware")
    rows = re.findall(r"^\| CPU(\d) \| (\d+) \| ([\d,]+) \| (\d+) \| ([\d.]+) % \| (\d+) \| "
                      r"(\d+) \| (\d+) \| (\d+) \| ([\d,]+) \| (\d+) \| (\d+) \|$", text, re.M)
    assert rows == [("0", "2", "2,000,000", "500", "0.025", "310", "44", "20", "1",
                     "2,010", "38", "4"),
                    ("1", "1", "1,000,000", "10", "0.001", "10", "4", "0", "0",
                     "1,001", "2", "0")]


def test_qualify_page_shows_the_hwlat_phase_and_smi_per_phase(tmp_path):
    """rtlat qualify's page: the hwlat phase's hardware events per CPU in
    the qualification section (it said "not run: done" and the page
    warned hwlat.json UNREADABLE), and each phase's SMI count per CPU."""
    text = page_of(tmp_path, QHW)
    assert "UNREADABLE" not in text
    q = section(text, "Qualification")
    assert "not run" not in q
    assert re.search(r"^\| hwlat \| CPU0 \| 1 event, largest gap 25 µs \(inner\), 1 NMI",
                     q, re.M), q
    assert re.search(r"^\| hwlat \| CPU1 \| 2 events, largest gap 15 µs \(outer\), 0 NMIs",
                     q, re.M), q
    for ph in ("idle", "load"):
        for cpu in (0, 1):
            assert re.search(rf"^\| {ph} \| CPU{cpu} \|.* \| 0 \|$", q, re.M), (ph, cpu, q)


def test_an_hwlat_run_that_failed_says_why_not_zero_events(tmp_path):
    """An hwlat run whose tracer could not be set up (exit 1, "error",
    nothing covered): the page says so, not "0 events in 0 s" and an
    empty table. The file: the fixture as such a run writes it."""
    data = json.loads((HW / "hwlat.json").read_text())
    data.update(return_code=1, error="the hwlat tracer could not be set up",
                events=[])
    data["summary"].update(events=0, kept=0, max_us=0, covered_s=0, per_hour=None)
    f = tmp_path / "hwlat.json"
    f.write_text(json.dumps(data))
    text = section(page_of(tmp_path, f), "Hardware")
    assert "hwlat.json: ended with an error: the hwlat tracer could not be set up" in text
    assert "0 events" not in text and "| CPU |" not in text
