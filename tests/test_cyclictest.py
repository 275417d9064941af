# SPDX-License-Identifier: GPL-2.0-or-later
"""rtlat cyclictest (and the compatible name cyclictest) beside the real
one (rt-tests, installed by make check): the same options, the same lines
and JSON layout, values aside. Every line layout is checked on the real
tool's output too, so the oracle is cyclictest itself."""
import json
import os
import re
import shutil
import signal
import subprocess
from pathlib import Path

import pytest

from conftest import (RTLAT, real_cyclictest_json, run, running, stop, wait_file,
                      wait_for, wait_threads_pinned, watching)

REAL = shutil.which("cyclictest")
needs_real = pytest.mark.skipif(REAL is None, reason="rt-tests' cyclictest not installed")

T_LINE = re.compile(r"^T: ?(\d+) \( *(\d+)\) P: ?(\d+) I:(\d+) C: *(\d+) "
                    r"Min: *(\d+) Act: *(\d+) Avg: *(\d+) Max: *(\d+)$")
T_FMT = "T:%2d (%5d) P:%2d I:%d C:%7d Min:%7d Act:%5d Avg:%5d Max:%8d"
T_FMT_NS = "T:%2d (%5d) P:%2d I:%d C:%7d Min:%7d Act:%8d Avg:%8d Max:%8d"
DMA = "# /dev/cpu_dma_latency set to 0us"
POLICY = re.compile(r"^policy: (fifo|rr|other)(/other)?: loadavg: \d+\.\d\d \d+\.\d\d "
                    r"\d+\.\d\d \d+/\d+ \d+ {10}$")


def both(args, timeout=60):
    """(rtlat's, the real one's) CompletedProcess on the same options."""
    mine = subprocess.run([RTLAT, "cyclictest"] + args, capture_output=True,
                          text=True, timeout=timeout)
    real = subprocess.run([REAL] + args, capture_output=True, text=True,
                          timeout=timeout)
    return mine, real


def t_lines(out, ns=False):
    rows = []
    for line in out.splitlines():
        m = T_LINE.match(line)
        if m:
            v = tuple(int(x) for x in m.groups())
            assert line == (T_FMT_NS if ns else T_FMT) % v, line
            rows.append(v)
    return rows


def shape(line):
    """A line with its numbers as N: what must be the same, values aside."""
    return re.sub(r"\d+", "N", line)


@needs_real
def test_quiet_summary_lines_as_the_real_one():
    args = ["-q", "-p98", "-i1000", "-t2", "-a0", "-l", "300", "-m"]
    mine, real = both(args)
    assert mine.returncode == real.returncode == 0, mine.stderr
    for r in (mine, real):
        lines = r.stdout.splitlines()
        assert lines[0] == DMA
        rows = t_lines(r.stdout)
        assert len(rows) == 2 == len(lines) - 1
        assert [(t, p, i) for t, _, p, i, *_ in rows] == [(0, 98, 1000), (1, 98, 1500)]
    assert t_lines(mine.stdout)[0][4] == 300


@needs_real
def test_nsecs_widen_act_and_avg():
    mine, real = both(["-q", "-p90", "-l", "200", "-N"])
    for r in (mine, real):
        rows = t_lines(r.stdout, ns=True)
        assert len(rows) == 1 and rows[0][4] == 200, r.stdout
        assert rows[0][5] > 1000    # nanoseconds


def test_not_a_terminal_prints_the_policy_line_and_the_final_block():
    r = run(["cyclictest", "-p90", "-i1000", "-l", "300"])
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    assert lines[0] == DMA and POLICY.match(lines[1]) and lines[2] == ""
    assert len(t_lines(r.stdout)) == 1 and len(lines) == 4
    if REAL:
        real = subprocess.run([REAL, "-p90", "-i1000", "-l", "300"],
                              capture_output=True, text=True, timeout=60)
        assert any(POLICY.match(l.split("\x1b[3A")[-1]) for l in real.stdout.splitlines())


