# SPDX-License-Identifier: GPL-2.0-or-later
"""rtlat-report's subcommands (page, gate, plan, merge, summary, kcidb,
squad): each parses its own options, has its own --help and exit
statuses, and gives what the old form (rtlat-report INPUT... --gate,
--plan, --merge, --summary-json, --kcidb, --squad) gives, which keeps
working. Committed fixtures and files written here; no rtlat run."""
import json
import os
import re
import shutil
import sys
from pathlib import Path

import pytest

import longrun_gen as gen
from conftest import report_here

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "report"))
from rtlat_report.cli import options  # noqa: E402

FIX = ROOT / "tests" / "fixtures" / "report"
A, B = FIX / "suite-a", FIX / "suite-b"
ONE = FIX / "edge" / "one-sample.json"
COMMANDS = ("page", "gate", "plan", "merge", "summary", "kcidb", "squad",
            "samples")
STAMP = re.compile(r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d [+-]\d{4}")


def report(*args):
    """rtlat-report's main() in this process: (status, stdout, stderr)."""
    r = report_here(*args)
    return r.returncode, r.stdout, r.stderr


def test_the_commands_are_those_listed():
    assert tuple(options.COMMANDS) == COMMANDS
    rc, out, _ = report("--help")
    assert rc == 0
    for c in COMMANDS:
        assert re.search(rf"^    {c} +\S", out, re.M), c
    assert "--gate, --plan, --merge" in out      # the old form, said


@pytest.mark.parametrize("cmd", COMMANDS)
def test_each_command_has_its_help(cmd):
    rc, out, err = report(cmd, "--help")
    assert rc == 0 and err == ""
    assert out.startswith(f"usage: rtlat-report {cmd} ")
    own = set(re.findall(r"(?:^  |, )(--[\w-]+)", out, re.M))
    # what the command takes, and nothing of another's
    wanted = {"page": {"--tail", "--format", "--levels"},
              "gate": {"--levels", "--confidence", "--output"},
              "plan": {"--plan-level", "--plan-prob", "--period-us"},
              "merge": {"--labels", "--format"},
              "summary": {"--json", "--labels"},
              "kcidb": {"--output", "--origin", "--kcidb-tree"},
              "squad": {"--url", "--group", "--squad-token-file"},
              "samples": {"--csv", "--cpu"}}[cmd]
    assert wanted <= own, wanted - own
    assert not own & {"--gate", "--plan", "--merge", "--kcidb"}
    if cmd != "squad":
        assert "--group" not in own


def test_version_in_both_forms():
    rc, out, _ = report("--version")
    assert rc == 0 and out.startswith("rtlat-report ")


@pytest.fixture(scope="module")
def small(tmp_path_factory):
    """suite-a and suite-b with their pmq and timer tests alone (fast to analyse;
    b's pmq has many more spikes over 10 µs than a's)."""
    d = tmp_path_factory.mktemp("small")
    for src in (A, B):
        (d / src.name).mkdir()
        for f in ("pmq.json", "timer.json"):
            shutil.copy(src / f, d / src.name)
    return d / A.name, d / B.name


def same(a, b):
    """Two runs' outputs alike but for the time they were written."""
    assert a[0] == b[0], (a, b)
    assert STAMP.sub("T", a[1]) == STAMP.sub("T", b[1])
    assert a[2] == b[2]


# suite-a's runs (a second each) are too short to call not worse (issue
# 46: 125); jitterdebugger's 200,000 samples a CPU are long enough (0)
LONG = FIX / "tail" / "jitterdebugger-results.json"


@pytest.mark.parametrize("base, new, status", [
    ("a", "a", 125), (LONG, LONG, 0), ("a", "b", 3), (ONE, ONE, 125)])
def test_gate_as_the_old_form(small, base, new, status):
    runs = dict(zip("ab", small))
    base, new = runs.get(base, base), runs.get(new, new)
    new_form = report("gate", base, new)
    assert new_form[0] == status, new_form
    same(new_form, report(base, new, "--gate"))


def test_plan_as_the_old_form():
    for args in ((), (ONE, "--period-us", "100")):
        r = report("plan", *args, "--plan-level", "50")
        assert r[0] == 0 and "P(latency >= 50 µs)" in r[1], r
        same(r, report(*args, "--plan", "--plan-level", "50"))


def test_page_as_the_old_form(small):
    r = report("page", *small, "--format", "md", "-o", "-")
    assert r[0] == 0 and "suite-a vs suite-b" in r[1], r
    same(r, report(*small, "--format", "md", "-o", "-"))


def test_merge_as_the_old_form(tmp_path):
    data = gen.samples(threads=2, steps=10, per_step=20, seed=3)
    _, a, b = gen.halves(tmp_path, data)
    r = report("merge", a, b, "--format", "md", "-o", "-")
    assert r[0] == 0 and "merged (2 runs)" in r[1], r
    same(r, report(a, b, "--merge", "--format", "md", "-o", "-"))


def test_summary_json_as_the_old_form(small, tmp_path):
    new, old = tmp_path / "new.json", tmp_path / "old.json"
    A = small[0]
    r = report("summary", A, "--json", new)
    assert r[0] == 0 and "worst series" in r[1], r
    rc, _, _ = report(A, "--summary-json", old, "--plan")
    assert rc == 0
    assert json.loads(new.read_text()) == json.loads(old.read_text())
    assert json.loads(new.read_text())["format"] == \
        "rtlat-report tail summary 1"
    # '-': the JSON alone on stdout
    rc, out, _ = report("summary", A, "--json", "-")
    assert rc == 0 and json.loads(out) == json.loads(new.read_text())


def test_summary_names_the_failures_and_the_worst(tmp_path):
    """A suite whose index says svsem's pair 1 failed its threshold (its
    records as rtlat writes them: samples and threshold in each): its
    line says FAIL and why; the worst series and CPU are the largest
    max (timer's latency on CPU0 in suite-a: 1079.21 µs)."""
    d = tmp_path / "run"
    shutil.copytree(A, d)
    (d / "index.json").write_text(json.dumps({"fleet": {
        "max_latency_us": 100, "verdict": "fail", "series": [
            {"test": "svsem", "series": "pair 1 (CPU1)", "result": "fail",
             "samples": 1002, "max_latency_us": 100,
             "failure": "max 286.9 us > 100 us"},
            {"test": "pmq", "series": "pair 0 (CPU0)", "result": "pass",
             "samples": 1008, "max_latency_us": 100}]}}))
    rc, out, err = report("summary", d)
    assert rc == 0, err
    lines = out.splitlines()
    assert "  svsem (pair): FAIL: pair 1 (CPU1): max 286.9 us > 100 us" \
        in lines
    assert "  pmq (pair): finished, thresholds passed" in lines
    assert "  worst series: timer latency (CPU0), max 1079.21" in lines
    assert "  worst CPU: 0, max 1079.21" in lines
    assert re.search(r"^    pair 1 \(CPU1\): 1002 samples  min 3\.86  avg "
                     r"5\.03  p99 6\.20  max 286\.87$", out, re.M)


def test_kcidb_as_the_old_form(tmp_path):
    src = FIX / "explain" / "doctor.json"
    new, old = tmp_path / "new.json", tmp_path / "old.json"
    assert report("kcidb", src, "-o", new)[0] == 0
    assert report(src, "--kcidb", old)[0] == 0
    assert json.loads(new.read_text()) == json.loads(old.read_text())
    rc, out, _ = report("kcidb", src)        # stdout by default
    assert rc == 0 and json.loads(out) == json.loads(new.read_text())


@pytest.mark.parametrize("args, option", [
    (("page", A, "--tolerance", "x"), "--tolerance"),
    (("page", A, "--labels", "a,b"), "--labels"),
    (("gate", A), "BASE NEW"),
    ((A, "--gate"), "--gate"),
    (("plan", "--plan-prob", "2"), "--plan-prob"),
    (("merge", A, B, "--labels", "a,b"), "--labels"),
    (("summary", A, "--max-runs", "0"), "--max-runs"),
    (("summary", "--json", "x"), "RUN"),
    (("kcidb", FIX / "explain" / "doctor.json", "--origin", "A-B"),
     "--origin"),
    ((FIX / "explain" / "doctor.json", "--kcidb", "-", "--origin", "A-B"),
     "--origin"),
    (("squad", A, "--url", "https://squad.example.org"), "--group"),
    ((A, "--squad", "https://squad.example.org"), "--group"),
    (("squad", A, "--url", "https://x.org", "--squad-timeout", "0"),
     "--squad-timeout"),
    (("page", A, "--no-such-option"), "--no-such-option"),
])
def test_bad_input_is_one_line_naming_the_option(tmp_path, monkeypatch,
                                                 args, option):
    """Exit 2, one line on stderr naming the option, nothing written (the
    command run in an empty directory, its inputs elsewhere)."""
    monkeypatch.setenv("SQUAD_TOKEN", "t0k3n")
    monkeypatch.chdir(tmp_path)
    rc, out, err = report(*args)
    assert rc == 2, err
    assert len(err.splitlines()) == 1 and option in err, err
    assert out == "" and os.listdir(tmp_path) == []
    assert not (A / "report.html").exists()


def test_a_path_named_like_a_command_is_an_input(small, tmp_path,
                                                 monkeypatch):
    """./page exists: `rtlat-report page` reads it, as before subcommands,
    and says so; elsewhere `page` is the subcommand."""
    shutil.copytree(small[0], tmp_path / "page")
    monkeypatch.chdir(tmp_path)
    rc, out, err = report("page", "--format", "md", "-o", "-")
    assert rc == 0 and "page" in out
    assert "'page' is read as an input" in err
    monkeypatch.chdir(tmp_path / "page")
    rc, out, err = report("page", "--format", "md", "-o", "-")
    assert rc == 2 and "required: INPUT" in err


def test_the_export_modules_take_no_argparse():
    """The options are declared in cli/ only."""
    for f in (ROOT / "report" / "rtlat_report").rglob("*.py"):
        if f.parent.name == "cli":
            continue
        text = f.read_text()
        assert "argparse" not in text and "add_argument" not in text, f
