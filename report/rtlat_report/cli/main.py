# SPDX-License-Identifier: GPL-2.0-or-later
"""rtlat-report INPUT... : one HTML page (or markdown) from rtlat result
directories and JSON files. Exit status: 0 done, 1 the output could not be
written, 2 bad input (nothing written)."""
import argparse
import os
import sys
import time

from .. import __version__, merge
from ..export import kcidb, squad
from . import tail as tailopts
from ..io import (MAX_FILE_MIB, MAX_FILES, MAX_RUNS, MIB, PROG, InputError,
                  Limits, fail, regular_size, too_big, too_much_memory,
                  write)
from ..read.rtlat import load_input, result_files
from ..judge.verdict import DEFAULT_TOLERANCE, Rule


def build_parser():
    """The options, once: parsing, --help and the man page (manpage.py)."""
    p = argparse.ArgumentParser(
        prog=PROG,
        description="Histograms, percentile plots, per-second and per-round "
        "figures and side-by-side comparisons of rtlat results (result "
        "directories of `rtlat suite`, --json files of every subcommand, "
        "rt-tests' pmqtest/cyclictest --json) in one self-contained HTML "
        "page.",
        epilog="Several inputs are compared: every figure overlays them, "
        "tables show them side by side with the ratio to the first and a "
        "verdict per figure (regression, improvement, within noise, or n "
        "too small: a percentile p needs 10 samples beyond it in both "
        "runs). Example: rtlat-report stock/ rt/ --labels stock,rt -o "
        "cmp.html")
    p.add_argument("inputs", nargs="*", metavar="INPUT",
                   help="a results directory or a JSON file (rtlat's; "
                   "rt-tests' cyclictest/pmqtest --json and cyclictest -h "
                   "text, rtla timerlat hist output, jitterdebugger's "
                   "results.json)")
    p.add_argument("-o", "--output", metavar="FILE",
                   help="where to write ('-' = stdout; default: "
                   "DIR/report.html for one directory, else "
                   "rtlat-report.html; markdown: stdout)")
    p.add_argument("--labels", metavar="A,B,...",
                   help="one name per input, comma-separated (default: "
                   "the directory or file names)")
    p.add_argument("--format", choices=("html", "md"), default="html",
                   help="html (default) or md: markdown tables for CI logs "
                   "and pull-request comments")
    p.add_argument("--png", metavar="DIR",
                   help="also write every figure as DIR/NAME.png")
    p.add_argument("--tolerance", metavar="PCT", type=tolerance,
                   default=DEFAULT_TOLERANCE,
                   help="a later run's figure is a regression when it "
                   "exceeds the first run's by more than PCT percent, an "
                   "improvement when the first exceeds it by as much, as "
                   "rtlat --baseline judges (default %(default)g)")
    p.add_argument("--title", default=None, help="page title")
    p.add_argument("--max-file-size", metavar="MIB", type=count(1, 1 << 20),
                   default=MAX_FILE_MIB,
                   help="a file larger than MIB mebibytes is refused "
                   "(default %(default)d: the largest JSON rtlat writes, "
                   "1,048,576 --largest rows, a time line and a histogram "
                   "for each of its at most 4096 series and threads). A "
                   "file, or files together, that would take more memory "
                   "to read than this process may have (about 32 times "
                   "their size; MemAvailable, the memory cgroup's limit, "
                   "RLIMIT_AS) are refused too. "
                   "Only regular files are read: a FIFO, device or socket "
                   "named is refused, one found in a directory is skipped "
                   "with a note")
    p.add_argument("--max-total-size", metavar="MIB", type=count(1, 1 << 20),
                   help="result files larger than MIB mebibytes together "
                   "are refused (default: twice --max-file-size)")
    p.add_argument("--max-runs", metavar="N", type=count(1, 1 << 20),
                   default=MAX_RUNS,
                   help="more than N inputs is refused (default "
                   "%(default)d): a page that compares more is unreadable")
    p.add_argument("--max-files", metavar="N", type=count(1, 1 << 20),
                   default=MAX_FILES,
                   help="more than N result files in all the inputs is "
                   "refused (default %(default)d; a suite run leaves about "
                   "a dozen): each is a section of the page")
    tailopts.add_options(p)
    merge.add_option(p)
    p.add_argument("--version", action="version",
                   version=f"{PROG} {__version__}")
    kcidb.add_options(p)
    squad.add_arguments(p)
    return p


def parse_args(argv):
    p = build_parser()
    args = p.parse_args(argv)
    tailopts.check(args, p)
    return args


def tolerance(text):
    """--tolerance PCT: a finite percentage 0..10000 (rtlat's range)."""
    try:
        v = float(text)
    except ValueError:
        v = None
    if v is None or not 0 <= v <= 10000:
        raise argparse.ArgumentTypeError(
            f"'{text}' is not a percentage from 0 to 10000")
    return v


def count(lo, hi):
    """An option's whole number lo..hi."""
    def parse(text):
        if not text.isdigit() or not lo <= int(text) <= hi:
            raise argparse.ArgumentTypeError(
                f"'{text}' is not a whole number from {lo} to {hi}")
        return int(text)
    return parse


