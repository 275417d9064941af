# SPDX-License-Identifier: GPL-2.0-or-later
"""rtlat-report: the HTML page of a suite run and of other recorded
results (comparisons, rt-tests' JSON, edge cases, the timer on every CPU),
markdown, PNG export, bad input, and a real browser rendering the page.
Every input is a committed fixture (tests/fixtures/report): no rtlat runs
here (tests/test_report_e2e.py feeds a live run to the report)."""
import base64
import json
import os
import re
import shutil
import subprocess
import xml.etree.ElementTree as ET
from pathlib import Path

import html5lib
import pytest

from conftest import FIXTURES as FIX, fixture_json, report

# The registry the recorded suite left (rtlat --list's, tests/fixtures/
# report/suite/registry.json): its tests, and those the suite runs, in its
# order.
REGISTRY = fixture_json("suite", "registry.json")["tests"]
PAIRS = tuple(t["name"] for t in REGISTRY if t["family"] == "pair")
SUITE = sorted((t for t in REGISTRY if t["suite_order"] is not None),
               key=lambda t: t["suite_order"])
SVG_NS = "{http://www.w3.org/2000/svg}"


def parse(path):
    """The page parsed strictly (html5lib raises on any parse error);
    returns the tree and {figure id: SVG root} of every embedded plot."""
    text = Path(path).read_text(encoding="utf-8")
    assert "http://" not in text.replace("http://www.w3.org", "")
    assert "https://" not in text and "<script" not in text
    tree = html5lib.HTMLParser(strict=True, namespaceHTMLElements=False) \
        .parse(text)
    figs = {}
    for fig in tree.iter("figure"):
        img = fig.find("img")
        src = img.get("src")
        assert src.startswith("data:image/svg+xml;base64,"), src[:40]
        svg = ET.fromstring(base64.b64decode(src.split(",", 1)[1]))
        assert svg.tag == SVG_NS + "svg"
        figs[fig.get("id").removeprefix("fig-")] = svg
    return tree, figs


def page(path, *args):
    """Write the report of args to path; its parsed tree and figures."""
    r = report(*args, "-o", path)
    assert r.returncode == 0, r.stderr
    return parse(path)


def svg_text(svg):
    return " ".join(t.text or "" for t in svg.iter(SVG_NS + "text"))


def sections(tree):
    return {s.get("id") for s in tree.iter("section")}


def tables(tree):
    """{caption: [[cell text...] per row]}"""
    out = {}
    for t in tree.iter("table"):
        cap = "".join(t.find("caption").itertext())
        out[cap] = [["".join(td.itertext()) for td in tr]
                    for tr in t.iter("tr")]
    return out


def table(tree, prefix):
    return next(v for k, v in tables(tree).items() if k.startswith(prefix))


def section(tree, sid):
    return next(s for s in tree.iter("section") if s.get("id") == sid)


def expect_test_figures(figs, test):
    assert {f"{test}-hist", f"{test}-pct"} <= set(figs), sorted(figs)


@pytest.fixture(scope="module")
def suite_dir(tmp_path_factory):
    """A suite run (--explain), recorded: every subcommand's JSON as the
    suite writes it (tests/fixtures/report/suite), copied where the page
    is written beside it."""
    d = tmp_path_factory.mktemp("suite") / "res"
    shutil.copytree(FIX / "suite", d)
    return d


@pytest.fixture(scope="module")
def suite_page(suite_dir):
    """The real suite's report, written once for two tests:
    (rtlat-report's result, the page's path)."""
    return report(suite_dir), suite_dir / "report.html"


def test_sections_follow_the_registry_the_suite_left(suite_dir, suite_page):
    """The suite writes rtlat's registry beside its results; the page's
    test sections come in its order, which is rtlat --list's."""
    reg = json.loads((suite_dir / "registry.json").read_text())
    order = [t["name"] for t in sorted(
        (t for t in reg["tests"] if t["suite_order"] is not None),
        key=lambda t: t["suite_order"])]
    tree, _ = parse(suite_page[1])
    ids = [s.get("id") for s in tree.iter("section")]
    shown = [f"test-{n}" for n in order if f"test-{n}" in ids]
    assert len(shown) >= 5 and shown == sorted(shown, key=ids.index)


