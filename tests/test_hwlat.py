# SPDX-License-Identifier: GPL-2.0-or-later
"""rtlat hwlat and its hwlatdetect face against a stand-in of the kernel's
hwlat tracer: a tmpfs over /sys/kernel/tracing in a private mount
namespace holding the tracer's control files and a trace_pipe of known
events, and a tmpfs over /dev/cpu whose N/msr files hold known
MSR_SMI_COUNT values (this machine's kernel has no hwlat tracer, and its
CPUs no SMI counter). What is asserted is what a user reads: the lines,
the JSON, the report file, the settings given back, the exit status."""
import json
import os
import shlex

import pytest

from conftest import RTLAT, in_mount_ns, run

TRACEFS = "/sys/kernel/tracing"

EVENTS = [
    "          <...>-1729  [001] d...   678.473449: #1     inner/outer(us):   11/12    "
    "ts:1581527483.343962693 count:6",
    "not an event line: dropped",
    "          <...>-1729  [000] d...   679.473449: #2     inner/outer(us):   25/3     "
    "ts:1581527484.343962693 count:1 nmi-total:7 nmi-count:1",
    "          <...>-1729  [001] dn..   680.473449: #3     inner/outer(us):    9/15    "
    "ts:1581527485.000000001 count:2",
]

# The tracer's files as a kernel with CONFIG_HWLAT_TRACER has them, idle.
BEFORE = {"tracing_on": "1", "current_tracer": "nop", "tracing_thresh": "0",
          "tracing_cpumask": "3", "hwlat_detector/window": "1000000",
          "hwlat_detector/width": "500000",
          "hwlat_detector/mode": "none [round-robin] per-cpu"}


def msr_bytes(count):
    """A /dev/cpu/N/msr stand-in: MSR_SMI_COUNT (0x34) at its offset."""
    data = bytearray(0x40)
    data[0x34:0x3c] = count.to_bytes(8, "little")
    return "".join(f"\\{b:03o}" for b in data)


def stand_in(events=EVENTS, smi=(5, 9)):
    """Shell: mount the stand-ins (tracefs, and the SMI counters unless
    smi is None)."""
    sh = [f"mount -t tmpfs none {TRACEFS} || exit 78", f"cd {TRACEFS}",
          "mkdir hwlat_detector", "echo 'hwlat blk function nop' > available_tracers",
          ": > trace; : > trace_marker"]
    sh += [f"echo {shlex.quote(v)} > {k}" for k, v in BEFORE.items()]
    sh.append("printf '%s\\n' " + " ".join(shlex.quote(e) for e in events) +
              " > trace_pipe")
    if smi is not None:
        sh.append("mount -t tmpfs none /dev/cpu || exit 78")
        for cpu, count in enumerate(smi):
            sh.append(f"mkdir /dev/cpu/{cpu} && printf '{msr_bytes(count)}' > /dev/cpu/{cpu}/msr")
    sh.append("cd /")
    return "; ".join(sh) + "; "


def settings_read(path):
    """The files after() wrote; the mode as the choice in use (the kernel
    lists them all with it in brackets, a stand-in holds what was
    written)."""
    st = dict(line.split("\t", 1) for line in path.read_text().splitlines())
    mode = st["hwlat_detector/mode"]
    if "[" in mode:
        st["hwlat_detector/mode"] = mode.split("[")[1].split("]")[0]
    return st


RESTORED = dict(BEFORE, **{"hwlat_detector/mode": "round-robin"})


def after(out):
    """Shell: the tracer's files after the run, as JSON, into out."""
    keys = " ".join(BEFORE)
    return (f"for k in {keys}; do printf '%s\\t%s\\n' $k \"$(cat {TRACEFS}/$k)\"; "
            f"done > {out}; ")


