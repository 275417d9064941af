# SPDX-License-Identifier: GPL-2.0-or-later
"""What every bench/ script shares: the QUICK switch, interleaved rounds,
medians with their spread, whole-us histograms, the peers' installation
and /dev/cpu_dma_latency held for the peers.

A shared VM gives the same command a different figure from run to run and
other work runs at the same time, so every figure a script prints is the
median over interleaved rounds (ours, peer, ours, peer, ...) with the
spread min-max over those rounds next to it.
"""
import contextlib
import json
import math
import os
import shlex
import shutil
import statistics
import struct
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
RTLAT = os.environ.get("RTLAT", str(ROOT / "rtlat"))
QUICK = os.environ.get("QUICK", "0") not in ("", "0")
# LONGRUN="--timeline 1s --checkpoint 1s" (issue 33): the vs-* scripts
# also run rtlat with these options, interleaved in the same rounds, and
# print their cost: the ratio with / without them beside the A/A noise.
LONGRUN = shlex.split(os.environ.get("LONGRUN", ""))
# The options of the arm LONGRUN is measured against ("--timeline 0" for
# the timer and its cyclictest face, whose 1-s time line is on by
# default), and PEERS=0 to leave the peers out of a LONGRUN measurement
# (the goal, a ratio <= 1.01, needs hundreds of rounds: see
# longrun_verdict()).
LONGRUN_BASE = shlex.split(os.environ.get("LONGRUN_BASE", ""))
PEERS = os.environ.get("PEERS", "1") not in ("", "0")
# AA=0: no A/A arm (rtlat without LONGRUN a second time) in a LONGRUN
# measurement: a third fewer runs a round when the verdict alone is wanted.
AA = os.environ.get("AA", "1") not in ("", "0")
LONGRUN_GOAL = 1.01
# BUDGET_S: start no round after this many seconds (0: none), so a long
# measurement fits the time a quiet machine is free; the rule is fixed
# before the run and never looks at the figures, and the rounds done are
# kept even (each order as often). RAW=FILE: each round's results, one
# JSON line, appended as it ends (kept if the run is stopped).
BUDGET_S = float(os.environ.get("BUDGET_S", "0") or 0)
RAW = os.environ.get("RAW", "")
# RTLAT_BASE=BIN (issue 49): another build of rtlat (the one before a
# change) on the same command line as RTLAT, interleaved: the arms are
# base, new and new again (the A/A), and the verdict is new / base
# against the same goal as LONGRUN's (see binary_arms()).
RTLAT_BASE = os.environ.get("RTLAT_BASE", "")
# Where a run's files go (its JSON, LONGRUN's --samples FILE): a tmpfs,
# so that a run's writes cost memory copies, not the disk's latency.
TMPFS = os.environ.get("TMPFS", "/dev/shm")


def env_int(name, full, quick):
    """An integer setting: $name, else the QUICK or the full default."""
    return int(os.environ.get(name, quick if QUICK else full))


def env_list(name, full, quick):
    """A list of integers: $name ("100 50" or "100,50"), else a default."""
    v = os.environ.get(name)
    if v is None:
        return list(quick if QUICK else full)
    return [int(x) for x in v.replace(",", " ").split()]


def need_root(prog):
    if os.geteuid():
        sys.exit(f"{prog}: run as root (SCHED_FIFO, mlockall, cpu_dma_latency)")
    if not os.access(RTLAT, os.X_OK):
        sys.exit(f"{prog}: {RTLAT} not found; run make first")


