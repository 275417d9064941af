# SPDX-License-Identifier: GPL-2.0-or-later
"""Issue 30, the LAVA definition attacked (items 2 and 14): lava/rtlat.sh
run by bash (/bin/sh on Fedora and CentOS), dash (Debian's) and busybox
sh (with busybox's applets alone on the PATH, as on a small board).

- Every parameter is checked before any expansion could evaluate it: an
  injection attempt creates nothing and ends at once with exit 2, one line
  on stderr naming the parameter, and TEST-run failed in result.txt.
- A test name is never one LAVA drops: a bad TEST is refused with the case
  rtlat-run failed, send-to-lava.sh turns a malformed line into a failing
  case instead of dropping it, and a run that ended badly has TEST-run
  failed whatever rtlat printed.
- BACKGROUND_CMD's processes are all stopped after the run, also those
  that left its session (setsid) or its process group.

rtlat is a stub here (it records its arguments) unless the real one is
what is checked; no latency value is asserted."""
import os
import re
import shutil
import signal
import subprocess
import time
from pathlib import Path

import pytest
import yaml

from conftest import RTLAT, ROOT

SHELLS = {"bash": ["bash"], "dash": ["dash"], "busybox": ["busybox", "sh"]}
CASE_NAME = re.compile(r"[A-Za-z0-9._-]+")
# a sleep no one else runs: the background load's processes' mark
UNIQUE = 987321

STUB = """#!/bin/sh
# rtlat as the tests' stub: its arguments recorded, one a line
echo "$1" >> "{record}.calls"
if [ "$1" = --version ]; then echo "rtlat 0.0"; exit 0; fi
# the registry is the real one's
if [ "$1" = --list-plain ]; then exec "{real}" --list-plain; fi
printf '%s\\n' "$@" > "{record}"
# the background load's word that it is up, if one is awaited
n=0
while [ -n "{started}" ] && [ ! -e "{started}" ] && [ "$n" -lt 300 ]; do
	sleep 0.1
	n=$((n + 1))
done
echo "lava-test-case $1-latency-max --result pass --measurement 1.000 --units us"
echo "lava-test-case $1-run --result {said}"
exit {status}
"""


def shell_cmd(name, tmp_path):
    """The shell's command line, and the PATH it runs with (busybox's
    applets alone for busybox: a board with nothing else); else skip."""
    exe = shutil.which(SHELLS[name][0])
    if not exe:
        pytest.skip(f"{name} is not installed (apt-get install {name})")
    cmd = [exe] + SHELLS[name][1:]
    path = os.environ["PATH"]
    if name == "busybox":
        bindir = tmp_path / "busybox-bin"
        bindir.mkdir()
        r = subprocess.run(["busybox", "--list"], capture_output=True, text=True)
        for applet in r.stdout.split():
            (bindir / applet).symlink_to(shutil.which("busybox"))
        path = str(bindir)
    return cmd, path


@pytest.fixture(params=sorted(SHELLS))
def shell(request, tmp_path):
    return shell_cmd(request.param, tmp_path)


def lava_copy(tmp_path):
    """The definition's directory as LAVA has it: a copy of lava/."""
    d = tmp_path / "lava"
    shutil.copytree(ROOT / "lava", d)
    return d


def stub(tmp_path, started="", said="pass", status=0):
    exe = tmp_path / "rtlat-stub"
    record = tmp_path / "rtlat-args"
    exe.write_text(STUB.format(record=record, started=started, said=said, status=status,
                               real=RTLAT))
    exe.chmod(0o755)
    return exe, record


def rtlat_sh(shell, lava, args, timeout=30):
    cmd, path = shell
    return subprocess.run(cmd + ["./rtlat.sh"] + args, cwd=lava, capture_output=True,
                          text=True, timeout=timeout, env=dict(os.environ, PATH=path))


def results(lava):
    return (lava / "output" / "result.txt").read_text().splitlines()


# ---------------------------------------------------------------------------
# Item 2: no parameter is ever evaluated.

