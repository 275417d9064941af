# SPDX-License-Identifier: GPL-2.0-or-later
"""rtlat-report --kcidb FILE: rtlat's results as a KCIDB I/O document
(KernelCI's common database; schema in PyPI kcidb-io): one checkout, one
build (the kernel that ran), a test per result file (its verdict, its
JSON and report as output_files) and a test per figure
(rtlat.timer.cpu1.max: min, avg, p99, p99_99, max in seconds with a
metric prefix, shown as µs), PASS or FAIL as rtlat judged the series
(in a results directory, as the suite judged them: its index.json). A
run that did not finish (a checkpoint's file, a suite killed) is never a
PASS: ERROR with the reason, MISS for a test its suite never started
(unfinished.py)."""
import email.utils
import hashlib
import json
import os
import re
from datetime import datetime, timezone

from ..read import schema
from ..io import InputError, fail
from ..io import write as write_text
from ..read.rtlat import read_document, result_files
from ..read.suite import read_suite
from ..judge.suite import judged, suite_fleet
from ..judge.unfinished import SuiteState, suite_state, test_of, why_unfinished

# The KCIDB I/O version written (kcidb-io 141 validates 5.3).
VERSION = {"major": 5, "minor": 3}
ORIGIN = re.compile(r"^[a-z0-9_]+$")
# Figures of a fleet record: (path element, its key).
FIGURES = (("min", "min_ns"), ("avg", "avg_ns"), ("p99", "p99_ns"),
           ("p99_99", "p99.99_ns"), ("max", "max_ns"))
STATUS = {"pass": "PASS", "fail": "FAIL", "skip": "SKIP"}


def _id(*parts):
    return hashlib.sha256("\0".join(str(p) for p in parts).encode())\
        .hexdigest()[:16]


def rfc3339(data, key):
    """rtlat's RFC 3339 time, or rt-tests' start_time/end_time layout
    converted ("Thu, 26 Nov 2026 06:33:04 +0000"); None if neither."""
    rl = data.get("rtlat") if isinstance(data.get("rtlat"), dict) else {}
    t = rl.get(f"{key}_rfc3339")
    if isinstance(t, str) and t:
        return t
    try:
        d = email.utils.parsedate_to_datetime(data.get(f"{key}_time") or "")
    except (TypeError, ValueError):
        return None
    return d.astimezone(timezone.utc).isoformat().replace("+00:00", "Z")


def _seconds(t):
    return datetime.fromisoformat(t.replace("Z", "+00:00")).timestamp()


def read_inputs(paths, limits=None, suites=None):
    """[(path, data)] of every rtlat result file in the inputs, checked
    strictly against rtlat's JSON Schema: a KCIDB test must not stand on
    a half file. InputError (one line) for anything else. A results
    directory's files carry the suite's verdicts (suite_verdicts.py)."""
    found = []
    suites = {} if suites is None else suites
    for p in paths:
        suites[p] = read_suite(p)
        suite = suite_fleet(suites[p])
        if os.path.isdir(p):
            names = [os.path.join(p, f) for f in result_files(p)]
            if not names:
                raise InputError(f"{p}: no result files (*.json) in it")
        elif os.path.exists(p):
            names = [p]
        else:
            raise InputError(f"{p}: no such file or directory")
        for f in names:
            data = read_document(f, limits)[1]
            if not schema.is_rtlat(data):
                raise InputError(f"{f}: unreadable: not an rtlat result "
                                 "(no \"rtlat\" section): --kcidb takes "
                                 "rtlat's own --json files")
            schema.check(data, f)
            found.append((f, judged(data, suite)))
    return found


def identity(opts, data):
    """(checkout, build) of the kernel the first result ran on."""
    sysd = data.get("system", {})
    release, version = sysd.get("kernel", ""), sysd.get("kernel_version", "")
    machine = sysd.get("machine", "")
    o = opts.origin
    cid = opts.kcidb_checkout_id or opts.kcidb_git_commit or \
        _id("kernel", release, version)
    checkout = {"id": f"{o}:{cid}", "origin": o,
                "comment": f"the kernel rtlat ran on: {release} {version}"
                .strip()}
    if opts.kcidb_git_commit:
        checkout["git_commit_hash"] = opts.kcidb_git_commit
    if opts.kcidb_git_url:
        checkout["git_repository_url"] = opts.kcidb_git_url
    if opts.kcidb_tree:
        checkout["tree_name"] = opts.kcidb_tree
    bid = opts.kcidb_build_id or _id(cid, release, version, machine)
    build = {"id": f"{o}:{bid}", "checkout_id": checkout["id"], "origin": o,
             "comment": f"{release} {version}".strip(),
             "misc": {"kernel_release": release, "kernel_version": version,
                      "preempt_model": sysd.get("preempt_model")}}
    if machine:
        build["architecture"] = machine
    return checkout, build


