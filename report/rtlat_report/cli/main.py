# SPDX-License-Identifier: GPL-2.0-or-later
"""rtlat-report COMMAND ... (page, gate, plan, merge, summary, kcidb,
squad, samples), or the old form rtlat-report INPUT... [--gate|--plan|...]: one
HTML page (or markdown) from rtlat result directories and JSON files, the
gate, the plan, the exports. Exit status: 0 done, 1 the output could not
be written, 2 bad input (nothing written), 3 and 125 the gate's."""
import os
import sys
import time

from .. import __version__, merge
from ..export import kcidb, squad
from . import options, samples, summary
from . import tail as tailopts
from ..io import (MIB, PROG, InputError, Limits, fail, regular_size, too_big,
                  too_much_memory, write)
from ..read.rtlat import load_input, result_files
from ..judge.verdict import Rule


def build_parser():
    """The old form's one parser (rtlat-report INPUT... [--gate|--plan|
    --merge|--kcidb FILE|--squad URL]): today's scripts and LAVA
    definitions keep working, with the same exit statuses."""
    p = options.Parser(
        prog=PROG, description=DESCRIPTION, epilog=EPILOG)
    options.old_form(p)
    p.add_argument("--version", action="version",
                   version=f"{PROG} {__version__}")
    return p


DESCRIPTION = ("Histograms, percentile plots, per-second and per-round "
               "figures and side-by-side comparisons of rtlat results "
               "(result directories of `rtlat suite`, --json files of every "
               "subcommand, rt-tests' pmqtest/cyclictest --json) in one "
               "self-contained HTML page; the gate of a new run against a "
               "base, the run length a target needs, a summary, and the "
               "exports to KCIDB and SQUAD.")
EPILOG = ("Several inputs are compared: every figure overlays them, tables "
          "show them side by side with the ratio to the first and a verdict "
          "per figure (regression, improvement, within noise, or n too "
          "small: a percentile p needs 10 samples beyond it in both runs). "
          "Example: rtlat-report page stock/ rt/ --labels stock,rt -o "
          "cmp.html")
OLD_FORM = ("The form without a subcommand still works as it did: rtlat-report "
            "INPUT... [OPTION...] is page, and --gate, --plan, --merge, "
            "--summary-json FILE, --kcidb FILE and --squad URL choose as "
            "before. A first argument that names a subcommand is the "
            "subcommand unless a file or directory of that name exists here: "
            "then it is an INPUT, as before (write ./page for the directory, "
            "or run the subcommand from another directory).")


def build_commands():
    """(the parser of rtlat-report COMMAND ..., {name: its parser}): one
    subparser per command, its options declared in options.py."""
    p = options.Parser(prog=PROG, description=DESCRIPTION,
                       epilog=OLD_FORM)
    p.add_argument("--version", action="version",
                   version=f"{PROG} {__version__}")
    sub = p.add_subparsers(dest="command", metavar="COMMAND",
                           title="commands (rtlat-report COMMAND --help)")
    subs = {}
    for name, (short, what, declare, _) in options.COMMANDS.items():
        sp = sub.add_parser(name, help=short, description=what,
                            epilog=EPILOG if name == "page" else None)
        declare(sp)
        subs[name] = sp
    return p, subs


# What each command sets of the old form's flags.
FLAGS = {"gate": "gate", "plan": "plan", "merge": "merge"}


def command_of(argv):
    """The subcommand argv starts with, "" for the top-level --help, None
    for the old form (a first argument that is a path, or an option)."""
    if not argv:
        return None
    first = argv[0]
    if first in ("-h", "--help"):
        return ""
    if first not in options.COMMANDS:
        return None
    if os.path.lexists(first):
        print(f"{PROG}: note: '{first}' is read as an input (it exists "
              f"here), not as the subcommand {first}", file=sys.stderr)
        return None
    return first


def parse_args(argv):
    cmd = command_of(argv)
    old = build_parser()
    if cmd is None:
        args = old.parse_args(argv)
        args.command = None
        tailopts.check(args, old)
        return args
    p, subs = build_commands()
    args = p.parse_args(argv)
    # The rest of the old form's options at their defaults: each command
    # then runs as its old form does.
    for a in old._actions:
        if a.dest != "help" and not hasattr(args, a.dest):
            setattr(args, a.dest, a.default)
    if cmd in FLAGS:
        setattr(args, FLAGS[cmd], True)
    # A command with no old form (samples) reads no INPUT of the page's.
    if options.COMMANDS[cmd][3] is not None:
        tailopts.check(args, subs[cmd])
    return args


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


def load(args, out=None):
    """(runs, labels) of the inputs, within the caps, the output (out)
    checked first; InputError."""
    labels = merge.labels(args) if args.merge else labels_for(args)
    if out is not None:
        check_output(out)
    limits = Limits(file_bytes=args.max_file_size * MIB)
    check_counts(args, limits)
    runs = [load_input(p, lab, limits) for p, lab in zip(args.inputs, labels)]
    if args.merge:
        runs, labels = [merge.merge_runs(runs, labels[0])], labels[:1]
    for r in runs:
        for why in r.skipped:
            print(f"{PROG}: skipped: {why}", file=sys.stderr)
    return runs, labels


def main(argv=None):
    args = parse_args(sys.argv[1:] if argv is None else argv)
    if args.command == "summary":
        return summary.run(args, load)
    if args.command == "samples":
        return samples.run(args)
    if args.squad:
        return squad.run(args, PROG)
    if args.kcidb:
        return kcidb.main(args, Limits(file_bytes=args.max_file_size * MIB))
    if not args.inputs:
        return tailopts.plan_only(args)
    out = default_output(args)
    try:
        runs, labels = load(args, out)
    except InputError as e:
        return fail(str(e))
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
    # rtlat qualify's results directory: its verdict first. It needs
    # SciPy (the tail fit): imported only then, as tail.py does.
    qualified = [r for r in runs if r.suite and r.suite.command == "qualify"]
    if qualified:
        from ..page import qualify
        for r in reversed(qualified):
            with_section(doc, 0, qualify.section(r, args))
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
