# SPDX-License-Identifier: GPL-2.0-or-later
"""A suite's results directory beside its tests' files: index.json (the
suite's end, its tests' states, its verdicts) and registry.json (rtlat
--list: the tests' order and series), each read once into the model
(model.SuiteIndex, Run.order)."""
import json
import os

from ..io import InputError, read_regular
from ..model import LoadCmd, PhaseLoad, Stressor, SuiteIndex, SuiteTest
from .longrun import num, read_checkpoint


def _text(x):
    return x if isinstance(x, str) and x else None


REGISTRY = "registry.json"
# rtlat suite's index of its tests (done or not, complete or not): not a result.
INDEX = "index.json"


def json_of(path):
    """path's JSON (a regular file within the caps), None if there is
    none or it cannot be read."""
    try:
        return json.loads(read_regular(path).decode("utf-8"))
    except (InputError, ValueError):
        return None


def registry_order(reg):
    """The tests in the suite's order from rtlat's registry (rtlat --list,
    which the suite writes beside its results), those it does not run
    after; [] when there is none or it cannot be read (the report then
    keeps the order the results come in)."""
    try:
        tests = reg["tests"]
        ranked = sorted(tests, key=lambda t: (t.get("suite_order") is None,
                                              t.get("suite_order") or 0))
        return [str(t["name"]) for t in ranked]
    except (ValueError, KeyError, TypeError, AttributeError):
        return []


def registry_series(reg):
    """{test: its series} of the registry."""
    tests = reg.get("tests") if isinstance(reg, dict) else None
    return {str(t["name"]): tuple(str(s) for s in t.get("series") or ())
            for t in tests or () if isinstance(t, dict) and t.get("name")}


def _fleet(index):
    """The index's "fleet" (the suite's verdicts), where it has one with
    its records."""
    fleet = index.get("fleet")
    return fleet if isinstance(fleet, dict) and \
        isinstance(fleet.get("series"), list) else None


def _int(x):
    return x if isinstance(x, int) and not isinstance(x, bool) else None


def _load(d):
    """A phase's "load" (rtlat qualify, rtlat suite --load) as a PhaseLoad."""
    if not isinstance(d, dict):
        return None
    cmd = d.get("cmd")
    return PhaseLoad(
        stress_ng=d.get("stress_ng") is True,
        version=_text(d.get("stress_ng_version")) or "",
        status=_int(d.get("stress_ng_status")),
        hackbench=d.get("hackbench") is True,
        seconds=num(d.get("seconds")),
        stressors=[Stressor(str(s.get("name")), num(s.get("bogo_ops")) or 0,
                            num(s.get("bogo_ops_per_s")) or 0)
                   for s in d.get("stressors") or () if isinstance(s, dict)],
        cmd=LoadCmd(str(cmd.get("command") or ""), _int(cmd.get("exit_status")),
                    cmd.get("stopped") is True,
                    [str(x) for x in cmd.get("output_tail") or ()])
        if isinstance(cmd, dict) else None)


def _test(t):
    return SuiteTest(str(t["name"]), str(t.get("state") or ""),
                     phase=_text(t.get("phase")) or "",
                     why=_text(t.get("why")) or "", load=_load(t.get("load")))


def read_suite(path, reg=None):
    """A suite's results directory's index.json (and its registry's
    series; reg: the registry already read) as a SuiteIndex; None when
    path is not a directory or has no index."""
    index = os.path.join(path, INDEX)
    if not os.path.isdir(path) or not os.path.exists(index):
        return None
    try:
        data = json.loads(read_regular(index).decode("utf-8"))
    except (InputError, ValueError):
        return SuiteIndex(readable=False)
    if not isinstance(data, dict):
        return SuiteIndex()
    tests = data.get("tests")
    fleet = _fleet(data) or {}
    cp = read_checkpoint(data.get("checkpoint"))
    return SuiteIndex(
        complete=data["complete"] if isinstance(data.get("complete"), bool)
        else None,
        command=_text(data.get("command")) or "",
        tests=[_test(t) for t in tests if isinstance(t, dict) and t.get("name")]
        if isinstance(tests, list) else None,
        at_wall=cp.at_wall if cp else None,
        verdict=_text(fleet.get("verdict")),
        max_latency_us=num(fleet.get("max_latency_us")),
        max_p99_us=num(fleet.get("max_p99_us")),
        series=registry_series(json_of(os.path.join(path, REGISTRY))
                               if reg is None else reg),
        fleet=_fleet(data))
