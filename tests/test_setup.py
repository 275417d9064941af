# SPDX-License-Identifier: GPL-2.0-or-later
"""Issue 31, set-up on a fresh machine and the LAVA script's output.

- lava/rtlat.sh writes its results where it is run (output/ in the
  current directory, as Linaro's test-definitions do) or in the directory
  -o names, never beside itself: from a package that is
  /usr/share/rtlat/lava, which apt-get purge would leave behind. A bad
  -o is refused like every other param: one line, exit 2, nothing written.
- The README's first command works in a root shell without sudo (a
  container, a minimal install) and for a user with sudo; apt-get is not
  called when everything is installed.
- make fuzz, make fuzz-build and make check-tsan without clang: one line
  naming the package (or clang installed, as make check installs what it
  needs), never make's Error 127."""
import os
import re
import shutil
import subprocess
import tempfile
from pathlib import Path

import pytest

import rtlock

from conftest import RTLAT, ROOT
from test_attacks_lava import shell, shell_cmd, stub  # noqa: F401 (a fixture)

LAVA_FILES = {"rtlat.sh", "rtlat.yaml", "send-to-lava.sh"}
AS_NOBODY = ["setpriv", "--reuid", "nobody", "--regid", "nogroup", "--clear-groups"]


@pytest.fixture
def open_tmp():
    """A temporary directory that nobody can reach (pytest's are root's
    alone)."""
    with tempfile.TemporaryDirectory(prefix="rtlat-setup-") as d:
        os.chmod(d, 0o755)
        yield Path(d)


def install_tree(tmp_path):
    """lava/ as the package installs it: usr/share/rtlat/lava, read-only
    (mode 555, as dpkg leaves a directory to a user)."""
    d = tmp_path / "usr" / "share" / "rtlat" / "lava"
    d.parent.mkdir(parents=True)
    for f in sorted(LAVA_FILES):
        d.mkdir(exist_ok=True)
        shutil.copy2(ROOT / "lava" / f, d / f)
    d.chmod(0o555)
    return d


def listing(d):
    return sorted(str(p.relative_to(d)) for p in d.rglob("*"))


def lava_run(shell, script, cwd, args, timeout=30):
    cmd, path = shell
    return subprocess.run(cmd + [str(script)] + args, cwd=cwd, capture_output=True,
                          text=True, timeout=timeout, env=dict(os.environ, PATH=path))


# ---------------------------------------------------------------------------
# Item: lava/rtlat.sh writes output/ where it is run or where it is told.

def test_lava_results_go_where_it_is_run_not_beside_it(shell, tmp_path):
    lava = install_tree(tmp_path)
    work = tmp_path / "work"
    work.mkdir()
    exe, record = stub(tmp_path)
    r = lava_run(shell, lava / "rtlat.sh", work, ["-t", "pmq", "-r", str(exe), "-s", "true"])
    assert r.returncode == 0, r.stdout + r.stderr
    assert (work / "output" / "result.txt").read_text().splitlines()[-1] == "pmq-run pass"
    # rtlat was told to write its outputs there too
    args = record.read_text().splitlines()
    assert args[args.index("--json") + 1] == str(work / "output" / "rtlat-pmq.json")
    assert listing(lava) == sorted(LAVA_FILES), "written beside the script"
    # the installed send-to-lava.sh reads them from there
    s = subprocess.run([str(lava / "send-to-lava.sh"), "output/result.txt"], cwd=work,
                       capture_output=True, text=True, timeout=30)
    assert s.returncode == 0 and "<LAVA_SIGNAL_TESTCASE TEST_CASE_ID=pmq-run RESULT=pass>" \
        in s.stdout, s.stdout + s.stderr


