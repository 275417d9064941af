# SPDX-License-Identifier: GPL-2.0-or-later
"""The command line of "how bad will it get" (--tail, --levels, plan,
gate, --summary-json): what main() does with the options (declared in
options.py). SciPy is imported only when one of them is used: a plain
page does not pay for it."""


def wanted(args):
    """Is the analysis asked for (and SciPy needed)?"""
    return bool(args.tail or args.levels or args.plan or args.gate or
                args.summary_json or
                # check() has put the default in: what the user gave counts
                getattr(args, "plan_level_given", args.plan_level is not None))


def check(args, parser):
    """Exit 2 (argparse) for combinations that cannot work."""
    if args.gate and len(args.inputs) != 2:
        what = "--gate" if args.command is None else "BASE NEW"
        parser.error(f"{what}: two inputs expected (BASE NEW), got "
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


def analyse(args, runs):
    """(the analysis of each run, the gate's or None); the summary JSON
    written when asked."""
    from ..tail import analyse as worst
    analysed = [worst.analyse_run(r, args) for r in runs]
    worst.add_plans(analysed, args)
    g = worst.run_gate(runs, analysed, args) if args.gate else None
    if args.summary_json:
        worst.write_json(args.summary_json,
                         worst.clean(worst.summary(runs, analysed, args, g)))
    return analysed, g


def after_load(args, runs):
    """The analysis of the loaded runs: (section or None, exit status or
    None to go on and write the page)."""
    from ..tail import gate as gatemod
    from ..tail import plan as planmod
    from ..page import tail as tailpage
    analysed, g = analyse(args, runs)
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