@needs_real
@pytest.mark.parametrize("hist", [["-h", "30"], ["-H", "30"]], ids=["h", "H"])
def test_histogram_block_as_the_real_one(hist):
    args = ["-q", "-p90", "-i1000", "-t2", "-l", "200"] + hist
    mine, real = both(args)
    assert mine.returncode == real.returncode == 0, mine.stderr
    a, b = mine.stdout.splitlines(), real.stdout.splitlines()
    assert len(a) == len(b)
    # Rows and footer keep their shape; overflow cycle lists are values.
    for x, y in zip(a, b):
        if x.startswith("# Thread"):
            assert re.fullmatch(r"# Thread \d:( \d{5})*( # \d{5} others)?", x), x
            continue
        assert shape(x) == shape(y), (x, y)
    assert a[-1] == b[-1] == ""


@needs_real
@pytest.mark.parametrize("extra,warned", [
    ([], False), (["-h", "30"], False), (["-H", "30"], False),
    (["-h", "30", "-d", "200"], True), (["-d", "200"], False),
], ids=["no-hist", "h", "H", "h-with-d", "d"])
def test_thread_intervals_as_the_real_one(extra, warned):
    """A histogram puts every thread at -i (cyclictest drops -d then, and
    warns when -d was given); without one thread N is at -i + N * -d."""
    args = ["-p90", "-i300", "-t3", "-l", "50"] + extra
    mine, real = both(args)
    assert mine.returncode == real.returncode == 0, mine.stderr
    hist = "-h" in extra or "-H" in extra
    dist = 0 if hist else int(extra[extra.index("-d") + 1]) if "-d" in extra else 500
    for r in (mine, real):
        # Not a terminal: the last block holds the final T: lines.
        rows = t_lines(r.stdout)[-3:]
        assert [row[3] for row in rows] == [300, 300 + dist, 300 + 2 * dist], r.stdout
        warn = "WARN: distance is ignored and set to 0, if histogram enabled"
        assert (r.stderr.splitlines() == [warn]) == warned, r.stderr
        assert warned or r.stderr == ""


@needs_real
def test_json_layout_as_the_real_one(tmp_path):
    args = ["-q", "-p90", "-i1000", "-t2", "-a0", "-l", "200", "-h", "40"]
    mine = run(["cyclictest"] + args + [f"--json={tmp_path}/m.json"])
    real = subprocess.run([REAL] + args + [f"--json={tmp_path}/r.json"],
                          capture_output=True, text=True, timeout=60)
    assert mine.returncode == real.returncode == 0, mine.stderr
    m = json.loads((tmp_path / "m.json").read_text())
    r = real_cyclictest_json(tmp_path / "r.json")
    assert set(r) <= set(m)
    assert m["num_threads"] == r["num_threads"] == 2
    assert m["resolution_in_ns"] == r["resolution_in_ns"] == 0
    assert set(m["thread"]) == set(r["thread"]) == {"0", "1"}
    # -l: the first thread there ends them all, as cyclictest's.
    for d in (m, r):
        assert max(t["cycles"] for t in d["thread"].values()) == 200
    for k in ("0", "1"):
        mt, rt = m["thread"][k], r["thread"][k]
        assert set(rt) <= set(mt)
        assert {type(v) for v in mt["histogram"].values()} <= {int}
        assert all(0 <= int(b) < 40 for b in mt["histogram"])
        assert 0 < mt["cycles"] <= 200 and mt["cpu"] == 0 and mt["node"] == 0
        assert sum(mt["histogram"].values()) <= mt["cycles"]
        assert mt["min"] <= mt["avg"] <= mt["max"]
        assert mt["min_ns"] // 1000 == mt["min"]


