# SPDX-License-Identifier: GPL-2.0-or-later
"""rtlat-report reads each file once, by one parser (docs/architecture.md,
"rtlat-report"): only read/ (and io.py, which reads a file's bytes
within the caps) turns a file into data; every other package works on
the typed model, whose Test keeps no raw dict of undocumented keys."""
import ast
from pathlib import Path

REPORT = Path(__file__).resolve().parent.parent / "report" / "rtlat_report"
# What reads a file or parses JSON: only read/ and io.py call them.
READS = {"read_json", "read_regular"}
JSON_LOADS = {"load", "loads"}


def _calls(tree):
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        fn = node.func
        if isinstance(fn, ast.Name):
            yield node.lineno, "", fn.id
        elif isinstance(fn, ast.Attribute):
            base = fn.value.id if isinstance(fn.value, ast.Name) else ""
            yield node.lineno, base, fn.attr


def raw_reads(root=REPORT):
    """["file:line: call"] of every file read or JSON parse outside read/
    and io.py, and every use of a Test's old `extra` dict."""
    bad = []
    for f in sorted(root.rglob("*.py")):
        rel = f.relative_to(root)
        if rel.parts[0] == "read" or rel.as_posix() == "io.py":
            continue
        tree = ast.parse(f.read_text())
        for line, base, name in _calls(tree):
            if name in READS or (base == "json" and name in JSON_LOADS):
                bad.append(f"{rel}:{line}: {base + '.' if base else ''}{name}")
        bad += [f"{rel}:{n.lineno}: .extra" for n in ast.walk(tree)
                if isinstance(n, ast.Attribute) and n.attr == "extra"]
    return bad


def test_no_file_is_read_past_read():
    assert not raw_reads(), raw_reads()


def test_the_check_sees_a_raw_read(tmp_path):
    """A judge module that reads index.json itself is found."""
    import shutil
    copy = tmp_path / "rtlat_report"
    shutil.copytree(REPORT, copy)
    f = copy / "judge" / "suite.py"
    f.write_text(f.read_text() + "\n\ndef _x(p):\n    import json\n"
                 "    return json.loads(open(p).read())\n")
    assert [b for b in raw_reads(copy) if b.startswith("judge/suite.py")]


def _fields(cls):
    tree = ast.parse((REPORT / "model.py").read_text())
    node = next(n for n in tree.body
                if isinstance(n, ast.ClassDef) and n.name == cls)
    return {n.target.id: ast.unparse(n.annotation) for n in node.body
            if isinstance(n, ast.AnnAssign)}


def test_model_test_keeps_no_raw_dict():
    """No `extra`; the long-run keys, the settings, where and on what it
    ran (system, context, rt) and the timer's per-second summaries are
    typed: their annotations name model classes, no raw dict of the
    file's (a Dict of model objects, keyed by name, is typed)."""
    f = _fields("Test")
    assert "extra" not in f
    assert "SecondsFigure" in f["seconds_summary"], f["seconds_summary"]
    for k in ("largest", "checkpoint", "settings", "timeline", "system",
              "context", "rt"):
        assert k in f and "dict" not in f[k].lower() and \
            "object" not in f[k], f"Test.{k}: {f[k]}"
    assert {"wall_start", "wall_end"} <= set(f)
    assert "suite" in _fields("Run")


def test_architecture_describes_every_report_layer():
    """docs/architecture.md's report side names every package and module
    at the top of rtlat_report (its layers), and says the path of a series
    and where to add a reader, a figure, an export."""
    doc = (REPORT.parent.parent / "docs" / "architecture.md").read_text()
    i = doc.index("## rtlat-report: the report side")
    side = doc[i:doc.index("\n## ", i + 1)]
    names = {p.name + "/" for p in REPORT.iterdir()
             if p.is_dir() and (p / "__init__.py").exists()} | \
        {p.name for p in REPORT.glob("*.py")
         if p.name not in ("__init__.py", "__main__.py")}
    assert [n for n in sorted(names) if n not in side] == []
    for words in ("The path of one series", "A reader", "A figure",
                  "An export", "tests/test_layout.py"):
        assert words in side, words


def test_merged_run_tail_takes_every_runs_largest_samples(tmp_path):
    """--merge's tail statistics read the merged run's largest samples
    and time line (the model's), not the first run's keys: a spike of the
    second run is among the exact samples of the merged series."""
    import sys
    from types import SimpleNamespace
    sys.path.insert(0, str(Path(__file__).parent))
    import longrun_gen as gen
    from rtlat_report.merge import merge_runs
    from rtlat_report.read.rtlat import load_input
    from rtlat_report.tail.analyse import series_of
    data = gen.samples(threads=2, steps=20, per_step=20, seed=5,
                       spikes=((1, 15, 900_000),))
    _, a, b = gen.halves(tmp_path, data, step_s=60.0)
    m = merge_runs([load_input(str(a), "a"), load_input(str(b), "b")],
                   "m").tests["pmq"]
    tds = series_of(m, SimpleNamespace(period_us=None))
    assert [td.name for td in tds] == [d.name for d in m.dists]
    assert 900_000 in tds[1].exact and 900_000 not in tds[0].exact
    assert len(tds[1].steps) == 20
