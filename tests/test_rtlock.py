# SPDX-License-Identifier: GPL-2.0-or-later
"""make check's cross-group lock (tests/rtlock.py): which runs are CPU
hogs, and that a hog runs while no other group's test does."""
import os
import select
import subprocess
import sys
from pathlib import Path

import pytest

import rtlock


@pytest.mark.parametrize("args,hog", [
    (["bintime", "-D", "1"], True),
    (["bintime", "-l", "20000", "-p", "0"], False),
    (["sync", "-l", "200"], False),
    (["sync", "-l", "0"], True),
    (["sync", "--test", "switch", "-l", "0", "-D", "3"], True),
    (["response", "--block", "5", "-l", "0"], True),
    (["response", "-l", "20"], False),
    (["response", "-D", "2"], True),
    (["response", "--prio=0"], False),
    (["suite", "--duration", "1"], True),
    (["suite", "--only", "pmq,timer"], False),
    (["suite", "--only=pmq,sync"], True),
    (["timer", "-T", "1"], False),
    (["qualify", "--duration", "4"], False),
    (["(shell)"], False),
    ([], False),
])
def test_which_runs_are_hogs(args, hog):
    assert rtlock.is_hog(args) is hog


@pytest.mark.parametrize("args,sees", [
    (["doctor"], True), (["doctor", "--json", "x"], True), (["doctor", "--help"], False),
    (["qualify", "--duration", "4"], True), (["qualify", "--force", "--duration", "4"], False),
    (["timer", "-T", "1"], False)])
def test_which_runs_must_see_no_other_groups_hogs(args, sees):
    assert rtlock.sees_hogs(args) is sees


HOLD = """
import sys, time
sys.path.insert(0, {tests!r})
import rtlock
rtlock.test_starts({hog})
rtlock.run_starts(["timer", "-T", "1"])
print("held", flush=True)
sys.stdin.readline()
rtlock.test_ended({hog}, False, False)
"""


def said(p):
    """Whether p has said "held" within half a second (a negative: what
    is waited for is that nothing comes)."""
    return bool(select.select([p.stdout], [], [], 0.5)[0])


def holder(tmp, hog):
    # Its own lock files: make check's groups hold the checkout's.
    env = {**os.environ, "RTLAT_TEST_GROUP": "rtlock-test", "RTLAT_RTLOCK_DIR": str(tmp)}
    env.pop(rtlock.HELD, None)
    return subprocess.Popen([sys.executable, "-c", HOLD.format(
        tests=str(Path(__file__).parent), hog=hog)], stdin=subprocess.PIPE,
        stdout=subprocess.PIPE, text=True, env=env, cwd=tmp)


def test_a_hog_waits_for_the_tests_running_and_then_runs_alone(tmp_path):
    """Two groups' tests that run rtlat hold the lock shared; a hog waits
    until both end; a test that starts rtlat while the hog runs waits
    until it ends."""
    a, b = holder(tmp_path, False), holder(tmp_path, False)
    assert a.stdout.readline() == "held\n" and b.stdout.readline() == "held\n"
    hog = holder(tmp_path, True)
    a.stdin.write("\n")
    a.stdin.flush()
    a.wait(timeout=30)
    # b still holds it: the hog has not started.
    assert not said(hog)
    b.stdin.write("\n")
    b.stdin.flush()
    b.wait(timeout=30)
    assert hog.stdout.readline() == "held\n"
    late = holder(tmp_path, False)
    assert not said(late)
    hog.stdin.write("\n")
    hog.stdin.flush()
    hog.wait(timeout=30)
    assert late.stdout.readline() == "held\n"
    late.stdin.write("\n")
    late.stdin.flush()
    late.wait(timeout=30)
