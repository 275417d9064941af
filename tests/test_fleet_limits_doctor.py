# SPDX-License-Identifier: GPL-2.0-or-later
"""Issue 44, items 5, 15 and 26: every threshold a series exceeds is said
(stderr, JUnit, LAVA, the JSON's fleet and the SQUAD cases read from it);
rtlat doctor names a CPU quota set by any ancestor cgroup, with its
throttling, and calls a cpuset exclusive only when it is (a partition
root, or no other cgroup's CPUs overlap it: never the root's); every
subcommand and compatible name takes --version."""
import json
import os
import subprocess
from pathlib import Path

import junitparser
import pytest

from conftest import RTLAT, ROOT, registry_compat, registry_names, run
from test_doctor_context import doctor, fake_root

XSD = ROOT / "tests" / "fixtures" / "junit-10.xsd"

# ---------------------------------------------------------------------------
# Item 5: both limits exceeded, both said.


def test_every_exceeded_limit_is_said(tmp_path, leakcheck):
    j, js = tmp_path / "j.xml", tmp_path / "r.json"
    r = run(["svsem", "-l", "300", "-q", "-i", "500", "--max-latency", "1",
             "--max-p99", "1", "--junit", str(j), "--json", str(js), "--lava"])
    assert r.returncode == 3, r.stderr
    rec = json.loads(js.read_text())["fleet"]["series"][0]
    # 1 us: no semaphore round trip is that short; if one ever were, the
    # figure did not exceed it and this run cannot show the case.
    if rec["max_ns"] <= 1000 or rec["p99_ns"] <= 1000:
        pytest.skip(f"a figure under 1 us: {rec}")
    said = [ln for ln in r.stderr.splitlines() if ": FAIL: " in ln]
    assert len(said) == 1, r.stderr
    assert "> --max-latency 1 us" in said[0] and "> --max-p99 1 us" in said[0], said
    # The JSON's fleet: the series' failure names both.
    assert "--max-latency 1 us" in rec["failure"] and "--max-p99 1 us" in rec["failure"]
    # JUnit: valid per the Jenkins/Ant schema, its failure names both.
    xmlschema = pytest.importorskip("xmlschema")
    errors = list(xmlschema.XMLSchema(str(XSD)).iter_errors(str(j)))
    assert not errors, errors
    cases = [c for s in junitparser.JUnitXml.fromfile(str(j)) for c in s]
    fail = [res for c in cases for res in c.result if isinstance(res, junitparser.Failure)]
    assert len(fail) == 1
    assert fail[0].type == "max-latency,max-p99"
    for text in (fail[0].message, fail[0]._elem.text):
        assert "--max-latency 1 us" in text and "--max-p99 1 us" in text, text
    # LAVA: the max and the p99 cases both fail, and the series'.
    res = dict(ln.split()[1:4:2] for ln in r.stdout.splitlines()
               if ln.startswith("lava-test-case "))
    assert (res["svsem-latency-max"], res["svsem-latency-p99"], res["svsem-latency"]) \
        == ("fail", "fail", "fail"), res
    # SQUAD's cases, read from the JSON, as rtlat's LAVA lines say.
    from rtlat_report.export.squad import record_cases
    sq = {case[0]: case[1] for case in record_cases(rec)}
    assert all(sq[k] == res[k] for k in sq), (sq, res)
    leakcheck()


# ---------------------------------------------------------------------------
# Item 15: the doctor's CPU quota and cpuset, on constructed roots.


def test_quota_of_an_ancestor_is_named(tmp_path):
    """podman --cgroup-parent, systemd CPUQuota=: the parent has the quota,
    the process' own cgroup has none."""
    root = fake_root(tmp_path, cgpath="/lab.slice/job", files={
        "/sys/fs/cgroup/lab.slice/cpu.max": "10000 100000\n",
        "/sys/fs/cgroup/lab.slice/cpu.stat": "nr_periods 21\nnr_throttled 17\nthrottled_usec 1700000\n",
        "/sys/fs/cgroup/lab.slice/job/cpu.max": "max 100000\n",
        "/sys/fs/cgroup/lab.slice/job/cpu.stat": "nr_periods 0\nnr_throttled 0\nthrottled_usec 0\n",
        "/sys/fs/cgroup/lab.slice/job/cpuset.cpus.effective": "0-3\n"})
    r, c = doctor(root)
    q = c["cpu_quota"]
    assert q["verdict"] == "will add latency", q
    assert "10000 us of every 100000 us (0.10 CPUs)" in q["detail"]
    assert "set by /sys/fs/cgroup/lab.slice" in q["detail"]
    assert "throttled in 17 of 21 periods" in q["detail"]
    assert "/sys/fs/cgroup/lab.slice/cpu.max" in q["fix"]
    assert "cpu.max is max" not in q["detail"]
    ctx = json.loads((root / "doctor.json").read_text())["rtlat"]["context"]
    assert ctx["quota"]["quota_us"] == 10000
    assert ctx["quota"]["cgroup"] == "/sys/fs/cgroup/lab.slice"


