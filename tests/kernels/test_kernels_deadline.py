# SPDX-License-Identifier: GPL-2.0-or-later
"""rtlat deadline on the stage's kernels (guest.sh's c_deadline, issue
47): SCHED_DEADLINE admitted and measured on Debian's 6.1 kernels under
QEMU, a job longer than its runtime counted as an overrun, and a thread
pinned inside the guest's two-CPU root domain refused in one line with
its fix. Counts and lines only: under emulation latencies mean nothing."""
import pytest

from test_kernels import jload, results, stage_done, times  # noqa: F401 (autouse)


@pytest.fixture(params=["rt", "stock", "custom"])
def kernel(request):
    d = results(request.param)
    if "deadline" not in times(d):
        pytest.skip(f"the {request.param} stage ran no deadline check (CHECKS=...)")
    return request.param, d


def test_the_deadline_sampler_measures_and_counts_overruns(kernel):
    _, d = kernel
    assert times(d)["deadline"][0] == 0, (d / "deadline.err").read_text()
    doc = jload(d, "deadline.json")
    assert doc["rtlat"]["test"] == "deadline"
    assert doc["settings"]["method"] == "sched_deadline"
    cpu = doc["cpus"][0]
    assert cpu["latency"]["samples"] > 0
    # A 2 ms busy job on a 1 ms runtime: the guest's kernel holds it to
    # its runtime, seen as overruns (SIGXCPU) or, where the emulated
    # guest's clock lets the throttle land late, as deadline misses (one
    # make check's guest: 49 jobs, 40 misses, 0 overruns). The overrun
    # count itself is tests/test_deadline.py's, on the host's kernel.
    dl = cpu["deadline"]
    assert dl["overruns"] + dl["misses"] > 0, dl
    assert "deadline: thread 0: " in (d / "deadline.out").read_text()


def test_a_pinned_thread_in_a_wider_root_domain_is_refused_with_the_fix(kernel):
    _, d = kernel
    assert (d / "deadline-pinned.rc").read_text().strip() == "1"
    lines = [l for l in (d / "deadline-pinned.err").read_text().splitlines()
             if "SCHED_DEADLINE" in l]
    assert len(lines) == 1, lines
    assert "EPERM" in lines[0] and "root domain" in lines[0] and "cpuset" in lines[0]