PAYLOADS = {
    "array-index": "a[$(touch {flag})]m",
    "command-substitution": "$(touch {flag})",
    "backticks": "`touch {flag}`",
    "semicolon": "1; touch {flag}",
    "newline": "1\ntouch {flag}",
}
# option, the name the error line gives it, how the payload is placed
PARAMS = {
    "TEST": ("-t", "TEST (-t)", "{p}"),
    "DURATION": ("-D", "DURATION (-D)", "{p}"),
    "ITERATIONS": ("-i", "ITERATIONS (-i)", "{p}"),
    "MAX_LATENCY": ("-m", "MAX_LATENCY (-m)", "pmq={p}"),
    "MAX_P99": ("-p", "MAX_P99 (-p)", "{p}"),
    "TOLERANCE": ("-T", "TOLERANCE (-T)", "{p}"),
    "SKIP_INSTALL": ("-s", "SKIP_INSTALL (-s)", "{p}"),
    "ARGS": ("-a", "ARGS (-a)", "-l 10 {p}"),
    "RTLAT": ("-r", "RTLAT (-r)", "{p}"),
}


# ARGS (words for rtlat) and RTLAT (a path) are never evaluated: only a
# control character in them is refused
ATTEMPTS = [(param, payload) for param in sorted(PARAMS) for payload in sorted(PAYLOADS)
            if param not in ("ARGS", "RTLAT") or payload == "newline"]


@pytest.mark.parametrize("param,payload", ATTEMPTS)
def test_an_injection_is_refused_at_once(shell, tmp_path, param, payload):
    flag = tmp_path / "pwned"
    value = PARAMS[param][2].format(p=PAYLOADS[payload].format(flag=flag))
    lava = lava_copy(tmp_path)
    exe, record = stub(tmp_path)
    args = ["-t", "timer", "-D", "2s", "-r", str(exe), "-s", "true"]
    args += [PARAMS[param][0], value]
    t0 = time.monotonic()
    r = rtlat_sh(shell, lava, args, timeout=20)
    assert time.monotonic() - t0 < 10
    assert not flag.exists(), "the payload ran"
    assert r.returncode == 2, r.stdout + r.stderr
    (line,) = r.stderr.splitlines()
    assert line.startswith(f"rtlat.sh: {PARAMS[param][1]}: ") and "accepted: " in line, line
    run_case = "rtlat-run" if param == "TEST" else "timer-run"
    assert results(lava) == [f"{run_case} fail"]
    assert not record.exists(), "rtlat ran"


# The SQUAD params (issue 35) are checked after the run, when the
# definition submits it (a bad one costs the submission, not the night's
# measurement): never evaluated either, passed to rtlat-report as they are.
SQUAD_OPTIONS = {"SQUAD_URL": "-U", "SQUAD_GROUP": "-G", "SQUAD_PROJECT": "-P",
                 "SQUAD_BUILD": "-B", "SQUAD_ENV": "-E", "SQUAD_JOB_ID": "-J",
                 "SQUAD_TOKEN_FILE": "-K"}
SQUAD_STUB = """#!/bin/sh
if [ "$1" = --version ]; then echo "rtlat 0.0"; exit 0; fi
if [ "$1" = --list-plain ]; then exec "{real}" --list-plain; fi
while [ "$#" -gt 0 ]; do
	if [ "$1" = --json ]; then echo '{{}}' > "$2"; fi
	shift
done
echo "lava-test-case timer-run --result pass"
"""
REPORT_STUB = """#!/bin/sh
printf '%s\\n' "$@" > "{record}"
"""