def test_lava_real_run_from_the_install_tree(tmp_path, leakcheck):
    """The real rtlat, 200 cycles: its JSON and JUnit beside result.txt in
    the caller's output/, nothing in the install tree."""
    lava = install_tree(tmp_path)
    work = tmp_path / "work"
    work.mkdir()
    r = lava_run(shell_cmd("dash", tmp_path), lava / "rtlat.sh", work,
                 ["-t", "pmq", "-D", "10", "-a", "-l 200 -i 500", "-r", RTLAT, "-s", "true"],
                 timeout=60)
    assert r.returncode == 0, r.stdout + r.stderr
    out = work / "output"
    assert (out / "result.txt").read_text().splitlines()[-1] == "pmq-run pass"
    assert (out / "rtlat-pmq.json").stat().st_size > 0
    assert (out / "rtlat-pmq.junit.xml").stat().st_size > 0
    assert listing(lava) == sorted(LAVA_FILES)
    leakcheck()


@pytest.mark.parametrize("where", ["new-relative", "existing-absolute"])
def test_lava_results_in_the_directory_given(shell, tmp_path, where):
    lava = install_tree(tmp_path)
    work = tmp_path / "work"
    work.mkdir()
    exe, record = stub(tmp_path)
    if where == "new-relative":
        arg, dest = "res", work / "res"
    else:
        dest = tmp_path / "results dir"
        dest.mkdir()
        arg = str(dest)
    r = lava_run(shell, lava / "rtlat.sh", work,
                 ["-t", "timer", "-o", arg, "-r", str(exe), "-s", "true"])
    assert r.returncode == 0, r.stdout + r.stderr
    assert (dest / "result.txt").read_text().splitlines()[-1] == "timer-run pass"
    args = record.read_text().splitlines()
    assert args[args.index("--json") + 1] == str(dest / "rtlat-timer.json")
    assert not (work / "output").exists()
    assert listing(lava) == sorted(LAVA_FILES)


@pytest.mark.parametrize("value", ["", "file", "missing/parent", "/nonexistent-rtlat/x",
                                   "out\nput", "$(touch pwned)/x"])
def test_lava_refuses_a_bad_output_directory(tmp_path, value):
    """In dash: one line naming -o, exit 2, nothing written anywhere (not
    even result.txt: the directory for it is the bad one), rtlat not run.
    A bad TEST beside it changes nothing."""
    lava = install_tree(tmp_path)
    work = tmp_path / "work"
    work.mkdir()
    (work / "file").write_text("")
    exe, record = stub(tmp_path)
    for extra in ([], ["-t", "nope"]):
        r = lava_run(shell_cmd("dash", tmp_path), lava / "rtlat.sh", work,
                     ["-t", "pmq", "-r", str(exe), "-s", "true", "-o", value] + extra)
        assert r.returncode == 2, r.stdout + r.stderr
        (line,) = r.stderr.splitlines()
        assert line.startswith("rtlat.sh: OUTPUT (-o): ") and "accepted: " in line, line
        assert listing(work) == ["file"], "written in the current directory"
        assert not Path("/nonexistent-rtlat").exists()
        assert not record.exists(), "rtlat ran"
        assert listing(lava) == sorted(LAVA_FILES)


# ---------------------------------------------------------------------------
# Item: the README's first command without sudo, and with it.

def readme_first_command():
    """The first line of the README's first sh block, as a newcomer copies it."""
    m = re.search(r"^```sh\n(.*)\n", (ROOT / "README.md").read_text(), re.M)
    return m[1]


def source_tree(dest):
    """The tree as a clone has it, with this checkout's build (mtimes kept,
    so make finds it up to date when it is)."""
    files = subprocess.run(["git", "ls-files", "-co", "--exclude-standard"], cwd=ROOT,
                           capture_output=True, text=True, check=True).stdout.splitlines()
    built = [p.relative_to(ROOT) for p in (ROOT / "build").rglob("*")
             if p.is_file() and (p.suffix in (".o", ".d", ".1", ".bash")
                                 or p.name in (".target", ".done"))
             and not p.relative_to(ROOT).parts[1] in ("kernels", "deb", "cross", "static")]
    for f in files + ["rtlat"] + [str(p) for p in built]:
        src = ROOT / f
        if src.is_file():
            (dest / f).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(src, dest / f, follow_symlinks=False)
    return dest


