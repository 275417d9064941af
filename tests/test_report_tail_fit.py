# SPDX-License-Identifier: GPL-2.0-or-later
"""The tail estimate's assumptions and its coverage on known tails
(tests/tail_families.py, drawn deterministically): a drifting run, spikes
in bursts, periodic SMIs, a lone outlier and too short a run each get the
honest answer; each family's hour level holds the truth in its interval
(or is refused with the reason) over a few seeds. The long sweep (every
family at 10^5, 10^6, 10^7 samples, 100 seeds a cell; many minutes) runs
on demand: RTLAT_TAIL_SWEEP=1 (bench/tail-coverage prints the table)."""
import dataclasses
import json
import os
import sys
from pathlib import Path

import numpy as np
import pytest

from conftest import report_here

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "report"))
import tail_families as tfam  # noqa: E402
from rtlat_report.tail import analyse, fit, spikes  # noqa: E402

US = tfam.US


def summary(tmp_path, td, *extra):
    p = tmp_path / "run.json"
    p.write_text(json.dumps(tfam.timer_json(td)))
    out = tmp_path / "s.json"
    r = report_here(p, "--summary-json", out, "-o", tmp_path / "r.html",
                    *extra)
    assert r.returncode == 0, r.stderr
    (ser,) = json.loads(out.read_text())["runs"][0]["series"]
    return ser, (tmp_path / "r.html").read_text()


def no_numbers(ser):
    assert all(lv.get("ns") is None and lv["no_claim"]
               for lv in ser["return_levels"]), ser["return_levels"]


def test_drift_is_refused(tmp_path):
    """Latency rising 20 µs over a run with a 1-second time line: no
    level, the trend said in words (summary and page)."""
    td = tfam.draw(tfam.FAMILIES["drift"], 10 ** 6, 1)
    ser, page = summary(tmp_path, td)
    no_numbers(ser)
    why = ser["tail"]["no_claim"]
    assert "not stationary" in why and "rise by" in why, why
    assert "Mann-Kendall" in why and "not stationary" in page
    # without the time line, the largest samples' times tell it
    td.steps = None
    tf = fit.fit_tail(td)
    assert tf.fit is None and "crowd late" in tf.no_claim, tf.no_claim


def test_stationary_time_line_is_not_a_trend():
    """The same body without the drift, with its time line: a figure."""
    for seed in range(3):
        td = tfam.draw(tfam.FAMILIES["exponential"], 10 ** 6, seed,
                       timeline=True)
        tf = fit.fit_tail(td)
        assert tf.fit is not None, tf.no_claim


def bursts(seed, per_hour=20, size=10, n=3_600_000):
    """An hour at 1 ms of a 2 µs + Exp(3 µs) body and spikes of 100-200
    µs in bursts of `size` consecutive cycles (Poisson, per_hour bursts
    an hour); the spikes exact with their times, no time line."""
    rng = np.random.default_rng(seed)
    fam = tfam.FAMILIES["exponential"]
    td = tfam.draw(fam, n, seed, k=50)
    starts = np.sort(rng.choice(n - size, rng.poisson(per_hour),
                                replace=False))
    t = (starts[:, None] + np.arange(size)).ravel() * 1e-3
    v = rng.uniform(100 * US, 200 * US, len(t))
    ex = np.concatenate([v, td.exact])
    order = np.argsort(ex)[::-1]
    td.exact = ex[order]
    td.exact_times = np.concatenate([t, td.exact_times])[order]
    edges = np.floor(v / 1000) * 1000
    s, c = np.unique(edges, return_counts=True)
    keep = td.starts < 100 * US
    td.starts = np.concatenate([td.starts[keep], s])
    td.counts = np.concatenate([td.counts[keep], c.astype(float)])
    td.max_ns = float(v.max()) if len(v) else td.max_ns
    return td


def test_bursts_counted_by_clusters():
    """Spikes in bursts of 10, no time line: the extremal index says
    about 0.1, and the rate's 95 % interval, counted by clusters, holds
    the true rate (200/h) in at least 90 % of 40 seeds (counted by
    spikes it held 43 %)."""
    held = 0
    for seed in range(40):
        td = bursts(seed)
        r = spikes.rate(td, 100 * US)
        assert r.count_lo == r.count_hi == np.sum(td.exact >= 100 * US)
        if len(td.exact) >= 30:
            assert r.clustered, r
            assert 0.05 < getattr(r, "extremal_index", 0) < 0.2, r
        held += r.per_hour[1] <= 200 <= r.per_hour[2]
    assert held >= 36, held


