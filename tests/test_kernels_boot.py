# SPDX-License-Identifier: GPL-2.0-or-later
"""The RT kernel stage's own ends, with a fake QEMU (no kernel booted):
a hung guest dumped and booted again, a starved one told from a hung one
(tests/kernels/boot, run, starved). Apart from tests/kernels/test_kernels.py,
which waits for make check's real stage: these do not, and run in the
report group, off the measuring group's critical path."""
import os
import time

import pytest

from conftest import ROOT


# A stand-in for qemu-system-x86_64 (tests/kernels/boot's command line):
# boots listed in FAKE_QEMU_HANG (1 for the first, ...) hang: the guest
# writes nothing and only the monitor answers (sysrq keys on the console,
# registers); the others "run" the command: exit, times, info.out.
FAKE_QEMU = r'''#!/usr/bin/env python3
import os, sys, time
a = sys.argv
opt = lambda name: [a[i + 1] for i in range(len(a) - 1) if a[i] == name]
out = next(v.split("path=")[1].split(",")[0] for v in opt("-virtfs") if "rtlatout" in v)
console = opt("-serial")[0][len("file:"):]
mon = next(v.split("path=")[1].split(",")[0] for v in opt("-chardev") if "id=mon" in v)
state = os.environ["FAKE_QEMU_STATE"]
n = len(open(state).read()) + 1 if os.path.exists(state) else 1
open(state, "a").write("x")
con = open(console, "w", buffering=1)
con.write("[    0.000000] Linux version 6.1.0-fake\n")
stuck = os.environ.get("FAKE_QEMU_STUCK")
if stuck:
    # A guest whose second check never ends, its watchdog's HUNG line
    # written after FAKE_QEMU_STUCK_S: busy (always ready to run, on CPU
    # 0 at nice 19 beside the test's hog: starved) or idle (blocked);
    # busy-silent writes nothing more, until boot's STALL_S ends it.
    open(os.path.join(out, "times"), "w").write("info 0 1.0\n")
    open(state + ".pid", "w").write("%d\n" % os.getpid())
    end = time.monotonic() + float(os.environ["FAKE_QEMU_STUCK_S"])
    if stuck == "idle-thread":
        # A thread that takes 0.3 s of CPU and ends (QEMU's come and go:
        # its 9p workers; all but one end as it exits), at least 2 s
        # before the guest's HUNG line and power-off.
        import threading
        def work():
            while time.thread_time() < 0.3:
                pass
            time.sleep(1.5)
        t = threading.Thread(target=work)
        t.start()
        t.join()
        end = max(end, time.monotonic() + 2)
    if stuck.startswith("busy"):
        os.sched_setaffinity(0, {0})
        os.nice(19)
        while stuck == "busy-silent" or time.monotonic() < end:
            pass
    else:
        time.sleep(end - time.monotonic())
    open(os.path.join(out, "times"), "a").write("timer1 HUNG 5\n")
    sys.exit(0)
if str(n) not in os.environ.get("FAKE_QEMU_HANG", "").split(","):
    open(os.path.join(out, "times"), "w").write("info 0 1.0\n")
    open(os.path.join(out, "exit"), "w").write("0\n")
    sys.exit(0)
fin = os.open(mon + ".in", os.O_RDWR)
fout = os.open(mon + ".out", os.O_RDWR)
os.write(fout, b"QEMU fake monitor\n")
buf = b""
while True:
    buf += os.read(fin, 4096)
    while b"\n" in buf:
        line, buf = buf.split(b"\n", 1)
        cmd = line.decode()
        os.write(fout, b"(qemu) " + line + b"\n")
        if cmd.startswith("sendkey alt-sysrq-"):
            con.write("[  100.000000] sysrq: key %s\n" % cmd[-1])
        elif cmd == "info registers -a":
            os.write(fout, b"CPU#0\nRIP=ffffffff81a5abf0 RFL=00000002\nCPU#1\nRIP=ffffffff81a46ffe RFL=00000006\n")
        elif cmd.startswith("x/"):
            os.write(fout, b"ffa00000006db860: 0xffffffff81a50ee3 0x0000000000000000\n")
'''


@pytest.fixture
def fake_qemu(tmp_path, monkeypatch):
    bin_ = tmp_path / "bin"
    bin_.mkdir()
    q = bin_ / "qemu-system-x86_64"
    q.write_text(FAKE_QEMU)
    q.chmod(0o755)
    monkeypatch.setenv("PATH", f"{bin_}:{os.environ['PATH']}")
    monkeypatch.setenv("FAKE_QEMU_STATE", str(tmp_path / "boots"))
    monkeypatch.setenv("TMPDIR", str(tmp_path))
    monkeypatch.setenv("DUMP_S", "0.1")
    monkeypatch.setenv("STALL_S", "3")
    (tmp_path / "vmlinuz-fake").write_bytes(b"\0" * 16)
    (tmp_path / "lib" / "modules" / "6.1.0-fake").mkdir(parents=True)
    return tmp_path


