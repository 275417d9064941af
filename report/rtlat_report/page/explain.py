# SPDX-License-Identifier: GPL-2.0-or-later
"""What --explain found (the worst spikes by cause, where the time went
run-wide, the log of every explained spike) and the doctor's verdicts, as
document blocks."""
from . import plots
from .document import Figure, Note, Section, Table
from ..model import Cause
from .plots import fmt_us

VERDICT_CLASS = {"ok": "v-ok", "will add latency": "v-latency",
                 "prevents real-time": "v-prevents"}
WORST = {"ok": 0, "will add latency": 2, "prevents real-time": 3}


def pct(part, whole):
    return f"{100.0 * part / whole:.1f}" if whole else "–"


def trigger_text(x):
    if x.over_ns is not None:
        return f"over {fmt_us(x.over_ns)} µs"
    return "each new maximum after the warm-up"


def cpus_text(x):
    if not x.cpus:
        return "CPU ?"
    return ("CPU " if len(x.cpus) == 1 else "CPUs ") + \
        ", ".join(str(c) for c in x.cpus)


def where_from(s):
    """The CPU and the source a spike was measured on, where the test has
    several (the pair tests), as " (CPU 1, pair 0)"."""
    parts = ([f"CPU {s.cpu}"] if s.cpu is not None else []) + \
        ([s.source] if s.source else [])
    return f" ({', '.join(parts)})" if parts else ""


def seconds(v):
    return "–" if v is None else f"{v:.3f}"


def spike_label(i, s):
    return f"#{i + 1}  at {seconds(s.time_s)} s: {fmt_us(s.latency_ns)} µs" \
        + where_from(s)


def explain_section(sid, title, fid, label, x):
    s = Section(sid, title, level=3)
    read = f", {x.events} kernel events read" if x.events is not None else ""
    if not x.explained or not (x.spikes or x.where):
        s.blocks.append(Note(f"{label}: no spike crossed the trigger "
                             f"({trigger_text(x)}; {cpus_text(x)}): "
                             f"nothing to explain{read}"))
        return s
    s.blocks.append(Note(
        f"{label}: {x.explained} spikes explained (trigger: "
        f"{trigger_text(x)}; {cpus_text(x)}), {x.skipped} skipped{read}"))
    spikes = [p for p in x.spikes if p.causes]
    if spikes:
        s.blocks.append(Figure(
            f"{fid}-spikes", f"{title}: the worst spikes by cause",
            plots.spikes_figure(f"{title}: the worst spikes by cause",
                                spikes, [spike_label(i, p) for i, p in
                                         enumerate(spikes)]), wide=True))
        s.blocks.append(spike_table(title, spikes))
    s.blocks += where_blocks(title, fid, x)
    if x.log:
        s.blocks.append(log_table(title, x.log))
    return s


def spike_table(title, spikes):
    rows, cls = [], []
    for i, p in enumerate(spikes):
        extra = [f"{p.events} events"] if p.events is not None else []
        if p.steal_ms is not None:
            extra.append(f"steal {p.steal_ms:g} ms in that second")
        rows.append([str(i + 1), seconds(p.time_s) + where_from(p),
                     "latency" + (f" ({'; '.join(extra)})" if extra else ""),
                     "", fmt_us(p.latency_ns), "100.0"])
        cls.append("total")
        for c in p.causes:
            rows.append(["", "", c.cause, plots.kind_name(c.kind),
                         fmt_us(c.ns), pct(c.ns, p.latency_ns)])
            cls.append("")
    return Table(f"{title}: the worst spikes, their causes in order (µs, % "
                 "of the spike's latency)",
                 ["#", "at (s)", "cause", "kind", "µs", "%"], rows, cls,
                 numeric_from=4)