def test_every_section_agrees_with_its_json(suite_dir, suite_page):
    """Each test's percentile table against the series its JSON reports
    (fleet.series, the C side's own summary): the same sample counts, an
    "all" row only where the series are of one kind (never sync's cost,
    hand-off and inversion blocking), and the histogram drawn."""
    r, out = suite_page
    assert r.returncode == 0, r.stderr
    tree, figs = parse(out)
    for f in sorted(suite_dir.glob("*.json")):
        if f.name in ("registry.json", "index.json"):  # --list, the suite's index
            continue
        d = json.loads(f.read_text())
        t = d["rtlat"]["test"]
        series = d["fleet"]["series"]
        if t == "request":      # per round: its own tables
            continue
        rows = table(tree, f"{t}: percentiles")[1:]
        named = {row[1]: int(row[2]) for row in rows}
        if t == "sync":
            assert "all" not in named
            assert sorted(named.values()) == sorted(s["samples"] for s in series)
        else:
            assert len(series) == 1, t
            total = named.get("all", next(iter(named.values())))
            assert total == series[0]["samples"], t
            assert ("all" in named) == (len(named) > 1), t
        for row in rows:
            # A series that measured nothing (under load, sync's
            # inversion in 1 s) has no figures: "–", never a number.
            if row[2] == "0":
                assert set(row[3:7]) == {"–"}, (t, row)
                continue
            assert "–" not in row[3:7], (t, row)     # min, avg, stddev, p50
        assert f"{t}-hist" in figs, t


def test_report_of_a_suite_run(suite_page):
    r, out = suite_page
    assert r.returncode == 0, r.stderr
    assert r.stdout == f"report: {out}\n"
    tree, figs = parse(out)
    assert {"overview", "system"} | {f"test-{t['name']}" for t in SUITE} \
        <= sections(tree)
    for t in PAIRS + tuple(t["name"] for t in SUITE if t["family"] == "timer"):
        expect_test_figures(figs, t)
        # One curve per pair: each pair named in the legend.
        if t in PAIRS:
            assert "pair 0 (CPU0)" in svg_text(figs[f"{t}-hist"])
            assert "pair 1 (CPU1)" in svg_text(figs[f"{t}-pct"])
    # The suite runs the timer with -q: its per-second min/avg/max come
    # from the JSON (its time line's steps), drawn over time.
    assert "timer-seconds" in figs
    assert {"request-loads", "request-response-hist", "request-response-pct",
            "request-total-jitter-hist", "request-total-jitter-pct"} <= set(figs)
    assert re.search(r"p99\.9 [\d.]+, p99\.99 [\d.]+, max [\d.]+ µs",
                     svg_text(figs["pmq-pct"]))
    summary = table(tree, "Summary")
    # In the suite's order: a row a test (request's rounds summed), but
    # a row a series where they measure different things (sync's cost,
    # hand-off and inversion blocking), no "all" of them.
    assert [row[0] for row in summary[1:]] == \
        [t["name"] for t in SUITE
         for _ in (t["series"] if t["family"] == "determinism" else [0])]
    assert [row[2] for row in summary[1:] if row[0] == "sync"] == \
        ["cost", "switch.handoff", "inversion.blocking"]
    for t in PAIRS:
        rows = table(tree, f"{t}: percentiles")
        assert rows[0][:3] == ["run", "series", "samples"]
        assert [row[1] for row in rows[1:]] == \
            ["pair 0 (CPU0)", "pair 1 (CPU1)", "all"]
    rounds = table(tree, "request: res: per round")
    assert {row[0] for row in rounds[1:]} == {"0", "1"}
    assert "total_jitter" in {row[1] for row in rounds[1:]}
    snap = table(tree, "System snapshot")
    assert "RT throttling" in [row[0] for row in snap]