def check_counts(args, limits):
    """--max-runs, --max-files and --max-total-size, before a file is
    read; a file named over --max-file-size too (one in a directory is
    marked unreadable on the page, and not counted)."""
    if len(args.inputs) > args.max_runs and not args.merge:
        raise InputError(f"{len(args.inputs)} inputs: more than --max-runs "
                         f"{args.max_runs} (raise it to compare them all)")
    files = []
    for p in args.inputs:
        try:
            files += [(os.path.join(p, f), False) for f in result_files(p)] \
                if os.path.isdir(p) else [(p, True)]
        except OSError as e:
            raise InputError(f"{p}: cannot read: {e.strerror or e}") from e
    if len(files) > args.max_files:
        raise InputError(f"{len(files)} result files in the inputs: more "
                         f"than --max-files {args.max_files} (raise it to "
                         "read them all)")
    total = 0
    for f, named in files:
        size = regular_size(f)
        big = too_big(f, size, limits, memory=named)
        if big and named:
            raise big
        total += 0 if big else size
    cap = args.max_total_size or 2 * args.max_file_size
    if total > cap * MIB:
        raise InputError(f"the inputs' result files hold {total} bytes: more "
                         f"than --max-total-size {cap} MiB allows (raise it "
                         "to read them all)")
    mem = too_much_memory("the inputs' result files", total)
    if mem:
        raise mem


def labels_for(args):
    if args.labels is not None:
        labels = [x.strip() for x in args.labels.split(",")]
        if len(labels) != len(args.inputs) or not all(labels):
            raise InputError(f"--labels: {len(args.inputs)} non-empty names "
                             f"expected (one per input), got "
                             f"'{args.labels}'")
        return labels
    names = [os.path.basename(os.path.normpath(p)) for p in args.inputs]
    names = [os.path.splitext(n)[0] if n.endswith(".json") else n
             for n in names]
    seen = {}
    for i, n in enumerate(names):
        seen[n] = seen.get(n, 0) + 1
        if seen[n] > 1:
            names[i] = f"{n} ({seen[n]})"
    return names


def default_output(args):
    if args.output:
        return args.output
    if args.format == "md":
        return "-"
    if len(args.inputs) == 1 and os.path.isdir(args.inputs[0]):
        return os.path.join(args.inputs[0], "report.html")
    return "rtlat-report.html"


def check_output(out):
    if out == "-":
        return
    d = os.path.dirname(os.path.abspath(out))
    if not os.path.isdir(d):
        raise InputError(f"--output: directory '{d}' does not exist")
    if os.path.isdir(out):
        raise InputError(f"--output: '{out}' is a directory")


def main(argv=None):
    args = parse_args(sys.argv[1:] if argv is None else argv)
    if args.squad:
        return squad.run(args, PROG)
    if args.kcidb:
        return kcidb.main(args, Limits(file_bytes=args.max_file_size * MIB))
    if not args.inputs:
        return tailopts.plan_only(args)
    out = default_output(args)
    try:
        labels = merge.labels(args) if args.merge else labels_for(args)
        check_output(out)
        limits = Limits(file_bytes=args.max_file_size * MIB)
        check_counts(args, limits)
        runs = [load_input(p, lab, limits)
                for p, lab in zip(args.inputs, labels)]
        if args.merge:
            runs, labels = [merge.merge_runs(runs, labels[0])], labels[:1]
    except InputError as e:
        return fail(str(e))
    for r in runs:
        for why in r.skipped:
            print(f"{PROG}: skipped: {why}", file=sys.stderr)
    tail_section, status = None, None
    if tailopts.wanted(args):
        try:
            tail_section, status = tailopts.after_load(args, runs)
        except OSError as e:
            return fail(f"cannot write: {e}", 1)
        if status is not None and tail_section is None:
            return status
    # matplotlib takes a second to import: only once the input is good.
    from ..page import html, markdown
    from ..page.build import build, with_section
    title = args.title or ("rtlat report: " + " vs ".join(labels))
    doc = build(runs, title, time.strftime("%Y-%m-%d %H:%M:%S %z"),
                Rule(tolerance_pct=args.tolerance))
    if tail_section is not None:
        with_section(doc, 1, tail_section)
    try:
        render_figures(doc, args.png)
        text = markdown.render(doc, os.path.dirname(os.path.abspath(out))
                               if out != "-" else None) \
            if args.format == "md" else html.render(doc)
        write(out, text)
    except OSError as e:
        return fail(f"cannot write: {e}", 1)
    if out != "-":
        print(f"report: {out}")
    return status or 0


def render_figures(doc, png_dir):
    from ..page import plots
    if png_dir:
        os.makedirs(png_dir, exist_ok=True)
    for f in doc.figures():
        f.svg = plots.to_svg(f.fig)
        if png_dir:
            f.png_path = os.path.join(png_dir, f"{f.id}.png")
            plots.to_png(f.fig, f.png_path)
        plots.close(f.fig)
        f.fig = None
