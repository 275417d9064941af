# SPDX-License-Identifier: GPL-2.0-or-later
"""Readers: rtlat's JSON of every subcommand (pair tests, timer, request,
and any later test whose statistics use the same keys), rt-tests' own JSON
(pmqtest and friends, cyclictest --json), and result directories. Every
key is optional: what is missing is left out of the report and noted."""
import errno
import fcntl
import json
import os
import re
import shlex
import stat

from . import foreign, hardware
from ..model import (SYSTEM_FIELDS, Cause, Cells, Check, Context, Dist, LogLinear,
                     Explain, Fleet, FleetRecord, Moved, Round, RtSetup, Run,
                     Second, SecondsFigure, Settings, Spike, System, Test)
from . import schema
from .longrun import LAYER, read_longrun
from .suite import INDEX, REGISTRY, json_of, read_suite, registry_order
from ..io import InputError, NotRegular, read_regular
from .validate import check, check_dists, decimal

RTD = re.compile(r"^RTD\|\s*(-?[\d.]+)\|\s*(-?[\d.]+)\|\s*(-?[\d.]+)\|")


def num(x):
    """A JSON number as float; None for anything else (bools included)."""
    if isinstance(x, bool) or not isinstance(x, (int, float)):
        return None
    return float(x)


def obj(x, *keys):
    """x[k1][k2]... where every step is a dict, else {}."""
    for k in keys:
        x = x.get(k) if isinstance(x, dict) else None
    return x if isinstance(x, dict) else {}


def cpu_of(x):
    """A CPU number as the file has it, or None."""
    v = num(x)
    return int(v) if v is not None and v == int(v) and v >= 0 else None


def dist_from_stats(name, s, cpu=None):
    """rtlat's statistics object: samples, min/avg/max/stddev_ns,
    percentiles_ns, histogram: log-linear {layout, origin_ns, unit_ns,
    sub_bucket_bits, max_width_ns, max_width_until_ns, top_ns, underflow,
    overflow, counts [[start_ns, count]...]}, or (files before issue 49)
    linear {origin_ns, bucket_ns, buckets, underflow, overflow, counts}."""
    d = Dist(name=name, samples=int(num(s.get("samples")) or 0),
             cpu=cpu_of(cpu))
    if d.samples > 0:
        d.min_ns, d.avg_ns = num(s.get("min_ns")), num(s.get("avg_ns"))
        d.max_ns, d.stddev_ns = num(s.get("max_ns")), num(s.get("stddev_ns"))
        pct = obj(s, "percentiles_ns")
        d.pct = {k: num(v) for k, v in pct.items() if num(v) is not None}
    _hist_into(d, obj(s, "histogram"))
    return d


def _layout(h):
    """The log-linear layout a histogram names, or None."""
    keys = ("origin_ns", "unit_ns", "sub_bucket_bits", "max_width_ns",
            "max_width_until_ns", "top_ns")
    v = [num(h.get(k)) for k in keys]
    if h.get("layout") != "log-linear" or any(x is None or x != int(x)
                                              for x in v):
        return None
    if v[1] < 1 or not 1 <= v[2] <= 62 or v[3] < v[1] or v[5] <= 0:
        return None
    return LogLinear(*(int(x) for x in v))


def _hist_into(d, h):
    if h.get("layout") is not None:
        lay = _layout(h)
        if lay is None:
            return
        d.layout, d.bucket_ns = lay, float(lay.unit_ns)
        d.origin_ns = lay.origin_ns
        d.range_end_ns = lay.origin_ns + lay.top_ns
        d.underflow = int(num(h.get("underflow")) or 0)
        d.overflow = int(num(h.get("overflow")) or 0)
        d.bins = _rows(h.get("counts"))
        return
    bucket = num(h.get("bucket_ns"))
    if not bucket or bucket <= 0:
        return
    d.bucket_ns = bucket
    d.origin_ns = num(h.get("origin_ns")) or 0
    n = num(h.get("buckets"))
    d.range_end_ns = d.origin_ns + n * bucket if n else None
    d.underflow = int(num(h.get("underflow")) or 0)
    d.overflow = int(num(h.get("overflow")) or 0)
    d.bins = _rows(h.get("counts"))


def _rows(rows):
    """[start_ns, count] rows, the empty and malformed left out."""
    rows = rows if isinstance(rows, list) else []
    return sorted((num(r[0]), int(num(r[1])))
                  for r in rows if isinstance(r, list) and len(r) == 2
                  and num(r[0]) is not None and num(r[1]))


