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
it) or --squad-token-file FILE, never a command-line value, and never
printed: one word of printable ASCII, else refused (exit 2) with a line
that names where it came from, not what it is. It goes to --squad's origin
only (a redirect elsewhere, https to http included, is not followed), over
https or to this machine (plain http:// elsewhere only with --allow-http).
A submission has one deadline (--squad-timeout) and reads 64 KiB of any
answer at most. A server's refusal (a bad token, a duplicate job_id, a
500), an unreachable or too slow server or a refused redirect is one line
on stderr and exit 1; with several inputs the line says which were
submitted before it."""
import hashlib
import http.client
import ipaddress
import json
import os
import re
import socket
import stat
import sys
import threading
import time
import urllib.parse
import uuid

from ..io import InputError
from ..read.rtlat import read_document, result_files
from ..read.suite import read_suite
from ..judge.suite import judged, suite_fleet
from ..judge.unfinished import run_unfinished, suite_state, test_of, why_unfinished

SUITE = "rtlat"
# (case figure, JSON key): the order of rtlat --lava's cases
FIGURES = (("min", "min_ns"), ("avg", "avg_ns"), ("p99", "p99_ns"),
           ("p9999", "p99.99_ns"), ("max", "max_ns"))
TIMEOUT_S = 60
# What is read of any answer: its first line is all rtlat-report says of
# it, and a server's 600 MiB error page must not fill the memory.
ANSWER_BYTES = 64 << 10
REDIRECTS = 5
TOKEN_FILE_BYTES = 4096
# SQUAD's slug_pattern (squad/core/models.py): its submit URL's pattern of
# the project, the build's version and the environment, and of the group
# after an optional '~'. The pattern is not anchored at its end there, so a
# name with another character is cut short, not refused: "6.6.0-rc1+"
# would be build 6.6.0-rc1.
SLUG = re.compile(r"^[a-zA-Z0-9][a-zA-Z0-9_.-]*$")
GROUP_SLUG = re.compile(r"^~?[a-zA-Z0-9][a-zA-Z0-9_.-]*$")
SLUG_SAID = "a letter or digit, then letters, digits, '_', '.', '-'"
# A token: one word of printable ASCII (SQUAD's are 40 hex digits). A CR
# or LF would end the header and start another.
TOKEN = re.compile(r"^[\x21-\x7e]+$")


class SquadError(Exception):
    """One line for stderr: what went wrong, exit 1."""


# ---------------------------------------------------------------------------
# The cases, as rtlat --lava prints them (src/fleet/fleet_out.c).

def _us(ns):
    """A figure in us as rtlat --lava prints it (%.3f) and LAVA keeps it."""
    return float(f"{ns / 1e3:.3f}")


def record_cases(rec, unfinished=None):
    """[(case, result, us or None, log or None)] of one series or thread
    of a JSON's fleet section. unfinished: why the run did not finish,
    and then no case of it passes (a pass so far is no pass; a failure
    stays one) and the log says why."""
    test, series, thread = rec["test"], rec["series"], rec.get("thread")
    measured = bool(rec.get("samples"))
    # error: a CPU of it could not be measured; every case of it fails
    error = (rec.get("error") or "rtlat judged it an error") \
        if rec.get("result") == "error" else ""
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
            out.append((name, "fail" if error else "skip", None, None))
            continue
        bad = error or (fig == "p99" and p99_failed) or \
            (fig == "max" and max_failed)
        out.append((name, "fail" if bad else "pass", _us(rec[key]), None))
    name = f"{test}-{series}" if thread is None else f"{test}-t{thread}-latency"
    result = ("fail" if failed else "pass") if measured else "skip"
    if error:
        out.append((name, "fail", None, error))
    elif unfinished and result == "pass":
        out.append((name, "fail", None, unfinished))
    else:
        out.append((name, result, None, unfinished if result == "fail" else None))
    return out


def run_cases(docs, test, verdict=None, state=None):
    """Every case of a run's JSON documents (one, or a suite's), and the
    run's: TEST-run (suite-run) passes when every document's verdict is
    pass, or, given (the suite's own, from its index.json), when verdict
    is; never when a run did not finish (a checkpoint's file, or state:
    the suite's end, unfinished.suite_state): its cases fail, and the
    tests its suite never started are there, skipped, with the reason."""
    out = []
    verdicts = []
    why = []
    named = set()
    for d in docs:
        fleet = d.get("fleet") or {}
        if not fleet:
            continue
        left = why_unfinished(d, state)
        if left:
            why.append(f"{test_of(d) or test}: {left}")
        named.add(test_of(d))
        for rec in fleet.get("series", []) + fleet.get("threads", []):
            out += record_cases(rec, left)
        verdicts.append(fleet.get("verdict"))
    if state:
        for nf in state.running.values():
            if nf.name not in named:
                out += [(f"{nf.name}-{s}", "fail", None, nf.why)
                        for s in nf.series or ("run",)]
        for nf in state.not_started:
            out += [(f"{nf.name}-{s}", "skip", None, nf.why)
                    for s in nf.series or ("run",)]
        if state.why and not why:
            why.append(state.why)
    ok = verdict == "pass" if verdict else \
        verdicts and all(v == "pass" for v in verdicts)
    if why:
        out.append((f"{test}-run", "fail", None, "; ".join(why)))
    else:
        out.append((f"{test}-run", "pass" if ok else "fail", None, None))
    return out


def tests_and_metrics(cases, suite=SUITE):
    """SQUAD's tests and metrics of the cases, as its LAVA backend makes
    them: a measured case a metric, another a test, SUITE/CASE each (with
    its log, SQUAD's test log, when it says why)."""
    tests, metrics = {}, {}
    for name, result, us, log in cases:
        key = f"{suite}/{name}"
        if us is None:
            tests[key] = {"result": result, "log": log} if log else result
        else:
            metrics[key] = {"value": us, "unit": "us"}
    return tests, metrics


# ---------------------------------------------------------------------------
# One input: its documents, metadata and attachments.

def read_input(path, suite_index=None):
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
            raw, doc = read_document(f, checked=False)
        except InputError as e:
            raise SquadError(f"{f}: cannot read a run's JSON: {e}") from e
        if not isinstance(doc, dict):
            raise SquadError(f"{f}: not a run's JSON (no object)")
        files.append((os.path.basename(f), raw, doc))
    suite = suite_fleet(read_suite(path) if suite_index is None
                        else suite_index)
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
    left = [w for w in (run_unfinished(d) for d in docs if d.get("fleet")) if w]
    if left:
        m["unfinished"] = "; ".join(left)
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
    """SQUAD's submit URL on the path of base (a URL check_args took):
    the names are checked slugs, quoted all the same."""
    u = urllib.parse.urlsplit(base)
    path = "/".join([u.path.rstrip("/"), "api", "submit"] + [
        urllib.parse.quote(n, safe="~") for n in (group, project, build, environment)])
    return urllib.parse.urlunsplit((u.scheme, u.netloc, path, "", ""))


def origin(url):
    """(scheme, host, port): where a URL's token would go (None: no
    port can be read in it)."""
    u = urllib.parse.urlsplit(url)
    try:
        port = u.port
    except ValueError:
        return None
    return u.scheme, (u.hostname or "").lower(), \
        port or {"http": 80, "https": 443}.get(u.scheme)


def shown(text, limit=200):
    """A value of the command line or a server's, on one line of ours."""
    return "".join(c if c.isprintable() else "?" for c in str(text))[:limit]


def post(url, token, fields, files, timeout=TIMEOUT_S):
    """POST within timeout seconds in all, following a 307 or 308 (which
    keep the POST) within url's origin only: the token goes to no other
    server, nor from https to http. The answer (status, the start of its
    body), or SquadError: unreachable, too slow, or redirected elsewhere."""
    ctype, body = multipart(fields, files)
    headers = {"Auth-Token": token, "Content-Type": ctype}
    end = time.monotonic() + timeout
    for _ in range(REDIRECTS + 1):
        status, text, location = exchange(url, headers, body, end, timeout)
        if status not in (301, 302, 303, 307, 308) or not location:
            return status, text
        to = urllib.parse.urljoin(url, location)
        why = None
        if origin(to) != origin(url):
            u = urllib.parse.urlsplit(to)
            why = (f"to {shown(u.scheme)}://{shown(u.netloc)}, another server "
                   "than --squad's: not followed (the token goes to --squad's "
                   "server only; give --squad the server it names)")
        elif status not in (307, 308):
            why = (f"to {shown(urllib.parse.urlsplit(to).path)}: not followed "
                   f"(a {status} makes the POST a GET; give --squad the URL "
                   "it names)")
        if why:
            raise SquadError(f"{url}: HTTP {status}: the server redirects {why}")
        url = to
    raise SquadError(f"{url}: more than {REDIRECTS} redirects")


def connector(end):
    """socket.create_connection for http.client whose name lookup keeps
    the deadline too: getaddrinfo cannot be interrupted (a name server
    that never answers holds it 30 s a try), so it runs in a thread of
    its own, left behind at the deadline."""
    def create(address, timeout=None, source_address=None):
        host, port = address
        found = []

        def look_up():
            try:
                found.append(socket.getaddrinfo(host, port, type=socket.SOCK_STREAM))
            except OSError as e:
                found.append(e)
        t = threading.Thread(target=look_up, daemon=True)
        t.start()
        t.join(max(0.0, end - time.monotonic()))
        if not found:
            raise TimeoutError(f"{host}: no address within the deadline")
        if isinstance(found[0], OSError):
            raise found[0]
        err = OSError(f"{host}: no address")
        for family, kind, proto, _, addr in found[0]:
            s = socket.socket(family, kind, proto)
            try:
                # each address tried in what is left, not a whole timeout
                s.settimeout(max(0.001, end - time.monotonic()))
                if source_address:
                    s.bind(source_address)
                s.connect(addr)
                s.settimeout(timeout)
                return s
            except OSError as e:
                s.close()
                err = e
        raise err
    return create


def exchange(url, headers, body, end, timeout):
    """One request and the start of its answer: (status, text, Location).
    A timer shuts the socket at end: a server that sends a byte a second
    never lets a read's own timeout fire."""
    u = urllib.parse.urlsplit(url)
    left = end - time.monotonic()
    late = SquadError(f"{url}: no answer within {timeout:g} s (--squad-timeout)")
    if left <= 0:
        raise late
    conn = (http.client.HTTPSConnection if u.scheme == "https" else
            http.client.HTTPConnection)(u.hostname, u.port, timeout=left)
    # http.client's own hook for making its socket (HTTPS wraps what it
    # returns)
    conn._create_connection = connector(end)
    fired = threading.Event()

    def shut():
        fired.set()
        sock = conn.sock
        if sock is not None:
            try:
                # the plain socket's: an SSL socket's own would unwrap it
                # under the reading thread
                socket.socket.shutdown(sock, socket.SHUT_RDWR)
            except OSError:
                pass
    timer = threading.Timer(left, shut)
    timer.daemon = True
    timer.start()
    try:
        conn.connect()
        if fired.is_set():
            # the timer fired before there was a socket to shut
            raise late
        conn.request("POST", urllib.parse.urlunsplit(("", "", u.path or "/", u.query, "")),
                     body, headers)
        r = conn.getresponse()
        text = r.read(ANSWER_BYTES).decode("utf-8", "replace")
        if fired.is_set():
            # what was read before the socket was shut: cut short
            raise late
        return r.status, text, r.getheader("Location")
    except (OSError, http.client.HTTPException, ValueError) as e:
        if fired.is_set() or time.monotonic() >= end:
            raise late from e
        if isinstance(e, http.client.HTTPException) and \
                not isinstance(e, http.client.RemoteDisconnected):
            raise SquadError(f"{url}: the server's answer is not HTTP that "
                             f"can be read ({type(e).__name__})") from e
        reason = getattr(e, "reason", None) or getattr(e, "strerror", None) or \
            type(e).__name__
        raise SquadError(f"{url}: cannot reach the server: {shown(reason)}") from e
    finally:
        timer.cancel()
        conn.close()


def one_line(text, limit=200):
    """The first meaningful line of a server's answer, short."""
    text = re.sub(r"<[^>]+>", " ", text or "")
    for line in text.splitlines():
        line = " ".join(line.split())
        if line:
            return shown(line, limit)
    return "(no message)"


def token_file(name):
    """The text of --squad-token-file (at most TOKEN_FILE_BYTES), with a
    warning when its group or others may read it, as ssh warns of a key."""
    try:
        with open(name, "rb") as f:
            mode = os.fstat(f.fileno()).st_mode
            raw = f.read(TOKEN_FILE_BYTES + 1)
    except OSError as e:
        raise SquadError(f"--squad-token-file: cannot read "
                         f"'{shown(name)}': {e.strerror or e}") from e
    if len(raw) > TOKEN_FILE_BYTES:
        raise SquadError(f"--squad-token-file: '{shown(name)}' is over "
                         f"{TOKEN_FILE_BYTES} bytes: not a token file")
    if stat.S_ISREG(mode) and mode & 0o077:
        print(f"rtlat-report: warning: --squad-token-file: '{shown(name)}' "
              f"is open to its group or others (mode {mode & 0o7777:04o}): "
              f"chmod 600 '{shown(name)}'", file=sys.stderr)
    return raw.decode("utf-8", "replace")


def token_of(args):
    """The token, one word of printable ASCII. Anything else is refused
    and never shown: the line would carry it into a job's log."""
    if args.squad_token_file:
        where = f"--squad-token-file: '{shown(args.squad_token_file)}'"
        tok = token_file(args.squad_token_file).strip()
    else:
        where = "SQUAD_TOKEN"
        tok = os.environ.get("SQUAD_TOKEN", "").strip()
        if not tok:
            raise SquadError("--squad: no token: set SQUAD_TOKEN or give "
                             "--squad-token-file FILE")
    if not tok:
        raise SquadError(f"{where} is empty")
    if "\n" in tok or "\r" in tok:
        raise SquadError(f"{where}: the token is more than one line (not "
                         "shown): a token is one line")
    if not TOKEN.match(tok):
        raise SquadError(f"{where}: the token holds a space, a control "
                         "character or one beyond ASCII (not shown): a token "
                         "is one word of printable ASCII")
    return tok


def loopback(host):
    """Whether host is this machine by its name or address (not looked up:
    a name may resolve elsewhere tomorrow)."""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def check_url(args):
    """Bad --squad: (message) for exit 2."""
    url = args.squad
    # a user and password, never shown
    said = f"--squad: '{shown(re.sub(r'//[^/?#]*@', '//...@', url))}'"
    try:
        u = urllib.parse.urlsplit(url)
        u.port
    except ValueError as e:
        return f"{said} is not a URL: {shown(e)}"
    if u.scheme not in ("http", "https") or not u.hostname:
        return f"{said} is not an http:// or https:// URL"
    if not url.isprintable() or " " in url:
        return f"{said} holds a space or a control character"
    if "?" in url or "#" in url:
        return (f"{said} has a query or fragment: give the server's URL "
                "(the submission's path is made on its path)")
    if u.username is not None or u.password is not None:
        return ("--squad: a user or password in the URL is not accepted "
                "(the token: SQUAD_TOKEN or --squad-token-file)")
    if u.scheme == "http" and not loopback(u.hostname) and not args.allow_http:
        return (f"{said} would send the token in clear to {shown(u.hostname)}: "
                "use https://, or --allow-http to send it so all the same")
    return None


def check_args(args):
    """Bad input: (message) for exit 2, before anything is sent."""
    bad = check_url(args)
    if bad:
        return bad
    for opt, pattern in (("group", GROUP_SLUG), ("project", SLUG),
                         ("build", SLUG), ("environment", SLUG)):
        v = getattr(args, opt)
        if v is None and opt in ("group", "project"):
            return f"--squad needs --{opt} (a SQUAD slug)"
        if v is not None and not pattern.match(v):
            return (f"--{opt}: '{shown(v)}' is not a name SQUAD accepts "
                    f"({'an optional ~, ' if opt == 'group' else ''}{SLUG_SAID})")
    if not args.suite or not SLUG.match(args.suite):
        return f"--suite: '{shown(args.suite)}' is not a slug ({SLUG_SAID})"
    if args.job_id is not None:
        if len(args.inputs) != 1:
            return "--job-id: one INPUT only (each test run has its own job_id)"
        if not args.job_id or "/" in args.job_id or not args.job_id.isprintable():
            return f"--job-id: '{shown(args.job_id)}' is not accepted: a non-empty id without '/'"
    return None


def slug_of(text):
    """A name of the run as a slug SQUAD takes whole: another character
    is '-' (a kernel release "6.6.0-rc1+" is build 6.6.0-rc1-)."""
    return re.sub(r"[^A-Za-z0-9_.-]", "-", text or "").lstrip("_.-") or "unknown"


def submission(path, args):
    """(url, fields, files, summary) of one input."""
    index = read_suite(path)
    test, files = read_input(path, index)
    job_id = args.job_id or identity(files)
    meta = metadata(test, files, job_id)
    suite = suite_fleet(index)
    tests, metrics = tests_and_metrics(run_cases(
        [d for _, _, d in files], test, suite and suite.get("verdict"),
        suite_state(index)), args.suite)
    build = args.build or slug_of(meta.get("kernel_release"))
    env = args.environment or slug_of("-".join(
        x for x in (meta.get("machine"), meta.get("hostname")) if x))
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
            status, text = post(url, token, fields, files, args.squad_timeout)
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
