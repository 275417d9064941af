# SPDX-License-Identifier: GPL-2.0-or-later
"""From runs to the document: an overview (inputs, warnings, one summary
row per test and run with ratios), the system snapshot, then one section
per test, its runs overlaid in every figure and side by side in every
table."""
import re
from dataclasses import replace

from . import hardware, plots, timeline
from ..judge.alerts import cell, comparison_warnings, differing_settings, \
    lost_samples, plural
from .explain import doctor_blocks, explain_section
from .document import Alert, Document, Figure, Note, Section, Table
from ..model import PERCENTILES, last_round, merge
from .plots import fmt_us
from ..judge.overall import ending, judged_items, worst
from ..judge.verdict import FIGURES, REGRESSION, Rule
from ..model import Judged, System
from ..units import latency
from ..judge.where import context_warnings

STAT_HEADER = ["samples", "min", "avg", "stddev"] + list(PERCENTILES) + \
    ["max", "overflow"]


def ratio(a, b):
    if a is None or b is None or a == 0:
        return "–"
    return f"×{b / a:.2f}"


def stat_row(d):
    if d is None:
        return ["–"] * len(STAT_HEADER)
    if d.samples == 0:
        return ["0"] + ["–"] * (len(STAT_HEADER) - 1)
    vals = [d.min_ns, d.avg_ns, d.stddev_ns] + \
        [d.percentile(p) for p in PERCENTILES] + [d.max_ns]
    return [str(d.samples)] + [fmt_us(v) for v in vals] + \
        [str(d.overflow) if d.bucket_ns else "–"]


def ratio_row(base, d, rule):
    """A later run's ratio to the first, each latency figure with its
    verdict beside it: (cells, cell classes, {figure: Verdict})."""
    n = len(STAT_HEADER)
    if base is None or d is None or not base.samples or not d.samples:
        return ["–"] * n, [""] * n, {}
    judged = rule.judge_all(base, d)
    return ([ratio(base.samples, d.samples)] +
            [judged[f].text() for f in FIGURES] + ["–"],
            [""] + [judged[f].css for f in FIGURES] + [""], judged)


def groups(runs):
    """Test key -> [(run index, run, test)], in the suite's order (the
    registry a results directory carries), then as the results come."""
    keys, order = [], []
    for r in runs:
        keys += [k for k in r.tests if k not in keys]
        order += [n for n in r.order if n not in order]
    names = {k: r.tests[k].name for r in runs for k in r.tests}
    rank = {k: (order.index(names[k]) if names[k] in order else len(order),
                keys.index(k)) for k in keys}
    return [(k, [(i, r, r.tests[k]) for i, r in enumerate(runs)
                 if k in r.tests]) for k in sorted(keys, key=rank.get)]


def build(runs, title, generated, rule=None):
    rule = rule or Rule()
    doc = Document(title=title, generated=generated, runs=runs)
    grouped = groups(runs)
    doc.sections.append(overview(runs, grouped, rule))
    doc.sections.append(system_section(runs))
    hw = hardware.section(runs)
    if hw is not None:
        doc.sections.append(hw)
    for key, members in grouped:
        doc.sections.append(test_section(key, members, len(runs) > 1, rule))
        doc.sections += explain_sections(key, members, len(runs) > 1)
    return doc


def explain_sections(key, members, compare):
    """One section per run whose result has --explain's data."""
    out = []
    for i, r, t in members:
        if t.explain is None:
            continue
        suffix = f"-{slug(r.label)}" if compare else ""
        title = f"{key}: explain" + (f" ({r.label})" if compare else "")
        fid = f"{slug(key)}-explain" + (f"-{i}" if compare else "")
        out.append(explain_section(f"explain-{slug(key)}{suffix}", title,
                                   fid, r.label, t.explain))
    return out


