# SPDX-License-Identifier: GPL-2.0-or-later
"""rtlat doctor's container and guest checks on constructed roots
(RTLAT_SYSROOT: cgroup v1 and v2 trees, engine markers, DMI, cpuidle),
the "context" every result carries, and rtlat-report's warning when a
comparison mixes bare metal, containers and VMs."""
import json
import os
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest

from conftest import run

REPORT = str(Path(sys.executable).parent / "rtlat-report")
# podman's default capabilities: no SYS_NICE, IPC_LOCK or SYS_ADMIN.
PODMAN_CAPS = "00000000a80425fb"
ALL_CAPS = "000001ffffffffff"
LIMITS = """Limit                     Soft Limit           Hard Limit           Units
Max locked memory         {memlock:<20} {memlock:<20} bytes
Max realtime priority     {rtprio:<20} {rtprio:<20}
"""


def put(root, rel, text):
    p = root / rel.lstrip("/")
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_text(text)


def fake_root(root, cgroup=2, engine=None, cgpath="/", caps=ALL_CAPS,
              rtprio="0", memlock="8388608", vm=None, files=None):
    """A root as a container or a guest sees it; files: more paths."""
    put(root, "/proc/stat", "cpu  100 0 100 1000 0 0 0 20 0 0\n")
    put(root, "/proc/self/status", f"Name:\trtlat\nCapEff:\t{caps}\n")
    put(root, "/proc/self/limits", LIMITS.format(memlock=memlock, rtprio=rtprio))
    put(root, "/proc/cmdline", "console=ttyS0\n")
    put(root, "/proc/cpuinfo", "flags\t\t: fpu tsc%s\n" % (" hypervisor" if vm else ""))
    put(root, "/sys/devices/system/cpu/online", "0-3\n")
    put(root, "/sys/devices/system/clocksource/clocksource0/current_clocksource", "tsc\n")
    if vm:
        put(root, "/sys/class/dmi/id/sys_vendor", vm + "\n")
        put(root, "/sys/class/dmi/id/product_name", "Standard PC (Q35 + ICH9, 2009)\n")
    if engine == "podman":
        put(root, "/run/.containerenv", 'engine="podman-4.3.1"\n')
    elif engine == "docker":
        put(root, "/.dockerenv", "")
    if cgroup == 2:
        put(root, "/proc/self/cgroup", f"0::{cgpath}\n")
        put(root, "/sys/fs/cgroup/cgroup.controllers", "cpuset cpu io memory pids\n")
    else:
        put(root, "/proc/self/cgroup",
            f"4:cpuset:{cgpath}\n3:cpu,cpuacct:{cgpath}\n1:name=systemd:{cgpath}\n0::/\n")
    for rel, text in (files or {}).items():
        put(root, rel, text)
    return root


def doctor(root, *args):
    (root / "doctor.json").unlink(missing_ok=True)
    r = run(["doctor", "--json", str(root / "doctor.json"), *args],
            env=dict(os.environ, RTLAT_SYSROOT=str(root)))
    assert r.returncode in (0, 1), r.stderr
    checks = {c["check"]: c for c in json.loads((root / "doctor.json").read_text())["checks"]}
    return r, checks


def test_v2_podman_quota_cpuset_capabilities(tmp_path):
    """cgroup v2 under podman: a quota, a cpuset without the CPU asked
    for, podman's default capabilities: each named, with podman's option."""
    root = fake_root(tmp_path, engine="podman", caps=PODMAN_CAPS, files={
        "/sys/fs/cgroup/cpu.max": "50000 100000\n",
        "/sys/fs/cgroup/cpu.stat": "usage_usec 9\nnr_periods 40\nnr_throttled 12\nthrottled_usec 345678\n",
        "/sys/fs/cgroup/cpuset.cpus.effective": "1\n"})
    r, c = doctor(root, "-c", "0")
    assert r.returncode == 1, r.stdout + r.stderr
    assert "container (podman: /run/.containerenv)" in c["context"]["detail"]
    assert "cgroup v2" in c["context"]["detail"]
    assert c["cpuset"]["verdict"] == "prevents real-time"
    assert "CPU 0 asked for is not in the cpuset 1" in c["cpuset"]["detail"]
    assert "--cpuset-cpus" in c["cpuset"]["fix"]
    q = c["cpu_quota"]
    assert q["verdict"] == "will add latency"
    assert "50000 us of every 100000 us (0.50 CPUs)" in q["detail"]
    assert "throttled in 12 of 40 periods so far (345678 us)" in q["detail"]
    assert "--cpus" in q["fix"]
    assert c["capabilities"]["verdict"] == "prevents real-time"
    assert "--cap-add SYS_NICE" in c["capabilities"]["fix"]
    assert "no CAP_SYS_ADMIN" in c["capabilities"]["detail"]
    assert "--cap-add IPC_LOCK" in c["limits"]["fix"]
    assert c["devices"]["verdict"] == "will add latency"   # no dev/cpu_dma_latency
    assert "--device /dev/cpu_dma_latency" in c["devices"]["fix"]
    # The text form: each check's title, verdict, and its fix line.
    assert "cpuset" in r.stdout and "fix: podman run --cap-add SYS_NICE" in r.stdout


