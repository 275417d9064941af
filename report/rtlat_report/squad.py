# SPDX-License-Identifier: GPL-2.0-or-later
"""rtlat-report --squad URL: each run (a --json file) or results
directory (rtlat suite -o DIR) submitted to a SQUAD server (Linaro's
Software Quality Dashboard) as one test run:
POST URL/api/submit/GROUP/PROJECT/BUILD/ENVIRONMENT with an Auth-Token
header and the fields tests, metrics, metadata and attachment.

The names are those SQUAD's own LAVA backend (squad/ci/backend/lava.py)
gives the cases of rtlat's LAVA definition (rtlat --lava, lava/rtlat.sh):
SUITE/CASE, where SUITE is the definition's name in the LAVA job (rtlat,
--suite) and CASE the lava-test-case name; a case with a measurement is a
metric (in us), one without a test. So a lab that moves from the LAVA path
to direct submission keeps its history, and every verdict (thresholds,
baseline) is a test on both paths: TEST-SERIES, TEST-t<N>-latency,
TEST-run. A results directory's verdicts are the suite's (its
index.json, suite_verdicts.py): the same tests with the same pass/fail as
`rtlat suite --lava` gives LAVA.

The token: the environment variable SQUAD_TOKEN (as squad-client reads
it) or --squad-token-file FILE, never a command-line value. A server's
refusal (a bad token, a duplicate job_id, a 500) or an unreachable server
is one line on stderr and exit 1; with several inputs the line says which
were submitted before it."""
import hashlib
import json
import os
import re
import sys
import urllib.error
import urllib.parse
import urllib.request
import uuid

from .load import result_files
from .suite_verdicts import judged, suite_fleet

SUITE = "rtlat"
# (case figure, JSON key): the order of rtlat --lava's cases
FIGURES = (("min", "min_ns"), ("avg", "avg_ns"), ("p99", "p99_ns"),
           ("p9999", "p99.99_ns"), ("max", "max_ns"))
TIMEOUT_S = 60
# SQUAD's slugs (group, project, environment) and a build's version
SLUG = re.compile(r"^[a-zA-Z0-9][a-zA-Z0-9_.-]*$")


class SquadError(Exception):
    """One line for stderr: what went wrong, exit 1."""


def add_arguments(p):
    """The options, in rtlat-report's parser (its --help and man page)."""
    g = p.add_argument_group(
        "SQUAD", "submit each INPUT (a run's JSON or a results directory) "
        "to a SQUAD server as one test run; the token from the environment "
        "variable SQUAD_TOKEN or --squad-token-file, never an argument")
    g.add_argument("--squad", metavar="URL",
                   help="the SQUAD server, e.g. https://qa-reports.example.org")
    g.add_argument("--group", help="SQUAD group slug")
    g.add_argument("--project", help="SQUAD project slug")
    g.add_argument("--build", help="build version, e.g. the kernel's "
                   "release (default: the run's kernel release)")
    g.add_argument("--environment", help="environment slug, e.g. the "
                   "board (default: the run's machine and host name)")
    g.add_argument("--job-id", metavar="ID",
                   help="the test run's job_id (one INPUT; default: made "
                   "from the run's identity, so a resubmission is refused "
                   "as a duplicate)")
    g.add_argument("--suite", default=SUITE, metavar="NAME",
                   help="the suite the names go in: the name of rtlat's "
                   "definition in the LAVA jobs whose history this "
                   "continues (default %(default)s)")
    g.add_argument("--squad-token-file", metavar="FILE",
                   help="read the token from FILE (default: $SQUAD_TOKEN)")


# ---------------------------------------------------------------------------
# The cases, as rtlat --lava prints them (src/fleet/fleet_out.c).

def _us(ns):
    """A figure in us as rtlat --lava prints it (%.3f) and LAVA keeps it."""
    return float(f"{ns / 1e3:.3f}")


