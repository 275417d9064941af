# SPDX-License-Identifier: GPL-2.0-or-later
"""rtlat's image (make image) run rootful by podman in the shapes a user
meets: a cpuset, a CPU quota, without and with CAP_SYS_NICE, privileged.
The doctor names each limit and its fix in podman's terms; a test that
needs SCHED_FIFO without the capability says so in one line (with
--strict it refuses, exit 1); a run under a quota carries the throttling
counters in its JSON. make check-containers runs these (not make check):
they are skipped, with the reason, only where podman cannot be installed
or run. Each shape's doctor output is left in build/containers/."""
import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "build" / "containers"
IMAGE = "localhost/rtlat:latest"
# This kind of host (cgroup v1, hybrid) needs runc and cgroupfs: crun
# refuses hybrid cgroups, and there is no systemd to manage them. The
# sandbox's hard limits are lower than podman's defaults.
PODMAN = ["podman", "--runtime", "runc", "--cgroup-manager", "cgroupfs"]
RUN = PODMAN + ["run", "--rm", "--ulimit", "nofile=1024:1024",
                "--ulimit", "nproc=1024:1024"]
# cgroup v1 with CONFIG_RT_GROUP_SCHED: a new cgroup has no RT budget.
RT_ROOT = Path("/sys/fs/cgroup/cpu/cpu.rt_runtime_us")
RT_PARENT = Path("/sys/fs/cgroup/cpu/libpod_parent/cpu.rt_runtime_us")

# What a measuring run needs besides SCHED_FIFO: mlockall beyond
# RLIMIT_MEMLOCK, and /dev/cpu_dma_latency.
LOCK_DMA = ["--cap-add", "IPC_LOCK", "--device", "/dev/cpu_dma_latency"]

pytestmark = pytest.mark.skipif(
    not os.environ.get("RTLAT_TEST_CONTAINERS"),
    reason="make check-containers runs these (podman, the image)")


def sh(cmd, timeout=300, **kw):
    return subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, **kw)


@pytest.fixture(scope="module")
def image():
    """The image built as make image builds it; skipped where podman
    cannot be installed or run, with the reason."""
    if not shutil.which("podman") or not shutil.which("runc"):
        pytest.skip("podman or runc not installed (tests/install-deps --containers could not install them)")
    if os.geteuid() != 0:
        pytest.skip("podman is run rootful here: not root")
    r = sh(["make", "-C", str(ROOT), "image"], timeout=600)
    assert r.returncode == 0, r.stdout[-2000:] + r.stderr[-2000:]
    r = sh(RUN + ["--entrypoint", "/rtlat", IMAGE, "--version"])
    if r.returncode != 0:
        pytest.skip("podman cannot run a container here: " + r.stderr.strip().splitlines()[-1])
    OUT.mkdir(parents=True, exist_ok=True)
    yield IMAGE


@pytest.fixture(scope="module")
def rt_budget(image):
    """podman's options that give the container an RT budget where cgroup
    v1 has one: the parent's budget first (as docs/guide.md says), put
    back afterwards."""
    if not RT_ROOT.exists():
        yield []
        return
    sh(RUN + [image, "--version"])          # podman creates libpod_parent
    old = RT_PARENT.read_text().strip() if RT_PARENT.exists() else None
    if old is not None and int(old) < 500000:
        RT_PARENT.write_text("500000")
    yield ["--cpu-rt-runtime", "400000"]
    if old is not None and int(old) < 500000:
        try:
            RT_PARENT.write_text(old)
        except OSError:
            pass


def doctor(shape, opts, *args):
    """rtlat doctor in the container: its text (kept), its checks by key."""
    r = sh(RUN + opts + [IMAGE, "doctor", "--json", "-", *args])
    text, js = r.stdout.split("{", 1) if "{" in r.stdout else (r.stdout, "")
    (OUT / f"doctor-{shape}.txt").write_text(
        f"$ podman run {' '.join(opts)} rtlat doctor {' '.join(args)}\n{text}{r.stderr}")
    assert r.returncode in (0, 1), r.stderr
    d = json.loads("{" + js)
    checks = {c["check"]: c for c in d["checks"]}
    assert d["rtlat"]["context"]["kind"] in ("container", "container-in-vm")
    assert d["rtlat"]["context"]["engine"] == "podman"
    assert checks["context"]["detail"].startswith(d["rtlat"]["context"]["kind"])
    return r, checks, d


def test_cpuset(image):
    r, c, d = doctor("cpuset", ["--cpuset-cpus", "1"], "-c", "0")
    assert d["rtlat"]["context"]["cpuset"] == "1"
    assert c["cpuset"]["verdict"] == "prevents real-time"
    assert "CPU 0 asked for is not in the cpuset 1" in c["cpuset"]["detail"]
    assert "--cpuset-cpus" in c["cpuset"]["fix"]
    assert r.returncode == 1
    r, c, d = doctor("cpuset-1", ["--cpuset-cpus", "1"], "-c", "1")
    assert c["cpuset"]["verdict"] != "prevents real-time"


