# SPDX-License-Identifier: GPL-2.0-or-later
"""rtlat's results in a REAL SQUAD (issue 35): PyPI's squad 1.x in a venv
of its own (build/squad-venv, made once: it pins Django and friends the
test venv must not get), its own SQLite database in a temp directory,
`squad-admin migrate`, a user and token made with its management
commands, served on 127.0.0.1 on a free port for the session and stopped
after. Its frontend fetches JavaScript from the internet when imported
(squad/frontend/static/download): that step gets empty stand-ins in the
venv; the API needs none of it.

Two builds submitted by `rtlat-report --squad` (two constructed runs, the
second with a regressed maximum and a failed threshold): SQUAD lists the
tests and metrics of each, and its own build comparison shows the
regressed metric and the failed test. The LAVA path: rtlat's definition
(lava/rtlat.sh) run for real, its result.txt as LAVA records it, read by
SQUAD's LAVA backend (squad.ci.backend.lava, the installed one) gives the
same tests and metrics as the direct submission of the same run. Bad
server answers are one line and exit 1. No latency value is asserted."""
import contextlib
import copy
import http.server
import json
import os
import shutil
import signal
import subprocess
import sys
import threading
import types
import time
import urllib.request
from pathlib import Path

import pytest

from conftest import RTLAT, ROOT, free_port, report, run
import squad_venv

VENV = squad_venv.VENV
TOKEN = "rtlat-tests-token-0123456789abcdef0123"
GROUP, PROJECT = "rtlat", "latency"
TEMPLATE_DB = squad_venv.TEMPLATE_DB
squad_env = squad_venv.squad_env


def venv_python():
    return VENV / "bin" / "python"


def install_squad():
    """build/squad-venv, made once (make check starts it beside the
    build: tests/squad_venv.py); skip with the reason where pip cannot."""
    try:
        squad_venv.install()
    except squad_venv.Unavailable as e:
        pytest.skip(str(e))


class Squad:
    def __init__(self, url, env, db):
        self.url, self.env, self.db = url, env, db

    def api(self, path):
        req = urllib.request.Request(f"{self.url}/api/{path}",
                                     headers={"Authorization": f"Token {TOKEN}"})
        with urllib.request.urlopen(req, timeout=30) as r:
            return json.loads(r.read())

    def all(self, path):
        """Every page of a paginated list."""
        out, url = [], f"{self.url}/api/{path}"
        while url:
            req = urllib.request.Request(url, headers={"Authorization": f"Token {TOKEN}"})
            with urllib.request.urlopen(req, timeout=30) as r:
                page = json.loads(r.read())
            out += page["results"]
            url = page.get("next")
        return out


@pytest.fixture(scope="session")
def squad(squad_starting, runs, request):
    """A real SQUAD on 127.0.0.1 for the session: group rtlat, project
    latency, a user whose token submits; a threshold on the maxima so
    that SQUAD's metric comparison judges them (lower is better). The
    runs (and test-runner's, where it runs) are made while it starts."""
    with contextlib.suppress(pytest.skip.Exception):
        request.getfixturevalue("layout_run")
    squad_starting.ready()
    return squad_starting


# The session's server: a module that imports squad_starting (pytest
# then holds a second fixture of it, tests/test_fleet_testrunner.py) gets
# the one already started, never a second server.
STARTED = []


