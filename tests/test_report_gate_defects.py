# SPDX-License-Identifier: GPL-2.0-or-later
"""rtlat-report BASE NEW --gate against the defects of issue 44 (items 1,
2 and 4): spikes beyond everything BASE reached, which no tail fit can
carry, counted against NEW by an exact test (and two draws of one
distribution not called worse at more than the confidence's rate); a NEW
that did not finish (ended at a checkpoint, a non-zero return_code) never
"not worse", a BASE that did not finish never vouching for NEW; two
inputs with nothing in common said so, and the same samples as rtlat's
JSON and as cyclictest's -h text compared thread by thread. Every input
is synthetic, drawn here with a fixed seed."""
import argparse
import sys
from pathlib import Path

import numpy as np

from conftest import report_here as report
from test_report_tail import write

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "report"))
from rtlat_report.read import rtlat as load  # noqa: E402
from rtlat_report.tail import analyse as worst  # noqa: E402
from rtlat_report.tail import fit as tail  # noqa: E402

CELLS = 200                 # rtlat timer's default -H: 200 cells of 1 µs
EDGES = np.arange(CELLS + 1) * 1000.


def body_probs(shift=5000., scale=2000.):
    """A latency body: 5 µs plus an exponential of 2 µs, per 1 µs cell
    (10^6 samples reach about 35 µs)."""
    s = np.exp(-np.maximum(EDGES - shift, 0) / scale)
    pr = -np.diff(s)
    return pr / pr.sum()


PROBS = body_probs()


def draw(seed, n):
    return np.random.default_rng(seed).multinomial(n, PROBS)


def stats(c, max_ns=None, over=0):
    """rtlat's statistics object of cell counts c (1 µs cells) and over
    samples beyond the histogram; the max in ns (default: the top
    cell's middle)."""
    nz = np.nonzero(c)[0]
    return {"samples": int(c.sum()) + over,
            "min_ns": float(nz.min() * 1000.), "avg_ns": 8000.0,
            "max_ns": float(max_ns if max_ns is not None
                            else nz.max() * 1000. + 500.),
            "histogram": {"origin_ns": 0, "bucket_ns": 1000.,
                          "buckets": CELLS, "underflow": 0,
                          "overflow": over,
                          "counts": [[float(i * 1000.), int(c[i])]
                                     for i in nz]}}


def timer(st, **keys):
    """rtlat timer's JSON of one CPU (the keys every rtlat file has that
    say how the run ended: complete, checkpoint, return_code)."""
    d = {"rtlat": {"version": "0.1.0", "test": "timer"},
         "settings": {"test": "timer", "period_us": 1000, "cpu": 0},
         "return_code": 0, "complete": True, "checkpoint": None,
         "latency": st}
    d.update(keys)
    return d


def with_spikes(c, k=6, at_ns=10e6):
    """The same run with k samples set to at_ns (beyond the histogram:
    its overflow, no largest samples, so no tail fit of NEW)."""
    c = c.copy()
    c[int(np.argmax(c))] -= k
    return stats(c, max_ns=at_ns, over=k)


# --- item 1: spikes the statistics cannot prove ---------------------------

def test_spikes_beyond_base_max_are_worse(tmp_path):
    """NEW = BASE (10^6 samples, max about 35 µs) with 6 samples set to
    10 ms: worse (exit 3), the reason in words, with the default levels
    and with levels given; the same 6 spikes on one CPU of two too."""
    c = draw(1, 10 ** 6)
    assert 30 <= np.nonzero(c)[0].max() <= 40
    base = write(tmp_path, "base.json", timer(stats(c)))
    new = write(tmp_path, "new.json", timer(with_spikes(c)))
    for extra in ([], ["--levels", "20,30"]):
        r = report(base, new, "--gate", *extra)
        assert r.returncode == 3, r.stdout + r.stderr
        first = r.stdout.splitlines()[0]
        assert first.startswith("gate: worse (") and "6 samples above " \
            "BASE's max" in first and "(NEW's max 10 ms)" in first, first
    # two CPUs, the spikes on CPU 1 only
    c0 = draw(2, 10 ** 6)
    two = [stats(c0), stats(c)]
    spiked = [stats(c0), with_spikes(c)]

    def cpus(sts):
        return timer(stats(c0 + c), cpus=[{"cpu": i, "latency": s}
                                          for i, s in enumerate(sts)])
    r = report(write(tmp_path, "b2.json", cpus(two)),
               write(tmp_path, "n2.json", cpus(spiked)), "--gate")
    assert r.returncode == 3, r.stdout + r.stderr
    assert "BASE's max" in r.stdout.splitlines()[0]


