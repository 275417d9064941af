# SPDX-License-Identifier: GPL-2.0-or-later
"""rtlat on real kernels (issue 23): what tests/kernels/run collected from
Debian's PREEMPT_RT and stock 6.1 kernels booted under QEMU (guest.sh),
judged here on the host. Under emulation latency values mean nothing:
behaviour, formats, causes, counts and what is left behind."""
import json
import os
import re
import shutil
import time
import warnings

import pytest

from conftest import ROOT, registry_names

RES = ROOT / "build" / "kernels"
# The checks each kernel ran (tests/kernels/run): name -> exit status.
EXPECTED = {"info": 0, "timer1": 0, "timer2": 0, "badinput": 2, "rtla": 0, "doctor": 0,
            "explain": 0, "explainirq": 0, "pairs": 0, "request": 0, "bintime": 0, "sync": 0,
            "suite": 0, "timer0": 0, "deadline": 0,
            "hwlat": 0, "osnoise": 0,     # without their tracers: skipped, 0 too
            # -t 3 needs timerlat_fd (6.5+): Debian 12's 6.1 refuses it
            "timerlatu": 2}
# A kernel without the timerlat tracer: -t 1|2 refused, rtla cannot run.
NO_TIMERLAT = {"timer1": 2, "timer2": 2, "rtla": 1}


@pytest.fixture(scope="module", autouse=True)
def stage_done():
    """make check runs the kernel stage beside the other tests
    (RTLAT_KERNELS_BACKGROUND=1): wait for it to finish first."""
    if os.environ.get("RTLAT_KERNELS_BACKGROUND"):
        for _ in range(1800):
            if (RES / "done").exists():
                break
            time.sleep(0.5)


def results(name):
    if (RES / "skipped").exists():
        pytest.skip((RES / "skipped").read_text().strip())
    d = RES / name
    if (d / "starved").exists():
        pytest.skip((d / "starved").read_text().strip())
    if not (d / "times").exists():
        pytest.skip(f"no results of the {name} kernel (make check-kernels)")
    return d


def times(d):
    """{check: (exit status, seconds)} from the guest's times file."""
    out = {}
    for line in (d / "times").read_text().splitlines():
        name, rc, secs = line.split()
        if rc == "HUNG":
            pytest.fail(f"{name} hung in the guest (> {secs} s); the kernel's "
                        f"blocked tasks: {d / (name + '.hung')}")
        out[name] = (int(rc), float(secs))
    return out


def has_timerlat(d):
    return "timerlat" in (d / "info.out").read_text().splitlines()[3].split()


def jload(d, name):
    return json.loads((d / name).read_text())


def is_rt(d):
    return (d / "info.out").read_text().splitlines()[2] == "1"


# custom: KERNEL=... MODULES=... tests/kernels/run (a kernel of one's own).
@pytest.fixture(params=["rt", "stock", "custom"])
def kernel(request):
    return request.param, results(request.param)


def test_booted_the_kernel_and_every_check_ended_as_expected(kernel):
    name, d = kernel
    # A guest that hung was booted again (tests/kernels/run): said here too.
    retries = int((d / "retries").read_text()) if (d / "retries").exists() else 0
    if retries:
        warnings.warn(f"the {name} guest hung and was booted again ({retries} time(s)); "
                      f"its console, task dump and registers: {d}/hang-*/")
    assert (d / "exit").read_text().strip() == "0"
    release, version, realtime = (d / "info.out").read_text().splitlines()[:3]
    if name != "custom":
        assert release.startswith("6.1.")
        assert realtime == ("1" if name == "rt" else "none")
    assert ("PREEMPT_RT" in version.split()) == is_rt(d)
    want = dict(EXPECTED)
    if not has_timerlat(d):
        assert name != "rt"         # Debian's stock 6.1 lacks the tracer
        want.update(NO_TIMERLAT)
    if (d / "timerlatu.json").exists():     # a custom kernel with timerlat_fd
        want["timerlatu"] = 0
    got = times(d)
    for check, (rc, _) in got.items():
        assert rc == want[check], (check, (d / f"{check}.err").read_text())
    assert {"info", "timer1", "doctor", "explain", "suite"} <= set(got)


def test_nothing_left_behind_after_any_check(kernel):
    """As on the host: no message queue, semaphore, rtlat shm object,
    tracefs instance, rtlat process or temp file after each check."""
    _, d = kernel
    for check in times(d):
        assert (d / f"{check}.leaks").read_text() == "", check