def record_cases(rec):
    """[(case, result, us or None)] of one series or thread of a JSON's
    fleet section."""
    test, series, thread = rec["test"], rec["series"], rec.get("thread")
    measured = bool(rec.get("samples"))
    failed = rec.get("result") == "fail"
    # Every limit the series exceeded, "; " between (rtlat's fleet_judge):
    # --max-p99 fails the p99 case, --max-latency and --baseline the max.
    reasons = (rec.get("failure") or "").split("; ") if failed else []
    p99_failed = any(w.startswith("p99") for w in reasons)
    max_failed = failed and any(not w.startswith("p99") for w in reasons)
    out = []
    for fig, key in FIGURES:
        name = f"{test}-{series}-{fig}" if thread is None else \
            f"{test}-t{thread}-{fig}-latency"
        if not measured or rec.get(key) is None:
            out.append((name, "skip", None))
            continue
        bad = (fig == "p99" and p99_failed) or \
            (fig == "max" and max_failed)
        out.append((name, "fail" if bad else "pass", _us(rec[key])))
    name = f"{test}-{series}" if thread is None else f"{test}-t{thread}-latency"
    out.append((name, ("fail" if failed else "pass") if measured else "skip", None))
    return out


def run_cases(docs, test, verdict=None):
    """Every case of a run's JSON documents (one, or a suite's), and the
    run's: TEST-run (suite-run) passes when every document's verdict is
    pass, or, given (the suite's own, from its index.json), when verdict
    is."""
    out = []
    verdicts = []
    for d in docs:
        fleet = d.get("fleet") or {}
        if not fleet:
            continue
        for rec in fleet.get("series", []):
            out += record_cases(rec)
        for rec in fleet.get("threads", []):
            out += record_cases(rec)
        verdicts.append(fleet.get("verdict"))
    ok = verdict == "pass" if verdict else \
        verdicts and all(v == "pass" for v in verdicts)
    out.append((f"{test}-run", "pass" if ok else "fail", None))
    return out


def tests_and_metrics(cases, suite=SUITE):
    """SQUAD's tests and metrics of the cases, as its LAVA backend makes
    them: a measured case a metric, another a test, SUITE/CASE each."""
    tests, metrics = {}, {}
    for name, result, us in cases:
        key = f"{suite}/{name}"
        if us is None:
            tests[key] = result
        else:
            metrics[key] = {"value": us, "unit": "us"}
    return tests, metrics


# ---------------------------------------------------------------------------
# One input: its documents, metadata and attachments.

def read_input(path):
    """(test name, [(file name, bytes, document)]) of a JSON file or a
    results directory (every result *.json in it, each with the suite's
    verdicts of its records from the directory's index.json)."""
    files = []
    if os.path.isdir(path):
        names = [os.path.join(path, f) for f in result_files(path)]
    else:
        names = [path]
    for f in names:
        try:
            with open(f, "rb") as fh:
                raw = fh.read()
            doc = json.loads(raw)
        except (OSError, ValueError) as e:
            raise SquadError(f"{f}: cannot read a run's JSON: {e}") from e
        if not isinstance(doc, dict):
            raise SquadError(f"{f}: not a run's JSON (no object)")
        files.append((os.path.basename(f), raw, doc))
    suite = suite_fleet(path)
    files = [(n, raw, judged(d, suite)) for n, raw, d in files]
    docs = [d for _, _, d in files if d.get("fleet")]
    if not docs:
        raise SquadError(f"{path}: no rtlat run with figures in it "
                         "(a --json of rtlat 0.1 or later)")
    if os.path.isdir(path) and suite is None and not any(
            (d["fleet"].get("max_latency") or d["fleet"].get("max_p99")) for d in docs):
        # an rtlat suite of before its index.json kept its verdicts: the
        # directory has the figures, not the verdicts
        print(f"rtlat-report: note: {path}: no verdicts in its index.json "
              "(an rtlat suite older than this rtlat-report) and none in "
              "the tests' JSON files: verdicts are as measured, not judged",
              file=sys.stderr)
    test = "suite" if os.path.isdir(path) else \
        (docs[0].get("rtlat") or {}).get("test") or docs[0]["fleet"]["series"][0]["test"]
    return test, files


def identity(files):
    """The run's identity: host, command line and times of each document;
    a job_id SQUAD takes (no '/')."""
    h = hashlib.sha256()
    for name, _, d in files:
        rt = d.get("rtlat") or {}
        for v in (name, (d.get("sysinfo") or {}).get("nodename"),
                  rt.get("cmdline") or d.get("cmdline:"), d.get("start_time"),
                  d.get("end_time"), rt.get("start_rfc3339"), rt.get("end_rfc3339")):
            h.update(str(v).encode() + b"\0")
    return "rtlat-" + h.hexdigest()[:32]


