# SPDX-License-Identifier: GPL-2.0-or-later
"""A reader for rt-tests' JSON result layout (file_version 1), written the
way lab tooling reads pmqtest/svsematest/... files: it knows nothing of
rtlat's additions, so a file it reads is one those scripts read too."""
import json
from dataclasses import dataclass


@dataclass
class Side:
    cpu: int
    priority: int


@dataclass
class Pair:
    sender: Side
    receiver: Side
    samples: int
    interval: int
    min: int
    avg: float
    max: int
    timeoutcount: int | None


@dataclass
class RtTestsResult:
    cmdline: str
    return_code: int
    sysinfo: dict
    pairs: list


def read(path):
    with open(path) as f:
        d = json.load(f)
    if d["file_version"] != 1:
        raise ValueError(f"unknown file_version {d['file_version']}")
    pairs = []
    for i in range(d["num_threads"]):
        t = d["thread"][str(i)]
        s, r = t["sender"], t["receiver"]
        pairs.append(Pair(
            sender=Side(int(s["cpu"]), int(s["priority"])),
            receiver=Side(int(r["cpu"]), int(r["priority"])),
            samples=int(s["samples"]), interval=int(s["interval"]),
            min=int(r["min"]), avg=float(r["avg"]), max=int(r["max"]),
            timeoutcount=r.get("timeoutcount")))
    for key in ("sysname", "release", "machine", "realtime"):
        d["sysinfo"][key]
    return RtTestsResult(cmdline=d["cmdline:"], return_code=d["return_code"],
                         sysinfo=d["sysinfo"], pairs=pairs)