def dist_from_us(name, samples, o, cpu=None):
    """rt-tests' figures: min/avg/max in microseconds, no histogram."""
    d = Dist(name=name, samples=int(samples or 0), cpu=cpu_of(cpu))
    if d.samples > 0:
        d.min_ns, d.avg_ns, d.max_ns = (
            None if num(o.get(k)) is None else num(o.get(k)) * 1000
            for k in ("min", "avg", "max"))
    return d


def threads(data):
    t = data.get("thread")
    if not isinstance(t, dict):
        return []
    return sorted(((k, v) for k, v in t.items() if isinstance(v, dict)),
                  key=lambda kv: (decimal(kv[0]) is None, decimal(kv[0]) or 0))


def read_pair(t, data):
    for i, th in threads(data):
        snd, rcv = obj(th, "sender"), obj(th, "receiver")
        cpu = rcv.get("cpu", snd.get("cpu"))
        name = f"pair {i} (CPU{cpu})" if cpu is not None else f"pair {i}"
        if "latency" in rcv:
            t.dists.append(dist_from_stats(name, obj(rcv, "latency"), cpu))
        else:
            t.dists.append(dist_from_us(name, num(snd.get("samples")), rcv,
                                        cpu))
        if num(rcv.get("timeoutcount")):
            t.timeouts[name] = int(rcv["timeoutcount"])
    if t.dists and not any(d.has_hist for d in t.dists):
        t.notes.append("no histogram in this file (rt-tests' JSON has only "
                       "min/avg/max): figures not drawn")


def cyclictest_range(cmdline):
    """-h/--histogram/-H/--histofall N: buckets 0..N-1 µs."""
    try:
        argv = shlex.split(cmdline)
    except ValueError:
        return None
    for i, a in enumerate(argv):
        m = re.match(r"^(?:-h|-H|--histogram|--histofall)=?(\d*)$", a)
        if m:
            v = m.group(1) or (argv[i + 1] if i + 1 < len(argv) else "")
            return int(v) if v.isdigit() else None
    return None


def read_cyclic(t, data):
    unit = 1.0 if num(data.get("resolution_in_ns")) else 1000.0
    cells = cyclictest_range(t.cmdline)
    for i, th in threads(data):
        name = f"thread {i} (CPU{th.get('cpu', '?')})"
        d = dist_from_us(name, num(th.get("cycles")), th, th.get("cpu"))
        if unit == 1.0 and d.samples:
            d.min_ns, d.avg_ns, d.max_ns = (num(th.get(k)) for k in
                                            ("min", "avg", "max"))
        h = obj(th, "histogram")
        rows = sorted((int(k) * unit, int(num(v))) for k, v in h.items()
                      if k.lstrip("-").isdigit() and num(v))
        if rows and d.samples:
            d.bins, d.bucket_ns = rows, unit
            d.range_end_ns = cells * unit if cells else None
            d.overflow = max(0, d.samples - sum(c for _, c in rows))
        t.dists.append(d)
    if not any(d.has_hist for d in t.dists):
        t.notes.append("no histogram in this file (run cyclictest with "
                       "-h N for one): figures not drawn")


def timer_steps(timeline):
    """The timer's series in its time line (read once, read/longrun.py),
    CPU by CPU in thread order: {cpu: (seconds rows (t, min, avg, max) of
    the steps with samples, the always-on layer from the steps' context
    columns)}. Empty for a file without (an older rtlat's per_second,
    --timeline 0)."""
    out = {}
    for s in sorted((s for s in timeline.series if s.test == "timer"),
                    key=lambda s: s.thread) if timeline else []:
        rows = [(r[0], *r[3:6]) for r in s.rows
                if r[2] and None not in r[3:6]]
        out[s.cpu] = (rows or None, s.layer)
    return out


def timer_cpus(t, data, steps):
    """timer -c LIST: a distribution per CPU (the histogram's one line
    each) and each CPU's seconds; False for a one-CPU file."""
    cpus = [c for c in data.get("cpus") or [] if isinstance(c, dict)]
    if len(cpus) < 2:
        return False
    per = []
    for c in cpus:
        name = f"CPU{c.get('cpu', '?')}"
        t.dists.append(dist_from_stats(name, obj(c, "latency"), c.get("cpu")))
        rows = steps.get(cpu_of(c.get("cpu")), (None,))[0] or \
            seconds_from_json(obj(c, "per_second").get("seconds"))
        if rows:
            per.append((name, rows))
    t.cpu_seconds = per
    return True