def metadata(test, files, job_id):
    docs = [d for _, _, d in files]
    main = next((d for d in docs if d.get("fleet")), docs[0])
    sysinfo = main.get("sysinfo") or {}
    system = main.get("system") or {}
    rt = main.get("rtlat") or {}
    m = {
        "job_id": job_id,
        "rtlat_test": test,
        "kernel_release": system.get("kernel") or sysinfo.get("release"),
        "kernel_version": system.get("kernel_version") or sysinfo.get("version"),
        "preemption": system.get("preempt_model"),
        "machine": system.get("machine") or sysinfo.get("machine"),
        "hostname": sysinfo.get("nodename"),
        "rtlat_version": rt.get("version") or main.get("rt_test_version:"),
        "command_line": "; ".join(
            (d.get("rtlat") or {}).get("cmdline") or d.get("cmdline:") or ""
            for d in docs if d.get("fleet")),
        "start_time": rt.get("start_rfc3339") or main.get("start_time"),
        "context": (rt.get("context") or {}).get("kind"),
    }
    doctor = next((d["doctor"] for d in docs if isinstance(d.get("doctor"), dict)), None)
    if doctor:
        m["doctor_verdict"] = doctor.get("verdict")
        for k, v in (doctor.get("checks") or {}).items():
            m[f"doctor_{k}"] = v
    return {k: v for k, v in m.items() if v not in (None, "")}


def attachments(path, files):
    """[(name, bytes)]: the JSON files, and the report page beside them
    (DIR/report.html, or RUN.html beside RUN.json) when there is one."""
    out = [(n, raw) for n, raw, _ in files]
    page = os.path.join(path, "report.html") if os.path.isdir(path) else \
        os.path.splitext(path)[0] + ".html"
    if os.path.isfile(page):
        with open(page, "rb") as f:
            out.append((os.path.basename(page), f.read()))
    return out


# ---------------------------------------------------------------------------
# The request.

def multipart(fields, files):
    """A multipart/form-data body: (content type, bytes)."""
    boundary = uuid.uuid4().hex
    parts = []
    for name, value in fields.items():
        parts.append(f'--{boundary}\r\nContent-Disposition: form-data; '
                     f'name="{name}"\r\n\r\n'.encode() + value.encode() + b"\r\n")
    for name, filename, data in files:
        parts.append(f'--{boundary}\r\nContent-Disposition: form-data; '
                     f'name="{name}"; filename="{filename}"\r\n'
                     'Content-Type: application/octet-stream\r\n\r\n'.encode()
                     + data + b"\r\n")
    parts.append(f"--{boundary}--\r\n".encode())
    return f"multipart/form-data; boundary={boundary}", b"".join(parts)


def submit_url(base, group, project, build, environment):
    q = urllib.parse.quote
    return (f"{base.rstrip('/')}/api/submit/{q(group, safe='')}/"
            f"{q(project, safe='')}/{q(build, safe='')}/{q(environment, safe='')}")


def post(url, token, fields, files):
    """POST; the server's answer (status, first line of its body), or
    SquadError when it cannot be reached."""
    ctype, body = multipart(fields, files)
    req = urllib.request.Request(url, data=body, method="POST", headers={
        "Auth-Token": token, "Content-Type": ctype})
    try:
        with urllib.request.urlopen(req, timeout=TIMEOUT_S) as r:
            return r.status, r.read().decode("utf-8", "replace")
    except urllib.error.HTTPError as e:
        text = e.read().decode("utf-8", "replace")
        return e.code, text
    except (urllib.error.URLError, OSError) as e:
        reason = getattr(e, "reason", e)
        raise SquadError(f"{url}: cannot reach the server: {reason}") from e


def one_line(text, limit=200):
    """The first meaningful line of a server's answer, short."""
    text = re.sub(r"<[^>]+>", " ", text or "")
    for line in text.splitlines():
        line = " ".join(line.split())
        if line:
            return line[:limit]
    return "(no message)"


