# SPDX-License-Identifier: GPL-2.0-or-later
"""Every option of rtlat-report, declared once: each group below is added
to the subcommands that take it (COMMANDS) and, all together, to the old
form's one parser (rtlat-report INPUT... --gate, --kcidb FILE...), so
--help, the man page and parsing never differ. The value checks (a type
per option) live here too; export/, merge and tail/ know nothing of
argparse."""
import argparse
import math

from ..export.squad import ANSWER_BYTES, SUITE, TIMEOUT_S
from ..io import MAX_FILE_MIB, MAX_FILES, MAX_RUNS
from ..judge.verdict import DEFAULT_TOLERANCE


class Parser(argparse.ArgumentParser):
    """Bad input is one line on stderr naming the option, exit 2 (the
    usage is in --help, not repeated on every mistake)."""

    def error(self, message):
        self.exit(2, f"{self.prog}: {message} (see {self.prog} --help)\n")


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


def levels_arg(text):
    try:
        v = [float(x) for x in text.split(",") if x.strip()]
    except ValueError:
        v = []
    if not v or any(not math.isfinite(x) or x <= 0 for x in v):
        raise argparse.ArgumentTypeError(
            f"'{text}' is not a list of positive µs values (e.g. 50,100,200)")
    return sorted(x * 1000 for x in v)


def positive(text):
    try:
        v = float(text)
    except ValueError:
        v = float("nan")
    if not math.isfinite(v) or v <= 0:
        raise argparse.ArgumentTypeError(f"'{text}' is not a positive number")
    return v


def probability(text):
    v = positive(text)
    if v >= 1:
        raise argparse.ArgumentTypeError(
            f"'{text}' is not a probability between 0 and 1 (e.g. 1e-9)")
    return v


def seconds(text):
    """--squad-timeout S: a number of seconds from 0.1 to 3600."""
    try:
        v = float(text)
    except ValueError:
        v = math.nan
    if not 0.1 <= v <= 3600:
        raise argparse.ArgumentTypeError(
            f"'{text}' is not a number of seconds from 0.1 to 3600")
    return v


INPUT_HELP = ("a results directory or a JSON file (rtlat's; rt-tests' "
              "cyclictest/pmqtest --json and cyclictest -h text, rtla "
              "timerlat hist output, jitterdebugger's results.json)")


def inputs(p, nargs="+", metavar="INPUT", help=INPUT_HELP):
    p.add_argument("inputs", nargs=nargs, metavar=metavar, help=help)


def page(p):
    """The page: where, how, which names."""
    p.add_argument("-o", "--output", metavar="FILE",
                   help="where to write ('-' = stdout; default: "
                   "DIR/report.html for one directory, else "
                   "rtlat-report.html; markdown: stdout)")
    labels(p)
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


def labels(p):
    p.add_argument("--labels", metavar="A,B,...",
                   help="one name per input, comma-separated (default: "
                   "the directory or file names); merge: one name")


def limits(p):
    """The caps on what is read."""
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


TAIL_GROUP = ("how bad will it get (spike rates, tail estimates, run "
              "length, gate)")


def tail(p, section=True, json=("--summary-json",)):
    """The analysis of the tail: its levels, confidence, period, the
    summary JSON (section: the page's --tail flag)."""
    g = p.add_argument_group(TAIL_GROUP)
    if section:
        g.add_argument("--tail", action="store_true",
                       help="add the section \"How bad will it get\" to the "
                       "page: spike rates, the tail estimate with return "
                       "levels and its diagnostics, the run-length table "
                       "(implied by --levels, --plan-level and "
                       "--summary-json)")
    g.add_argument("--levels", metavar="US,US,...", type=levels_arg,
                   help="latency levels in µs for the spike rates (default: "
                   "a few round levels from each run's 99th percentile to "
                   "its largest sample; the gate's: BASE's high quantiles)")
    g.add_argument("--confidence", metavar="C", type=probability,
                   default=0.95, help="confidence of every interval, test "
                   "and plan (default %(default)g)")
    g.add_argument("--period-us", metavar="US", type=positive,
                   help="the cycle period when the input does not say it "
                   "(cyclictest -h text, rtla, jitterdebugger); turns "
                   "cycles into hours")
    target(g)
    if json:
        g.add_argument(*json, metavar="FILE", dest="summary_json",
                       help="also write every figure of this analysis as "
                       "JSON (the tail summary, format \"rtlat-report tail "
                       "summary 1\"; '-' = stdout)")
    return g


def target(g):
    """The run-length plan's target."""
    g.add_argument("--plan-level", metavar="US", type=positive,
                   help="the target's latency level, µs (default 100)")
    g.add_argument("--plan-prob", metavar="P", type=probability,
                   default=1e-9, help="the target's probability per cycle "
                   "of a latency at or above the level (default %(default)g)")
    g.add_argument("--plan-confidence", metavar="C", type=probability,
                   help="the target's confidence (default: --confidence)")


