# SPDX-License-Identifier: GPL-2.0-or-later
"""The verdict bench/vs-rt-tests and bench/vs-cyclictest-face give on a
long run's cost (issue 33: with / without --timeline and --checkpoint,
ratio <= 1.01): the median of the rounds' paired ratios and its
distribution-free 95 % interval (order statistics). Checked on data with
a known median, against SciPy's quantile_test, and the verdict's words."""
import json
import os
import random
import sys
import time
from pathlib import Path

import pytest

from conftest import ROOT

sys.path.insert(0, str(ROOT / "bench"))
import benchlib as bl  # noqa: E402


@pytest.mark.parametrize("n", [6, 7, 10, 25, 50, 301, 500])
def test_interval_is_scipys_quantile_test(n):
    stats = pytest.importorskip("scipy.stats")
    rng = random.Random(n)
    xs = [rng.lognormvariate(0.0, 0.1) for _ in range(n)]
    ci = stats.quantile_test(xs, q=1.0, p=0.5).confidence_interval(0.95)
    m, lo, hi, cov = bl.median_ci(xs)
    assert (lo, hi) == (ci.low, ci.high)
    assert m == pytest.approx(sorted(xs)[n // 2] if n % 2 else
                              (sorted(xs)[n // 2 - 1] + sorted(xs)[n // 2]) / 2)
    assert 0.95 <= cov < 1.0


def test_interval_covers_a_known_median_as_often_as_it_says():
    """Paired ratios with a known median 1.0 (a VM's noise: lognormal and
    some stalls): the 95 % interval holds it in 93-99 % of 1000 sets."""
    rng = random.Random(33)
    hits, covs = 0, []
    for _ in range(1000):
        xs = [rng.lognormvariate(0.0, 0.08) for _ in range(40)]
        for i in rng.sample(range(40), 3):  # stalls on either side
            xs[i] *= rng.choice((0.3, 3.0))
        _, lo, hi, cov = bl.median_ci(xs)
        hits += lo <= 1.0 <= hi
        covs.append(cov)
    assert 0.93 <= hits / 1000 <= 0.99
    assert min(covs) >= 0.95


def test_too_few_rounds_give_no_interval():
    assert bl.median_ci([1.0, 1.1, 0.9, 1.2, 1.0])[1:] == (None, None, None)
    line = bl.longrun_verdict([1.0] * 5, [1.0] * 5, None)
    assert line.endswith("too few rounds to show anything (ROUNDS >= 6)")


def test_verdict_words():
    rng = random.Random(1)
    base = [rng.uniform(1.0, 2.0) for _ in range(200)]
    same = [b * rng.uniform(0.998, 1.004) for b in base]
    slow = [b * rng.uniform(1.03, 1.05) for b in base]
    wide = [b * rng.uniform(0.8, 1.25) for b in base]
    assert "ratio <= 1.01 shown (95 % upper end" in bl.longrun_verdict(same, base, None)
    assert "slower than 1.01 (95 % lower end" in bl.longrun_verdict(slow, base, None)
    line = bl.longrun_verdict(wide, base, wide)
    assert "<= 1.01 not shown: the interval reaches" in line
    assert "A/A" in line and "more rounds or a quieter machine" in line
    assert " over 200 rounds: " in line


def test_budget_stops_at_an_even_round_and_raw_keeps_each(tmp_path, monkeypatch):
    """BUDGET_S: no round starts past the budget, and the rounds done are
    even (each order as often); RAW: one JSON line a round, as it ends."""
    raw = tmp_path / "raw.jsonl"
    monkeypatch.setattr(bl, "BUDGET_S", 0.05)
    monkeypatch.setattr(bl, "RAW", str(raw))
    res = bl.interleave({"a": lambda: time.sleep(0.02) or (1, 2.5),
                         "b": lambda: {0: 3}}, 1000)
    n = len(res["a"])
    assert 2 <= n < 1000 and n % 2 == 0 and len(res["b"]) == n
    rows = [json.loads(x) for x in raw.read_text().splitlines()]
    assert [r["round"] for r in rows] == list(range(1, n + 1))
    assert rows[0]["a"] == [1, 2.5] and rows[0]["b"] == {"0": 3}


def test_binary_arms_run_base_new_and_new_again(monkeypatch):
    """RTLAT_BASE (issue 49): base, new and new again (the A/A) on the
    same command line; the verdict is new / base, the A/A new' / new."""
    monkeypatch.setattr(bl, "RTLAT_BASE", "/old/rtlat")
    monkeypatch.setattr(bl, "RTLAT", "/new/rtlat")
    monkeypatch.setattr(bl, "AA", True)
    arms = bl.binary_arms(lambda binary: binary)
    assert {n: f() for n, f in arms.items()} == {
        "base": "/old/rtlat", "new": "/new/rtlat", "new'": "/new/rtlat"}
    monkeypatch.setattr(bl, "AA", False)
    assert list(bl.binary_arms(str)) == ["base", "new"]
    rng = random.Random(49)
    base = [rng.uniform(1.0, 2.0) for _ in range(200)]
    new = [b * 1.04 for b in base]
    new2 = [n * rng.uniform(0.999, 1.001) for n in new]
    line = bl.binary_verdict(base, new, new2)
    assert line.startswith("new/base 1.040 [")
    assert ", A/A 1.000 [" in line and "slower than 1.01" in line


def test_scratch_is_a_fresh_tmpfs_directory_removed_after_the_run():
    """--samples @TMP@/x.smp: each run writes into its own directory on a
    tmpfs (not the disk), gone after the run, also after a failed one."""
    for _ in range(2):
        with pytest.raises(RuntimeError):
            with bl.scratch(["rtlat", "--samples", "@TMP@/x.smp", "-q"]) as (cmd, d):
                assert cmd == ["rtlat", "--samples", f"{d}/x.smp", "-q"]
                assert bl.tmpfs_of(d) and os.listdir(d) == []
                Path(cmd[2]).write_bytes(b"x" * 4096)
                raise RuntimeError("the run failed")
        assert not os.path.exists(d)
    assert not bl.tmpfs_of(str(ROOT))


def test_a_failed_run_drops_its_round_not_the_measurement(tmp_path, monkeypatch):
    """On a loaded machine a run can end in error (a starved CPU): its
    round is dropped whole, said, and kept in RAW; the others go on."""
    raw = tmp_path / "raw.jsonl"
    monkeypatch.setattr(bl, "RAW", str(raw))
    n = iter(range(100))

    def flaky():
        if next(n) == 2:
            bl.run_checked([sys.executable, "-c",
                            "import sys; sys.exit('a CPU was starved')"], 30)
        return 1.0

    res = bl.interleave({"a": flaky, "b": lambda: 2.0}, 5)
    assert res == {"a": [1.0] * 4, "b": [2.0] * 4}
    rows = [json.loads(x) for x in raw.read_text().splitlines()]
    assert list(rows[2]) == ["round", "dropped"] and rows[2]["round"] == 3
    assert rows[2]["dropped"].endswith(" exit 1: a CPU was starved")
    assert [r["round"] for r in rows] == [1, 2, 3, 4, 5]


def test_samples_dropped_counts_a_full_ring():
    """--samples' cost is only measured when every sample was written: a
    full ring (dropped samples) is what a run's JSON says, summed."""
    assert bl.samples_dropped({"samples": None}) == 0
    assert bl.samples_dropped({"thread": {}}) == 0
    d = {"samples": {"format": "rtlat-samples-1", "complete": True, "series": [
        {"written": 20000, "dropped": 0}, {"written": 19000, "dropped": 1000}]}}
    assert bl.samples_dropped(d) == 1000
