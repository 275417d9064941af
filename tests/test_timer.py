# SPDX-License-Identifier: GPL-2.0-or-later
"""rtlat timer (Xenomai latency): output formats line by line, histogram
counts, per-second lines, endings, methods, bad input. Never a latency
value: the machine is shared and noisy."""
import json
import os
import re
import signal
import subprocess
import time
from pathlib import Path

import pytest

from conftest import RTLAT, UNMOUNT_TRACEFS, in_mount_ns, run, start, stop, watching

F = r"-?\d+\.\d{3}"
BANNER = [
    "== Sampling period: 100 us",
    "== Test mode: periodic user-mode task",
    "== All results in microseconds",
    "warming up...",
]
RTT = re.compile(r"^RTT\|  \d\d:\d\d:\d\d  \(periodic user-mode task, "
                 r"100 us period, priority 99\)$")
RTH = ("RTH|----lat min|----lat avg|----lat max|-overrun|---msw|"
       "---lat best|--lat worst")
RTD = re.compile(r"^RTD\|(?: {0,10}%s\|){3} {0,7}\d+\| {0,5}\d+\|"
                 r" {0,10}%s\| {0,10}%s$" % (F, F, F))
DASH = ("---|-----------|-----------|-----------|--------|------|"
        "-------------------------")
RTS = re.compile(r"^RTS\|(?: {0,10}%s\|){3} {0,7}\d+\| {0,5}\d+\|"
                 r"    \d\d:\d\d:\d\d/\d\d:\d\d:\d\d$" % F)
HSD_HEAD = "---|--param|----range-|--samples"
HSD = re.compile(r"^HSD\|    (min|avg|max)\| +(\d+) - *(\d+) \| +(\d+)$")
HSH = "HSH|--param|--samples-|--average--|---stddev--"
HSS = re.compile(r"^HSS\|    (min|avg|max)\| +(\d+)\| +(\d+\.\d{3})\|"
                 r" +(\d+\.\d{3})$")


def check_fixed_width(line):
    """Every field between bars has the original's width."""
    widths = {"RTD": [11, 11, 11, 8, 6, 11, 11], "RTS": [11, 11, 11, 8, 6]}
    parts = line.split("|")
    for part, w in zip(parts[1:], widths[parts[0]]):
        assert len(part) == w, (line, part, w)


def check_tail(lines, hist, stats):
    """Histograms (as asked), the dashed line and RTS end the output."""
    assert lines[-2] == DASH
    assert RTS.match(lines[-1]), lines[-1]
    check_fixed_width(lines[-1])
    hsd = [l for l in lines if l.startswith("HSD|")]
    hss = [l for l in lines if l.startswith("HSS|")]
    for l in hsd:   # exactly the original's printf layout
        k, a, b, c = HSD.match(l).groups()
        assert l == "HSD|    %s| %3d -%3d | %8d" % (k, int(a), int(b), int(c))
    for l in hss:
        k, n, avg, sd = HSS.match(l).groups()
        assert l == "HSS|    %s| %9d| %10.3f| %10.3f" % (k, int(n), float(avg), float(sd))
    if hist:
        assert lines.count(HSD_HEAD) == 3
    else:
        assert not hsd and HSD_HEAD not in lines
    if hist or stats:
        assert lines.count(HSH) == 1
        assert [HSS.match(l).group(1) for l in hss] == ["min", "avg", "max"]
    else:
        assert not hss and HSH not in lines


@pytest.fixture(scope="module")
def rich(tmp_path_factory):
    """One -T 3 run with every output: lines timed as they arrive."""
    d = tmp_path_factory.mktemp("timer")
    args = ["timer", "-p", "100", "-T", "3", "-l", "2", "-h", "-g",
            str(d / "hist.dat"), "--histfile", str(d / "cyc.txt"),
            "--json", str(d / "out.json")]
    p = start(args)
    lines, stamps = [], []
    for line in p.stdout:
        lines.append(line.rstrip("\n"))
        stamps.append(time.monotonic())
    p.wait(timeout=30)
    err = p.stderr.read()
    return {"rc": p.returncode, "lines": lines, "stamps": stamps, "dir": d,
            "err": err, "json": json.loads((d / "out.json").read_text())}