def test_comparison_overlays_runs_and_shows_ratios_and_differences(tmp_path):
    out = tmp_path / "cmp.html"
    r = report(FIX / "suite-a", FIX / "suite-b", FIX / "timer-seconds",
               "--labels", "stock,rt,long", "-o", out)
    assert r.returncode == 0, r.stderr
    tree, figs = parse(out)
    for t in PAIRS:
        text = svg_text(figs[f"{t}-hist"])
        assert "stock (n=" in text and "rt (n=" in text
        rows = table(tree, f"{t}: percentiles")
        ratio = [row for row in rows if row[1] == "ratio"]
        assert len(ratio) == 1 and ratio[0][0] == "rt / stock"
        # samples: the ratio alone; each latency figure: ratio + verdict
        assert re.fullmatch(r"×\d+\.\d\d", ratio[0][2])
        assert all(c == "–" or re.fullmatch(
            r"×\d+\.\d\d (regression|improvement|within noise|n too small)",
            c) for c in ratio[0][3:])
        diff = table(section(tree, f"test-{t}"), "Settings that differ")
        assert ["priority", "99", "80"] in diff
    # The timer run with RTD lines beside its JSON has the per-second plot.
    assert "long: max of each second" in svg_text(figs["timer-seconds"])
    assert len(table(tree, "Summary")) == 1 + 4 * 3 + 5 + 3
    loads = table(tree, "Response Time and Total Jitter per load count")
    assert loads[0][1:3] == ["stock response avg", "stock response max"]
    assert re.search(r"\(×\d+\.\d\d [a-z ]+\)", loads[1][5])
    differs = [row[0] for row in table(tree, "System snapshot")]
    assert "kernel command line" in differs


def test_rt_tests_json(tmp_path):
    out = tmp_path / "rt.html"
    tree, figs = page(out, FIX / "rt-tests")
    assert {"test-pmqtest", "test-cyclictest",
            "test-cyclictest-cyclictest-json"} <= sections(tree)
    # cyclictest -h 400: samples beyond 400 µs are counted as overflow.
    rows = table(tree, "cyclictest (cyclictest.json): percentiles")
    assert any(int(row[-1]) > 0 for row in rows[1:] if row[-1].isdigit())
    assert "overflow" in svg_text(figs["cyclictest-cyclictest-json-hist"])
    pmq = table(tree, "pmqtest: percentiles")
    assert pmq[1][:4] == ["rt-tests", "pair 0 (CPU0)", "300", "4.00"]
    text = Path(out).read_text()
    assert "no histogram in this file" in text


def test_edge_cases(tmp_path):
    tree, figs = page(tmp_path / "edge.html", FIX / "edge")
    text = " ".join(tree.find("body").itertext())
    # The unreadable file is named with why, and the others still make a page.
    assert "UNREADABLE" in text and "truncated.json: unreadable: not JSON" \
        in text
    assert "not real-time (rt: false): cannot hold /dev/cpu_dma_latency" \
        in text
    assert "no samples" in text and "(partial)" in text
    # 12 s outlier: in the overflow bar, the exact max in the legend.
    hist = svg_text(figs["svsem-hist"])
    assert "overflow 3" in hist and "max 12000000 µs" in hist
    # One sample still draws; missing keys are left out, not fatal.
    expect_test_figures(figs, "pmq")
    assert "timer-hist" not in figs
    # A test without its own view: any statistics object, named by its key.
    expect_test_figures(figs, "bintime")
    assert table(tree, "bintime: percentiles")[1][1] == "gaps"
    warn_rows = [row for row in table(tree, "System snapshot")
                 if row[0] == "real-time setup applied"]
    assert "NO: ptsem" in warn_rows[0][1]


def test_markdown_and_png(tmp_path):
    png = tmp_path / "png"
    r = report(FIX / "suite-a" / "pmq.json", FIX / "suite-b" / "pmq.json",
               "--labels", "a,b", "--format", "md", "--png", png)
    assert r.returncode == 0, r.stderr
    md = r.stdout
    assert md.startswith("# rtlat report: a vs b\n")
    assert "| pmq | a | all | 1998 |" in md
    assert re.search(r"^\| pmq \| b / a \| ratio \| ×", md, re.M)
    assert "**warning:** settings differ between the compared runs: " \
        "priority 99 vs 80" in md
    assert sorted(p.name for p in png.iterdir()) == \
        ["pmq-hist.png", "pmq-pct.png"]
    for f in png.iterdir():
        assert f.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
        assert f"]({f})" in md
    w = report(FIX / "rt-tests", "--format", "md", "-o", tmp_path / "r.md",
               "--png", tmp_path / "p2")
    assert w.returncode == 0 and w.stdout == f"report: {tmp_path / 'r.md'}\n"
    assert "](p2/cyclictest-cyclictest-json-hist.png)" in \
        (tmp_path / "r.md").read_text()