def token_of(args):
    if args.squad_token_file:
        try:
            with open(args.squad_token_file, encoding="utf-8") as f:
                tok = f.read().strip()
        except OSError as e:
            raise SquadError(f"--squad-token-file: cannot read "
                             f"'{args.squad_token_file}': {e.strerror or e}") from e
        if not tok:
            raise SquadError(f"--squad-token-file: '{args.squad_token_file}' is empty")
        return tok
    tok = os.environ.get("SQUAD_TOKEN", "").strip()
    if not tok:
        raise SquadError("--squad: no token: set SQUAD_TOKEN or give "
                         "--squad-token-file FILE")
    return tok


def check_args(args):
    """Bad input: (message) for exit 2, before anything is sent."""
    u = urllib.parse.urlsplit(args.squad)
    if u.scheme not in ("http", "https") or not u.netloc:
        return f"--squad: '{args.squad}' is not an http:// or https:// URL"
    for opt in ("group", "project"):
        v = getattr(args, opt)
        if not v:
            return f"--squad needs --{opt} (a SQUAD slug)"
        if not SLUG.match(v):
            return f"--{opt}: '{v}' is not a slug (letters, digits, '_', '.', '-')"
    for opt in ("build", "environment"):
        v = getattr(args, opt)
        if v is not None and (not v or "/" in v or not v.isprintable()):
            return f"--{opt}: '{v}' is not accepted: a non-empty name without '/'"
    if args.environment is not None and not SLUG.match(args.environment):
        return f"--environment: '{args.environment}' is not a slug (letters, digits, '_', '.', '-')"
    if not args.suite or "/" in args.suite or not SLUG.match(args.suite):
        return f"--suite: '{args.suite}' is not a slug (letters, digits, '_', '.', '-')"
    if args.job_id is not None:
        if len(args.inputs) != 1:
            return "--job-id: one INPUT only (each test run has its own job_id)"
        if not args.job_id or "/" in args.job_id or not args.job_id.isprintable():
            return f"--job-id: '{args.job_id}' is not accepted: a non-empty id without '/'"
    return None


def submission(path, args):
    """(url, fields, files, summary) of one input."""
    test, files = read_input(path)
    job_id = args.job_id or identity(files)
    meta = metadata(test, files, job_id)
    suite = suite_fleet(path)
    tests, metrics = tests_and_metrics(run_cases(
        [d for _, _, d in files], test, suite and suite.get("verdict")), args.suite)
    build = args.build or meta.get("kernel_release") or "unknown"
    env = args.environment or re.sub(r"[^A-Za-z0-9_.-]", "-", "-".join(
        x for x in (meta.get("machine"), meta.get("hostname")) if x)) or "unknown"
    url = submit_url(args.squad, args.group, args.project, build, env)
    fields = {"tests": json.dumps(tests), "metrics": json.dumps(metrics),
              "metadata": json.dumps(meta)}
    upl = [("attachment", n, data) for n, data in attachments(path, files)]
    return url, fields, upl, (build, env, job_id, len(tests), len(metrics))


def run(args, prog):
    """rtlat-report --squad: exit 0 all submitted, 1 a server's refusal
    or an unreachable server, 2 bad input (nothing sent)."""
    bad = check_args(args)
    if bad:
        print(f"{prog}: {bad}", file=sys.stderr)
        return 2
    try:
        token = token_of(args)
        subs = [(p, submission(p, args)) for p in args.inputs]
    except SquadError as e:
        print(f"{prog}: {e}", file=sys.stderr)
        return 2
    done = []
    for path, (url, fields, files, (build, env, job_id, nt, nm)) in subs:
        try:
            status, text = post(url, token, fields, files)
            if status != 201:
                why = one_line(text)
                if status in (401, 403):
                    why = f"the token was refused ({why})"
                raise SquadError(f"{url}: HTTP {status}: {why}")
        except SquadError as e:
            left = [p for p, _ in subs if p != path and p not in done]
            said = f"; submitted before it: {', '.join(done)}" if done else ""
            said += f"; not submitted: {', '.join(left)}" if left else ""
            print(f"{prog}: {path}: not submitted: {e}{said}", file=sys.stderr)
            return 1
        done.append(path)
        print(f"squad: {path}: build {build}, environment {env}, job_id "
              f"{job_id}: {nt} tests, {nm} metrics (test run {one_line(text)})")
    return 0