# What each subcommand does, in words: its --help, the man page and the
# old form's flag (the old form's --help says the same).
PLAN_HELP = ("print how long to run for the target of --plan-level/"
             "--plan-prob/--plan-confidence (and what each input shows of "
             "it) instead of writing the page; with no input, the run "
             "length alone")
GATE_HELP = ("BASE NEW: exit 0 if NEW is not worse, 3 if it is worse "
             "beyond the confidence (samples above BASE's max, and the "
             "spikes at BASE's high quantiles, or --levels: exact tests "
             "at levels fixed from BASE alone, one weighted Holm "
             "correction over all) or did not finish (its file a "
             "checkpoint, a non-zero return_code), 125 if it cannot tell: "
             "the tail not testable (a tail 1.3 times larger would have been "
             "seen with probability under 0.8: the power is said), no "
             "series in common, or BASE did not finish (git bisect run "
             "skips them); the reason in words. "
             "Series match by name, else thread N of one with thread N of "
             "the other (cyclictest -h text and rtlat's JSON); writes the "
             "page only with -o")
MERGE_HELP = ("the inputs are consecutive runs of the same tests and "
              "settings (files, or suite results directories): show them "
              "as one run (one exact histogram per series, one time line "
              "with the gaps between runs); runs that differ in a setting "
              "are refused (exit 2). --labels then takes one name")
KCIDB_HELP = ("write the inputs as a KCIDB I/O document (kcidb-io schema "
              "5.3) to FILE ('-' = stdout) instead of a page, checked with "
              "kcidb-io's validator first (a line says when kcidb-io is not "
              "installed: pip install 'rtlat-report[kcidb]')")
SQUAD_HELP = ("submit each INPUT (a run's JSON or a results directory) to "
              "a SQUAD server as one test run; the token from the "
              "environment variable SQUAD_TOKEN or --squad-token-file, "
              "never an argument")


def old_flags(p, g):
    """The old form's flags that name what to do (today's subcommands)."""
    g.add_argument("--plan", action="store_true", help=PLAN_HELP)
    g.add_argument("--gate", action="store_true", help=GATE_HELP)
    p.add_argument("--merge", action="store_true", help=MERGE_HELP)


def kcidb(p, out=("--kcidb",), default=None):
    g = p.add_argument_group("KCIDB (KernelCI's common database)")
    g.add_argument(*out, metavar="FILE", dest="kcidb", default=default,
                   help=KCIDB_HELP if out == ("--kcidb",) else
                   "where to write the KCIDB document ('-' = stdout, the "
                   "default)")
    g.add_argument("--origin", default="rtlat", metavar="NAME",
                   help="the submitting CI system, KCIDB's origin and the "
                   "prefix of every id: lowercase letters, digits, _ "
                   "(default %(default)s)")
    g.add_argument("--kcidb-checkout-id", metavar="ID",
                   help="the checkout's id after 'ORIGIN:' (default: the "
                   "git commit, else made from the running kernel's "
                   "release and version in the results)")
    g.add_argument("--kcidb-build-id", metavar="ID",
                   help="the build's id after 'ORIGIN:' (default: made "
                   "from the checkout, kernel and machine)")
    g.add_argument("--kcidb-git-commit", metavar="SHA",
                   help="the kernel's git commit hash")
    g.add_argument("--kcidb-git-url", metavar="URL",
                   help="the kernel's git repository URL")
    g.add_argument("--kcidb-tree", metavar="NAME",
                   help="the kernel tree's name (mainline, stable...)")
    g.add_argument("--kcidb-url-base", metavar="URL",
                   help="where the inputs are published: each JSON (and "
                   "report.html beside it) becomes an output_file at "
                   "URL/NAME")


def squad(p, url=("--squad",), required=False):
    g = p.add_argument_group("SQUAD", SQUAD_HELP)
    g.add_argument(*url, metavar="URL", dest="squad", required=required,
                   help="your SQUAD server, e.g. https://qa-reports.example.org")
    g.add_argument("--group", help="SQUAD group slug")
    g.add_argument("--project", help="SQUAD project slug")
    g.add_argument("--build", help="build version, e.g. the kernel's "
                   "release (default: the run's kernel release)")
    g.add_argument("--environment", help="environment slug, e.g. the "
                   "board (default: the run's machine and host name)")
    g.add_argument("--job-id", metavar="ID",
                   help="the test run's job_id (one INPUT; default: made "
                   "from the run's identity, so a resubmission is refused "
                   "as a duplicate)")
    g.add_argument("--suite", default=SUITE, metavar="NAME",
                   help="the suite the names go in: the name of rtlat's "
                   "definition in the LAVA jobs whose history this "
                   "continues (default %(default)s)")
    g.add_argument("--squad-token-file", metavar="FILE",
                   help="read the token from FILE (default: $SQUAD_TOKEN); "
                   "a file its group or others can read is warned of")
    g.add_argument("--squad-timeout", metavar="S", type=seconds,
                   default=TIMEOUT_S,
                   help="give a submission up after S seconds, whatever the "
                   "server does (default %(default)d); of each answer the "
                   f"first {ANSWER_BYTES >> 10} KiB are read")
    g.add_argument("--allow-http", action="store_true",
                   help="send the token over plain http:// to a host that "
                   "is not this machine (loopback): refused without it, "
                   "since anyone on the way can read the token")