RTD = re.compile(r"RTD\|( +-?\d+\.\d{3}\|){2} +-?\d+\.\d{3}\| +\d+\| +\d+\|( +-?\d+\.\d{3}\|) +-?\d+\.\d{3}")
RTS = re.compile(r"RTS\|( +-?\d+\.\d{3}\|){3} +\d+\| +\d+\| +\d\d:\d\d:\d\d/\d\d:\d\d:\d\d")


def shape(line):
    """A line with its figures taken out: what -t 0 and -t 1|2 share."""
    return re.sub(r"-?\d+(\.\d+)?", "N", line)


def test_timerlat_modes_as_the_user_mode(kernel):
    """-t 1 and -t 2 on the real tracer: a sample each period (no
    overruns in the kernel's own timer), the lines and the JSON of -t 0;
    without the tracer, exit 2 with one line."""
    name, d = kernel
    if not has_timerlat(d):
        for t in ("timer1", "timer2"):
            assert (d / f"{t}.out").read_text() == ""
            err = (d / f"{t}.err").read_text()
            assert err.count("\n") == 1 and "CONFIG_TIMERLAT_TRACER" in err
            assert "accepted: 0" in err
        return
    ref = jload(d, "timer0.json") if (d / "timer0.json").exists() else None
    for t, mode in (("timer1", "in-kernel periodic task"), ("timer2", "in-kernel timer handler")):
        out = (d / f"{t}.out").read_text().splitlines()
        assert f"== Test mode: {mode}" in out
        assert any(RTD.fullmatch(l) for l in out), out
        assert RTS.fullmatch(out[-1]), out[-1]
        js = jload(d, f"{t}.json")
        s = js["summary"]
        assert js["return_code"] == 0 and s["actual_s"] == s["requested_s"]
        per_s = js["latency"]["samples"] / s["actual_s"]
        # 1000 us period: 1000 a second, less the overruns and the samples
        # the trace lost (both said: the JSON's summary has them).
        assert s["lost_samples"] >= 0
        assert 900 <= per_s + (s["overruns"] + s["lost_samples"]) / s["actual_s"] <= 1010, s
        h = js["latency"]["histogram"]
        assert sum(c for _, c in h["counts"]) + h["overflow"] + h["underflow"] \
            == js["latency"]["samples"]
        if ref:
            assert set(js) == set(ref)
            t0 = (d / "timer0.out").read_text().splitlines()
            assert [shape(l) for l in out if l[:4] in ("RTH|", "---|")] == \
                   [shape(l) for l in t0 if l[:4] in ("RTH|", "---|")]


def test_bad_input_after_mounting_tracefs(kernel):
    """tracefs not mounted: rtlat mounts it to look for the tracer, and
    the refusal that follows (-c with two CPUs for -t 2 where the tracer
    is, -t where it is not) unmounts it again and is one line."""
    _, d = kernel
    err = (d / "badinput.err").read_text()
    assert (d / "badinput.out").read_text() == ""    # tracefs not left mounted
    assert err.count("\n") == 1 and "mounted" not in err, err
    opt = "-c" if has_timerlat(d) else "-t"
    assert err.startswith(f"rtlat timer: option {opt}"), err


def rtla_hist(text):
    """rtla timerlat hist's summary: {"irq"|"thr": {count,min,avg,max}}."""
    cols, out = None, {}
    for line in text.splitlines():
        f = line.split()
        if f and f[0] == "Index":
            cols = [c.split("-")[0].lower() for c in f[1:]]
        elif f and f[0] in ("count:", "min:", "avg:", "max:") and cols:
            for c, v in zip(cols, f[1:]):
                out.setdefault(c, {})[f[0][:-1]] = int(v)
    return out