def run_until_started(args, tmp_path, bump_cpu=None):
    """rtlat hwlat ARGS until stopped, in the stand-ins: once it says
    "Starting test", the SMI count of bump_cpu goes up by 3, then SIGINT
    ends it. Returns (exit status, stdout, stderr, settings after)."""
    out, err, st = tmp_path / "out", tmp_path / "err", tmp_path / "after"
    bump = ""
    if bump_cpu is not None:
        bump = (f"printf '\\014' | dd of=/dev/cpu/{bump_cpu}/msr bs=1 seek=52 "
                "conv=notrunc 2>/dev/null; ")
    sh = (stand_in() + f"{RTLAT} hwlat -D 0 {' '.join(args)} > {out} 2> {err} & pid=$!; "
          f"until grep -q '^Starting test' {out} || ! kill -0 $pid 2>/dev/null; do sleep 0.01; done; "
          + bump + "kill -INT $pid; wait $pid; rc=$?; " + after(st) + "exit $rc")
    r = in_mount_ns(sh)
    return r.returncode, out.read_text(), err.read_text() + r.stderr, settings_read(st)


def test_events_summary_json_and_settings_restored(tmp_path):
    """Each event with its inner/outer gap, CPU and NMIs; hwlatdetect's
    summary lines; the rate per hour with the exact interval rtlat-report
    gives spike rates; the SMI counts before and after (CPU 1's went up
    by 3 during the run); the tracer's settings given back."""
    js, rep = tmp_path / "h.json", tmp_path / "rep.txt"
    rc, out, err, st = run_until_started(
        ["--threshold", "10", "--hardlimit", "30", "--window", "200000", "--width",
         "100000", "-c", "1", "--json", str(js), "--report", str(rep)], tmp_path,
        bump_cpu=1)
    assert rc == 0, err
    assert err == ""
    lines = out.splitlines()
    assert lines[:11] == [
        "rtlat hwlat:  test duration 0 seconds", "   detector: tracer", "   parameters:",
        "        CPU list:          1", "        Latency threshold: 10us",
        "        Sample window:     200000us", "        Sample width:      100000us",
        "     Non-sampling period:  100000us", f"        Output File:       {rep}",
        "        Mode:              round-robin", ""]
    assert "Starting test" in lines and "test finished" in lines
    assert "Max Latency: 25us" in lines
    assert "Samples recorded: 3" in lines and "Samples exceeding threshold: 3" in lines
    assert "3 SMIs occured on cpu 1" in lines and "SMIs during run: 3" in lines
    assert "NMIs during events: 1 (7 us)" in lines
    assert f"report saved to {rep} (3 samples)" in lines
    assert lines[-3:] == ["ts: 1581527483.343962693, inner:11, outer:12, cpu:1",
                          "ts: 1581527484.343962693, inner:25, outer:3, cpu:0, nmi:1 (7 us)",
                          "ts: 1581527485.000000001, inner:9, outer:15, cpu:1"]
    assert rep.read_text().splitlines() == [
        "ts: 1581527483.343962693, inner:11, outer:12",
        "ts: 1581527484.343962693, inner:25, outer:3",
        "ts: 1581527485.000000001, inner:9, outer:15"]
    doc = json.loads(js.read_text())
    assert doc["rtlat"]["test"] == "hwlat" and doc["return_code"] == 0
    assert doc["tracer"] == {"window_us": 200000, "width_us": 100000,
                             "threshold_us": 10, "mode": "round-robin"}
    ev = doc["events"]
    assert [(e["seq"], e["cpu"], e["inner_us"], e["outer_us"], e["count"]) for e in ev] == \
        [(1, 1, 11, 12, 6), (2, 0, 25, 3, 1), (3, 1, 9, 15, 2)]
    assert (ev[1]["nmi_count"], ev[1]["nmi_total_us"]) == (1, 7)
    assert (ev[0]["nmi_count"], ev[0]["nmi_total_us"], ev[2]["ts"]) == \
        (0, None, "1581527485.000000001")
    s = doc["summary"]
    assert (s["events"], s["kept"], s["max_us"], s["hardlimit_us"], s["over_hardlimit"]) == \
        (3, 3, 25, 30, False)
    assert doc["smi"] == {"0": {"start": 5, "end": 5}, "1": {"start": 9, "end": 12}}
    # The rate's interval is rtlat-report's (tail/spikes), to 1e-6.
    from rtlat_report.tail.spikes import poisson_interval
    lo, hi = poisson_interval(3, 0.95)
    h = s["covered_s"] / 3600
    assert s["per_hour"]["estimate"] == pytest.approx(3 / h, rel=1e-9)
    assert s["per_hour"]["lo"] == pytest.approx(lo / h, rel=1e-6)
    assert s["per_hour"]["hi"] == pytest.approx(hi / h, rel=1e-6)
    rate = next(ln for ln in lines if ln.startswith("Events per hour: "))
    assert "(95 %, 3 in" in rate
    # Given back as they were.
    assert st == RESTORED