def read_timer(t, data):
    cpu = obj(data, "settings").get("cpu")
    name = f"latency (CPU{cpu})" if cpu is not None else "latency"
    steps = timer_steps(t.timeline)
    if not timer_cpus(t, data, steps):
        t.dists.append(dist_from_stats(name, obj(data, "latency"), cpu))
    secs = obj(data, "seconds")
    t.seconds_summary = {k: SecondsFigure(**{f: num(obj(secs, k).get(f))
                                             for f in SECONDS_FIGURES})
                         for k in ("min", "avg", "max") if obj(secs, k)}
    first = next(iter(steps.values()), (None, []))
    t.seconds = seconds_from_json(secs.get("series")) or first[0] or \
        seconds_from_json(obj(data, "per_second").get("seconds"))
    t.overruns, t.msw = integer(data.get("overruns")), integer(data.get("msw"))
    h = obj(data, "histograms")     # -h's cells: {avg, min, max: overflow}
    t.cells = Cells(**{k: int(num(obj(h, k).get("overflow")) or 0)
                       for k in ("avg", "min", "max")},
                    cells=num(h.get("cells")), bucket_ns=num(h.get("bucket_ns")))


def timer_seconds_beside(t, limits):
    """A timer file without a per-second series: the RTD lines of the
    text output beside it, if any (read as any input: a regular file
    within limits, else a note)."""
    if t.seconds:
        return
    try:
        t.seconds = seconds_from_text(t.path, limits)
    except InputError as e:
        t.notes.append(f"the text output beside it is not read: {e}")
    if not t.seconds:
        t.notes.append("no per-second series (neither in the JSON nor RTD "
                       "lines in the text output beside it; the suite runs "
                       "the timer with -q): the over-time plot is not drawn")


def seconds_from_json(rows):
    """A future per-second array: [[t, min_ns, avg_ns, max_ns], ...] or
    [{min_ns, avg_ns, max_ns}, ...]."""
    if not isinstance(rows, list):
        return None
    out = []
    for i, r in enumerate(rows):
        if isinstance(r, dict):
            v = [num(r.get(k)) for k in ("min_ns", "avg_ns", "max_ns")]
            t = num(r.get("second")) or i + 1
        elif isinstance(r, list) and len(r) >= 4:
            t, v = num(r[0]), [num(x) for x in r[1:4]]
        else:
            continue
        if None not in v and t is not None:
            out.append((t, *v))
    return out or None


def seconds_from_text(json_path, limits=None):
    """RTD lines (min, avg, max of each second, µs) of the Xenomai-style
    output written next to the JSON (suite: TEST.txt); None without one,
    InputError for one that cannot be read."""
    txt = os.path.splitext(json_path)[0] + ".txt"
    if not os.path.lexists(txt):
        return None
    lines = read_regular(txt, limits).decode("utf-8", "replace").splitlines()
    rows = [m.groups() for m in map(RTD.match, lines) if m]
    return [(i + 1, *(float(v) * 1000 for v in r))
            for i, r in enumerate(rows)] or None


def read_request(t, data):
    req = obj(data, "request")
    t.settings.shown.update(flatten(obj(req, "settings")))
    t.settings.shown.update(flatten(obj(req, "layout"), "layout."))
    rounds = req.get("rounds") if isinstance(req.get("rounds"), list) else []
    for i, r in enumerate(x for x in rounds if isinstance(x, dict)):
        series = {k: dist_from_stats(k, v)
                  for k, v in obj(r, "series").items() if isinstance(v, dict)}
        loads = num(r.get("load_processes"))
        t.rounds.append(Round(
            index=int(num(r.get("round")) or i),
            load_processes=int(loads) if loads is not None else i,
            samples=int(num(r.get("samples")) or 0),
            partial=r.get("partial") is True,
            overruns=None if num(r.get("timer_overruns")) is None
            else int(r["timer_overruns"]),
            series=series))
    if not t.rounds:
        t.notes.append("no rounds in this file")


def text(x):
    return x if isinstance(x, str) else ""


def integer(x):
    v = num(x)
    return None if v is None else int(v)


def causes(rows):
    """[{cause, kind, ns}] as Causes; entries without a duration dropped."""
    rows = rows if isinstance(rows, list) else []
    return [Cause(text(r.get("cause")) or "?", text(r.get("kind")) or "?",
                  num(r.get("ns"))) for r in rows
            if isinstance(r, dict) and num(r.get("ns")) is not None]


