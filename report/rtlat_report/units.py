# SPDX-License-Identifier: GPL-2.0-or-later
"""Numbers as people read them, for every text the report writes (the
page, the gate's and the plan's words; never the machine-readable
outputs: JSON, KCIDB, SQUAD, OpenMetrics keep their raw figures).

The rule: three significant digits, never an exponent, thousands
separators on counts and rates (65,000/h, not 6.5e+04/h); a latency in
the unit that reads best: ns below 1 µs, µs below 1 ms, ms below 1 s, s
above (850 ns, 12.3 µs, 1.36 ms, 2 s); trailing zeros of a fraction
dropped (2 s, not 2.00 s). A table whose header gives the unit (µs)
keeps it in every row, so that its rows compare at a glance (model's
fmt_us). Imports nothing of the report: every layer may use it."""
import math


def sig(v, digits=3):
    """v to `digits` significant digits, without an exponent, with
    thousands separators and no trailing zeros: 64,912 -> 64,900;
    0.012345 -> 0.0123; 2.0 -> 2."""
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        return "–"
    if not math.isfinite(v):
        return str(v)
    if v == 0:
        return "0"
    mag = math.floor(math.log10(abs(v)))
    places = digits - 1 - mag
    r = round(v, places)
    if places <= 0:
        return f"{r:,.0f}"
    text = f"{r:,.{places}f}"
    return text.rstrip("0").rstrip(".") if "." in text else text


def count(n):
    """A count, whole: 1,234,567."""
    if isinstance(n, bool) or not isinstance(n, (int, float)):
        return "–"
    return f"{round(n):,}"


def rate(v, per):
    """A rate per unit of time or count: 65,000/h."""
    return f"{sig(v)}/{per}"


LATENCY_UNITS = ((1e9, "s"), (1e6, "ms"), (1e3, "µs"), (1.0, "ns"))


def latency(ns):
    """A latency in ns, in the unit that reads best: 850 ns, 12.3 µs,
    1.36 ms, 2 s (above 1,000 s: 7,200 s)."""
    if isinstance(ns, bool) or not isinstance(ns, (int, float)):
        return "–"
    if math.isfinite(ns) and ns:
        # rounded first: 999,999 ns is 1 ms, not 1,000 µs
        ns = round(ns, 2 - math.floor(math.log10(abs(ns))))
    for scale, unit in LATENCY_UNITS:
        if abs(ns) >= scale or scale == 1.0:
            return f"{sig(ns / scale)} {unit}"
    return "–"


def us(v_us):
    """A threshold or setting given in µs, as a latency: 100 µs, 1.5 ms."""
    if isinstance(v_us, bool) or not isinstance(v_us, (int, float)):
        return "–"
    return latency(v_us * 1000.0)


def prob(p):
    """A probability per cycle: 1 in 1,000,000 (a power of ten, as people
    say it), else its three digits (0.0025)."""
    if isinstance(p, bool) or not isinstance(p, (int, float)) or \
            not 0 < p < 1:
        return sig(p)
    inv = 1 / p
    if abs(inv - round(inv)) < 1e-6 * inv:
        return f"1 in {round(inv):,}"
    return sig(p)
