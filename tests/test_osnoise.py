# SPDX-License-Identifier: GPL-2.0-or-later
"""rtlat osnoise against a stand-in of the kernel's osnoise tracer: a
tmpfs over /sys/kernel/tracing in a private mount namespace with its
control files and a trace_pipe of known period lines for two CPUs (this
machine's kernel has no osnoise tracer). Asserted: the table per CPU
(sums, shares, largest noises, counts by class), the JSON, the settings
given back, the one line without the tracer."""
import json
import shlex

import pytest

from conftest import RTLAT, in_mount_ns, run

TRACEFS = "/sys/kernel/tracing"
# runtime, noise, % available, max single, hw, nmi, irq, softirq, thread
LINES = [
    "           <...>-859     [000] ....    81.637220: 1000000        190  99.98100"
    "       9     18      0   1007     18      1",
    "           <...>-860     [001] ....    81.637300: 1000000         10  99.99900"
    "       4      0      0   1001      2      0",
    "# a header line, not a sample",
    "           <...>-859     [000] ....    82.637220: 1000000        310  99.96900"
    "      44      2      1   1003     20      3",
]
BEFORE = {"tracing_on": "1", "current_tracer": "nop", "tracing_thresh": "0",
          "osnoise/cpus": "0-1", "osnoise/period_us": "1000000",
          "osnoise/runtime_us": "1000000"}


def stand_in(lines=LINES, tracers="osnoise hwlat nop"):
    sh = [f"mount -t tmpfs none {TRACEFS} || exit 78", f"cd {TRACEFS}", "mkdir osnoise",
          f"echo {shlex.quote(tracers)} > available_tracers", ": > trace; : > trace_marker"]
    sh += [f"echo {shlex.quote(v)} > {k}" for k, v in BEFORE.items()]
    sh.append("printf '%s\\n' " + " ".join(shlex.quote(ln) for ln in lines) + " > trace_pipe")
    return "; ".join(sh) + "; cd /; "


def after(out):
    return (f"for k in {' '.join(BEFORE)}; do printf '%s\\t%s\\n' $k \"$(cat {TRACEFS}/$k)\"; "
            f"done > {out}; ")


def settings(path):
    return dict(ln.split("\t", 1) for ln in path.read_text().splitlines())


def test_noise_per_cpu_by_class(tmp_path):
    js = tmp_path / "o.json"
    r = in_mount_ns(stand_in() + f"{RTLAT} osnoise -D 1 --period 500000 --runtime 400000 "
                    f"--threshold 2 -c 0-1 --json {js}; rc=$?; " + after(tmp_path / "st") +
                    "exit $rc")
    assert r.returncode == 0, r.stderr
    out = r.stdout.splitlines()
    assert out[0].strip() == "Operating System Noise"
    assert out[1].startswith("duration:   0 00:00:0") and out[1].endswith("| time is in us")
    assert out[2].split() == ["CPU", "Period", "Runtime", "Noise", "%", "CPU", "Aval",
                              "Max", "Noise", "Max", "Single", "HW", "NMI", "IRQ",
                              "Softirq", "Thread"]
    assert [ln.split() for ln in out[3:]] == [
        ["0", "#2", "2000000", "500", "99.97500", "310", "44", "20", "1", "2010", "38", "4"],
        ["1", "#1", "1000000", "10", "99.99900", "10", "4", "0", "0", "1001", "2", "0"]]
    doc = json.loads(js.read_text())
    c0 = doc["cpus"]["0"]
    assert (c0["periods"], c0["runtime_us"], c0["noise_us"], c0["max_noise_us"],
            c0["max_single_us"]) == (2, 2000000, 500, 310, 44)
    assert c0["noise_share"] == pytest.approx(500 / 2000000)
    assert c0["counts"] == {"hw": 20, "nmi": 1, "irq": 2010, "softirq": 38, "thread": 4}
    assert doc["cpus"]["1"]["counts"]["irq"] == 1001 and doc["skipped"] is None
    assert settings(tmp_path / "st") == BEFORE


def test_no_osnoise_tracer_is_one_line(tmp_path):
    js = tmp_path / "o.json"
    r = in_mount_ns(stand_in(tracers="hwlat nop") + f"{RTLAT} osnoise -D 1 --json {js}; "
                    "rc=$?; " + after(tmp_path / "st") + "exit $rc")
    assert r.returncode == 0, r.stderr
    assert r.stdout == "Skipped: this kernel has no osnoise tracer (CONFIG_OSNOISE_TRACER): not run\n"
    assert json.loads(js.read_text())["skipped"].startswith("this kernel has no osnoise")
    assert settings(tmp_path / "st") == BEFORE


def test_runtime_over_period_is_bad_input(tmp_path):
    r = run(["osnoise", "--period", "1000", "--runtime", "2000", "--json",
             str(tmp_path / "x.json")])
    assert (r.returncode, r.stdout) == (2, "")
    assert len(r.stderr.splitlines()) == 1 and "--runtime" in r.stderr
    assert list(tmp_path.iterdir()) == []
