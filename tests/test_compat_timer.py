# SPDX-License-Identifier: GPL-2.0-or-later
"""The timer's two faces against their originals (issue 31): the
cyclictest face's JSON value by value beside rt-tests' cyclictest run
with the same options, and `latency` / `rtlat timer` against Xenomai's
latency man page (-H, -q, -f, RTS after ^C) plus rtlat timer's jitter.
Never a latency value: only what the options and the lines decide."""
import json
import os
import re
import shutil
import signal
import subprocess
import time

import pytest

from conftest import RTLAT, in_mount_ns, real_cyclictest_json, run, start, watching
from test_attacks_timer import STANDIN

REAL = shutil.which("cyclictest")


def real_cyclictest():
    """rt-tests' cyclictest, not rtlat under that name: its --help says
    'cyclictest V 2.xx'. None when missing."""
    if not REAL or os.path.realpath(REAL) == os.path.realpath(RTLAT):
        return None
    r = subprocess.run([REAL, "--help"], capture_output=True, text=True, timeout=30)
    m = re.match(r"cyclictest V (\d+\.\d+)", r.stdout + r.stderr)
    return m[1] if m else None


REAL_VERSION = real_cyclictest()
needs_real = pytest.mark.skipif(REAL_VERSION is None,
                                reason="rt-tests' cyclictest not installed")

# rt-tests' version whose format the face follows (rtlat's own version is
# in "rtlat": {"version"}).
FORMAT_VERSION = "2.40"

# Where rtlat's JSON differs from cyclictest's on purpose (SPEC §6, §9):
# rtlat's own objects after cyclictest's keys, "complete" and "checkpoint"
# (--checkpoint: a file of a run still going), and per thread the ns
# figures and the overruns (missed periods counted, not skipped).
EXTRA_TOP = {"rtlat", "fleet", "system", "rt", "doctor", "timeline", "largest",
             "complete", "checkpoint", "samples", "smi", "smi_unavailable"}
EXTRA_THREAD = {"min_ns", "avg_ns", "max_ns", "overruns"}
# Measured: what the machine decides, compared by type and format only.
MEASURED_THREAD = {"min", "max", "avg", "histogram"}
TIME = re.compile(r"^[A-Z][a-z]{2}, \d\d [A-Z][a-z]{2} \d{4} \d\d:\d\d:\d\d [+-]\d{4}$")


def both_json(tmp_path, args, argv0=None):
    """(rtlat's JSON, cyclictest's JSON, rtlat's argv) on the same options."""
    mine, real = tmp_path / "rtlat.json", tmp_path / "real.json"
    # rtlat's "cmdline:" names the program as its messages do (exception:
    # cyclictest writes argv[0] as typed, a path included).
    argv = [os.path.basename(argv0)] if argv0 else ["rtlat", "cyclictest"]
    m = run((["cyclictest"] if not argv0 else []) + args + ["-q", f"--json={mine}"],
            argv0=argv0)
    r = subprocess.run([REAL] + args + ["-q", f"--json={real}"],
                       capture_output=True, text=True, timeout=60)
    assert m.returncode == r.returncode == 0, (m.stderr, r.stderr)
    # The same stderr lines (cyclictest's WARN: lines for what it drops).
    assert m.stderr.splitlines() == r.stderr.splitlines()
    return (json.loads(mine.read_text()), real_cyclictest_json(real),
            argv + args + ["-q", f"--json={mine}"])


def compare(m, r, argv, loops):
    """Every key of cyclictest's JSON in rtlat's, in its order, and every
    value that the options decide equal; the exceptions named."""
    assert [k for k in m if k in r] == list(r)
    assert set(m) - set(r) == EXTRA_TOP
    assert m["file_version"] == r["file_version"] == 1
    assert m["rt_test_version:"] == FORMAT_VERSION
    assert re.fullmatch(r"\d+\.\d+", r["rt_test_version:"])
    assert m["rtlat"]["version"] and m["rtlat"]["version"] != FORMAT_VERSION
    # The command as it was run, the program by its name.
    assert m["cmdline:"] == " ".join(argv)
    for k in ("start_time", "end_time"):
        assert TIME.match(m[k]) and TIME.match(r[k]), (m[k], r[k])
    assert m["return_code"] == r["return_code"] == 0
    assert m["sysinfo"] == r["sysinfo"]
    for k in ("num_threads", "resolution_in_ns"):
        assert m[k] == r[k], k
    assert list(m["thread"]) == list(r["thread"])
    for n, rt in r["thread"].items():
        mt = m["thread"][n]
        assert [k for k in mt if k in rt] == list(rt), n
        assert set(mt) - set(rt) == EXTRA_THREAD
        for k in set(rt) - MEASURED_THREAD - {"cycles"}:
            assert mt[k] == rt[k], (n, k, mt[k], rt[k])
        for t in (mt, rt):
            assert all(re.fullmatch(r"\d+", b) and type(c) is int
                       for b, c in t["histogram"].items())
            assert type(t["min"]) is int and type(t["max"]) is int
            assert type(t["avg"]) in (int, float)
    # -l: the first thread at -l ends every thread, as cyclictest's
    # (how far the others got is timing: on a loaded machine a thread
    # that starts 50 ms late has none, in cyclictest as in rtlat).
    for t in (m, r):
        cycles = [x["cycles"] for x in t["thread"].values()]
        assert max(cycles) == loops and all(0 <= c <= loops for c in cycles), cycles