def test_banner_and_per_second_lines(rich):
    lines = rich["lines"]
    assert rich["rc"] == 0, rich["err"]
    assert lines[:4] == BANNER
    body = lines[4:lines.index(HSD_HEAD)]
    # -l 2: a header before data lines 1 and 3.
    kinds = ["RTT" if RTT.match(l) else "RTH" if l == RTH else
             "RTD" if RTD.match(l) else l for l in body]
    assert kinds == ["RTT", "RTH", "RTD", "RTD", "RTT", "RTH", "RTD"]
    assert body[0].startswith("RTT|  00:00:01")
    assert body[4].startswith("RTT|  00:00:03")
    for l in body:
        if l.startswith("RTD"):
            check_fixed_width(l)


def test_rtd_lines_come_once_a_second(rich):
    t = [s for l, s in zip(rich["lines"], rich["stamps"]) if l.startswith("RTD")]
    assert len(t) == 3
    for a, b in zip(t, t[1:]):
        assert 0.5 < b - a < 1.6, t


def test_rtd_best_and_worst_follow_the_seconds(rich):
    rtd = [[float(x) for x in l.split("|")[1:]] for l in rich["lines"]
           if l.startswith("RTD")]
    for i, r in enumerate(rtd):
        assert r[0] <= r[1] <= r[2]
        assert r[5] == min(x[0] for x in rtd[:i + 1])
        assert r[6] == max(x[2] for x in rtd[:i + 1])
    rts = [float(x) for x in rich["lines"][-1].split("|")[1:4]]
    assert rts[0] == min(r[0] for r in rtd)
    assert rts[2] == max(r[2] for r in rtd)
    assert rich["lines"][-1].endswith("00:00:03/00:00:03")


def test_histograms_add_up(rich):
    lines, j = rich["lines"], rich["json"]
    check_tail(lines, hist=True, stats=False)
    assert lines.count(HSD_HEAD) == 3
    hsd = [HSD.match(l) for l in lines if l.startswith("HSD|")]
    assert all(hsd)
    counts = {"min": 0, "avg": 0, "max": 0}
    order = []
    for m in hsd:
        assert int(m.group(3)) == int(m.group(2)) + 1
        counts[m.group(1)] += int(m.group(4))
        if not order or order[-1] != m.group(1):
            order.append(m.group(1))
    assert order == ["min", "avg", "max"]
    hss = {m.group(1): m for m in map(HSS.match, lines) if m}
    samples = j["latency"]["samples"]
    assert samples > 0
    assert counts["avg"] == int(hss["avg"].group(2)) == samples
    # One min and one max per second measured.
    assert counts["min"] == counts["max"] == 3 == int(hss["max"].group(2))
    h = j["latency"]["histogram"]
    assert sum(c for _, c in h["counts"]) + h["underflow"] + h["overflow"] == samples


def test_gnuplot_file(rich):
    text = (rich["dir"] / "hist.dat").read_text().splitlines()
    assert re.match(r"^# 00:00:03 \(periodic user-mode task, 100 us period, "
                    r"priority 99\)$", text[0])
    assert text[1] == "#  ----lat min| ----lat avg| ----lat max|-overrun|---msw|".replace(
        "#  ", "# ").replace("| ", "|")
    assert re.match(r"^# (?: {0,10}%s\|){3} {0,7}\d+\| {0,5}\d+\|$" % F, text[2])
    rows = [l.split(" ") for l in text[3:]]
    assert all(len(r) == 2 for r in rows)
    assert rows[0][1] == "1" and rows[-1][1] == "1"
    xs = [float(r[0]) for r in rows]
    assert xs == sorted(xs)
    # Bucket centres, count + 1: the counts sum to the samples plus one per row.
    body = rows[1:-1]
    assert all(float(x) % 1 == 0.5 for x, _ in body)
    total = sum(int(c) for _, c in body) - len(body)
    assert total == rich["json"]["latency"]["samples"]