@pytest.mark.parametrize("args, pattern", [
    (["/nonexistent"], r"/nonexistent: no such file or directory"),
    (["A", "B", "--labels", "x"], r"--labels: 2 non-empty names expected"),
    (["A", "-o", "/nonexistent/r.html"], r"--output: directory .* not exist"),
    (["EMPTY"], r"no result files"),
    (["BAD"], r"bad.json: unreadable: not JSON"),
])
def test_bad_input(tmp_path, args, pattern):
    (tmp_path / "empty").mkdir()
    (tmp_path / "bad.json").write_text("{")
    subst = {"A": FIX / "suite-a", "B": FIX / "suite-b",
             "EMPTY": tmp_path / "empty", "BAD": tmp_path / "bad.json"}
    before = set(os.listdir(tmp_path))
    r = report(*[subst.get(a, a) for a in args])
    assert r.returncode == 2, r.stderr
    assert re.search(pattern, r.stderr) and len(r.stderr.splitlines()) == 1
    assert r.stdout == "" and set(os.listdir(tmp_path)) == before
    assert not (FIX / "suite-a" / "report.html").exists()


def rows_of(tree, prefix):
    return table(tree, prefix)[1:]


@pytest.fixture(scope="module")
def explain_page(tmp_path_factory):
    """--explain's data, the always-on layer and the doctor's verdicts
    (issue 13) from recorded results: a hog run, a run where nothing
    crossed the trigger, a pair test with several CPUs, a doctor file."""
    tree, figs = page(tmp_path_factory.mktemp("x") / "x.html",
                      FIX / "explain")
    assert {"explain-timer", "explain-pmq",
            "explain-timer-none-json"} <= sections(tree)
    return tree, figs


def test_explain_spikes_and_where_the_time_went(explain_page):
    tree, figs = explain_page
    hog = json.loads((FIX / "explain" / "hog.json").read_text())["explain"]
    # The worst spikes: one bar each, the main cause named inside it, the
    # kinds in the legend.
    texts = {t.text for t in figs["timer-explain-spikes"].iter(SVG_NS +
                                                               "text")}
    assert {"task python3[1657] FIFO/RR 90", "interrupt", "other task",
            "wake-up", "late interrupt",
            "#1  at 3.015 s: 1167.99 µs"} <= texts
    # Their table: a latency row per spike, then its causes in order,
    # adding up to it.
    spikes = rows_of(tree, "timer: explain: the worst spikes")
    heads = [i for i, row in enumerate(spikes) if row[0]]
    assert [spikes[i][0] for i in heads] == ["1", "2", "3", "4", "5"]
    for n, (i, s) in enumerate(zip(heads, hog["spikes"])):
        end = heads[n + 1] if n + 1 < len(heads) else len(spikes)
        assert spikes[i][4] == f"{s['latency_ns'] / 1000:.2f}"
        assert [row[2] for row in spikes[i + 1:end]] == \
            [c["cause"] for c in s["causes"]]
        assert abs(sum(float(row[4]) for row in spikes[i + 1:end]) -
                   s["latency_ns"] / 1000) < 0.01 * len(s["causes"])
    # Where the time went: every cause, largest first, with its share.
    where = rows_of(tree, "timer: explain: where the time over the threshold")
    assert [row[0] for row in where[:-1]] == [c["cause"] for c in hog["where"]]
    assert where[0][1:] == ["other task", "7080.00", "61.1"]
    assert where[-1][0] == "all explained spikes"
    assert abs(sum(float(row[3]) for row in where[:-1]) - 100) < 0.2
    assert "61.1%" in svg_text(figs["timer-explain-where"])
    # The log of every explained spike is folded away.
    log = next(d for d in tree.iter("details")
               if "the first 18 explained spikes" in "".join(d.itertext()))
    assert len(log.findall(".//tbody/tr")) == 18


