# SPDX-License-Identifier: GPL-2.0-or-later
"""rtlat-report(1) from rtlat-report's own argument parser, so the page
lists the options --help lists and never drifts from them:
`python3 -m rtlat_report.cli.manpage [DATE]` writes it to stdout (the build
runs it with PYTHONPATH=report; it needs nothing beyond the standard
library). DATE (YYYY-MM-DD) is rtlat's RTLAT_DATE, fixed so builds repeat."""
import argparse
import re
import sys

from .. import __version__
from ..io import PROG
from . import options as opts
from .main import build_commands, build_parser

SEE_ALSO = ["rtlat", "rtlat-suite", "rtlat-timer", "rtlat-pmq", "rtlat-cyclictest"]

EXIT = [("0", "Done: the page, plan, summary or document written, every "
         "input submitted; gate: NEW is not worse than BASE."),
        ("1", "The output could not be written, or a SQUAD server refused "
         "a submission or could not be reached."),
        ("2", "Bad input: an option's value, or an input that cannot be read "
         "(one line names the option or the file and why); nothing was "
         "written."),
        ("3", "gate: NEW is worse than BASE beyond the confidence, or did "
         "not finish."),
        ("125", "gate: it cannot tell (the runs too short, no series in "
         "common, BASE did not finish): git bisect run skips the commit.")]


def roff(text):
    """Plain text as roff: backslashes and minus signs escaped, no line
    starting with a dot or a quote."""
    text = text.replace("\\", "\\e").replace("-", "\\-")
    # roff's name for the micro sign: mandoc counts a raw one as more
    # bytes than it has
    text = text.replace("µ", "\\(mc")
    return re.sub(r"(?m)^([.'])", r"\\&\1", text)


def fill(text, width=78):
    """Break text at spaces into lines under 80 bytes (mandoc's advice)."""
    lines, cur = [], ""
    for word in text.split():
        # bytes, not characters: "µs" is 3 of them
        if cur and len(cur.encode()) + 1 + len(word.encode()) > width:
            lines.append(cur)
            cur = word
        else:
            cur = f"{cur} {word}" if cur else word
    return "\n".join(lines + [cur] if cur else lines)


def help_text(action):
    h = action.help or ""
    if "%(default)" in h:
        h = h % {"default": action.default}
    if action.choices and "{" not in h:
        h += " (one of: " + ", ".join(map(str, action.choices)) + ")"
    return h


def option_item(action):
    names = ", ".join(f"\\fB{roff(o)}\\fR" for o in action.option_strings)
    if action.nargs != 0:
        names += f" \\fI{roff(action.metavar or action.dest.upper())}\\fR"
    return f".TP\n{names}\n{fill(roff(help_text(action)))}\n"


def options(parser, skip=()):
    out = []
    for a in parser._actions:
        if a.option_strings and not set(a.option_strings) & set(skip):
            out.append(option_item(a))
    return "".join(out)


def positionals(parser):
    return [a for a in parser._actions if not a.option_strings]


def synopsis(name, parser):
    words = [f".B {roff(PROG)}" + (f" {name}" if name else ""),
             ".RI [ options ]"]
    for a in positionals(parser):
        if a.nargs == "*":
            words.append(f".RI [ {roff(a.metavar or a.dest)} ...]")
        else:
            words.append(f".IR {roff(a.metavar or a.dest)} ...")
    return "\n".join(words) + "\n"


def command(name, parser, old):
    """One subcommand's section: synopsis, what it does, its operands and
    options, the old form that does the same."""
    parts = [f".SS {roff(PROG)} {name}\n", synopsis(name, parser),
             ".PP\n", fill(roff(parser.description)) + "\n"]
    for a in positionals(parser):
        parts.append(f".TP\n\\fI{roff(a.metavar or a.dest)}\\fR\n"
                     f"{fill(roff(help_text(a)))}\n")
    parts.append(options(parser, skip=("-h",)))
    if old:
        parts.append(f".PP\n{fill(roff('The old form: ' + old + '.'))}\n")
    return "".join(parts)


# The old form's options that choose what it does (the subcommands' own
# options are listed under each subcommand).
CHOOSERS = ("--gate", "--plan", "--merge", "--kcidb", "--squad",
            "--summary-json", "--version", "-h")


def page(date):
    old = build_parser()
    top, subs = build_commands()
    parts = [
        '.\\" SPDX-License-Identifier: GPL-2.0-or-later\n',
        '.\\" Generated from rtlat-report\'s argument parsers '
        "(rtlat_report/cli/manpage.py); do not edit.\n",
        f'.TH RTLAT\\-REPORT 1 {date} "rtlat {__version__}" "User Commands"\n',
        f".SH NAME\n{roff(PROG)} \\- HTML report of rtlat result files\n",
        ".SH SYNOPSIS\n",
        ".br\n".join(synopsis(n, sp) for n, sp in subs.items()),
        ".br\n", synopsis("", old),
        ".SH DESCRIPTION\n", fill(roff(old.description)) + "\n",
        ".PP\n", fill(roff(top.epilog)) + "\n",
        ".SH COMMANDS\n",
    ]
    parts += [command(n, subs[n], opts.COMMANDS[n][3]) for n in subs]
    parts += [".SH OPTIONS\n", fill(roff(
        "Without a subcommand (the old form), every option above is taken "
        "(each does what it does in its subcommand) and these choose what "
        "is done:")) + "\n",
        "".join(option_item(a) for a in old._actions
                if set(a.option_strings) & set(CHOOSERS))]
    parts += [".SH EXIT STATUS\n"] + [f".TP\n{c}\n{fill(roff(t))}\n" for c, t in EXIT]
    parts += [".SH NOTES\n", fill(roff(old.epilog)) + "\n"]
    parts.append(".SH SEE ALSO\n" + ",\n".join(
        f".BR {roff(n)} (1)" for n in SEE_ALSO) + "\n")
    return "".join(parts)


def main(argv=None):
    ap = argparse.ArgumentParser(prog="python3 -m rtlat_report.manpage")
    ap.add_argument("date", nargs="?", default="2026-11-25",
                    help="the page's date, YYYY-MM-DD")
    args = ap.parse_args(sys.argv[1:] if argv is None else argv)
    if not re.fullmatch(r"\d{4}-\d{2}-\d{2}", args.date):
        ap.error(f"date: '{args.date}' is not YYYY-MM-DD")
    sys.stdout.write(page(args.date))
    return 0


if __name__ == "__main__":
    sys.exit(main())
