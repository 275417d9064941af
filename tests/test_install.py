# SPDX-License-Identifier: GPL-2.0-or-later
"""Man pages and bash completion generated from the option tables, and
make install / uninstall."""
import re
import shutil
import subprocess
import sys

import pytest

from conftest import ROOT, registry_names, run

NAMES = registry_names() + ["suite"]


def help_options(name):
    out = run([name, "--help"]).stdout
    opts = set()
    for line in out.splitlines():
        m = re.match(r"^  (-\w)?(?:, )?(--[\w-]+)?", line)
        if m:
            opts |= {o for o in m.groups() if o}
    assert len(opts) > 5
    return opts


def man_text(name):
    if name == "rtlat-report":
        # its page comes from its own argument parser, as make man writes it
        r = subprocess.run([sys.executable, "-m", "rtlat_report.cli.manpage"],
                           capture_output=True, text=True)
    else:
        r = run(["--man", name])
    assert r.returncode == 0, r.stderr
    return r.stdout


def plain(roff):
    return re.sub(r"\\f[BIR]", "", roff).replace("\\-", "-")


@pytest.mark.parametrize("name", NAMES)
def test_man_page_has_every_option(name):
    page = man_text(name)
    assert page.startswith(".\\\" SPDX-License-Identifier: GPL-2.0-or-later\n")
    assert f".TH RTLAT-{name.upper()} 1 " in page
    items = re.findall(r"^\.TP\n(.*)$", page, re.M)
    listed = set()
    for item in items:
        listed |= set(re.findall(r"(--?[\w-]+)", plain(item)))
    missing = help_options(name) - listed
    assert not missing, f"rtlat-{name}(1) lacks {missing}"
    for section in ("NAME", "SYNOPSIS", "DESCRIPTION", "OPTIONS", "EXIT STATUS", "SEE ALSO"):
        assert f"\n.SH {section}\n" in page
    assert "\n.TP\n3\n" in plain(page)


def report_help(*args):
    """The options rtlat-report ARGS --help lists."""
    helped = subprocess.run([sys.executable, "-m", "rtlat_report", *args,
                             "--help"], capture_output=True, text=True)
    assert helped.returncode == 0, helped.stderr
    return helped.stdout, set(re.findall(r"(?:^  |, )(--?\w[\w-]*)",
                                         helped.stdout.split("\noptions:\n")[1],
                                         re.M))


def listed_options(roff):
    listed = set()
    for item in re.findall(r"^\.TP\n(.*)$", roff, re.M):
        listed |= set(re.findall(r"(--?[\w-]+)", plain(item)))
    return listed


def test_report_page_has_every_option_of_its_parser():
    """rtlat-report(1) has a section per subcommand that lists what
    rtlat-report COMMAND --help lists, and the old form's options."""
    page = man_text("rtlat-report")
    top, _ = report_help()
    commands = re.findall(r"^    ([a-z]+) +\S", top, re.M)
    assert {"page", "gate", "plan", "merge", "summary", "kcidb",
            "squad"} <= set(commands)
    sections = re.split(r"^\.SS ", page, flags=re.M)
    for c in commands:
        sec = [s for s in sections if s.startswith(f"rtlat\\-report {c}\n")]
        assert len(sec) == 1, c
        own = sec[0].split("\n.SH ")[0]
        wanted = report_help(c)[1] - {"-h", "--help"}
        assert wanted <= listed_options(own), (c, wanted - listed_options(own))
    # the old form: rtlat-report INPUT... --gate etc.
    old = subprocess.run([sys.executable, "-c", "from rtlat_report.cli.main "
                          "import build_parser; build_parser().print_help()"],
                         capture_output=True, text=True).stdout
    wanted = set(re.findall(r"(?:^  |, )(--?\w[\w-]*)",
                            old.split("\noptions:\n")[1], re.M))
    assert {"--tolerance", "--output", "--format", "--gate", "--kcidb",
            "--squad"} <= wanted
    assert wanted <= listed_options(page), wanted - listed_options(page)
    for section in ("NAME", "SYNOPSIS", "DESCRIPTION", "COMMANDS", "OPTIONS",
                    "EXIT STATUS", "SEE ALSO"):
        assert f"\n.SH {section}\n" in page
    assert "\n.TP\n125\n" in page
    assert "rtlat-report(1)" not in plain(page).replace(" (1)", "(1)")