def spike(r, main=False):
    """A spike of "spikes" (its causes) or of "log" (its main cause)."""
    s = Spike(time_s=num(r.get("time_s")), latency_ns=num(r.get("latency_ns")),
              events=integer(r.get("events")), steal_ms=num(r.get("steal_ms")),
              cpu=integer(r.get("cpu")), source=text(r.get("source")) or None)
    if main and num(r.get("cause_ns")) is not None:
        s.causes = [Cause(text(r.get("cause")) or "?",
                          text(r.get("kind")) or "?", num(r["cause_ns"]))]
    elif not main:
        s.causes = causes(r.get("causes"))
    return s


def read_explain(x):
    """--explain's object (timer, and the pair tests, request and bintime
    with their optional cpus, per-spike cpu and source)."""
    def rows(key):
        v = x.get(key)
        return [r for r in v if isinstance(r, dict)] if isinstance(v, list) \
            else []
    cpus = x.get("cpus") if isinstance(x.get("cpus"), list) else [x.get("cpu")]
    return Explain(
        cpus=[int(c) for c in cpus if num(c) is not None],
        trigger=text(x.get("trigger")), over_ns=num(x.get("over_ns")),
        explained=integer(x.get("explained")) or 0,
        skipped=integer(x.get("skipped")) or 0,
        events=integer(x.get("events")),
        spikes=[spike(r) for r in rows("spikes")],
        where=causes(x.get("where")), other_ns=num(x.get("other_ns")) or 0,
        log=[spike(r, main=True) for r in rows("log")])


def read_layer(rows):
    """The always-on layer of an older rtlat's per_second rows: interrupts, softirqs
    (summed over the vectors), steal, CPU pressure, involuntary switches.
    Empty when no row has any of them (older files)."""
    out = []
    for i, r in enumerate(rows if isinstance(rows, list) else []):
        if not isinstance(r, dict):
            continue
        s = Second(t=num(r.get("second")) or i + 1,
                   **{f: num(r.get(k)) for f, k in LAYER})
        soft = [num(v) for v in obj(r, "softirqs").values()]
        if soft and None not in soft:
            s.softirqs = sum(soft)
        out.append(s)
    if not any(getattr(s, f) is not None for s in out
               for f in ("softirqs",) + tuple(f for f, _ in LAYER)):
        return []
    return out


# The doctor's check keys as `rtlat doctor` titles them (the short form in
# every result has only keys and verdicts).
CHECK_TITLES = {
    "rt_throttling": "RT throttling", "cgroup_rt_budget": "cgroup RT budget",
    "rtprio": "RLIMIT_RTPRIO / capabilities",
    "idle_states": "idle states, cpu_dma_latency",
    "isolation": "isolcpus / nohz_full", "clocksource": "clocksource",
    "smt": "SMT siblings", "hypervisor": "hypervisor steal",
    "preemption": "preemption model", "tracing": "tracing (--explain, timerlat)",
}


def read_doctor(data):
    """rtlat doctor --json's checks (with figures and fixes), else the
    short form every result carries ("doctor": {verdict, checks: {key:
    verdict}})."""
    if isinstance(data.get("checks"), list):
        return [Check(key=text(c.get("check")),
                      title=text(c.get("title")) or text(c.get("check")),
                      verdict=text(c.get("verdict")) or "?",
                      detail=text(c.get("detail")), fix=text(c.get("fix")))
                for c in data["checks"] if isinstance(c, dict)]
    checks = obj(data, "doctor", "checks")
    return [Check(key=k, title=CHECK_TITLES.get(k, k.replace("_", " ")),
                  verdict=v) for k, v in checks.items() if isinstance(v, str)]


def read_doctor_file(t, data):
    """rtlat doctor --json: no measurement, only the checks (Run.doctor)."""
    t.doctor = read_doctor(data)


def read_generic(t, data):
    """Any object with rtlat's statistics keys, named by its path."""
    def walk(o, path):
        if isinstance(o, dict):
            if "samples" in o and ("min_ns" in o or "histogram" in o):
                t.dists.append(dist_from_stats(path or t.name, o))
                return
            for k, v in o.items():
                # fleet: the verdict records (--max-latency, JUnit...)
                # restate the series; they are not series of their own.
                if k not in ("system", "rt", "sysinfo", "settings",
                             "explain", "per_second", "doctor", "fleet"):
                    walk(v, f"{path}.{k}" if path else k)
        elif isinstance(o, list):
            for i, v in enumerate(o):
                walk(v, f"{path}[{i}]")
    walk(data, "")
    if not t.dists:
        raise InputError(f"{t.path}: unreadable: no test result in it (neither rtlat's "
                         "nor rt-tests' statistics keys)")
    # Series of one kind (bintime's cpus.N.gaps) add up to an "all";
    # series that measure different things (sync's cost, hand-off and
    # inversion blocking) do not.
    t.alike = len({d.name.rsplit(".", 1)[-1] for d in t.dists}) == 1