def analysed(c, key="timer"):
    """One run's series as the gate reads them, without the tail fit
    (the A/A check below is about the spike tests)."""
    td = tail.tail_data(load.dist_from_stats("latency", stats(c)))
    return [worst.Series(key, td, tail.TailFit(no_claim="not fitted"))]


def test_a_a_is_not_called_worse():
    """Known answer: two draws of one distribution (2 x 10^5 samples)
    are called worse in at most the confidence's share of 400 seeds (5 %;
    the tests' Bonferroni split keeps it below), and the 6 spikes beyond
    BASE's max in every one of 40 seeds."""
    args = argparse.Namespace(levels=None, confidence=0.95)
    worse = 0
    for seed in range(400):
        b = analysed(draw(2 * seed, 200000))
        n = analysed(draw(2 * seed + 1, 200000))
        g = worst.run_gate([], [b, n], args)
        assert g.status in (0, 3), g.reason
        worse += g.status == 3
    assert worse <= 20, worse
    for seed in range(40):
        c = draw(1000 + seed, 200000)
        b = analysed(c)
        n = [worst.Series("timer", tail.tail_data(load.dist_from_stats(
            "latency", with_spikes(c))), tail.TailFit(no_claim="-"))]
        g = worst.run_gate([], [b, n], args)
        assert g.status == 3 and "BASE's max" in g.reason, g.reason


# --- item 2: a run that did not finish --------------------------------------

CHECKPOINT = {"at_wall": "2026-11-29T04:00:12Z", "covered_s": 12.0,
              "planned_s": 120.0}


def test_new_that_did_not_finish_is_worse(tmp_path):
    """NEW ended at a checkpoint (10 % of -D covered) or with
    return_code 1: exit 3, "NEW did not finish" and why; NEW that
    exceeded its own threshold (return_code 3): exit 3, said."""
    c = draw(3, 200000)
    base = write(tmp_path, "base.json", timer(stats(c)))
    cases = [
        ({"complete": False, "checkpoint": CHECKPOINT},
         "NEW did not finish", "12 s of 2 min"),
        ({"return_code": 1}, "NEW did not finish", "status 1"),
        ({"return_code": 3}, "NEW failed", "status 3"),
    ]
    for i, (keys, word, detail) in enumerate(cases):
        new = write(tmp_path, f"new{i}.json", timer(stats(c), **keys))
        r = report(base, new, "--gate")
        assert r.returncode == 3, (keys, r.stdout + r.stderr)
        first = r.stdout.splitlines()[0]
        assert word in first and detail in first, first
    # too short as well as unfinished: still 3, never 125
    short = write(tmp_path, "short.json", timer(
        stats(draw(4, 300)), complete=False, checkpoint=CHECKPOINT))
    r = report(base, short, "--gate")
    assert r.returncode == 3 and "NEW did not finish" in r.stdout, r.stdout


def test_base_that_did_not_finish_cannot_vouch(tmp_path):
    """BASE ended at a checkpoint or with return_code 1, NEW the same
    samples, finished: 125 (cannot tell), the reason said; a NEW that is
    worse than even that BASE is still 3."""
    c = draw(5, 200000)
    new = write(tmp_path, "new.json", timer(stats(c)))
    for i, keys in enumerate(({"complete": False, "checkpoint": CHECKPOINT},
                              {"return_code": 1})):
        base = write(tmp_path, f"base{i}.json", timer(stats(c), **keys))
        r = report(base, new, "--gate")
        assert r.returncode == 125, (keys, r.stdout + r.stderr)
        first = r.stdout.splitlines()[0]
        assert "BASE did not finish" in first and "cannot vouch" in first, \
            first
    spiked = write(tmp_path, "spiked.json", timer(with_spikes(c, 12)))
    r = report(base, spiked, "--gate")
    assert r.returncode == 3, r.stdout + r.stderr
    assert "BASE did not finish" in r.stdout.splitlines()[0]