def test_cyclictest_histfile(rich):
    text = (rich["dir"] / "cyc.txt").read_text().splitlines()
    assert text[0] == "# Histogram"
    assert text[-1] == ""       # cyclictest ends it with an empty line
    rows = [l for l in text[:-1] if not l.startswith("#")]
    assert rows and all(re.match(r"^\d{6} \d{6,}$", r) for r in rows)
    tail = [l for l in text if l.startswith("#")][1:]
    assert [t.split(":")[0] for t in tail] == [
        "# Total", "# Min Latencies", "# Avg Latencies", "# Max Latencies",
        "# Histogram Overflows", "# Histogram Overflow at cycle number",
        "# Thread 0"]
    total = int(tail[0].split()[-1])
    over = int(tail[4].split()[-1])
    assert total == sum(int(r.split()[1]) for r in rows)
    assert total + over == rich["json"]["latency"]["samples"]
    assert re.match(r"^# Min Latencies: \d{5}$", tail[1])


def test_json(rich):
    j = rich["json"]
    assert j["return_code"] == 0 and j["file_version"] == 1
    s = j["settings"]
    assert (s["method"], s["period_us"], s["priority"], s["mode"]) == \
        ("abs-nanosleep", 100, 99, 0)
    assert (s["histogram_cells"], s["bucket_ns"], s["warmup_s"]) == (200, 1000, 1)
    assert set(j["latency"]["percentiles_ns"]) == {"p50", "p90", "p99", "p99.9", "p99.99"}
    assert j["seconds"]["count"] == j["seconds"]["full"] == 3
    assert j["summary"]["actual_s"] == 3 and j["summary"]["requested_s"] == 3
    assert j["overruns"] == j["summary"]["overruns"] >= 0
    for k in ("min", "avg", "max"):
        h = j["histograms"][k]
        assert sum(c for _, c in h["counts"]) == h["samples"]
    assert j["histograms"]["avg"]["samples"] == j["latency"]["samples"]
    assert "system" in j and "rt" in j


METHODS = ["abs-nanosleep", "rel-nanosleep", "timerfd", "posix-timer"]


HOG = """
import os, sys, time
os.sched_setaffinity(0, {int(sys.argv[1])})
os.sched_setscheduler(0, os.SCHED_FIFO, os.sched_param(int(sys.argv[2])))
end = time.monotonic() + float(sys.argv[3])
while time.monotonic() < end:
    t = time.monotonic() + 0.0005
    while time.monotonic() < t:
        pass
    time.sleep(0.0005)
"""


@pytest.fixture(scope="module")
def parallel_runs(tmp_path_factory):
    """The -T runs that need no timing, all at once to save time: each
    method, the compatible name, -s, -g -, -b and the suite's pipe."""
    d = tmp_path_factory.mktemp("timer-par")
    link = d / "latency"
    link.symlink_to(RTLAT)
    rfd, wfd = os.pipe()
    env = dict(os.environ, RTLAT_SUMMARY_FD=str(wfd))
    procs = {m: start(["timer", "--method", m, "-T", "2", "-q", "--json",
                       str(d / f"{m}.json")]) for m in METHODS}
    procs["latency"] = subprocess.Popen(
        [str(link), "-T", "3", "-q"], stdout=subprocess.PIPE,
        stderr=subprocess.PIPE, text=True)
    procs["stats"] = start(["timer", "-T", "2", "-q", "-s", "-g", "-"])
    procs["break"] = start(["timer", "-T", "2", "-q", "-b"])
    # A SCHED_FIFO 2 hog, half busy, on the last CPU preempts a sampler at
    # priority 1 there: -b must end that run after its first second.
    cpu = str(os.cpu_count() - 1)
    procs["hog"] = subprocess.Popen(
        ["python3", "-c", HOG, cpu, "2", "3.5"], stdout=subprocess.PIPE,
        stderr=subprocess.PIPE, text=True)
    procs["preempted"] = start(["timer", "-T", "3", "-b", "-P", "1", "-c", cpu,
                                "--json", str(d / "b.json")])
    procs["suite"] = start(["timer", "-T", "2", "-q"], env=env, pass_fds=(wfd,))
    os.close(wfd)
    out = {}
    for k, p in procs.items():
        o, e = p.communicate(timeout=30)
        out[k] = (p.returncode, o.splitlines(), e)
    summary = os.read(rfd, 4096).decode()
    os.close(rfd)
    return out, d, summary


