# SPDX-License-Identifier: GPL-2.0-or-later
"""rtlat-report attacked (issue 30, items 11 and 12): text with '$' in it
(matplotlib's mathtext raised on it), histogram counts near and beyond
64-bit counters, inputs that are not regular files (a FIFO blocked
forever, /dev/zero filled the memory), files and pages of any size. Each
is a page drawn as it is, or one line on stderr and exit 2; never a
traceback, never a hang. The input is a recorded short `rtlat pmq` run."""
import copy
import json
import os
import re
import shutil
from pathlib import Path

import pytest

from conftest import FIXTURES as FIX, fixture_json, report
from test_report import parse, svg_text

MIB = 1 << 20
CAP = 32 * MIB            # a --max-file-size (the default is far larger)
MAX_RUNS, MAX_FILES = 16, 256   # --max-runs', --max-files' defaults
MATH = r"$\x$"            # mathtext: "Unknown symbol: \x"
# Where the page of a run that should be refused goes: nowhere, so that
# nothing is written in the working directory even when a refusal fails.
NOWHERE = ("-o", os.devnull)


@pytest.fixture(scope="module")
def pmq():
    """A recorded short pmq run's JSON (two pairs, with histograms:
    tests/fixtures/report/pmq-pairs), as a dict to change."""
    d = fixture_json("pmq-pairs", "pmq.json")
    assert d["thread"]["0"]["receiver"]["latency"]["histogram"]["counts"]
    return d


def write(path, data):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data))
    return path


def no_traceback(r):
    assert "Traceback" not in r.stderr and "Error:" not in r.stderr, r.stderr


def a_page(r, path):
    """Exit 0, nothing but the page's line on stderr, a valid page."""
    no_traceback(r)
    assert r.returncode == 0, r.stderr
    return parse(path)


def refused(r, *words):
    """Exit 2, one line on stderr holding words, nothing on stdout."""
    no_traceback(r)
    assert r.returncode == 2, r.stderr
    lines = r.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("rtlat-report: "), r.stderr
    for w in words:
        assert w in lines[0], lines[0]
    assert r.stdout == ""
    return lines[0]


def with_explain(d, cause):
    """d with --explain's object (a recorded one) whose causes are named
    cause."""
    d = copy.deepcopy(d)
    x = json.loads((FIX / "explain" / "pmq.json").read_text())["explain"]
    for c in x["where"] + [c for s in x["spikes"] for c in s["causes"]]:
        c["cause"] = cause
    d["explain"] = x
    return d


def mathtext_case(case, tmp, d):
    """(rtlat-report's arguments, the text the figures must show)."""
    plain = write(tmp / "plain" / "pmq.json", d)
    if case == "directory":
        return [write(tmp / f"run{MATH}" / "pmq.json", d).parent,
                plain.parent], f"run{MATH}"
    if case == "labels":
        return [plain, plain, "--labels", f"a{MATH},b"], f"a{MATH}"
    if case == "file name":
        return [write(tmp / f"p{MATH}.json", d), plain], f"p{MATH}"
    if case == "test name":
        d = copy.deepcopy(d)
        d["rtlat"]["test"] = f"pmq{MATH}"
        return [write(tmp / "t.json", d)], f"pmq{MATH}"
    cause = "task $x^$[1]"
    return [write(tmp / "x.json", with_explain(d, cause))], cause


@pytest.mark.parametrize("case", ["directory", "labels", "file name",
                                  "test name", "explain cause"])
def test_dollars_in_any_drawn_text_are_drawn_as_they_are(tmp_path, pmq,
                                                         case):
    args, text = mathtext_case(case, tmp_path, pmq)
    out = tmp_path / "r.html"
    _, figs = a_page(report(*args, "-o", out), out)
    drawn = " ".join(svg_text(f) for f in figs.values())
    assert text in drawn, drawn[:2000]
    assert "mathdefault" not in drawn     # no axis turned to raw TeX


def with_counts(d, rows, pairs=("0",), **extra):
    d = copy.deepcopy(d)
    for p in pairs:
        h = d["thread"][p]["receiver"]["latency"]["histogram"]
        h["counts"] = rows
        h.update(extra)
    return d