def path_without(tmp_path, names, extra=None):
    """A PATH directory: links to every command of this PATH but names;
    extra: {name: script} put there instead."""
    d = tmp_path / "bin"
    d.mkdir()
    for p in os.environ["PATH"].split(":"):
        if not os.path.isdir(p):
            continue
        for n in sorted(os.listdir(p)):
            f = os.path.join(p, n)
            if (any(n == x or n.startswith(x + "-") for x in names) or (d / n).exists()
                    or not os.access(f, os.X_OK) or os.path.isdir(f)):
                continue
            (d / n).symlink_to(f)
    for n, text in (extra or {}).items():
        # A link to the real command is replaced, never written through
        # (that overwrote /usr/bin/apt-get with the recorder).
        (d / n).unlink(missing_ok=True)
        (d / n).write_text(text)
        (d / n).chmod(0o755)
    return d


RECORDER = """#!/bin/sh
echo "{name} $*" >> {record}
{then}
"""


def clean_env(**kw):
    env = {k: v for k, v in os.environ.items()
           if k not in ("MAKEFLAGS", "MFLAGS", "MAKELEVEL", "RTLAT_NO_INSTALL")}
    env.update(kw)
    return env


@pytest.mark.slow
@pytest.mark.parametrize("sudo", ["without-sudo", "with-real-sudo"])
def test_readme_first_command_as_root(tmp_path, sudo, leakcheck):
    """Root's shell, sudo absent (a container) or real: the README's first
    line builds rtlat and runs the suite; apt-get (a recorder that fails)
    is never called, everything being installed here."""
    if os.geteuid() != 0:
        pytest.skip("the line as root: run as root")
    if sudo == "with-real-sudo" and not shutil.which("sudo"):
        pytest.skip("sudo is not installed")
    tree = source_tree(tmp_path / "rtlat")
    record = tmp_path / "calls"
    recorder = RECORDER.format(name="apt-get", record=record, then="exit 100")
    bindir = path_without(tmp_path, ["sudo"] if sudo == "without-sudo" else [],
                          {"apt-get": recorder})
    line = readme_first_command()
    # The build first, by the `make` quickstart runs (which then finds it
    # done): the suite's bintime, response and sync keep the CPUs busy at
    # SCHED_FIFO, so the line runs while no other make check group's test
    # does (tests/rtlock.py), and those groups need not wait out a build.
    b = subprocess.run(["make"], cwd=tree, capture_output=True, text=True,
                       timeout=600, env=clean_env(PATH=str(bindir)))
    assert b.returncode == 0, b.stdout[-2000:] + b.stderr[-3000:]
    with rtlock.cpu_hog():
        r = subprocess.run(["sh", "-c", line], cwd=tree, capture_output=True, text=True,
                           timeout=600, env=clean_env(PATH=str(bindir)))
    assert r.returncode == 0, f"{line}\n{r.stdout[-2000:]}\n{r.stderr[-3000:]}"
    assert "command not found" not in r.stderr and "sudo: " not in r.stderr, r.stderr
    assert not record.exists(), "apt-get was called: " + record.read_text()
    m = re.search(r"^results: (results/rtlat-\S+)$", r.stdout, re.M)
    assert m, r.stdout[-2000:]
    assert sorted(p.name for p in (tree / m[1]).glob("*.json"))
    leakcheck()