def test_bursts_decluster_the_fit():
    """The tail fit of a run with spikes in bursts of 10 says so (its
    extremal index about 0.1) and its levels count clusters: the hour
    level's interval is no narrower than with the spikes independent."""
    td = bursts(1, per_hour=60)
    tf = fit.fit_tail(td)
    ei = getattr(tf, "extremal", None)
    assert ei is not None and 0.05 < ei.theta < 0.2, ei
    assert any("clusters" in w for w in tf.warnings), tf.warnings
    if tf.fit is not None:
        lv = fit.return_level(tf, td, tfam.HOUR_P, "hour")
        tf.theta = 1.0
        alone = fit.return_level(tf, td, tfam.HOUR_P, "hour")
        assert lv.hi - lv.lo >= alone.hi - alone.lo


def smi_run(every_s, seed, k, n=3_600_000):
    """An hour at 1 ms: the body, and an SMI of 100 µs (on top of the
    body) every every_s; the k largest samples exact."""
    fam = tfam.Family(f"smi {every_s}", tfam._smi(every_s)[0], 2e5,
                      every_s, tfam._smi(every_s)[1])
    return tfam.draw(fam, n, seed, k=k)


@pytest.mark.parametrize("every_s,k", [(0.5, 8192), (1.0, 1000)])
def test_periodic_smi_said_periodic(tmp_path, every_s, k):
    """An SMI every 0.5 s (all its spikes exact; through the report's
    summary and page) and every 1 s (only the 1000 largest): the rate at
    50 µs is said periodic with its period and rate (7,200/h; 3,600/h),
    not one cluster."""
    td = smi_run(every_s, 2, k)
    want = 3600 / every_s
    if every_s != 0.5:
        r = spikes.rate(td, 50 * US)
        pr = getattr(r, "periodic", None)
        assert pr is not None, r
        assert pr.period_s == pytest.approx(every_s, abs=1e-3)
        assert abs(r.count_lo - want) <= 4 * want ** 0.5
        assert not r.clustered
        return
    ser, page = summary(tmp_path, td, "--levels", "50")
    (r,) = ser["spike_rates"]
    assert abs(r["count"] - want) <= 4 * want ** 0.5
    pr = r.get("periodic") or {}
    assert pr.get("period_s") == pytest.approx(every_s, abs=1e-3), r
    assert pr.get("per_hour") == pytest.approx(want, rel=1e-3)
    assert not r["clustered"]
    assert f"every {every_s:.3f} s: {want:,.0f}/h" in page


def test_independent_spikes_not_periodic():
    """Spikes at random times: neither periodic nor clustered."""
    td = tfam.draw(tfam.FAMILIES["exponential"], 3_600_000, 4, k=200)
    r = spikes.rate(td, float(td.exact[-1]))
    assert getattr(r, "periodic", None) is None and not r.clustered, r


@pytest.mark.parametrize("exact", [True, False])
def test_lone_outlier_flagged(exact):
    """One 5 ms sample in an hour of exponential data (in the largest
    samples, or only in a wide histogram): no level, the sample named as
    beyond what the fit explains, in every seed."""
    fam = tfam.Family("exp", tfam._expo(), 1e7)
    for seed in range(4):
        td = tfam.draw(fam, 3_600_000, seed, width=1000.)
        td.counts[-1] -= 1
        td.starts = np.append(td.starts, 5000 * US)
        td.counts = np.append(td.counts, 1.0)
        td.max_ns = 5000.3 * US
        if exact:
            td.exact = np.concatenate([[td.max_ns], td.exact])
            td.exact_times = np.concatenate([[1234.5], td.exact_times])
        else:
            td.exact = td.exact_times = None
        tf = fit.fit_tail(td)
        assert tf.fit is None, tf.fit
        assert getattr(tf, "outlier_ns", None) == td.max_ns
        assert "beyond what the fitted tail explains" in tf.no_claim
        assert "5000 µs" in tf.no_claim


