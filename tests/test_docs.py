# SPDX-License-Identifier: GPL-2.0-or-later
"""The docs a newcomer reads in order (issue 32): a short README with the
two commands first, links between the docs that resolve, man pages that
list every option of `--help` with the output formats and JSON keys each
test writes, and an architecture page that names every folder of src/.
"""
import json
import re
import subprocess
from pathlib import Path

import pytest

from conftest import RTLAT, ROOT, registry_names

DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
PAGES = [*registry_names(), "suite"]
OPTION = re.compile(r"(?<![\w-])(--?[A-Za-z0-9][A-Za-z0-9-]*)")


def run(*args):
    r = subprocess.run([RTLAT, *args], capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, (args, r.stderr)
    return r.stdout


def man_text(name):
    """The page as text a reader searches: roff escapes and fonts undone,
    lines joined (a page breaks its lines at spaces)."""
    page = run("--man", name)
    page = re.sub(r"\\f[BIRP]", "", page).replace("\\-", "-").replace("\\e", "\\")
    return page.replace("\\&", "")


def sections(page):
    """{".SH name": text} of a page."""
    out, name = {}, None
    for line in page.splitlines():
        if line.startswith(".SH "):
            name = line[4:].strip('"')
            out[name] = ""
        elif name:
            out[name] += line + "\n"
    return out


def help_options(name):
    """Every option a subcommand's --help lists: the words before the
    description on each option line."""
    opts = set()
    for line in run(name, "--help").splitlines():
        if not re.match(r"\s+-", line):
            continue
        head = re.split(r"\s{2,}", line.strip())[0]
        opts.update(OPTION.findall(head))
    assert opts, name
    return opts


# ---------------------------------------------------------------------------
# Item: README <= 250 lines, the two commands first.

def test_readme_short_with_the_two_commands_first():
    text = (ROOT / "README.md").read_text()
    assert len(text.splitlines()) <= 250, len(text.splitlines())
    first = re.search(r"^```\w*\n(.*?)^```", text, re.M | re.S)
    assert first, "no code block"
    assert first[1].split("\n")[:2] == ["./quickstart --duration 2", "make check"], first[1]


# ---------------------------------------------------------------------------
# Item: every option of --help in the man page.

@pytest.mark.parametrize("name", PAGES)
def test_every_help_option_is_in_the_man_page(name):
    page = sections(man_text(name))
    in_page = set(OPTION.findall(page.get("OPTIONS", "")))
    missing = sorted(help_options(name) - in_page)
    assert not missing, f"rtlat {name} --help lists {missing}, its man page does not"


# ---------------------------------------------------------------------------
# Item: each test's page says what it prints and which JSON keys it writes.

@pytest.fixture(scope="module")
def results(tmp_path_factory, suite_run):
    """One JSON of every test: the short suite the report's tests read too
    (conftest.suite_run: a suite run keeps the CPUs busy, and make check's
    other groups wait while it does), plus cyclictest, doctor, hwlat and
    osnoise (skipped runs where the kernel has no such tracer)."""
    d = tmp_path_factory.mktemp("docs-suite")
    files = {p.stem: p for p in suite_run[1].glob("*.json") if p.stem != "registry"}
    files["cyclictest"] = d / "cyclictest.json"
    run("cyclictest", "-t", "1", "-i", "1000", "-l", "100", "-q",
        "--json=" + str(files["cyclictest"]))
    for name, args in (("deadline", ["-D", "1", "-q"]),
                       ("cyclicdeadline", ["-D", "1", "-q", "-i", "4000"])):
        files[name] = d / f"{name}.json"
        run(name, *args, "--json", str(files[name]))
    files["doctor"] = d / "doctor.json"
    subprocess.run([RTLAT, "doctor", "--json", str(files["doctor"])],
                   capture_output=True, timeout=60)
    for name in ("hwlat", "osnoise"):
        files[name] = d / f"{name}.json"
        subprocess.run([RTLAT, name, "-D", "1", "--json", str(files[name])],
                       capture_output=True, timeout=60)
    return files


@pytest.mark.parametrize("name", PAGES)
def test_man_page_has_output_formats(name):
    page = sections(man_text(name))
    assert page.get("OUTPUT", "").strip(), f"rtlat-{name}(1) has no OUTPUT section"


@pytest.mark.parametrize("name", registry_names())
def test_man_page_names_every_json_key(name, results):
    page = sections(man_text(name)).get("JSON KEYS", "")
    assert page, f"rtlat-{name}(1) has no JSON KEYS section"
    doc = json.loads(results[name].read_text())
    text = " ".join(page.split())
    missing = [k for k in doc if f'"{k}"' not in text]
    assert not missing, f"rtlat-{name}(1) does not name the JSON keys {missing}"


# ---------------------------------------------------------------------------
# Item: every relative link in README.md and docs/*.md resolves.

def slug(heading):
    """GitHub's anchor of a heading."""
    s = re.sub(r"[`*_]|!?\[([^\]]*)\]\([^)]*\)", r"\1", heading.strip().lower())
    s = re.sub(r"[^\w\- ]", "", s)
    return s.replace(" ", "-")


def prose_lines(path):
    """The lines of a markdown file outside its code blocks."""
    fence = False
    for line in path.read_text().splitlines():
        if line.startswith("```"):
            fence = not fence
        elif not fence:
            yield line


def anchors(path):
    seen, out = {}, set()
    for line in prose_lines(path):
        m = re.match(r"#{1,6} (.*)", line)
        if m:
            s = slug(m[1])
            n = seen.get(s, 0)
            seen[s] = n + 1
            out.add(s if not n else f"{s}-{n}")
    return out


def links(path):
    for line in prose_lines(path):
        for target in re.findall(r"\]\(([^)\s]+)\)", line):
            if not re.match(r"[a-z]+:", target):
                yield target


@pytest.mark.parametrize("doc", DOCS, ids=lambda p: str(p.relative_to(ROOT)))
def test_relative_links_resolve(doc):
    bad = []
    for target in links(doc):
        path, _, anchor = target.partition("#")
        dest = (doc.parent / path).resolve() if path else doc
        if not dest.exists():
            bad.append(f"{target}: no such file")
        elif anchor and dest.suffix == ".md" and anchor not in anchors(dest):
            bad.append(f"{target}: no heading #{anchor} in {dest.name}")
    assert not bad, bad


def test_the_docs_link_each_other():
    """A newcomer reaches every doc from the README."""
    readme = set(links(ROOT / "README.md"))
    for doc in DOCS[1:]:
        assert any(t.partition("#")[0] == f"docs/{doc.name}" for t in readme), doc.name


# ---------------------------------------------------------------------------
# Item: the architecture page names every folder of src/ that exists.

def test_architecture_names_every_src_folder():
    text = (ROOT / "docs" / "architecture.md").read_text()
    folders = sorted(p.name for p in (ROOT / "src").iterdir() if p.is_dir())
    missing = [f for f in folders if f"{f}/" not in text]
    assert not missing, missing


# ---------------------------------------------------------------------------
# Item: the guide says how to install what make deb builds.

def test_guide_installs_the_packages_make_deb_builds():
    """The guide's apt-get line names each binary package of
    debian/control, as a path (apt-get reads a file given as ./PATH) whose
    pattern matches the file dpkg-buildpackage writes into build/deb
    (PACKAGE_VERSION_ARCH.deb, VERSION from debian/changelog)."""
    import fnmatch
    guide = (ROOT / "docs" / "guide.md").read_text()
    line = re.search(r"^(?:sudo )?apt-get install (\./build/deb/\S+\.deb(?: \S+)*)$", guide, re.M)
    assert line, "no apt-get install ./build/deb/... line in docs/guide.md"
    paths = line[1].split()
    version = re.match(r"\S+ \((\S+)\)", (ROOT / "debian/changelog").read_text())[1]
    control = (ROOT / "debian/control").read_text()
    for pkg, arch in re.findall(r"^Package: (\S+)\nArchitecture: (\S+)", control, re.M):
        arch = "amd64" if arch != "all" else "all"
        deb = f"./build/deb/{pkg}_{version}_{arch}.deb"
        assert [p for p in paths if fnmatch.fnmatchcase(deb, p)] != [], (deb, paths)


# ---------------------------------------------------------------------------
# Item: the docs say what the program does (issue 44, item 24).

def test_cyclictest_loops_end_at_the_first_thread_as_said():
    """cyclictest's -l ends the run when the first thread has made LOOPS
    wake-ups (as rt-tests' cyclictest: the others stop where they are);
    --help and docs/tests.md say that, and nothing says a thread runs
    its own count. Thread 1 at twice the period (-d) cannot reach it."""
    r = rtlat("cyclictest", "-q", "-t", "2", "-i", "1000", "-d", "1000", "-l", "200")
    assert r.returncode == 0, r.stderr
    counts = [int(c) for c in re.findall(r"C:\s*(\d+)", r.stdout)]
    assert counts[0] == 200 and counts[1] < 200, r.stdout
    (line,) = [ln for ln in rtlat("cyclictest", "--help").stdout.splitlines()
               if "--loops" in ln]
    assert "per thread" not in line and "first thread" in line, line
    text = (ROOT / "docs/tests.md").read_text()
    section = " ".join(text.split("\n## cyclictest")[1].split("\n## ")[0].split())
    assert "`-l` ends the run when the first thread reaches it" in section
    assert "its own `-l`" not in section


def test_timer_quiet_without_duration_warns_and_runs_as_said(tmp_path):
    """timer -q without -T warns and runs (as Xenomai's latency): the
    program does, and docs/tests.md says so, never that it is an error."""
    import signal
    import time
    p = subprocess.Popen([RTLAT, "timer", "-q", "--json", str(tmp_path / "t.json")],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        first = p.stderr.readline()
        assert "-q only works with -T" in first, first
        # running: its banner comes, then a stop ends it as any run
        assert p.stdout.readline().startswith("== "), "no banner"
        deadline = time.monotonic() + 20
        while not (tmp_path / "t.json").exists() and time.monotonic() < deadline:
            p.send_signal(signal.SIGINT)
            try:
                p.wait(timeout=1)
                break
            except subprocess.TimeoutExpired:
                pass
        assert p.wait(timeout=20) == 0
    finally:
        if p.poll() is None:
            p.kill()
            p.wait()
    tests_md = " ".join((ROOT / "docs/tests.md").read_text().split())
    assert "`-q` without `-T` is an error" not in tests_md
    assert "`-T`, `-q` without `-T`, `-t`" not in tests_md
    assert "`-q` (without `-T`: a warning" in tests_md


def test_timer_docs_say_the_time_line_keeps_the_counters(tmp_path):
    """The per-second counters went into the time line's context columns
    (steps merged two by two past 10000, not kept for the first hour):
    docs/tests.md says so, and a timer run's JSON has them there."""
    tests_md = " ".join((ROOT / "docs/tests.md").read_text().split())
    assert "for the first hour" not in tests_md
    assert "per-second counters the JSON keeps" not in tests_md
    assert "1 s steps carry the per-second counters as context columns" in tests_md
    assert "merge two by two past 10000 steps" in tests_md
    r = rtlat("timer", "-q", "-T", "1", "--json", str(tmp_path / "t.json"))
    assert r.returncode == 0, r.stderr
    tl = json.loads((tmp_path / "t.json").read_text())["timeline"]
    assert tl["step_s"] == 1 and tl["cap"] == 10000, {k: tl[k] for k in ("step_s", "cap")}
    (series,) = tl["series"]
    assert {"irqs", "steal_ms"} <= set(series["context_columns"]), series["context_columns"]


def test_suite_quiet_prints_the_table_only_as_the_guide_says(tmp_path):
    """The guide: `rtlat suite -q` prints the table only. The timer's own
    'running quietly' line (Xenomai's, for a run of its own) came through
    as well; now nothing but the table, and without -q only the suite's
    'running TEST' lines (the timer's line is not the suite's)."""
    guide = (ROOT / "docs/guide.md").read_text()
    assert re.search(r"^\./rtlat suite -q +# the table only", guide, re.M)
    # both at once (each about 3 s: the timer's warm-up second and its run)
    procs = {quiet: subprocess.Popen(
        [RTLAT, "suite", "--only", "timer", "--duration", "1", "-o",
         str(tmp_path / f"q{quiet}"), *(["-q"] if quiet else [])],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for quiet in (True, False)}
    outs = {}
    try:
        outs = {quiet: p.communicate(timeout=60) for quiet, p in procs.items()}
    finally:
        for p in procs.values():
            if p.poll() is None:
                p.kill()
                p.wait()
    for quiet, (out, err) in outs.items():
        assert procs[quiet].returncode == 0, err
        assert out.startswith("test ") and "timer " in out, out
        said = err.splitlines()
        if quiet:
            assert said == [], err
        else:
            assert said == ["rtlat suite: running timer for about 2s"], err


def rtlat(*args, timeout=60):
    return subprocess.run([RTLAT, *args], capture_output=True, text=True, timeout=timeout)


def suite_args_of(name):
    return next(t["suite_args"] for t in json.loads(rtlat("--list").stdout)["tests"]
                if t["name"] == name)


def test_suite_bintime_args_are_the_guides_and_below_every_test():
    """The suite's bintime holds its CPU busy for its whole run: at the
    suite's SCHED_FIFO 99 nothing else real-time ran there for 2 s (a
    timer beside it saw a 2 s latency). It runs below every measuring
    test's priority, and the guide gives its arguments as they are."""
    tests = [t for t in json.loads(rtlat("--list").stdout)["tests"] if t["suite_args"]]
    prio = {}
    for t in tests:
        m = re.search(r"(?:^| )-[pP] (\d+)", t["suite_args"])
        if m:
            prio[t["name"]] = int(m[1])
    bintime = prio.pop("bintime")
    assert bintime < min(prio.values()), (bintime, prio)
    args = suite_args_of("bintime")
    guide = " ".join((ROOT / "docs/guide.md").read_text().split())
    said = re.search(r"`bintime ([^`]*)-D` TIME up to 2 s", guide)
    assert said, "the guide lists no bintime arguments"
    assert args.startswith(said[1].strip() + " -D "), (said[1], args)
