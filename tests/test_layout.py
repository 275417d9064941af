# SPDX-License-Identifier: GPL-2.0-or-later
"""The source layout docs/architecture.md promises: folders are
layers, an include names its folder and never runs back up, no file over
600 lines, no function over 60; the fleet is a layer of its own and keeps
no state in statics, nor does the suite (their state is the run's)."""
import re
from pathlib import Path

SRC = Path(__file__).resolve().parent.parent / "src"
# The library, by role, in layers of its own (issue 48): util (options,
# CPU lists, JSON, files, time format) at the bottom, measure (clocks,
# statistics, histograms, largest samples, time line, records, TSC, FFT)
# over it, system (real-time setup, cleanup, stop signals, tracefs,
# system information, context, preflight, output files) over both.
UTIL = {"util"}
MEASURE = UTIL | {"measure"}
LIBRARY = MEASURE | {"system"}
BELOW_HARNESS = LIBRARY | {"explain", "fleet"}
HARNESS = BELOW_HARNESS | {"harness"}
# The determinism benchmarks' shared threads, waits and JSON (bench.c).
DETERMINISM = HARNESS | {"determinism"}
# What each folder may include besides itself; any other folder is a test
# (a wing) and may include the harness and what lies below it.
ALLOWED = {
    "util": set(),
    "measure": UTIL,
    "system": MEASURE,
    "explain": LIBRARY,
    "fleet": LIBRARY,	# test names and series reach it as data
    "harness": BELOW_HARNESS,
    "determinism": HARNESS,
    "bintime": DETERMINISM,
    "response": DETERMINISM,
    "sync": DETERMINISM | {"pair"},	# runs the pair harness inside itself
    "deadline": HARNESS | {"timer"},	# SCHED_DEADLINE on the timer's samplers
}
INCLUDE = re.compile(r'^#include "([^"]+)"', re.M)
# Folders whose state is the run's (a struct it owns and passes in): no
# static variable that can change, at file scope or in a function.
NO_MUTABLE_STATICS = ("fleet", "suite")


def folders():
    return sorted(d for d in SRC.iterdir() if d.is_dir())


def test_the_library_is_split_by_role():
    """No catch-all core/: each folder of the library is one layer."""
    names = {d.name for d in folders()}
    assert "core" not in names and LIBRARY <= names, names
    for d in LIBRARY:
        assert set(ALLOWED[d]) < LIBRARY, d


def test_includes_name_their_folder_and_never_run_back_up():
    bad = []
    for d in folders():
        allowed = ALLOWED.get(d.name, HARNESS) | {d.name}
        for f in sorted(d.iterdir()):
            for inc in INCLUDE.findall(f.read_text()):
                top = inc.split("/")[0] if "/" in inc else None
                if top not in allowed:
                    bad.append(f"{f.relative_to(SRC)}: {inc}")
    assert not bad, bad


def test_no_file_over_600_lines_no_function_over_60():
    long_files, long_fns = [], []
    for f in sorted(SRC.rglob("*.[ch]")):
        lines = f.read_text().split("\n")
        if len(lines) > 600:
            long_files.append((str(f.relative_to(SRC)), len(lines)))
        start = None
        for i, line in enumerate(lines):
            if line == "{":
                start = i
            elif line == "}" and start is not None:
                if i - start - 1 > 60:
                    long_fns.append((str(f.relative_to(SRC)), lines[start - 1]))
                start = None
    assert not long_files and not long_fns, (long_files, long_fns)


COMMENT = re.compile(r"/\*.*?\*/|//[^\n]*", re.S)
LITERAL = re.compile(r'"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\'')
STATIC = re.compile(r"^[ \t]*static\b([^;{=]*)", re.M)


def mutable_statics(text):
    """The static variables of C source text that are not const
    themselves (a pointer's const must follow its last '*'); functions
    and const tables are not state."""
    text = LITERAL.sub('""', COMMENT.sub(" ", text))
    found = []
    for m in STATIC.finditer(text):
        head = m.group(1)
        # A function (its first '(' opens its parameters), not a
        # pointer to one (the first '(' holds "*name").
        if "(" in head and not re.match(r"[^(]*\(\s*\*", head):
            continue
        decl = re.sub(r"\[[^\]]*\]", "", head)
        if "*" in decl:
            const = re.search(r"\*\s*const\b[^*]*$", decl) is not None
        else:
            const = re.search(r"\bconst\b", decl) is not None
        if not const:
            found.append(" ".join(("static" + head).split()))
    return found