def test_quota(image):
    r, c, d = doctor("quota", ["--cpus", "0.5"])
    q = c["cpu_quota"]
    assert q["verdict"] == "will add latency"
    assert "50000 us of every 100000 us (0.50 CPUs)" in q["detail"]
    assert "--cpus" in q["fix"] and "--cpuset-cpus" in q["fix"]
    assert d["rtlat"]["context"]["quota"]["cpus"] == 0.5


def test_run_under_quota_has_throttling(image, tmp_path):
    """A busy test (bintime reads the clock without pause) under a small
    quota: its JSON has the counters before and after and their change."""
    tmp_path.chmod(0o777)
    r = sh(RUN + ["--cpus", "0.1", "-v", f"{tmp_path}:/out", image,
                  "bintime", "-D", "2", "-p", "0", "--json", "/out/b.json"])
    assert r.returncode == 0, r.stderr
    q = json.loads((tmp_path / "b.json").read_text())["rtlat"]["context"]["quota"]
    (OUT / "quota-run.json").write_text(json.dumps(q, indent=1) + "\n")
    b, a = q["throttling_before"], q["throttling_after"]
    assert (q["quota_us"], q["period_us"]) == (10000, 100000)
    assert a["nr_periods"] > b["nr_periods"]
    assert q["nr_throttled_during"] == a["nr_throttled"] - b["nr_throttled"] >= 0
    assert q["throttled_us_during"] == a["throttled_us"] - b["throttled_us"] >= 0


def test_without_sys_nice(image):
    r, c, d = doctor("default", [])
    assert c["capabilities"]["verdict"] == "prevents real-time"
    assert "no CAP_SYS_NICE" in c["capabilities"]["detail"]
    assert "--cap-add SYS_NICE" in c["capabilities"]["fix"]
    assert c["rtprio"]["verdict"] == "prevents real-time"
    assert "--cap-add IPC_LOCK" in c["limits"]["fix"]
    assert "--device /dev/cpu_dma_latency" in c["devices"]["fix"]
    assert r.returncode == 1
    # A test that needs SCHED_FIFO: one line that says so, then it runs.
    r = sh(RUN + LOCK_DMA + [image, "timer", "-T", "1", "-q"])
    assert r.returncode == 0, r.stderr
    fifo = [ln for ln in r.stderr.splitlines() if "SCHED_FIFO" in ln]
    assert len(fifo) == 1 and "CAP_SYS_NICE" in fifo[0], r.stderr
    # --strict refuses.
    r = sh(RUN + LOCK_DMA + [image, "timer", "-T", "1", "-q", "--strict"])
    assert r.returncode == 1, r.stderr
    assert any("error" in ln and "SCHED_FIFO" in ln for ln in r.stderr.splitlines()), r.stderr


def test_with_sys_nice(image, rt_budget):
    r, c, d = doctor("sys-nice", ["--cap-add", "SYS_NICE"] + rt_budget)
    assert c["capabilities"]["verdict"] == "ok"
    assert c["rtprio"]["verdict"] == "ok", c["rtprio"]
    assert c["cgroup_rt_budget"]["verdict"] == "ok"
    assert d["rtlat"]["context"]["capabilities"]["CAP_SYS_NICE"] is True
    r = sh(RUN + ["--cap-add", "SYS_NICE"] + LOCK_DMA + rt_budget +
           [image, "timer", "-T", "1", "-q", "--strict"])
    assert r.returncode == 0, r.stderr


def test_rt_budget_named_where_cgroup_v1_has_one(image):
    """Where cgroup v1 gives a new cgroup no RT budget, SYS_NICE alone is
    not enough: the doctor names the budget and podman's option."""
    if not RT_ROOT.exists():
        pytest.skip("no cgroup v1 RT budget on this host (cgroup v2, or CONFIG_RT_GROUP_SCHED off)")
    r, c, d = doctor("sys-nice-no-budget", ["--cap-add", "SYS_NICE"])
    rt = c["cgroup_rt_budget"]
    assert rt["verdict"] == "prevents real-time"
    assert "--cpu-rt-runtime" in rt["fix"]


def test_privileged(image, rt_budget):
    r, c, d = doctor("privileged", ["--privileged"] + rt_budget)
    caps = d["rtlat"]["context"]["capabilities"]
    assert caps["CAP_SYS_NICE"] and caps["CAP_IPC_LOCK"] and caps["CAP_SYS_ADMIN"]
    assert c["capabilities"]["verdict"] == "ok" and c["limits"]["verdict"] == "ok"
    assert c["devices"]["verdict"] == "ok"
    assert "/dev/cpu_dma_latency can be held" in c["devices"]["detail"]