def test_v1_kubernetes_pod(tmp_path):
    """cgroup v1 in a Kubernetes pod: CFS quota with throttled_time (ns),
    an exclusive cpuset, a zero RT budget; the fixes in pod-spec terms."""
    pod = "/kubepods/besteffort/pod1234/crio-abcd"
    root = fake_root(tmp_path, cgroup=1, cgpath=pod, caps=PODMAN_CAPS, rtprio="99", files={
        f"/sys/fs/cgroup/cpuset{pod}/cpuset.effective_cpus": "1\n",
        f"/sys/fs/cgroup/cpuset{pod}/cpuset.cpus": "1\n",
        f"/sys/fs/cgroup/cpuset{pod}/cpuset.cpu_exclusive": "1\n",
        f"/sys/fs/cgroup/cpu,cpuacct{pod}/cpu.cfs_quota_us": "150000\n",
        f"/sys/fs/cgroup/cpu,cpuacct{pod}/cpu.cfs_period_us": "100000\n",
        f"/sys/fs/cgroup/cpu,cpuacct{pod}/cpu.rt_runtime_us": "0\n",
        f"/sys/fs/cgroup/cpu,cpuacct{pod}/cpu.stat": "nr_periods 5\nnr_throttled 2\nthrottled_time 7000000\n",
        "/dev/cpu_dma_latency": ""})
    r, c = doctor(root, "-c", "0")
    assert "container (kubernetes: kubepods in the cgroup path)" in c["context"]["detail"]
    assert "cgroup v1" in c["context"]["detail"]
    assert c["cpuset"]["verdict"] == "prevents real-time"
    assert "guaranteed pod" in c["cpuset"]["fix"]
    assert "throttled in 2 of 5 periods so far (7000 us)" in c["cpu_quota"]["detail"]
    assert 'cpu-quota.crio.io: "disable"' in c["cpu_quota"]["fix"]
    assert "runtimeClassName" in c["cpu_quota"]["fix"]
    # RLIMIT_RTPRIO 99 allows SCHED_FIFO without CAP_SYS_NICE.
    assert c["capabilities"]["verdict"] == "ok"
    assert "securityContext" in c["limits"]["fix"]
    assert c["devices"]["verdict"] == "ok"
    rt = c["cgroup_rt_budget"]
    assert rt["verdict"] == "prevents real-time" and "cpu.rt_runtime_us is 0" in rt["detail"]
    assert "--cpu-rt-runtime" in rt["fix"]
    r, c = doctor(root, "-c", "1")
    assert c["cpuset"]["verdict"] == "ok"
    assert "exclusive (cpuset.cpu_exclusive = 1)" in c["cpuset"]["detail"]


def test_guest_halting_and_polling(tmp_path):
    """A KVM guest seen through DMI: steal time, clocksource, idle that
    halts (the fix: idle=poll, haltpoll, halt-polling), then polls."""
    root = fake_root(tmp_path, vm="QEMU", files={
        "/sys/devices/system/cpu/cpuidle/current_driver": "none\n",
        "/sys/devices/system/clocksource/clocksource0/current_clocksource": "kvm-clock\n",
        "/dev/cpu_dma_latency": ""})
    r, c = doctor(root)
    assert "vm; hypervisor QEMU/KVM" in c["context"]["detail"]
    assert c["hypervisor"]["verdict"] == "will add latency"
    assert "DMI 'QEMU'" in c["hypervisor"]["detail"]
    # 20 steal ticks of 1220 since boot; none during the doctor's window.
    assert "1.64% since boot" in c["steal"]["detail"]
    assert "during 250 ms" in c["steal"]["detail"]
    assert "vCPU" in c["steal"]["fix"]
    assert c["guest_clocksource"]["verdict"] == "ok" and "kvm-clock" in c["guest_clocksource"]["detail"]
    idle = c["guest_idle"]
    assert idle["verdict"] == "will add latency"
    assert "idle=poll" in idle["fix"] and "halt_poll_ns" in idle["fix"]
    assert "RT" in c["guest_preemption"]["fix"] or c["guest_preemption"]["verdict"] == "ok"
    put(root, "/sys/devices/system/cpu/cpuidle/current_driver", "haltpoll\n")
    put(root, "/sys/devices/system/clocksource/clocksource0/current_clocksource", "hpet\n")
    r, c = doctor(root)
    assert c["guest_idle"]["verdict"] == "ok" and "haltpoll" in c["guest_idle"]["detail"]
    assert c["guest_clocksource"]["verdict"] == "will add latency"
    assert "invtsc" in c["guest_clocksource"]["fix"]