def test_mutable_statics_found():
    src = """
static int lost;
static const char *names[32];		/* pointers to const: mutable */
static volatile sig_atomic_t interrupted;
static void (*handler)(int);
static struct fleet_limits lat, p99;
int f(void)
{
	static char buf[1 << 18];
	static const char *const q[] = { "0", "1" };
	return 0;
}
static const struct opt suite_opts[] = {
static const char *const name[] = { "static int x;" };
static int grow(struct table *t, int **index)
static void child(struct test_run *t, int (*once)(struct test_run *), int fd,
		  pid_t parent)
static inline bool stopping(void)
/* static int commented; */
"""
    assert mutable_statics(src) == [
        "static int lost", "static const char *names[32]",
        "static volatile sig_atomic_t interrupted",
        "static void (*handler)(int)",
        "static struct fleet_limits lat, p99", "static char buf[1 << 18]",
    ]


def test_fleet_is_a_layer_of_its_own():
    fleet = SRC / "fleet"
    assert sorted(f.name for f in fleet.glob("*.c")) == [
        "fleet.c", "fleet_end.c", "fleet_iter.c", "fleet_lava.c",
        "fleet_limits.c", "fleet_out.c", "fleet_verdict.c"]
    assert (fleet / "fleet.h").exists()
    # Nothing of it left in the lifecycle's folder.
    assert not list((SRC / "harness").glob("fleet*")), "fleet files in harness/"
    assert ALLOWED["fleet"] == LIBRARY


def test_fleet_and_suite_keep_no_state_in_statics():
    bad = {}
    for name in NO_MUTABLE_STATICS:
        assert (SRC / name).is_dir(), name
        for f in sorted((SRC / name).glob("*.[ch]")):
            found = mutable_statics(f.read_text())
            if found:
                bad[str(f.relative_to(SRC))] = found
    assert not bad, bad


# No circle inside a folder (issue 32). A circle is measured on the
# objects make leaves in build/, with nm: inside one folder, A.o -> B.o
# when A.o uses (nm's "U") a global function or object that B.o defines;
# the graph must be acyclic. Which header declares what does not enter
# it: a header including another only brings names, a call is what ties
# two files. The objects are make's (-Wall: no implicit declarations),
# so they are checked to be newer than their sources.
BUILD = SRC.parent / "build"


def _nm(obj):
    import subprocess
    out = subprocess.run(["nm", str(obj)], capture_output=True, text=True,
                         check=True).stdout
    defined, used = set(), set()
    for line in out.splitlines():
        f = line.split()
        if len(f) == 2 and f[0] == "U":
            used.add(f[1])
        elif len(f) == 3 and f[1] in "TDRBCGSV":
            defined.add(f[2])
    return defined, used