def test_the_tightest_quota_of_the_path_is_named(tmp_path):
    root = fake_root(tmp_path, cgroup=1, cgpath="/a/b", files={
        "/sys/fs/cgroup/cpu,cpuacct/a/cpu.cfs_quota_us": "50000\n",
        "/sys/fs/cgroup/cpu,cpuacct/a/cpu.cfs_period_us": "100000\n",
        "/sys/fs/cgroup/cpu,cpuacct/a/b/cpu.cfs_quota_us": "150000\n",
        "/sys/fs/cgroup/cpu,cpuacct/a/b/cpu.cfs_period_us": "100000\n",
        "/sys/fs/cgroup/cpuset/a/b/cpuset.cpus": "0-3\n"})
    r, c = doctor(root)
    assert "(0.50 CPUs) set by /sys/fs/cgroup/cpu,cpuacct/a" in c["cpu_quota"]["detail"]


@pytest.mark.parametrize("cgroup", [1, 2])
def test_root_cpuset_is_not_exclusive(tmp_path, cgroup):
    """The root cpuset (v1's cpu_exclusive is always 1 there) holds every
    cgroup's CPUs."""
    base = "/sys/fs/cgroup" + ("/cpuset" if cgroup == 1 else "")
    root = fake_root(tmp_path, cgroup=cgroup, files={
        f"{base}/cpuset.cpus": "0-3\n", f"{base}/cpuset.effective_cpus": "0-3\n",
        f"{base}/cpuset.cpus.effective": "0-3\n", f"{base}/cpuset.cpu_exclusive": "1\n",
        f"{base}/system.slice/cpuset.cpus.effective": "0-3\n"})
    r, c = doctor(root)
    assert "exclusive (" not in c["cpuset"]["detail"], c["cpuset"]
    ctx = json.loads((root / "doctor.json").read_text())["rtlat"]["context"]
    assert ctx["cpuset_exclusive"] is None


@pytest.mark.parametrize("partition,sibling,exclusive", [
    ("member", "2-3", "no sibling cgroup's CPUs overlap"),
    ("member", "1-2", None),
    ("root invalid (Parent is not a partition root)", "1-2", None),
    ("isolated", "0-3", "cpuset.cpus.partition = isolated"),
])
def test_cpuset_exclusive_only_when_it_is(tmp_path, partition, sibling, exclusive):
    root = fake_root(tmp_path, cgpath="/rt.slice/job", files={
        "/sys/fs/cgroup/rt.slice/job/cpu.max": "max 100000\n",
        "/sys/fs/cgroup/rt.slice/job/cpuset.cpus.effective": "1\n",
        "/sys/fs/cgroup/rt.slice/job/cpuset.cpus.partition": partition + "\n",
        "/sys/fs/cgroup/rt.slice/other/cpuset.cpus.effective": sibling + "\n",
        "/sys/fs/cgroup/rt.slice/cpuset.cpus.effective": "0-3\n",
        "/sys/fs/cgroup/system.slice/cpuset.cpus.effective": "0,2-3\n"})
    r, c = doctor(root)
    d = c["cpuset"]["detail"]
    if exclusive:
        assert f"exclusive ({exclusive})" in d and c["cpuset"]["verdict"] == "ok", d
    else:
        assert "not exclusive" in d and "/sys/fs/cgroup/rt.slice/other" in d, d


# ---------------------------------------------------------------------------
# Item 15 on real cgroups: a parent with a 10 % quota, the doctor in its
# child.

