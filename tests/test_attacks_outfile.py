# SPDX-License-Identifier: GPL-2.0-or-later
"""Issue 30, the output files attacked: a symlink planted by another user
in a sticky world-writable directory (items 1), a FIFO nobody reads (item
10), and the prefix of cyclictest's --json errors. rtlat resolves links
itself, so it applies the kernel's fs.protected_symlinks rule on its own,
whatever that sysctl says (it is 0 on some test machines and the tests
never change it)."""
import json
import os
import pwd
import signal
import stat
import threading

import pytest

from conftest import run, watching, without_statuses

NOBODY = pwd.getpwnam("nobody").pw_uid
ME = os.geteuid()

PAIR = ["svsem", "-l", "100", "-i", "100", "-q"]
TIMER = ["timer", "-T", "1", "-q", "-p", "1000"]
CYCLIC = ["cyclictest", "-l", "50", "-q", "-h", "200"]
REQUEST = ["request", "-i", "1", "--samples", "100"]
# Every option that writes a file, with a short run that writes it.
OUTPUTS = [(PAIR, "--json"), (PAIR, "--junit"), (PAIR, "--openmetrics"),
           (TIMER, "--json"), (TIMER, "-g"), (TIMER, "--histfile"),
           (CYCLIC, "--json"), (CYCLIC, "--histfile"),
           (REQUEST, "--json"), (REQUEST, "-l")]
IDS = [f"{a[0]}{o}" for a, o in OUTPUTS]
VICTIM = "the victim's own text\n"


@pytest.fixture
def sticky(tmp_path):
    """A sticky world-writable directory (as /tmp) owned by the caller,
    and a victim file of the caller's beside it: (directory, victim)."""
    os.chmod(tmp_path, 0o755)
    s = tmp_path / "s"
    s.mkdir()
    os.chmod(s, 0o1777)
    victim = tmp_path / "victim"
    victim.write_text(VICTIM)
    os.chmod(victim, 0o644)
    return s, victim


def link(path, target, uid):
    """A symlink owned by uid (root makes it and gives it away: the
    link's owner is what the rule looks at)."""
    os.symlink(target, path)
    os.lchown(path, uid, uid)
    return path


def refused(r, opt, path):
    """Exit 2 before the run, one line naming the option and the link."""
    assert r.returncode == 2, (r.returncode, r.stderr)
    line, = r.stderr.strip().splitlines()
    assert opt in line and str(path) in line, line
    assert "symlink owned by uid" in line and "sticky" in line, line


# --- item 1: a link planted by another user -----------------------------------

@pytest.mark.parametrize("argv,opt", OUTPUTS, ids=IDS)
def test_a_link_by_another_user_in_a_sticky_directory_is_refused(
        sticky, leakcheck, argv, opt):
    s, victim = sticky
    planted = link(s / "out", victim, NOBODY)
    r = run(argv + [opt, str(planted)])
    refused(r, opt, planted)
    assert victim.read_text() == VICTIM
    assert os.listdir(s) == ["out"], "a temp file was left"
    leakcheck()


@pytest.mark.parametrize("argv,opt", OUTPUTS, ids=IDS)
def test_a_dangling_link_by_another_user_creates_nothing(
        sticky, leakcheck, argv, opt):
    s, _ = sticky
    target = s.parent / "created-by-root"
    planted = link(s / "out", target, NOBODY)
    r = run(argv + [opt, str(planted)])
    refused(r, opt, planted)
    assert not os.path.lexists(target)
    assert os.listdir(s) == ["out"]
    leakcheck()


@pytest.mark.parametrize("argv,opt", OUTPUTS, ids=IDS)
def test_a_link_of_the_callers_own_is_followed(sticky, leakcheck, argv, opt):
    s, victim = sticky
    own = link(s / "out", victim, ME)
    r = run(argv + [opt, str(own)])
    assert r.returncode == 0, r.stderr
    assert own.is_symlink() and os.readlink(own) == str(victim)
    assert victim.read_text() != VICTIM and victim.stat().st_size > 0
    assert os.listdir(s) == ["out"]
    assert sorted(os.listdir(s.parent)) == ["s", "victim"]
    leakcheck()


