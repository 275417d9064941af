# SPDX-License-Identifier: GPL-2.0-or-later
"""Issue 44, items 6 to 11: the SQUAD token of `rtlat-report --squad`
goes to the server given and nowhere else, is never printed, never crosses
a network in clear unless asked, and a hostile server can neither hold
rtlat-report nor fill its memory.

Every server here is a real HTTP server the test starts on 127.0.0.1 (a
thread of this process) and records what it received; the one test of a
non-loopback address (item 8) runs rtlat-report in a network namespace
of its own whose only interface is a down `lo`, so that nothing leaves
this machine whatever the code does. The run submitted is a committed
fixture (tests/fixtures/report/explain/none.json)."""
import contextlib
import http.server
import os
import shutil
import subprocess
import sys
import threading
import time

import pytest

from conftest import ROOT
from conftest import report as rtlat_report

RUN = ROOT / "tests" / "fixtures" / "report" / "explain" / "none.json"
TOKEN = "squad-attack-token-0123456789abcdef"
SUBMIT = "/api/submit/lab/rt/b1/board"


def report(args, token=TOKEN):
    """rtlat-report ARGS in this process with SQUAD_TOKEN set to token
    (None: unset), as a lab job runs it: a CompletedProcess."""
    return rtlat_report(*args, here=True, env={"SQUAD_TOKEN": token})