def overview(runs, grouped, rule):
    s = Section("overview", "Overview")
    verdict_at = len(s.blocks)
    s.blocks += alert_blocks(runs, grouped)
    s.blocks.append(Table("Inputs", ["run", "path", "tests", "host",
                                     "kernel", "preemption", "tool"],
                          [input_row(r) for r in runs], numeric_from=99))
    s.blocks += doctor_blocks(runs)
    s.blocks += [Note(w, "warn") for w in warnings(runs)]
    header = ["test", "run", "series"] + STAT_HEADER
    rows, cls, marks, verdicts = [], [], [], []
    for key, members in grouped:
        base = dict(members[0][2].headlines())
        for n, (_, run, t) in enumerate(members):
            for name, d in t.headlines():
                rows.append([key, run.label, name] + stat_row(d))
                cls.append("")
                marks.append([])
                if n and len(members) > 1 and name in base:
                    vs = f"{run.label} / {members[0][1].label}" + \
                        timeline.partial_mark(t, members[0][2])
                    cells, css, judged = ratio_row(base[name], d, rule)
                    rows.append([key, vs, f"ratio ({name})" if not t.alike
                                 else "ratio"] + cells)
                    cls.append("ratio")
                    marks.append(["", "", ""] + css)
                    verdicts.append([key, vs, name, judged])
    if verdicts:
        s.blocks.append(verdict_table(verdicts, rule))
    s.judged = judged_items(runs) + comparison_items(verdicts)
    s.blocks.insert(verdict_at, verdict_block(s.judged, [worst(runs)]))
    s.blocks[verdict_at + 1:verdict_at + 1] = timeline.incomplete_alert(runs)
    s.blocks.append(Table("Summary: every sample of each test (request: "
                          "Response Time of the most loaded round), µs",
                          header, rows, cls, numeric_from=3,
                          cell_class=marks))
    return s


def with_section(doc, at, section):
    """doc with section inserted at index at, what it judged (the gate)
    added to the Overview's verdict box."""
    doc.sections.insert(at, section)
    if not section.judged:
        return doc
    ov = next(s for s in doc.sections if s.id == "overview")
    i = next(i for i, b in enumerate(ov.blocks)
             if isinstance(b, Alert) and b.id == "alert-verdict")
    ov.judged = section.judged + ov.judged
    ov.blocks[i] = verdict_block(ov.judged, [worst(doc.runs)])
    return doc


def comparison_items(verdicts):
    """A Judged item per later run and series compared with the first:
    REGRESSION naming the figures, else the best it can say."""
    out = []
    for key, vs, name, judged in verdicts:
        worse = [f for f, v in judged.items() if v.word == REGRESSION]
        if worse:
            out.append(Judged("comparison", f"{key} {vs} ({name})",
                              "REGRESSION", ", ".join(
                                  f"{f} {judged[f].text()}" for f in worse)))
        else:
            words = sorted({v.word for v in judged.values() if v.word})
            out.append(Judged("comparison", f"{key} {vs} ({name})",
                              "not worse", ", ".join(words) or "–"))
    return out


def verdict_block(items, worsts):
    """The page's first words: the overall verdict, each judged item
    (failures first, by name), the worst CPU and the worst series."""
    failed = [j for j in items if j.failed and j.kind != "ending"]
    ended = [j for j in items if j.kind == "ending"]
    th = [j for j in items if j.kind == "threshold"]
    parts = []
    if th:
        bad = sum(j.verdict == "FAIL" for j in th)
        parts.append(f"{bad} of {plural(len(th), 'threshold')} failed")
    unmeasured = [j for j in items if j.kind == "measurement"]
    if unmeasured:
        parts.append(f"{len(unmeasured)} series not measured")
    for kind in sorted({j.kind for j in items} -
                       {"threshold", "ending", "measurement"}):
        of = [j for j in items if j.kind == kind]
        parts.append(f"{sum(j.failed for j in of)} of "
                     f"{plural(len(of), kind)} failed")
    if ended:
        parts.append(f"{plural(len(ended), 'run')} ended early")
    if any(j.kind != "comparison" for j in failed):
        word, level = "FAIL", "fail"
    elif failed:        # only later runs worse than the first
        word, level = "REGRESSION", "fail"
    elif ended:
        word, level = "ENDED EARLY", "fail"
    elif any(j.verdict == "cannot tell" for j in items):
        word, level = "CANNOT TELL", "none"
    elif items:
        word, level = "PASS", "pass"
    else:
        word, level = "nothing judged", "none"
        parts.append("no threshold set (rtlat --max-latency, --max-p99), "
                     "no run to compare with")
    lines = [f"{j.verdict}: {j.kind} {j.name}" + (f": {j.detail}"
                                                   if j.detail else "")
             for j in sorted(items, key=lambda j: (not j.failed,
                                                   j.kind != "ending"))]
    for w in worsts:
        if w.cpu:
            lines.append(f"worst CPU: {w.cpu[0]} (max {latency(w.cpu[1])}"
                         + (f", {w.cpu[2]}" if w.cpu[2] else "") + ")")
        if w.series:
            lines.append(f"worst series: {w.series[0]} (max "
                         f"{latency(w.series[1])}" +
                         (f", {w.series[2]}" if w.series[2] else "") + ")")
    return Alert(f"{word}" + (f" ({'; '.join(parts)})" if parts else ""),
                 lines, "alert-verdict", word="Verdict", level=level)