def test_breaktrace_stops_and_says_where():
    r = run(["cyclictest", "-q", "-p90", "-i200", "-l", "100000", "-b", "1"])
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    tid = t_lines(r.stdout)[0][1]
    assert lines[-3:] == [f"# Thread Ids: {tid}", f"# Break thread: {tid}",
                          lines[-1]]
    assert re.fullmatch(r"# Break value: \d+", lines[-1])
    assert t_lines(r.stdout)[0][4] < 100000


def test_spikes_listed():
    r = run(["cyclictest", "-q", "-p90", "-i500", "-l", "300", "--spike", "1"])
    assert r.returncode == 0, r.stderr
    spikes = [l for l in r.stdout.splitlines() if "Spike:" in l]
    assert spikes and all(re.fullmatch(r"T: 0 Spike: +\d+: TS: +\d+", l) for l in spikes)
    # As cyclictest: the count, then an empty line.
    assert r.stdout.splitlines()[-2:] == [f"spikes = {len(spikes)}", ""]


def squeeze(text):
    """Lines with their numbers (and the spaces before) as N, repeats of
    one shape once, histogram rows dropped: the layout of a run's end."""
    out = []
    for line in text.splitlines():
        line = re.sub(r"[ \t]*\d+", " N", line)
        # a thread's overflow cycles: how many (none, a few, "# N others")
        # is the machine's load, not the layout
        line = re.sub(r"^(# Thread N:).*", r"\1 ...", line)
        if not re.fullmatch(r"( N)+", line) and (not out or out[-1] != line):
            out.append(line)
    return out


@needs_real
@pytest.mark.parametrize("args", [
    ["--spike", "1", "-h", "5", "-b", "1000000"],
    ["-t", "2", "--spike", "1", "-H", "5"],
    ["-h", "5", "--histfile", "HIST"],
    ["-b", "1000000"],
], ids=["spike-h-b", "spike-H", "histfile", "b"])
def test_the_end_of_a_run_as_the_real_one(tmp_path, args):
    """What follows the run, in cyclictest's order: the spikes (then an
    empty line), the histogram, and with -b the thread ids (the break
    lines when one came); -q with -h or -H prints no T: lines, even when
    the histogram goes to --histfile."""
    outs = []
    for i, cmd in enumerate(([RTLAT, "cyclictest"], [REAL])):
        hist = tmp_path / f"h{i}"
        a = [str(hist) if x == "HIST" else x for x in args]
        r = subprocess.run(cmd + ["-q", "-i", "500", "-l", "200"] + a,
                           capture_output=True, text=True, timeout=60)
        assert r.returncode == 0, r.stderr
        outs.append((squeeze(r.stdout), squeeze(hist.read_text()) if hist.exists() else None))
    assert outs[0] == outs[1]


@needs_real
@pytest.mark.parametrize("extra,warns", [
    (["-t", "3"], ["WARN: -t ignored due to smp mode"]),
    (["-a", "1"], ["WARN: -a ignored due to smp mode"]),
    (["-a"], ["WARN: -a ignored due to smp mode"]),
], ids=["t", "a-cpuset", "a"])
def test_smp_overrides_threads_and_affinity_as_the_real_one(tmp_path, extra, warns):
    """-S then -t or -a: a thread on every CPU anyway, and cyclictest's
    warning for what was dropped, never a silent change."""
    outs = []
    for i, cmd in enumerate(([RTLAT, "cyclictest"], [REAL])):
        f = tmp_path / f"{i}.json"
        r = subprocess.run(cmd + ["-q", "-S", "-i1000", "-l", "20", f"--json={f}"] + extra,
                           capture_output=True, text=True, timeout=60)
        assert r.returncode == 0 and r.stderr.splitlines() == warns, r.stderr
        # real cyclictest writes -nan for a thread with no cycles (one that
        # started late on a loaded machine); rtlat's must parse as it is
        d = json.loads(f.read_text()) if i == 0 else real_cyclictest_json(f)
        outs.append((d["num_threads"], [t["cpu"] for t in d["thread"].values()]))
    assert outs[0] == outs[1]