def flatten(d, prefix=""):
    out = {}
    for k, v in d.items():
        if isinstance(v, dict):
            out.update(flatten(v, f"{prefix}{k}."))
        elif isinstance(v, list):
            out[prefix + k] = ", ".join(str(x) for x in v)
        else:
            out[prefix + k] = v
    return out


def kind_of(data):
    if hardware.kind_of(data):
        return hardware.kind_of(data)
    if obj(data, "rtlat").get("test") == "doctor" or \
            isinstance(data.get("checks"), list):
        return "doctor"
    if isinstance(data.get("request"), dict):
        return "request"
    if obj(data, "settings").get("test") == "timer" or \
            obj(data, "rtlat").get("test") == "timer" or \
            isinstance(data.get("seconds"), dict):
        return "timer"
    ths = [th for _, th in threads(data)]
    if ths and all("receiver" in th for th in ths):
        return "pair"
    if ths and all("cycles" in th or "histogram" in th for th in ths):
        return "cyclic"
    return "generic"


def test_name(data, path):
    name = obj(data, "rtlat").get("test") or obj(data, "settings").get("test")
    if isinstance(name, str) and name:
        return name
    cmd = data.get("cmdline:")
    if isinstance(cmd, str) and cmd.split():
        return os.path.basename(cmd.split()[0])
    return os.path.splitext(os.path.basename(path))[0]


def preempt_model(version):
    """From uname -v when the file has no snapshot (rt-tests)."""
    for model in ("PREEMPT_RT", "PREEMPT_DYNAMIC", "PREEMPT"):
        if model in version.split():
            return model
    return None


def system_of(data):
    """rtlat's `system` snapshot, completed from rt-tests' `sysinfo`."""
    si, sy = obj(data, "sysinfo"), dict(obj(data, "system"))
    sys_out = {"host": si.get("nodename")}
    sys_out["kernel"] = sy.pop("kernel", None) or si.get("release")
    sys_out["kernel_version"] = sy.pop("kernel_version", None) or \
        si.get("version")
    sys_out["machine"] = sy.pop("machine", None) or si.get("machine")
    if "preempt_model" not in sy and isinstance(si.get("version"), str):
        sy["preempt_model"] = preempt_model(si["version"])
    if "sys_kernel_realtime" not in sy and "realtime" in si:
        sy["sys_kernel_realtime"] = si.get("realtime")
    sys_out.update(sy)
    return System(**{k: sys_out.get(k) for k in SYSTEM_FIELDS})


SECONDS_FIGURES = ("min_ns", "avg_ns", "max_ns", "stddev_ns")


def context_of(ctx):
    """rtlat's "context" object as a Context (an empty one where there is
    none)."""
    if not isinstance(ctx, dict):
        return Context()
    quota = ctx.get("quota") if isinstance(ctx.get("quota"), dict) else {}

    def text(k, d=ctx):
        v = d.get(k)
        return str(v) if v not in (None, "") else None
    return Context(kind=text("kind"), engine=text("engine"),
                   cpuset=text("cpuset"), quota_cpus=num(quota.get("cpus")),
                   hypervisor=text("hypervisor"))


def rt_of(rt):
    """rtlat's "rt" object as an RtSetup; None where the file has none."""
    if not isinstance(rt, dict) or not rt:
        return None
    reasons = rt.get("reasons") if isinstance(rt.get("reasons"), list) \
        else []
    return RtSetup(rt=rt["rt"] if isinstance(rt.get("rt"), bool) else None,
                   reasons=[str(x) for x in reasons],
                   mlockall=rt.get("mlockall"),
                   cpu_dma_latency=rt.get("cpu_dma_latency"),
                   strict=rt.get("strict"))


def read_hwlat_file(t, data):
    """rtlat hwlat --json: no latency series, its events (Run.hwlat)."""
    t.hardware = hardware.read_hwlat(t.path, data)


def read_osnoise_file(t, data):
    """rtlat osnoise --json: no latency series, its CPUs' noise
    (Run.osnoise)."""
    t.hardware = hardware.read_osnoise(t.path, data)


READERS = {"pair": read_pair, "timer": read_timer, "request": read_request,
           "cyclic": read_cyclic, "generic": read_generic,
           "doctor": read_doctor_file, "hwlat": read_hwlat_file,
           "osnoise": read_osnoise_file}


