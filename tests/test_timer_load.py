# SPDX-License-Identifier: GPL-2.0-or-later
"""rtlat timer --load and --load-cmd (issue 45): the load engine rtlat
qualify runs beside its loaded phase (src/system/load.c), beside the
timer's own measurement: stress-ng's bogo-ops and the command's status
and last lines in the timer's JSON as qualify writes them per phase, the
load stopped on every ending (-T, -l, a stop signal), nothing left
behind. No latency is asserted."""
import json
import os
import signal

import pytest

from conftest import run, running, wait_for
from test_qualify import LOAD_CMD_CASES, command_only, gone, marked, marker  # noqa: F401 (a fixture)
from test_schema import errors

pytestmark = pytest.mark.skipif(
    not any(os.access(os.path.join(d, "stress-ng"), os.X_OK)
            for d in os.environ.get("PATH", "").split(os.pathsep) if d),
    reason="stress-ng is not installed (tests/install-deps brings it)")

STRESSORS = {"cpu", "vm", "io", "sock", "udp"}


def test_timer_load_default_records_stress_ng_beside_it(tmp_path, marker, leakcheck):
    """`rtlat timer --load default -T 2 -c all`: stress-ng (and hackbench
    where installed) ran beside the samplers, its bogo-ops per stressor
    in the JSON's "load" (the schema's, as qualify's phase), then gone."""
    out = tmp_path / "t.json"
    r = run(["timer", "--load", "default", "-T", "2", "-q", "-c", "all",
             "--json", str(out)], timeout=60)
    assert r.returncode == 0, r.stderr
    data = json.loads(out.read_text())
    assert errors(data) == []
    load = data["load"]
    assert load["stress_ng"] and load["stress_ng_status"] == 0, load
    names = {s["name"]: s for s in load["stressors"]}
    assert set(names) == STRESSORS, load
    assert all(s["bogo_ops"] > 0 for n, s in names.items() if n != "vm"), load
    assert load["seconds"] > 0 and load["cmd"] is None
    gone(marker)
    leakcheck()


@pytest.mark.parametrize("cmd,status,stopped,tail", LOAD_CMD_CASES)
def test_timer_load_cmd_records_its_status_and_output(tmp_path, marker, leakcheck,
                                                      cmd, status, stopped, tail):
    """--load-cmd alone (no stress-ng): the command's status and last
    lines; one still running at the end is stopped (SIGTERM: 143)."""
    out = tmp_path / "t.json"
    r = run(["timer", "--load-cmd", cmd, "-T", "1", "-q", "--json", str(out)],
            timeout=60)
    assert r.returncode == 0, r.stderr
    command_only(json.loads(out.read_text())["load"], cmd, status, stopped, tail)
    gone(marker)
    leakcheck()


def test_sigterm_ends_the_timer_and_stops_its_command(tmp_path, marker, leakcheck):
    """An endless timer (no -T) ended by SIGTERM: the command beside it is
    stopped there (143), recorded in the JSON, gone."""
    out = tmp_path / "t.json"
    with running(["timer", "--load-cmd", "echo up; exec sleep 1000", "-q",
                  "--json", str(out)]) as p:
        wait_for(lambda: any(c == "sleep" for _, c in marked(marker)),
                 "the command to run", timeout=30, proc=p)
        p.send_signal(signal.SIGTERM)
        _, err = p.communicate(timeout=30)
    assert p.returncode == 0, err
    load = json.loads(out.read_text())["load"]
    assert load["cmd"]["stopped"] and load["cmd"]["exit_status"] == 143, load
    assert load["cmd"]["output_tail"] == ["up"]
    gone(marker)
    leakcheck()


def test_a_load_that_cannot_start_is_an_error(tmp_path, marker, leakcheck):
    """The load's temp dir cannot be made (TMPDIR missing): exit 1 with
    the reason, nothing started, nothing left behind."""
    r = run(["timer", "--load-cmd", "exec sleep 1000", "-T", "1", "-q"],
            env={**os.environ, "TMPDIR": str(tmp_path / "missing")})
    assert r.returncode == 1, r.stderr
    assert "--load: cannot make a temp dir" in r.stderr
    gone(marker)
    leakcheck()


def test_a_stop_signal_ends_the_timers_load(tmp_path, marker, leakcheck):
    """SIGINT while stress-ng runs beside an endless timer: the run ends,
    its JSON has what the load did, every load process and stress-ng's
    temp files are gone."""
    out = tmp_path / "t.json"
    with running(["timer", "--load", "stress-ng", "-q", "-T", "600",
                  "--json", str(out)]) as p:
        wait_for(lambda: any(c.startswith("stress-ng") for _, c in marked(marker)),
                 "stress-ng to run", timeout=60, proc=p)
        p.send_signal(signal.SIGINT)
        _, err = p.communicate(timeout=60)
    assert p.returncode == 0, err
    load = json.loads(out.read_text())["load"]
    assert load["stress_ng"] and not load["hackbench"], load
    gone(marker)
    leakcheck()


def test_timer_load_without_stress_ng_is_bad_input(tmp_path):
    """Where stress-ng is missing: one line naming the package, exit 2,
    no JSON written."""
    out = tmp_path / "t.json"
    r = run(["timer", "--load", "default", "-T", "1", "--json", str(out)],
            env={**os.environ, "PATH": str(tmp_path)})
    assert r.returncode == 2
    lines = r.stderr.splitlines()
    assert len(lines) == 1 and "--load" in lines[0] and \
        "apt-get install stress-ng" in lines[0], r.stderr
    assert not out.exists()


def test_a_checkpoint_claims_no_load_figures_before_the_end(tmp_path, marker, leakcheck):
    """A checkpoint (--checkpoint 1) is written while the load runs: it
    must not claim stress-ng's figures it cannot have yet (a zeroed
    result read "stress_ng": true, status 0, no stressors); the final
    JSON has them."""
    out = tmp_path / "t.json"

    def checkpointed():
        try:
            return json.loads(out.read_text())
        except (OSError, ValueError):
            return None
    with running(["timer", "--load-cmd", "echo up; exec sleep 1000", "-q", "-T", "60",
                  "--checkpoint", "1", "--json", str(out)]) as p:
        wait_for(lambda: (checkpointed() or {}).get("complete") is False,
                 "a checkpoint", timeout=30, proc=p)
        assert "load" not in checkpointed()
        p.send_signal(signal.SIGINT)
        _, err = p.communicate(timeout=30)
    assert p.returncode == 0, err
    assert json.loads(out.read_text())["load"]["cmd"]["output_tail"] == ["up"]
    gone(marker)
    leakcheck()