@needs_real
@pytest.mark.parametrize("extra", [
    [], ["--policy", "other"], ["--policy", "normal"], ["-p", "80"], ["-p", "0"],
    ["--policy", "fifo"], ["--policy", "rr"], ["-p", "5", "--policy", "other"],
    ["--priospread"], ["--priospread", "-p", "0"], ["-t", "3", "-p", "2", "--priospread"],
], ids=lambda a: " ".join(a) or "none")
def test_policy_and_priority_as_the_real_one(extra):
    """cyclictest's rules for the policy and the priority: SCHED_OTHER
    by default ("policy: other/other"), -p makes it fifo, fifo or rr
    without a priority default it to threads + 1, a thread at priority 0
    runs SCHED_OTHER ("fifo/other"); its stderr lines say so."""
    args = ["-t", "2", "-i", "1000", "-l", "30"] + extra
    mine, real = both(args)
    assert mine.returncode == real.returncode == 0, mine.stderr
    seen = []
    for r in (mine, real):
        pol = [m.group(1) + (m.group(2) or "") for m in
               (POLICY.match(l.split("\x1b[4A")[-1]) for l in r.stdout.splitlines()) if m]
        rows = t_lines(r.stdout)
        n = len({row[0] for row in rows})
        seen.append((pol[-1], [row[2] for row in rows[-n:]], r.stderr))
    assert seen[0] == seen[1]


@needs_real
def test_priospread_down_to_zero_as_the_real_one():
    """Thread N at PRIO - N, the last at 0 (SCHED_OTHER): cyclictest's P:
    column. One more thread would be at -1: cyclictest stops with FATAL,
    rtlat refuses it as bad input (above)."""
    args = ["-q", "-t4", "-p3", "--priospread", "-i1000", "-l", "30"]
    mine, real = both(args)
    assert mine.returncode == real.returncode == 0, mine.stderr
    for r in (mine, real):
        assert [row[2] for row in t_lines(r.stdout)] == [3, 2, 1, 0]


# cyclictest's other options (-v, -M, -A, -F, -R, --policy idle, -c 1,
# --latency N) are accepted since issue 47: tests/test_cyclictest_options.py.
@pytest.mark.parametrize("args,opt", [
    (["-p", "100"], "-p/--priority"),
    (["-c", "2"], "-c/--clock"), (["--latency", "-1"], "--latency"),
    (["-o", "5"], "-o/--oscope"),
    (["-t", "0"], "-t/--threads"), (["-h", "10", "-H", "10"], "-H/--histofall"),
    (["--histfile", "/tmp/h"], "--histfile"), (["--tracemark"], "--tracemark"),
    (["-t", "5", "-p", "3", "--priospread"], "--priospread"),
    # The adjustments cyclictest announces are not said before bad input.
    (["-t", "5", "-p", "3", "--priospread", "--policy", "other", "-h", "5", "-d", "1"],
     "--priospread"),
])
def test_bad_input_is_one_line_naming_the_option(args, opt, tmp_path):
    r = run(["cyclictest", "-l", "10"] + args, cwd=tmp_path)
    assert r.returncode == 2
    assert len(r.stderr.splitlines()) == 1 and f"option {opt}:" in r.stderr
    assert "accepted:" in r.stderr and r.stdout == ""


