# SPDX-License-Identifier: GPL-2.0-or-later
"""rtlat-report for long runs (issue 33): the time line of each series,
a run that ended at a checkpoint said in words at the top with partial
verdicts, and --merge (one exact histogram and one time line from
consecutive runs; runs that differ refused in one line). Inputs are real
rtlat JSON given the long-run keys and known samples (longrun_gen), so
the merged figures are checked against one run over the same samples."""
import json
import math
import re
import shutil
import xml.etree.ElementTree as ET

import pytest

import longrun_gen as gen
from conftest import report_here
from test_report import PROBE, chromium, parse, svg_text, table

from rtlat_report.judge.unfinished import coverage
from rtlat_report.model import TimelineSeries
from rtlat_report.page import plots, timeline
from rtlat_report.read.longrun import name_series
from rtlat_report.read.rtlat import load_input
from rtlat_report.merge import merge_runs

GAP_S = 30.0


@pytest.fixture(scope="module")
def known(tmp_path_factory):
    """One sample list as one run and as two consecutive halves."""
    d = tmp_path_factory.mktemp("known")
    data = gen.samples(threads=2, steps=40, per_step=50, seed=7,
                       spikes=gen.SPIKES[:1] + ((1, 30, 3_100_000),))
    data[1][3] = []     # a step that measured nothing: nulls in its row
    whole, a, b = gen.halves(d, data, gap_s=GAP_S)
    return d, data, whole, a, b


@pytest.fixture(scope="module")
def examples(tmp_path_factory):
    return gen.examples(tmp_path_factory.mktemp("examples"))


def render(*args):
    r = report_here(*args)
    assert r.returncode == 0, r.stderr


@pytest.fixture(scope="module")
def known_pages(known):
    """The report of the whole run and of its two halves merged."""
    d, _, whole, a, b = known
    render(whole, "-o", d / "whole.html")
    render("--merge", a, b, "--labels", "night", "-o", d / "merged.html")
    return d / "whole.html", d / "merged.html"


@pytest.fixture(scope="module")
def day_stopped(examples):
    """A day's run with a time line beside one stopped at 23 h 15 min."""
    render(examples / "day.json", examples / "stopped.json", "-o",
           examples / "day-stopped.html")
    return examples / "day-stopped.html"


def test_merged_histogram_equals_one_run_over_the_same_samples(known):
    d, data, whole, a, b = known
    w = load_input(str(whole), "whole").tests["pmq"]
    m = merge_runs([load_input(str(b), "b"), load_input(str(a), "a")],
                   "merged").tests["pmq"]
    assert len(m.dists) == len(w.dists) == 2
    for j, (dw, dm) in enumerate(zip(w.dists, m.dists)):
        flat = sorted(v for st in data[j] for v in st)
        assert dm.samples == dw.samples == len(flat)
        assert (dm.min_ns, dm.max_ns) == (dw.min_ns, dw.max_ns) == \
            (flat[0], flat[-1])
        assert dm.bins == dw.bins and dm.overflow == dw.overflow
        assert dm.overflow == sum(v >= gen.BUCKET * gen.BUCKETS for v in flat)
        assert math.isclose(dm.avg_ns, sum(flat) / len(flat), rel_tol=1e-12)
        assert math.isclose(dm.stddev_ns, dw.stddev_ns, rel_tol=1e-9)
        for p in ("p50", "p90", "p99", "p99.9"):
            # The whole run's percentile is what its file says; the merged
            # one comes from the summed histogram: the same bucket bound.
            assert dm.percentile(p) == dw.percentile(p), p
            exact = gen.rank_value(flat, float(p[1:]))
            assert exact <= dm.percentile(p) < exact + gen.BUCKET or \
                dm.percentile(p) == flat[-1]
    # One time line: the halves' steps end to end, the second after the
    # gap between the runs, which is shown as one.
    tl = m.timeline
    assert tl.runs == 2 and len(tl.gaps) == 1
    half = 20 * 60.0
    assert tl.gaps[0] == pytest.approx((half, half + GAP_S))
    for sw, sm in zip(w.timeline.series, tl.series):
        assert [r[2:] for r in sm.rows] == [r[2:] for r in sw.rows]
        assert [r[0] for r in sm.rows] == \
            [r[0] + (GAP_S if r[0] >= half else 0) for r in sw.rows]
    top = {s.thread: [r[0] for r in s.rows] for s in m.largest.series}
    assert top == {s.thread: [r[0] for r in s.rows]
                   for s in w.largest.series}
    assert m.complete is True and "merged from 2 runs" in m.notes[0]