def need_tools(prog, tools, package):
    """Install the peer's package with apt-get if one of tools is missing."""
    if all(shutil.which(t) for t in tools):
        return
    print(f"{prog}: installing {package} ...", file=sys.stderr)
    r = subprocess.run(["apt-get", "install", "-y", "-q", package],
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    if r.returncode or not all(shutil.which(t) for t in tools):
        sys.exit(f"{prog}: {' '.join(tools)} missing (apt-get install {package})")


def binary_arms(run):
    """The arms that compare RTLAT_BASE with RTLAT: run(binary) runs one
    and returns its figures. "new'" (RTLAT again) is the A/A, unless
    AA=0."""
    arms = {"base": lambda: run(RTLAT_BASE), "new": lambda: run(RTLAT)}
    if AA:
        arms["new'"] = lambda: run(RTLAT)
    return arms


def need_base(prog):
    if RTLAT_BASE and not os.access(RTLAT_BASE, os.X_OK):
        sys.exit(f"{prog}: RTLAT_BASE={RTLAT_BASE} is not an executable")


def tmpfs_of(path):
    """Whether path is on a tmpfs (the longest mount point above it in
    /proc/self/mounts)."""
    best, kind = "", ""
    path = os.path.realpath(path)
    with open("/proc/self/mounts") as f:
        for line in f:
            _, mnt, fstype = line.split()[:3]
            mnt = mnt.replace("\\040", " ")
            inside = path == mnt or path.startswith(mnt.rstrip("/") + "/")
            if inside and len(mnt) >= len(best):
                best, kind = mnt, fstype
    return kind == "tmpfs"


@contextlib.contextmanager
def scratch(cmd):
    """A fresh directory on TMPFS for one run, removed after it (also when
    the run fails): yields (cmd with each "@TMP@" in its words replaced by
    the directory, the directory). LONGRUN="--samples @TMP@/x.smp" so the
    file every round writes neither grows nor reaches a disk."""
    if not tmpfs_of(TMPFS):
        sys.exit(f"TMPFS={TMPFS} is not a tmpfs: a run's files would be written to disk")
    d = tempfile.mkdtemp(prefix="rtlat-bench-", dir=TMPFS)
    try:
        yield [w.replace("@TMP@", d) for w in cmd], d
    finally:
        shutil.rmtree(d, ignore_errors=True)


class RunFailed(Exception):
    """A run that ended in error (on a loaded machine: a CPU another
    job's real-time loop starved, which rtlat calls an error): its round
    is dropped, not the measurement."""


def run_checked(argv, timeout):
    """Run argv, its output discarded; RunFailed with its last line on
    standard error when it exits non-zero."""
    r = subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                       text=True, timeout=timeout)
    if r.returncode:
        why = (r.stderr.strip().splitlines() or [""])[-1]
        raise RunFailed(f"{os.path.basename(argv[0])} exit {r.returncode}: {why}")


def samples_dropped(d):
    """Samples --samples could not write (a full ring) in one run's JSON
    d: a run that dropped some cost less than one that wrote them all,
    so a bench says so (0 without --samples)."""
    smp = d.get("samples")
    if not isinstance(smp, dict):
        return 0
    return sum(int(s.get("dropped", 0)) for s in smp.get("series", []))


def interleave(variants, rounds, label=""):
    """Run each variant once per round, in turn: {name: [result, ...]}.
    variants: {name: callable}; the order alternates the first runner
    every round so neither side always runs right after the other. A
    round where one raised RunFailed is dropped whole (its pairs would
    compare different moments), said on stdout and in RAW."""
    names = list(variants)
    res = {n: [] for n in names}
    start, dropped = time.monotonic(), 0
    for r in range(rounds):
        if BUDGET_S and r % 2 == 0 and time.monotonic() - start > BUDGET_S:
            print(f"{label}: BUDGET_S={BUDGET_S:g} reached: {r} of {rounds} rounds",
                  flush=True)
            break
        order = names if r % 2 == 0 else names[::-1]
        print(f"{label} round {r + 1}/{rounds}", file=sys.stderr, flush=True)
        try:
            row = {n: variants[n]() for n in order}
        except RunFailed as e:
            dropped += 1
            print(f"{label}: round {r + 1} dropped: {e}", flush=True)
            row = {"dropped": str(e)}
        else:
            for n in names:
                res[n].append(row[n])
        if RAW:
            with open(RAW, "a") as f:
                print(json.dumps({"round": r + 1, **row}, default=str), file=f)
    if dropped:
        print(f"{label}: {dropped} rounds dropped (a run ended in error), "
              f"{len(res[names[0]])} kept", flush=True)
    return res


def med(xs):
    return statistics.median(xs)


def spread(xs, fmt="{:.2f}"):
    """'median [min-max]' of one figure over rounds."""
    return f"{fmt.format(med(xs))} [{fmt.format(min(xs))}-{fmt.format(max(xs))}]"


def ratio(a, b):
    return a / b if b else float("nan")


def paired(a, b):
    """Per round a[r] / b[r] (rounds alternate who runs first, so each
    pair shares the machine's state of that moment)."""
    return [ratio(x, y) for x, y in zip(a, b)]


def sign_test_worse(rs):
    """One-sided sign test on paired ratios: the probability of at least
    this many rounds above 1.00 if neither side were slower (ties
    dropped). Below 0.05: slower beyond the noise."""
    k = sum(r > 1.0 for r in rs)
    n = k + sum(r < 1.0 for r in rs)
    return sum(math.comb(n, i) for i in range(k, n + 1)) / 2 ** n if n else 1.0