def test_explain_of_a_pair_test_and_of_nothing(explain_page):
    tree, figs = explain_page
    # A pair test's spikes name their CPU and pair.
    body = " ".join(tree.find("body").itertext())
    assert "(trigger: each new maximum after the warm-up; CPUs 0, 1)" in body
    pmq = rows_of(tree, "pmq: explain: the worst spikes")
    assert pmq[0][:3] == ["1", "2.405 (CPU 1, pair 1)",
                          "latency (7 events; steal 40 ms in that second)"]
    assert "(CPU 0, pair 0)" in svg_text(figs["pmq-explain-spikes"])
    # Nothing crossed the trigger: one line says so, no figure.
    none = section(tree, "explain-timer-none-json")
    assert [d.text for d in none.iter("div")] == [
        "explain: no spike crossed the trigger (over 100000 µs; CPU 0): "
        "nothing to explain, 152795 kernel events read"]
    assert not none.findall(".//figure") and not none.findall(".//table")


def test_always_on_layer_and_doctor(explain_page):
    tree, figs = explain_page
    # The always-on layer under the per-second latency, the spikes marked.
    text = svg_text(figs["timer-seconds"])
    for label in ("interrupts / s", "ms of each second", "steal",
                  "CPU pressure (some)", "involuntary switches",
                  "explained spike (--explain)", "explain: max of each"):
        assert label in text
    # The doctor file's verdicts, figures and fixes, coloured.
    doctor = table(tree, "rtlat doctor")
    assert doctor[0] == ["item", "verdict", "figure / fix"]
    assert doctor[1][0] == "RT throttling" and \
        "fix: sysctl -w kernel.sched_rt_runtime_us=-1" in doctor[1][2]
    cells = {td.text: td.get("class") for td in tree.iter("td")
             if td.text in ("ok", "will add latency")}
    assert cells == {"ok": "v-ok", "will add latency": "v-latency"}


def test_explain_and_doctor_in_markdown(tmp_path):
    r = report(FIX / "explain" / "pmq.json", "--format", "md")
    assert r.returncode == 0, r.stderr
    md = r.stdout.splitlines()
    assert "**pmq: explain: the worst spikes, their causes in order (µs, % " \
        "of the spike's latency)**" in md
    assert "| 1 | 2.405 (CPU 1, pair 1) | latency (7 events; steal 40 ms " \
        "in that second) |  | 412.00 | 100.0 |" in md
    assert "|  |  | irq 24 virtio0-input.0 | interrupt | 62.00 | 15.0 |" in md
    assert "| unexplained: hypervisor, SMI or hardware | unexplained | " \
        "301.00 | 50.8 |" in md
    assert "| all explained spikes |  | 592.50 | 100.0 |" in md
    # The short form: verdicts only, the worst in bold, and where to get
    # the figures and fixes.
    assert "| RLIMIT_RTPRIO / capabilities | **prevents real-time** |" in md
    assert "| overall | **prevents real-time** |" in md
    assert any("run rtlat doctor on the machine" in l for l in md)
    # A result without --explain, the layer or the doctor still renders,
    # without them.
    old = report(FIX / "suite-a" / "timer.json", "--format", "md")
    assert old.returncode == 0, old.stderr
    assert "explain" not in old.stdout and "doctor" not in old.stdout
    assert "| timer | timer | latency (CPU0) |" in old.stdout


def test_report_of_an_explain_suite_run(suite_dir, suite_page):
    """The suite ran every test that takes it with --explain: the timer's
    spikes and per-second layer, and each other test's Explain section."""
    x = json.loads((suite_dir / "timer.json").read_text())["explain"]
    r, out = suite_page
    assert r.returncode == 0, r.stderr
    tree, figs = parse(out)
    takes = [t["name"] for t in SUITE if t["explain"]]
    assert len(takes) >= 7
    for t in takes:
        assert f"explain-{t}" in sections(tree), t
    assert "interrupts / s" in svg_text(figs["timer-seconds"])
    # The recorded run had spikes (explain/none.json is one without): the
    # worst spike's bar names its first cause inside it, whole or
    # shortened to the bar ("task rtlat-explain[26918] nice 0, not pre…"
    # was seen); the spikes' table beside it has it whole.
    assert x["spikes"]
    top = x["spikes"][0]["causes"][0]["cause"]
    shown = svg_text(figs["timer-explain-spikes"])
    assert top in shown or any(
        w.endswith("…") and len(w) > 6 and top.startswith(w[:-1])
        for w in (t.text or "" for t in figs["timer-explain-spikes"].iter(
            SVG_NS + "text"))), (top, shown)
    rows = table(tree, "timer: explain: the worst spikes")
    assert any(top in r for r in rows), rows
    assert table(tree, "timer: explain: where the time")
    assert table(tree, "rtlat doctor")