def alert_blocks(runs, grouped):
    """The Overview's warning boxes: runs compared that are not alike, and
    samples lost or beyond the histogram."""
    out = []
    unlike = comparison_warnings(grouped) if len(runs) > 1 else []
    if unlike:
        out.append(Alert("the compared runs are not alike", unlike,
                         "alert-unlike"))
    mixed = context_warnings(grouped) if len(runs) > 1 else []
    if mixed:
        out.append(Alert("the compared runs ran in different places "
                         "(bare metal, container, VM)", mixed,
                         "alert-context"))
    lost = lost_samples(runs)
    if lost:
        out.append(Alert("overruns and histogram overflows", lost,
                         "alert-lost"))
    return out


def verdict_table(verdicts, rule):
    """Per test and later run: which figures regressed, improved, stayed
    within noise or had too few samples to say."""
    words = ("regression", "improvement", "within noise", "n too small")
    rows, marks = [], []
    for key, vs, name, judged in verdicts:
        by = {w: [f for f, v in judged.items() if v.word == w] for w in words}
        rows.append([key, vs, name] + [", ".join(by[w]) or "–"
                                       for w in words])
        marks.append(["", "", "", "v-regression" if by[words[0]] else "",
                      "v-improvement" if by[words[1]] else "", "", ""])
    return Table(f"Verdicts (later run against the first; {rule.describe()})",
                 ["test", "runs", "series"] + list(words), rows,
                 numeric_from=99, cell_class=marks)


def first_system(run):
    for t in run.tests.values():
        if t.system:
            return t.system
    return System()


def input_row(run):
    sy = first_system(run)
    tools = sorted({t.tool for t in run.tests.values()})
    return [run.label, run.path, ", ".join(k for k, _ in groups([run])),
            str(sy.host or "–"), str(sy.kernel or "–"),
            str(sy.preempt_model or "–"), ", ".join(tools)]


def warnings(runs):
    out = []
    for r in runs:
        out += [f"{r.label}: UNREADABLE, left out of this page: {u}"
                for u in r.unreadable]
        out += [f"{r.label}: SKIPPED: {u}" for u in r.skipped]
        out += [f"{r.label}: {n}" for n in r.notes]
        for t in r.tests.values():
            out += [f"{r.label} / {t.key}: {w}" for w in test_warnings(t)]
    return out


def test_warnings(t):
    out = [f"INCOMPLETE: {timeline.coverage(t)}"] if \
        timeline.incomplete(t) else []
    if t.rt is not None and t.rt.rt is False:
        why = "; ".join(t.rt.reasons) or "no reason recorded"
        out.append(f"not real-time (rt: false): {why}")
    if t.return_code not in (None, 0):
        why = ending(t) if not timeline.incomplete(t) else None
        if t.return_code == 3 and not why:
            why = "a threshold was exceeded"
        out.append(f"return code {t.return_code}" +
                   (f": {why}" if why else ""))
    if any(r.partial for r in t.rounds):
        out.append("a round was interrupted (partial)")
    if t.dists and all(d.samples == 0 for d in t.dists):
        out.append("no samples (stopped at once?)")
    return out


SYSTEM_ROWS = [
    ("host", "host"), ("kernel", "kernel"), ("kernel_version", "uname -v"),
    ("machine", "machine"), ("preempt_model", "preemption model"),
    ("sys_kernel_realtime", "/sys/kernel/realtime"),
    ("clocksource", "clocksource"), ("cpus_online", "CPUs online"),
    ("isolated_cpus", "isolated CPUs"), ("governors", "frequency governors"),
    ("cmdline", "kernel command line"),
]


def throttling(sy):
    rt, per = sy.sched_rt_runtime_us, sy.sched_rt_period_us
    if rt is None:
        return "–"
    if rt == -1:
        return "off (sched_rt_runtime_us -1)"
    return f"on: {rt} of {per} µs"


