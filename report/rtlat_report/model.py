# SPDX-License-Identifier: GPL-2.0-or-later
"""What a report is made of: distributions (a histogram plus its exact
figures), tests, runs. Every reader turns its file into these, so the
plots and tables never look at raw JSON."""
import math
from datetime import datetime
from dataclasses import dataclass, field
from typing import Dict, List, Mapping, NamedTuple, Optional, Tuple

PERCENTILES = ("p50", "p90", "p99", "p99.9", "p99.99")
PCT_VALUE = {"p50": 50.0, "p90": 90.0, "p99": 99.0, "p99.9": 99.9,
             "p99.99": 99.99}


@dataclass(frozen=True)
class LogLinear:
    """rtlat's log-linear histogram layout (its JSON names it, so no table
    is needed): above origin_ns a value is q = (v - origin_ns) // unit_ns
    units; its octave k = floor(log2 q) (0 for q < 2) is cut into buckets
    2^s units wide, s = max(0, k - (sub_bucket_bits - 1)), at most
    max_width_ns below max_width_until_ns (above origin_ns)."""
    origin_ns: int
    unit_ns: int
    sub_bucket_bits: int
    max_width_ns: int
    max_width_until_ns: int
    top_ns: int

    def _shift(self, q):
        k = max(q.bit_length() - 1, 0)
        shift = max(0, k - (self.sub_bucket_bits - 1))
        if q * self.unit_ns < self.max_width_until_ns:
            cap = (self.max_width_ns // self.unit_ns).bit_length() - 1
            shift = min(shift, cap)
        return shift

    def width(self, start):
        """The width (ns) of the bucket that starts at start."""
        q = int(start - self.origin_ns) // self.unit_ns
        return float(self.unit_ns << self._shift(q))

    def start(self, v):
        """The start (ns) of the bucket holding v (origin_ns <= v)."""
        q = int(v - self.origin_ns) // self.unit_ns
        sh = self._shift(q)
        return self.origin_ns + ((q >> sh) << sh) * self.unit_ns


@dataclass
class Dist:
    """One latency distribution (a pair's receiver, a CPU, a request
    series). Values in ns. bins: (start_ns, count) of the non-empty
    buckets; underflow/overflow: samples below origin_ns / at or above
    range_end_ns, counted, never dropped."""
    name: str
    samples: int = 0
    min_ns: Optional[float] = None
    avg_ns: Optional[float] = None
    max_ns: Optional[float] = None
    stddev_ns: Optional[float] = None
    pct: Dict[str, float] = field(default_factory=dict)
    bins: List[Tuple[float, int]] = field(default_factory=list)
    bucket_ns: Optional[float] = None
    origin_ns: float = 0
    range_end_ns: Optional[float] = None
    underflow: int = 0
    overflow: int = 0
    # rtlat's log-linear layout (bucket_ns is then its narrowest bucket);
    # None: linear buckets bucket_ns wide (older files, foreign formats).
    layout: Optional[LogLinear] = None
    # The CPU it measured on where the reader knows it: its time line and
    # largest samples are the series of that CPU (series_for).
    cpu: Optional[int] = None

    @property
    def has_hist(self):
        return self.bucket_ns is not None and self.samples > 0 and \
            (bool(self.bins) or self.overflow > 0 or self.underflow > 0)

    def width(self, start):
        """The width (ns) of the bucket starting at start."""
        return self.layout.width(start) if self.layout else self.bucket_ns

    def percentile(self, key):
        """The file's own value, else derived from the histogram."""
        if key in self.pct:
            return self.pct[key]
        if not self.has_hist:
            return None
        return hist_percentile(self, PCT_VALUE[key])


def hist_percentile(d, p):
    """Upper bound of the bucket holding the p-th percentile sample, at most
    the exact max (as rtlat computes them); overflow samples are at max."""
    total = d.underflow + sum(c for _, c in d.bins) + d.overflow
    if total <= 0:
        return None
    rank = max(1, math.ceil(p / 100.0 * total))
    seen = d.underflow
    if rank <= seen:
        return d.min_ns if d.min_ns is not None else d.origin_ns
    for start, count in d.bins:
        seen += count
        if rank <= seen:
            upper = start + d.width(start) - 1
            return min(upper, d.max_ns) if d.max_ns is not None else upper
    return d.max_ns


def merge(name, dists):
    """All samples of several distributions in one (the run's every pair
    together), exact where the inputs are: counts add, min/max are the
    extremes, the mean is weighted, the deviation pooled."""
    dists = [d for d in dists if d.samples > 0]
    out = Dist(name=name)
    if not dists:
        return out
    if len({d.cpu for d in dists}) == 1:
        out.cpu = dists[0].cpu
    n = sum(d.samples for d in dists)
    out.samples = n
    out.min_ns = _extreme(min, [d.min_ns for d in dists])
    out.max_ns = _extreme(max, [d.max_ns for d in dists])
    if all(d.avg_ns is not None for d in dists):
        out.avg_ns = sum(d.avg_ns * d.samples for d in dists) / n
        out.stddev_ns = _pooled_sd(dists, out.avg_ns, n)
    hists = [d for d in dists if d.has_hist]
    if len(hists) == len(dists) and \
            len({(d.bucket_ns, d.layout) for d in hists}) == 1:
        _merge_hists(out, hists)
    return out


def _extreme(fn, values):
    values = [v for v in values if v is not None]
    return fn(values) if values else None


def _pooled_sd(dists, mean, n):
    if any(d.stddev_ns is None for d in dists) or n < 2:
        return None
    ss = sum((d.samples - 1) * d.stddev_ns ** 2 +
             d.samples * (d.avg_ns - mean) ** 2 for d in dists)
    return math.sqrt(max(ss, 0.0) / (n - 1))


def _merge_hists(out, hists):
    counts = {}
    for d in hists:
        for start, c in d.bins:
            counts[start] = counts.get(start, 0) + c
    out.bins = sorted(counts.items())
    out.bucket_ns = hists[0].bucket_ns
    out.layout = hists[0].layout
    out.origin_ns = min(d.origin_ns for d in hists)
    ends = [d.range_end_ns for d in hists if d.range_end_ns is not None]
    out.range_end_ns = min(ends) if ends else None
    out.underflow = sum(d.underflow for d in hists)
    out.overflow = sum(d.overflow for d in hists)


@dataclass
class Round:
    """One round of the request test: k load processes."""
    index: int
    load_processes: int
    samples: int
    partial: bool
    overruns: Optional[int]
    series: Dict[str, Dist]


@dataclass
class Cause:
    """One cause of a delay (--explain): its label as rtlat prints it, its
    kind (irq, softirq, task, wakeup, late_interrupt, throttling,
    remote, self, unexplained, or other for the run-wide remainder) and how long it took."""
    cause: str
    kind: str
    ns: float


@dataclass
class Spike:
    """One explained latency: when (s since the run started), how long, and
    its causes in order (they sum to the latency). cpu and source are set
    by tests that measure on several CPUs (the pair tests: "pair 0")."""
    time_s: Optional[float]
    latency_ns: Optional[float]
    causes: List[Cause] = field(default_factory=list)
    events: Optional[int] = None
    steal_ms: Optional[float] = None
    cpu: Optional[int] = None
    source: Optional[str] = None


@dataclass
class Explain:
    """A test's --explain result: the trigger, the worst spikes, where the
    time over the threshold went run-wide, and the log of every explained
    spike with its main cause (one Cause per Spike)."""
    cpus: List[int] = field(default_factory=list)
    trigger: str = ""
    over_ns: Optional[float] = None
    explained: int = 0
    skipped: int = 0
    events: Optional[int] = None
    spikes: List[Spike] = field(default_factory=list)
    where: List[Cause] = field(default_factory=list)
    other_ns: float = 0
    log: List[Spike] = field(default_factory=list)

    def where_total(self):
        return sum(c.ns for c in self.where) + self.other_ns


@dataclass
class Second:
    """One step of the always-on layer (the context columns of the timer's
    time line; an older rtlat's per_second): what else happened on the
    measuring CPU, per second of the step starting at t. None where the
    file has no figure."""
    t: float
    irqs: Optional[float] = None
    softirqs: Optional[float] = None
    steal_ms: Optional[float] = None
    psi_some_us: Optional[float] = None
    nivcsw: Optional[float] = None


@dataclass
class Check:
    """One doctor check: its key, title, verdict, and where known the
    figure read (detail) and the fix."""
    key: str
    title: str
    verdict: str
    detail: str = ""
    fix: str = ""


@dataclass
class FleetRecord:
    """One record of rtlat's "fleet" (a series, or a thread of it): its
    figures and how the run's thresholds judged it. A threshold of None
    (or 0) was not set for it."""
    test: str
    series: str
    thread: Optional[int] = None
    cpu: Optional[int] = None
    samples: int = 0
    max_ns: Optional[float] = None
    p99_ns: Optional[float] = None
    max_latency_us: Optional[float] = None
    max_p99_us: Optional[float] = None
    result: str = ""            # pass, fail, skip, error
    failure: str = ""
    # Why rtlat judged it "error" (a CPU of it could not be measured).
    error: str = ""


@dataclass
class Fleet:
    """rtlat's "fleet": the run's verdict (pass, fail, error, none) and
    its records. A test's own file, or a suite's index.json (the suite
    judges its thresholds; each test's file holds none)."""
    verdict: str = ""
    series: List[FleetRecord] = field(default_factory=list)
    threads: List[FleetRecord] = field(default_factory=list)


@dataclass
class Moved:
    """timer -c: a CPU whose sampler was moved off it (the CPU went
    offline or the thread was re-pinned): after how many seconds measured,
    where it ended up, rtlat's why."""
    cpu: int
    after_s: Optional[float]
    affinity: str = ""
    why: str = ""


@dataclass
class Judged:
    """One item of the page's verdict: what was judged (kind: threshold,
    ending, comparison, gate, qualification), its name, the verdict (PASS,
    FAIL, ENDED EARLY, REGRESSION, ...) and the figures in words."""
    kind: str
    name: str
    verdict: str
    detail: str = ""

    @property
    def failed(self):
        return self.verdict not in PASSING


# The verdicts of a Judged that are no failure.
PASSING = ("PASS", "not worse", "within noise", "improvement",
           "cannot tell")


@dataclass
class Test:
    """One result file, normalised. kind: pair, timer, request, cyclic
    (cyclictest) or generic (anything else with latency statistics)."""
    key: str
    name: str
    kind: str
    path: str
    tool: str = ""
    cmdline: str = ""
    start_time: str = ""
    return_code: Optional[int] = None
    settings: "Settings" = field(default_factory=lambda: Settings())
    system: "System" = field(default_factory=lambda: System())
    # rtlat's "context": bare metal, container, VM (judge/where.py)
    context: "Context" = field(default_factory=lambda: Context())
    rt: Optional["RtSetup"] = None      # None: the file does not say
    dists: List[Dist] = field(default_factory=list)
    seconds: Optional[List[Tuple[float, float, float, float]]] = None
    # timer: the seconds' minima, averages and maxima summarised
    # ({"min"|"avg"|"max": SecondsFigure})
    seconds_summary: Dict[str, "SecondsFigure"] = field(default_factory=dict)
    rounds: List[Round] = field(default_factory=list)
    notes: List[str] = field(default_factory=list)
    explain: Optional[Explain] = None
    layer: List[Second] = field(default_factory=list)
    doctor: List[Check] = field(default_factory=list)
    # rtlat hwlat / osnoise (kind hwlat, osnoise): what the file holds
    hardware: "Optional[Hwlat | Osnoise]" = None
    # Each CPU's SMI count at the start and the end ("smi"), where read
    smi: Dict[int, Tuple[int, int]] = field(default_factory=dict)
    # False: the series measure different things (no "all" of them)
    alike: bool = True
    elapsed_s: Optional[float] = None   # how long it measured (fleet)
    # How long the run lasted as another tool's output states it (rtla's
    # "duration"); rtlat's own files say it in settings.duration_s.
    stated_s: Optional[float] = None
    # The wall clock of the run's start and end (rtlat's start/end_rfc3339,
    # rt-tests' start/end_time): merging orders runs by them.
    wall_start: Optional[datetime] = None
    wall_end: Optional[datetime] = None
    # timer: each CPU's seconds of timer -c LIST [(name, [(t, min, avg,
    # max)])], overruns, mode switches (msw), its -h histograms' cells.
    cpu_seconds: List[Tuple[str, list]] = field(default_factory=list)
    overruns: Optional[int] = None
    msw: Optional[int] = None
    cells: Optional["Cells"] = None
    # pair tests: {series: receive timeouts} where there were some
    timeouts: Dict[str, int] = field(default_factory=dict)
    # Long runs: the time line, the largest samples, and whether the file
    # is the final write (complete; False with a checkpoint: the run
    # stopped after it).
    timeline: Optional["Timeline"] = None
    largest: Optional["Largest"] = None
    complete: Optional[bool] = None
    checkpoint: Optional["Checkpoint"] = None
    merged_from: int = 0    # merge.py: how many runs it was made of
    # How the run judged itself and how it ended (the judge's verdict).
    fleet: Optional[Fleet] = None
    moved: List[Moved] = field(default_factory=list)
    error: str = ""             # rtlat's "error": why it exited 1
    stopped_by: str = ""        # rtlat's "stopped_by" (timer -b)

    def headlines(self):
        """(name, distribution) rows that summarise the test: its
        headline, or each series where they are not alike."""
        if not self.alike and self.kind != "request":
            return [(d.name, d) for d in self.dists]
        d = self.headline()
        if d is None:
            return [("–", None)]
        if self.kind == "request":
            r = last_round(self)
            n = r.load_processes
            return [(f"response, {n} load{'' if n == 1 else 's'}", d)]
        return [("all" if len(self.dists) > 1 else d.name, d)]

    def headline(self):
        """The one distribution a summary row shows: every sample of the
        test (all pairs/CPUs together); request: Response Time of the most
        loaded round, as `rtlat suite` reports it."""
        if self.kind == "request":
            r = last_round(self)
            return r.series.get("response") if r else None
        if len(self.dists) == 1:
            return self.dists[0]
        if not self.dists or not self.alike:
            return None
        return merge("all", self.dists)


def last_round(test):
    full = [r for r in test.rounds if r.samples > 0]
    return full[-1] if full else None


@dataclass
class HwlatEvent:
    """One event of the kernel's hwlat tracer (rtlat hwlat): the largest
    gap seen inside the sampling loop (inner) and between two of its
    reads (outer), the NMIs in its window."""
    seq: int
    cpu: Optional[int]
    ts: str
    inner_us: int
    outer_us: int
    count: int = 0
    nmi_count: int = 0
    nmi_total_us: Optional[int] = None


@dataclass
class Hwlat:
    """rtlat hwlat --json (or qualify's hwlat phase): its tracer's
    settings, the events, how long it covered, the SMI counts per CPU
    (start, end); skipped: why it did not run (no tracer)."""
    path: str
    events: List[HwlatEvent] = field(default_factory=list)
    total: int = 0              # events the tracer reported (kept: events)
    threshold_us: Optional[int] = None
    window_us: Optional[int] = None
    width_us: Optional[int] = None
    mode: str = ""
    covered_s: Optional[float] = None
    smi: Dict[int, Tuple[int, int]] = field(default_factory=dict)
    skipped: str = ""
    error: str = ""             # rtlat's "error": why it exited 1


@dataclass
class OsnoiseCpu:
    """One CPU of rtlat osnoise: its noise share of the runtime, the
    largest noise in a period and the largest single one, the counts of
    interference by class (hw, nmi, irq, softirq, thread)."""
    cpu: int
    periods: int
    runtime_us: int
    noise_us: int
    noise_share: float
    max_noise_us: int
    max_single_us: int
    counts: Dict[str, int] = field(default_factory=dict)


@dataclass
class Osnoise:
    """rtlat osnoise --json: each CPU's noise; skipped: why it did not
    run (no tracer)."""
    path: str
    cpus: List[OsnoiseCpu] = field(default_factory=list)
    covered_s: Optional[float] = None
    smi: Dict[int, Tuple[int, int]] = field(default_factory=dict)
    skipped: str = ""
    error: str = ""             # rtlat's "error": why it exited 1


@dataclass
class Run:
    """One input (a results directory or a file) under its label."""
    label: str
    path: str
    tests: Dict[str, Test] = field(default_factory=dict)
    notes: List[str] = field(default_factory=list)
    doctor: List[Check] = field(default_factory=list)   # rtlat doctor --json
    # rtlat hwlat and rtlat osnoise results (no latency series: not tests)
    hwlat: List[Hwlat] = field(default_factory=list)
    osnoise: List[Osnoise] = field(default_factory=list)
    unreadable: List[str] = field(default_factory=list)  # "file: why"
    skipped: List[str] = field(default_factory=list)  # not regular files
    # The suite's order of tests, from the registry.json it leaves beside
    # its results (rtlat --list); empty for a single file.
    order: List[str] = field(default_factory=list)
    # A suite's results directory: what its index.json says (None: no
    # index, or not a directory).
    suite: Optional["SuiteIndex"] = None
    # A results directory's index.json "fleet": the suite's verdict and
    # thresholds over its tests (their own files hold none).
    fleet: Optional[Fleet] = None


@dataclass
class Settings:
    """What a test was run with. The named fields are what the report
    computes with; shown is every setting of the file flattened
    ("layout.client_cpu": value), kept only to be listed on the page and
    compared key by key between runs (judge/alerts.py): nothing reads a
    figure out of it."""
    duration_s: Optional[float] = None  # the length asked for
    # The cycle period (ns): rtlat's period_us/interval_us, cyclictest's -i
    period_ns: Optional[float] = None
    shown: Mapping[str, object] = field(default_factory=dict)


@dataclass
class Cells:
    """timer -h's histograms: how many samples (avg), seconds' minima and
    maxima fell beyond the last cell, and the cells' number and width."""
    avg: int = 0
    min: int = 0
    max: int = 0
    cells: Optional[float] = None
    bucket_ns: Optional[float] = None


@dataclass
class Checkpoint:
    """A checkpoint's record in a file written before the run's end: the
    span it covers, the span planned (None: not recorded) and when it was
    written (RFC 3339 as the file has it; None for a merged run)."""
    covered_s: Optional[float] = None
    planned_s: Optional[float] = None
    at_wall: Optional[str] = None


@dataclass
class Stressor:
    """One stress-ng stressor of a loaded phase: its bogo-ops in all and
    per second of real time (the load's own throughput)."""
    name: str
    bogo_ops: float
    per_s: float


@dataclass
class LoadCmd:
    """--load-cmd's command beside a phase: its exit status (128+signal),
    whether rtlat stopped it, its last lines of output."""
    command: str
    exit_status: Optional[int]
    stopped: bool
    output_tail: List[str] = field(default_factory=list)


@dataclass
class PhaseLoad:
    """The load beside a phase of rtlat qualify (or a test of rtlat suite
    --load): what stress-ng did, hackbench, the command."""
    stress_ng: bool
    version: str = ""
    status: Optional[int] = None
    hackbench: bool = False
    seconds: Optional[float] = None
    stressors: List[Stressor] = field(default_factory=list)
    cmd: Optional[LoadCmd] = None


@dataclass
class SuiteTest:
    """A test of a suite's index: its name and state (done, running,
    pending, not run); in rtlat qualify's, its phase (hwlat, idle, load),
    why it did not run, and the load beside it."""
    name: str
    state: str
    phase: str = ""
    why: str = ""
    load: Optional[PhaseLoad] = None


@dataclass
class SuiteIndex:
    """A suite's index.json (read once, read/rtlat.py read_suite):
    readable False when it is there but cannot be read; complete False
    when the suite did not reach its end; its tests in order; when it was
    last written (its checkpoint); its verdict and thresholds; series:
    {test: its series} from the registry beside it. fleet: the suite's
    judgement of each record, kept as the file has it because the exports
    lay it verbatim over each test's document (judge/suite.py)."""
    readable: bool = True
    command: str = ""           # "qualify"; "" for rtlat suite
    complete: Optional[bool] = None
    tests: Optional[List[SuiteTest]] = None     # None: the index has no list

    at_wall: Optional[str] = None
    verdict: Optional[str] = None
    max_latency_us: Optional[float] = None
    max_p99_us: Optional[float] = None
    series: Dict[str, Tuple[str, ...]] = field(default_factory=dict)
    fleet: Optional[Mapping[str, object]] = None


def fmt_us(ns):
    """Nanoseconds as the report writes microseconds (without matplotlib:
    the man page is made where it may not be installed)."""
    if isinstance(ns, bool) or not isinstance(ns, (int, float)):
        return "–"      # None, or what a file had in a number's place
    v = ns / 1000.0
    return f"{v:.2f}" if abs(v) < 100000 else f"{v:.0f}"


# --- long runs: the time line and the largest samples --------------------

class SeriesKey(NamedTuple):
    """What names a series in the time line and the largest samples
    alike: its series name ("latency"), thread and CPU (None: not one)."""
    series: str
    thread: int
    cpu: Optional[int]


def series_for(entries, cpu, place, alone):
    """The entry (TimelineSeries, LargestSeries) of one of a test's
    distributions: the one on its CPU (cpu: the Dist's), else the one of
    its thread (place: its place among the test's series), else the only
    one where the test has one series (alone); None."""
    if cpu is not None:
        for e in entries:
            if e.cpu == cpu:
                return e
    for e in entries:
        if e.thread == place:
            return e
    return entries[0] if len(entries) == 1 and alone else None


@dataclass
class LargestSeries:
    """The k largest samples of one series: rows (ns, t_s from the
    start, CPU or None), largest first as the file has them, and how many
    samples they were taken from (seen; None: not said)."""
    test: str
    name: str
    thread: int
    cpu: Optional[int]
    seen: Optional[int] = None
    rows: List[Tuple[float, float, Optional[int]]] = field(
        default_factory=list)

    @property
    def key(self):
        return SeriesKey(self.name, self.thread, self.cpu)


@dataclass
class Largest:
    """A test's largest samples (--largest K): K and each series'."""
    k: int
    series: List[LargestSeries] = field(default_factory=list)


@dataclass
class TimelineSeries:
    """One series of a time line (a pair's receiver, a CPU). rows:
    [t_s from the time line's start, wall, n, min, avg, max, p99, over]
    (ns; None where the step has no sample)."""
    test: str
    name: str
    thread: int
    cpu: Optional[int]
    threshold_ns: Optional[float]
    rows: List[list] = field(default_factory=list)
    label: str = ""
    # the timer's always-on layer: each step's context as rates per second
    layer: List[Second] = field(default_factory=list)

    @property
    def key(self):
        return SeriesKey(self.name, self.thread, self.cpu)


@dataclass
class Timeline:
    """A test's time line: its step (seconds, as the last run wrote it),
    merges two by two, the wall clock of t_s 0, the series, and the spans
    no run covered (merged runs: [from_s, to_s))."""
    step_s: float
    merges: int
    cap: Optional[int]
    start_wall: Optional[datetime]
    series: List[TimelineSeries] = field(default_factory=list)
    gaps: List[tuple] = field(default_factory=list)
    runs: int = 1

    def end_s(self):
        ends = [r[0] for s in self.series for r in s.rows]
        return max(ends) + self.step_s if ends else 0.0


def duration(s):
    """23 h 10 min, 5 min 3 s, 12.5 s, 7 d 2 h."""
    if s is None:
        return "?"
    s = float(s)
    if s < 60:
        return f"{s:.3g} s"
    m = int(round(s)) // 60
    if m < 60:
        sec = int(round(s)) % 60
        return f"{m} min" + (f" {sec} s" if sec else "")
    h, m = divmod(int(round(s / 60)), 60)
    if h < 48:
        return f"{h} h" + (f" {m} min" if m else "")
    d, h = divmod(h, 24)
    return f"{d} d" + (f" {h} h" if h else "")


# --- where and on what it ran ---------------------------------------------

SYSTEM_FIELDS = ("host", "kernel", "kernel_version", "machine",
                 "preempt_model", "sys_kernel_realtime", "clocksource",
                 "cmdline", "isolated_cpus", "cpus_online", "governors",
                 "sched_rt_runtime_us", "sched_rt_period_us")


@dataclass
class System:
    """The system a test ran on (rtlat's "system", completed from rt-tests'
    "sysinfo"): each figure as the file has it (a string, a number or a
    list, shown as it is), None where it does not say."""
    host: object = None
    kernel: object = None
    kernel_version: object = None
    machine: object = None
    preempt_model: object = None
    sys_kernel_realtime: object = None
    clocksource: object = None
    cmdline: object = None
    isolated_cpus: object = None
    cpus_online: object = None
    governors: object = None
    sched_rt_runtime_us: object = None
    sched_rt_period_us: object = None

    def __bool__(self):
        return any(getattr(self, k) is not None for k in SYSTEM_FIELDS)


@dataclass
class Context:
    """Where a test ran (rtlat's "rtlat": {"context"}): kind (bare-metal,
    container, vm, container-in-vm; None: not recorded), the container
    engine, its cpuset and CPU quota, the hypervisor."""
    kind: Optional[str] = None
    engine: Optional[str] = None
    cpuset: Optional[str] = None
    quota_cpus: Optional[float] = None
    hypervisor: Optional[str] = None


@dataclass
class RtSetup:
    """What rtlat's real-time setup achieved (its "rt"): rt False with the
    reasons when it could not run as asked; mlockall, cpu_dma_latency and
    strict as the file says them (None: not said)."""
    rt: Optional[bool] = None
    reasons: List[str] = field(default_factory=list)
    mlockall: object = None
    cpu_dma_latency: object = None
    strict: object = None


@dataclass
class SecondsFigure:
    """One of the timer's per-second summaries (the seconds' minima,
    averages or maxima): their min, avg, max and stddev (ns)."""
    min_ns: Optional[float] = None
    avg_ns: Optional[float] = None
    max_ns: Optional[float] = None
    stddev_ns: Optional[float] = None



# --- every sample (rtlat --samples FILE) ----------------------------------

@dataclass
class SampleSeries:
    """Every sample of one series and thread: t_ns (ns since the run's
    start) and ns (the samples), two int64 numpy arrays in time order."""
    test: str
    name: str
    thread: int
    cpu: Optional[int]
    threshold_ns: Optional[int]
    t_ns: object
    ns: object

    @property
    def key(self):
        return SeriesKey(self.name, self.thread, self.cpu)

    @property
    def label(self):
        where = f"CPU {self.cpu}" if self.cpu is not None else \
            f"thread {self.thread}"
        return f"{self.test} {self.name}, {where}"


@dataclass
class Samples:
    """A --samples file: its test, the run's start (CLOCK_MONOTONIC and
    CLOCK_REALTIME ns), each series, whether the end block was there
    (complete) and its totals (None when cut short)."""
    path: str
    test: str
    origin_ns: int
    origin_wall_ns: int
    ring_rows: int
    series: List[SampleSeries] = field(default_factory=list)
    complete: bool = False
    written: Optional[int] = None
    dropped: Optional[int] = None


@dataclass
class Periodic:
    """A disturbance that comes back at a fixed period in one series'
    samples: its period (s), how far its samples stand over the median
    (ns, the folded peak), how many periods the samples span, and the
    chance that spikes with no rhythm would have shown one as strong
    (p, the search's trials counted)."""
    key: SeriesKey
    label: str
    period_s: float
    excess_ns: float
    periods: int
    p: float

    @property
    def per_hour(self):
        return 3600.0 / self.period_s
