# SPDX-License-Identifier: GPL-2.0-or-later
"""rtlat timer -t 3 (issue 47): rtlat's own thread takes timerlat's
wake-ups through timerlat_fd (Linux 6.5+). Here: the refusal where the
kernel has no timerlat_fd (this host, Debian 12's 6.1); the measurement
itself runs on the 6.12 RT guest (tests/kernels, check timerlatu)."""
import os
from pathlib import Path

import pytest

from conftest import run

FD = "osnoise/per_cpu/cpu0/timerlat_fd"


def has_timerlat_fd():
    return any(Path(d, FD).exists() for d in
               ("/sys/kernel/tracing", "/sys/kernel/debug/tracing"))


def test_help_names_the_user_mode():
    r = run(["timer", "--help"])
    assert r.returncode == 0
    assert "3: user task on timerlat's wake-ups (timerlat_fd" in r.stdout


@pytest.mark.skipif(has_timerlat_fd(), reason="this kernel has timerlat_fd")
def test_without_timerlat_fd_one_line_and_exit_2(tmp_path, leakcheck):
    """As modes 1 and 2 on a kernel without timerlat: bad input, one line
    naming -t, timerlat_fd and what is accepted; nothing written."""
    out = tmp_path / "r.json"
    r = run(["timer", "-t", "3", "-T", "1", "--json", str(out)])
    assert r.returncode == 2, r.stderr
    assert len(r.stderr.splitlines()) == 1, r.stderr
    line = r.stderr
    assert line.startswith("rtlat timer: option -t"), line
    assert "timerlat_fd" in line and "6.5" in line and "accepted: 0" in line
    assert r.stdout == "" and not out.exists()
    assert os.listdir(tmp_path) == []
    leakcheck()


def test_user_work_is_the_user_modes_alone(tmp_path, leakcheck):
    """--user-work US (the -t 3 thread's spin after each wake-up) with
    another mode: one line, exit 2."""
    r = run(["timer", "-T", "1", "--user-work", "10"])
    assert r.returncode == 2, r.stderr
    assert len(r.stderr.splitlines()) == 1
    assert "--user-work" in r.stderr and "with -t 3" in r.stderr
    assert r.stdout == ""
    leakcheck()
