# SPDX-License-Identifier: GPL-2.0-or-later
"""--trace-out DIR (issue 47, rtla's -t): each spike --explain explains
leaves its trace window as text in DIR: the events of the CPU from before
the expected wake-up to the actual one, with the spike's figures and
causes above them. A new maximum is explained from the first sample after
the warm-up, so a run always has at least one (no latency assumed)."""
import json
import re

from conftest import needs_tracefs, run

EVENT = re.compile(r"^ +\d+\.\d{9} CPU \d+: (irq_handler_entry|irq_handler_exit|"
                   r"softirq_entry|softirq_exit|vector_entry|vector_exit|"
                   r"sched_switch|sched_wakeup) ")
# a kernel stack (--explain's stacktrace triggers), its frames under it
STACK = re.compile(r"^ +\d+\.\d{9} CPU \d+: <stack trace>$")
FRAME = re.compile(r"^ => ([A-Za-z_][\w.]*|0x[0-9a-f]+)$")


def well_formed(lines):
    """Each line an event, or a stack and its frames under it."""
    prev = None
    for line in lines:
        if FRAME.match(line):
            assert prev in ("stack", "frame"), line
            prev = "frame"
        elif STACK.match(line):
            assert prev != "stack", line
            prev = "stack"
        else:
            assert EVENT.match(line) and prev != "stack", line
            prev = "event"
    assert prev != "stack"


@needs_tracefs
def test_each_explained_spike_leaves_its_window(tmp_path, leakcheck):
    out = tmp_path / "windows"
    out.mkdir()
    js = tmp_path / "r.json"
    r = run(["timer", "-q", "-T", "1", "--explain", "--trace-out", str(out),
             "--json", str(js)])
    assert r.returncode == 0, r.stderr
    x = json.loads(js.read_text())["explain"]
    files = sorted(out.glob("rtlat-spike-*.txt"))
    assert x["explained"] >= 1
    assert len(files) == x["explained"], (files, x["explained"])
    assert x["trace_out"] == str(out)
    text = files[0].read_text().splitlines()
    assert re.fullmatch(r"# rtlat timer: spike 1 at \d+\.\d{6} s: \d+ ns late, "
                        r"sampler on CPU \d+", text[0]), text[0]
    assert text[1].startswith("# window: ") and text[2].startswith("# causes: ")
    events = [l for l in text[3:] if not l.startswith("#")]
    well_formed(events)
    # the stacks of each window (the sampler's own as it went to sleep,
    # at least: the trigger stacks every switch away from a task)
    stacks = [l for f in files for l in f.read_text().splitlines() if STACK.match(l)]
    assert stacks
    leakcheck()


def test_trace_out_needs_explain_and_a_directory(tmp_path, leakcheck):
    r = run(["timer", "-T", "1", "--trace-out", str(tmp_path)])
    assert r.returncode == 2 and len(r.stderr.splitlines()) == 1, r.stderr
    assert "--trace-out" in r.stderr and "--explain" in r.stderr
    r = run(["timer", "-T", "1", "--explain", "--trace-out",
             str(tmp_path / "missing")])
    assert r.returncode == 2 and len(r.stderr.splitlines()) == 1, r.stderr
    assert "--trace-out" in r.stderr and "directory" in r.stderr
    assert list(tmp_path.iterdir()) == []
    leakcheck()