def page_command(p):
    inputs(p)
    page(p)
    tail(p)
    limits(p)


def gate_command(p):
    inputs(p, metavar="RUN", help="BASE then NEW: two results directories "
           "or files (as INPUT of page)")
    tail(p, section=False)
    page(p)
    limits(p)


def plan_command(p):
    inputs(p, nargs="*", help=INPUT_HELP + "; none: the run length alone")
    tail(p, section=False)
    labels(p)
    limits(p)


def summary_command(p):
    inputs(p, metavar="RUN")
    p.add_argument("--json", metavar="FILE", dest="summary_json",
                   help="write the tail summary JSON (every figure of the "
                   "analysis of how bad it will get, format \"rtlat-report "
                   "tail summary 1\") to FILE ('-' = stdout, instead of the "
                   "text)")
    tail(p, section=False, json=())
    labels(p)
    limits(p)


def kcidb_command(p):
    inputs(p)
    kcidb(p, out=("-o", "--output"), default="-")
    limits(p)


def squad_command(p):
    inputs(p)
    squad(p, url=("--url", "--squad"), required=True)


def samples_command(p):
    p.add_argument("file", metavar="FILE",
                   help="a file rtlat --samples FILE wrote")
    p.add_argument("--csv", metavar="OUT",
                   help="write every sample as jitterdebugger's jittersamples "
                   "CSV (CPUID;seconds.nanoseconds;latency in us) to OUT "
                   "('-': standard output)")
    p.add_argument("--cpu", type=int, metavar="N",
                   help="--csv: only CPU N's samples")


# name: (one line for rtlat-report --help, its description, its options,
# the old form that does the same; None: none).
COMMANDS = {
    "page": ("the HTML page (or markdown) of the inputs",
             "One HTML page (or markdown) of the inputs: histograms, "
             "percentiles, time lines, each run side by side with the first.",
             page_command, "rtlat-report INPUT..."),
    "gate": ("is NEW worse than BASE? exit 0, 3, or 125 (cannot tell)",
             GATE_HELP.replace("BASE NEW: exit", "Compare run NEW with BASE: "
                               "exit"), gate_command,
             "rtlat-report BASE NEW --gate"),
    "plan": ("how long to run for a target level and probability",
             PLAN_HELP[0].upper() + PLAN_HELP[1:], plan_command,
             "rtlat-report [INPUT...] --plan"),
    "merge": ("the page of consecutive runs shown as one",
              "The page of consecutive runs shown as one: " + MERGE_HELP,
              page_command, "rtlat-report INPUT... --merge"),
    "summary": ("a few lines per run: verdicts, figures, the worst",
                "A few lines per run: each test, whether it finished and "
                "passed the suite's thresholds, each series' samples, min, "
                "avg, p99 and max (µs), the worst series and the worst CPU; "
                "--json FILE writes the tail summary JSON as well ('-': "
                "instead, on stdout).", summary_command,
                "rtlat-report INPUT... --summary-json FILE (the JSON)"),
    "kcidb": ("the inputs as a KCIDB I/O document",
              KCIDB_HELP.replace("to FILE", "to -o FILE"), kcidb_command,
              "rtlat-report INPUT... --kcidb FILE"),
    "squad": ("submit each input to a SQUAD server",
              SQUAD_HELP[0].upper() + SQUAD_HELP[1:] + ".", squad_command,
              "rtlat-report INPUT... --squad URL"),
    "samples": ("every sample of an rtlat --samples file: its spectrum, CSV",
                "What an rtlat --samples FILE holds: each series' count, "
                "min, median and max, whether the file is complete and how "
                "many samples the writer dropped, and the periodic "
                "disturbances the latency spectrum finds in each series "
                "('every 1.000 s'); --csv OUT writes jitterdebugger's "
                "jittersamples CSV of it.", samples_command, None),
}


def old_form(p):
    """The old form's one parser: every group, the flags that choose."""
    inputs(p, nargs="*")
    page(p)
    limits(p)
    old_flags(p, tail(p))
    kcidb(p)
    squad(p)