@pytest.mark.parametrize("method", METHODS)
def test_each_method(parallel_runs, method):
    out, d, _ = parallel_runs
    rc, lines, err = out[method]
    assert rc == 0, err
    assert lines[:4] == BANNER
    assert not any(l.startswith(("RTD", "RTT", "RTH")) for l in lines)
    check_tail(lines, hist=False, stats=False)
    assert "running quietly for 2 seconds" in err
    j = json.loads((d / f"{method}.json").read_text())
    assert j["settings"]["method"] == method
    assert j["latency"]["samples"] > 0
    assert j["seconds"]["full"] == 2
    if method == "rel-nanosleep":
        assert j["overruns"] == 0


def test_started_as_latency(parallel_runs):
    rc, lines, err = parallel_runs[0]["latency"]
    assert rc == 0, err
    assert lines[:4] == BANNER
    assert lines[-1].endswith("00:00:03/00:00:03")
    check_tail(lines, hist=False, stats=False)


def test_stats_only_and_gnuplot_to_stdout(parallel_runs):
    rc, lines, err = parallel_runs[0]["stats"]
    assert rc == 0, err
    check_tail(lines, hist=False, stats=True)
    g = [i for i, l in enumerate(lines) if l.startswith("HSS|    max")][0] + 1
    assert lines[g].startswith("# 00:00:02 (periodic user-mode task")
    assert re.match(r"^[\d.e+]+ 1$", lines[g + 3])


def test_break_on_switch_runs(parallel_runs):
    rc, lines, err = parallel_runs[0]["break"]
    assert rc == 0, err
    assert RTS.match(lines[-1])


def test_break_on_preemption(parallel_runs):
    """msw counts the sampler's involuntary context switches; -b stops at
    the first second that had one, with RTS and the JSON."""
    out, d, _ = parallel_runs
    rc, lines, err = out["preempted"]
    assert rc == 0, err
    j = json.loads((d / "b.json").read_text())
    rtd = [l for l in lines if l.startswith("RTD")]
    msw = [int(l.split("|")[5]) for l in rtd]
    if not any(msw):
        pytest.skip("the hog never preempted the sampler")
    assert "-b: the sampling thread was preempted" in err
    assert msw[-1] > 0 and msw[:-1] == [0] * (len(msw) - 1)
    assert j["msw"] == msw[-1] and j["stopped_by"].startswith("-b")
    assert j["seconds"]["count"] == len(rtd) < 3
    assert RTS.match(lines[-1]) and lines[-1].endswith("/00:00:03")


def test_suite_summary_row(parallel_runs):
    # name samples min avg max p99 p99.99 (what the table shows), then p50,
    # the cumulative OpenMetrics bucket counts where they change
    # ("BOUND:COUNT,..." of 226 bounds, "-" for none), the thread (-1: the
    # series whole), its CPU and the seconds to the figure (fleet_rec_format);
    # a row for the whole, then one for each CPU's sampler
    rows = [ln.split("\t") for ln in parallel_runs[2].strip().split("\n")]
    assert len(rows) == 2
    for k, row in enumerate(rows):
        assert row[0] == "latency" and len(row) == 8 + 1 + 3 and int(row[1]) > 0
        le = [tuple(map(int, x.split(":"))) for x in row[8].split(",")]
        assert [b for b, _ in le] == sorted({b for b, _ in le})
        assert all(0 <= b < 226 for b, _ in le)
        counts = [c for _, c in le]
        assert counts == sorted(counts) and counts[-1] <= int(row[1])
        assert int(row[9]) == k - 1 and float(row[11]) > 0
    assert rows[0][1:9] == rows[1][1:9]     # one CPU: the whole is its part
    assert int(rows[0][10]) == -1 and int(rows[1][10]) >= 0