def leftovers(tmp):
    """What a boot may leave: its temp directory, a QEMU or a reader."""
    import subprocess
    ps = subprocess.run(["pgrep", "-f", str(tmp)], capture_output=True, text=True).stdout
    return [p.name for p in tmp.glob("rtlat-boot.*")] + ps.split()


def test_a_hung_guest_says_why_before_the_stage_gives_up(fake_qemu, monkeypatch):
    """A guest that writes nothing for STALL_S seconds is hung: boot asks
    QEMU's monitor for sysrq w, l and t (on the console file) and every
    vCPU's registers and stack (hang.monitor), names the RIPs in one line,
    exits 1 long before TIMEOUT and leaves nothing running or behind."""
    import subprocess
    tmp = fake_qemu
    monkeypatch.setenv("FAKE_QEMU_HANG", "1")
    out = tmp / "out"
    out.mkdir()
    t0 = time.monotonic()
    r = subprocess.run([str(ROOT / "tests/kernels/boot"), str(tmp / "vmlinuz-fake"),
                        str(tmp / "lib/modules/6.1.0-fake"), str(out), "120", "true"],
                       cwd=ROOT, capture_output=True, text=True, timeout=110)
    assert time.monotonic() - t0 < 60
    assert r.returncode == 1 and r.stdout == ""
    assert r.stderr.count("\n") == 1, r.stderr
    assert "hung" in r.stderr and "ffffffff81a5abf0 ffffffff81a46ffe" in r.stderr, r.stderr
    console = (out / "console.log").read_text()
    assert [f"sysrq: key {k}" in console for k in "wlt"] == [True] * 3, console
    mon = (out / "hang.monitor").read_text()
    assert "RIP=ffffffff81a5abf0" in mon and "0xffffffff81a50ee3" in mon, mon
    assert "(qemu) " not in mon
    assert leftovers(tmp) == []


def test_a_hung_boot_retried_is_said_and_counted(fake_qemu, monkeypatch):
    """tests/kernels/run boots a hung guest once more: a line on stderr,
    NAME/retries (which test_booted_the_kernel_... reports), the hung
    boot's console and dump kept in NAME/hang-1/; a second hang fails.
    The three cases run at once, each with its own results and boot count
    (each waits STALL_S for its hangs)."""
    import subprocess
    tmp = fake_qemu
    env = dict(os.environ, KERNEL=str(tmp / "vmlinuz-fake"),
               MODULES=str(tmp / "lib/modules/6.1.0-fake"))
    cases = (("1", 0, "1"), ("1,2", 1, "1"), ("", 0, "0"))
    procs = [subprocess.Popen([str(ROOT / "tests/kernels/run")], cwd=ROOT, text=True,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                              env=dict(env, FAKE_QEMU_HANG=hang,
                                       FAKE_QEMU_STATE=str(tmp / f"boots{i}"),
                                       RTLAT_KERNELS_OUT=str(tmp / f"res{i}")))
             for i, (hang, _, _) in enumerate(cases)]
    try:
        outs = [p.communicate(timeout=200) for p in procs]
    finally:
        for p in procs:
            if p.poll() is None:
                p.kill()
                p.wait()
    for i, ((hang, rc, retries), p, (out, err)) in enumerate(zip(cases, procs, outs)):
        assert p.returncode == rc, err
        d = tmp / f"res{i}" / "custom"
        assert (d / "retries").read_text().strip() == retries
        said = [l for l in err.splitlines() if "booting it again" in l]
        assert len(said) == int(retries), err
        if retries == "1":
            assert "retry 1 of 1" in said[0] and str(d / "hang-1") in said[0]
            assert "sysrq: key t" in (d / "hang-1" / "console.log").read_text()
            assert "RIP=" in (d / "hang-1" / "hang.monitor").read_text()
            assert "after 1 hung boot" in out, out
        if rc == 0:
            assert (d / "exit").read_text() == "0\n" and not (d / "hang.monitor").exists()
    assert leftovers(tmp) == []