# Appended to a copy of the page: the browser writes what it rendered
# into the DOM, which --dump-dom prints after the load.
PROBE = """<script>
window.addEventListener("load", () => {
  const box = e => { const r = e.getBoundingClientRect();
                     return r.width > 0 && r.height > 0; };
  const imgs = [...document.images], svgs = [...document.querySelectorAll("svg")];
  const out = {
    images: imgs.length, svgs: svgs.length,
    broken: imgs.filter(i => !(i.complete && i.naturalWidth > 0 &&
                               i.naturalHeight > 0 && box(i))).map(i => i.alt),
    empty_svgs: svgs.filter(s => !box(s)).length,
    height: document.documentElement.scrollHeight,
    width: document.documentElement.scrollWidth,
  };
  const pre = document.createElement("pre");
  pre.id = "rtlat-probe"; pre.textContent = JSON.stringify(out);
  document.body.appendChild(pre);
});
</script>"""


def chromium(tmp_path, *args):
    exe = shutil.which("chromium") or shutil.which("chromium-browser")
    assert exe, "chromium missing: tests/install-deps installs it"
    return subprocess.run(
        [exe, "--headless", "--no-sandbox", "--disable-gpu",
         "--hide-scrollbars", f"--user-data-dir={tmp_path / 'profile'}",
         "--virtual-time-budget=5000", "--window-size=1150,1400", *args],
        capture_output=True, text=True, timeout=60)


def test_browser_renders_the_page(tmp_path):
    page = tmp_path / "r.html"
    r = report(FIX / "suite-a", FIX / "suite-b", FIX / "explain",
               "--labels", "a,b,x", "-o", page)
    assert r.returncode == 0, r.stderr
    probe = tmp_path / "probe.html"
    probe.write_text(page.read_text().replace("</body>", PROBE + "</body>"))
    dom = chromium(tmp_path, "--dump-dom", probe.as_uri())
    m = re.search(r'<pre id="rtlat-probe">(.*?)</pre>', dom.stdout)
    assert m, dom.stderr[-2000:]
    got = json.loads(m.group(1).replace("&quot;", '"'))
    n_figs = page.read_text().count("<figure")
    assert got["images"] == n_figs >= 12 and got["broken"] == []
    assert got["empty_svgs"] == 0
    assert 5000 < got["height"] < 60000 and got["width"] <= 1150
    shot = tmp_path / "shot.png"
    s = chromium(tmp_path, f"--screenshot={shot}", page.as_uri())
    assert shot.exists(), s.stderr[-2000:]
    from PIL import Image
    im = Image.open(shot).convert("L")
    assert im.size == (1150, 1400)
    lo, hi = im.getextrema()
    assert lo < 64 and hi > 230     # text and background, not a blank page
    # Not mostly one colour: a rendered page has many distinct greys.
    assert len(im.getcolors(256 * 256) or []) > 20


def test_timer_on_every_cpu_draws_a_line_per_cpu(tmp_path):
    """timer -c all (recorded on 2 CPUs): the histogram has a line per CPU
    (its max in the legend), the percentile table a row per CPU and the
    whole, and the per-second figure a curve per CPU."""
    d = FIX / "timer-cpus"
    out = report(d, "-o", tmp_path / "r.html")
    assert out.returncode == 0, out.stderr
    tree, figs = parse(tmp_path / "r.html")
    assert {"timer-hist", "timer-seconds"} <= set(figs), sorted(figs)
    legend = svg_text(figs["timer-hist"])
    ncpu = len(json.loads((d / "timer.json").read_text())["cpus"])
    assert ncpu == 2
    seconds = svg_text(figs["timer-seconds"])
    for c in range(ncpu):
        assert f"CPU{c}: max of each second" in seconds, seconds
    for c in range(ncpu):
        assert re.search(rf"CPU{c} \(n=\d+, max [\d.]+ µs\)", legend), legend
    rows = table(tree, "timer: percentiles")[1:]
    assert [row[1] for row in rows] == [f"CPU{c}" for c in range(ncpu)] + ["all"]
    js = json.loads((d / "timer.json").read_text())
    assert int(rows[-1][2]) == js["latency"]["samples"]
