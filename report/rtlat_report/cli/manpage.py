# SPDX-License-Identifier: GPL-2.0-or-later
"""rtlat-report(1) from rtlat-report's own argument parser, so the page
lists the options --help lists and never drifts from them:
`python3 -m rtlat_report.manpage [DATE]` writes it to stdout (the build
runs it with PYTHONPATH=report; it needs nothing beyond the standard
library). DATE (YYYY-MM-DD) is rtlat's RTLAT_DATE, fixed so builds repeat."""
import argparse
import re
import sys

from .. import __version__
from ..io import PROG
from .main import build_parser

SEE_ALSO = ["rtlat", "rtlat-suite", "rtlat-timer", "rtlat-pmq", "rtlat-cyclictest"]

EXIT = [("0", "The page was written."),
        ("1", "The output could not be written."),
        ("2", "Bad input: an option's value, or an input that cannot be read "
         "(one line names the file and why); nothing was written.")]


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


def options(parser):
    out = []
    for a in parser._actions:
        if a.option_strings:
            out.append(option_item(a))
    return "".join(out)


def positionals(parser):
    return [a for a in parser._actions if not a.option_strings]


def synopsis(parser):
    words = [f".B {roff(PROG)}", ".RI [ options ]"]
    for a in positionals(parser):
        words.append(f".IR {roff(a.metavar or a.dest)} ...")
    return "\n".join(words) + "\n"


def page(date):
    p = build_parser()
    desc = p.description
    parts = [
        '.\\" SPDX-License-Identifier: GPL-2.0-or-later\n',
        '.\\" Generated from rtlat-report\'s argument parser '
        "(rtlat_report/manpage.py); do not edit.\n",
        f'.TH RTLAT\\-REPORT 1 {date} "rtlat {__version__}" "User Commands"\n',
        f".SH NAME\n{roff(PROG)} \\- HTML report of rtlat result files\n",
        ".SH SYNOPSIS\n", synopsis(p),
        ".SH DESCRIPTION\n", fill(roff(desc)) + "\n",
    ]
    for a in positionals(p):
        parts.append(f".TP\n\\fI{roff(a.metavar or a.dest)}\\fR\n"
                     f"{fill(roff(help_text(a)))}\n")
    parts += [".SH OPTIONS\n", options(p)]
    parts += [".SH EXIT STATUS\n"] + [f".TP\n{c}\n{fill(roff(t))}\n" for c, t in EXIT]
    parts += [".SH NOTES\n", fill(roff(p.epilog)) + "\n"]
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
