# SPDX-License-Identifier: GPL-2.0-or-later
"""Where the pair tests, sync and response follow their original documents
(issue 31): -l with several pairs under rt-tests' names, sync between
processes with every primitive of the design's table, response's fft work
larger than the last-level cache."""
import re

import pytest

import rtjson
from conftest import registry_compat, registry_names, run

COMPAT = registry_compat("pair")
TESTS = registry_names("pair")
FORKABLE = ["sigwait", "svsem"]
CYCLES = re.compile(r"Cycles (\d+)$", re.M)


def modes():
    for t in TESTS:
        yield t, []
        if t in FORKABLE:
            yield t, ["-f"]


def cycles(r, js):
    """Each pair's cycles, from the text and the JSON (they agree)."""
    text = [int(n) for n in CYCLES.findall(r.stdout)]
    assert text == [p.samples for p in rtjson.read(js).pairs], r.stdout
    return text


@pytest.mark.parametrize("test,extra", list(modes()),
                         ids=lambda v: v if isinstance(v, str) else " ".join(v) or "threads")
def test_loops_end_at_the_first_pair_under_rt_tests_names(tmp_path, leakcheck,
                                                           test, extra):
    """rt-tests 2.40 (pmqtest, sigwaittest, svsematest, ptsematest -t 3
    -l 100 -i 1000 -d 500) stops every pair when the first has done -l
    loops: 100, about 70 and 50 cycles. Pair 1 here has a 501 ms interval:
    it would need 4.5 s for its 10 loops, pair 0 needs 10 ms, so whatever
    the machine's load, pair 0 finishes first and the others stop short."""
    js = tmp_path / "c.json"
    r = run(extra + ["-t", "3", "-l", "10", "-i", "1000", "-d", "500000",
                     "-q", f"--json={js}"], argv0=COMPAT[test])
    assert r.returncode == 0, r.stderr
    n = cycles(r, js)
    assert n[0] == 10 and max(n) == 10, n
    assert n[1] < 10 and n[2] < 10, n
    leakcheck()


@pytest.mark.parametrize("test", TESTS)
def test_loops_are_per_pair_under_rtlat_names(tmp_path, leakcheck, test):
    """rtlat's own names keep SPEC §1: each pair does its own -l."""
    js = tmp_path / "c.json"
    r = run([test, "-t", "3", "-l", "5", "-i", "1000", "-d", "20000",
             "-q", f"--json={js}"])
    assert r.returncode == 0, r.stderr
    assert cycles(r, js) == [5, 5, 5]
    leakcheck()