CASES = {
    "S": ["-S", "-i", "1000", "-l", "50"],
    "S-p-h": ["-S", "-p", "90", "-l", "50", "-h", "20"],
    "t2": ["-t", "2", "-i", "1000", "-l", "50"],
    "t2-a-p-i-h-m": ["-t", "2", "-a", "1", "-p", "80", "-i", "500", "-l", "100",
                     "-h", "50", "-m"],
    "a-N": ["-a", "1", "-N", "-l", "50"],
    "t3-d0-H": ["-t", "3", "-d", "0", "-l", "40", "-H", "30"],
    "rr": ["--policy=rr", "-p", "10", "-l", "30"],
    "S-a-t": ["-S", "-a", "1", "-t", "3", "-l", "30"],
}


@needs_real
@pytest.mark.parametrize("args", list(CASES.values()), ids=list(CASES))
def test_cyclictest_json_every_value_as_the_real_one(tmp_path, args):
    m, r, argv = both_json(tmp_path, args)
    compare(m, r, argv, int(args[args.index("-l") + 1]))


@needs_real
def test_cyclictest_name_json_as_the_real_one(tmp_path):
    """The compatible name writes the same file (its cmdline: its argv)."""
    args = ["-S", "-i", "1000", "-l", "30"]
    m, r, argv = both_json(tmp_path, args, argv0="cyclictest")
    compare(m, r, argv, 30)
    assert m["cmdline:"].startswith("cyclictest -S ")


def test_cyclictest_node_under_smp(tmp_path):
    """-S: node -1 (cyclictest leaves NUMA out); otherwise the CPU's node,
    0 on a machine with one node."""
    nodes = {}
    for name, args in (("S", ["-S"]), ("t", ["-t", "2"])):
        f = tmp_path / f"{name}.json"
        r = run(["cyclictest", "-q", "-i", "1000", "-l", "10", f"--json={f}"] + args)
        assert r.returncode == 0, r.stderr
        nodes[name] = [t["node"] for t in json.loads(f.read_text())["thread"].values()]
    assert nodes["S"] and set(nodes["S"]) == {-1}
    if not os.path.exists("/sys/devices/system/node/node1"):
        assert set(nodes["t"]) == {0}