def cgroup_base():
    """(version, the cpu controller's mount) of this machine, or a skip."""
    if os.geteuid() != 0:
        pytest.skip("needs root to make cgroups")
    ctl = Path("/sys/fs/cgroup/cgroup.controllers")
    if ctl.exists():
        if "cpu" not in ctl.read_text().split():
            pytest.skip("cgroup v2 without the cpu controller")
        return 2, Path("/sys/fs/cgroup")
    for name in ("cpu,cpuacct", "cpu"):
        p = Path("/sys/fs/cgroup") / name
        if (p / "cpu.cfs_quota_us").exists():
            return 1, p
    pytest.skip("no cgroup cpu controller mounted")


def make_quota(version, base, parent, child):
    """parent at 10000 us of every 100000 us, child under it with none."""
    parent.mkdir()
    if version == 2:
        # The cpu controller for the root's children (systemd has it
        # on already; left on, as other cgroups may use it by then).
        if "cpu" not in (base / "cgroup.subtree_control").read_text().split():
            (base / "cgroup.subtree_control").write_text("+cpu")
        (parent / "cgroup.subtree_control").write_text("+cpu")
        child.mkdir()
        (parent / "cpu.max").write_text("10000 100000")
    else:
        child.mkdir()
        (parent / "cpu.cfs_quota_us").write_text("10000")


def test_real_parent_quota(tmp_path):
    version, base = cgroup_base()
    parent = base / f"rtlat-i44-{os.getpid()}"
    child = parent / "child"
    js = tmp_path / "d.json"
    try:
        try:
            make_quota(version, base, parent, child)
        except OSError as e:
            # A cgroup namespace's root with processes in it cannot give
            # its children a controller (EBUSY), nor can a read-only one.
            pytest.skip(f"cannot make a cgroup with a quota here: {e}")
        r = subprocess.run(["sh", "-c", 'echo $$ > "$1/cgroup.procs" && exec "$2" doctor --json "$3"',
                            "sh", str(child), RTLAT, str(js)],
                           capture_output=True, text=True, timeout=60)
        assert r.returncode in (0, 1), r.stderr
    finally:
        for d in (child, parent):
            if d.exists():
                d.rmdir()
    checks = {c["check"]: c for c in json.loads(js.read_text())["checks"]}
    q = checks["cpu_quota"]
    assert q["verdict"] == "will add latency", q
    assert f"set by {parent}" in q["detail"], q
    assert "(0.10 CPUs)" in q["detail"]
    assert str(parent) in q["fix"]
    line = [ln for ln in r.stdout.splitlines() if ln.startswith("CPU quota")]
    assert line and f"set by {parent}" in line[0], r.stdout


def test_real_root_cpuset_is_not_called_exclusive(tmp_path):
    """From the root cgroup (the cpuset's root in v1), the cpuset is every
    cgroup's: not exclusive."""
    version, _ = cgroup_base()
    root = Path("/sys/fs/cgroup") / ("cpuset" if version == 1 else "")
    if not (root / "cgroup.procs").exists():
        pytest.skip("no cpuset hierarchy")
    js = tmp_path / "d.json"
    r = subprocess.run(["sh", "-c", 'echo $$ > "$1/cgroup.procs" && exec "$2" doctor --json "$3"',
                        "sh", str(root), RTLAT, str(js)],
                       capture_output=True, text=True, timeout=60)
    assert r.returncode in (0, 1), r.stderr
    checks = {c["check"]: c for c in json.loads(js.read_text())["checks"]}
    assert "exclusive (" not in checks["cpuset"]["detail"], checks["cpuset"]


# ---------------------------------------------------------------------------
# Item 26: --version everywhere.

VERSION = subprocess.run([RTLAT, "--version"], capture_output=True, text=True).stdout


@pytest.mark.parametrize("name", registry_names() + ["suite"])
def test_every_subcommand_takes_version(name):
    assert VERSION.startswith("rtlat ")
    r = run([name, "--version"])
    assert (r.returncode, r.stdout, r.stderr) == (0, VERSION, "")
    assert "\n  --version " in run([name, "--help"]).stdout
    assert "\\-\\-version" in run(["--man", name]).stdout


@pytest.mark.parametrize("name,compat", sorted(registry_compat().items()))
def test_every_compatible_name_takes_version(name, compat):
    r = run(["--version"], argv0=compat)
    assert (r.returncode, r.stdout, r.stderr) == (0, VERSION, "")
    # Options after it are not read (rt-tests' tools print their version,
    # exit 0, and measure nothing).
    r = run(["--version", "-l", "1"], argv0=compat)
    assert (r.returncode, r.stdout) == (0, VERSION)
