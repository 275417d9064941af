# SPDX-License-Identifier: GPL-2.0-or-later
"""Runs that did not finish, as the exports (--kcidb, --squad) say them.
A result file a checkpoint wrote ("complete": false) is of a run that
goes on, or was killed or crashed after it; a results directory's
index.json says whether its suite finished, which test was running when
it stopped and which never started. None of them is a pass: KCIDB has
ERROR (MISS for a test never started), SQUAD a failed run case and the
tests never started as skip, each with the reason in words."""
from dataclasses import dataclass, field
from typing import Dict, List, Optional, Tuple

from ..model import Checkpoint, Test, duration
from ..read.longrun import read_checkpoint


def run_unfinished(doc) -> Optional[str]:
    """Why a run's JSON is not that of a finished run ("the run did not
    finish: covers 3 s of 1 min; ..."), or None."""
    if not isinstance(doc, dict) or doc.get("complete") is not False:
        return None
    t = Test(key="", name="", kind="", path="", complete=False,
             checkpoint=read_checkpoint(doc.get("checkpoint")))
    return f"the run did not finish: {coverage(t)}"


def test_of(doc) -> str:
    """The test a run's JSON is of ("pmq"), "" if it does not say."""
    rl = doc.get("rtlat") if isinstance(doc, dict) else None
    return str(rl.get("test") or "") if isinstance(rl, dict) else ""


@dataclass(frozen=True)
class NotFinished:
    """A test of a suite that did not give a whole run: name, its series
    (from the registry beside the results; () when unknown) and why."""
    name: str
    series: Tuple[str, ...]
    why: str


@dataclass
class SuiteState:
    """What a results directory's index.json says of its suite's end:
    why the suite did not finish or left tests out (None: it did not),
    the test that was running when it stopped (it did not finish), and
    the tests it never started."""
    why: Optional[str] = None
    running: Dict[str, NotFinished] = field(default_factory=dict)
    not_started: List[NotFinished] = field(default_factory=list)


def suite_state(index) -> Optional[SuiteState]:
    """The suite's end as its index.json says it (index: a SuiteIndex,
    read/rtlat.py read_suite); None without an index that can be read."""
    if index is None or index.tests is None:
        return None
    tests = index.tests
    running = [t.name for t in tests if t.state == "running"]
    left = [t.name for t in tests if t.state in ("pending", "not run")]
    complete = index.complete is not False
    if complete and not left:
        return SuiteState()
    series = index.series
    at = f" (its index was last written {index.at_wall})" if \
        index.at_wall is not None else ""
    if complete:
        why = ("the suite ended before running every test (a stop signal "
               "or an error)")
    elif running:
        why = (f"the suite did not finish: it was killed or crashed while "
               f"{', '.join(running)} was running{at}")
    else:
        why = f"the suite did not finish: it was killed or crashed{at}"
    st = SuiteState(why=why)
    for name in running:
        st.running[name] = NotFinished(name, series.get(name, ()), why)
    st.not_started = [NotFinished(n, series.get(n, ()), f"never started: {why}")
                      for n in left]
    return st


def why_unfinished(doc, state: Optional[SuiteState] = None) -> Optional[str]:
    """Why doc (a run's JSON, of the suite whose state is given) is not
    a finished run's, or None: its own checkpoint, and the suite's word
    when it was the test running as the suite stopped."""
    own = run_unfinished(doc)
    nf = state.running.get(test_of(doc)) if state else None
    if nf is None:
        return own
    return nf.why + (f"; its file: {own}" if own else "")


STOPPED = "stopped by SIGKILL or a crash after the last checkpoint"


def incomplete(t):
    """True for a file a checkpoint wrote (the run did not end it)."""
    return t.complete is False


def coverage(t):
    """'covers 23 h 10 min of 24 h; stopped by SIGKILL or a crash after
    the last checkpoint (written ...)' for a run that ended at a
    checkpoint, else None."""
    if not incomplete(t):
        return None
    cp = t.checkpoint or Checkpoint()
    covered, planned, at = cp.covered_s, cp.planned_s, cp.at_wall
    what = f"covers {duration(covered)}" if covered is not None else \
        "covers an unknown span"
    what += f" of {duration(planned)}" if planned else \
        " (the planned length is not recorded)"
    if t.merged_from:
        return f"{what}; a run of the merged set {STOPPED}"
    return f"{what}; {STOPPED}" + (f" (written {at})" if isinstance(
        at, str) else "")