def test_bare_metal(tmp_path):
    """No marker, no hypervisor, no quota, every online CPU: all ok."""
    root = fake_root(tmp_path, rtprio="99", memlock="unlimited", files={
        "/sys/fs/cgroup/cpu.max": "max 100000\n",
        "/sys/fs/cgroup/cpuset.cpus.effective": "0-3\n",
        "/dev/cpu_dma_latency": "", "/sys/kernel/tracing/trace": ""})
    r, c = doctor(root, "-c", "1")
    for key in ("context", "cpuset", "cpu_quota", "capabilities", "limits", "devices",
                "steal", "guest_clocksource", "guest_idle", "guest_preemption"):
        assert c[key]["verdict"] == "ok", c[key]
    assert c["context"]["detail"].startswith("bare-metal")
    assert "cpu.max is max" in c["cpu_quota"]["detail"]


@pytest.fixture(scope="module")
def quota_result(tmp_path_factory):
    """A measuring run (cyclictest's short form) in a fake podman
    container under a quota: its JSON."""
    root = fake_root(tmp_path_factory.mktemp("root"), engine="podman", vm="QEMU", files={
        "/sys/fs/cgroup/cpu.max": "50000 100000\n",
        "/sys/fs/cgroup/cpu.stat": "nr_periods 40\nnr_throttled 12\nthrottled_usec 345678\n",
        "/sys/fs/cgroup/cpuset.cpus.effective": "1\n"})
    out = root / "cyclictest.json"
    r = run(["cyclictest", "-l", "200", "-q", "--json", str(out)],
            env=dict(os.environ, RTLAT_SYSROOT=str(root)))
    assert r.returncode == 0, r.stderr
    return json.loads(out.read_text())


def test_result_carries_context(quota_result):
    ctx = quota_result["rtlat"]["context"]
    assert ctx["kind"] == "container-in-vm"
    assert ctx["engine"] == "podman" and ctx["cgroup"] == 2 and ctx["cpuset"] == "1"
    assert ctx["hypervisor"] == "QEMU/KVM"
    q = ctx["quota"]
    assert (q["quota_us"], q["period_us"], q["cpus"]) == (50000, 100000, 0.5)
    assert q["throttling_before"] == {"nr_periods": 40, "nr_throttled": 12, "throttled_us": 345678}
    assert q["throttling_after"] == q["throttling_before"]
    assert q["nr_throttled_during"] == 0 and q["throttled_us_during"] == 0
    assert set(ctx["capabilities"]) >= {"CAP_SYS_NICE", "CAP_IPC_LOCK", "CAP_SYS_ADMIN",
                                       "rlimit_rtprio", "rlimit_memlock"}
    assert ctx["steal"]["since_boot_pct"] == pytest.approx(1.639, abs=0.001)
    assert ctx["clocksource"] == "tsc"


def test_real_result_context():
    """Without a fake root: whatever this machine is, a kind and a steal
    record (the checks' own figures are not asserted)."""
    r = run(["doctor", "--json", "-"])
    d = json.loads(r.stdout[r.stdout.index("{"):])
    assert d["rtlat"]["context"]["kind"] in ("bare-metal", "container", "vm", "container-in-vm")
    assert "steal" in d["rtlat"]["context"]


def report_md(*paths):
    return subprocess.run([REPORT, "--format", "md", "-o", "-", *map(str, paths)],
                          capture_output=True, text=True, timeout=60)


def test_report_warns_when_contexts_mix(quota_result, tmp_path):
    a, b = tmp_path / "a.json", tmp_path / "b.json"
    a.write_text(json.dumps(quota_result))
    bare = json.loads(json.dumps(quota_result))
    bare["rtlat"]["context"] = {"kind": "bare-metal", "engine": None}
    b.write_text(json.dumps(bare))
    r = report_md(a, b)
    assert r.returncode == 0, r.stderr
    assert "warning: the compared runs ran in different places" in r.stdout
    assert "container (podman, cpuset 1, quota 0.50 CPUs) in a VM (QEMU/KVM)" in r.stdout
    assert "bare metal" in r.stdout


def test_no_warning_when_alike_or_unrecorded(quota_result):
    """The same place twice, or a run that recorded none (rt-tests, an
    older rtlat): no warning."""
    from rtlat_report.judge.where import context_warnings
    from rtlat_report.read.rtlat import context_of
    ctx = quota_result["rtlat"]["context"]

    def member(label, c):
        """A compared run whose file's context is c, as the reader reads
        it."""
        return (0, SimpleNamespace(label=label),
                SimpleNamespace(context=context_of(c)))
    assert context_warnings([("timer", [member("a", ctx), member("b", dict(ctx))])]) == []
    assert context_warnings([("timer", [member("a", ctx), member("b", {})])]) == []
    vm = dict(ctx, kind="vm")
    assert context_warnings([("timer", [member("a", ctx), member("b", vm)])]) == [
        "timer: the runs ran in different places: a: container (podman, cpuset 1, "
        "quota 0.50 CPUs) in a VM (QEMU/KVM); b: VM (QEMU/KVM)"]


