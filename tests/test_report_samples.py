# SPDX-License-Identifier: GPL-2.0-or-later
"""rtlat-report samples FILE on --samples files written here by the
layout rtlat(1)'s SAMPLES FILE section documents (the known answer: every
sample this test put in): the counts, both byte orders, a file cut short,
a damaged one (exit 2, one line), jittersamples' CSV line by line, and the
spectrum: a disturbance at a known period found at that period, none in
spikes with no rhythm or in bursts. The live file rtlat writes is
tests/test_samples.py's."""
import re
import struct

import numpy as np
import pytest

from conftest import report_here

ORIGIN = 5_000_000_000_123
WALL = 1_764_000_000_000_000_000


def layout(series, order="<", end=True, ring=65536, chunk=4096):
    """A --samples file: series is [(thread, cpu, test, name, t_ns, ns)]."""
    out = [struct.pack(order + "8sIIqqII24s", b"RTLATSMP", 0x01020304, 1,
                       ORIGIN, WALL, ring, 0, b"timer")]
    for sid, (thread, cpu, test, name, _, _) in enumerate(series):
        out.append(struct.pack(order + "IIII", 1, sid, 0, 0))
        out.append(struct.pack(order + "iiq24s48s", thread, cpu, -1,
                               test.encode(), name.encode()))
    total = 0
    for sid, (_, _, _, _, t, ns) in enumerate(series):
        for i in range(0, len(t), chunk):
            rows = np.empty((len(t[i:i + chunk]), 2), np.dtype(order + "i8"))
            rows[:, 0], rows[:, 1] = t[i:i + chunk], ns[i:i + chunk]
            out.append(struct.pack(order + "IIII", 2, sid, len(rows), 0))
            out.append(rows.tobytes())
            total += len(rows)
    if end:
        out.append(struct.pack(order + "IIIIQQ", 3, 0, 0, 0, total, 7))
    return b"".join(out)


def noisy(seed, n=20000, dt=1_000_000, period=None, bursts=0):
    """n samples every dt ns: an exponential body, rare random spikes, and
    a 60 us disturbance every period seconds (None: none) or bursts runs
    of 10 spiking samples at random places."""
    r = np.random.default_rng(seed)
    t = np.arange(n, dtype=np.int64) * dt + r.integers(0, 20000, n)
    ns = (8000 + r.exponential(1500, n)).astype(np.int64)
    rare = r.random(n) < 0.002
    ns[rare] += r.exponential(30000, rare.sum()).astype(np.int64)
    if period:
        at = np.arange(r.uniform(0, period), n * dt / 1e9, period)
        ns[(at * 1e9 / dt).astype(int)] += 60000
    for s in r.choice(n - 10, bursts, replace=False):
        ns[s:s + 10] += 50000
    return t, ns


def write(tmp_path, data, name="s.bin"):
    p = tmp_path / name
    p.write_bytes(data)
    return p


@pytest.mark.parametrize("order", ["<", ">"])
def test_counts_and_figures_in_either_byte_order(tmp_path, order):
    t0, ns0 = noisy(1, 3000)
    t1 = np.arange(10, dtype=np.int64) * 1000
    ns1 = np.array([5000] * 9 + [250_000], dtype=np.int64)
    p = write(tmp_path, layout([(0, 0, "timer", "latency", t0, ns0),
                                (1, 1, "timer", "latency", t1, ns1)], order))
    r = report_here("samples", p)
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    assert lines[0].startswith(f"{p}: timer, 2 series, 3,010 samples over ")
    assert lines[0].endswith("; complete, 7 dropped")
    assert "7 samples were dropped (the writer fell behind)" in lines[1]
    assert "timer latency, CPU 1: 10 samples, min 5.0 µs, median 5.0 µs, " \
        "max 250.0 µs" in r.stdout


def test_a_file_cut_short_reads_and_says_so(tmp_path):
    t, ns = noisy(2, 5000)
    data = layout([(0, 0, "timer", "latency", t, ns)], end=False, chunk=1000)
    p = write(tmp_path, data)
    r = report_here("samples", p)
    assert r.returncode == 0, r.stderr
    assert "5,000 samples" in r.stdout
    assert "cut short (no end block: the run was killed)" in r.stdout


