#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""A matplotlib stand-in for the Grafana dashboard's panels (no Grafana
server runs where the docs are built), drawn from one real run's files:

    standin.py RUN.prom RUN.json OUT.png

RUN.prom (--openmetrics) gives the per-CPU bucket counts (the heatmap's
rows are its le bounds, the same for every CPU), the verdict and the
context; RUN.json's time line (--timeline) gives max and p99 over time
and each step's count over --max-latency, as the recorded series
rtlat:latency_seconds:max_5m, :p99_5m and the spike counts would."""
import json
import sys

import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
from prometheus_client.openmetrics import parser  # noqa: E402


def read_prom(path):
    fams = {f.name: f for f in parser.text_string_to_metric_families(
        open(path, encoding="utf-8").read())}
    cum = {}
    for s in fams["rtlat_latency_seconds"].samples:
        if s.name.endswith("_bucket") and s.labels["thread"] != "all":
            cum.setdefault(s.labels["cpu"], []).append(
                (float(s.labels["le"]), s.value))
    info = fams["rtlat_info"].samples[0].labels
    exceeded = {f'{s.labels["series"]} thread {s.labels["thread"]}': s.value
                for s in fams["rtlat_threshold_exceeded"].samples}
    return cum, info, exceeded


def main(prom, js, out):
    cum, info, exceeded = read_prom(prom)
    data = json.load(open(js, encoding="utf-8"))
    fig, ax = plt.subplots(2, 2, figsize=(13, 8))
    fig.suptitle("rtlat: real-time latency (stand-in for the Grafana "
                 "dashboard's panels, one real run)")
    cpus = sorted(cum, key=int)
    bounds = [le for le, _ in sorted(cum[cpus[0]]) if le != float("inf")]
    grid = np.zeros((len(bounds), len(cpus)))
    for j, c in enumerate(cpus):
        rows = sorted(cum[c])
        prev = 0
        for i, (le, v) in enumerate(rows[:len(bounds)]):
            grid[i, j], prev = v - prev, v
    a = ax[0][0]
    a.pcolormesh(np.arange(len(cpus) + 1) - 0.5,
                 np.array([bounds[0] / 10 ** 0.04] + bounds),
                 np.log10(grid + 1), cmap="Oranges", shading="flat")
    a.set_yscale("log")
    a.set_xticks(range(len(cpus)), [f"CPU {c}" for c in cpus])
    a.set_ylabel("latency (s), le bounds 10 ns to 10 s")
    a.set_title("Latency per CPU (buckets, log count)")
    tl = data.get("timeline") or {}
    over_ax, spike_ax = ax[0][1], ax[1][0]
    thr = None
    for s in tl.get("series", []):
        steps = [r for r in s["steps"] if r[2]]
        t = [r[0] for r in steps]
        over_ax.plot(t, [r[5] / 1e9 for r in steps], label=f"max CPU {s['cpu']}")
        over_ax.plot(t, [r[6] / 1e9 for r in steps], "--", label=f"p99 CPU {s['cpu']}")
        spike_ax.bar(np.array(t) + 0.2 * s["cpu"], [r[7] or 0 for r in steps],
                     width=0.2, label=f"over threshold CPU {s['cpu']}")
        thr = s.get("threshold_ns") or thr
    over_ax.set_yscale("log")
    over_ax.set_title("Max and p99 per CPU over time")
    over_ax.set_xlabel("s")
    over_ax.set_ylabel("latency (s)")
    over_ax.legend(fontsize=7)
    if thr:
        spike_ax.set_title(f"Spikes over the threshold ({thr / 1000:g} us) per step")
    spike_ax.set_xlabel("s")
    spike_ax.legend(fontsize=7)
    a = ax[1][1]
    a.axis("off")
    lines = ["Verdict (rtlat_threshold_exceeded):"] + \
        [f"  {k}: {'EXCEEDED' if v else 'ok'}" for k, v in sorted(exceeded.items())] + \
        ["", "Context (rtlat_info):",
         f"  rtlat {info.get('version')}", f"  kernel {info.get('kernel')}",
         f"  preemption {info.get('preemption')}", f"  run {info.get('run')}"]
    a.text(0, 1, "\n".join(lines), va="top", family="monospace", fontsize=9)
    fig.tight_layout()
    fig.savefig(out, dpi=80)


if __name__ == "__main__":
    main(*sys.argv[1:4])