def test_rtlat_beside_rtla_on_the_same_kernel():
    """The same tracer, CPU, period and duration: as many samples per CPU
    within a few, IRQ latency <= thread latency in both, and rtlat's JSON
    carries what rtla's histogram shows (count, min, avg, max)."""
    d = results("rt")
    r = rtla_hist((d / "rtla.out").read_text())
    assert set(r) == {"irq", "thr"}, r
    t1, t2 = jload(d, "timer1.json")["latency"], jload(d, "timer2.json")["latency"]
    table = ["            samples      min      avg      max (us)"]
    for who, irq, thr in (("rtla", r["irq"], r["thr"]),):
        assert irq["min"] <= thr["min"] and irq["avg"] <= thr["avg"] and irq["max"] <= thr["max"]
        for k, v in (("irq", irq), ("thread", thr)):
            table.append(f"{who} {k:7}{v['count']:8}{v['min']:9}{v['avg']:9}{v['max']:9}")
    for k, v in (("irq", t2), ("thread", t1)):
        assert {"samples", "min_ns", "avg_ns", "max_ns", "histogram"} <= set(v)
        table.append(f"rtlat {k:7}{v['samples']:7}{v['min_ns'] / 1e3:9.0f}"
                     f"{v['avg_ns'] / 1e3:9.0f}{v['max_ns'] / 1e3:9.0f}")
    # rtlat measures the IRQ (-t 2) and thread (-t 1) latencies in two
    # separate runs: on a noisy emulated guest their figures do not compare
    # (an IRQ average of 176 us against a thread average of 111 us was seen),
    # so each run is only checked to be a consistent distribution.
    for v in (t1, t2):
        assert 0 <= v["min_ns"] <= v["avg_ns"] <= v["max_ns"], v
    # Separate runs of 3 s at 1000 us: both lose the activations a late
    # thread missed (timerlat skips them), as many as the emulated guest's
    # load of the moment makes (1-50 %); rtlat counts them as overruns
    # where their periods are (a skip before the warm-up's end or after
    # -T's is not the run's), and the samples the trace lost apart, so its
    # samples, overruns and lost samples account for every period, within
    # a few. (rtlat once counted 1439 overruns beside 2246 samples in 3000
    # periods, from the trace's stamps, and later 1601 beside 1809: a wake-up
    # 953 ms late near the end counted its skips past the run's end.)
    for k, js, theirs in (("thread", jload(d, "timer1.json"), r["thr"]),
                          ("irq", jload(d, "timer2.json"), r["irq"])):
        s = js["summary"]
        periods = s["actual_s"] * 1000
        accounted = js["latency"]["samples"] + s["overruns"] + s["lost_samples"]
        assert abs(accounted - periods) <= 10 + periods // 100, s
        # rtla counts samples only: as many as the guest's load of the
        # moment left (2684 of 3000 seen beside make check's tests), never
        # more than the periods.
        assert 0 < theirs["count"] <= periods + 10, theirs
        table.append(f"rtlat {k} overruns {s['overruns']}")
    (RES / "rtla-vs-rtlat.txt").write_text("\n".join(table) + "\n")


def test_doctor_on_both_kernels(kernel):
    name, d = kernel
    js = jload(d, "doctor.json")
    pre = next(c for c in js["checks"] if c["check"] == "preemption")
    if is_rt(d):
        assert pre["verdict"] == "ok" and pre["detail"] == "PREEMPT_RT"
        assert js["system"]["sys_kernel_realtime"] == "1"
        assert js["system"]["preempt_model"] == "PREEMPT_RT"
    else:
        # What PREEMPT_RT would change, and that it is the fix.
        assert pre["verdict"] == "will add latency"
        assert "not preemptible" in pre["detail"] and "PREEMPT_RT" in pre["fix"]
        assert js["system"]["sys_kernel_realtime"] is None



def test_doctor_knows_it_is_a_guest(kernel):
    """The QEMU guest is a VM: the doctor says so (hypervisor from CPUID
    or DMI), with steal time during its window and since boot, the
    clocksource, whether idle polls, and the host owner's fixes."""
    _, d = kernel
    js = jload(d, "doctor.json")
    ctx = js["rtlat"]["context"]
    assert ctx["kind"] == "vm" and ctx["engine"] is None
    assert ctx["hypervisor"] and ctx["hypervisor_evidence"]
    assert ctx["clocksource"] and ctx["steal"]["since_boot_pct"] is not None
    checks = {c["check"]: c for c in js["checks"]}
    assert checks["context"]["detail"].startswith("vm; hypervisor " + ctx["hypervisor"])
    assert checks["hypervisor"]["verdict"] == "will add latency"
    steal = checks["steal"]
    assert "during 250 ms" in steal["detail"] and "since boot" in steal["detail"]
    assert ctx["clocksource"] in checks["guest_clocksource"]["detail"]
    idle = checks["guest_idle"]
    if ctx["idle_poll"]:
        assert idle["verdict"] == "ok"
    else:
        assert "idle=poll" in idle["fix"] and "halt_poll_ns" in idle["fix"]
    text = (d / "doctor.out").read_text()
    for title in ("where it runs", "steal time (VM)", "guest clocksource", "guest idle (polling)"):
        assert title in text