def test_baseline_from_another_place_is_said(quota_result, tmp_path):
    """--baseline that ran in a container, judged here: one warning line,
    the run judged as before."""
    base = json.loads(json.dumps(quota_result))
    base["rtlat"]["context"] = {"kind": "container", "engine": "other-engine"}
    (tmp_path / "base.json").write_text(json.dumps(base))
    r = run(["cyclictest", "-l", "100", "-q", "--baseline", str(tmp_path / "base.json")])
    assert r.returncode in (0, 3), r.stderr
    said = [ln for ln in r.stderr.splitlines() if "--baseline ran in another place" in ln]
    assert len(said) == 1 and "container (other-engine), this run " in said[0], r.stderr


def test_kubernetes_job_manifest():
    """packaging/k8s/rtlat-job.yaml: a Job whose pod is guaranteed QoS
    with whole CPUs, with a performance profile's annotations and runtime
    class, and rtlat options that exist (kubectl and kubeconform need a
    server or schemas from the network: the structure is checked here)."""
    import yaml
    job = yaml.safe_load((Path(__file__).resolve().parent.parent /
                          "packaging" / "k8s" / "rtlat-job.yaml").read_text())
    assert (job["apiVersion"], job["kind"]) == ("batch/v1", "Job")
    assert job["spec"]["backoffLimit"] == 0
    pod = job["spec"]["template"]
    ann = pod["metadata"]["annotations"]
    for key in ("cpu-load-balancing.crio.io", "cpu-quota.crio.io", "irq-load-balancing.crio.io"):
        assert ann[key] == "disable"
    spec = pod["spec"]
    assert spec["runtimeClassName"].startswith("performance-")
    assert spec["restartPolicy"] == "Never"
    containers = spec["initContainers"] + spec["containers"]
    assert [c["args"][0] for c in containers] == ["doctor", "suite"]
    for c in containers:
        res = c["resources"]
        assert res["requests"] == res["limits"]          # guaranteed QoS
        cpu = str(res["limits"]["cpu"])
        assert cpu.isdigit() and int(cpu) >= 1           # whole CPUs
        assert {"SYS_NICE", "IPC_LOCK"} <= set(c["securityContext"]["capabilities"]["add"])
        assert [m["mountPath"] for m in c["volumeMounts"]] == ["/out"]
        helptext = run([c["args"][0], "--help"]).stdout
        for a in c["args"][1:]:
            if a.startswith("--"):
                assert f"{a} " in helptext, f"{c['name']}: {a} is not an option of rtlat {c['args'][0]}"


def test_kubernetes_job_suite_judges_no_series_by_design(tmp_path):
    """The Job's suite command line, as the manifest gives it (read with a
    YAML parser), run for 1 s a test: its --max-latency judges only the
    wake-up and hand-off latencies (the pair tests' and the timer's), never
    a series whose time is long by design (response's 10 ms blocks of
    work, sync's inversion blocking, request's server sleep, bintime's
    loop at a low priority). What is asserted is which limit each series
    got, never a latency: an unloaded run of the Job must not fail by its
    configuration."""
    import yaml
    job = yaml.safe_load((Path(__file__).resolve().parent.parent /
                          "packaging" / "k8s" / "rtlat-job.yaml").read_text())
    (suite,) = job["spec"]["template"]["spec"]["containers"]
    args = list(suite["args"])
    assert args[0] == "suite"
    args[args.index("--duration") + 1] = "1"
    args = [a.replace("/out", str(tmp_path)) for a in args]
    r = run(args, timeout=120)
    assert r.returncode in (0, 3), r.stderr
    index = json.loads((tmp_path / "suite" / "index.json").read_text())
    family = {t["name"]: t["family"]
              for t in json.loads((tmp_path / "suite" / "registry.json").read_text())["tests"]}
    judged = {(s["test"], s["series"]): s["max_latency_us"] for s in index["fleet"]["series"]}
    assert set(judged) >= {("response", "time"), ("sync", "blocking"), ("request", "response")}
    for (test, series), us in judged.items():
        latency = family[test] in ("pair", "timer")
        assert (us is not None) == latency, f"{test}/{series}: --max-latency {us}"
    for line in r.stderr.splitlines():
        if ": FAIL: " in line:
            assert family[line.split()[2].split("/")[0]] in ("pair", "timer"), line
