# SPDX-License-Identifier: GPL-2.0-or-later
"""What a hostile or careless user found (issue 16): output paths that are
devices, symlinks, full disks or unwritable places; the suite's endings;
bad-input lines that say what is accepted; a stop signal at a random moment;
the signal-queue limit."""
import json
import os
import random
import re
import signal
import stat
import subprocess
import tempfile
import time
from pathlib import Path

import pytest

from conftest import RTLAT, handler_installed, run, start, stop, wait_for, watching

PAIR = ["svsem", "-l", "200", "-i", "100", "-q"]
TIMER = ["timer", "-T", "1", "-q", "-p", "1000"]
REQUEST = ["request", "-i", "1", "--samples", "100"]
# Every output option that writes a file, with a short run that writes it.
OUTPUTS = [(PAIR, "--json"), (TIMER, "--json"), (TIMER, "-g"),
           (TIMER, "--histfile"), (REQUEST, "--json"), (REQUEST, "-l"),
           (PAIR, "--junit"), (PAIR, "--openmetrics")]


def mknod_copy(tmp_path, name, major, minor):
    """A private copy of a character device (/dev/null is 1,3, /dev/full
    1,7), so a test that went wrong can never replace the real one."""
    path = tmp_path / name
    os.mknod(path, 0o666 | stat.S_IFCHR, os.makedev(major, minor))
    return path


def is_chardev(path):
    return stat.S_ISCHR(os.lstat(path).st_mode)


def one_error_line(err, opt, path):
    lines = [x for x in err.splitlines() if x.strip()]
    hits = [x for x in lines if opt in x and str(path) in x]
    assert hits, err
    return hits[0]


# --- 1. and 2.: the output rule --------------------------------------------

@pytest.mark.parametrize("argv,opt", OUTPUTS)
def test_a_device_is_written_not_replaced(tmp_path, leakcheck, argv, opt):
    null = mknod_copy(tmp_path, "null", 1, 3)
    r = run(argv + [opt, str(null)])
    assert r.returncode == 0, r.stderr
    assert is_chardev(null), f"{opt} replaced the device node"
    assert os.listdir(tmp_path) == ["null"], "a temp file was left"
    leakcheck()


@pytest.mark.parametrize("argv,opt", OUTPUTS)
def test_a_full_disk_is_an_error_with_the_output_still_printed(
        tmp_path, leakcheck, argv, opt):
    full = mknod_copy(tmp_path, "full", 1, 7)
    r = run(argv + [opt, str(full)])
    assert r.returncode == 1, r.stderr
    line = one_error_line(r.stderr, opt, full)
    assert "No space left on device" in line
    assert is_chardev(full)
    assert r.stdout.strip(), "the summary must still be printed"
    leakcheck()


def test_json_through_a_symlink_writes_the_target(tmp_path, leakcheck):
    target = tmp_path / "real.json"
    target.write_text("old")
    link = tmp_path / "link.json"
    link.symlink_to("real.json")
    r = run(PAIR + ["--json", str(link)])
    assert r.returncode == 0, r.stderr
    assert link.is_symlink() and os.readlink(link) == "real.json"
    assert json.loads(target.read_text())["num_threads"] == 1
    assert sorted(os.listdir(tmp_path)) == ["link.json", "real.json"]
    leakcheck()


def test_json_through_a_dangling_symlink_creates_the_target(tmp_path):
    link = tmp_path / "link.json"
    link.symlink_to("new.json")
    r = run(PAIR + ["--json", str(link)])
    assert r.returncode == 0, r.stderr
    assert link.is_symlink()
    json.loads((tmp_path / "new.json").read_text())


def test_json_dash_is_stdout():
    r = run(["svsem", "-l", "100", "-i", "100", "-q", "--json", "-"])
    assert r.returncode == 0, r.stderr
    start = r.stdout.index("{")
    assert json.loads(r.stdout[start:])["num_threads"] == 1


def path_of_length(base, length):
    """A new path under base of exactly length characters (directories
    made; each name under 255 characters)."""
    d = base
    while length - len(str(d)) > 150:
        d = d / ("d" * 100)
    d.mkdir(parents=True, exist_ok=True)
    return d / ("x" * (length - len(str(d)) - 1 - len(".json")) + ".json")


@pytest.mark.parametrize("length", [119, 120, 300, 1000])
def test_json_at_a_long_path_is_kept(leakcheck, length):
    """The cleanup registry once kept 119 characters of a temp file's path:
    for a result path of exactly that length, the cleanup at exit removed
    the result just renamed into place (summary printed, exit 0, no file).
    Long paths are kept whole; nothing else is left beside the result."""
    with tempfile.TemporaryDirectory(prefix="l", dir="/tmp") as base:
        js = path_of_length(Path(base), length)
        d = js.parent
        assert len(str(js)) == length
        r = run(["svsem", "-l", "100", "-q", "--json", str(js)])
        assert r.returncode == 0, r.stderr
        assert json.loads(js.read_text())["return_code"] == 0
        assert os.listdir(d) == [js.name]
        # Killed mid-run: the janitor removes the temp file, long or not.
        with watching(["svsem", "-i", "1000", "-q", "--json", str(js)]) as p:
            p.measuring()
            p.kill()
            p.wait(timeout=10)
        wait_for(lambda: os.listdir(d) == [js.name],
                 lambda: f"the janitor to remove the temp file: {os.listdir(d)}",
                 timeout=5)
    leakcheck()


def test_a_regular_file_is_replaced_whole(tmp_path):
    out = tmp_path / "o.json"
    out.write_text("x" * 100000)
    r = run(PAIR + ["--json", str(out)])
    assert r.returncode == 0, r.stderr
    json.loads(out.read_text())
    assert os.listdir(tmp_path) == ["o.json"]