@pytest.mark.parametrize("when,sig,hist", [
    ("warm-up", signal.SIGINT, True),   # once it answers: in the warm-up
    ("measured", signal.SIGINT, True),  # after its first whole second
    ("measured", signal.SIGTERM, False),
])
def test_endings_by_signal(tmp_path, leakcheck, when, sig, hist):
    js = tmp_path / "o.json"
    args = ["timer", "--json", str(js), "--histfile", str(tmp_path / "c.txt"),
            "-g", str(tmp_path / "g.dat")]
    with watching(args + (["-h"] if hist else [])) as p:
        if when == "warm-up":
            p.ready()
        else:
            p.wait_line(r"^RTD\|", "out")
        rc, out, err = stop(p, sig)
    lines = out.splitlines()
    assert rc == 0, err
    assert lines[:4] == BANNER
    check_tail(lines, hist=hist, stats=hist)
    j = json.loads(js.read_text())
    assert j["return_code"] == 0
    assert j["summary"]["requested_s"] == j["summary"]["actual_s"]
    if when == "warm-up":
        assert j["latency"]["samples"] == 0
        assert lines[-1].startswith("RTS|      0.000|")
    else:
        assert j["latency"]["samples"] > 0
        assert j["seconds"]["full"] >= 1
    assert (tmp_path / "c.txt").read_text().startswith("# Histogram\n")
    assert (tmp_path / "g.dat").read_text().startswith("# 00:00:0")
    assert sorted(os.listdir(tmp_path)) == ["c.txt", "g.dat", "o.json"]
    leakcheck()