def test_every_result_follows_the_schema(kernel):
    """What a real kernel's guest wrote (PREEMPT_RT's /sys/kernel/realtime,
    its doctor, every check's and the suite's JSON) follows rtlat's JSON
    Schema, as on this machine."""
    import jsonschema
    schema = json.loads((ROOT / "schema" / "rtlat.schema.json").read_text())
    v = jsonschema.Draft202012Validator(
        schema, format_checker=jsonschema.Draft202012Validator.FORMAT_CHECKER)
    _, d = kernel
    files = [f for f in sorted(d.rglob("*.json"))
             if f.name not in ("registry.json", "index.json")]
    assert files
    for f in files:
        try:
            js = json.loads(f.read_text())
        except ValueError:
            continue        # a check that wrote no JSON on purpose (badinput)
        if not isinstance(js, dict) or "rtlat" not in js:
            continue        # rtla's, not rtlat's
        errs = [f"{'.'.join(map(str, e.absolute_path))}: {e.message}"
                for e in v.iter_errors(js)]
        assert not errs, (f, errs[:5])


def explained_kinds(x, cpu):
    """{kind: {cause}} over the worst spikes' causes and every logged
    spike's main cause; each spike's causes add up to its latency."""
    assert x["cpu"] == cpu and x["events"] > 0 and x["explained"] >= 3
    causes = [c for s in x["spikes"] for c in s["causes"]] + \
             [{"cause": s["cause"], "kind": s["kind"]} for s in x["log"]]
    for s in x["spikes"]:
        assert sum(c["ns"] for c in s["causes"]) == s["latency_ns"]
    kinds = {}
    for c in causes:
        kinds.setdefault(c["kind"], set()).add(c["cause"])
    # ktimers, ksoftirqd and irq/N- threads are tasks on PREEMPT_RT, never
    # interrupt or softirq time; a threaded interrupt's hard part is its
    # primary handler only.
    for kind in ("irq", "softirq"):
        for c in kinds.get(kind, ()):
            assert not re.search(r"ktimers|ksoftirqd|irq/\d+-", c), c
    for c in kinds.get("irq", ()):
        assert re.fullmatch(r"irq vector \w+|irq \d+ \S+", c), c
    return kinds


def test_explain_names_the_hog_as_a_task():
    """A SCHED_FIFO 60 hog on the measuring CPU (sampler FIFO 40), busy
    50 ms every 150 ms, spikes over 25 ms explained (guest.sh c_explain):
    named as a task whenever it ran while rtlat measured, whatever the
    host's load (its own count of bursts before and after the run)."""
    d = results("rt")
    lines = (d / "hog.pid").read_text().splitlines()
    hog = lines[0].split()[0]
    bursts = [int(l.split()[1]) for l in lines if l.startswith("bursts ")]
    assert len(bursts) == 2, f"the hog did not answer SIGUSR1 twice: {lines}"
    if bursts[1] == bursts[0]:
        pytest.fail("the hog ran no burst while rtlat measured: the emulated "
                    "guest got no CPU time in that window (the host's load)")
    x = jload(d, "explain.json")["explain"]
    kinds = explained_kinds(x, 1)
    assert any(f"[{hog}] FIFO/RR 60" in c for c in kinds.get("task", ())), kinds
    # --trace-out: each explained spike's window saved as text, the hog
    # switched on or off the measuring CPU in one of them (issue 47)
    windows = sorted((d / "windows").glob("rtlat-spike-*.txt"))
    assert len(windows) == x["explained"], windows
    assert any(re.search(rf"(prev|next)_pid={hog}\b", w.read_text())
               for w in windows), windows
    # the stack behind it (issue 47): the hog's own as it let the CPU go,
    # from the stacktrace trigger on sched_switch, named from kallsyms;
    # the windows hold the stacks as the trace shows them
    assert x["stack_unavailable"] is None, x["stack_unavailable"]
    mine = [s for s in x["spikes"] if (s["stack_of"] or "").endswith(f"[{hog}]")]
    assert mine, [(s["stack_of"], s["causes"][0]["cause"]) for s in x["spikes"]]
    assert any(f.endswith("schedule") for f in mine[0]["stack"]), mine[0]["stack"]
    assert any(re.search(r"CPU 1: <stack trace>\n => \w", w.read_text())
               for w in windows), windows


