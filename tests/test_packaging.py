# SPDX-License-Identifier: GPL-2.0-or-later
"""The Buildroot package (packaging/buildroot/rtlat) and the OpenEmbedded
recipe (packaging/yocto/rtlat_git.bb): their build and install commands
run as Buildroot and bitbake would run them (a cross compiler when one is
installed), and install what make install-bin and install-compat do: the
binary, a man page per subcommand, bash completion, the compatible names.
Buildroot's own utils/check-package runs where a Buildroot tree is given
(BUILDROOT=DIR); oelint-adv (in the venv) lints the recipe."""
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import ROOT, run

BR = ROOT / "packaging" / "buildroot" / "rtlat"
BB = ROOT / "packaging" / "yocto" / "rtlat_git.bb"
CROSS = "aarch64-linux-gnu-gcc"


def target_cc():
    return CROSS if shutil.which(CROSS) else "cc"


@pytest.fixture(scope="module")
def tree(tmp_path_factory):
    """A copy of the committed and changed files, as a package's source."""
    d = tmp_path_factory.mktemp("pkg") / "rtlat"
    files = subprocess.run(["git", "ls-files", "-co", "--exclude-standard"], cwd=ROOT,
                           capture_output=True, text=True, check=True).stdout.split()
    for f in files:
        if (ROOT / f).is_file():
            (d / f).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(ROOT / f, d / f)
    return d


def expected_files():
    """What make install-bin and install-compat put under PREFIX=/usr."""
    subs = re.findall(r"^  ([a-z]+) ", run(["--help"]).stdout, re.M)
    compat = run(["--list-compat"]).stdout.split()
    assert len(subs) >= 10 and len(compat) >= 6
    files = {"usr/bin/rtlat", "usr/share/bash-completion/completions/rtlat",
             "usr/share/man/man1/rtlat.1", "usr/share/man/man1/rtlat-report.1",
             "usr/share/rtlat/rtlat.schema.json"}
    files |= {f"usr/share/man/man1/rtlat-{s}.1" for s in subs}
    files |= {f"usr/bin/{n}" for n in compat}
    files |= {f"usr/share/bash-completion/completions/{n}" for n in compat}
    return files, compat


def installed(root):
    return {str(p.relative_to(root)) for p in root.rglob("*") if p.is_file() or p.is_symlink()}


def check_install(root, cc):
    files, compat = expected_files()
    assert installed(root) == files
    for n in compat:
        assert os.readlink(root / "usr/bin" / n) == "rtlat"
    machine = subprocess.run([cc, "-dumpmachine"], capture_output=True, text=True).stdout
    elf = (root / "usr/bin/rtlat").read_bytes()[:20]
    # e_machine: the target's (aarch64 183), not this machine's.
    if machine.startswith("aarch64"):
        assert int.from_bytes(elf[18:20], "little") == 183
    assert (root / "usr/share/man/man1/rtlat-pmq.1").read_text().startswith(".\\\" SPDX")


def test_buildroot_package_layout():
    mk = (BR / "rtlat.mk").read_text()
    assert mk.startswith("#" * 80 + "\n#\n# rtlat\n#\n" + "#" * 80 + "\n")
    for var in ("VERSION", "SITE", "LICENSE", "LICENSE_FILES"):
        assert re.search(rf"^RTLAT_{var} = \S", mk, re.M), var
    assert "RTLAT_LICENSE = GPL-2.0+\n" in mk and "RTLAT_LICENSE_FILES = LICENSE\n" in mk
    assert (ROOT / "LICENSE").exists()
    assert mk.rstrip().endswith("$(eval $(generic-package))")
    cfg = (BR / "Config.in").read_text()
    assert cfg.startswith('config BR2_PACKAGE_RTLAT\n\tbool "rtlat"\n')
    assert "depends on BR2_TOOLCHAIN_HAS_THREADS_NPTL" in cfg
    assert "config BR2_PACKAGE_RTLAT_COMPAT_NAMES" in cfg