@pytest.mark.parametrize("n", [10 ** 3, 10 ** 4])
def test_short_run_refuses_a_day(tmp_path, n):
    """10^3 and 10^4 samples at 1 ms asked for a day level: words, no
    number, in every seed (the summary's words for the first)."""
    for seed in range(4):
        td = tfam.draw(tfam.FAMILIES["gpd 0.1"], n, seed, k=100)
        if seed == 0 and n == 10 ** 4:
            ser, _ = summary(tmp_path, td)
            no_numbers(ser)
            day = next(lv for lv in ser["return_levels"]
                       if lv["label"] == "day")
            assert "more than the 10×" in day["no_claim"] or \
                "too few samples" in day["no_claim"], day
            continue
        s = analyse.Series("x", td, fit.fit_tail(td))
        for lv in analyse.return_levels(s, 0.95):
            assert lv.ns is None and lv.no_claim, lv


def hour_coverage(name, n, seeds, label="hour"):
    """(held, given) of the level exceeded once per `label` (hour, day)
    over these seeds of a family at n samples."""
    fam = tfam.FAMILIES[name]
    truth = fam.level(tfam.HOUR_P if label == "hour" else tfam.DAY_P)
    held = given = 0
    for seed in seeds:
        td = tfam.draw(fam, n, seed)
        s = analyse.Series("x", td, fit.fit_tail(td))
        lv = next(lv for lv in analyse.return_levels(s, 0.95)
                  if lv.label == label)
        if lv.ns is None:
            assert lv.no_claim
            continue
        given += 1
        held += lv.lo <= truth <= lv.hi
    return held, given


@pytest.mark.parametrize("name", [f for f in tfam.FAMILIES
                                  if f != "drift"])
def test_family_hour_level_covers(name):
    """Each family at 10^6 samples (the hour 3.6× the run), 5 seeds: the
    95 % interval of the hour level holds the truth in all but at most
    one of the seeds that give one, and at least 4 give one."""
    held, given = hour_coverage(name, 10 ** 6, range(5))
    assert given >= 4 and held >= given - 1, (held, given)


@pytest.mark.skipif(not os.environ.get("RTLAT_TAIL_SWEEP"),
                    reason="the long sweep runs on demand: "
                    "RTLAT_TAIL_SWEEP=1")
@pytest.mark.parametrize("n", [10 ** 5, 10 ** 6, 10 ** 7])
@pytest.mark.parametrize("name", list(tfam.FAMILIES))
def test_family_coverage_long(name, n):
    """On demand: 100 seeds a cell; of the hour and day levels given, at
    least 90 % hold the truth (bench/tail-coverage prints the table)."""
    for label in ("hour", "day"):
        held, given = hour_coverage(name, n, range(100), label)
        assert not given or held / given >= 0.90, (label, held, given)


@pytest.mark.parametrize("name,u_us", [("gpd 0.3", 40), ("weibull 0.7", 30),
                                       ("smi 1 s", 106)])
def test_point_estimate_matches_pyextremes_and_scipy(name, u_us):
    """One seeded known-tail run at 10^6 samples, every sample over a
    fixed threshold exact: our maximum likelihood hour and day levels at
    that threshold are pyextremes' (POT, the GPD by MLE) and SciPy's
    genpareto fit within 0.5 %; from the 1 µs histogram alone (a binned
    fit) within 2 %. bench/tail-vs-pyextremes compares whole sweeps."""
    pytest.importorskip("pyextremes")
    fam, n, u = tfam.FAMILIES[name], 10 ** 6, u_us * US
    td = tfam.exact_over(fam, n, 1, u)
    x = td.exact[td.exact > u]
    ps = (tfam.HOUR_P, tfam.DAY_P)
    theirs = tfam.pyextremes_levels(x, n, u, ps)[0]
    scipy_ = tfam.scipy_levels(x, n, u, ps)
    binned = dataclasses.replace(td, exact=None, exact_times=None)
    for data, tol in ((td, 0.005), (binned, 0.02)):
        tf = fit.TailFit(fit=fit.fit_gpd(fit.exceedances(data, u)))
        assert tf.fit.n_u == len(x)
        for p, label, py, sp in zip(ps, ("hour", "day"), theirs, scipy_):
            ours = fit.return_level(tf, data, p, label).ns
            assert ours == pytest.approx(float(py), rel=tol), (label, tol)
            assert ours == pytest.approx(sp, rel=tol), (label, tol)