def test_explain_names_threaded_handlers_as_tasks():
    """The virtio interrupts on the measuring CPU (0) under a read load
    (sampler FIFO 40, below the handler threads): irq/N-... named as tasks,
    as the task that delayed the sampler or the one that ran while the
    timer interrupt came late (a thread either way, not hard-IRQ time)."""
    d = results("rt")
    if "explainirq" not in times(d):
        pytest.skip("the interrupt-load check runs in make check-kernels, "
                    "not in make check's quick stage")
    kinds = explained_kinds(jload(d, "explainirq.json")["explain"], 0)
    irqs = (d / "explain.irqs").read_text().split()
    assert irqs
    name = rf"irq/({'|'.join(irqs)})-\S*\[\d+\]"
    assert any(re.match(rf"task {name} FIFO/RR 50$", c)
               for c in kinds.get("task", ())) or \
        any(re.match(rf"interrupt late while {name} ran$", c)
            for c in kinds.get("late_interrupt", ())), kinds


def test_pairs_request_bintime_sync(kernel):
    """Every pair test (threads and processes on two CPUs), request,
    bintime and the inversion test with inherit run to the end."""
    _, d = kernel
    for t in registry_names("pair"):
        js = jload(d, f"pair-{t}.json")
        assert js["return_code"] == 0 and js["num_threads"] == 2
        for s in js["fleet"]["series"]:
            assert s["samples"] > 0
    for f in ("request.json", "bintime.json"):
        js = jload(d, f)
        assert js["return_code"] == 0
        assert all(s["samples"] > 0 for s in js["fleet"]["series"])
    inv = jload(d, "sync.json")
    assert inv["settings"]["protocol"] == "inherit"
    i = inv["inversion"]
    assert i["blocking"]["samples"] + i["skipped_rounds"] == 10
    assert i["bounded_rounds"] <= 10 and i["bound_ns"] == 1500000


def test_stock_vs_rt_report_in_a_browser(tmp_path):
    """The two kernels' suites in one report: every test's section, both
    kernels in each plot and table, rendered by headless Chromium (the
    DOM probed, a screenshot taken: build/kernels/stock-vs-rt.png)."""
    from test_report import PROBE, chromium, page, sections, svg_text
    rt = results("rt") / "suite"
    stock = RES / "stock" / "suite"
    runs = [stock, rt] if stock.exists() else [rt]
    labels = "stock,PREEMPT_RT" if stock.exists() else "PREEMPT_RT"
    out = tmp_path / "k.html"
    tree, figs = page(out, *runs, "--labels", labels)
    # Every result the suite left (registry.json is rtlat --list and
    # index.json the suite's index of its tests, not results).
    tests = {p.stem for p in rt.glob("*.json")
             if p.name not in ("registry.json", "index.json")}
    assert {f"test-{t}" for t in tests} <= sections(tree)
    # In the quick stage's suite too (the first of each family).
    for t in ("timer", registry_names("pair", suite=True)[0]):
        text = svg_text(figs[f"{t}-hist"])
        assert stock.exists() <= all(f"{l} (n=" in text for l in labels.split(","))
    probe = tmp_path / "probe.html"
    probe.write_text(out.read_text().replace("</body>", PROBE + "</body>"))
    dom = chromium(tmp_path, "--dump-dom", probe.as_uri())
    m = re.search(r'<pre id="rtlat-probe">(.*?)</pre>', dom.stdout)
    assert m, dom.stderr[-2000:]
    got = json.loads(m.group(1).replace("&quot;", '"'))
    assert got["images"] == out.read_text().count("<figure") and got["broken"] == []
    assert got["empty_svgs"] == 0
    shot = tmp_path / "shot.png"
    chromium(tmp_path, f"--screenshot={shot}", out.as_uri())
    assert shot.exists()
    shutil.copy(shot, RES / ("stock-vs-rt.png" if stock.exists() else "rt.png"))
    shutil.copy(out, RES / "report.html")