@pytest.mark.skipif(not shutil.which("groff"), reason="no groff")
@pytest.mark.parametrize("name", ["rtlat", "rtlat-report"] + NAMES)
def test_man_pages_render_without_warnings(name):
    r = subprocess.run(["groff", "-man", "-ww", "-z"], input=man_text(name),
                       capture_output=True, text=True)
    assert r.returncode == 0 and r.stderr == ""


@pytest.mark.skipif(shutil.which("mandoc") is None, reason="mandoc not installed")
@pytest.mark.parametrize("name", NAMES + ["rtlat", "rtlat-report"])
def test_man_pages_are_clean_under_mandoc_lint(name, tmp_path):
    """mandoc -T lint, every level (a real date, no line over 80 bytes)."""
    page = tmp_path / f"{name}.1"
    page.write_text(man_text(name))
    r = subprocess.run(["mandoc", "-T", "lint", "-W", "all", str(page)],
                       capture_output=True, text=True)
    assert r.stdout == r.stderr == "", r.stdout + r.stderr
    assert re.search(r'^\.TH \S+ 1 \d{4}-\d\d-\d\d ', page.read_text(), re.M)


def test_rtlat_page_lists_every_subcommand():
    page = plain(man_text("rtlat"))
    for name in NAMES:
        assert f".BR {name} \" (\" rtlat-{name} (1))" in page


def test_man_unknown_name_is_bad_input():
    r = run(["--man", "nosuch"])
    assert r.returncode == 2 and r.stdout == ""
    assert r.stderr == ("rtlat: option --man: 'nosuch' has no page; accepted: "
                        "rtlat, suite, qualify or a subcommand\n")


def complete(script, words):
    """COMPREPLY for a command line (the last word being completed)."""
    line = " ".join(f"'{w}'" for w in words)
    prog = (f"{script}\nCOMP_WORDS=({line}); COMP_CWORD={len(words) - 1}\n"
            f"complete -p {words[0]} >/dev/null || exit 9\n"
            f"fn=$(complete -p {words[0]} | sed 's/.*-F \\([^ ]*\\).*/\\1/')\n"
            "$fn; printf '%s\\n' \"${COMPREPLY[@]}\"\n")
    r = subprocess.run(["bash", "-c", prog], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    return set(r.stdout.split())


def test_bash_completion_from_the_tables():
    script = run(["--completion"]).stdout
    assert subprocess.run(["bash", "-n"], input=script, text=True).returncode == 0
    assert complete(script, ["rtlat", ""]) >= set(NAMES)
    for name in NAMES:
        assert complete(script, ["rtlat", name, "-"]) == help_options(name)
    assert complete(script, ["pmqtest", "--max"]) == {"--max-latency", "--max-p99"}
    assert complete(script, ["rtlat", "suite", "--only", ""]) == set(NAMES) - {"suite"}
    assert complete(script, ["rtlat", "--man", "s"]) == {"suite", "sigwait", "svsem", "sync"}


def test_make_install_and_uninstall(tmp_path):
    dest = tmp_path / "dest"
    make = ["make", "-s", "-C", str(ROOT), f"DESTDIR={dest}", "PREFIX=/usr"]
    r = subprocess.run(make + ["install-bin", "install-compat"], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    files = {str(p.relative_to(dest)) for p in dest.rglob("*") if not p.is_dir()}
    assert "usr/bin/rtlat" in files and "usr/bin/pmqtest" in files
    assert "usr/share/bash-completion/completions/rtlat" in files
    assert "usr/share/bash-completion/completions/pmqtest" in files
    assert "usr/share/rtlat/rtlat.schema.json" in files
    for page in ["rtlat", "rtlat-report"] + [f"rtlat-{n}" for n in NAMES]:
        assert f"usr/share/man/man1/{page}.1" in files
    # an rt-tests pmqtest that is not our link survives uninstall
    (dest / "usr/bin/pmqtest").unlink()
    (dest / "usr/bin/pmqtest").write_text("rt-tests")
    r = subprocess.run(make + ["uninstall"], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    left = {str(p.relative_to(dest)) for p in dest.rglob("*") if not p.is_dir()}
    assert left == {"usr/bin/pmqtest"}