def test_ended_by_duration_leaves_nothing(tmp_path, leakcheck):
    r = run(["timer", "-T", "1", "-q", "-p", "1000"], cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert RTS.match(r.stdout.splitlines()[-1])
    assert os.listdir(tmp_path) == []
    leakcheck()


BAD = [
    (["-p", "0"], "-p", "10 to 1000000"),
    (["-p", "-5"], "-p", "10 to 1000000"),
    (["-p", "9"], "-p", "10 to 1000000"),
    (["-p", "1000001"], "-p", "10 to 1000000"),
    (["-P", "0"], "-P", "1 to 99"),
    (["-P", "100"], "-P", "1 to 99"),
    (["-c", "4096"], "-c", "online CPU"),
    (["-c", "-1"], "-c", "online CPU"),
    (["-H", "0"], "-H", "1 to 1000000"),
    (["-H", "99999999"], "-H", "1 to 1000000"),
    (["-B", "0"], "-B", "1 to 1000000000"),
    (["-l", "-1"], "-l", "0 to 1000000"),
    (["-T", "-3"], "-T", "duration"),
    (["-T", "3x"], "-T", "duration"),
    (["-T", "abc"], "-T", "duration"),
    # -q without -T warns and runs, as the original (test_compat_timer).
    (["-t", "4"], "-t", "0 to 3"),
    (["-t", "-1"], "-t", "0 to 3"),
    (["-g", "/nonexistent-dir/hist.dat"], "-g", "nonexistent-dir"),
    (["-g", "/proc"], "-g", "is a directory"),
    (["--histfile", "/nonexistent-dir/h.txt"], "--histfile", "nonexistent-dir"),
    (["--json", "/nonexistent-dir/o.json"], "--json", "nonexistent-dir"),
    (["--method", "busy-wait"], "--method", "abs-nanosleep, rel-nanosleep, timerfd, posix-timer"),
    (["-x"], "unknown option -x", ""),
    (["extra"], "unexpected argument", ""),
]


@pytest.mark.parametrize("args,opt,accepted", BAD, ids=[" ".join(b[0]) for b in BAD])
def test_bad_input(tmp_path, leakcheck, args, opt, accepted):
    r = run(["timer"] + args, cwd=tmp_path)
    assert r.returncode == 2
    err = r.stderr.splitlines()
    assert len(err) == 1, r.stderr
    assert opt in err[0] and accepted in err[0]
    assert r.stdout == ""
    assert os.listdir(tmp_path) == []
    leakcheck()


def test_kernel_modes_need_timerlat():
    """Without the tracer, -t 1|2 are bad input: exit 2, one line naming -t
    and the kernel feature. On a freshly booted machine (tracefs not
    mounted) rtlat mounts tracefs to look, and a refusal unmounts it again
    (nothing left behind) and says only that line. (With the tracer, bad
    input found after the look: tests/kernels, check badinput.)"""
    tracers = Path("/sys/kernel/tracing/available_tracers")
    if tracers.exists() and "timerlat" in tracers.read_text().split():
        pytest.skip("this kernel has the timerlat tracer")
    for mode in ("1", "2"):
        r = run(["timer", "-t", mode, "-T", "1"])
        assert r.returncode == 2
        assert len(r.stderr.splitlines()) == 1
        assert "timerlat" in r.stderr and "-t" in r.stderr
    r = in_mount_ns(UNMOUNT_TRACEFS + f"{RTLAT} timer -t 1 -T 1; rc=$?; "
                    "test -e /sys/kernel/tracing/tracing_on && rc=99; "
                    "test -e /sys/kernel/debug/tracing/tracing_on && rc=98; exit $rc")
    assert r.returncode == 2, r.stderr
    assert len(r.stderr.splitlines()) == 1, r.stderr
    assert r.stderr.startswith("rtlat timer: option -t"), r.stderr
    assert "mounted" not in r.stderr and r.stdout == ""


def test_help_is_long_only():
    r = run(["timer", "--help"])
    assert r.returncode == 0
    assert "-h " in r.stdout and "--method" in r.stdout


def tracefs():
    d = Path("/sys/kernel/tracing")
    if not (d / "tracing_on").exists():
        subprocess.run(["mount", "-t", "tracefs", "nodev", str(d)],
                       capture_output=True, check=False)
    return d if (d / "tracing_on").exists() else None


def test_freeze_marks_the_trace():
    d = tracefs()
    if not d:
        pytest.skip("no tracefs")
    (d / "tracing_on").write_text("1")
    try:
        r = run(["timer", "-f", "-T", "1", "-q"])
        assert r.returncode == 0, r.stderr
        if "tracing stopped" in r.stderr:
            assert (d / "tracing_on").read_text().strip() == "0"
            assert "rtlat timer: new maximum latency" in (d / "trace").read_text()
    finally:
        (d / "tracing_on").write_text("1")


@pytest.mark.parametrize("argv0", [None, "latency"])
def test_testing_device_as_xenomai(argv0, tmp_path, leakcheck):
    """-D <testing_device_no> of Xenomai's latency: device 0, the only one
    on Linux, is accepted (and recorded); another number is bad input
    naming what exists."""
    js = tmp_path / "t.json"
    args = ["-D", "0", "-q", "-T", "1", "--json", str(js)]
    r = run((["timer"] if argv0 is None else []) + args, argv0=argv0)
    assert r.returncode == 0, r.stderr
    assert json.loads(js.read_text())["settings"]["device"] == 0
    r = run((["timer"] if argv0 is None else []) + ["-D", "1", "-T", "1"], argv0=argv0)
    prog = "rtlat timer" if argv0 is None else "latency"
    assert (r.returncode, r.stdout) == (2, "")
    assert r.stderr == f"{prog}: option -D: '1' is not accepted; accepted: 0\n"
    leakcheck()