@pytest.fixture(scope="session")
def squad_starting(tmp_path_factory):
    """SQUAD started, not waited for (Squad.ready: again, at once)."""
    if STARTED:
        yield STARTED[0]
        return
    install_squad()
    d = tmp_path_factory.mktemp("squad")
    shutil.copy(TEMPLATE_DB, d / "db.sqlite3")
    env = squad_env(d / "db.sqlite3", d)
    port = free_port()
    s = Squad(f"http://127.0.0.1:{port}", env, d / "db.sqlite3")
    # the server starts (Django's imports: seconds on a loaded machine)
    # while the database is made ready; it is first asked once that is done
    log = open(d / "server.log", "w")
    p = subprocess.Popen([str(VENV / "bin" / "squad-admin"), "runserver", "--noreload",
                          "--skip-checks", f"127.0.0.1:{port}"], env=env, stdout=log,
                         stderr=subprocess.STDOUT, start_new_session=True)
    setup = None
    try:
        # its management commands in one process (each alone starts Django:
        # a second apiece): migrate, users add, users set-token; then the
        # group, the project and a threshold on the maxima
        code = ("from django.core.management import call_command as c\n"
                "c('migrate', verbosity=0)\n"
                "c('users', 'add', 'rtlat', '--email', 'rtlat@localhost', "
                "'--passwd', 'rtlat-tests-pw', '--superuser')\n"
                f"c('users', 'set-token', 'rtlat', '{TOKEN}')\n"
                "from squad.core.models import Group, MetricThreshold\n"
                f"g = Group.objects.create(slug='{GROUP}', name='{GROUP}')\n"
                f"p = g.projects.create(slug='{PROJECT}', name='{PROJECT}')\n"
                "for n in ('rtlat/*-max', 'rtlat/*-max-latency'):\n"
                "    MetricThreshold.objects.create(project=p, name=n, value=None, "
                "is_higher_better=False)\n")
        setup = subprocess.Popen([str(VENV / "bin" / "squad-admin"), "shell", "-c", code],
                                 env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                 text=True)

        set_up = []

        def ready():
            if not set_up:
                said = setup.communicate(timeout=120)[0]
                assert setup.returncode == 0, said
                set_up.append(True)
            deadline = time.time() + 60
            while True:
                try:
                    with urllib.request.urlopen(f"{s.url}/api/version/", timeout=5):
                        return
                except OSError:
                    if p.poll() is not None or time.time() > deadline:
                        raise AssertionError("SQUAD did not start:\n" +
                                             (d / "server.log").read_text())
                    time.sleep(0.1)
        s.ready = ready
        STARTED.append(s)
        yield s
    finally:
        STARTED.clear()
        if setup is not None and setup.poll() is None:
            setup.kill()
            setup.communicate()
        # the server's session: runserver and what it started
        for sig, wait in ((signal.SIGTERM, 10), (signal.SIGKILL, None)):
            with contextlib.suppress(ProcessLookupError):
                os.killpg(p.pid, sig)
            try:
                p.wait(timeout=wait)
                break
            except subprocess.TimeoutExpired:
                continue
        log.close()


def rtlat_report():
    """This tree's rtlat_report modules (cli.main, export.squad)."""
    sys.path.insert(0, str(ROOT / "report"))
    try:
        import rtlat_report.cli.main
        import rtlat_report.export.squad
    finally:
        sys.path.pop(0)
    return types.SimpleNamespace(cli=rtlat_report.cli.main,
                                 squad=rtlat_report.export.squad)


def submit(squad, path, build, *extra, token=TOKEN, command=False):
    """rtlat-report --squad (command: the squad subcommand, --url)."""
    how = ("squad", path, "--url") if command else (path, "--squad")
    return report(*how, squad.url, "--group", GROUP, "--project",
                  PROJECT, "--build", build, "--environment", "board-1", *extra,
                  here=True, env={"SQUAD_TOKEN": token})


# ---------------------------------------------------------------------------
# The runs: one real pmq run, and two constructed from it.