def output_files(path, base):
    """The JSON and the report beside it, at base (--kcidb-url-base)."""
    if not base:
        return None
    base = base.rstrip("/")
    d, name = os.path.split(path)
    files = [{"name": name, "url": f"{base}/{name}"}]
    if os.path.isfile(os.path.join(d, "report.html")):
        files.append({"name": "report.html", "url": f"{base}/report.html"})
    return files


def part_of(rec, single):
    """A record's path elements after the test: its series (unless the
    test has one), then its CPU or thread (a thread's part)."""
    out = [] if single else [rec["series"]]
    thread = rec.get("thread", -1)
    if thread is not None and thread >= 0:
        cpu = rec.get("cpu", -1)
        out.append(f"cpu{cpu}" if cpu is not None and cpu >= 0
                   else f"thread{thread}")
    return out


def _element(s):
    """A path element as KCIDB takes it ([a-zA-Z0-9_-])."""
    return re.sub(r"[^a-zA-Z0-9_-]", "_", str(s))


def common_of(opts, build_id, data):
    """What every test of a run shares: its build, origin, environment
    (the board) and start time."""
    sysd = data.get("system", {})
    common = {"build_id": build_id, "origin": opts.origin,
              "environment": {"comment": f"{data['sysinfo'].get('nodename', '')}"
                              f" ({sysd.get('machine', '')})",
                              "misc": {"kernel": sysd.get("kernel"),
                                       "kernel_version": sysd.get("kernel_version"),
                                       "preempt_model": sysd.get("preempt_model"),
                                       "cpus_online": sysd.get("cpus_online")}}}
    start = rfc3339(data, "start")
    if start:
        common["start_time"] = start
    return common


def unfinished(status, why):
    """A test of a run that did not finish (why): a pass is no pass
    then (ERROR: its status cannot be told), a failure stays one (a
    threshold exceeded so far is exceeded for good), and it says why
    (misc, and the log excerpt dashboards show)."""
    if not why:
        return status, {}
    return ("ERROR" if status == "PASS" else status), {
        "misc": {"unfinished": why}, "log_excerpt": why[:16384]}


def tests_of(opts, build_id, path, data, why=None):
    """The file's test and one test per figure of each of its records;
    why: the run did not finish (unfinished.why_unfinished)."""
    rl, fleet = data["rtlat"], data.get("fleet") or {}
    test = _element(rl["test"])
    run = _id(data.get("sysinfo", {}).get("nodename"), rfc3339(data, "start"),
              rl.get("cmdline"), test)
    start, end = rfc3339(data, "start"), rfc3339(data, "end")
    common = common_of(opts, build_id, data)

    def new(elements, status, misc=None, **kw):
        p = ".".join(["rtlat"] + elements)
        status, said = unfinished(status, why)
        if misc or said.get("misc"):
            kw["misc"] = dict(misc or {}, **said.pop("misc", {}))
        t = dict(common, id=f"{opts.origin}:{run}.{p}", path=p,
                 status=status, **kw, **said)
        return t

    verdict = STATUS.get(fleet.get("verdict"), "ERROR") if fleet else \
        ("PASS" if data.get("return_code") == 0 else "ERROR")
    head = new([test], verdict, misc={
        "rtlat_version": rl.get("version"), "cmdline": rl.get("cmdline"),
        "doctor": (data.get("doctor") or {}).get("verdict"),
        "return_code": data.get("return_code")})
    if start and end:
        head["duration"] = max(0.0, _seconds(end) - _seconds(start))
    files = output_files(path, opts.kcidb_url_base)
    if files:
        head["output_files"] = files
    out = [head]
    series = fleet.get("series") or []
    single = len({r.get("series") for r in series}) <= 1
    for rec in series + (fleet.get("threads") or []):
        elements = [test] + [_element(e) for e in part_of(rec, single)]
        status = STATUS.get(rec.get("result"), "ERROR")
        if not rec.get("samples"):
            out.append(new(elements, "SKIP", comment="no sample was measured"))
            continue
        for name, key in FIGURES:
            v = rec.get(key)
            if v is None:
                continue
            out.append(new(elements + [name], status, number={
                "value": v / 1e9, "unit": "s", "prefix": "metric"}))
    return out