def where_blocks(title, fid, x):
    total = x.where_total()
    rows = list(x.where)
    if x.other_ns:
        rows.append(Cause("other (causes beyond the ones kept)", "other",
                          x.other_ns))
    if not rows or not total:
        return []
    rows.sort(key=lambda c: -c.ns)
    caption = f"{title}: where the time over the threshold went " \
        "(every explained spike, by cause)"
    table = Table(caption, ["cause", "kind", "µs", "%"],
                  [[c.cause, plots.kind_name(c.kind), fmt_us(c.ns),
                    pct(c.ns, total)] for c in rows] +
                  [["all explained spikes", "", fmt_us(total), "100.0"]],
                  [""] * len(rows) + ["total"], numeric_from=2)
    return [Figure(f"{fid}-where", f"{title}: where the time went",
                   plots.where_figure(f"{title}: where the time over the "
                                      "threshold went", rows, total),
                   wide=True), table]


def log_table(title, log):
    rows = [[seconds(p.time_s) + where_from(p), fmt_us(p.latency_ns)] +
            ([p.causes[0].cause, plots.kind_name(p.causes[0].kind),
              fmt_us(p.causes[0].ns)] if p.causes else ["–", "", "–"])
            for p in log]
    return Table(f"{title}: the first {len(log)} explained spikes, each "
                 "with its main cause (µs)",
                 ["at (s)", "latency", "main cause", "kind", "µs"],
                 [[r[0], r[2], r[3], r[1], r[4]] for r in rows],
                 collapsed=True, numeric_from=3)


def worst(verdicts):
    return max(verdicts, key=lambda v: WORST.get(v, 1))


def run_checks(run):
    """The run's checks: those of `rtlat doctor --json` if given, else the
    worst verdict of each check over the run's results."""
    if run.doctor:
        return {c.key: c for c in run.doctor}
    out = {}
    for t in run.tests.values():
        for c in t.doctor:
            if c.key not in out or WORST.get(c.verdict, 1) > \
                    WORST.get(out[c.key].verdict, 1):
                out[c.key] = c
    return out


def doctor_blocks(runs):
    """The doctor's verdicts of each run: item, verdict, and the figure
    and the fix where a doctor file gave them."""
    checks = [run_checks(r) for r in runs]
    keys = []
    for cs in checks:
        keys += [k for k in cs if k not in keys]
    if not keys:
        return []
    full = any(c.detail or c.fix for cs in checks for c in cs.values())
    header, rows, cells = ["item"], [], []
    for r in runs:
        name = f"{r.label}: " if len(runs) > 1 else ""
        header += [f"{name}verdict"] + ([f"{name}figure / fix"] if full
                                        else [])
    for k in keys:
        title = next(cs[k].title for cs in checks if k in cs)
        row, cl = [title], [""]
        for cs in checks:
            c = cs.get(k)
            row.append(c.verdict if c else "–")
            cl.append(VERDICT_CLASS.get(c.verdict, "") if c else "")
            if full:
                row.append(figure_fix(c))
                cl.append("")
        rows.append(row)
        cells.append(cl)
    overall = [worst([c.verdict for c in cs.values()]) if cs else "–"
               for cs in checks]
    rows.append(["overall"] + sum(([v] + ([""] if full else [])
                                   for v in overall), []))
    cells.append([""] + sum(([VERDICT_CLASS.get(v, "")] +
                             ([""] if full else []) for v in overall), []))
    out = [Table("rtlat doctor: can these results be trusted?", header,
                 rows, ["total" if i == len(keys) else ""
                        for i in range(len(rows))],
                 numeric_from=99, cell_class=cells)]
    if not full:
        out.append(Note("the results store each check's verdict only: run "
                        "rtlat doctor on the machine (or give its --json "
                        "file to rtlat-report) for each figure and fix"))
    return out


def figure_fix(c):
    if c is None:
        return "–"
    if c.fix:
        return f"{c.detail}; fix: {c.fix}" if c.detail else f"fix: {c.fix}"
    return c.detail or "–"