# --- 3.: paths that cannot work are refused before the run -------------------

@pytest.mark.parametrize("argv", [PAIR, TIMER, REQUEST],
                         ids=["pair", "timer", "request"])
@pytest.mark.parametrize("path", ["/proc/x.json", "/sys/x.json",
                                  "/nonexistent-dir/x.json"])
def test_an_unwritable_output_is_bad_input(leakcheck, argv, path):
    t = time.monotonic()
    r = run(argv + ["--json", path])
    assert r.returncode == 2, r.stderr
    assert r.stdout == ""
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1, r.stderr
    assert "--json" in lines[0] and path in lines[0]
    assert "accepted:" in lines[0]
    assert time.monotonic() - t < 2, "it ran before refusing"
    leakcheck()


def test_suite_results_that_is_a_file_is_bad_input(tmp_path, leakcheck):
    f = tmp_path / "afile"
    f.write_text("")
    r = run(["suite", "-o", str(f), "--only", "pmq", "--duration", "1"])
    assert r.returncode == 2
    assert r.stdout == ""
    line, = r.stderr.strip().splitlines()
    assert "-o/--results" in line and "not a directory" in line
    assert "accepted:" in line
    leakcheck()


def test_suite_results_under_a_missing_directory_is_bad_input(tmp_path):
    d = tmp_path / "no" / "such"
    r = run(["suite", "-o", str(d), "--only", "pmq", "--duration", "1"])
    assert r.returncode == 2
    line, = r.stderr.strip().splitlines()
    assert "-o/--results" in line and "accepted:" in line
    assert not (tmp_path / "no").exists()


# --- 4.: the suite's endings -------------------------------------------------

def test_suite_sighup_prints_what_ran_and_stops_the_test(tmp_path, leakcheck):
    with watching(["suite", "--only", "pmq,svsem", "--duration", "5",
                   "-o", str(tmp_path / "r")]) as p:
        p.measuring(r"^rtlat pmq: status .*: [1-9]\d* samples")
        rc, out, err = stop(p, signal.SIGHUP, timeout=10)
    assert rc == 1, err
    assert "stopped by Hangup" in err
    assert re.search(r"^pmq +latency +\d+", out, re.M), out
    assert "svsem" not in out
    leakcheck()


def test_suite_killed_takes_its_test_with_it(tmp_path, leakcheck):
    with watching(["suite", "--only", "svsem", "--duration", "30",
                   "-o", str(tmp_path / "r")]) as p:
        p.measuring(r"^rtlat svsem: status .*: [1-9]\d* samples")
        p.kill()
        p.communicate(timeout=10)
    # leakcheck waits up to 2 s for the test and its janitor to go.
    leakcheck()


# --- 5.: bad input says what is accepted -------------------------------------

@pytest.mark.parametrize("argv,opt", [
    (["pmq", "-f", "1", "-l", "10"], "-f/--forcetimeout"),
    (["request", "-c", "a" * 200, "--samples", "10"], "-c/--client"),
    (["request", "-s", "--bind", "not-an-address"], "--bind"),
])
def test_bad_input_names_the_option_and_what_is_accepted(argv, opt):
    r = run(argv, timeout=30)
    assert r.returncode == 2
    assert r.stdout == ""
    line, = r.stderr.strip().splitlines()
    assert f"option {opt}:" in line
    assert "accepted:" in line and not line.rstrip().endswith("accepted:")


def test_bad_bind_and_client_say_the_forms():
    r = run(["request", "-s", "--bind", "nonsense"])
    assert "IPv4 or IPv6 address" in r.stderr
    r = run(["request", "-c", "no-such-host.invalid", "--samples", "10"],
            timeout=30)
    assert "a host name or IPv4/IPv6 address" in r.stderr


# --- 6.: a stop signal at a random moment ------------------------------------

@pytest.mark.parametrize("extra", [[], ["-f", "-t", "2"]],
                         ids=["threads", "fork"])
def test_stop_signal_at_a_random_moment(leakcheck, extra):
    """Many trials within a bounded time, each with SIGTERM at a random
    moment of the first few milliseconds. Every trial ends (a lost signal
    used to leave the run measuring forever) with exit 0 (samples taken)
    or 1 (stopped before the first sample, said on stderr); only a signal
    sent before rtlat's handler existed (during exec, seen in SigCgt) may
    kill it, and then with nothing printed."""
    rng = random.Random(16)
    deadline = time.monotonic() + 8
    trials = 0
    while time.monotonic() < deadline and trials < 120:
        p = start(["svsem", "-i", "1000", "-q"] + extra)
        # A signal at a random moment of the start-up is the test.
        time.sleep(rng.uniform(0, 0.006))
        caught = handler_installed(p.pid, signal.SIGTERM)
        rc, out, err = stop(p, signal.SIGTERM, timeout=10)
        trials += 1
        if rc == -signal.SIGTERM:
            assert not caught, "killed although the handler was installed"
            assert out == "" and err == ""
        elif rc == 1:
            assert "stopped by a signal before the first sample" in err, err
        else:
            assert rc == 0, err
    assert trials >= 20
    leakcheck()


# --- 7.: the signal-queue limit -----------------------------------------------

def test_sigpending_limit_is_named(leakcheck):
    r = subprocess.run(["prlimit", "--sigpending=0", RTLAT] + REQUEST,
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 1
    assert "RLIMIT_SIGPENDING" in r.stderr and "ulimit -i" in r.stderr
    leakcheck()