def test_hardlimit_exceeded_is_exit_3(tmp_path):
    """A gap over --hardlimit fails the run: exit 3 (rtlat's threshold
    status; hwlatdetect itself exits 1), JSON over_hardlimit true. With
    no SMI counter, one line on stderr says so and the rest runs."""
    js = tmp_path / "h.json"
    sh = stand_in(smi=None) + "mount -t tmpfs none /dev/cpu || exit 78; " + \
        (f"{RTLAT} hwlat -D 1 --hardlimit 20 --json {js} "
                               f"--watch > {tmp_path}/out")
    r = in_mount_ns(sh)
    assert r.returncode == 3, r.stderr
    err = r.stderr.splitlines()
    assert len(err) == 1 and "SMI counts: no /dev/cpu/" in err[0], r.stderr
    doc = json.loads(js.read_text())
    assert doc["summary"]["over_hardlimit"] is True and doc["return_code"] == 3
    assert doc["smi"] is None and "msr" in doc["smi_unavailable"]
    out = (tmp_path / "out").read_text().splitlines()
    # --watch: each event as it came, before the summary, not again after
    assert out.index("ts: 1581527484.343962693, inner:25, outer:3, cpu:0, nmi:1 (7 us)") < \
        out.index("test finished")
    assert any(ln.startswith("Events per hour: ") for ln in out)


def test_hwlatdetect_face(tmp_path):
    """Under the name hwlatdetect: its lines exactly (no rtlat additions),
    its sample lines. Its --hardlimit is the threshold unless given: a
    gap over it is exit 3 (rtlat's threshold status; hwlatdetect's 1)."""
    sh = stand_in() + f"exec -a hwlatdetect {RTLAT} --duration 1 --threshold 10"
    r = in_mount_ns("bash -c " + shlex.quote(sh))
    assert r.returncode == 3, r.stderr
    assert r.stdout.splitlines() == [
        "hwlatdetect:  test duration 1 seconds", "   detector: tracer", "   parameters:",
        "        CPU list:          None", "        Latency threshold: 10us",
        "        Sample window:     1000000us", "        Sample width:      500000us",
        "     Non-sampling period:  500000us", "        Output File:       None", "",
        "Starting test", "test finished", "Max Latency: 25us", "Samples recorded: 3",
        "Samples exceeding threshold: 3", "SMIs during run: 0",
        "ts: 1581527483.343962693, inner:11, outer:12",
        "ts: 1581527484.343962693, inner:25, outer:3",
        "ts: 1581527485.000000001, inner:9, outer:15"]


def test_no_hwlat_tracer_is_said_and_skipped(tmp_path):
    """Where the kernel has no hwlat tracer: one line says so, nothing is
    set, the JSON says why ("skipped"), exit 0 (nothing could be run, so
    nothing failed; the qualification's hwlat phase goes on)."""
    js = tmp_path / "h.json"
    sh = stand_in().replace("'hwlat blk function nop'", "'blk function nop'") + \
        f"{RTLAT} hwlat -D 1 --json {js}; rc=$?; " + after(tmp_path / "after") + "exit $rc"
    r = in_mount_ns(sh)
    assert r.returncode == 0, r.stderr
    assert r.stdout == "Skipped: this kernel has no hwlat tracer (CONFIG_HWLAT_TRACER): not run\n"
    doc = json.loads(js.read_text())
    assert "no hwlat tracer" in doc["skipped"] and doc["events"] == []
    assert settings_read(tmp_path / "after") == RESTORED