def test_readme_first_command_as_a_user_with_sudo(open_tmp):
    """A user (nobody) whose sudo is a recorder: rtlat's run goes through
    sudo, the build does not, apt-get is not called (all installed)."""
    if os.geteuid() != 0:
        pytest.skip("needs root to become nobody")
    tmp_path = open_tmp
    tree = source_tree(tmp_path / "rtlat")
    record = tmp_path / "calls"
    record.touch()
    record.chmod(0o666)
    bindir = path_without(tmp_path, ["sudo", "apt-get"], {
        "sudo": RECORDER.format(name="sudo", record=record, then="exit 0"),
        "apt-get": RECORDER.format(name="apt-get", record=record, then="exit 100")})
    subprocess.run(["chown", "-R", "nobody", str(tree)], check=True)
    r = subprocess.run(AS_NOBODY + ["sh", "-c", readme_first_command()],
                       cwd=tree, capture_output=True, text=True, timeout=600,
                       env=clean_env(PATH=str(bindir), HOME=str(tree)))
    assert r.returncode == 0, r.stdout[-2000:] + r.stderr[-3000:]
    calls = record.read_text().splitlines()
    args = readme_first_command().split()[1:]
    assert calls == ["sudo ./rtlat suite " + " ".join(args)], calls


@pytest.mark.parametrize("who", ["root", "nobody"])
def test_build_tools_missing_are_named(open_tmp, who):
    """No C compiler: install-deps --build names build-essential in one
    line and fails, when it may not install (RTLAT_NO_INSTALL=1, or a user
    without sudo); the README's line then stops there, nothing built."""
    bindir = path_without(open_tmp, ["cc", "gcc", "make", "sudo", "apt-get"])
    env = clean_env(PATH=str(bindir))
    cmd = ["sh", "-c", readme_first_command()]
    if who == "root":
        env["RTLAT_NO_INSTALL"] = "1"
    elif os.geteuid() == 0:
        cmd = AS_NOBODY + cmd
    r = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=60, env=env)
    assert r.returncode == 1, r.stdout + r.stderr
    (line,) = r.stderr.splitlines()
    assert "build-essential" in line and "apt-get install build-essential" in line, line


@pytest.mark.parametrize("who", ["root-without-sudo", "user-with-sudo"])
def test_build_tools_installed_when_missing(open_tmp, who):
    """No C compiler: apt-get (a recorder) installs build-essential, the
    package list updated first (a container's is empty); as root directly
    (no sudo on the PATH), as a user (nobody) through sudo (a recorder)."""
    if os.geteuid() != 0:
        pytest.skip("needs root")
    record = open_tmp / "calls"
    record.touch()
    record.chmod(0o666)
    extra = {"apt-get": RECORDER.format(name="apt-get", record=record, then="exit 0")}
    cmd = ["tests/install-deps", "--build"]
    if who == "user-with-sudo":
        extra["sudo"] = RECORDER.format(name="sudo", record=record, then="exit 0")
        cmd = AS_NOBODY + cmd
    bindir = path_without(open_tmp, ["cc", "gcc", "make", "sudo", "apt-get"], extra)
    r = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=60,
                       env=clean_env(PATH=str(bindir)))
    assert r.returncode == 0, r.stdout + r.stderr
    if who == "user-with-sudo":
        assert record.read_text().splitlines() == [
            "sudo apt-get update -q",
            "sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -q build-essential"]
    else:
        assert record.read_text().splitlines() == [
            "apt-get update -q", "apt-get install -y -q build-essential"]


# ---------------------------------------------------------------------------
# Item: make fuzz and make check-tsan without clang.

@pytest.mark.parametrize("target", ["fuzz", "fuzz-build", "check-tsan"])
@pytest.mark.parametrize("who", ["no-install", "nobody"])
def test_make_without_clang_names_the_package(open_tmp, target, who):
    bindir = path_without(open_tmp, ["clang"])
    env = clean_env(PATH=str(bindir))
    cmd = ["make", "-j1", "-C", str(ROOT), target]
    if who == "no-install":
        env["RTLAT_NO_INSTALL"] = "1"
    elif os.geteuid() == 0:
        cmd = AS_NOBODY + cmd
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=120, env=env)
    assert r.returncode != 0
    out = r.stdout + r.stderr
    assert "127" not in out and "No such file" not in out and "not found" not in out, out
    named = [ln for ln in r.stderr.splitlines() if "apt-get install clang" in ln]
    assert len(named) == 1 and named[0].startswith(
        "make fuzz and make check-tsan need: clang"), r.stderr
    # nothing else but make's own line saying which target stopped
    others = [ln for ln in r.stderr.splitlines() if ln not in named]
    assert all(ln.startswith("make: ") for ln in others), r.stderr