def _circles(graph):
    """The strongly connected components of more than one file."""
    index, low, stack, on, out = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in graph[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


def calls_inside(folder):
    """{file: {file it calls: [symbols]}} of one folder of src/."""
    return call_graph({c.stem: c for c in sorted(folder.glob("*.c"))})


def call_graph(nodes):
    """{node: {node it calls: [symbols]}}, nodes {name: .c file or a list
    of them} read from make's objects."""
    defined, used = {}, {}
    for n, files in nodes.items():
        defined[n], used[n] = set(), set()
        for c in files if isinstance(files, list) else [files]:
            o = BUILD / c.relative_to(SRC).with_suffix(".o")
            assert o.exists() and o.stat().st_mtime >= c.stat().st_mtime, \
                f"{o}: missing or older than {c}: run make first"
            d, u = _nm(o)
            defined[n] |= d
            used[n] |= u
    owner = {s: n for n in nodes for s in defined[n]}
    graph = {n: {} for n in nodes}
    for n in nodes:
        for s in sorted(used[n]):
            if owner.get(s, n) != n:
                graph[n].setdefault(owner[s], []).append(s)
    return graph


def test_no_circle_of_calls_inside_a_folder():
    bad = {}
    for d in folders():
        graph = calls_inside(d)
        for comp in _circles(graph):
            bad[d.name] = [f"{a} -> {b}: {graph[a][b]}" for a in comp
                           for b in comp if b in graph[a]]
    assert not bad, bad


def declarations(header):
    """The functions and objects a header declares (not its types,
    macros or static inline helpers)."""
    text = re.sub(r"/\*.*?\*/|//[^\n]*", " ", header.read_text(), flags=re.S)
    text = re.sub(r"^#(?:[^\n]*\\\n)*[^\n]*", " ", text, flags=re.M)
    out, stmt, depth = [], "", 0
    for ch in text:
        if ch == "{":
            depth += 1
        elif ch == "}":
            depth -= 1
            if depth == 0 and "(" in stmt and "=" not in stmt:
                stmt = ""	# an inline function's body ended
        elif depth == 0 and ch == ";":
            s = " ".join(stmt.split())
            if s.startswith("extern ") or ("(" in s and not
                                          s.startswith(("typedef", "static"))):
                out.append(s)
            stmt = ""
        elif depth == 0:
            stmt += ch
    return out


def folders_of_tests():
    """The folders with a test's row (struct test_ops)."""
    return [d for d in folders()
            if any("struct test_ops test_" in c.read_text() for c in d.glob("*.c"))]


def test_each_test_folder_has_a_model_header_with_no_function():
    """A test folder's FOLDER_types.h is its bottom: types and inlines
    only; each .c declares what it offers in a header of its own."""
    bad = {}
    for d in folders_of_tests():
        model = d / f"{d.name}_types.h"
        if model.exists() and declarations(model):
            bad[str(model.relative_to(SRC))] = declarations(model)
    assert not bad, bad


TYPES = re.compile(r"^(?:struct|enum|union|typedef)\b", re.M)


def test_model_headers_are_named_types():
    """Issue 48: a header that only declares data types (and their inline
    helpers) for several units is a model header, NAME_types.h; a
    NAME_types.h declares no function or object."""
    bad = []
    for h in sorted(SRC.rglob("*.h")):
        model = not declarations(h) and TYPES.search(h.read_text())
        if bool(model) != h.name.endswith("_types.h"):
            bad.append(str(h.relative_to(SRC)))
    assert not bad, bad


def test_tests_see_only_explains_face():
    """explain.h is the face the tests use; the tracer's internals are
    included only inside src/explain/."""
    faces = {"explain/explain.h"}
    bad = []
    for f in sorted(SRC.rglob("*.[ch]")):
        if f.parent.name == "explain":
            continue
        for inc in INCLUDE.findall(f.read_text()):
            if inc.startswith("explain/") and inc not in faces:
                bad.append(f"{f.relative_to(SRC)}: {inc}")
    face = (SRC / "explain" / "explain.h").read_text()
    inside = [w for w in ("struct xev", "struct xraw", "struct xtrace",
                          "struct xattr", "struct xspike") if w in face]
    assert not bad and not inside, (bad, inside)


# Calls between folders (issue 48): with the top-level files (main.c,
# manpage.c, registry.c) as the folder "." above every other, a call
# from one folder into another must follow the include direction
# (ALLOWED), and the folders' graph of calls must have no circle (the
# suite took the registry's table and the registry the suite's options).
TOP = "."


def may_include(name):
    if name == TOP:
        return {d.name for d in folders()} | {TOP}
    return ALLOWED.get(name, HARNESS) | {name}


def calls_between_folders():
    """{folder: {folder it calls: [symbols]}} over every object of src/."""
    nodes = {}
    for c in sorted(SRC.rglob("*.c")):
        rel = c.relative_to(SRC)
        nodes.setdefault(TOP if len(rel.parts) == 1 else rel.parts[0], []).append(c)
    return call_graph(nodes)


def test_calls_between_folders_follow_the_layers_and_make_no_circle():
    graph = calls_between_folders()
    up = [f"{a} -> {b}: {syms}" for a, calls in sorted(graph.items())
          for b, syms in sorted(calls.items()) if b not in may_include(a)]
    circles = _circles({a: set(calls) for a, calls in graph.items()})
    assert not up and not circles, (up, circles)


def test_no_extern_declaration_in_a_c_file():
    """What one unit offers another is declared in its header, never by
    hand in the file that uses it (main.c's suite_title, the test table's
    test_pmq...)."""
    bad = []
    for f in sorted(SRC.rglob("*.c")):
        text = COMMENT.sub(" ", f.read_text())
        for m in re.finditer(r"^\s*extern\b[^;]*;", text, re.M):
            bad.append(f"{f.relative_to(SRC)}: {' '.join(m.group(0).split())}")
        # A function of another unit declared by hand at file scope.
        for m in re.finditer(r"^(?!static\b)[a-z][\w \*]*\b(\w+)\([^;{]*\);",
                             text, re.M):
            bad.append(f"{f.relative_to(SRC)}: {' '.join(m.group(0).split())}")
    assert not bad, bad


def test_the_registry_owns_the_test_table():
    assert (SRC / "registry.c").exists() and (SRC / "registry.h").exists()
    assert not (SRC / "tests.c").exists()
    assert "tests[]" in (SRC / "registry.h").read_text()
    assert "const tests[]" not in (SRC / "harness" / "test.h").read_text()


ROW_PROGRAM = """#include "util/opts.h"
static long long interval;
const struct opt rows[] = {
%s,
	OPT_END
};
"""


def compiles(row, src=SRC):
    import subprocess
    r = subprocess.run(["cc", "-std=gnu11", "-D_GNU_SOURCE", f"-I{src}",
                        "-fsyntax-only", "-x", "c", "-"],
                       input=ROW_PROGRAM % row, capture_output=True, text=True)
    return r.returncode == 0, r.stderr


def test_an_option_row_by_position_does_not_compile():
    """Issue 48: an option row is written with its fields named, so its
    minimum and its default cannot swap unseen. The same row by position,
    with the minimum (1) and the default (10) swapped, is refused by the
    compiler, not only warned about."""
    named = ('{ .short_name = \'i\', .long_name = "interval", .type = OPT_INT, '
             '.arg = OPT_ARG_REQUIRED, .argname = "US", .min = 1, '
             '.max = 1000, .dflt = 10, .dest = &interval, .help = "us" }')
    swapped = ('{ \'i\', "interval", OPT_INT, OPT_ARG_REQUIRED, "US", 10, 1000, '
               '1, &interval, "us", NULL, NULL }')
    ok, err = compiles(named)
    assert ok, err
    ok, err = compiles(swapped)
    assert not ok and "error:" in err, err


# One concurrency idiom per shared field (issue 48): C11 atomics
# (<stdatomic.h>), never a volatile flag. What may stay volatile: inline
# assembly, the one flag a signal handler alone writes and its own thread
# alone reads (stopsig.c, before main), and the compiler sinks that keep
# response's work from being optimized away (no thread reads them).
VOLATILE_KEPT = {
    "system/stopsig.c": ["static volatile sig_atomic_t early_signal;"],
    "response/response_work.c": ["volatile uint64_t work_sink;",
                                 "volatile double work_fsink;"],
}
ATOMIC_DECL = re.compile(r"^\s*(?:_Atomic\b|atomic_\w+\s+\**\w)[^;(]*;", re.M)


def test_no_volatile_flag_and_every_atomic_field_says_who_uses_it():
    bad, undocumented = [], []
    for f in sorted(SRC.rglob("*.[ch]")):
        rel = str(f.relative_to(SRC))
        text = f.read_text()
        code = COMMENT.sub(" ", LITERAL.sub('""', text))
        for line in code.split("\n"):
            if re.search(r"\bvolatile\b", line) and \
                    not re.search(r"__asm__\s+volatile|asm\s+volatile", line) and \
                    line.strip() not in VOLATILE_KEPT.get(rel, []):
                bad.append(f"{rel}: {line.strip()}")
        lines = text.split("\n")
        for i, line in enumerate(lines):
            if ATOMIC_DECL.match(line) and "/*" not in line and \
                    not lines[i - 1].strip().endswith("*/"):
                undocumented.append(f"{rel}:{i + 1}: {line.strip()}")
    assert not bad and not undocumented, (bad, undocumented)


# --- rtlat-report (report/rtlat_report): packages are layers -------------
#
# Each package imports only from the layers below it (docs/architecture.md,
# "rtlat-report"): io, then the typed model, the readers, the judgements,
# the tail statistics, then the page, the exports and merging side by side
# (none of those three imports another), then the command line on top. No
# module imports, even inside a function, a module that imports it back.

REPORT = SRC.parent / "report" / "rtlat_report"
REPORT_RANK = {"io": 0, "units": 0, "model": 1, "read": 2, "judge": 3, "tail": 4,
               "page": 5, "export": 5, "merge": 5, "cli": 6, "__main__": 7,
               "__init__": 0}


def _report_imports():
    """{module: {modules it imports}} of rtlat_report, every import
    statement (those inside functions too), relative ones resolved."""
    import ast
    graph = {}
    for f in sorted(REPORT.rglob("*.py")):
        parts = f.relative_to(REPORT).with_suffix("").parts
        mod = ".".join(parts)
        pkg = parts[:-1] if parts[-1] != "__init__" else parts[:-1]
        deps = set()
        for node in ast.walk(ast.parse(f.read_text())):
            names = []
            if isinstance(node, ast.ImportFrom):
                if node.level:
                    base = list(pkg[:len(pkg) - node.level + 1])
                elif (node.module or "").startswith("rtlat_report"):
                    base = []
                    node_mod = node.module.split(".")[1:]
                    names = [".".join(node_mod)] if node_mod else []
                    names += [".".join(node_mod + [a.name])
                              for a in node.names]
                else:
                    continue
                if node.level:
                    m = base + (node.module.split(".") if node.module else [])
                    names = [".".join(m)] + [".".join(m + [a.name])
                                             for a in node.names]
            elif isinstance(node, ast.Import):
                names = [a.name.split(".", 1)[1] for a in node.names
                         if a.name.startswith("rtlat_report.")]
            deps |= {n.removesuffix(".__init__") for n in names if n}
        graph[mod.removesuffix(".__init__")] = deps
    return {m: {d for d in ds if d in graph and d != m}
            for m, ds in graph.items()}


def _layer(mod):
    return mod.split(".")[0]


def test_report_packages_import_only_below():
    graph = _report_imports()
    assert set(map(_layer, graph)) <= set(REPORT_RANK), \
        f"a package without a layer: {set(map(_layer, graph)) - set(REPORT_RANK)}"
    bad = []
    for m, deps in graph.items():
        for d in deps:
            lm, ld = _layer(m), _layer(d)
            if lm == ld or ld == "__init__":
                continue
            if REPORT_RANK[ld] >= REPORT_RANK[lm]:
                bad.append(f"{m} imports {d}")
    assert not bad, bad


def test_report_has_no_import_circle():
    graph = _report_imports()
    state, circles = {}, []

    def visit(m, path):
        state[m] = 1
        for d in sorted(graph[m]):
            if state.get(d) == 1:
                circles.append(" -> ".join(path[path.index(d):] + [d]))
            elif d not in state:
                visit(d, path + [d])
        state[m] = 2
    for m in sorted(graph):
        if m not in state:
            visit(m, [m])
    assert not circles, circles


def test_report_layer_check_sees_a_circle(tmp_path, monkeypatch):
    """The two checks above catch what they are for: a reader importing
    the page, and two modules importing each other."""
    import shutil
    copy = tmp_path / "rtlat_report"
    shutil.copytree(REPORT, copy)
    (copy / "read" / "rtlat.py").write_text(
        (copy / "read" / "rtlat.py").read_text() +
        "\n\ndef _x():\n    from ..page import build  # noqa\n")
    monkeypatch.setattr(__import__(__name__), "REPORT", copy)
    graph = _report_imports()
    assert "page.build" in graph["read.rtlat"]
    bad = {m for m, ds in graph.items() for d in ds
           if _layer(d) != _layer(m) and _layer(d) != "__init__" and
           REPORT_RANK[_layer(d)] >= REPORT_RANK[_layer(m)]}
    assert bad == {"read.rtlat"}