@pytest.mark.parametrize("args,opt", [
    (["--window", "100", "--width", "100"], "--width"),
    (["--mode", "all"], "--mode"),
    (["--threshold", "0"], "--threshold"),
])
def test_bad_input(args, opt, tmp_path):
    r = run(["hwlat", "-D", "1", "--json", str(tmp_path / "x.json")] + args)
    assert (r.returncode, r.stdout) == (2, "")
    assert len(r.stderr.splitlines()) == 1 and opt in r.stderr
    assert list(tmp_path.iterdir()) == []


REAL = "/usr/sbin/hwlatdetect"


@pytest.mark.skipif(not os.path.exists(REAL) or os.path.exists("/usr/sbin/rdmsr"),
                    reason="needs rt-tests' hwlatdetect (and no msr-tools: it then reads SMIs)")
def test_same_lines_as_the_real_hwlatdetect(tmp_path):
    """rt-tests' hwlatdetect and rtlat under its name, one after the other
    on the same stand-in tracer (hwlatdetect looks for it under debugfs:
    the stand-in is mounted there and on /sys/kernel/tracing), no events:
    the same lines, the same exit status."""
    files = {k: v for k, v in BEFORE.items() if k != "hwlat_detector/mode"}
    setup = ["mountpoint -q /sys/kernel/debug || mount -t debugfs none /sys/kernel/debug "
             "|| exit 78", "mount -t tmpfs none /sys/kernel/debug/tracing || exit 78",
             f"mount --bind /sys/kernel/debug/tracing {TRACEFS} || exit 78",
             "mount -t tmpfs none /dev/cpu || exit 78", f"cd {TRACEFS}",
             "mkdir hwlat_detector", "echo 'hwlat nop' > available_tracers",
             ": > trace; : > trace_marker; : > trace_pipe"]
    reset = [f"echo {shlex.quote(v)} > {TRACEFS}/{k}" for k, v in files.items()]
    args = "--duration 1 --threshold 10 --window 200000 --width 100000 --cpu-list 1"
    sh = "; ".join(setup + reset) + "; cd /; " + \
        f"python3 {REAL} {args} > {tmp_path}/real; echo $? > {tmp_path}/real.rc; " + \
        "; ".join(reset) + "; " + \
        f"(exec -a hwlatdetect {RTLAT} {args}) > {tmp_path}/mine; echo $? > {tmp_path}/mine.rc"
    r = in_mount_ns("bash -c " + shlex.quote(sh))
    assert r.returncode == 0, r.stderr
    real, mine = (tmp_path / "real").read_text(), (tmp_path / "mine").read_text()
    assert "Samples recorded: 0" in real
    assert mine == real
    assert (tmp_path / "mine.rc").read_text() == (tmp_path / "real.rc").read_text()


def test_qualify_records_hardware_gaps_and_judges_by_the_timer(tmp_path):
    """qualify's hwlat phase on the stand-in tracer, whose events (25 us)
    are over hwlat's own 10 us hard limit: the phase is done with its
    events in its JSON, and the qualification's exit is its timer's
    verdict (0 here), not an error for the phase's exit 3 (it was 1,
    "hwlat exited with status 3", on every VM)."""
    d = tmp_path / "q"
    r = in_mount_ns(stand_in() +
                    f"{RTLAT} qualify --force --duration 4 --hwlat-time 1 --load none "
                    f"--load-cmd true -q -o {d}", timeout=120)
    assert r.returncode == 0, r.stderr
    index = json.loads((d / "index.json").read_text())
    hw = next(t for t in index["tests"] if t["phase"] == "hwlat")
    assert hw["state"] == "done", hw
    data = json.loads((d / "hwlat.json").read_text())
    assert data["return_code"] == 0 and data["events"], data