@pytest.mark.slow
def test_fuzz_build_with_clang(tmp_path):
    """With clang here, make fuzz-build builds every libFuzzer harness
    without a warning, and each runs its seed corpus. Without it, skipped:
    make check does not install clang (minutes of a first run's 6); make
    fuzz does, and .ci/run runs it on a fresh machine."""
    if not shutil.which("clang"):
        pytest.skip("no clang (make fuzz installs it; make check does not)")
    # A minute of both CPUs: make fuzz (in .ci/run, -Werror) builds the same.
    if not os.environ.get("RTLAT_TEST_FUZZ_BUILD"):
        pytest.skip("make fuzz builds the harnesses (-Werror); RTLAT_TEST_FUZZ_BUILD=1 runs it here")
    tree = source_tree(tmp_path / "rtlat")
    r = subprocess.run(["make", "fuzz-build"], cwd=tree, capture_output=True,
                       text=True, timeout=900, env=clean_env())
    assert r.returncode == 0, r.stdout[-2000:] + r.stderr[-3000:]
    assert "warning:" not in r.stderr, r.stderr
    harnesses = sorted(p.stem for p in (tree / "fuzz").glob("fuzz_*.c"))
    assert harnesses
    for h in harnesses:
        r = subprocess.run([f"./build-fuzz/{h}", "-runs=0", f"fuzz/corpus/{h}"],
                           cwd=tree, capture_output=True, text=True, timeout=120)
        assert r.returncode == 0 and "INITED" in r.stderr, r.stderr[-3000:]


# ---------------------------------------------------------------------------
# Item: make deb installs what a native build needs, cross tools only for
# a cross build (DEB_ARCH).

@pytest.mark.parametrize("arch", ["", "arm64", "riscv64"])
def test_deb_dependencies_native_and_cross(tmp_path, arch):
    """tests/install-deps --deb [ARCH], as make deb runs it, with nothing
    installed (RTLAT_NO_INSTALL=1: what is missing is named): a native
    build needs Debian's packaging tools, never a cross compiler or a
    foreign C library (crossbuild-essential-arm64 and libc6-dev:arm64 were
    installed for every make deb); DEB_ARCH=ARCH needs that
    architecture's. make deb passes DEB_ARCH to it."""
    tools = ["dpkg", "dpkg-buildpackage", "dh", "dh_python3", "lintian", "autopkgtest",
             "debuild", "apt-get", "sudo", "aarch64-linux-gnu", "riscv64-linux-gnu"]
    bindir = path_without(tmp_path, tools, {"dpkg": "#!/bin/sh\nexit 1\n"})
    r = subprocess.run(["tests/install-deps", "--deb"] + ([arch] if arch else []), cwd=ROOT,
                       capture_output=True, text=True, timeout=60,
                       env=clean_env(PATH=str(bindir), RTLAT_NO_INSTALL="1"))
    assert r.returncode == 1, r.stdout + r.stderr
    (line,) = r.stderr.splitlines()
    named = set(line.split(": ", 1)[1].split(" (")[0].split())
    assert {"dpkg-dev", "debhelper", "dh-python", "lintian", "autopkgtest",
            "python3-matplotlib"} <= named, line
    cross = {p for p in named if "cross" in p or ":" in p}
    want = {f"crossbuild-essential-{arch}", f"libc6-dev:{arch}"} if arch else set()
    assert cross == want, line
    make = subprocess.run(["make", "-n", "-C", str(ROOT), "deb", f"DEB_ARCH={arch}"],
                          capture_output=True, text=True, timeout=60, env=clean_env())
    said = [ln.strip() for ln in make.stdout.splitlines()]
    assert f"tests/install-deps --deb {arch}".strip() in said, make.stdout