def test_merged_page_shows_one_run_with_the_whole_runs_figures(known_pages):
    tw, _ = parse(known_pages[0])
    tm, figs = parse(known_pages[1])
    rows_w = table(tw, "pmq: percentiles")[1:]
    rows_m = table(tm, "pmq: percentiles")[1:]
    assert [r[0] for r in rows_m] == ["night"] * 3
    # Every figure but the deviation (pooled: the last digit may differ).
    drop = 5
    assert [r[1:drop] + r[drop + 1:] for r in rows_m] == \
        [r[1:drop] + r[drop + 1:] for r in rows_w]
    assert "pmq-timeline" in figs
    assert "not measured (between runs)" in svg_text(figs["pmq-timeline"])
    text = "".join(tm.itertext())
    assert "1 gap between the 2 merged runs, 30 s in all" in text


@pytest.mark.parametrize("change, words", [
    ({"interval_us": 100}, "setting interval_us: 1000 vs 100"),
    ({"priority": 80}, "setting priority: 99 vs 80"),
])
def test_merge_refuses_runs_that_differ_naming_the_difference(
        tmp_path, change, words):
    data = gen.samples(threads=1, steps=4, per_step=5)
    a = gen.write(tmp_path / "a.json", gen.result(data))
    b = gen.write(tmp_path / "b.json", gen.result(
        data, start=gen.START + gen.timedelta(hours=1), settings=change))
    out = tmp_path / "r.html"
    r = report_here("--merge", a, b, "-o", out)
    rc, err = r.returncode, r.stderr
    assert rc == 2 and not out.exists()
    assert len(err.strip().splitlines()) == 1, err
    assert words in err and "b.json" in err and "a.json" in err


def test_merge_with_a_run_stopped_at_a_checkpoint_is_partial(tmp_path):
    data = gen.samples(threads=2, steps=6, per_step=5)
    a = gen.write(tmp_path / "a.json", gen.result(data, step_s=600.0))
    b = gen.write(tmp_path / "b.json", gen.result(
        [th[:4] for th in data], start=gen.START + gen.timedelta(hours=1),
        step_s=600.0, complete=False, covered_s=2400.0, planned_s=3600.0))
    m = merge_runs([load_input(str(a), "a"), load_input(str(b), "b")],
                   "m").tests["pmq"]
    assert m.complete is False
    assert coverage(m) == (
        "covers 1 h 40 min of 2 h; a run of the merged set stopped by "
        "SIGKILL or a crash after the last checkpoint")
    assert [s.label for s in m.timeline.series] == ["CPU0", "CPU1"]
    assert m.timeline.gaps == []        # back to back: no gap
    assert len(m.timeline.series[0].rows) == 10
    # Two series on one CPU are told apart by their thread.
    two = name_series([TimelineSeries("pmq", "receiver", i, 0,
                                      None) for i in (0, 1)])
    assert [s.label for s in two] == ["thread 0 (CPU0)", "thread 1 (CPU0)"]


def test_merge_refuses_overlapping_runs_and_two_labels(tmp_path):
    data = gen.samples(threads=1, steps=4, per_step=5)
    a = gen.write(tmp_path / "a.json", gen.result(data))
    b = gen.write(tmp_path / "b.json", gen.result(
        data, start=gen.START + gen.timedelta(seconds=60)))
    r = report_here("--merge", a, b, "-o", tmp_path / "r.html")
    assert r.returncode == 2 and "overlap" in r.stderr and \
        len(r.stderr.splitlines()) == 1
    r = report_here("--merge", a, b, "--labels", "x,y")
    assert r.returncode == 2 and "one name" in r.stderr