def read_json(path, raw):
    """The JSON object of raw (path's bytes), or InputError naming the
    file and why."""
    try:
        data = json.loads(raw.decode("utf-8"))
    except UnicodeDecodeError as e:
        raise InputError(f"{path}: unreadable: not UTF-8 text ({e.reason} "
                         f"at byte {e.start})") from e
    except json.JSONDecodeError as e:
        raise InputError(f"{path}: unreadable: not JSON ({e.msg} at line "
                         f"{e.lineno} column {e.colno}; truncated?)") from e
    except RecursionError as e:
        raise InputError(f"{path}: unreadable: JSON nested too deeply") from e
    if not isinstance(data, dict):
        raise InputError(f"{path}: unreadable: not a result file (no JSON "
                         "object)")
    check(data, path)
    if schema.is_rtlat(data):
        schema.check(data, path, lenient=True)
    return data


def _foot(path, text, name, cols, needed=True):
    """The figures of a histogram footer line ("# Max Latencies: 00177
    00180"), one per histogram column; zeros for a line not needed and
    not there; InputError for a line missing, of another length or with
    a figure that is not a whole number."""
    m = re.search(rf"^# {name}:(.*)$", text, re.M)
    if not m and not needed:
        return [0] * cols
    if not m:
        raise InputError(f"{path}: unreadable: no '# {name}:' line (the "
                         "footer of cyclictest -h)")
    v = [decimal(x) for x in m.group(1).split()]
    if len(v) != cols or None in v:
        raise InputError(
            f"{path}: unreadable: '# {name}:' has {len(v)} figures for "
            f"{cols} histogram column{'s' if cols > 1 else ''}"
            if None not in v else
            f"{path}: unreadable: '# {name}:' has "
            f"{m.group(1).split()[v.index(None)]!r}, not a whole number")
    return v


def read_hist_text(path, text):
    """cyclictest's -h output or --histfile (rtlat's too): a thread per
    column of 1 us rows, its footer's counts and latencies in us."""
    rows = []
    for line in text.splitlines():
        if re.fullmatch(r"\d{6} \d+(\t\d+)*", line, re.ASCII):
            rows.append([int(x) for x in re.split(r"[ \t]", line)])
    if not rows or not re.search(r"^# Min Latencies:", text, re.M):
        raise InputError(f"{path}: unreadable: not JSON, nor a cyclictest "
                         "histogram (-h)")
    cols = len(rows[0]) - 1
    odd = next((r for r in rows if len(r) != cols + 1), None)
    if odd:
        raise InputError(f"{path}: unreadable: the histogram's row "
                         f"{odd[0]:06d} has {len(odd) - 1} columns, the "
                         f"first {cols}")
    mins, avgs, maxs = (_foot(path, text, k, cols) for k in
                        ("Min Latencies", "Avg Latencies", "Max Latencies"))
    over = _foot(path, text, "Histogram Overflows", cols, needed=False)
    t = Test(key=os.path.basename(path), name="cyclictest", kind="cyclic",
             path=path, tool="cyclictest -h output")
    for j in range(cols):
        d = Dist(name=f"thread {j}")
        d.bins = [(r[0] * 1000.0, r[1 + j]) for r in rows if r[1 + j]]
        d.bucket_ns, d.range_end_ns = 1000.0, len(rows) * 1000.0
        d.overflow = over[j]
        d.samples = sum(c for _, c in d.bins) + d.overflow
        d.min_ns, d.avg_ns = mins[j] * 1000.0, avgs[j] * 1000.0
        d.max_ns = maxs[j] * 1000.0
        t.dists.append(d)
    t.notes.append("read from cyclictest's -h histogram text: no settings, "
                   "no system record")
    return t


def period_ns(t):
    """The cycle period in ns: the file's settings (rtlat: period_us,
    interval_us), cyclictest's -i (default 1000 µs); None."""
    for k in ("period_us", "interval_us"):
        v = t.settings.shown.get(k)
        if isinstance(v, (int, float)) and not isinstance(v, bool) and v > 0:
            return float(v) * 1000
    if t.tool.startswith("rt-tests") or t.kind == "cyclic":
        try:
            argv = shlex.split(t.cmdline)
        except ValueError:
            argv = []
        for i, a in enumerate(argv):
            m = re.match(r"^(?:-i|--interval)=?(\d*)$", a)
            if m:
                v = m.group(1) or (argv[i + 1] if i + 1 < len(argv) else "")
                if v.isdigit():
                    return float(v) * 1000
        if argv and "cyclictest" in argv[0]:
            return 1e6
    return None