def test_a_starved_guest_is_said_and_not_judged_a_hung_one_is(fake_qemu):
    """A loaded host can starve the guest (QEMU at nice 19 got 1.5 % of a
    CPU beside two busy loops: its first check ran past CHECK_S, or the
    boot wrote nothing for STALL_S). That is not a kernel's hang:
    tests/kernels/run says it was starved, with QEMU's ready and run
    seconds, writes NAME/starved (which skips the kernel's tests with that
    line), does not boot it again and exits 0; boot, stalled, dumps
    nothing and says why. A guest stuck idle is still hung: exit 1, said.
    Real starvation: the busy fakes and a nice-0 busy loop share CPU 0."""
    import subprocess
    tmp = fake_qemu
    env = dict(os.environ, KERNEL=str(tmp / "vmlinuz-fake"), CHECK_S="5", STALL_S="60",
               FAKE_QEMU_STUCK_S="6", MODULES=str(tmp / "lib/modules/6.1.0-fake"))
    kinds = {"busy": {}, "busy-silent": {"STALL_S": "6"}, "idle": {}}
    hog = subprocess.Popen(["taskset", "-c", "0", "sh", "-c", "while :; do :; done"])
    procs = {}
    try:
        for k, more in kinds.items():
            procs[k] = subprocess.Popen(
                [str(ROOT / "tests/kernels/run")], cwd=ROOT, text=True,
                stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                env=dict(env, FAKE_QEMU_STUCK=k, FAKE_QEMU_STATE=str(tmp / f"boots-{k}"),
                         RTLAT_KERNELS_OUT=str(tmp / f"res-{k}"), **more))
        outs = {k: p.communicate(timeout=120) for k, p in procs.items()}
    finally:
        hog.kill()
        hog.wait()
        for p in procs.values():
            if p.poll() is None:
                p.kill()
                p.wait()
    for k in ("busy", "busy-silent"):
        d, (out, err) = tmp / f"res-{k}" / "custom", outs[k]
        assert procs[k].returncode == 0, err
        # one verdict for the stall: starved, never HUNG as well
        assert "HUNG" not in out + err and "did not run the command" not in err, out + err
        assert ("timer1 starved, not judged, after 5 s" in out) == (k == "busy"), out
        said = (d / "starved").read_text()
        assert said.startswith("the custom guest was starved by the host, not hung: "
                               "QEMU was ready to run "), said
        assert said.count("\n") == 1 and said.strip() in err, err
        assert "booting it again" not in err and (d / "retries").read_text() == "0\n"
        assert "a check hung" not in err and not (d / "hang.monitor").exists()
    err = outs["busy-silent"][1]
    assert "no change in the guest's output for 6 s" in err and "the host starved it: " in err
    assert [(tmp / f"res-{k}" / "custom" / "starved.boot").exists()
            for k in ("busy", "busy-silent", "idle")] == [False, True, False]
    d, (out, err) = tmp / "res-idle" / "custom", outs["idle"]
    assert procs["idle"].returncode == 1, err
    assert not (d / "starved").exists() and "a check hung" in err
    assert "timer1 HUNG after 5 s" in out and "starved by the host" not in out + err, out + err
    assert len((d / "qemu.cpu").read_text().splitlines()) >= 5
    assert leftovers(tmp) == []


def test_qemu_cpu_time_is_the_process_s_never_less(fake_qemu, monkeypatch):
    """boot's record (qemu.cpu: SECOND READY TICKS PID) holds the CPU time
    of QEMU's process, which only grows: the sum over its live threads
    lost what a thread that ended had taken, and the stage said "ran
    -9.19 s" of a guest. Each line names the one QEMU it read."""
    import subprocess
    tmp = fake_qemu
    monkeypatch.setenv("FAKE_QEMU_STUCK", "idle-thread")
    monkeypatch.setenv("FAKE_QEMU_STUCK_S", "3")
    monkeypatch.setenv("STALL_S", "60")
    out = tmp / "out"
    out.mkdir()
    r = subprocess.run([str(ROOT / "tests/kernels/boot"), str(tmp / "vmlinuz-fake"),
                        str(tmp / "lib/modules/6.1.0-fake"), str(out), "120", "true"],
                       cwd=ROOT, capture_output=True, text=True, timeout=110)
    assert r.returncode == 1 and "did not run the command" in r.stderr, r.stderr
    rows = [ln.split() for ln in (out / "qemu.cpu").read_text().splitlines()]
    assert len(rows) >= 3, rows
    ticks = [int(row[2]) for row in rows]
    assert ticks == sorted(ticks) and ticks[-1] >= 30 * os.sysconf("SC_CLK_TCK") // 100, rows
    pid = (tmp / "boots.pid").read_text().split()[0]
    assert {row[3] for row in rows} == {pid}, rows
    assert leftovers(tmp) == []


def test_starved_reads_one_qemu_only(tmp_path):
    """tests/kernels/starved over a record that holds two QEMUs (a boot
    and the one after it, or one restarted) judges the last one alone:
    another process's CPU time is never subtracted from its own."""
    import subprocess
    hz = os.sysconf("SC_CLK_TCK")
    rec = tmp_path / "qemu.cpu"
    # QEMU 100 ran 20 s, then QEMU 200 was ready 6 s and ran 0.5 s:
    # starved, ran 0.50 s (not 0.5 - 20).
    lines = [f"{t} 1 {t * hz} 100" for t in range(1, 21)]
    lines += [f"{t} 1 {(t - 20) * hz // 10} 200" for t in range(21, 27)]
    rec.write_text("\n".join(lines) + "\n")
    r = subprocess.run([str(ROOT / "tests/kernels/starved"), str(rec), "10"],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "ready to run 6 s of the last 6 s but ran 0.50 s" in r.stdout, r.stdout
    # QEMU 200 alone for 4 s: too few samples to tell
    rec.write_text("\n".join(lines[:-2]) + "\n")
    r = subprocess.run([str(ROOT / "tests/kernels/starved"), str(rec), "10"],
                       capture_output=True, text=True)
    assert r.returncode == 1 and r.stdout == "", r.stdout