def median_ci(xs, conf=0.95):
    """The median of xs and a distribution-free interval for it: the
    order statistics x(k) and x(n+1-k) with the largest k whose binomial
    (n, 1/2) coverage is still >= conf (exact: no assumption about the
    shape of the noise, which on a VM has stalls). (median, lo, hi,
    coverage); lo and hi None when n is too small for conf."""
    xs = sorted(xs)
    n = len(xs)
    alpha, k, tail = 1.0 - conf, 0, 0.0
    while k < n // 2:
        nxt = tail + math.comb(n, k) / 2 ** n  # P(B <= k)
        if 2 * nxt > alpha:
            break
        tail, k = nxt, k + 1
    if k == 0:
        return med(xs), None, None, None
    return med(xs), xs[k - 1], xs[n - k], 1.0 - 2 * tail


def ci_text(xs):
    m, lo, hi, cov = median_ci(xs)
    if lo is None:
        return f"{m:.3f} (too few rounds for an interval)"
    return f"{m:.3f} [{lo:.3f}-{hi:.3f}, {cov * 100:.1f} %]"


def longrun_verdict(plus, base, base2):
    """Whether LONGRUN's cost is shown within the goal: plus, base, base2
    are one figure per round of rtlat with LONGRUN, without, and without
    again (A/A; None: not run). The paired ratios' median and its 95 % interval; the
    goal is shown when the interval's upper end is <= LONGRUN_GOAL. One
    line, in words where the rounds cannot say it."""
    return ratio_verdict(paired(plus, base),
                         None if base2 is None else paired(base2, base))


def binary_verdict(base, new, new2):
    """longrun_verdict() for RTLAT_BASE: one figure per round of base,
    new and new again (None: no A/A); the ratio is new / base, the A/A
    new again / new."""
    return ratio_verdict(paired(new, base),
                         None if new2 is None else paired(new2, new), "new/base")


def ratio_verdict(rs, aa, what="with/without"):
    """The verdict line on paired ratios rs, beside the A/A's aa (None:
    not run)."""
    _, lo, hi, _ = median_ci(rs)
    ahi = None
    head = f"{what} {ci_text(rs)}"
    if aa is not None:
        ahi = median_ci(aa)[2]
        head += f", A/A {ci_text(aa)}"
    head += f" over {len(rs)} rounds: "
    if hi is None:
        return head + "too few rounds to show anything (ROUNDS >= 6)"
    if hi <= LONGRUN_GOAL:
        return head + f"ratio <= {LONGRUN_GOAL:.2f} shown (95 % upper end {hi:.3f})"
    if lo > LONGRUN_GOAL:
        return head + f"slower than {LONGRUN_GOAL:.2f} (95 % lower end {lo:.3f})"
    return (head + f"<= {LONGRUN_GOAL:.2f} not shown: the interval reaches {hi:.3f}"
            + (f" and the A/A's {ahi:.3f}: more rounds or a quieter machine"
               if ahi is not None and ahi > LONGRUN_GOAL else ""))


def hist_rows(text):
    """Rows of a cyclictest -h style histogram ("%06d %06lu" per us) and
    its overflow count."""
    rows, over = {}, 0
    for line in text.splitlines():
        if line.startswith("# Histogram Overflows:"):
            over = int(line.split(":")[1].split()[0])
        elif line and line[0].isdigit():
            us, n = line.split()[:2]
            rows[int(us)] = rows.get(int(us), 0) + int(n)
    return rows, over


def hist_p99(rows, over, vmax):
    """Upper bound (us) of the whole-us bucket holding the 99th percentile."""
    total = sum(rows.values()) + over
    rank, cum = 0.99 * total, 0
    for us in sorted(rows):
        cum += rows[us]
        if cum >= rank:
            return us + 1
    return vmax


class DmaLatency:
    """Holds /dev/cpu_dma_latency at 0 while open, for peers that do not
    (rtlat and cyclictest hold it themselves)."""

    def __enter__(self):
        try:
            self.f = open("/dev/cpu_dma_latency", "wb", buffering=0)
            self.f.write(struct.pack("i", 0))
        except OSError as e:
            self.f = None
            print(f"warning: cannot hold /dev/cpu_dma_latency: {e}", file=sys.stderr)
        return self

    def __exit__(self, *exc):
        if self.f:
            self.f.close()


def noise_note():
    return ("(medians over interleaved rounds, [min-max] over the rounds; "
            "other work shares this machine, so read ratios near 1.00 as equal)")
