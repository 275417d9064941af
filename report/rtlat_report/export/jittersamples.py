# SPDX-License-Identifier: GPL-2.0-or-later
"""rtlat-report samples FILE --csv OUT: every sample of an rtlat --samples
file as jitterdebugger's jittersamples writes its CSV (jittersamples(1)):
one line per sample, "CPUID;seconds.nanoseconds;latency", the time the
CLOCK_MONOTONIC instant of the sample, the latency in whole microseconds
(truncated, as jitterdebugger keeps it), in time order across the CPUs.
A series not pinned to one CPU gives its thread number as the CPUID."""
import numpy as np

from ..io import write


def lines(samples, cpu=None):
    """The CSV's text; cpu: only that CPU's samples."""
    ids, ts, us = [], [], []
    for s in samples.series:
        who = s.cpu if s.cpu is not None else s.thread
        if cpu is not None and who != cpu:
            continue
        ids.append(np.full(len(s.ns), who, dtype=np.int64))
        ts.append(s.t_ns + samples.origin_ns)
        us.append(s.ns // 1000)
    if not ids:
        return ""
    ids, ts, us = (np.concatenate(a) for a in (ids, ts, us))
    order = np.argsort(ts, kind="stable")
    out = [f"{i};{t // 1000000000}.{t % 1000000000:09d};{u}"
           for i, t, u in zip(ids[order].tolist(), ts[order].tolist(),
                              us[order].tolist())]
    return "\n".join(out) + "\n"


def export(samples, out, cpu=None):
    write(out, lines(samples, cpu))