def cpu_list(text):
    """'0-4,6-65' -> [0, 1, 2, 3, 4, 6, ...]."""
    out = []
    for part in text.strip().split(","):
        a, _, b = part.partition("-")
        out += range(int(a), int(b or a) + 1)
    return out


def test_more_than_64_cpus_with_holes():
    """72 CPUs, 5 and 66 offline (tests/kernels/run many): -S, -c all and
    pmq -S put one thread on each online CPU, in order, past 64; an offline
    CPU named is bad input naming the online list."""
    d = results("many")
    assert times(d)["manycpus"][0] == 0, (d / "manycpus.err").read_text()
    online = cpu_list((d / "many.online").read_text())
    assert len(online) == 70 and 5 not in online and 66 not in online and online[-1] == 71
    cyc = jload(d, "many-cyc.json")
    assert cyc["num_threads"] == 70
    assert [cyc["thread"][str(i)]["cpu"] for i in range(70)] == online
    assert all(cyc["thread"][str(i)]["cycles"] == 50 for i in range(70))
    timer = jload(d, "many-timer.json")
    assert [c["cpu"] for c in timer["cpus"]] == online
    pmq = jload(d, "many-pmq.json")
    assert pmq["num_threads"] == 70
    assert [pmq["thread"][str(i)]["receiver"]["cpu"] for i in range(70)] == online
    assert (d / "many-bad.rc").read_text().strip() == "2"
    assert (d / "many-bad.err").read_text().splitlines() == [
        "rtlat timer: option -c: CPU 5 is not online; accepted: a list of online CPUs "
        "(0-4,6-65,67-71), or all"]
    assert (d / "manycpus.leaks").read_text() == ""


def test_timerlat_user_mode_refused_on_61_in_one_line():
    """Debian 12's 6.1 RT kernel has timerlat but no timerlat_fd: -t 3 is
    bad input, one line naming it (issue 47)."""
    d = results("rt")
    if "timerlatu" not in times(d):
        pytest.skip("the rt guest ran without the timerlatu check (--quick)")
    err = (d / "timerlatu.err").read_text()
    assert times(d)["timerlatu"][0] == 2, err
    assert len(err.splitlines()) == 1 and "timerlat_fd" in err, err
    assert (d / "timerlatu.out").read_text() == ""


def test_timerlat_user_mode_measures_on_612():
    """bookworm's 6.12 RT kernel: rtlat's own threads take timerlat's
    wake-ups (-t 3), one on each CPU (-c all); every context has samples,
    the series is the threads', the tracer is restored and nothing is left
    behind."""
    d = results("rt612")
    got = times(d)
    release = (d / "info.out").read_text().splitlines()[0]
    assert release.startswith("6.12."), release
    assert got["timerlatu"][0] == 0, (d / "timerlatu.err").read_text()
    assert got["timer1"][0] == 0, (d / "timer1.err").read_text()
    j = jload(d, "timerlatu.json")
    assert j["settings"]["mode"] == 3
    assert j["settings"]["mode_name"] == "user task on timerlat's wake-ups (timerlat_fd)"
    assert j["latency"]["samples"] > 0
    # -c all: a thread on each CPU's timerlat_fd, each CPU measured
    assert j["settings"]["cpus"] == [0, 1], j["settings"]
    assert [c["cpu"] for c in j["cpus"]] == [0, 1]
    assert all(c["latency"]["samples"] > 0 for c in j["cpus"]), j["cpus"]
    assert sum(c["latency"]["samples"] for c in j["cpus"]) == j["latency"]["samples"]
    ctx = j["timerlat_contexts"]
    for c in ("irq", "thread", "user_ret"):
        assert ctx[c]["samples"] > 0, (c, ctx)
        assert 0 <= ctx[c]["min_ns"] <= ctx[c]["max_ns"]
    # its --user-work 100 is between the wake-up and the return to user
    assert j["settings"]["user_work_us"] == 100
    assert ctx["user_ret"]["min_ns"] >= 100000, ctx
    after = (d / "timerlatu.after").read_text().split()
    assert after[0] == "nop" and "NO_OSNOISE_WORKLOAD" not in after, after
    for check in got:
        assert (d / f"{check}.leaks").read_text() == "", check
    import jsonschema
    schema = json.loads((ROOT / "schema" / "rtlat.schema.json").read_text())
    assert not list(jsonschema.Draft202012Validator(schema).iter_errors(j))