def rt_applied(run):
    """What the real-time setup achieved, per test of the run."""
    yes, no, unknown = [], [], []
    for t in run.tests.values():
        if t.rt is None:
            unknown.append(t.key)
        elif t.rt.rt is False:
            no.append(t.key)
        else:
            yes.append(t.key)
    parts = []
    if yes and not no and not unknown:
        return "yes (every test)"
    if yes:
        parts.append("yes: " + ", ".join(yes))
    if no:
        parts.append("NO: " + ", ".join(no))
    if unknown:
        parts.append("not recorded: " + ", ".join(unknown))
    return "; ".join(parts) or "–"


def rt_detail(run, key):
    vals = {str(getattr(t.rt, key)) for t in run.tests.values()
            if t.rt is not None and getattr(t.rt, key) is not None}
    return ", ".join(sorted(vals)) or "–"


def system_section(runs):
    s = Section("system", "System")
    systems = [first_system(r) for r in runs]
    rows = [[name] + [cell(getattr(sy, key)) for sy in systems]
            for key, name in SYSTEM_ROWS]
    rows.append(["RT throttling"] + [throttling(sy) for sy in systems])
    rows.append(["real-time setup applied"] + [rt_applied(r) for r in runs])
    rows += [[f"RT: {k}"] + [rt_detail(r, k) for r in runs]
             for k in ("mlockall", "cpu_dma_latency", "strict")]
    cls = [diff_class(row[1:]) for row in rows]
    for i, row in enumerate(rows):
        if any(v.startswith("NO") or "NO:" in v for v in row[1:]):
            cls[i] = "warn"
    s.blocks.append(Table("System snapshot (first file of each run; rows "
                          "that differ between runs are marked)",
                          ["", *[r.label for r in runs]], rows, cls,
                          numeric_from=99))
    return s


def diff_class(values):
    return "differs" if len(set(values)) > 1 else ""


def test_section(key, members, compare, rule):
    t0 = members[0][2]
    s = Section(f"test-{slug(key)}", f"{key} ({t0.kind})")
    s.blocks.append(Table("Runs", ["run", "tool", "command", "started",
                                   "return code"],
                          [[r.label, t.tool, t.cmdline or "–",
                            t.start_time or "–", cell(t.return_code)]
                           for _, r, t in members], numeric_from=99))
    if compare:
        s.blocks += settings_tables(members)
    for _, r, t in members:
        s.blocks += [Note(f"{r.label}: {n}") for n in t.notes]
        s.blocks += [Note(f"{r.label}: {w}", "warn")
                     for w in test_warnings(t)]
    if t0.kind == "request":
        s.blocks += request_blocks(key, members, compare, rule)
    else:
        s.blocks += dist_blocks(key, members, compare, rule)
        if t0.kind == "timer":
            s.blocks += timer_blocks(key, members)
    s.blocks += timeline.blocks(key, slug(key), members)
    return s


def slug(key):
    return re.sub(r"[^a-z0-9]+", "-", key.lower()).strip("-")


def settings_tables(members):
    keys = []
    for _, _, t in members:
        keys += [k for k in t.settings.shown if k not in keys]
    rows = [[k] + [cell(t.settings.shown.get(k)) for _, _, t in members]
            for k in keys]
    diff = [[k] + vals for k, vals in differing_settings(members)]
    header = ["setting"] + [r.label for _, r, _ in members]
    out = []
    if diff:
        out.append(Note("settings differ between the compared runs: " +
                        "; ".join(f"{d[0]} " + " vs ".join(d[1:])
                                  for d in diff), "warn"))
        out.append(Table("Settings that differ", header, diff,
                         ["differs"] * len(diff), numeric_from=99))
    out.append(Table("All settings", header, rows,
                     [diff_class(r[1:]) for r in rows], collapsed=True,
                     numeric_from=99))
    return out


def curves_for(members, compare, pick):
    """Figure curves: one per pair/CPU for one run; one per run (all its
    pairs/CPUs together) when runs are compared."""
    out = []
    for i, r, t in members:
        ds = pick(t)
        if compare and not t.alike:     # unlike series: each its own curve
            out += [(f"{r.label}: {d.name}", d, plots.color(i * 8 + j))
                    for j, d in enumerate(ds) if d.has_hist]
        elif compare:
            d = ds[0] if len(ds) == 1 else merge("all", ds)
            if d.has_hist:
                out.append((r.label, d, plots.color(i)))
        else:
            out += [(d.name, d, plots.color(j)) for j, d in enumerate(ds)
                    if d.has_hist]
    return out