def test_histogram_counts_near_64_bits_are_drawn(tmp_path, pmq):
    """[[0, 9e18], [100, 5]] (was ZeroDivisionError: 1 - cum/n rounded to
    0), and two pairs of 3e18-sample rows plus overflow and underflow,
    whose sum passes 2^64 in the run's "all" (was TypeError in numpy)."""
    one = write(tmp_path / "one.json", with_counts(pmq, [[0, 9e18],
                                                         [100, 5]]))
    two = write(tmp_path / "two.json", with_counts(
        pmq, [[0, 3e18], [100, 3e18]], pairs=("0", "1"), overflow=10 ** 18,
        underflow=2 ** 60))
    out = tmp_path / "r.html"
    for args in ([one], [two], [two, one]):
        _, figs = a_page(report(*args, "-o", out), out)
        assert "pmq-pct" in figs and "pmq-hist" in figs, sorted(figs)
    r = report(two, one, "--format", "md")
    no_traceback(r)
    assert r.returncode == 0 and "| pmq |" in r.stdout


@pytest.mark.parametrize("rows, why", [
    ([[0, 9e18], [100, 9e18]], "histogram: its counts add up to 1.8e+19, "
     "beyond 64-bit counters"),
    ([[0, 2.5]], "histogram.counts[0] has a count that is not a whole "
     "number (2.5)"),
])
def test_histogram_counts_no_counter_holds_are_one_line(tmp_path, pmq, rows,
                                                        why):
    f = write(tmp_path / "pmq.json", with_counts(pmq, rows))
    out = tmp_path / "r.html"
    line = refused(report(f, "-o", out), str(f), "thread.0.receiver.latency."
                   + why)
    assert not out.exists(), line


def test_a_fifo_or_device_in_a_directory_is_skipped(tmp_path, pmq):
    """A FIFO named zz.json blocked the report forever; a link to
    /dev/zero filled the memory. Both are skipped, each with one line on
    stderr and a note on the page (drawn within 2 GiB of address space)."""
    d = write(tmp_path / "res" / "pmq.json", pmq).parent
    os.mkfifo(d / "zz.json")
    (d / "zero.json").symlink_to("/dev/zero")
    out = tmp_path / "r.html"
    r = report(d, "-o", out, limit_as=2 << 30, timeout=120)
    tree, _ = a_page(r, out)
    skipped = [x for x in r.stderr.splitlines() if "skipped" in x]
    assert len(skipped) == 2, r.stderr
    assert any(f"{d}/zz.json: not a regular file (a FIFO)" in x
               for x in skipped), r.stderr
    assert any(f"{d}/zero.json: not a regular file (a character device)"
               in x for x in skipped), r.stderr
    text = " ".join(tree.itertext())
    assert "SKIPPED" in text and "zz.json" in text and "zero.json" in text


def test_a_fifo_beside_a_timer_file_is_not_read(tmp_path):
    """The timer's text output beside its JSON (its RTD lines: the
    seconds) read as any input: a FIFO there blocked the report too."""
    d = tmp_path / "res"
    d.mkdir()
    shutil.copyfile(FIX / "timer-seconds" / "timer.json", d / "timer.json")
    os.mkfifo(d / "timer.txt")
    r = report(d, "--format", "md", timeout=120)
    no_traceback(r)
    assert r.returncode == 0, r.stderr
    assert f"the text output beside it is not read: {d}/timer.txt: not a " \
        "regular file (a FIFO)" in r.stdout


def test_only_special_files_in_a_directory_is_bad_input(tmp_path):
    d = tmp_path / "res"
    d.mkdir()
    os.mkfifo(d / "zz.json")
    refused(report(*NOWHERE, d, timeout=30), f"{d}: no readable result file",
            "zz.json: not a regular file (a FIFO)")


@pytest.mark.parametrize("what", ["/dev/zero", "link", "fifo"])
def test_a_named_special_file_is_refused_at_once(tmp_path, what):
    """rtlat-report /dev/zero was OOM-killed in seconds: refused before a
    byte is read, within 512 MiB of address space (RLIMIT_AS)."""
    path = Path("/dev/zero")
    if what == "link":
        path = tmp_path / "zero.json"
        path.symlink_to("/dev/zero")
    elif what == "fifo":
        path = tmp_path / "zz.json"
        os.mkfifo(path)
    kind = "a FIFO" if what == "fifo" else "a character device"
    refused(report(path, "-o", tmp_path / "r.html", limit_as=512 * MIB,
                   timeout=30), f"{path}: not a regular file ({kind})")
    assert not (tmp_path / "r.html").exists()


