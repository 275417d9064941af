# SPDX-License-Identifier: GPL-2.0-or-later
"""The command line of "how bad will it get" (--tail, --levels, --plan,
--gate, --summary-json): its options, declared once here (cli.py adds
them), and what main() does with them. SciPy is imported only when one of
them is used: a plain page does not pay for it."""
import argparse
import math


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


def add_options(p):
    g = p.add_argument_group("how bad will it get (spike rates, tail "
                             "estimates, run length, gate)")
    g.add_argument("--tail", action="store_true",
                   help="add the section \"How bad will it get\" to the "
                   "page: spike rates, the tail estimate with return levels "
                   "and its diagnostics, the run-length table (implied by "
                   "--levels, --plan-level and --summary-json)")
    g.add_argument("--levels", metavar="US,US,...", type=levels_arg,
                   help="latency levels in µs for the spike rates (default: "
                   "a few round levels from each run's 99th percentile to "
                   "its largest sample)")
    g.add_argument("--confidence", metavar="C", type=probability,
                   default=0.95, help="confidence of every interval, test "
                   "and plan (default %(default)g)")
    g.add_argument("--period-us", metavar="US", type=positive,
                   help="the cycle period when the input does not say it "
                   "(cyclictest -h text, rtla, jitterdebugger); turns "
                   "cycles into hours")
    g.add_argument("--plan", action="store_true",
                   help="print how long to run for the target of "
                   "--plan-level/--plan-prob/--plan-confidence (and what "
                   "each input shows of it) instead of writing the page; "
                   "with no input, the run length alone")
    g.add_argument("--plan-level", metavar="US", type=positive,
                   help="the target's latency level, µs (default 100)")
    g.add_argument("--plan-prob", metavar="P", type=probability,
                   default=1e-9, help="the target's probability per cycle "
                   "of a latency at or above the level (default %(default)g)")
    g.add_argument("--plan-confidence", metavar="C", type=probability,
                   help="the target's confidence (default: --confidence)")
    g.add_argument("--gate", action="store_true",
                   help="BASE NEW: exit 0 if NEW is not worse, 3 if it is "
                   "worse beyond the confidence (samples above BASE's max "
                   "and spike rates at levels fixed from BASE by an exact "
                   "test, return levels by their intervals) or did not "
                   "finish (its file a checkpoint, a non-zero "
                   "return_code), 125 if it cannot tell: the runs too "
                   "short, no series in common, or BASE did not finish "
                   "(git bisect run skips them); the reason in words. "
                   "Series match by name, else thread N of one with "
                   "thread N of the other (cyclictest -h text and rtlat's "
                   "JSON); writes the page only with -o")
    g.add_argument("--summary-json", metavar="FILE",
                   help="also write every figure of this analysis as JSON")


def wanted(args):
    """Is the analysis asked for (and SciPy needed)?"""
    return bool(args.tail or args.levels or args.plan or args.gate or
                args.summary_json or
                # check() has put the default in: what the user gave counts
                getattr(args, "plan_level_given", args.plan_level is not None))


def check(args, parser):
    """Exit 2 (argparse) for combinations that cannot work."""
    if args.gate and len(args.inputs) != 2:
        parser.error(f"--gate: two inputs expected (BASE NEW), got "
                     f"{len(args.inputs)}")
    if not args.inputs and not args.plan:
        parser.error("the following arguments are required: INPUT")
    if args.plan_level is None:
        args.plan_level_given = False
        args.plan_level = 100.0
    else:
        args.plan_level_given = True


def plan_only(args):
    """--plan with no input: the run length alone (exit 0)."""
    from ..tail import plan as planmod
    pc = args.plan_confidence or args.confidence
    pl = planmod.plan(args.plan_level * 1000, args.plan_prob, pc,
                      args.period_us * 1000 if args.period_us else None)
    print(planmod.text(pl))
    if args.summary_json:
        from ..tail import analyse as worst
        worst.write_json(args.summary_json, worst.clean(
            {"format": "rtlat-report tail summary 1",
             "plan": pl.as_json()}))
    return 0


def after_load(args, runs):
    """The analysis of the loaded runs: (section or None, exit status or
    None to go on and write the page)."""
    from ..tail import gate as gatemod
    from ..tail import plan as planmod
    from ..page import tail as tailpage
    from ..tail import analyse as worst
    analysed = [worst.analyse_run(r, args) for r in runs]
    worst.add_plans(analysed, args)
    g = worst.run_gate(runs, analysed, args) if args.gate else None
    if args.summary_json:
        worst.write_json(args.summary_json,
                         worst.clean(worst.summary(runs, analysed, args, g)))
    if args.plan:
        first = True
        for r, a in zip(runs, analysed):
            for s in a:
                if first:
                    print(planmod.text(s.plan))
                    first = False
                else:
                    print("\n".join(planmod.text(s.plan).splitlines()[2:]))
        if first:
            print(planmod.text(planmod.plan(
                args.plan_level * 1000, args.plan_prob,
                args.plan_confidence or args.confidence,
                args.period_us * 1000 if args.period_us else None)))
        return None, 0
    if g is not None:
        print(gatemod.text(g))
        return (tailpage.section(runs, analysed, args, g) if args.output
                else None), g.status
    return tailpage.section(runs, analysed, args), None
