# SPDX-License-Identifier: GPL-2.0-or-later
"""The source layout docs/architecture.md promises: folders are
layers, an include names its folder and never runs back up, no file over
600 lines, no function over 60."""
import re
from pathlib import Path

SRC = Path(__file__).resolve().parent.parent / "src"
LIBRARY = {"core"}
BELOW_HARNESS = LIBRARY | {"explain"}
HARNESS = BELOW_HARNESS | {"harness"}
# What each folder may include besides itself; any other folder is a test
# (a wing) and may include the harness and what lies below it.
ALLOWED = {
    "core": set(),
    "explain": LIBRARY,
    "harness": BELOW_HARNESS,
    "sync": HARNESS | {"pair"},	# runs the pair harness inside itself
}
INCLUDE = re.compile(r'^#include "([^"]+)"', re.M)


def folders():
    return sorted(d for d in SRC.iterdir() if d.is_dir())


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
    objs = {}
    for c in sorted(folder.glob("*.c")):
        o = BUILD / folder.name / (c.stem + ".o")
        assert o.exists() and o.stat().st_mtime >= c.stat().st_mtime, \
            f"{o}: missing or older than {c}: run make first"
        objs[c.stem] = _nm(o)
    owner = {s: n for n, (defined, _) in objs.items() for s in defined}
    graph = {n: {} for n in objs}
    for n, (_, used) in objs.items():
        for s in sorted(used):
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
    """A test folder's FOLDER.h is its bottom: types and inlines only; each
    .c declares what it offers in a header of its own."""
    bad = {}
    for d in folders_of_tests():
        model = d / f"{d.name}.h"
        if model.exists() and declarations(model):
            bad[str(model.relative_to(SRC))] = declarations(model)
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