def test_a_file_over_the_size_cap_is_refused(tmp_path, pmq):
    """A file one byte over --max-file-size (sparse: nothing written) is
    refused by its size, within 512 MiB of address space; one of the cap
    exactly is read (and is not JSON); --max-file-size raises the cap.
    (The default is rtlat's largest output, hundreds of GiB: issue 44
    item 17, tests/test_report_input_attacks.py; here a cap of 32.)"""
    big = tmp_path / "big.json"
    with open(big, "wb") as f:
        f.truncate(CAP + 1)
    refused(report(*NOWHERE, big, "--max-file-size", "32", limit_as=512 * MIB,
                   timeout=30), str(big),
            f"{CAP + 1} bytes, more than --max-file-size 32 MiB allows "
            "(raise it to read this file)")
    os.truncate(big, CAP)
    refused(report(*NOWHERE, big, "--max-file-size", "32", timeout=30),
            f"{big}: unreadable: not JSON")
    os.truncate(big, CAP + 1)
    refused(report(*NOWHERE, big, "--max-file-size", "33", timeout=30),
            f"{big}: unreadable: not JSON")
    # Raising --max-file-size raises the total's default (twice it).
    os.truncate(big, 40 * MIB)
    refused(report(*NOWHERE, big, "--max-file-size", "41", timeout=60),
            f"{big}: unreadable: not JSON")
    # A real file over a cap made small: beside a good one, marked on the
    # page; alone, refused.
    d = write(tmp_path / "res" / "pmq.json", pmq).parent
    padded = json.dumps(pmq) + " " * MIB
    (d / "pad.json").write_text(padded)
    out = tmp_path / "r.html"
    tree, _ = a_page(report(d, "--max-file-size", "1", "-o", out), out)
    assert "pad.json: " + str(len(padded)) + " bytes" in \
        " ".join(tree.itertext())
    refused(report(*NOWHERE, d / "pad.json", "--max-file-size", "1"), "pad.json")


def test_more_runs_or_files_than_the_caps_are_refused(tmp_path, pmq):
    """1,000 copies of one pmq.json took 8 minutes and 1.27 GB: more
    inputs than --max-runs, or result files than --max-files, are one
    line at once (before a file is read: no matplotlib, 512 MiB)."""
    f = write(tmp_path / "pmq.json", pmq)
    line = refused(report(*NOWHERE, *[f] * (MAX_RUNS + 1), limit_as=512 * MIB),
                   f"{MAX_RUNS + 1} inputs: more than --max-runs {MAX_RUNS}")
    assert "raise it" in line
    d = tmp_path / "many"
    d.mkdir()
    for i in range(MAX_FILES + 1):
        shutil.copyfile(f, d / f"pmq{i:04d}.json")
    refused(report(*NOWHERE, d, limit_as=512 * MIB),
            f"{MAX_FILES + 1} result files in the inputs: more than "
            f"--max-files {MAX_FILES}")
    refused(report(*NOWHERE, d, f, "--max-files", MAX_FILES + 1),
            f"--max-files {MAX_FILES + 1}")
    # Raised, a page of more runs than the default is drawn.
    out = tmp_path / "r.html"
    _, figs = a_page(report(*[f] * (MAX_RUNS + 1), "--max-runs",
                            MAX_RUNS + 1, "-o", out, timeout=300), out)
    assert "pmq-hist" in figs


def test_files_over_the_total_size_cap_are_refused(tmp_path):
    """Files each within --max-file-size, together over --max-total-size
    (default twice the former): one line, before a byte is read (sparse
    files, 512 MiB of address space)."""
    d = tmp_path / "res"
    d.mkdir()
    for i in range(3):
        with open(d / f"t{i}.json", "wb") as f:
            f.truncate(CAP - 1)
    refused(report(*NOWHERE, d, "--max-file-size", "32", limit_as=512 * MIB,
                   timeout=30),
            f"the inputs' result files hold {3 * (CAP - 1)} bytes: more "
            "than --max-total-size 64 MiB allows")
    refused(report(*NOWHERE, d, tmp_path / "res", "--max-total-size", "100",
                   "--max-file-size", "1", limit_as=512 * MIB, timeout=30),
            f"{d}: no readable result file: {d}/t0.json: {CAP - 1} bytes, "
            "more than --max-file-size 1 MiB")


@pytest.mark.parametrize("opt", ["--max-runs", "--max-files",
                                 "--max-file-size", "--max-total-size"])
@pytest.mark.parametrize("value", ["0", "-1", "x", "1.5"])
def test_the_caps_take_whole_numbers(tmp_path, pmq, opt, value):
    f = write(tmp_path / "pmq.json", pmq)
    r = report(*NOWHERE, f, f"{opt}={value}")
    no_traceback(r)
    assert r.returncode == 2 and re.search(
        rf"argument {opt}: '{re.escape(value)}' is not a whole number",
        r.stderr), r.stderr