class Server:
    """An HTTP server on 127.0.0.1 in a thread; each request's (method,
    path, headers) in .got. answer(handler) answers it."""

    def __init__(self, answer):
        self.got = []
        self.sent = 0
        self.done = threading.Event()
        outer = self

        class Handler(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def handle_one(self):
                outer.got.append((self.command, self.path, dict(self.headers)))
                n = int(self.headers.get("Content-Length") or 0)
                if n:
                    self.rfile.read(n)
                answer(self, outer)

            do_GET = do_POST = do_PUT = handle_one

            def log_message(self, *a):
                pass

        self.srv = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.srv.daemon_threads = True
        self.origin = f"http://127.0.0.1:{self.srv.server_port}"
        # a short poll: shutdown() waits for it
        self.thread = threading.Thread(target=self.srv.serve_forever, args=(0.02,),
                                       daemon=True)

    def __enter__(self):
        self.thread.start()
        return self

    def __exit__(self, *exc):
        self.srv.shutdown()
        self.srv.server_close()

    def tokens(self):
        return [h.get("Auth-Token") for _, _, h in self.got if h.get("Auth-Token")]


def created(h, srv):
    body = b"4242\n"
    h.send_response(201)
    h.send_header("Content-Length", str(len(body)))
    h.end_headers()
    h.wfile.write(body)


def submit(url, *extra, token=TOKEN, build="b1"):
    return report([str(RUN), "--squad", url, "--group", "lab", "--project", "rt",
                   "--build", build, "--environment", "board", *extra], token=token)


def bad_input(r, says):
    """Exit 2, one line on stderr naming what, nothing on stdout."""
    assert r.returncode == 2, (r.returncode, r.stderr)
    assert len(r.stderr.splitlines()) == 1, r.stderr
    assert says in r.stderr, r.stderr
    assert r.stdout == ""


# ---------------------------------------------------------------------------
# 6. A redirect: the token goes to the origin given, never another.

def redirect_to(location, code):
    def answer(h, srv):
        h.send_response(code)
        h.send_header("Location", location(srv))
        h.send_header("Content-Length", "0")
        h.end_headers()
    return answer


@pytest.mark.parametrize("code", [301, 302, 303, 307, 308])
@pytest.mark.parametrize("where", ["other-port", "other-host"])
def test_redirect_to_another_origin_is_not_followed(code, where):
    with Server(created) as other:
        host = "127.0.0.1" if where == "other-port" else "localhost"
        target = f"http://{host}:{other.srv.server_port}{SUBMIT}"
        with Server(redirect_to(lambda s: target, code)) as first:
            r = submit(first.origin)
    assert first.tokens() == [TOKEN]
    assert other.got == [], other.got
    assert r.returncode == 1, r.stderr
    assert len(r.stderr.splitlines()) == 1, r.stderr
    assert f"HTTP {code}" in r.stderr and "redirect" in r.stderr, r.stderr
    assert f"{host}:{other.srv.server_port}" in r.stderr, r.stderr
    assert TOKEN not in r.stdout + r.stderr


@pytest.mark.parametrize("code", [307, 308])
def test_redirect_within_the_origin_is_followed(code):
    """A proxy that moves SQUAD under /squad on the same server: the
    submission is posted again there, token and body."""
    def answer(h, srv):
        if h.path.startswith("/squad/"):
            created(h, srv)
        else:
            redirect_to(lambda s: f"{s.origin}/squad{h.path}", code)(h, srv)
    with Server(answer) as srv:
        r = submit(srv.origin)
    assert r.returncode == 0, r.stderr
    assert [(m, p) for m, p, _ in srv.got] == [("POST", SUBMIT), ("POST", "/squad" + SUBMIT)]
    assert srv.tokens() == [TOKEN, TOKEN]


@pytest.mark.parametrize("location", ["http://127.0.0.1:99999999/x", "/loop"],
                         ids=["bad-port", "loop"])
def test_redirect_nowhere_is_one_line(location):
    """A Location with no port to read, and a redirect to itself for
    ever: one line, exit 1."""
    with Server(redirect_to(lambda s: location, 307)) as srv:
        r = submit(srv.origin)
    assert r.returncode == 1 and len(r.stderr.splitlines()) == 1, r.stderr
    assert "redirect" in r.stderr and TOKEN not in r.stderr
    assert len(srv.got) == (1 if location.startswith("http") else 6)


def test_https_redirect_to_http_is_not_followed(tmp_path, monkeypatch):
    """https to http on the same host and port: another origin (the
    scheme), the token is not sent in clear."""
    import ssl
    if not shutil.which("openssl"):
        pytest.skip("openssl is not installed")
    key, cert = tmp_path / "key.pem", tmp_path / "cert.pem"
    subprocess.run(["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt",
                    "ec_paramgen_curve:prime256v1", "-nodes", "-days", "1",
                    "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1",
                    "-keyout", str(key), "-out", str(cert)], check=True,
                   capture_output=True, timeout=60)
    monkeypatch.setenv("SSL_CERT_FILE", str(cert))
    with Server(created) as plain:
        target = f"{plain.origin}{SUBMIT}"
        with Server(redirect_to(lambda s: target, 302)) as tls:
            ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
            ctx.load_cert_chain(cert, key)
            tls.srv.socket = ctx.wrap_socket(tls.srv.socket, server_side=True)
            r = submit(f"https://127.0.0.1:{tls.srv.server_port}")
    assert tls.tokens() == [TOKEN], r.stderr
    assert plain.got == []
    assert r.returncode == 1 and "HTTP 302" in r.stderr and "redirect" in r.stderr, r.stderr
    assert TOKEN not in r.stdout + r.stderr


# ---------------------------------------------------------------------------
# 7. A token that is not one line: refused, never printed.

@pytest.mark.parametrize("token", [TOKEN + "\r\nX-Injected: 1",
                                   "first-line-secret\nsecond-line-secret",
                                   TOKEN + "\x1b[2J", TOKEN + "\u00e9"],
                         ids=["crlf", "two-lines", "escape", "non-ascii"])
def test_token_not_one_line_is_refused_unprinted(token):
    with Server(created) as srv:
        r = submit(srv.origin, token=token)
    bad_input(r, "SQUAD_TOKEN")
    assert srv.got == []
    for secret in ("attack-token", "X-Injected", "line-secret"):
        assert secret not in r.stderr, r.stderr


def test_token_file_of_two_lines_is_refused_unprinted(tmp_path):
    f = tmp_path / "token"
    f.write_text("first-line-secret\nsecond-line-secret\n")
    f.chmod(0o600)
    with Server(created) as srv:
        r = submit(srv.origin, "--squad-token-file", str(f), token=None)
    bad_input(r, "--squad-token-file")
    assert "line" in r.stderr
    assert srv.got == []
    assert "first-line-secret" not in r.stderr and "second-line-secret" not in r.stderr


LIST_PLAIN = "pmq pair 1 --duration -l 300\n"
STUB = """#!/bin/sh
case "$1" in
--version) echo "rtlat 0.0"; exit 0 ;;
--list-plain) printf '{plain}'; exit 0 ;;
esac
while [ "$#" -gt 0 ]; do
    [ "$1" = --json ] && cp '{run}' "$2"
    shift
done
echo "lava-test-case pmq-run --result pass"
"""


def test_lava_definition_never_logs_the_token(tmp_path):
    """lava/rtlat.sh with a token file of two lines: the job log (its
    stdout and stderr) and output/squad.txt never hold it; TEST-squad
    fails."""
    if os.geteuid() != 0:
        pytest.skip("lava/rtlat.sh runs as root only")
    rtlat = tmp_path / "rtlat"
    rtlat.write_text(STUB.format(plain=LIST_PLAIN.replace("\n", "\\n"), run=RUN))
    rtlat.chmod(0o755)
    tool = tmp_path / "rtlat-report"
    tool.write_text(f"#!/bin/sh\nPYTHONPATH='{ROOT / 'report'}' "
                    f"exec '{sys.executable}' -m rtlat_report \"$@\"\n")
    tool.chmod(0o755)
    tok = tmp_path / "token"
    tok.write_text("first-line-secret\nsecond-line-secret\n")
    tok.chmod(0o600)
    out = tmp_path / "out"
    with Server(created) as srv:
        r = subprocess.run(["sh", str(ROOT / "lava" / "rtlat.sh"), "-t", "pmq", "-D", "1s",
                            "-r", str(rtlat), "-s", "true", "-o", str(out), "-U", srv.origin,
                            "-G", "lab", "-P", "rt", "-B", "b1", "-K", str(tok), "-R", str(tool)],
                           cwd=tmp_path, capture_output=True, text=True, timeout=60,
                           env={k: v for k, v in os.environ.items() if k != "SQUAD_TOKEN"})
    assert r.returncode == 0, r.stdout + r.stderr
    assert srv.got == []
    said = r.stdout + r.stderr + (out / "squad.txt").read_text()
    assert "first-line-secret" not in said and "second-line-secret" not in said, said
    assert "Traceback" not in said, said
    assert (out / "result.txt").read_text().splitlines()[-1] == "pmq-squad fail"


# ---------------------------------------------------------------------------
# 8. http:// to a host that is not this machine: refused unless asked.

def in_own_netns(args, token=TOKEN):
    """rtlat-report ARGS in a network namespace of its own (a down lo, no
    route anywhere): nothing it does reaches another machine."""
    if os.geteuid() != 0 or not shutil.which("unshare"):
        pytest.skip("a network namespace needs root and unshare")
    env = dict(os.environ, SQUAD_TOKEN=token, PYTHONPATH=str(ROOT / "report"))
    r = subprocess.run(["unshare", "--net", sys.executable, "-m", "rtlat_report", *args],
                       capture_output=True, text=True, timeout=60, env=env)
    if r.returncode != 0 and "unshare failed" in r.stderr:
        pytest.skip(r.stderr.strip())
    return r


SQUAD_ARGS = ["--group", "lab", "--project", "rt", "--build", "b1", "--environment", "board"]


def test_plain_http_to_another_host_is_refused():
    r = in_own_netns([str(RUN), "--squad", "http://192.0.2.10:8000", *SQUAD_ARGS])
    bad_input(r, "--allow-http")
    assert "clear" in r.stderr and "192.0.2.10" in r.stderr
    assert TOKEN not in r.stderr


def test_plain_http_to_another_host_when_asked():
    """--allow-http: sent (here, to nowhere: no route in the namespace)."""
    r = in_own_netns([str(RUN), "--squad", "http://192.0.2.10:8000", "--allow-http",
                      "--squad-timeout", "5", *SQUAD_ARGS])
    assert r.returncode == 1 and "cannot reach the server" in r.stderr, r.stderr
    assert len(r.stderr.splitlines()) == 1, r.stderr


@pytest.mark.parametrize("host", ["127.0.0.1", "localhost", "[::1]"])
def test_plain_http_to_loopback_is_accepted(host):
    r = in_own_netns([str(RUN), "--squad", f"http://{host}:9", "--squad-timeout", "5",
                      *SQUAD_ARGS])
    assert r.returncode == 1 and "cannot reach the server" in r.stderr, r.stderr


RECORD = """#!/bin/sh
printf '%s\\n' "$@" > '{record}'
"""


@pytest.mark.parametrize("value,passed", [("true", True), ("false", False), ("", False),
                                          ("maybe", None)])
def test_lava_definition_passes_allow_http(tmp_path, value, passed):
    """SQUAD_ALLOW_HTTP (-A) true: rtlat-report gets --allow-http; false
    or empty: not; another value: TEST-squad fails, rtlat-report never
    runs."""
    if os.geteuid() != 0:
        pytest.skip("lava/rtlat.sh runs as root only")
    rtlat = tmp_path / "rtlat"
    rtlat.write_text(STUB.format(plain=LIST_PLAIN.replace("\n", "\\n"), run=RUN))
    record = tmp_path / "args"
    tool = tmp_path / "rtlat-report"
    tool.write_text(RECORD.format(record=record))
    for f in (rtlat, tool):
        f.chmod(0o755)
    out = tmp_path / "out"
    r = subprocess.run(["sh", str(ROOT / "lava" / "rtlat.sh"), "-t", "pmq", "-D", "1s",
                        "-r", str(rtlat), "-s", "true", "-o", str(out),
                        "-U", "http://squad.lab.invalid:8000", "-G", "lab", "-P", "rt",
                        "-B", "b1", "-A", value, "-R", str(tool)],
                       cwd=tmp_path, capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stdout + r.stderr
    last = (out / "result.txt").read_text().splitlines()[-1]
    if passed is None:
        assert last == "pmq-squad fail"
        (line,) = [ln for ln in r.stderr.splitlines() if "pmq-squad" in ln]
        assert "SQUAD_ALLOW_HTTP (-A)" in line and "maybe" in line, line
        assert not record.exists()
        return
    assert last == "pmq-squad pass", r.stdout + r.stderr
    assert ("--allow-http" in record.read_text().splitlines()) == passed


# ---------------------------------------------------------------------------
# 9. A slow or huge answer: a deadline and a cap.

def slow(headers_first):
    """A byte every 0.1 s, until the client goes (or 60 s)."""
    def answer(h, srv):
        text = b"HTTP/1.1 201 Created\r\nContent-Length: 1000\r\n\r\n"
        if headers_first:
            h.wfile.write(text)
            text = b"x" * 1000
        with contextlib.suppress(OSError):
            for c in text[:600]:
                h.wfile.write(bytes([c]))
                h.wfile.flush()
                srv.sent += 1
                time.sleep(0.1)
        h.close_connection = True
    return answer


@pytest.mark.parametrize("headers_first", [True, False], ids=["slow-body", "slow-headers"])
def test_slow_server_is_given_up_at_the_deadline(headers_first):
    with Server(slow(headers_first)) as srv:
        t = time.monotonic()
        r = submit(srv.origin, "--squad-timeout", "2")
        took = time.monotonic() - t
    assert r.returncode == 1, r.stderr
    assert len(r.stderr.splitlines()) == 1 and "2 s" in r.stderr, r.stderr
    # 2 s and the run's reading; far less than the server's 60 s
    assert took < 20, took


SILENT_DNS = """
ip link set lo up || exit 90
mount --bind "$1" /etc/resolv.conf || exit 90
"$2" -c '
import socket, sys
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.bind(("127.0.0.1", 53))
open(sys.argv[1], "w").close()
while True:
    s.recv(512)
    open(sys.argv[2], "a").write("query\\n")
' "$3" "$4" &
dns=$!
while [ ! -e "$3" ] && kill -0 "$dns" 2>/dev/null; do sleep 0.05; done
shift 4
"$@"
rc=$?
kill "$dns"
exit "$rc"
"""


def test_name_lookup_keeps_the_deadline(tmp_path):
    """A name server that never answers (in a network and mount namespace
    of the test's own: a silent one on its loopback in resolv.conf, 30 s
    a try): the submission still ends at --squad-timeout."""
    if os.geteuid() != 0 or not shutil.which("unshare") or not shutil.which("ip"):
        pytest.skip("namespaces need root, unshare and ip")
    resolv = tmp_path / "resolv.conf"
    resolv.write_text("nameserver 127.0.0.1\noptions timeout:30 attempts:1\n")
    ready, queries = tmp_path / "ready", tmp_path / "queries"
    env = dict(os.environ, SQUAD_TOKEN=TOKEN, PYTHONPATH=str(ROOT / "report"))
    t = time.monotonic()
    r = subprocess.run(["unshare", "--net", "--mount", "sh", "-c", SILENT_DNS, "sh",
                        str(resolv), sys.executable, str(ready), str(queries),
                        sys.executable, "-m", "rtlat_report", str(RUN), "--squad",
                        "https://squad.example.test:8443", "--squad-timeout", "2",
                        *SQUAD_ARGS], capture_output=True, text=True, timeout=120, env=env)
    took = time.monotonic() - t
    if r.returncode == 90:
        pytest.skip(f"cannot set the namespace up: {r.stderr.strip()}")
    assert queries.exists(), "the name was never asked"
    assert r.returncode == 1 and len(r.stderr.splitlines()) == 1, r.stderr
    assert "within 2 s" in r.stderr, r.stderr
    # 2 s and two Python starts; far less than the name server's 30 s
    assert took < 15, took


def huge(code):
    """An answer of 600 MiB, made as it is sent; .sent counts what went."""
    size = 600 << 20
    block = b"x" * (1 << 20)

    def answer(h, srv):
        h.send_response(code)
        h.send_header("Content-Length", str(size))
        h.end_headers()
        try:
            for _ in range(size // len(block)):
                h.wfile.write(block)
                srv.sent += len(block)
        except OSError:
            pass
        finally:
            srv.done.set()
        h.close_connection = True
    return answer


@pytest.mark.parametrize("code", [500, 201])
def test_huge_answer_is_not_read_whole(code):
    with Server(huge(code)) as srv:
        r = submit(srv.origin)
        # the client has closed: the server's writes end
        assert srv.done.wait(30)
    assert r.returncode == (1 if code == 500 else 0), r.stderr
    assert len((r.stderr if code == 500 else r.stdout).splitlines()) == 1
    # what the sockets' buffers hold, not 600 MiB
    assert srv.sent < 64 << 20, srv.sent


def raw(text):
    def answer(h, srv):
        with contextlib.suppress(OSError):
            h.wfile.write(text)
        h.close_connection = True
    return answer


@pytest.mark.parametrize("text", [b"hello\r\n\r\n",
                                  b"HTTP/1.1 201 Created\r\n" + b"X-A: b\r\n" * 5000,
                                  b"HTTP/1.1 201 Created\r\nX-A: " + b"b" * 200000],
                         ids=["not-http", "endless-headers", "endless-header"])
def test_answer_not_http_is_one_line(text):
    with Server(raw(text)) as srv:
        r = submit(srv.origin)
    assert r.returncode == 1 and len(r.stderr.splitlines()) == 1, r.stderr
    assert "not HTTP" in r.stderr, r.stderr


@pytest.mark.parametrize("value", ["0", "-1", "nan", "inf", "1e9", "x"])
def test_squad_timeout_is_checked(value):
    r = submit("http://127.0.0.1:9", "--squad-timeout", value)
    assert r.returncode == 2 and r.stdout == ""
    assert "--squad-timeout" in r.stderr.splitlines()[-1], r.stderr


# ---------------------------------------------------------------------------
# 10. Names SQUAD accepts, and the URL parsed.

@pytest.mark.parametrize("opt,value", [
    ("--build", ".."), ("--build", "."), ("--build", "6.6.0-rc1+"), ("--build", "a?b"),
    ("--build", "a%2fb"), ("--environment", ".."), ("--group", ".."), ("--project", "a b")])
def test_names_squad_would_not_take_are_refused(opt, value):
    args = {"--group": "lab", "--project": "rt", "--build": "b1", "--environment": "board"}
    args[opt] = value
    with Server(created) as srv:
        r = report([str(RUN), "--squad", srv.origin,
                    *[w for kv in args.items() for w in kv]], token=TOKEN)
    bad_input(r, opt)
    assert srv.got == []


@pytest.mark.parametrize("tail", ["?x=", "#frag", "/?x=1"])
def test_url_with_query_or_fragment_is_refused(tail):
    with Server(created) as srv:
        r = submit(srv.origin + tail)
    bad_input(r, "--squad")
    assert srv.got == []


@pytest.mark.parametrize("port", ["", ":99999999", ":x"], ids=["port", "bad-port", "no-port"])
def test_url_with_credentials_is_refused(port):
    with Server(created) as srv:
        r = submit(srv.origin.replace("//", "//user:secret-pw@") + port)
    bad_input(r, "--squad")
    assert "secret-pw" not in r.stderr
    assert srv.got == []


@pytest.mark.parametrize("base", ["/squad", "/squad/"])
def test_submission_path_is_built_on_the_urls_path(base):
    with Server(created) as srv:
        r = submit(srv.origin + base)
    assert r.returncode == 0, r.stderr
    assert [(m, p) for m, p, _ in srv.got] == [("POST", "/squad" + SUBMIT)]


# ---------------------------------------------------------------------------
# 11. A token file others can read: warned of, as ssh does.

@pytest.mark.parametrize("mode,warned", [(0o644, True), (0o640, True), (0o600, False),
                                         (0o400, False)])
def test_token_file_others_can_read_is_warned_of(tmp_path, mode, warned):
    f = tmp_path / "token"
    f.write_text(TOKEN + "\n")
    f.chmod(mode)
    with Server(created) as srv:
        r = submit(srv.origin, "--squad-token-file", str(f), token=None)
    assert r.returncode == 0, r.stderr
    assert srv.tokens() == [TOKEN]
    if warned:
        assert len(r.stderr.splitlines()) == 1, r.stderr
        assert "warning" in r.stderr and str(f) in r.stderr and f"{mode:04o}" in r.stderr
        assert "chmod 600" in r.stderr
    else:
        assert r.stderr == ""