def test_a_link_of_the_directorys_owner_is_followed(sticky):
    """The kernel's rule: the directory's owner may link in it."""
    s, victim = sticky
    os.chown(s, NOBODY, NOBODY)
    out = link(s / "out.json", victim, NOBODY)
    r = run(PAIR + ["--json", str(out)])
    assert r.returncode == 0, r.stderr
    assert json.loads(victim.read_text())["num_threads"] == 1
    assert out.is_symlink()


def test_a_directory_link_on_the_way_is_checked_too(sticky, leakcheck):
    s, victim = sticky
    planted = link(s / "d", victim.parent, NOBODY)
    r = run(PAIR + ["--json", str(planted / "victim")])
    refused(r, "--json", planted)
    assert victim.read_text() == VICTIM
    leakcheck()


def test_every_link_of_a_chain_is_checked(sticky, tmp_path, leakcheck):
    """a (the caller's, in a private directory) -> s/b (planted) -> victim:
    the second hop is refused."""
    s, victim = sticky
    link(s / "b", victim, NOBODY)
    a = link(tmp_path / "a", s / "b", ME)
    r = run(PAIR + ["--json", str(a)])
    assert r.returncode == 2, r.stderr
    assert str(s / "b") in r.stderr and "symlink owned by uid" in r.stderr
    assert victim.read_text() == VICTIM
    leakcheck()


def test_a_link_planted_during_the_run_is_refused_at_the_end(sticky, leakcheck):
    """The option check passed (nothing there yet); the link appears while
    the run goes on: the file is opened by the same walk, so it is refused
    then (exit 1, an error after the run), and the victim is untouched."""
    s, victim = sticky
    out = s / "out.json"
    with watching(["timer", "-T", "3", "-q", "--json", str(out)]) as p:
        p.measuring()       # past the option check, measuring
        link(out, victim, NOBODY)
        _, err = p.communicate(timeout=30)
    err = without_statuses(err)
    assert p.returncode == 1, err
    line, = [x for x in err.splitlines() if str(out) in x]
    assert line.startswith("rtlat timer: --json") and "symlink" in line, err
    assert victim.read_text() == VICTIM
    assert os.listdir(s) == ["out.json"] and out.is_symlink()
    leakcheck()


@pytest.mark.parametrize("argv,opt", [(PAIR, "--json"), (TIMER, "-g")],
                         ids=["svsem--json", "timer-g"])
