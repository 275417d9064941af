# SPDX-License-Identifier: GPL-2.0-or-later
"""The hardware layer on the page (issue 45): rtlat hwlat's events (each
with its inner and outer gap and its NMIs; per CPU their count and rate
per hour with the exact Poisson interval of the report's spike rates,
tail/spikes.py), the SMI counts, and rtlat osnoise's per-CPU noise (its
share of the runtime, the largest single noise, the counts by class).
rtlat qualify's section shows its hwlat phase per CPU from here too."""
import os

from ..units import sig
from .document import Note, Section, Table

CLASSES = ("hw", "nmi", "irq", "softirq", "thread")


def plural(n, word):
    return f"{n} {word}{'' if n == 1 else 's'}"


def per_hour(k, seconds, conf=0.95):
    """k events in seconds as '(estimate) (lo–hi)' per hour, the exact
    (Garwood) interval; '–' without a length."""
    # scipy: imported only where a page has hardware results
    from ..tail.spikes import poisson_interval
    if not seconds:
        return "–"
    h = seconds / 3600
    lo, hi = poisson_interval(k, conf)
    return f"{sig(k / h)} ({sig(lo / h)}–{sig(hi / h)})"


def hwlat_cpus(hw):
    """The CPUs hwlat covered as far as the file tells: those with an
    event or an SMI count."""
    return sorted({e.cpu for e in hw.events if e.cpu is not None} | set(hw.smi))


def cpu_events(hw, cpu):
    return [e for e in hw.events if e.cpu == cpu]


def events_text(evs):
    """One CPU's events in words: "2 events, largest gap 15 µs (outer),
    0 NMIs"."""
    if not evs:
        return "no event"
    e = max(evs, key=lambda e: max(e.inner_us, e.outer_us))
    gap, where = max((e.inner_us, "inner"), (e.outer_us, "outer"))
    return (f"{plural(len(evs), 'event')}, largest gap {gap} µs ({where}), "
            f"{plural(sum(x.nmi_count for x in evs), 'NMI')}")


def smi_delta(smi, cpu):
    return str(smi[cpu][1] - smi[cpu][0]) if cpu in smi else "–"


def smi_note(smi):
    if not smi:
        return []
    grew = any(b > a for a, b in smi.values())
    return [Note("SMI: " + ", ".join(f"CPU{c} {a} → {b}" for c, (a, b)
                                     in sorted(smi.items())) +
                 (" (SMIs during the run: the firmware took the CPU)"
                  if grew else " (none during the run)"),
                 "warn" if grew else "note")]


def not_measured(name, r):
    """Why a hwlat or osnoise run has no figures, or []."""
    if r.skipped:
        return [Note(f"{name}: not run: {r.skipped}")]
    if r.error:
        return [Note(f"{name}: ended with an error: {r.error}", "warn")]
    return []


def hwlat_blocks(name, hw, conf=0.95):
    why = not_measured(name, hw)
    if why and not hw.events:
        return why + smi_note(hw.smi)
    head = (f"{name}: {plural(len(hw.events), 'event')} over "
            f"{hw.threshold_us} µs in {sig(hw.covered_s or 0)} s (window "
            f"{hw.window_us} µs, width {hw.width_us} µs, {hw.mode})")
    if hw.total > len(hw.events):
        head += f"; {hw.total - len(hw.events)} more not kept"
    out = why + [Table(f"{head}: per CPU, events per hour of the run with "
                 f"{conf * 100:g} % intervals",
                 ["CPU", "events", "max inner µs", "max outer µs", "NMIs",
                  "per hour"],
                 [[f"CPU{c}", str(len(evs)),
                   str(max((e.inner_us for e in evs), default=0)),
                   str(max((e.outer_us for e in evs), default=0)),
                   str(sum(e.nmi_count for e in evs)),
                   per_hour(len(evs), hw.covered_s, conf)]
                  for c in hwlat_cpus(hw) for evs in [cpu_events(hw, c)]])]
    if hw.events:
        out.append(Table(f"{name}: each event (inner: inside the sampling "
                         "loop; outer: between two of its reads)",
                         ["#", "CPU", "inner µs", "outer µs", "NMIs",
                          "NMI µs", "count", "time"],
                         [[str(e.seq), "–" if e.cpu is None else f"CPU{e.cpu}",
                           str(e.inner_us), str(e.outer_us), str(e.nmi_count),
                           "–" if e.nmi_total_us is None else str(e.nmi_total_us),
                           str(e.count), e.ts] for e in hw.events],
                         numeric_from=2))
    return out + smi_note(hw.smi)


def osnoise_blocks(name, on):
    why = not_measured(name, on)
    if why and not on.cpus:
        return why + smi_note(on.smi)
    return why + [Table(f"{name}: OS noise per CPU in {sig(on.covered_s or 0)} s "
                  "(µs; noise share of the runtime; counts by class)",
                  ["CPU", "periods", "runtime µs", "noise µs", "noise share",
                   "max noise µs", "max single µs", "HW", "NMI", "IRQ",
                   "softirq", "thread"],
                  [[f"CPU{c.cpu}", str(c.periods), f"{c.runtime_us:,}",
                    f"{c.noise_us:,}", f"{c.noise_share * 100:.3g} %",
                    f"{c.max_noise_us:,}", f"{c.max_single_us:,}"] +
                   [f"{c.counts.get(k, 0):,}" for k in CLASSES]
                   for c in on.cpus])] + smi_note(on.smi)


def section(runs):
    """The section, or None where no run has hwlat or osnoise results."""
    blocks = []
    for run in runs:
        label = f"{run.label} / " if len(runs) > 1 else ""
        for hw in run.hwlat:
            blocks += hwlat_blocks(f"{label}{os.path.basename(hw.path)}", hw)
        for on in run.osnoise:
            blocks += osnoise_blocks(f"{label}{os.path.basename(on.path)}", on)
    if not blocks:
        return None
    return Section("hardware", "Hardware events and OS noise", blocks)