@pytest.mark.parametrize("payload", sorted(PAYLOADS))
def test_squad_params_are_never_evaluated(shell, tmp_path, payload):
    """Every SQUAD param at once holds the payload: nothing runs it; a
    control character costs the submission alone (TEST-squad failed, one
    line, rtlat-report never started), any other value reaches
    rtlat-report as it was given, one argument."""
    lava = lava_copy(tmp_path)
    flags = {p: tmp_path / f"pwned-{p}" for p in SQUAD_OPTIONS}
    rtlat, report, record = (tmp_path / n for n in ("rtlat-stub", "report-stub", "report-args"))
    rtlat.write_text(SQUAD_STUB.format(real=RTLAT))
    report.write_text(REPORT_STUB.format(record=record))
    rtlat.chmod(0o755)
    report.chmod(0o755)
    args = ["-t", "timer", "-D", "2s", "-r", str(rtlat), "-s", "true", "-R", str(report)]
    given = {p: PAYLOADS[payload].format(flag=flags[p]) for p in SQUAD_OPTIONS}
    for p, opt in SQUAD_OPTIONS.items():
        args += [opt, given[p]]
    r = rtlat_sh(shell, lava, args, timeout=20)
    assert r.returncode == 0, r.stdout + r.stderr
    assert not [p for p, f in flags.items() if f.exists()], "a payload ran"
    res = results(lava)
    assert res[:-1] == ["timer-run pass"], res
    if payload == "newline":
        assert res[-1] == "timer-squad fail"
        (line,) = [ln for ln in r.stderr.splitlines() if "timer-squad" in ln]
        assert "SQUAD_URL (-U)" in line and "control character" in line, line
        assert not record.exists(), "rtlat-report ran"
        return
    assert res[-1] == "timer-squad pass"
    seen = record.read_text().splitlines()
    for p, opt in (("SQUAD_URL", "--squad"), ("SQUAD_GROUP", "--group"),
                   ("SQUAD_PROJECT", "--project"), ("SQUAD_BUILD", "--build"),
                   ("SQUAD_ENV", "--environment"), ("SQUAD_JOB_ID", "--job-id"),
                   ("SQUAD_TOKEN_FILE", "--squad-token-file")):
        assert f"{opt}={given[p]}" in seen, (p, seen)


@pytest.mark.parametrize("test,duration,option", [
    ("pmq", "5", ["-D", "5"]), ("pmq", "5s", ["-D", "5s"]),
    ("cyclictest", "2m", ["-D", "2m"]), ("timer", "3h", ["-T", "3h"]),
    ("suite", "1d", ["--duration", "1d"]), ("sync", "123456789", ["-D", "123456789"])])
def test_valid_durations_reach_rtlat(shell, tmp_path, test, duration, option):
    lava = lava_copy(tmp_path)
    exe, record = stub(tmp_path)
    (lava / "--x-matched-by-a-glob").touch()
    # the suite's iterations are the script's loop: one here
    iterations = "1" if test == "suite" else "1000"
    r = rtlat_sh(shell, lava, ["-t", test, "-D", duration, "-r", str(exe), "-s", "true",
                               "-m", "pmq=50,timer/latency=30", "-i", iterations,
                               "-a", "-l 100 --x*"])
    assert r.returncode == 0, r.stdout + r.stderr
    got = record.read_text().splitlines()
    assert got[0] == test
    i = got.index(option[0])
    assert got[i:i + 2] == option
    assert "--max-latency" in got and "pmq=50,timer/latency=30" in got
    if test != "suite":
        assert got[got.index("--iterations") + 1] == "1000"
    # ARGS split into words, never globbed
    assert got[got.index("-l"):got.index("-l") + 3] == ["-l", "100", "--x*"]
    assert results(lava)[-1] == f"{test}-run pass"


def test_every_test_of_the_registry_runs_for_its_duration(tmp_path):
    """The tests LAVA runs are rtlat's (its registry, not a list in the
    script), each for DURATION through the option its registry row gives
    ("-" for none: request's length is its rounds)."""
    for ln in subprocess.run([RTLAT, "--list-plain"], capture_output=True, text=True,
                             check=True).stdout.splitlines():
        name, _, _, length = ln.split()[:4]
        d = tmp_path / name
        d.mkdir()
        lava = lava_copy(d)
        exe, record = stub(d)
        r = rtlat_sh(shell_cmd("dash", d), lava, ["-t", name, "-D", "7s", "-r", str(exe),
                                                 "-s", "true"])
        assert r.returncode == 0, r.stdout + r.stderr
        got = record.read_text().splitlines()
        assert got[0] == name
        if length == "-":
            assert "7s" not in got, got
        else:
            assert got[got.index(length) + 1] == "7s", got
        assert results(lava)[-1] == f"{name}-run pass"


