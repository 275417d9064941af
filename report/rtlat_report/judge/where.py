# SPDX-License-Identifier: GPL-2.0-or-later
"""Where a run ran (rtlat's "rtlat": {"context": ...}): bare metal, a
container with its limits, a VM with its hypervisor; and the warning when
a comparison mixes them."""


def context_label(ctx):
    """One phrase: "container (podman, cpuset 1, quota 0.50 CPUs) in a VM
    (KVM)"; None where the run recorded no context (model.Context)."""
    if ctx is None or not ctx.kind:
        return None
    kind = ctx.kind
    parts = []
    if kind.startswith("container"):
        limits = [ctx.engine or "unknown engine"]
        if ctx.cpuset:
            limits.append(f"cpuset {ctx.cpuset}")
        if ctx.quota_cpus is not None:
            limits.append(f"quota {ctx.quota_cpus:.2f} CPUs")
        parts.append(f"container ({', '.join(limits)})")
    if kind.endswith("vm"):
        hv = ctx.hypervisor or "unknown hypervisor"
        parts.append(f"VM ({hv})" if kind == "vm" else f"in a VM ({hv})")
    return " ".join(parts) or "bare metal"


def context_warnings(grouped):
    """One line per test whose compared runs ran in different places
    (among the runs that recorded where)."""
    out = []
    for key, members in grouped:
        seen = [(r.label, context_label(t.context)) for _, r, t in members]
        seen = [(label, where) for label, where in seen if where]
        if len({where for _, where in seen}) > 1:
            out.append(f"{key}: the runs ran in different places: " +
                       "; ".join(f"{label}: {where}" for label, where in seen))
    return out
