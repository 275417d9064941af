# SPDX-License-Identifier: GPL-2.0-or-later
"""The source layout docs/architecture.md promises: folders are
layers, an include names its folder and never runs back up, no file over
600 lines, no function over 60; the fleet is a layer of its own and keeps
no state in statics, nor does the suite (their state is the run's)."""
import re
from pathlib import Path

SRC = Path(__file__).resolve().parent.parent / "src"
LIBRARY = {"core"}
BELOW_HARNESS = LIBRARY | {"explain", "fleet"}
HARNESS = BELOW_HARNESS | {"harness"}
# The determinism benchmarks' shared threads, waits and JSON (bench.c).
DETERMINISM = HARNESS | {"determinism"}
# What each folder may include besides itself; any other folder is a test
# (a wing) and may include the harness and what lies below it.
ALLOWED = {
    "core": set(),
    "explain": LIBRARY,
    "fleet": LIBRARY,	# test names and series reach it as data
    "harness": BELOW_HARNESS,
    "determinism": HARNESS,
    "bintime": DETERMINISM,
    "response": DETERMINISM,
    "sync": DETERMINISM | {"pair"},	# runs the pair harness inside itself
}
INCLUDE = re.compile(r'^#include "([^"]+)"', re.M)
# Folders whose state is the run's (a struct it owns and passes in): no
# static variable that can change, at file scope or in a function.
NO_MUTABLE_STATICS = ("fleet", "suite")


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
        "fleet.c", "fleet_end.c", "fleet_iter.c", "fleet_limits.c",
        "fleet_out.c", "fleet_verdict.c"]
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