@pytest.mark.parametrize("name", ["nope", "pmqtest", "cyclic"])
def test_a_name_rtlat_does_not_have_is_refused(shell, tmp_path, name):
    """A name in a test's shape that rtlat's registry lacks: one line
    naming TEST and listing what rtlat has, exit 2, rtlat-run failed, and
    the stub asked only for its version and its registry."""
    lava = lava_copy(tmp_path)
    exe, record = stub(tmp_path)
    r = rtlat_sh(shell, lava, ["-t", name, "-r", str(exe), "-s", "true"])
    assert r.returncode == 2, r.stdout + r.stderr
    (line,) = r.stderr.splitlines()
    assert line.startswith(f"rtlat.sh: TEST (-t): '{name}' is not accepted; accepted: suite, ")
    listed = subprocess.run([RTLAT, "--list-plain"], capture_output=True, text=True,
                            check=True).stdout.split("\n")
    assert all(ln.split()[0] in line for ln in listed if ln), line
    assert results(lava) == ["rtlat-run fail"]
    assert not record.exists(), "rtlat ran"


def test_an_rtlat_that_cannot_list_its_tests_fails_the_run(tmp_path):
    """rtlat runs (--version) but its registry fails: not a bad TEST but
    rtlat's failure, TEST-run failed and the script ends well (the
    definition's next step reports it)."""
    lava = lava_copy(tmp_path)
    exe = tmp_path / "rtlat-broken"
    exe.write_text('#!/bin/sh\n[ "$1" = --version ] && exit 0\nexit 1\n')
    exe.chmod(0o755)
    r = rtlat_sh(shell_cmd("dash", tmp_path), lava, ["-t", "pmq", "-r", str(exe), "-s", "true"])
    assert r.returncode == 0, r.stdout + r.stderr
    assert "does not list its tests" in r.stderr, r.stderr
    assert results(lava) == ["pmq-run fail"]


@pytest.mark.parametrize("param,value", [
    ("-D", "0"), ("-D", "1x"), ("-D", "05s"), ("-D", "1234567890"), ("-D", ""),
    ("-i", "0"), ("-i", "1001"), ("-T", "-1"), ("-m", "pmq= 50"), ("-m", "+50"),
    ("-m", "pmq=50,"), ("-m", ",50"), ("-p", "=5"), ("-s", "maybe"), ("-t", ""),
    ("-t", "Pmq"), ("-t", "pmq2"), ("-t", "../pmq"), ("-t", "-l"),
    ("-b", "/nonexistent/base.json"), ("-r", "-x"), ("-a", "-l\t10")])
def test_bad_values_are_refused(tmp_path, param, value):
    """In dash: one line, exit 2, nothing run (0 would never end), not
    even rtlat's --version."""
    lava = lava_copy(tmp_path)
    exe, record = stub(tmp_path)
    r = rtlat_sh(shell_cmd("dash", tmp_path), lava,
                 ["-t", "pmq", "-r", str(exe), "-s", "true", param, value])
    assert r.returncode == 2, r.stdout + r.stderr
    assert len(r.stderr.splitlines()) == 1 and f"({param})" in r.stderr, r.stderr
    assert not record.exists()
    assert not Path(f"{record}.calls").exists()


def test_the_real_run_in_every_shell(shell, tmp_path, leakcheck):
    """Plain seconds reach the real rtlat (a pair, 200 cycles)."""
    lava = lava_copy(tmp_path)
    r = rtlat_sh(shell, lava, ["-t", "pmq", "-D", "10", "-a", "-l 200 -i 500",
                               "-r", RTLAT, "-s", "true", "-m", "1000000"], timeout=60)
    assert r.returncode == 0, r.stdout + r.stderr
    res = results(lava)
    assert res[-1] == "pmq-run pass", res
    assert all(CASE_NAME.fullmatch(ln.split()[0]) for ln in res), res
    leakcheck()


