# SPDX-License-Identifier: GPL-2.0-or-later
"""The source layout the README's Layout section promises: folders are
layers, an include names its folder and never runs back up, no file over
600 lines, no function over 60."""
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
