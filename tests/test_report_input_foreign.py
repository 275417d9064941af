# SPDX-License-Identifier: GPL-2.0-or-later
"""Readers of other tools' results (issue 46, "readers fixed"): rtla
timerlat hist of Linux 6.10 on ends with an ALL: block whose count and
max rows are every CPU's sum, not one CPU's; jitterdebugger's count
holds the samples beyond its 1 ms of slots, and its resolution_in_ns
says the unit (1 with -N: ns). The fixtures are written in each tool's
exact layout (tests/fixtures/report/foreign/README.md says from where)."""
import json

from conftest import FIXTURES, report

from rtlat_report.read import rtlat as load

FOREIGN = FIXTURES / "foreign"


def series(t):
    return {d.name: d for d in t.dists}


def test_rtla_all_block_is_not_a_cpu(tmp_path):
    """Each CPU keeps its own count and max (CPU 0: 200,000 samples, its
    thread max 36 µs; CPU 1: 199,000, 302 µs with 3 over), not the ALL:
    block's 399,000 and 302 µs; the gate of the file against itself
    compares no CPU with another's max."""
    t = load.load_file(str(FOREIGN / "rtla-6.10-timerlat-hist.txt"))
    s = series(t)
    assert sorted(s) == ["IRQ-000", "IRQ-001", "Thr-000", "Thr-001"]
    assert s["Thr-000"].samples == 200000 and s["IRQ-000"].samples == 200000
    assert s["Thr-001"].samples == 199000 and s["IRQ-001"].samples == 199000
    assert s["Thr-000"].max_ns == 36000 and s["IRQ-000"].max_ns == 11000
    assert s["Thr-001"].max_ns == 302000 and s["Thr-001"].overflow == 3
    assert s["Thr-000"].overflow == 0
    for d in t.dists:
        assert sum(c for _, c in d.bins) + d.overflow == d.samples, d.name
    out = tmp_path / "s.json"
    r = report("summary", FOREIGN / "rtla-6.10-timerlat-hist.txt",
               "--json", out, "--period-us", "1000")
    assert r.returncode == 0, r.stderr
    got = {s["series"]: s for s in
           json.loads(out.read_text())["runs"][0]["series"]}
    assert got["Thr-000"]["samples"] == 200000
    assert got["Thr-000"]["max_ns"] == 36000


def test_jitterdebugger_count_beyond_the_slots():
    """CPU 1's 40 samples at 1.5 ms and more are in count, in no slot:
    100,000 samples, 40 of them over the 1 ms histogram (not 1), its max
    1,539 µs; CPU 0 has none over."""
    t = load.load_file(str(FOREIGN / "jitterdebugger-results.json"))
    s = series(t)
    assert s["CPU0"].samples == 100000 and s["CPU0"].overflow == 0
    assert s["CPU1"].samples == 100000 and s["CPU1"].overflow == 40
    assert s["CPU1"].max_ns == 1539000 and s["CPU1"].range_end_ns == 1e6
    assert s["CPU0"].bucket_ns == 1000


def test_jitterdebugger_nsec_is_read_in_ns():
    """-N: resolution_in_ns 1, slots, min, max and avg in ns: CPU 0's
    max 21,866 ns (not 21.9 ms), 1 ns buckets, 40 of CPU 1's 1,000
    samples over its 1 ms of slots."""
    t = load.load_file(str(FOREIGN / "jitterdebugger-nsec-results.json"))
    s = series(t)
    assert s["CPU0"].max_ns == 21866 and s["CPU0"].min_ns == 2001
    assert s["CPU0"].bucket_ns == 1
    assert min(a for a, _ in s["CPU0"].bins) == 2001
    assert abs(s["CPU0"].avg_ns - 4916.94) < 1e-6
    assert s["CPU1"].samples == 1000 and s["CPU1"].overflow == 40
    assert s["CPU1"].max_ns == 1539000 and s["CPU1"].range_end_ns == 1e6
