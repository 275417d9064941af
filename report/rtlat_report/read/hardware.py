# SPDX-License-Identifier: GPL-2.0-or-later
"""rtlat hwlat and rtlat osnoise results (and rtlat qualify's hwlat
phase) as the model's Hwlat and Osnoise; every result's SMI counts per
CPU ("smi": {cpu: {start, end}}). No latency series: a run keeps them
beside its tests (Run.hwlat, Run.osnoise)."""
from ..model import Hwlat, HwlatEvent, Osnoise, OsnoiseCpu


def _int(x):
    """A JSON integer (or integral number) as int; None for anything
    else (bools included)."""
    if isinstance(x, bool) or not isinstance(x, (int, float)):
        return None
    return int(x)


def _dict(x, key):
    v = x.get(key) if isinstance(x, dict) else None
    return v if isinstance(v, dict) else {}


def _text(data, key):
    v = data.get(key)
    return v if isinstance(v, str) else ""


def kind_of(data):
    """"hwlat", "osnoise" or None, from rtlat's test name."""
    test = _dict(data, "rtlat").get("test")
    return test if test in ("hwlat", "osnoise") else None


def read_smi(data):
    """{cpu: (start, end)} of the file's "smi" (empty where not read)."""
    out = {}
    for cpu, v in _dict(data, "smi").items():
        if not cpu.isdigit() or not isinstance(v, dict):
            continue
        a, b = _int(v.get("start")), _int(v.get("end"))
        if a is not None and b is not None:
            out[int(cpu)] = (a, b)
    return out


def read_hwlat(path, data):
    tracer, summary = _dict(data, "tracer"), _dict(data, "summary")
    events = data.get("events") if isinstance(data.get("events"), list) else []
    hw = Hwlat(path=path, total=_int(summary.get("events")) or 0,
               threshold_us=_int(tracer.get("threshold_us")),
               window_us=_int(tracer.get("window_us")),
               width_us=_int(tracer.get("width_us")),
               mode=str(tracer.get("mode") or ""),
               smi=read_smi(data), skipped=_text(data, "skipped"),
               error=_text(data, "error"))
    cov = summary.get("covered_s")
    hw.covered_s = float(cov) if _int(cov) is not None else None
    for e in events:
        if not isinstance(e, dict) or _int(e.get("seq")) is None:
            continue
        hw.events.append(HwlatEvent(
            seq=_int(e["seq"]), cpu=_int(e.get("cpu")), ts=str(e.get("ts") or ""),
            inner_us=_int(e.get("inner_us")) or 0,
            outer_us=_int(e.get("outer_us")) or 0,
            count=_int(e.get("count")) or 0,
            nmi_count=_int(e.get("nmi_count")) or 0,
            nmi_total_us=_int(e.get("nmi_total_us"))))
    return hw


def read_osnoise(path, data):
    on = Osnoise(path=path, smi=read_smi(data), skipped=_text(data, "skipped"),
                 error=_text(data, "error"))
    cov = data.get("covered_s")
    on.covered_s = float(cov) if _int(cov) is not None else None
    for cpu, c in sorted(_dict(data, "cpus").items(),
                         key=lambda kv: int(kv[0]) if kv[0].isdigit() else -1):
        if not cpu.isdigit() or not isinstance(c, dict):
            continue
        share = c.get("noise_share")
        on.cpus.append(OsnoiseCpu(
            cpu=int(cpu), periods=_int(c.get("periods")) or 0,
            runtime_us=_int(c.get("runtime_us")) or 0,
            noise_us=_int(c.get("noise_us")) or 0,
            noise_share=float(share) if _int(share) is not None else 0.0,
            max_noise_us=_int(c.get("max_noise_us")) or 0,
            max_single_us=_int(c.get("max_single_us")) or 0,
            counts={k: _int(v) for k, v in _dict(c, "counts").items()
                    if _int(v) is not None}))
    return on