@pytest.fixture(scope="session")
def runs(tmp_path_factory):
    """{name: path}: base (a real pmq run, judged and passed), regressed
    (its copy, a later run whose maximum doubled and failed --max-latency),
    and lava-pass / lava-fail: lava/rtlat.sh run for real (result.txt and
    the JSON)."""
    d = tmp_path_factory.mktemp("squad-runs")
    base = d / "base.json"
    r = run(["pmq", "-l", "300", "-i", "500", "-q", "--max-latency", "1000000",
             "--json", str(base)])
    assert r.returncode == 0, r.stderr
    doc = json.loads(base.read_text())
    reg = copy.deepcopy(doc)
    reg["start_time"] = reg["end_time"] = "Fri, 27 Nov 2026 06:00:00 +0000"
    reg["return_code"] = 3
    reg["fleet"]["verdict"] = "fail"
    for rec in reg["fleet"]["series"] + reg["fleet"]["threads"]:
        rec["max_ns"] = rec["p99.99_ns"] = rec["worst_ns"] = 2 * rec["max_ns"] + 1000
        rec["max_latency_us"] = max(1, rec["max_ns"] // 2000)
        rec["result"] = "fail"
        rec["failure"] = f"max {rec['max_ns'] / 1e3:.3f} us > --max-latency " \
            f"{rec['max_latency_us']} us"
    (d / "regressed.json").write_text(json.dumps(reg))
    out = {"base": base, "regressed": d / "regressed.json"}
    res = d / "results"
    r = run(["suite", "--only", "pmq,svsem", "--duration", "1", "-o", str(res), "-q"],
            timeout=60)
    assert r.returncode == 0, r.stderr
    (res / "report.html").write_text("<!DOCTYPE html><title>stand-in</title>\n")
    out["suite"] = res
    if os.geteuid() == 0:
        for name, limit in (("lava-pass", "1000000"), ("lava-fail", "1")):
            o = d / name
            r = subprocess.run(["sh", str(ROOT / "lava" / "rtlat.sh"), "-t", "pmq",
                                "-D", "1s", "-a", "-l 300 -i 500", "-m", limit,
                                "-r", RTLAT, "-s", "true", "-o", str(o)],
                               capture_output=True, text=True, timeout=60, cwd=d)
            assert r.returncode == 0, r.stdout + r.stderr
            out[name] = o
    return out


def build_content(squad, version):
    """(tests {name: status}, metrics {name: (value, unit)}) of a build,
    as SQUAD's API lists them."""
    (b,) = squad.api(f"builds/?version={version}&project__slug={PROJECT}")["results"]
    tests = {t["name"]: t["status"] for t in squad.all(f"builds/{b['id']}/tests/?limit=500")}
    metrics = {}
    for m in squad.all(f"builds/{b['id']}/metrics/?limit=500"):
        metrics[m["name"]] = (float(m["measurement_list"][0]
                                    if m.get("measurement_list") else m["result"]), m["unit"])
    return b, tests, metrics


def expected(path):
    """The tests and metrics rtlat-report submits for a run (its module's
    own conversion, for the comparison with what the server holds)."""
    sq = rtlat_report().squad
    test, files = sq.read_input(str(path))
    return sq.tests_and_metrics(sq.run_cases([d for _, _, d in files], test))


@pytest.fixture(scope="session")
def two_builds(squad, runs):
    out = {}
    for build, name in (("build-1", "base"), ("build-2", "regressed")):
        r = submit(squad, runs[name], build)
        assert r.returncode == 0, r.stderr
        assert r.stderr == "", r.stderr
        out[build] = r.stdout
    return out


def test_squad_lists_the_tests_and_metrics_of_each_build(squad, runs, two_builds):
    for build, name in (("build-1", "base"), ("build-2", "regressed")):
        tests, metrics = expected(runs[name])
        b, got_tests, got_metrics = build_content(squad, build)
        assert got_tests == {k: v for k, v in tests.items()}, (build, got_tests)
        assert set(got_metrics) == set(metrics), build
        for k, (value, unit) in got_metrics.items():
            assert unit == "us" and value == pytest.approx(metrics[k]["value"]), k
        # a case per figure of the series and the thread, per test
        assert {"rtlat/pmq-latency-max", "rtlat/pmq-t0-max-latency",
                "rtlat/pmq-latency-p9999"} <= set(got_metrics)
        assert {"rtlat/pmq-latency", "rtlat/pmq-t0-latency", "rtlat/pmq-run"} <= set(got_tests)
    _, t1, _ = build_content(squad, "build-1")
    _, t2, _ = build_content(squad, "build-2")
    assert set(t1.values()) == {"pass"} and t2["rtlat/pmq-latency"] == "fail"
    assert t2["rtlat/pmq-run"] == "fail"


def test_squad_keeps_metadata_and_attachments(squad, runs, two_builds):
    b, _, _ = build_content(squad, "build-1")
    (tr,) = squad.all(f"builds/{b['id']}/testruns/")
    meta = squad.api(f"testruns/{tr['id']}/metadata_file/")
    doc = json.loads(runs["base"].read_text())
    assert meta["kernel_release"] == os.uname().release
    assert meta["machine"] == doc["system"]["machine"]
    assert meta["preemption"] == doc["system"]["preempt_model"]
    assert meta["rtlat_version"] == doc["rtlat"]["version"]
    assert meta["command_line"] == doc["rtlat"]["cmdline"]
    assert meta["doctor_verdict"] == doc["doctor"]["verdict"]
    assert tr["job_id"].startswith("rtlat-")
    assert [a["filename"] for a in tr["attachments"]] == ["base.json"]


def test_squad_comparison_shows_the_regression(squad, two_builds, request):
    b1, _, _ = build_content(squad, "build-1")
    b2, _, _ = build_content(squad, "build-2")
    tests = squad.api(f"builds/{b1['id']}/compare/?target={b2['id']}&force=1")
    metrics = squad.api(f"builds/{b1['id']}/compare/?target={b2['id']}&by=metrics&force=1")
    print("SQUAD compare by tests:", json.dumps(tests))
    print("SQUAD compare by metrics:", json.dumps(metrics))
    out = os.environ.get("RTLAT_SQUAD_COMPARE_OUT")
    if out:
        Path(out).write_text(json.dumps({"tests": tests, "metrics": metrics}, indent=1))
    # by suite: the maxima that rose, the tests that went from pass to fail
    assert sorted(metrics["regressions"]["board-1"]["rtlat"]) == \
        ["pmq-latency-max", "pmq-t0-max-latency"]
    assert sorted(tests["regressions"]["board-1"]["rtlat"]) == \
        ["pmq-latency", "pmq-run", "pmq-t0-latency"]
    assert not metrics["fixes"] and not tests["fixes"]


def test_results_directory_is_one_submission(squad, runs):
    """rtlat suite -o DIR: one test run holding every test's cases, the
    suite's run case, every JSON and the report page attached (by the
    squad subcommand; the other submissions use the --squad flag)."""
    r = submit(squad, runs["suite"], "build-suite", command=True)
    assert r.returncode == 0, r.stderr
    b, tests, metrics = build_content(squad, "build-suite")
    want_tests, want_metrics = expected(runs["suite"])
    assert tests == want_tests and set(metrics) == set(want_metrics)
    assert tests["rtlat/suite-run"] == "pass"
    assert {"rtlat/pmq-latency", "rtlat/svsem-latency", "rtlat/pmq-t0-latency"} <= set(tests)
    assert {"rtlat/pmq-latency-max", "rtlat/svsem-t0-max-latency"} <= set(metrics)
    (tr,) = squad.all(f"builds/{b['id']}/testruns/")
    files = sorted(a["filename"] for a in tr["attachments"])
    # every result file; the suite's own registry.json and index.json are
    # not results
    assert files == sorted(["pmq.json", "svsem.json", "report.html"] +
                           [f for f in os.listdir(runs["suite"])
                            if f.endswith(".json") and f not in ("pmq.json", "svsem.json",
                                                                 "registry.json",
                                                                 "index.json")])


@pytest.mark.parametrize("argv,says", [
    (["--group", GROUP], "--project"),
    (["--group", "a b", "--project", PROJECT], "--group"),
    (["--group", GROUP, "--project", PROJECT, "--build", "a/b"], "--build"),
    (["--group", GROUP, "--project", PROJECT, "--job-id", "x/y"], "--job-id"),
], ids=["no-project", "bad-group", "bad-build", "bad-job-id"])
def test_bad_squad_options_are_exit_2_nothing_sent(runs, argv, says):
    # a closed port: had anything been sent, it would be exit 1
    r = report(runs["base"], "--squad", f"http://127.0.0.1:{free_port()}", *argv,
               here=True, env={"SQUAD_TOKEN": TOKEN})
    assert r.returncode == 2 and len(r.stderr.splitlines()) == 1, r.stderr
    assert says in r.stderr, r.stderr


def test_resubmission_is_refused_as_a_duplicate(squad, runs, two_builds):
    r = submit(squad, runs["base"], "build-1")
    assert r.returncode == 1
    assert len(r.stderr.splitlines()) == 1, r.stderr
    assert "HTTP 400" in r.stderr and "job_id" in r.stderr, r.stderr
    _, tests, _ = build_content(squad, "build-1")
    (b,) = squad.api(f"builds/?version=build-1&project__slug={PROJECT}")["results"]
    assert len(squad.all(f"builds/{b['id']}/testruns/")) == 1


def test_wrong_token_is_one_line_exit_1(squad, runs):
    r = submit(squad, runs["base"], "build-x", token="not-the-token")
    assert r.returncode == 1 and len(r.stderr.splitlines()) == 1, r.stderr
    assert "HTTP 40" in r.stderr and "refused" in r.stderr, r.stderr
    assert "not-the-token" not in r.stderr


def test_no_token_is_bad_input(squad, runs):
    r = submit(squad, runs["base"], "build-x", token=None)
    assert r.returncode == 2 and len(r.stderr.splitlines()) == 1, r.stderr
    assert "SQUAD_TOKEN" in r.stderr


def test_token_file(squad, runs, tmp_path):
    f = tmp_path / "token"
    f.write_text(TOKEN + "\n")
    r = submit(squad, runs["base"], "build-tf", "--squad-token-file", str(f), token=None)
    assert r.returncode == 0, r.stderr


class Answer500(http.server.BaseHTTPRequestHandler):
    def do_POST(self):
        self.rfile.read(int(self.headers.get("Content-Length", 0)))
        self.send_response(500)
        self.send_header("Content-Type", "text/html")
        self.end_headers()
        self.wfile.write(b"<h1>Server Error (500)</h1>\n<p>boom</p>\n")

    def log_message(self, *a):
        pass


def test_server_error_500_is_one_line_exit_1(runs):
    srv = http.server.HTTPServer(("127.0.0.1", 0), Answer500)
    t = threading.Thread(target=srv.serve_forever, daemon=True)
    t.start()
    try:
        r = report(runs["base"], "--squad", f"http://127.0.0.1:{srv.server_port}",
                   "--group", GROUP, "--project", PROJECT,
                   here=True, env={"SQUAD_TOKEN": TOKEN})
    finally:
        srv.shutdown()
        srv.server_close()
    assert r.returncode == 1 and len(r.stderr.splitlines()) == 1, r.stderr
    assert "HTTP 500: Server Error (500)" in r.stderr, r.stderr


def test_closed_port_is_one_line_exit_1(runs):
    r = report(runs["base"], runs["regressed"], "--squad",
               f"http://127.0.0.1:{free_port()}", "--group", GROUP, "--project", PROJECT,
               here=True, env={"SQUAD_TOKEN": TOKEN})
    assert r.returncode == 1 and len(r.stderr.splitlines()) == 1, r.stderr
    assert "cannot reach the server" in r.stderr and "not submitted" in r.stderr


# ---------------------------------------------------------------------------
# The LAVA path: result.txt as LAVA records it, through SQUAD's backend.

LAVA_BACKEND = r"""
import json, sys
import django
django.setup()
from io import BytesIO
from squad.ci.backend.lava import Backend

class Lab:
    # the LAVA server the job ran on, as SQUAD's backend record has it
    url = "https://lava.example.org/RPC2/"
    token = "unused"
    backend_settings = None


class Job:
    target = None
    name = job_id = failure = None
    def save(self):
        pass

out = {}
for name, results in json.load(sys.stdin).items():
    data = {"status": "Complete", "definition": "job_name: rtlat\ndevice_type: x86\n",
            "results": results}
    status, completed, meta, tests, metrics, log, att = \
        Backend(Lab()).__parse_results__(data, Job(), BytesIO())
    out[name] = {"completed": completed, "tests": tests, "metrics": metrics}
print(json.dumps(out))
"""


def lava_records(result_txt):
    """result.txt's cases as LAVA keeps them (its results YAML: strings,
    the measurement 'None' where there is none, suite '0_' + the
    definition's name), and LAVA's own job case."""
    out = []
    for line in result_txt.read_text().splitlines():
        w = line.split()
        out.append({"suite": "0_rtlat", "name": w[0], "result": w[1],
                    "measurement": f"{float(w[2]):.10f}" if len(w) > 2 else "None",
                    "unit": w[3] if len(w) > 3 else "", "log_start_line": None})
    out.append({"suite": "lava", "name": "job", "result": "pass",
                "measurement": "None", "unit": "", "metadata": {}})
    return out


def backend_parse(squad, result_txts):
    """{name: SQUAD's LAVA backend's tests and metrics} of {name:
    result.txt}, in one process (Django's start is a second)."""
    env = dict(squad.env, DJANGO_SETTINGS_MODULE="squad.settings")
    r = subprocess.run([str(venv_python()), "-c", LAVA_BACKEND],
                       input=json.dumps({k: lava_records(v) for k, v in result_txts.items()}),
                       env=env, capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout.splitlines()[-1])


@pytest.fixture(scope="session")
def lava_parsed(squad, runs, request):
    """SQUAD's LAVA backend's reading of lava/rtlat.sh's two runs and of
    the test-definitions layout's run (where it can run), at once."""
    if "lava-pass" not in runs:
        pytest.skip("lava/rtlat.sh runs as root only")
    files = {n: runs[n] / "result.txt" for n in ("lava-pass", "lava-fail")}
    try:
        files["layout"] = request.getfixturevalue("layout_run")[2]
    except pytest.skip.Exception:
        pass
    return backend_parse(squad, files)


@pytest.mark.parametrize("name", ["lava-pass", "lava-fail"])
def test_lava_path_gives_the_same_tests_and_metrics(runs, lava_parsed, name):
    out = runs[name]
    got = lava_parsed[name]
    assert got["completed"]
    tests, metrics = expected(out / "rtlat-pmq.json")
    lava_tests = {k: v["result"] for k, v in got["tests"].items()}
    assert lava_tests == tests
    assert set(got["metrics"]) == set(metrics)
    for k, m in got["metrics"].items():
        assert m["unit"] == "us", k
        assert m["value"] == pytest.approx(metrics[k]["value"], abs=0.0015), k
    want = "fail" if name == "lava-fail" else "pass"
    assert lava_tests["rtlat/pmq-run"] == lava_tests["rtlat/pmq-latency"] == want


def test_lava_and_direct_builds_in_squad_are_the_same(squad, runs, lava_parsed):
    """The LAVA path's tests and metrics submitted as SQUAD's backend hands
    them on, and the direct submission of the same run: SQUAD lists the
    same names, results and units for both."""
    out = runs["lava-fail"]
    got = lava_parsed["lava-fail"]
    body = {"tests": json.dumps({k: v["result"] for k, v in got["tests"].items()}),
            "metrics": json.dumps(got["metrics"]),
            "metadata": json.dumps({"job_id": "lava-1"})}
    sq = rtlat_report().squad
    url = sq.submit_url(squad.url, GROUP, PROJECT, "lava-build", "board-1")
    status, text = sq.post(url, TOKEN, body, [])
    assert status == 201, text
    r = submit(squad, out / "rtlat-pmq.json", "direct-build")
    assert r.returncode == 0, r.stderr
    _, lt, lm = build_content(squad, "lava-build")
    _, dt, dm = build_content(squad, "direct-build")
    assert lt == dt
    assert set(lm) == set(dm)
    for k in lm:
        assert lm[k][1] == dm[k][1] == "us"
        assert lm[k][0] == pytest.approx(dm[k][0], abs=0.0015), k


# ---------------------------------------------------------------------------
# rtlat's definition in test-definitions' own layout (automated/linux/rtlat),
# dropped into Linaro's tree and run by the plain setenv.sh flow.

LAYOUT = ROOT / "lava" / "test-definitions" / "automated" / "linux" / "rtlat"


@pytest.fixture(scope="session")
def td_fork(tmp_path_factory):
    """A test-definitions "fork": Linaro's automated/bin, lib and utils
    (the bare mirror, or RTLAT_TEST_DEFINITIONS) with rtlat's directory
    in automated/linux/rtlat, as a git repository (the runner reads its
    HEAD)."""
    if os.geteuid() != 0:
        pytest.skip("test-runner runs automated definitions as root only")
    from test_fleet_engines import MIRROR
    d = tmp_path_factory.mktemp("td") / "test-definitions"
    d.mkdir()
    src = os.environ.get("RTLAT_TEST_DEFINITIONS")
    # what the flow uses (automated/bin's prebuilt tools: 9 MB the runner
    # would copy)
    parts = ["automated/bin/setenv.sh", "automated/bin/test-runner", "automated/lib",
             "automated/utils"]
    if src:
        for p in parts:
            (d / p).parent.mkdir(parents=True, exist_ok=True)
            if (Path(src) / p).is_dir():
                shutil.copytree(Path(src) / p, d / p, symlinks=True)
            else:
                shutil.copy2(Path(src) / p, d / p, follow_symlinks=False)
    elif MIRROR.is_dir():
        r = subprocess.run(f"git --git-dir='{MIRROR}' archive HEAD {' '.join(parts)} | "
                           f"tar -x -C '{d}'", shell=True, capture_output=True, text=True,
                           timeout=60)
        if r.returncode:
            pytest.skip(f"git archive of {MIRROR} failed: {r.stderr}")
    else:
        pytest.skip(f"no Linaro/test-definitions: {MIRROR} is absent and "
                    "RTLAT_TEST_DEFINITIONS is not set")
    shutil.copytree(LAYOUT, d / "automated" / "linux" / "rtlat")
    git = ["git", "-C", str(d), "-c", "user.name=rtlat tests", "-c",
           "user.email=rtlat@localhost"]
    for cmd in (["init", "-q"], ["add", "-A"], ["commit", "-q", "-m", "fork"]):
        subprocess.run(git + cmd, check=True, capture_output=True)
    return d


REPORT_COMMAND = []


def report_command(tmp_path_factory=None):
    """rtlat-report of this tree as a command (a path: test-runner's run.sh
    resets the PATH), made once."""
    if not REPORT_COMMAND:
        exe = tmp_path_factory.mktemp("rtlat-report") / "rtlat-report"
        exe.write_text(f"#!/bin/sh\nPYTHONPATH='{ROOT / 'report'}' "
                       f"exec '{sys.executable}' -m rtlat_report \"$@\"\n")
        exe.chmod(0o755)
        REPORT_COMMAND.append(exe)
    return REPORT_COMMAND[0]


REPLAY = """#!/bin/sh
# rtlat replaying an earlier run: its registry, its JSON (or a suite's
# results directory) and its --lava lines
case "$1" in
--version) echo "rtlat 0.0"; exit 0 ;;
--list-plain) exec '{real}' --list-plain ;;
esac
while [ "$#" -gt 0 ]; do
	case "$1" in
	--json) cp '{json}' "$2" ;;
	-o) cp -R '{json}' "$2" ;;
	esac
	shift
done
[ -f '{txt}' ] && cat '{txt}'
exit {status}
"""


def replaying_rtlat(d, js):
    """D/rtlat: a stub replaying the run whose JSON is JS (its --lava
    lines are JS's .txt beside it), or whose results directory is JS."""
    exe = d / "rtlat"
    status = 0 if js.is_dir() else json.loads(js.read_text())["return_code"]
    exe.write_text(REPLAY.format(real=RTLAT, json=js, txt=js.with_suffix(".txt"),
                                 status=status))
    exe.chmod(0o755)
    return exe


def setenv_flow(fork, out, params, env=None):
    """. ./automated/bin/setenv.sh && test-runner ...: the rows of
    result.csv [(case, result, measurement, units)] and the test's dir."""
    r = subprocess.run(
        ["sh", "-c", '. ./automated/bin/setenv.sh >/dev/null && exec test-runner "$@"',
         "setenv", "-o", str(out), "-d", "automated/linux/rtlat/rtlat.yaml", "-r",
         *[f"{k}={v}" for k, v in params.items()]],
        cwd=fork, capture_output=True, text=True, timeout=60, start_new_session=True, env=env)
    assert r.returncode == 0, r.stdout + r.stderr
    (test_dir,) = [p for p in out.iterdir() if p.is_dir() and p.name.startswith("rtlat_")]
    import csv
    with open(test_dir / "result.csv") as f:
        rows = [(w["test_case_id"], w["result"], w["measurement"], w["units"])
                for w in csv.DictReader(f)]
    return rows, test_dir


@pytest.fixture(scope="session")
def layout_run(td_fork, tmp_path_factory):
    """TEST=pmq with a threshold that fails through the setenv.sh flow:
    (result.csv's rows, the definition's output/, result.txt as LAVA would
    have had it)."""
    d = tmp_path_factory.mktemp("layout")
    rows, test_dir = setenv_flow(td_fork, d / "out", {
        "TEST": "pmq", "DURATION": "1s", "ARGS": "-l 300 -i 500", "RTLAT": RTLAT,
        "MAX_LATENCY": "1"})
    result_txt = d / "result.txt"
    result_txt.write_text("".join(f"{n} {res} {v} {u}".rstrip() + "\n"
                                  for n, res, v, u in rows))
    return rows, test_dir / "automated" / "linux" / "rtlat" / "output", result_txt


def test_test_definitions_layout_runs_under_setenv(layout_run, lava_parsed):
    """Every case of rtlat's definition, units and all, through
    test-definitions' own send-to-lava.sh; the same tests and metrics in
    SQUAD's LAVA backend as rtlat-report --squad gives the run's JSON."""
    rows, out, _ = layout_run
    names = [n for n, _, _, _ in rows]
    assert "no-result-found" not in names, rows
    assert names[-1] == "pmq-run" and rows[-1][1] == "fail"
    assert {"pmq-latency-max", "pmq-t0-max-latency", "pmq-latency", "pmq-t0-latency"} <= set(names)
    for n, _, value, units in rows:
        assert (units == "us") == (value != ""), (n, value, units)
    got = lava_parsed["layout"]
    tests, metrics = expected(out / "rtlat-pmq.json")
    assert {k: v["result"] for k, v in got["tests"].items()} == tests
    assert set(got["metrics"]) == set(metrics)


def test_test_definitions_layout_without_rtlat_fails_the_run(td_fork, tmp_path):
    rows, _ = setenv_flow(td_fork, tmp_path / "out", {
        "TEST": "pmq", "RTLAT": str(tmp_path / "no" / "rtlat")})
    assert [(n, res) for n, res, _, _ in rows] == [("pmq-run", "fail")]


def test_test_definitions_layout_passes_the_squad_params(td_fork, squad, runs, tmp_path,
                                                         tmp_path_factory):
    """SQUAD_URL and the rest given to the layout's definition (the setenv.sh
    flow, rtlat replayed from lava/rtlat.sh's run: no second measurement)
    reach rtlat's definition script: the run is in SQUAD under the build,
    environment and job_id given, its token read from SQUAD_TOKEN_FILE,
    each metric in us, and pmq-squad passed."""
    if "lava-pass" not in runs:
        pytest.skip("lava/rtlat.sh runs as root only")
    js = runs["lava-pass"] / "rtlat-pmq.json"
    token = tmp_path / "token"
    token.write_text(TOKEN + "\n")
    env = {k: v for k, v in os.environ.items() if k != "SQUAD_TOKEN"}
    rows, _ = setenv_flow(td_fork, tmp_path / "out", {
        "TEST": "pmq", "DURATION": "1s", "RTLAT": str(replaying_rtlat(tmp_path, js)),
        "RTLAT_DEFINITION": str(ROOT / "lava" / "rtlat.sh"), "SQUAD_URL": squad.url,
        "SQUAD_GROUP": GROUP, "SQUAD_PROJECT": PROJECT, "SQUAD_BUILD": "layout-direct",
        "SQUAD_ENV": "board-layout", "SQUAD_JOB_ID": "layout-job-1",
        "SQUAD_TOKEN_FILE": str(token),
        "RTLAT_REPORT": str(report_command(tmp_path_factory))}, env=env)
    assert rows[-2:] == [("pmq-run", "pass", "", ""), ("pmq-squad", "pass", "", "")], rows
    b, tests, metrics = build_content(squad, "layout-direct")
    want_tests, want_metrics = expected(js)
    assert tests == want_tests and set(metrics) == set(want_metrics)
    assert all(unit == "us" for _, unit in metrics.values())
    (tr,) = squad.all(f"builds/{b['id']}/testruns/")
    assert tr["job_id"] == "layout-job-1"
    env_url = tr["environment"]
    with urllib.request.urlopen(urllib.request.Request(
            env_url, headers={"Authorization": f"Token {TOKEN}"}), timeout=30) as r:
        assert json.loads(r.read())["slug"] == "board-layout"


def test_definition_submits_a_suite_directory(squad, runs, tmp_path, tmp_path_factory):
    """TEST=suite with SQUAD_URL: the suite's results directory is the
    test run (rtlat suite replayed: its directory copied), suite-squad
    passed after suite-run."""
    if os.geteuid() != 0:
        pytest.skip("lava/rtlat.sh runs as root only")
    exe = replaying_rtlat(tmp_path, runs["suite"])
    env = dict(os.environ, SQUAD_TOKEN=TOKEN)
    r = subprocess.run(["sh", str(ROOT / "lava" / "rtlat.sh"), "-t", "suite", "-D", "1s",
                        "-r", str(exe), "-s", "true", "-o", str(tmp_path / "out"),
                        "-U", squad.url, "-G", GROUP, "-P", PROJECT, "-B", "definition-suite",
                        "-R", str(report_command(tmp_path_factory))],
                       cwd=tmp_path, env=env, capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stdout + r.stderr
    lines = (tmp_path / "out" / "result.txt").read_text().splitlines()
    assert lines == ["suite-run pass", "suite-squad pass"], r.stdout + r.stderr
    _, tests, metrics = build_content(squad, "definition-suite")
    want_tests, want_metrics = expected(runs["suite"])
    assert tests == want_tests and set(metrics) == set(want_metrics)
    assert all(unit == "us" for _, unit in metrics.values())


FAKE_REPORT = """#!/bin/sh
printf '%s\\n' "$@" "token=$SQUAD_TOKEN" > '{record}'
echo "squad: submitted"
"""


@pytest.mark.parametrize("where", ["beside-rtlat", "tree-venv"])
def test_definition_finds_rtlat_report_beside_rtlat(runs, tmp_path, where):
    """RTLAT_REPORT left at its default, rtlat-report not on the PATH: the
    one beside rtlat (make install's BINDIR) or in the .venv of rtlat's
    tree (make venv) submits; the token reaches it in its environment."""
    if "lava-pass" not in runs:
        pytest.skip("lava/rtlat.sh runs as root only")
    js = runs["lava-pass"] / "rtlat-pmq.json"
    exe = replaying_rtlat(tmp_path, js)
    tool = tmp_path / ("rtlat-report" if where == "beside-rtlat" else ".venv/bin/rtlat-report")
    tool.parent.mkdir(parents=True, exist_ok=True)
    record = tmp_path / "record"
    tool.write_text(FAKE_REPORT.format(record=record))
    tool.chmod(0o755)
    out = tmp_path / "out"
    r = subprocess.run(["sh", str(ROOT / "lava" / "rtlat.sh"), "-t", "pmq", "-D", "1s",
                        "-r", str(exe), "-s", "true", "-o", str(out), "-U", "http://squad.invalid",
                        "-G", "g", "-P", "p", "-B", "b"], cwd=tmp_path, capture_output=True,
                       text=True, timeout=60,
                       env=dict(os.environ, PATH="/usr/bin:/bin", SQUAD_TOKEN="tok-1"))
    assert r.returncode == 0, r.stdout + r.stderr
    assert record.read_text().splitlines() == [
        str(out / "rtlat-pmq.json"), "--squad=http://squad.invalid", "--group=g",
        "--project=p", "--build=b", "token=tok-1"]
    assert (out / "result.txt").read_text().splitlines()[-1] == "pmq-squad pass"
    assert "tok-1" not in r.stdout + r.stderr


def test_layout_script_passes_shellcheck():
    sc = shutil.which("shellcheck")
    if not sc:
        pytest.skip("shellcheck is not installed")
    r = subprocess.run([sc, str(LAYOUT / "rtlat.sh")], capture_output=True, text=True)
    assert r.returncode == 0, r.stdout + r.stderr