@pytest.mark.parametrize("cmd", [[RTLAT, "cyclictest"], [REAL]], ids=["rtlat", "real"])
def test_loops_end_every_thread(tmp_path, cmd):
    """-l 100 with thread 1's interval 11 ms (-d 10000): thread 0 is done
    in 100 ms and ends the run, so thread 1 is far from 100 (it would
    need 1.1 s). rtlat used to run every thread to -l."""
    if cmd == [REAL] and REAL_VERSION is None:
        pytest.skip("rt-tests' cyclictest not installed")
    f = tmp_path / "x.json"
    r = subprocess.run(cmd + ["-q", "-t", "2", "-p", "80", "-i", "1000", "-d", "10000",
                              "-l", "100", f"--json={f}"],
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    th = (real_cyclictest_json(f) if cmd == [REAL] else json.loads(f.read_text()))["thread"]
    assert th["0"]["cycles"] == 100
    assert th["1"]["cycles"] < 100


# ---- latency / rtlat timer ------------------------------------------------

F = r"-?\d+\.\d{3}"
RTD = re.compile(r"^RTD\|\s*(%s)\|\s*(%s)\|\s*(%s)\|\s*(\d+)\|\s*(\d+)\|\s*(%s)\|\s*(%s)$"
                 % (F, F, F, F, F))
RTS = re.compile(r"^RTS\|\s*(%s)\|\s*(%s)\|\s*(%s)\|\s*(\d+)\|\s*(\d+)\|"
                 r"    \d\d:\d\d:\d\d/\d\d:\d\d:\d\d$" % (F, F, F))
DASH = ("---|-----------|-----------|-----------|--------|------|"
        "-------------------------")
JITTER = re.compile(r"^== Jitter \(lat max - lat min\): (%s) us$" % F)


def test_latency_histogram_defaults_to_200_cells(tmp_path):
    """The man page: -H default 200 (the last cell takes the overflow)."""
    js = tmp_path / "l.json"
    r = run(["-T", "1", "-q", "-h", "--json", str(js)], argv0="latency")
    assert r.returncode == 0, r.stderr
    d = json.loads(js.read_text())
    assert d["settings"]["histogram_cells"] == 200
    assert d["histograms"]["cells"] == 200
    cells = [int(l.split("|")[2].split("-")[0]) for l in r.stdout.splitlines()
             if l.startswith("HSD|")]
    assert cells and max(cells) <= 199
    h = run(["timer", "--help"]).stdout
    assert re.search(r"-H CELLS .*\[default 200\]", h), h


def test_latency_quiet_without_duration_warns_and_runs():
    """-q without -T: the original warns and runs until ^C (with its
    lines: -q only works with -T); rtlat exited 2."""
    with watching(["-q", "-p", "1000"], argv0="latency") as p:
        p.wait_line(r"^RTD\|", "out")
        p.send_signal(signal.SIGINT)
        out, err = p.communicate(timeout=30)
    assert p.returncode == 0, err
    assert err.splitlines()[0] == \
        "latency: -q only works with -T SECONDS; printing the RTD lines until ^C"
    lines = out.splitlines()
    assert any(RTD.match(l) for l in lines), out
    assert lines[-2] == DASH and RTS.match(lines[-1]), out


def rtd_rts(lines):
    rtd = [RTD.match(l) for l in lines if l.startswith("RTD|")]
    assert all(rtd) and rtd, lines
    rts = RTS.match(lines[-1])
    assert rts, lines[-1]
    return ([[float(x) for x in m.groups()] for m in rtd],
            [float(x) for x in rts.groups()])


@pytest.mark.parametrize("argv0", [None, "latency"])
def test_rts_after_sigint_is_what_the_rtd_lines_showed(tmp_path, argv0):
    """^C half-way through a second: that second never had its RTD line,
    so RTS leaves it out: best of the RTD mins, worst of their maxes, the
    last line's overruns and msw, the mean of their averages (the partial
    second's average is never theirs to the nanosecond: it moved it)."""
    js = tmp_path / "t.json"
    args = (["timer"] if not argv0 else []) + ["-p", "200", "--json", str(js)]
    p = start(args, argv0=argv0)
    head = []
    while sum(l.startswith("RTD|") for l in head) < 2:   # 2 seconds shown
        head.append(p.stdout.readline().rstrip("\n"))
        assert head[-1] or p.poll() is None, head
    # The stop must come within a second, not at its end: no event marks
    # that moment, so this sleep is the test (half-way through the third).
    time.sleep(0.5)
    p.send_signal(signal.SIGINT)
    out, err = p.communicate(timeout=30)
    assert p.returncode == 0, err
    rtd, rts = rtd_rts(head + out.splitlines())
    mins, avgs, maxs = [r[0] for r in rtd], [r[1] for r in rtd], [r[2] for r in rtd]
    assert rts[0] == min(mins) and rts[2] == max(maxs)
    assert rts[3] == rtd[-1][3] and rts[4] == rtd[-1][4]
    assert abs(rts[1] - sum(avgs) / len(avgs)) <= 0.0015, (rts, avgs)
    d = json.loads(js.read_text())
    s = d["summary"]
    assert round(s["min_ns"] / 1000, 3) == rts[0] and round(s["max_ns"] / 1000, 3) == rts[2]
    assert s["overruns"] == rts[3]
    # The JSON keeps every sample; its seconds say which one was cut short.
    assert d["seconds"]["full"] == len(rtd) and d["seconds"]["count"] == len(rtd) + 1


def test_timer_prints_its_jitter(tmp_path):
    """rtlat timer: max - min of RTS, on a line before the dashes (RTS stays
    the last line), and in the JSON's summary; under latency's name the
    text is Xenomai's, without it."""
    js = tmp_path / "t.json"
    r = run(["timer", "-T", "2", "-q", "-s", "--json", str(js)])
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    assert lines[-2] == DASH and RTS.match(lines[-1])
    m = JITTER.match(lines[-3])
    assert m, lines[-3]
    rts = [float(x) for x in RTS.match(lines[-1]).groups()]
    assert abs(float(m[1]) - (rts[2] - rts[0])) <= 0.0011
    s = json.loads(js.read_text())["summary"]
    assert s["jitter_ns"] == s["max_ns"] - s["min_ns"] >= 0
    x = run(["-T", "1", "-q", "-s"], argv0="latency")
    assert x.returncode == 0, x.stderr
    assert not any("Jitter" in l for l in x.stdout.splitlines())
    assert x.stdout.splitlines()[-3].startswith("HSS|    max|")


def test_timer_jitter_on_several_cpus(tmp_path):
    js = tmp_path / "t.json"
    r = run(["timer", "-T", "1", "-q", "-c", "all", "--json", str(js)])
    assert r.returncode == 0, r.stderr
    d = json.loads(js.read_text())
    lines = r.stdout.splitlines()
    assert lines.count(DASH) == 1
    m = JITTER.match(lines[lines.index(DASH) - 1])
    s = d["summary"]
    assert m and abs(float(m[1]) * 1000 - s["jitter_ns"]) <= 1
    for c in d["cpus"]:
        assert c["summary"]["jitter_ns"] == c["summary"]["max_ns"] - c["summary"]["min_ns"]


# -f beside a stand-in tracefs (test_attacks_timer's: a tmpfs on
# /sys/kernel/tracing in a private mount namespace): its files record what
# rtlat wrote. SIGSTOP holds the
# run 0.3, 0.6 then 1 s after the warm-up: three new maxima, each larger.
FREEZE = r"""
echo 1 > tracing_on
: > trace_marker
{snapshot}
{rtlat} timer -f -T 5 -q -p 1000 > {out}/out 2> {out}/err & p=$!
sleep 1.5
for s in 0.2 0.7 1.5; do kill -STOP $p; sleep $s; kill -CONT $p; sleep 0.3; done
wait $p; echo $? > {out}/rc
cat tracing_on > {out}/on
cp trace_marker {out}/marker
cat snapshot > {out}/snapshot 2>/dev/null || true
"""


# Three holds, each longer than the one before by 0.5 s or more, so each
# is a new maximum however late a loaded machine lets the shell resume
# the run (0.3, 0.6 and 1 s were not: two maxima on a loaded make check).


def freeze_run(tmp_path, snapshot):
    out = tmp_path / "standin"
    out.mkdir()
    steps = FREEZE.format(snapshot=": > snapshot" if snapshot else "", rtlat=RTLAT, out=out)
    # test_attacks_timer's stand-in, with these steps run in it.
    r = in_mount_ns(STANDIN.format(tracer="nop", out=out, steps=steps), timeout=60)
    assert r.returncode == 0, r.stderr
    rd = lambda n: (out / n).read_text() if (out / n).exists() else None
    assert rd("rc").strip() == "0", rd("err")
    return rd


def test_freeze_keeps_the_trace_of_each_new_maximum(tmp_path):
    """-f: at each new maximum a marker, then a snapshot of the trace
    (tracing goes on): the snapshot holds the largest's. rtlat stopped
    tracing at the first and kept that one."""
    rd = freeze_run(tmp_path, snapshot=True)
    marks = rd("marker").splitlines()
    assert len(marks) >= 3, rd("err")
    assert set(marks) == {"rtlat timer: new maximum latency, trace snapshot taken"}
    # Allocated once before the run ("1" then "2": cleared, kept), then
    # one "1" per new maximum.
    assert rd("snapshot") == "2" + "1" * len(marks)
    assert rd("on").strip() == "1"
    err = [l for l in rd("err").splitlines() if "-f:" in l]
    assert len(err) == 1 and re.fullmatch(
        r"rtlat timer: -f: %d new maxima, each a trace snapshot; "
        r"/sys/kernel/tracing/snapshot holds the largest's, \d+\.\d{3} us" % len(marks),
        err[0]), err
    # The largest is at least the longest hold.
    assert float(err[0].split()[-2]) >= 900000


def test_freeze_without_snapshot_says_so_and_stops_at_the_first(tmp_path):
    rd = freeze_run(tmp_path, snapshot=False)
    err = rd("err").splitlines()
    assert err[0] == ("rtlat timer: -f: no trace snapshot here (CONFIG_TRACER_SNAPSHOT, "
                      "or a latency tracer has it): tracing stops at the first new maximum")
    # A regular file here: one "0" written over "1" at each new maximum.
    assert set(rd("on").strip()) == {"0"}
    assert any(re.fullmatch(r"rtlat timer: -f: tracing stopped at a new maximum of "
                            r"\d+\.\d{3} us", l) for l in err), err
