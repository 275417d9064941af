# SPDX-License-Identifier: GPL-2.0-or-later
"""rtlat hwlat and rtlat osnoise on the real tracers of the RT kernel
stage (tests/kernels/run, guest.sh: checks hwlat and osnoise). Under
emulation the figures mean nothing; asserted: the tracer ran and gave
events or figures (QEMU's vCPUs are preempted by the host, which hwlat
sees), the JSON holds them, the settings were given back. A kernel
without a tracer: the one "Skipped:" line and exit 0."""
import json

import pytest

from test_kernels import kernel, times  # noqa: F401 (the kernel fixture)


def tracers(d):
    return (d / "info.out").read_text().splitlines()[3].split()


def ran(d, check):
    got = times(d)
    if check not in got:
        pytest.skip(f"{check} was not among the checks run")
    return got[check][0]


def test_hwlat_sees_the_hosts_preemption(kernel):
    _, d = kernel
    assert ran(d, "hwlat") == 0, (d / "hwlat.err").read_text()
    out = (d / "hwlat.out").read_text()
    doc = json.loads((d / "hwlat.json").read_text())
    if "hwlat" not in tracers(d):
        assert out.startswith("Skipped: this kernel has no hwlat tracer")
        assert doc["skipped"] and doc["events"] == []
        return
    assert doc["skipped"] is None
    s = doc["summary"]
    assert s["events"] > 0, f"no hwlat event in {s['covered_s']} s: {out}"
    assert s["max_us"] > 10 and s["per_hour"]["lo"] > 0
    assert all(e["inner_us"] > 10 or e["outer_us"] > 10 for e in doc["events"])
    assert f"Samples recorded: {s['events']}" in out.splitlines()
    report = (d / "hwlat.report").read_text().splitlines()
    assert len(report) == s["kept"] and report[0].startswith("ts: ")
    tracer, thresh = (d / "hwlat.after").read_text().split()
    assert (tracer, thresh) == ("nop", "0")


def test_osnoise_gives_each_cpus_noise(kernel):
    _, d = kernel
    assert ran(d, "osnoise") == 0, (d / "osnoise.err").read_text()
    out = (d / "osnoise.out").read_text()
    doc = json.loads((d / "osnoise.json").read_text())
    if "osnoise" not in tracers(d):
        assert out.startswith("Skipped: this kernel has no osnoise tracer")
        return
    assert doc["skipped"] is None
    assert set(doc["cpus"]) == {"0", "1"}, out
    for cpu in doc["cpus"].values():
        assert cpu["periods"] > 0 and cpu["runtime_us"] > 0
        assert 0 <= cpu["noise_share"] <= 1
        assert cpu["max_single_us"] <= cpu["max_noise_us"] <= cpu["noise_us"]
        # the timer tick alone interrupts every period
        assert cpu["counts"]["irq"] > 0
    lines = out.splitlines()
    assert any(ln.split()[:1] == ["CPU"] for ln in lines)
    tracer, period, runtime = (d / "osnoise.after").read_text().split()
    assert tracer == "nop"