def suite_left(opts, build_id, state, data):
    """The tests of a suite that have no file of their own to say it: the
    one running when the suite stopped (ERROR) and those it never started
    (MISS), each with the reason; data: a file of the same suite (its
    board and time)."""
    run = _id(data.get("sysinfo", {}).get("nodename"), rfc3339(data, "start"),
              "suite")
    common = common_of(opts, build_id, data)
    out = []
    for nf, status in [(n, "ERROR") for n in state.running.values()] + \
            [(n, "MISS") for n in state.not_started]:
        p = f"rtlat.{_element(nf.name)}"
        out.append(dict(common, id=f"{opts.origin}:{run}.{p}", path=p,
                        status=status, misc={"unfinished": nf.why},
                        log_excerpt=nf.why[:16384]))
    return out


def document(opts, inputs, suites=None):
    """The KCIDB I/O document of [(path, data)] (of opts.inputs: a
    results directory says what its suite left undone; suites: {input:
    its SuiteIndex} as read_inputs read them)."""
    checkout, build = identity(opts, inputs[0][1])
    tests = []
    suites = suites if suites is not None else \
        {p: read_suite(p) for p in opts.inputs}
    states = {os.path.abspath(p): suite_state(suites.get(p))
              for p in opts.inputs}
    for path, data in inputs:
        state = states.get(os.path.dirname(os.path.abspath(path)))
        tests += tests_of(opts, build["id"], path, data,
                          why_unfinished(data, state))
    for d, state in states.items():
        mine = [data for path, data in inputs
                if os.path.dirname(os.path.abspath(path)) == d]
        if not state or not mine:
            continue
        named = {test_of(data) for data in mine}
        left = SuiteState(state.why, {k: v for k, v in state.running.items()
                                      if k not in named}, state.not_started)
        tests += suite_left(opts, build["id"], left, mine[0])
    return {"version": dict(VERSION), "checkouts": [checkout],
            "builds": [build], "tests": tests}


# Said when kcidb-io (an optional extra of rtlat-report) is missing.
NOT_CHECKED = ("not checked: kcidb-io is not installed (pip install "
               "'rtlat-report[kcidb]')")


def kcidb_invalid(doc):
    """Why kcidb-io refuses doc (its validator, the schema version it
    validates), None if it takes it; NOT_CHECKED if kcidb-io is not
    installed."""
    try:
        import jsonschema
        from kcidb_io import schema as kschema
    except ImportError:
        return NOT_CHECKED
    try:
        kschema.LATEST.validate(doc)
    except jsonschema.exceptions.ValidationError as e:
        return schema.describe(e)
    return None


def write(out, doc):
    write_text(out, json.dumps(doc, indent=1) + "\n")


def main(opts, limits=None):
    """Exit status: 0 written, 1 not written, 2 bad input."""
    if not ORIGIN.match(opts.origin or ""):
        return fail(f"--origin: '{opts.origin}' is not accepted: lowercase "
                    "letters, digits and _ (KCIDB's origin)")
    try:
        suites = {}
        doc = document(opts, read_inputs(opts.inputs, limits, suites), suites)
    except InputError as e:
        return fail(str(e))
    why = kcidb_invalid(doc)
    if why and why != NOT_CHECKED:
        return fail(f"the KCIDB document is not valid: {why}", 1)
    try:
        write(opts.kcidb, doc)
    except OSError as e:
        return fail(f"--kcidb: cannot write: {e}", 1)
    if why:
        # Written as asked (a lab without kcidb-io still submits), and
        # said: kcidb-submit may then refuse what was not checked here.
        what = "the document" if opts.kcidb == "-" else opts.kcidb
        fail(f"--kcidb: {what} is written but {why}")
    if opts.kcidb != "-":
        print(f"kcidb: {opts.kcidb} ({len(doc['tests'])} tests)")
    return 0