# ---------------------------------------------------------------------------
# Item 14: never silence in LAVA.

def definition_steps(cmd):
    """rtlat.yaml's steps as Linaro's test-runner.py writes its run.sh
    (set -e), rtlat.sh run by the shell under test."""
    d = yaml.safe_load((ROOT / "lava" / "rtlat.yaml").read_text())
    steps = [s.replace("./rtlat.sh ", " ".join(cmd) + " ./rtlat.sh ")
             for s in d["run"]["steps"]]
    return d["params"], "set -e\n" + "\n".join(steps) + "\n"


def run_definition(shell, tmp_path, **params):
    cmd, path = shell
    defaults, script = definition_steps(cmd)
    lava_copy(tmp_path)
    env = dict(os.environ, PATH=path, **{k: str(v) for k, v in defaults.items()})
    env.update(params)
    return subprocess.run(cmd + ["-c", script], cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=60)


SIGNAL = re.compile(r"^<LAVA_SIGNAL_TESTCASE TEST_CASE_ID=(\S+) RESULT=(\w+)", re.M)


def test_a_test_name_with_options_is_one_failing_case(shell, tmp_path):
    exe, record = stub(tmp_path)
    r = run_definition(shell, tmp_path, TEST="pmq -t 2", RTLAT=str(exe),
                       SKIP_INSTALL="true", DURATION="1s")
    assert r.returncode == 0, r.stdout + r.stderr
    cases = SIGNAL.findall(r.stdout)
    assert cases == [("rtlat-run", "fail")], r.stdout
    assert re.search(r"^rtlat\.sh: TEST \(-t\): 'pmq -t 2' is not accepted; accepted: "
                     r".*ARGS \(-a\)$", r.stderr, re.M), r.stderr
    assert not record.exists()


def test_every_signal_is_a_valid_case_name(shell, tmp_path, leakcheck):
    """A real run through the definition's steps: every case LAVA gets
    has a name of letters, digits, '.', '_' and '-'."""
    r = run_definition(shell, tmp_path, TEST="pmq", RTLAT=RTLAT,
                       SKIP_INSTALL="true", DURATION="10s", ARGS="-l 200 -i 500 -t 2",
                       MAX_LATENCY="1")
    assert r.returncode == 0, r.stdout + r.stderr
    cases = SIGNAL.findall(r.stdout)
    assert cases and all(CASE_NAME.fullmatch(n) for n, _ in cases), cases
    assert cases[-1] == ("pmq-run", "fail")
    assert {n for n, _ in cases} >= {"pmq-t0-max-latency", "pmq-t1-max-latency"}
    leakcheck()


LAVA_STUB = """#!/bin/sh
echo "$*" >> "{record}"
"""


def test_send_to_lava_never_drops_a_line(shell, tmp_path):
    cmd, path = shell
    bindir = tmp_path / "lava-bin"
    bindir.mkdir()
    calls = tmp_path / "calls"
    (bindir / "lava-test-case").write_text(LAVA_STUB.format(record=calls))
    (bindir / "lava-test-case").chmod(0o755)
    res = tmp_path / "result.txt"
    res.write_text("pmq -t 2-run fail\nok-1 pass 1.500 us\n\nbad$(x) pass\n"
                   "m pass 1 us extra\nn pass abc us\nlast fail")
    r = subprocess.run(cmd + [str(ROOT / "lava" / "send-to-lava.sh"), str(res)],
                       capture_output=True, text=True, timeout=30,
                       env=dict(os.environ, PATH=f"{bindir}:{path}"))
    assert r.returncode == 0, r.stderr
    assert calls.read_text().splitlines() == [
        "result-line-1 --result fail", "ok-1 --result pass --measurement 1.500 --units us",
        "result-line-4 --result fail", "result-line-5 --result fail",
        "result-line-6 --result fail", "last --result fail"]
    assert len(r.stderr.splitlines()) == 4, r.stderr
    # an empty result file is a failing case too
    res.write_text("")
    calls.unlink()
    r = subprocess.run(cmd + [str(ROOT / "lava" / "send-to-lava.sh"), str(res)],
                       capture_output=True, text=True, timeout=30,
                       env=dict(os.environ, PATH=f"{bindir}:{path}"))
    assert calls.read_text().splitlines() == ["rtlat-results --result fail"]