def load_file(path, key=None, limits=None):
    """One result file as a Test. Raises InputError if it cannot be read
    (not a regular file, larger than limits allow) or holds no result."""
    raw = read_regular(path, limits)
    try:
        t = _read(path, key, raw, limits)
    except (TypeError, ValueError, AttributeError, KeyError,
            OverflowError, ZeroDivisionError) as e:
        # A layout no reader expects: one line, never a traceback.
        raise InputError(f"{path}: unreadable: unexpected layout "
                         f"({type(e).__name__}: {e})") from e
    # Another tool's text is read by hand: its figures are checked here
    # as validate.check() checks a JSON file's before it is read.
    check_dists(t)
    t.settings.duration_s = num(t.settings.shown.get("duration_s"))
    t.settings.period_ns = period_ns(t)
    return t


def _read(path, key, raw, limits):
    if foreign.is_rtla(raw):
        return foreign.read_rtla_hist(path, raw.decode("utf-8", "replace"))
    if not path.endswith(".json") and b"# Histogram" in raw[:4096]:
        try:
            return read_hist_text(path, raw.decode("utf-8"))
        except UnicodeDecodeError:
            pass
    data = read_json(path, raw)
    if foreign.is_jitterdebugger(data):
        return foreign.read_jitterdebugger(path, data)
    return _test_of(path, key, data, limits)


def _test_of(path, key, data, limits=None):
    name = test_name(data, path)
    t = Test(key=key or name, name=name, kind=kind_of(data), path=path)
    rl = obj(data, "rtlat")
    ver = rl.get("version") or data.get("rt_test_version:")
    t.tool = f"{'rtlat' if rl else 'rt-tests'} {ver or ''}".strip()
    t.cmdline = str(rl.get("cmdline") or data.get("cmdline:") or "")
    t.start_time = str(data.get("start_time") or "")
    rc = num(data.get("return_code"))
    t.return_code = None if rc is None else int(rc)
    t.settings = Settings(shown=flatten(obj(data, "settings")))
    t.system = system_of(data)
    t.context = context_of(rl.get("context"))
    t.rt = rt_of(data.get("rt"))
    read_longrun(t, data)
    READERS[t.kind](t, data)
    t.smi = hardware.read_smi(data)
    if t.kind == "timer":
        timer_seconds_beside(t, limits)
    if t.kind != "doctor":
        t.doctor = read_doctor(data)
    if isinstance(data.get("explain"), dict):
        t.explain = read_explain(data["explain"])
    # The timer's counters: its time line's context (an older rtlat's
    # per_second where there is none).
    t.layer = next((ly for _, ly in timer_steps(t.timeline).values() if ly),
                   None) or read_layer(obj(data, "per_second").get("seconds"))
    rows = obj(data, "fleet").get("series")
    secs = [num(r.get("seconds")) for r in rows if isinstance(r, dict)
            and num(r.get("seconds"))] if isinstance(rows, list) else []
    t.elapsed_s = max(secs) if secs else None
    read_ending(t, data)
    return t


def read_fleet(f):
    """rtlat's "fleet" object (a test's, or a suite's index.json's) as a
    Fleet; None where there is none."""
    if not isinstance(f, dict) or not isinstance(f.get("series"), list):
        return None

    def rec(r):
        def opt(k):
            v = num(r.get(k))
            return v if v else None     # 0: no threshold
        thread, cpu = num(r.get("thread")), num(r.get("cpu"))
        return FleetRecord(
            test=str(r.get("test") or ""), series=str(r.get("series") or ""),
            thread=None if thread is None else int(thread),
            cpu=None if cpu is None else int(cpu),
            samples=int(num(r.get("samples")) or 0),
            max_ns=num(r.get("max_ns")), p99_ns=num(r.get("p99_ns")),
            max_latency_us=opt("max_latency_us"),
            max_p99_us=opt("max_p99_us"),
            result=str(r.get("result") or ""),
            failure=str(r.get("failure") or ""),
            error=str(r.get("error") or ""))
    return Fleet(verdict=str(f.get("verdict") or ""),
                 series=[rec(r) for r in f["series"] if isinstance(r, dict)],
                 threads=[rec(r) for r in f.get("threads") or []
                          if isinstance(r, dict)])


