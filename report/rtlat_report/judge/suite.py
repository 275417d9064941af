# SPDX-License-Identifier: GPL-2.0-or-later
"""rtlat suite's verdicts, read from its results directory: the suite
judges its thresholds (--max-latency, --max-p99) in its own process and
writes them into DIR/index.json's "fleet" (the same object a test's own
--json has, every record naming its test); each test's file, run without
them, holds its figures as measured but no threshold. The converters
(rtlat-report --squad, --kcidb) take a test's file with the suite's
judgement of its records laid over it, so a results directory gives the
same tests with the same pass/fail as a single run with those thresholds."""
import copy

# What the suite's judgement of a record is (the figures stay the file's:
# the suite's own avg went through a summary line, rounded to 0.1 ns).
JUDGED = ("result", "failure", "skipped", "max_latency_us", "max_p99_us",
          "baseline_max_ns", "worst_ns")
# A record the test's run judged "error" (a CPU it could not measure) is
# one whatever the suite's thresholds say: its figures are not whole.
# The thresholds of the whole run, as in a test's own "fleet".
SETTINGS = ("max_latency", "max_p99", "max_latency_us", "max_p99_us",
            "baseline", "tolerance_pct")


def suite_fleet(index):
    """The suite's "fleet" of a results directory's index.json (index: a
    SuiteIndex, read/rtlat.py read_suite), or None (no index, an index of
    before the verdicts were kept there, or one that cannot be read)."""
    return index.fleet if index is not None else None


def _key(rec):
    return rec.get("test"), rec.get("series"), rec.get("thread")


def judged(doc, fleet):
    """doc (a test's file of the suite's directory) with the suite's
    judgement of its records: a copy, or doc itself when it has no
    "fleet" or fleet is None. Its verdict: fail when a record failed,
    else its own (pass, error, none)."""
    own = doc.get("fleet") if isinstance(doc, dict) else None
    if not fleet or not isinstance(own, dict):
        return doc
    suite = {_key(r): r for r in (fleet.get("series") or []) +
             (fleet.get("threads") or []) if isinstance(r, dict)}
    out = copy.deepcopy(doc)
    f = out["fleet"]
    for k in SETTINGS:
        if k in fleet:
            f[k] = fleet[k]
    failed = errored = False
    for rec in (f.get("series") or []) + (f.get("threads") or []):
        s = suite.get(_key(rec))
        errored |= rec.get("result") == "error" or \
            (s or {}).get("result") == "error"
        if s is None or rec.get("result") == "error":
            continue
        for k in ("failure", "skipped", "error"):
            rec.pop(k, None)
        rec.update({k: s[k] for k in JUDGED + ("error",) if k in s})
        failed |= rec.get("result") == "fail"
    if errored:
        f["verdict"] = "error"
    elif failed:
        f["verdict"] = "fail"
    return out