def dist_figures(fid, title, curves):
    if not curves:
        return [Note(f"{title}: no histogram to draw")]
    return [Figure(f"{fid}-hist", f"{title}: histogram",
                   plots.histogram_figure(f"{title}: histogram", curves)),
            Figure(f"{fid}-pct", f"{title}: percentiles",
                   plots.percentile_figure(f"{title}: percentiles", curves))]


def dist_blocks(key, members, compare, rule):
    curves = curves_for(members, compare, lambda t: t.dists)
    out = dist_figures(slug(key), key, curves)
    out.append(percentile_table(key, members, compare, rule))
    ranking = worst_ranking(members)
    if ranking:
        out.append(ranking)
    return out


def percentile_table(key, members, compare, rule):
    """Every pair/CPU of every run, the run's all-samples row, and with
    several runs the ratio of each run's all-samples row to the first's,
    each figure's verdict beside it."""
    rows, cls, marks = [], [], []
    base = members[0][2].headline()
    for n, (_, r, t) in enumerate(members):
        for d in t.dists:
            rows.append([r.label, d.name] + stat_row(d))
            cls.append("")
            marks.append([])
        if len(t.dists) > 1 and t.alike:
            rows.append([r.label, "all"] + stat_row(t.headline()))
            cls.append("total")
            marks.append([])
        if compare and n and t.alike:
            cells, css, _ = ratio_row(base, t.headline(), rule)
            rows.append([f"{r.label} / {members[0][1].label}", "ratio"] +
                        cells)
            cls.append("ratio")
            marks.append(["", ""] + css)
    return Table(f"{key}: percentiles (µs; p-values are histogram upper "
                 "bounds, overflow = samples beyond the histogram; ratios "
                 f"with the verdict, tolerance {rule.tolerance_pct:g} %)",
                 ["run", "series"] + STAT_HEADER, rows, cls, numeric_from=2,
                 cell_class=marks)


def worst_ranking(members):
    """Pairs/CPUs of every run, worst maximum first."""
    if not all(t.alike for _, _, t in members):
        return None     # ranking unlike series by max means nothing
    entries = [(r.label, d) for _, r, t in members for d in t.dists
               if d.samples > 0]
    if len(entries) < 2 or all(len(t.dists) < 2 for _, _, t in members):
        return None
    entries.sort(key=lambda e: -(e[1].max_ns or 0))
    rows = [[str(i + 1), label, d.name, fmt_us(d.max_ns),
             fmt_us(d.percentile("p99.99")), fmt_us(d.percentile("p99")),
             fmt_us(d.avg_ns)] for i, (label, d) in enumerate(entries)]
    return Table("Worst first (by max, µs)", ["rank", "run", "series", "max",
                                              "p99.99", "p99", "avg"],
                 rows, numeric_from=3)


def seconds_curves(members):
    """The per-second figure's curves: every CPU of every run (timer -c
    LIST: one curve per CPU; one run: labelled by CPU, several: by run
    and CPU), one colour each."""
    curves = []
    for _, r, t in members:
        per = t.cpu_seconds
        if len(per) > 1:
            curves += [((f"{r.label} {name}" if len(members) > 1 else name),
                        rows) for name, rows in per]
        elif t.seconds:
            curves.append((r.label, t.seconds))
    return [(label, rows, plots.color(i))
            for i, (label, rows) in enumerate(curves)]