def test_merge_of_suite_directories_keeps_each_test(known, tmp_path):
    """Suite results directories: each test merged with its own; one
    present in only some is kept and said so."""
    _, _, _, a, b = known
    for n, f in (("1", a), ("2", b)):
        (tmp_path / n).mkdir()
        shutil.copy(f, tmp_path / n / "pmq.json")
    shutil.copy(gen.ROOT / "tests/fixtures/report/suite-a/ptsem.json",
                tmp_path / "1" / "ptsem.json")
    m = merge_runs([load_input(str(tmp_path / n), n) for n in "12"], "m")
    assert sorted(m.tests) == ["pmq", "ptsem"]
    assert m.notes == ["ptsem: in 1 of the 2 merged inputs"]
    assert m.tests["pmq"].notes[0].startswith("merged from 2 runs")
    assert m.tests["pmq"].timeline.runs == 2
    assert m.tests["ptsem"].dists[0].samples == \
        load_input(str(tmp_path / "1"), "1").tests["ptsem"].dists[0].samples


def test_run_ended_at_a_checkpoint_is_said_at_the_top(day_stopped):
    tree, figs = parse(day_stopped)
    over = next(s for s in tree.iter("section") if s.get("id") == "overview")
    # The verdict first (ENDED EARLY, why), then the box of partial runs.
    first, second = list(over.iter("div"))[:2]
    assert first.get("id") == "alert-verdict"
    assert second.get("id") == "alert-incomplete"
    for box in (first, second):
        words = "".join(box.itertext())
        assert "stopped / pmq: covers 23 h 15 min of 24 h; stopped by " \
            "SIGKILL or a crash after the last checkpoint" in words
    assert "Verdict: ENDED EARLY" in "".join(first.itertext())
    verdicts = table(tree, "Verdicts")
    assert "stopped / day (partial: ended at a checkpoint)" in verdicts[1][1]
    assert "23 h 15 min of 24 h" in svg_text(figs["pmq-timeline-1"])
    rows = table(tree, "pmq: time line per series")
    assert all(r[-1].endswith("(partial: ended at a checkpoint)")
               for r in rows[1:] if r[0] == "stopped")


def test_time_line_marks_spikes_and_draws_the_threshold(examples,
                                                        day_stopped):
    tree, figs = parse(day_stopped)
    txt = svg_text(figs["pmq-timeline-0"])
    assert "threshold 100 µs" in txt and "hours since 2026-11-20" in txt
    for label in ("CPU0 140 µs", "CPU2 260 µs", "CPU1 2500 µs"):
        assert label in txt
    assert len(re.findall(r"CPU\d max", txt)) == 4
    rows = {r[1]: r for r in table(tree, "pmq: time line per series")[1:]
            if r[0] == "day"}
    assert rows["CPU1"][-1] == "1 step, 1 sample"
    assert rows["CPU3"][-1] == "0 steps, 0 samples"
    # 64 series: their envelope, each spike named, not 64 legend lines
    # (the figure alone: a page of 64 histograms takes seconds).
    t = load_input(str(examples / "cpus64.json"), "x").tests["pmq"]
    fig = timeline.plot("pmq: time line", t.timeline, t)
    svg = ET.fromstring(plots.to_svg(fig))
    plots.close(fig)
    txt = svg_text(svg)
    assert "band of the 64 series' max" in txt and "CPU40 400 µs" in txt
    assert not re.search(r"CPU\d+ max", txt)


def test_long_run_pages_render_in_chromium(known_pages, day_stopped,
                                           tmp_path):
    """A time line, a merged set and a run ended at a checkpoint: their
    pages render in headless Chromium, every figure loaded and drawn (the
    pages' bodies in one document: one browser start, not several)."""
    bodies, head = [], None
    for page in (known_pages[1], day_stopped):
        text = page.read_text()
        head = head or text[:text.index("<body>") + len("<body>")]
        bodies.append(text[text.index("<body>") + len("<body>"):
                           text.index("</body>")])
    probe = tmp_path / "probe.html"
    probe.write_text(head + "".join(bodies) + PROBE + "</body></html>")
    dom = chromium(tmp_path, "--dump-dom", probe.as_uri())
    m = re.search(r'<pre id="rtlat-probe">(.*?)</pre>', dom.stdout)
    assert m, dom.stderr[-2000:]
    got = json.loads(m.group(1).replace("&quot;", '"'))
    assert got["images"] == sum(b.count("<figure") for b in bodies) >= 7
    assert got["broken"] == [] and got["empty_svgs"] == 0, got
    assert 'id="fig-pmq-timeline"' in bodies[0]
    assert 'id="alert-incomplete"' in bodies[1]