def test_a_chain_to_a_missing_file_creates_it_and_keeps_the_links(
        tmp_path, leakcheck, argv, opt):
    d = tmp_path / "chain"
    d.mkdir()
    (d / "a").symlink_to("b")
    (d / "b").symlink_to("c")
    r = run(argv + [opt, str(d / "a")], cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert os.readlink(d / "a") == "b" and os.readlink(d / "b") == "c"
    assert stat.S_ISREG(os.lstat(d / "c").st_mode)
    assert (d / "c").stat().st_size > 0
    assert sorted(os.listdir(d)) == ["a", "b", "c"]
    leakcheck()


def test_suite_results_directory_planted_as_a_link_is_refused(
        sticky, leakcheck):
    s, victim = sticky
    vdir = s.parent / "vdir"
    vdir.mkdir()
    for name, target in (("r", vdir), ("new", s.parent / "made")):
        planted = link(s / name, target, NOBODY)
        r = run(["suite", "--only", "pmq", "--duration", "1", "-o",
                 str(planted)])
        refused(r, "-o", planted)
    assert os.listdir(vdir) == [] and not (s.parent / "made").exists()
    leakcheck()


def test_suite_into_a_sticky_directory_never_writes_through_a_planted_log(
        sticky, leakcheck):
    """-o /tmp-like: a test's log (NAME.txt) planted as a link to a file of
    the caller's is not truncated or written through."""
    s, victim = sticky
    link(s / "pmq.txt", victim, NOBODY)
    r = run(["suite", "--only", "pmq", "--duration", "1", "-o", str(s)],
            timeout=60)
    assert r.returncode != 0
    assert "pmq.txt" in r.stderr and "symlink owned by uid" in r.stderr
    assert victim.read_text() == VICTIM
    leakcheck()


# --- item 10: a FIFO nobody reads ---------------------------------------------

# The FIFO output, and another output of the same run to a regular file
# that must still be written.
FIFO_RUNS = [(TIMER, "--json", "-g"), (TIMER, "--histfile", "--json"),
             (TIMER, "-g", "--json"), (CYCLIC, "--json", "--histfile"),
             (["pmq", "-l", "100", "-q"], "--json", "--junit")]
FIFO_IDS = [f"{a[0]}{o}" for a, o, _ in FIFO_RUNS]
STOPS = [signal.SIGINT, signal.SIGTERM, signal.SIGHUP]


@pytest.mark.parametrize("sig", STOPS, ids=lambda s: s.name)
@pytest.mark.parametrize("argv,opt,other", FIFO_RUNS, ids=FIFO_IDS)
def test_a_fifo_without_reader_gives_up_on_a_stop_signal(
        tmp_path, leakcheck, argv, opt, other, sig):
    fifo = tmp_path / "f"
    os.mkfifo(fifo)
    kept = tmp_path / "kept"
    with watching(argv + [opt, str(fifo), other, str(kept)]) as p:
        p.wait_line("waiting for a reader")
        p.send_signal(sig)
        out, err = p.communicate(timeout=5)
    assert p.returncode == 1, err
    err = err.splitlines()
    said = [x for x in err if "no reader" in x]
    assert len(said) == 1 and opt in said[0] and str(fifo) in said[0], err
    assert out.strip(), "the summary must still be printed"
    assert kept.stat().st_size > 0
    if other == "--json":
        json.loads(kept.read_text())
    assert sorted(os.listdir(tmp_path)) == ["f", "kept"]
    leakcheck()


@pytest.mark.parametrize("argv", [TIMER, CYCLIC], ids=["timer", "cyclictest"])
def test_a_fifo_with_a_reader_gets_the_whole_json(tmp_path, leakcheck, argv):
    fifo = tmp_path / "f"
    os.mkfifo(fifo)
    got = []

    def read():
        with open(fifo) as f:
            got.append(f.read())
    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    r = run(argv + ["--json", str(fifo)])
    reader.join(timeout=10)
    assert r.returncode == 0, r.stderr
    assert got and json.loads(got[0])["file_version"] == 1
    assert os.listdir(tmp_path) == ["f"]
    leakcheck()


def test_a_second_fifo_is_not_waited_for_after_a_stop(tmp_path, leakcheck):
    """One ^C gives up every FIFO of the run, not one at a time."""
    for name in ("f", "g"):
        os.mkfifo(tmp_path / name)
    with watching(TIMER + ["--json", str(tmp_path / "f"),
                           "-g", str(tmp_path / "g")]) as p:
        p.wait_line("waiting for a reader")
        p.send_signal(signal.SIGINT)
        _, err = p.communicate(timeout=5)
    assert p.returncode == 1
    assert len([x for x in err.splitlines() if "no reader" in x]) == 2, err
    leakcheck()


# --- smaller: the prefix of --json's errors -----------------------------------

@pytest.mark.parametrize("argv,argv0,prefix", [
    (["cyclictest", "-l", "20", "-q"], None, "rtlat cyclictest: --json"),
    (["-l", "20", "-q"], "cyclictest", "cyclictest: --json"),
    (["timer", "-T", "1", "-q"], None, "rtlat timer: --json"),
    (PAIR, None, "rtlat svsem: --json"),
], ids=["rtlat-cyclictest", "cyclictest", "timer", "svsem"])
def test_json_write_errors_carry_the_faces_prefix(tmp_path, argv, argv0,
                                                  prefix):
    full = tmp_path / "full"
    os.mknod(full, 0o666 | stat.S_IFCHR, os.makedev(1, 7))
    r = run(argv + ["--json", str(full)], argv0=argv0)
    assert r.returncode == 1, r.stderr
    line, = [x for x in r.stderr.splitlines() if str(full) in x]
    assert line.startswith(prefix + " "), line
    # The prefix the face's other errors use.
    bad = run(argv + ["--json", str(full), "--no-such-option"], argv0=argv0)
    assert bad.stderr.startswith(prefix.split(" --json")[0] + " "), bad.stderr