def timer_blocks(key, members):
    out = []
    curves = seconds_curves(members)
    if curves:
        layers = [(r.label, t.layer, plots.color(i))
                  for i, r, t in members if t.seconds and t.layer]
        several = any(len(t.cpu_seconds) > 1
                      for _, _, t in members)
        # One run: the spikes in red; several: each in its run's colour.
        marks = [(p.time_s, plots.color(i) if len(members) > 1 else
                  plots.MARK) for i, r, t in members
                 if t.seconds and t.explain for p in t.explain.spikes
                 if p.time_s is not None]
        # The always-on layer is read for the first CPU of a file only:
        # said in the title where the file has several.
        what = (", and what else happened on the first CPU (its "
                "interrupts, steal, pressure: the others' are in the JSON)"
                if several else ", and what else happened on the CPU") \
            if layers else ""
        out.append(Figure(f"{slug(key)}-seconds", f"{key}: per second" +
                          (", every CPU" if several else "") + what,
                          plots.seconds_figure(
                              f"{key}: min / avg / max of each second" +
                              (", every CPU" if several else ""),
                              curves, layers, marks), wide=True))
    rows = []
    for _, r, t in members:
        for kind in ("min", "avg", "max"):
            m = t.seconds_summary.get(kind)
            if m:
                rows.append([r.label, f"each second's {kind}"] +
                            [fmt_us(v) for v in (m.min_ns, m.avg_ns,
                                                 m.max_ns, m.stddev_ns)])
        rows.append([r.label, "overruns / msw",
                     cell(t.overruns), cell(t.msw),
                     "", ""])
    out.append(Table(f"{key}: per-second figures (µs)",
                     ["run", "figure", "min", "avg", "max", "stddev"], rows,
                     numeric_from=2))
    return out


REQUEST_SERIES = ["interval", "send", "sleep", "receive", "response",
                  "total_jitter", "round_trip"]


def request_blocks(key, members, compare, rule):
    fid = slug(key)
    out = [Figure(f"{fid}-loads", f"{key}: against load processes",
                  plots.loads_figure(
                      f"{key}: average and maximum against load processes",
                      [(r.label, t.rounds, plots.color(i))
                       for i, r, t in members]), wide=True)]
    for series, name in plots.REQUEST_PANELS:
        if compare:
            def pick(t, s=series):
                r = last_round(t)
                return [r.series[s]] if r and s in r.series else []
        else:
            def pick(t, s=series):
                return [rename(r.series[s], round_name(r))
                        for r in t.rounds if s in r.series]
        out += dist_figures(f"{fid}-{series.replace('_', '-')}",
                            f"{key}: {name}" +
                            (" (most loaded round)" if compare else ""),
                            curves_for(members, compare, pick))
    if compare:
        out.append(loads_comparison(members, rule))
    out += [round_table(key, r, t) for _, r, t in members]
    return out


def round_name(r):
    return plural(r.load_processes, "load") + \
        (" (partial)" if r.partial else "")


def rename(d, name):
    return replace(d, name=name)


def round_table(key, run, t):
    rows = []
    for r in t.rounds:
        names = [s for s in REQUEST_SERIES if s in r.series] + \
            [s for s in r.series if s not in REQUEST_SERIES]
        for s in names:
            d = r.series[s]
            rows.append([str(r.load_processes), s] + stat_row(d)[:-1] +
                        ["yes" if r.partial else "", cell(r.overruns)])
    return Table(f"{key}: {run.label}: per round (µs)",
                 ["loads", "series"] + STAT_HEADER[:-1] +
                 ["partial", "timer overruns"], rows, numeric_from=2)


def loads_comparison(members, rule):
    """Response and Total Jitter per load count, the runs side by side,
    each later run's ratio to the first with its verdict."""
    base = {r.load_processes: r for r in members[0][2].rounds}
    loads = sorted({r.load_processes for _, _, t in members for r in t.rounds})
    header, rows, marks = ["loads"], [], []
    for _, run, _ in members:
        header += [f"{run.label} {s} {k}" for s in ("response", "jitter")
                   for k in ("avg", "max")]
    for n in loads:
        row, css = [str(n)], [""]
        for _, _, t in members:
            r = next((x for x in t.rounds if x.load_processes == n), None)
            cells = loads_cells(base.get(n), r, t is members[0][2], rule)
            row += [c for c, _ in cells]
            css += [c for _, c in cells]
        rows.append(row)
        marks.append(css)
    return Table("Response Time and Total Jitter per load count (µs; "
                 "ratios to the first run with the verdict, tolerance "
                 f"{rule.tolerance_pct:g} %)", header, rows,
                 cell_class=marks)


def loads_cells(base, r, first, rule):
    """(text, class) per figure: the value, and for a later run its ratio
    to the first and the verdict."""
    out = []
    for s in ("response", "total_jitter"):
        for k in ("avg", "max"):
            d = r.series.get(s) if r else None
            b = base.series.get(s) if base else None
            v = getattr(d, f"{k}_ns") if d and d.samples else None
            if first or v is None:
                out.append((fmt_us(v), ""))
                continue
            j = rule.judge(b, d, k)
            out.append((f"{fmt_us(v)} ({j.text()})", j.css))
    return out