def test_suite_that_did_not_finish_is_worse(tmp_path):
    """A suite's results directory whose index.json says complete false
    (a test still pending), every result file in it whole: NEW did not
    finish (3), the tests not done named."""
    c = draw(9, 200000)
    for side in ("base", "new"):
        (tmp_path / side).mkdir()
        write(tmp_path / side, "timer.json", timer(stats(c)))
    index = {"complete": False, "checkpoint": CHECKPOINT, "tests": [
        {"name": "timer", "state": "done", "exit_status": 0,
         "json": "timer.json", "log": "timer.log"},
        {"name": "pmq", "state": "pending", "exit_status": None,
         "json": "pmq.json", "log": "pmq.log"}]}
    write(tmp_path / "new", "index.json", index)
    r = report(tmp_path / "base", tmp_path / "new", "--gate")
    assert r.returncode == 3, r.stdout + r.stderr
    first = r.stdout.splitlines()[0]
    assert "NEW did not finish" in first and "not done: pmq" in first, first


# --- item 4: the gate's reasons ----------------------------------------------

def threads_text(cs, over):
    """cyclictest -h's text of threads' 1 µs cell counts (a column each)
    and their overflows."""
    rows = [f"{i:06d} " + "\t".join(f"{int(c[i]):06d}" for c in cs)
            for i in range(CELLS)]

    def foot(vals, width):
        return " ".join(f"{int(v):0{width}d}" for v in vals)
    tops = [np.nonzero(c)[0].max() for c in cs]
    return ("# Histogram\n" + "\n".join(rows) + "\n"
            f"# Total: {foot([c.sum() for c in cs], 9)}\n"
            f"# Min Latencies: {foot([np.nonzero(c)[0].min() for c in cs], 5)}"
            f"\n# Avg Latencies: {foot([8] * len(cs), 5)}\n"
            f"# Max Latencies: {foot(tops, 5)}\n"
            f"# Histogram Overflows: {foot(over, 5)}\n")


def cyclictest_json(cs):
    """rtlat cyclictest's JSON (rt-tests' layout: µs cells) of the same
    threads, on CPUs 0, 1, ..."""
    th = {}
    for i, c in enumerate(cs):
        nz = np.nonzero(c)[0]
        th[str(i)] = {"histogram": {str(j): int(c[j]) for j in nz},
                      "cycles": int(c.sum()), "min": int(nz.min()),
                      "max": int(nz.max()), "avg": 8.0, "cpu": i,
                      "min_ns": int(nz.min()) * 1000 + 300,
                      "max_ns": int(nz.max()) * 1000 + 300,
                      "avg_ns": 8000.0}
    return {"rtlat": {"version": "0.1.0", "test": "cyclictest"},
            "cmdline:": f"rtlat cyclictest -t {len(cs)} -h {CELLS}",
            "return_code": 0, "complete": True, "checkpoint": None,
            "num_threads": len(cs), "resolution_in_ns": 0, "thread": th}


def gate_lines(r):
    return [x for x in r.stdout.splitlines() if x.startswith("  ")]


def test_same_samples_as_json_and_text_match(tmp_path):
    """Two threads' samples written as rtlat cyclictest's JSON and as
    cyclictest -h text, and two CPUs' as rtlat timer's JSON and its -h
    text (--histfile): gated either way round, thread N of one is
    compared with thread N of the other, and the verdict is not worse."""
    cs = [draw(6, 100000), draw(7, 100000)]
    txt = write(tmp_path, "c.txt", threads_text(cs, [0, 0]))
    cjs = write(tmp_path, "c.json", cyclictest_json(cs))
    tjs = write(tmp_path, "t.json", timer(
        stats(cs[0] + cs[1]), cpus=[{"cpu": i, "latency": stats(c)}
                                    for i, c in enumerate(cs)]))
    for a, b in ((cjs, txt), (txt, cjs), (tjs, txt), (txt, tjs)):
        r = report(a, b, "--gate")
        assert r.returncode == 0, (a.name, b.name, r.stdout + r.stderr)
        lines = gate_lines(r)
        for j in (0, 1):
            assert any(f"thread {j}" in x for x in lines), r.stdout
        assert "not compared" not in r.stdout, r.stdout


def test_nothing_matched_is_said(tmp_path):
    """A timer's JSON against rt-tests' pmqtest JSON: no series in
    common, 125 with "nothing matched" naming what each side had (not
    "too short to tell")."""
    base = write(tmp_path, "base.json", timer(stats(draw(8, 100000))))
    pmq = ROOT / "tests" / "fixtures" / "report" / "rt-tests" / \
        "pmqtest.json"
    r = report(base, pmq, "--gate")
    assert r.returncode == 125, r.stdout + r.stderr
    first = r.stdout.splitlines()[0]
    assert "nothing matched" in first and "too short" not in first, first
    assert "timer: latency (CPU0)" in first and "pmqtest" in first, first