def read_ending(t, data):
    """How the run judged itself and ended: its fleet, the CPUs that moved
    (timer -c), its error and stopped_by words."""
    t.fleet = read_fleet(data.get("fleet"))
    for c in data.get("cpus") or []:
        m = obj(c, "moved")
        if m and num(c.get("cpu")) is not None:
            t.moved.append(Moved(cpu=int(c["cpu"]),
                                 after_s=num(m.get("after_s")),
                                 affinity=str(m.get("affinity") or ""),
                                 why=str(m.get("why") or "")))
    t.error = data.get("error") if isinstance(data.get("error"), str) else ""
    t.stopped_by = data.get("stopped_by") \
        if isinstance(data.get("stopped_by"), str) else ""


def read_document(path, limits=None, checked=True):
    """(bytes, JSON document) of a result file as the exports take it:
    the document itself, not the model, because they copy its fields
    verbatim (KCIDB's misc and output files, SQUAD's metadata and
    attachments) and lay the suite's verdicts over it (judge/suite.py).
    checked: validated as the page's inputs are (read_json); else only
    parsed (SQUAD takes any run's JSON with "fleet"; what it is not, it
    says itself). InputError naming the file and why."""
    raw = read_regular(path, limits)
    if checked:
        return raw, read_json(path, raw)
    try:
        return raw, json.loads(raw)
    except (ValueError, RecursionError) as e:
        raise InputError(str(e)) from e


def result_files(path):
    """The result files (*.json but the registry and the suite's index) of
    a results directory, in name order."""
    return sorted(f for f in os.listdir(path)
                  if f.endswith(".json") and f not in (REGISTRY, INDEX))


# rtlat writes each output beside it as NAME.tmp-PID-N, holding an flock
# on it, and renames it into place (src/system/outfile.c).
TEMP_FILE = re.compile(r".+\.tmp-([1-9]\d{0,9})-\d+")


def _runs(pid):
    try:
        os.kill(pid, 0)
    except OSError as e:
        return e.errno != errno.ESRCH
    return True


def remove_dead_temp_files(path):
    """Remove the temp files of rtlat writers that no longer run (killed
    between making one and renaming it) from a results directory, as
    rtlat's next writer of the file does (outfile.c's outfile_sweep): the
    PID runs no process and nobody holds the file's lock; the PID is
    looked at again once the lock is held. A live writer's file stays."""
    try:
        names = os.listdir(path)
    except OSError:
        return
    for name in names:
        m = TEMP_FILE.fullmatch(name)
        if not m or _runs(int(m.group(1))):
            continue
        f = os.path.join(path, name)
        try:
            fd = os.open(f, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
        except OSError:
            continue
        try:
            if stat.S_ISREG(os.fstat(fd).st_mode):
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                if not _runs(int(m.group(1))):
                    os.unlink(f)
        except OSError:
            pass
        finally:
            os.close(fd)


def load_input(path, label, limits=None):
    """A results directory (every *.json in it) or one file, as a Run. In
    a directory, what is not a regular file (a FIFO, a link to a device)
    is skipped with a note; named, it is bad input (InputError)."""
    run = Run(label=label, path=path)
    if os.path.isdir(path):
        remove_dead_temp_files(path)
        files = result_files(path)
        reg = json_of(os.path.join(path, REGISTRY))
        run.order = registry_order(reg)
        run.suite = read_suite(path, reg)
        run.fleet = read_fleet(run.suite.fleet) if run.suite else None
        bad = []
        for f in files:
            try:
                _add(run, load_file(os.path.join(path, f), limits=limits))
            except NotRegular as e:
                run.skipped.append(str(e))
            except InputError as e:
                bad.append(str(e))
        if not files:
            raise InputError(f"{path}: no result files (*.json) in it")
        if not run.tests and not run.doctor and not run.hwlat and \
                not run.osnoise:
            bad += run.skipped
            raise InputError(f"{path}: no readable result file: {bad[0]}"
                             + (f" (and {len(bad) - 1} more)" if bad[1:]
                                else ""))
        # The others make a page; each unreadable file is said on it.
        run.unreadable = bad
    elif os.path.exists(path):
        _add(run, load_file(path, limits=limits))
    else:
        raise InputError(f"{path}: no such file or directory")
    return run


def _add(run, t):
    """Two files of one test in one directory keep both (by file name); a
    doctor file gives the run its checks."""
    if t.kind == "doctor":
        run.doctor = t.doctor
        return
    if t.kind in ("hwlat", "osnoise"):
        getattr(run, t.kind).append(t.hardware)
        return
    key = t.name
    if key in run.tests:
        key = f"{t.name} ({os.path.basename(t.path)})"
    t.key = key
    run.tests[key] = t