@pytest.mark.parametrize("damage, says", [
    (lambda d: b"NOTSAMPL" + d[8:], "not an rtlat --samples file"),
    (lambda d: d[:64 + 16 + 88 + 16 + 40], "cut inside a block of kind 2"),
    (lambda d: d[:64] + struct.pack("<IIII", 9, 0, 0, 0) + d[80:],
     "block of unknown kind 9"),
    (lambda d: d[:8] + struct.pack("<I", 7) + d[12:], "byte_order"),
    (lambda d: b"", "empty"),
])
def test_a_damaged_file_is_one_line_and_exit_2(tmp_path, damage, says):
    t, ns = noisy(3, 100)
    p = write(tmp_path, damage(layout([(0, 0, "timer", "latency", t, ns)])))
    out = tmp_path / "out.csv"
    r = report_here("samples", p, "--csv", out)
    assert r.returncode == 2
    assert r.stdout == ""
    assert len(r.stderr.splitlines()) == 1 and says in r.stderr, r.stderr
    assert not out.exists()


def test_csv_is_jittersamples_format(tmp_path):
    t0 = np.array([1000, 3_000_000_000], dtype=np.int64)
    ns0 = np.array([12_999, 7_000], dtype=np.int64)
    t1 = np.array([2000], dtype=np.int64)
    ns1 = np.array([1_000_000], dtype=np.int64)
    p = write(tmp_path, layout([(0, 2, "timer", "latency", t0, ns0),
                                (1, -1, "pmq", "latency", t1, ns1)]))
    out = tmp_path / "s.csv"
    r = report_here("samples", p, "--csv", out)
    assert r.returncode == 0, r.stderr
    # CPUID (the thread where not pinned);CLOCK_MONOTONIC s.ns;whole us,
    # in time order, as jittersamples(1) writes them.
    assert out.read_text() == ("2;5000.000001123;12\n"
                               "1;5000.000002123;1000\n"
                               "2;5003.000000123;7\n")
    r = report_here("samples", p, "--csv", out, "--cpu", "2")
    assert out.read_text().splitlines() == ["2;5000.000001123;12",
                                            "2;5003.000000123;7"]
    assert all(re.fullmatch(r"\d+;\d+\.\d{9};\d+", x)
               for x in out.read_text().splitlines())


@pytest.mark.parametrize("period", [0.5, 0.1, 0.0333])
def test_the_spectrum_finds_a_known_period(tmp_path, period):
    """40 s at 1 kHz, a 60 us disturbance every period s: found at that
    period, on every one of a few seeds."""
    for seed in range(3):
        t, ns = noisy(seed, 40000, period=period)
        p = write(tmp_path, layout([(0, 1, "timer", "latency", t, ns)]))
        r = report_here("samples", p)
        assert r.returncode == 0, r.stderr
        m = re.search(r"periodic: every ([\d.]+) (m?s) \(([\d,]+)/h\), "
                      r"([\d.]+) µs over the median", r.stdout)
        assert m, r.stdout
        got = float(m.group(1)) / (1000 if m.group(2) == "ms" else 1)
        assert got == pytest.approx(period, rel=0.01)
        assert int(m.group(3).replace(",", "")) == \
            pytest.approx(3600 / period, rel=0.01)
        assert float(m.group(4)) > 30


@pytest.mark.parametrize("bursts", [0, 10])
def test_no_rhythm_no_period(tmp_path, bursts):
    """Rare random spikes, and bursts of 10 spiking samples at random
    places: no period said on 20 seeds but at most one (ALPHA is 1 %)."""
    said = 0
    for seed in range(20):
        t, ns = noisy(100 + seed, 20000, bursts=bursts)
        p = write(tmp_path, layout([(0, 0, "timer", "latency", t, ns)]))
        r = report_here("samples", p)
        assert r.returncode == 0, r.stderr
        said += "periodic: every" in r.stdout
    assert said <= 1