@pytest.mark.parametrize("said,status", [("pass", 1), ("pass", 139), ("fail", 0)])
def test_a_failed_run_is_a_failing_case(shell, tmp_path, said, status):
    """rtlat's own TEST-run line does not outvote its exit status: one
    TEST-run case, failed."""
    lava = lava_copy(tmp_path)
    exe, _ = stub(tmp_path, said=said, status=status)
    r = rtlat_sh(shell, lava, ["-t", "pmq", "-D", "1s", "-r", str(exe), "-s", "true"])
    assert r.returncode == 0, r.stdout + r.stderr
    assert results(lava) == ["pmq-latency-max pass 1.000 us", "pmq-run fail"]


def marked():
    """PIDs whose command line holds the background load's mark."""
    pids = []
    for d in Path("/proc").iterdir():
        if not d.name.isdigit():
            continue
        try:
            cmd = (d / "cmdline").read_bytes()
            state = (d / "stat").read_text().rsplit(")", 1)[1].split()[0]
        except (OSError, IndexError):
            continue
        if str(UNIQUE).encode() in cmd and state != "Z":
            pids.append(int(d.name))
    return pids


# each load: processes that leave the session (setsid), the process group
# (a new group of its own), one that ignores SIGTERM, one that empties its
# environment but stays in the session
LOADS = {
    "setsid": f"setsid sleep {UNIQUE}1 & setsid sleep {UNIQUE}2 & sleep {UNIQUE}3 &",
    "setsid-ignoring-term": f"setsid sh -c 'trap \"\" TERM; sleep {UNIQUE}4 & "
                            f"while :; do sleep 1; done' & sleep {UNIQUE}5 &",
    "new-group-no-environment": f"perl -e 'setpgrp(0, 0); exec qw(env -i sleep {UNIQUE}6)' & "
                                f"sleep {UNIQUE}7 &",
}


@pytest.mark.parametrize("load", sorted(LOADS))
def test_background_load_is_stopped_whole(shell, tmp_path, load, leakcheck):
    if "perl" in LOADS[load] and not shutil.which("perl"):
        pytest.skip("perl is not installed")
    cmd, path = shell
    if "perl" in LOADS[load]:
        # perl, with busybox's applets for the rest
        os.symlink(shutil.which("perl"), tmp_path / "perl")
        path = f"{path}:{tmp_path}"
    lava = lava_copy(tmp_path)
    flag = tmp_path / "started"
    exe, _ = stub(tmp_path, started=flag)
    assert not marked()
    try:
        t0 = time.monotonic()
        r = subprocess.run(cmd + ["./rtlat.sh", "-t", "pmq", "-D", "1s", "-r", str(exe),
                                  "-s", "true", "-w", f"{LOADS[load]} touch {flag}; wait"],
                           cwd=lava, capture_output=True, text=True, timeout=60,
                           env=dict(os.environ, PATH=path))
        took = time.monotonic() - t0
        left = marked()
    finally:
        for pid in marked():
            os.kill(pid, signal.SIGKILL)
    assert r.returncode == 0, r.stdout + r.stderr
    assert flag.exists(), r.stdout + r.stderr
    assert "background load stopped" in r.stdout
    assert not left, f"background load left running: {left}"
    assert not (lava / "output" / "background.pgid").exists()
    assert took < 30
    assert results(lava)[-1] == "pmq-run pass"
    leakcheck()