def test_buildroot_package_builds_and_installs(tree, tmp_path):
    """RTLAT_BUILD_CMDS and RTLAT_INSTALL_TARGET_CMDS as Buildroot's
    generic-package runs them ($(@D) the source, TARGET_DIR the rootfs)."""
    cc = target_cc()
    target = tmp_path / "target"
    harness = tmp_path / "buildroot.mk"
    harness.write_text(f"""\
TARGET_CC = {cc}
TARGET_CFLAGS = -O2
TARGET_LDFLAGS =
TARGET_MAKE_ENV = PATH="$(PATH)"
HOSTCC = cc
TARGET_DIR = {target}
BR2_PACKAGE_RTLAT_COMPAT_NAMES = y
generic-package =
include {BR}/rtlat.mk
{tree}/.stamp_built:
\t+$(RTLAT_BUILD_CMDS)
\t+$(RTLAT_INSTALL_TARGET_CMDS)
""")
    # Buildroot runs its packages' $(MAKE) with -jN (BR2_JLEVEL)
    r = subprocess.run(["make", "-s", "-j2", "-f", str(harness), f"{tree}/.stamp_built"],
                       capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stderr
    assert "warning:" not in r.stderr
    check_install(target, cc)


# Buildroot's own repository where it can be had: BUILDROOT=DIR, or the
# snapshot the project's tools fetch into this mirror (read, never copied
# into the tree); only its utils/ is taken out.
BUILDROOT_MIRROR = Path("/work/.mirror/buildroot+buildroot/repo")


@pytest.fixture
def buildroot(tmp_path):
    if os.environ.get("BUILDROOT"):
        return Path(os.environ["BUILDROOT"])
    if not BUILDROOT_MIRROR.is_dir():
        pytest.skip("no Buildroot tree (BUILDROOT=DIR, or a snapshot at "
                    f"{BUILDROOT_MIRROR})")
    br = tmp_path / "buildroot"
    br.mkdir()
    archive = subprocess.run(["git", f"--git-dir={BUILDROOT_MIRROR}", "archive", "HEAD",
                              "utils", "support/download"], capture_output=True, check=True)
    subprocess.run(["tar", "-x", "-C", str(br)], input=archive.stdout, check=True)
    return br


def test_buildroot_check_package(tmp_path, buildroot):
    """Buildroot's utils/check-package (its python-magic and flake8 are in
    the venv) finds nothing in the package."""
    pkg = tmp_path / "package" / "rtlat"
    shutil.copytree(BR, pkg)
    r = subprocess.run([sys.executable, f"{buildroot}/utils/check-package", "-b",
                        "package/rtlat/Config.in", "package/rtlat/rtlat.mk",
                        "package/rtlat/rtlat.hash"],
                       cwd=tmp_path, capture_output=True, text=True)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "0 warnings generated" in r.stderr


def bb_vars_and_tasks():
    text = BB.read_text().replace("\\\n", " ")
    assigns = dict(re.findall(r'^([A-Za-z_:${}-]+) \+?= "(.*)"$', text, re.M))
    tasks = dict(re.findall(r"^(do_\w+)\(\) \{\n(.*?)^\}", BB.read_text(), re.M | re.S))
    return assigns, tasks


def test_yocto_recipe_variables_and_lint():
    v, tasks = bb_vars_and_tasks()
    # HOMEPAGE: rtlat has none to give (a placeholder was all there was);
    # the layer that publishes it sets its own.
    for var in ("SUMMARY", "DESCRIPTION", "LICENSE", "LIC_FILES_CHKSUM", "SRC_URI"):
        assert v.get(var), var
    # SRC_URI: by default the git tree the recipe sits in
    git = dict(re.findall(r'^(\w+) \?\?= "(.*)"$', BB.read_text(), re.M))
    assert v["SRC_URI"].startswith("${RTLAT_GIT};branch=${RTLAT_BRANCH};")
    path = re.fullmatch(r"git://\$\{THISDIR\}/(.*);protocol=file", git["RTLAT_GIT"])[1]
    top = subprocess.run(["git", "-C", str(BB.parent / path), "rev-parse", "--show-toplevel"],
                         capture_output=True, text=True, check=True).stdout.strip()
    assert Path(top).resolve() == ROOT
    md5 = re.search(r"md5=([0-9a-f]{32})", v["LIC_FILES_CHKSUM"]).group(1)
    import hashlib
    assert hashlib.md5((ROOT / "LICENSE").read_bytes()).hexdigest() == md5
    assert re.search(r"^inherit bash-completion$", BB.read_text(), re.M)
    assert set(tasks) == {"do_compile", "do_install"}
    compat = run(["--list-compat"]).stdout.split()
    files = v["FILES:${PN}-compat"].split()
    for n in compat:
        assert f"${{bindir}}/{n}" in files
        assert f"${{datadir}}/bash-completion/completions/{n}" in files
    lint = shutil.which("oelint-adv") or os.path.join(os.path.dirname(os.sys.executable),
                                                      "oelint-adv")
    if not os.path.exists(lint):
        pytest.skip("no oelint-adv (tests/requirements.txt)")
    # No network (HOMEPAGE is not pinged); BBCLASSEXTEND: a target tool.
    r = subprocess.run([lint, "--quiet", "--suppress", "oelint.vars.homepageping",
                        "--suppress", "oelint.var.bbclassextend", str(BB)],
                       capture_output=True, text=True)
    assert r.returncode == 0 and r.stdout + r.stderr == "", r.stdout + r.stderr


def test_yocto_recipe_compiles_and_installs(tree, tmp_path):
    """do_compile and do_install in a shell as bitbake runs them, with the
    variables a cross build sets."""
    v, tasks = bb_vars_and_tasks()
    cc = target_cc()
    d = tmp_path / "image"
    env = {"CC": cc, "BUILD_CC": "cc", "BUILD_CFLAGS": "-O2", "BUILD_LDFLAGS": "",
           "prefix": "/usr", "D": str(d), "CFLAGS": "-O2", "LDFLAGS": "",
           "PATH": os.environ["PATH"]}
    extra = re.sub(r"\$\{(\w+)\}", r"${\1}", v["EXTRA_OEMAKE"])
    script = (f'oe_runmake() {{ eval make -s -j2 {extra} "$@"; }}\n'
              "set -e\n" + tasks["do_compile"] + tasks["do_install"])
    r = subprocess.run(["sh", "-c", script], cwd=tree, env=env, capture_output=True,
                       text=True, timeout=600)
    assert r.returncode == 0, r.stderr
    assert "warning:" not in r.stderr
    check_install(d, cc)


def rtlat_version():
    return re.search(r'RTLAT_VERSION "(.*)"', (ROOT / "src/util/version.h").read_text())[1]


@pytest.fixture(scope="module")
def dist(tmp_path_factory):
    """make dist into a directory of its own: the release tarball and the
    Buildroot package that downloads it."""
    d = tmp_path_factory.mktemp("dist")
    r = subprocess.run(["make", "-s", "dist", f"DISTDIR={d}"], cwd=ROOT,
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stdout + r.stderr
    return d


def test_make_dist_tarball_and_its_buildroot_hash(dist, tmp_path, buildroot):
    """make dist writes rtlat-VERSION.tar.gz (the committed tree under
    rtlat-VERSION/, the same bytes when made again) and the Buildroot
    package beside it, whose rtlat.hash holds the tarball's sha256 and the
    LICENSE's, as Buildroot's own support/download/check-hash checks them,
    and whose site is the directory make dist wrote (file://), or the
    server a user sets (BR2_PACKAGE_RTLAT_SITE)."""
    import tarfile
    v = rtlat_version()
    mk = (BR / "rtlat.mk").read_text()
    assert f"RTLAT_VERSION = {v}\n" in mk
    tarball = dist / f"rtlat-{v}.tar.gz"
    with tarfile.open(tarball) as t:
        names = t.getnames()
    assert f"rtlat-{v}/Makefile" in names and f"rtlat-{v}/LICENSE" in names
    assert all(n == f"rtlat-{v}" or n.startswith(f"rtlat-{v}/") for n in names)
    again = tmp_path / "again"
    subprocess.run(["make", "-s", "dist", f"DISTDIR={again}"], cwd=ROOT, check=True,
                   capture_output=True, timeout=120)
    assert (again / tarball.name).read_bytes() == tarball.read_bytes()
    pkg = dist / "buildroot" / "rtlat"
    assert sorted(p.name for p in pkg.iterdir()) == ["Config.in", "rtlat.hash", "rtlat.mk"]
    # the committed hash file: the LICENSE's; make dist's adds the tarball's
    committed = (BR / "rtlat.hash").read_text()
    import hashlib
    lic = hashlib.sha256((ROOT / "LICENSE").read_bytes()).hexdigest()
    assert f"sha256  {lic}  LICENSE\n" in committed
    check = buildroot / "support" / "download" / "check-hash"
    for f, base in ((tarball, tarball.name), (ROOT / "LICENSE", "LICENSE")):
        r = subprocess.run(["bash", str(check), str(f), base, str(pkg / "rtlat.hash")],
                           capture_output=True, text=True)
        assert r.returncode == 0, r.stdout + r.stderr
    # a tarball of other bytes is refused
    bad = tmp_path / tarball.name
    bad.write_bytes(tarball.read_bytes() + b"\0")
    r = subprocess.run(["bash", str(check), str(bad), tarball.name, str(pkg / "rtlat.hash")],
                       capture_output=True, text=True)
    assert r.returncode == 2, r.stdout + r.stderr
    assert f'default "file://{dist}"' in (pkg / "Config.in").read_text()
    assert "RTLAT_SITE = $(call qstrip,$(BR2_PACKAGE_RTLAT_SITE))\n" in mk


# Where a placeholder host may stay: the user's own servers in examples
# that say so ("your ..." on the line or the two before).
PLACEHOLDER = re.compile(r"\bexample\.(org|com)\b")


def test_no_placeholder_host_in_what_users_copy():
    """No example.org or example.com in the packages' recipes, the Debian
    files or the LAVA definitions; in the docs and the README only for the
    user's own server, marked as such."""
    files = subprocess.run(["git", "ls-files", "-co", "--exclude-standard"], cwd=ROOT,
                           capture_output=True, text=True, check=True).stdout.split()
    found = []
    for f in files:
        top = f.split("/")[0]
        if top == "tests" or not (ROOT / f).is_file():
            continue
        try:
            lines = (ROOT / f).read_text().splitlines()
        except UnicodeDecodeError:
            continue
        for i, line in enumerate(lines):
            if not PLACEHOLDER.search(line):
                continue
            said = " ".join(lines[max(0, i - 2):i + 1]).lower()
            if f.endswith(".md") or f.startswith("report/"):
                if "your" in said:
                    continue
            found.append(f"{f}:{i + 1}: {line.strip()}")
    assert found == [], "\n".join(found)
