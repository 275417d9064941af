# SPDX-License-Identifier: GPL-2.0-or-later
"""Attacks on a run's ending (issue 30): a pair run whose worker failed is
an error, never a PASS (item 3); the request server under a descriptor
limit says why and does not spin (item 9); the option errors name what
is accepted and the number the user gave (smaller items)."""
import json
import os
import socket
import subprocess
import time

import pytest

from conftest import ASAN, RTLAT, leakcheck, run  # noqa: F401

# ---------------------------------------------------------------- item 3


def limited(limit, argv, timeout=60):
    """rtlat under prlimit; under ASan its leak checker is off (it needs
    resources of its own that these limits deny)."""
    env = dict(os.environ)
    if ASAN:
        env["ASAN_OPTIONS"] = "detect_leaks=0"
    return subprocess.run(["prlimit", limit, RTLAT] + argv,
                          capture_output=True, text=True, timeout=timeout,
                          env=env, cwd="/")


@pytest.mark.parametrize("mode", [[], ["-f"]], ids=["threads", "fork"])
def test_failed_pair_worker_is_an_error_not_a_pass(tmp_path, leakcheck, mode):
    """`prlimit --sigpending=0 rtlat sigwait --rt`: the sender's sigqueue
    fails (EAGAIN) before any cycle. The run is an error: exit 1, the
    verdict ERROR (never PASS), LAVA's run case fail, JSON return_code 1,
    JUnit an error; the summary is still printed and every output
    written; nothing is left behind."""
    js, ju = tmp_path / "r.json", tmp_path / "j.xml"
    r = limited("--sigpending=0",
                ["sigwait", "--rt"] + mode +
                ["-i", "200", "-l", "1000", "--max-latency", "1", "--lava",
                 "--json", str(js), "--junit", str(ju)])
    assert "pair 0: sigwait failed" in r.stderr, r.stderr
    assert r.returncode == 1, (r.returncode, r.stderr)
    assert "verdict: PASS" not in r.stderr
    assert "rtlat sigwait: verdict: ERROR (the run ended with an error" in r.stderr, r.stderr
    assert "sigwait-run --result fail" in r.stdout
    assert "sigwait-run --result pass" not in r.stdout
    assert "Cycles 0" in r.stdout            # the summary, still printed
    d = json.loads(js.read_text())
    assert d["return_code"] == 1
    assert "sigwait failed" in d["error"]
    assert 'errors="1"' in ju.read_text()
    leakcheck()