@needs_real
@pytest.mark.skipif(len(os.sched_getaffinity(0)) < 2, reason="needs two CPUs")
def test_threads_pinned_in_turn_without_a_as_the_real_one():
    """cyclictest 2.40 pins thread N to the N-th CPU it may use even
    without -a; so does rtlat (the JSON's cpu is that CPU)."""
    cpus = [str(c) for c in sorted(os.sched_getaffinity(0))[:2]]
    for cmd, name in (([RTLAT, "cyclictest"], "rtlat-sampler"), ([REAL], "cyclictest")):
        p = subprocess.Popen(cmd + ["-t", "2", "-q", "-i", "1000", "-l", "3000"],
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            # Each thread pins itself once started: read after (the real
            # one's main thread, of the same name, is never pinned).
            rows = wait_threads_pinned(p.pid, 2, name, proc=p)
        finally:
            p.send_signal(signal.SIGINT)
            p.wait(timeout=30)
        assert rows == cpus, (cmd, rows)


def test_compatible_name_runs_it(tmp_path):
    link = tmp_path / "cyclictest"
    link.symlink_to(RTLAT)
    r = subprocess.run([str(link), "-q", "-l", "50", "-p90"], capture_output=True,
                       text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    assert len(t_lines(r.stdout)) == 1


def test_sigint_ends_with_the_summary(leakcheck):
    with watching(["cyclictest", "-q", "-S", "-p90", "-i500"]) as p:
        p.measuring()
        rc, out, err = stop(p, signal.SIGINT)
    assert rc == 0, err
    assert len(t_lines(out)) >= 1
    leakcheck()


@needs_real
def test_report_compares_a_cyclictest_histogram_with_rtlat(tmp_path):
    """A lab's old cyclictest run (its -h text) beside an rtlat one (its
    cyclictest JSON): one section, both runs, a histogram line each."""
    import sys
    from pathlib import Path
    from test_report import parse, table
    real = subprocess.run([REAL, "-q", "-p90", "-i1000", "-t2", "-l", "300", "-h", "100"],
                          capture_output=True, text=True, timeout=60)
    (tmp_path / "old.txt").write_text(real.stdout)
    r = run(["cyclictest", "-q", "-p90", "-i1000", "-t2", "-l", "300", "-h", "100",
             f"--json={tmp_path}/new.json"])
    assert r.returncode == 0, r.stderr
    rep = subprocess.run([str(Path(sys.executable).parent / "rtlat-report"),
                          str(tmp_path / "old.txt"), str(tmp_path / "new.json"),
                          "--labels", "cyclictest,rtlat", "-o", str(tmp_path / "r.html")],
                         capture_output=True, text=True, timeout=120)
    assert rep.returncode == 0, rep.stderr
    tree, figs = parse(tmp_path / "r.html")
    assert "cyclictest-hist" in figs
    rows = table(tree, "cyclictest: percentiles")[1:]
    runs = [row[0] for row in rows]
    assert runs.count("cyclictest") >= 2 and runs.count("rtlat") >= 2
    samples = {(row[0], row[1]): int(row[2]) for row in rows
               if row[1] not in ("all", "ratio")}
    # cyclictest ends every thread when the first has its -l 300 (rt-tests
    # 2.40, as rtlat's face now): the others have that many or fewer.
    old = [v for k, v in samples.items() if k[0] == "cyclictest"]
    assert max(old) == 300 and all(0 < v <= 300 for v in old), samples


def test_terminal_redraws_the_block_in_place():
    """On a terminal the policy line and the T: lines are redrawn where
    they stand (cursor up over them), then the exact figures once."""
    import pty
    from conftest import read_pty
    master, slave = pty.openpty()
    p = subprocess.Popen([RTLAT, "cyclictest", "-p90", "-i1000", "-t2", "-l", "2500"],
                         stdout=slave, stderr=subprocess.PIPE)
    os_close = __import__("os").close
    os_close(slave)
    out = read_pty(master).decode()
    p.wait(timeout=30)
    assert p.returncode == 0
    frames = out.split("\x1b[4A")       # two T: lines, the policy line, a blank
    assert len(frames) >= 2, out
    for f in frames[1:]:
        lines = f.replace("\r", "").splitlines()
        assert POLICY.match(lines[0]) and lines[1] == ""
        assert len(t_lines("\n".join(lines[2:4]))) == 2
    # Thread 1 (1500 us) stops when thread 0 reaches -l, as cyclictest's.
    c = [r[4] for r in t_lines(frames[-1].replace("\r", ""))]
    assert c[0] == 2500 and 0 < c[1] < 2500


def test_rtlat_fleet_options_work_under_the_cyclictest_name(tmp_path):
    """Thresholds (exit 3), JUnit, OpenMetrics and LAVA lines come with it."""
    junit, om = tmp_path / "j.xml", tmp_path / "m.prom"
    r = run(["cyclictest", "-q", "-p90", "-l", "200", "--max-latency", "1",
             "--junit", str(junit), "--openmetrics", str(om), "--lava"])
    assert r.returncode == 3, r.stderr
    # the run fails with its threshold (issue 25), a thread's case as
    # rt-tests' cyclictest definition names it
    assert "lava-test-case cyclictest-run --result fail" in r.stdout
    assert "lava-test-case t0-max-latency --result fail" in r.stdout
    assert "FAIL: max" in r.stderr
    import xml.etree.ElementTree as ET
    suite = ET.parse(junit).getroot().find("testsuite")
    assert suite.get("name") == "rtlat.cyclictest" and suite.get("failures") == "1"
    assert 'test="cyclictest"' in om.read_text()


def test_explain_names_each_threads_spikes(tmp_path):
    """--explain with -S or -t: a source per pinned thread."""
    from conftest import needs_tracefs  # noqa: F401 (skips without tracefs)
    js = tmp_path / "x.json"
    r = run(["cyclictest", "-q", "-S", "-p90", "-i500", "-D", "2", "--explain",
             f"--json={js}"])
    assert r.returncode == 0, r.stderr
    d = json.loads(js.read_text())
    assert "explain" in d or "explain_unavailable" in d
    if "explain" in d:
        assert sorted(d["explain"]["cpus"]) == sorted(
            t["cpu"] for t in d["thread"].values())
    # Without -a the threads are pinned too (as cyclictest 2.40 pins
    # them), so -t alone is explained as well.
    r = run(["cyclictest", "-q", "-t", "2", "-l", "10", "--explain"])
    assert r.returncode == 0 and r.stderr == "", r.stderr


@needs_real
def test_every_option_of_the_real_help_has_a_row():
    """Each option cyclictest --help lists is in rtlat cyclictest's table:
    done with its meaning or refused by name (the refusals are checked
    above), so none is an 'unknown option' and none is ignored."""
    real = subprocess.run([REAL, "--help"], capture_output=True, text=True, timeout=30)
    text = real.stdout + real.stderr
    opts = set(re.findall(r"^\s*(-[A-Za-z])\b", text, re.M))
    opts |= set(re.findall(r"(?:^|\s)(--[a-z_-]+)", text, re.M))
    assert {"-a", "-S", "--histfile", "--priospread", "--dbg_cyclictest"} <= opts
    mine = run(["cyclictest", "--help"]).stdout
    have = set(re.findall(r"^  (-[A-Za-z]), --", mine, re.M))
    have |= set(re.findall(r"(--[a-z_-]+)", mine))
    assert sorted(opts - have) == []


STATUS = ["#---------------------------", "# cyclictest current status:"]


def status_blocks(text):
    """The whole status blocks (header, a T: line per thread, footer) in
    text (one still being written is not yet one)."""
    lines, blocks = text.splitlines(), []
    for i, line in enumerate(lines):
        if lines[i:i + 2] == STATUS and STATUS[0] in lines[i + 2:]:
            end = lines.index(STATUS[0], i + 2)
            blocks.append(lines[i + 2:end])
    return blocks


def status_file(shm, other=None):
    """shm's text once it holds one whole block of two threads and differs
    from other (a snapshot before), else None."""
    try:
        text = shm.read_text()
    except OSError:
        return None
    blocks = status_blocks(text)
    if len(blocks) == 1 and len(blocks[0]) == 2 and text != other:
        return text
    return None


@needs_real
def test_status_signals_as_the_real_one(leakcheck):
    """SIGUSR2 writes cyclictest's status block to /dev/shm/cyclictest<pid>
    (what rt-tests' get_cyclictest_snapshot reads), SIGUSR1 prints it on
    stderr; the run goes on to its end, and the file goes with it. Before,
    either signal killed rtlat without its summary."""
    for cmd in ([RTLAT, "cyclictest"], [REAL]):
        with watching(None, cmd=cmd + ["-q", "-t", "2", "-i", "1000"]) as p:
            shm = Path(f"/dev/shm/cyclictest{p.pid}")
            inside = None
            try:
                # Each signal once the run answers it (the real one has
                # made its file by then), each waited for.
                wait_file(shm, proc=p)
                if cmd[0] == REAL:
                    # Its file comes before its threads, and a SIGUSR2
                    # before them crashes it (rt-tests 2.4: a NULL
                    # dereference, status -11 in make check): its two
                    # threads first.
                    wait_for(lambda: len(os.listdir(f"/proc/{p.pid}/task")) >= 3,
                             "the real cyclictest's threads", proc=p)
                p.send_signal(signal.SIGUSR2)
                inside = wait_for(lambda: status_file(shm),
                                  "the status block in " + str(shm), proc=p)
                if cmd[0] == RTLAT:
                    # A second snapshot replaces the first from the file's
                    # start (cyclictest 2.40 writes it after as many NUL
                    # bytes as the first had: it truncates without going
                    # back).
                    # (Asked again until the counts have moved: a
                    # snapshot of a run not yet counting is the first's.)
                    first = inside
                    inside = wait_for(lambda: p.send_signal(signal.SIGUSR2) or
                                      status_file(shm, first),
                                      "a later status block in " + str(shm),
                                      proc=p, every=0.1)
                p.send_signal(signal.SIGUSR1)
                wait_for(lambda: status_blocks("".join(p.err)),
                         "the status block on stderr", proc=p)
            finally:
                # The run always ends here, whatever was seen above.
                p.send_signal(signal.SIGINT)
                out, err = p.communicate(timeout=30)
        assert inside is not None, (cmd, err)
        assert inside.startswith(STATUS[0] + "\n"), (cmd, inside[:40])
        assert p.returncode == 0, err
        assert len(t_lines(out)) == 2 and not shm.exists()
        assert inside.endswith(STATUS[0] + "\n")
        for blocks in (status_blocks(inside), status_blocks(err)):
            assert len(blocks) == 1 and len(blocks[0]) == 2, (cmd, err, inside)
            assert [r[0] for r in t_lines("\n".join(blocks[0]))] == [0, 1]
    leakcheck()


def test_status_file_removed_on_every_ending(leakcheck):
    """The status file is rtlat's to remove: after SIGINT and SIGTERM too."""
    for sig in (signal.SIGINT, signal.SIGTERM):
        with running(["cyclictest", "-q", "-t", "1", "-i", "1000"]) as p:
            shm = Path(f"/dev/shm/cyclictest{p.pid}")
            seen = wait_file(shm, proc=p)
            rc, out, err = stop(p, sig)
        assert seen and rc == 0 and not shm.exists(), err
    leakcheck()


@needs_real
@pytest.mark.parametrize("extra", [["--laptop"], ["--default-system"], []],
                         ids=["laptop", "default-system", "none"])
def test_latency_target_lines_as_the_real_one(extra):
    """--laptop and --default-system leave /dev/cpu_dma_latency alone and
    say so on stderr as cyclictest does; otherwise the '# ... set to 0us'
    line on stdout."""
    mine, real = both(["-q", "-t1", "-i", "1000", "-l", "20"] + extra)
    for r in (mine, real):
        assert r.returncode == 0
    assert mine.stderr == real.stderr
    assert (DMA in mine.stdout.splitlines()) == (DMA in real.stdout.splitlines()) == (not extra)
