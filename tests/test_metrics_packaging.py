# SPDX-License-Identifier: GPL-2.0-or-later
"""What a Prometheus and Grafana user installs (issue 49):
packaging/prometheus/rtlat-rules.yml checked by `promtool check rules`
and tested by `promtool test rules` on the series real rtlat runs wrote
(a run over its threshold, a long run's checkpoint file), the expected
figures computed here from those files; packaging/grafana's dashboard
built with grafana-foundation-sdk's types, equal to the JSON shipped,
and loading back into the SDK's model."""
import importlib.util
import json
import signal
import subprocess

import pytest

from conftest import ROOT, run, running, wait_for
from prometheus_client.openmetrics import parser as om_parser
from test_metrics_prometheus import installed

RULES = ROOT / "packaging" / "prometheus" / "rtlat-rules.yml"
GRAFANA = ROOT / "packaging" / "grafana"
INSTANCE = {"instance": "lab1:9100", "job": "node"}
MINUTES = 80


def promtool():
    return installed("promtool")


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    """Two real files: a finished run over its threshold (exit 3) and a
    running one's checkpoint (rtlat_run_complete 0)."""
    d = tmp_path_factory.mktemp("rules")
    done = d / "done.prom"
    r = run(["timer", "-T", "1", "-q", "--max-latency", "1",
             "--openmetrics", str(done)])
    assert r.returncode == 3, r.stderr
    live = d / "live.prom"
    with running(["timer", "-T", "60", "-q", "--checkpoint", "1s",
                  "--openmetrics", str(live)]) as p:
        def checkpointed():
            return live.exists() and "rtlat_last_step_max_seconds{" in \
                live.read_text() and live.read_text()
        text = wait_for(checkpointed, "a checkpoint's --openmetrics file",
                        proc=p)
        p.send_signal(signal.SIGINT)
        p.communicate(timeout=30)
    copy = d / "live-checkpoint.prom"
    copy.write_text(text)
    return done, copy


def samples(path):
    out = []
    for fam in om_parser.text_string_to_metric_families(path.read_text()):
        for s in fam.samples:
            out.append((s.name, dict(s.labels), s.value))
    return out


def series(name, labels):
    lab = ",".join(f'{k}="{v}"' for k, v in sorted({**labels, **INSTANCE}.items()))
    return f"{name}{{{lab}}}"


def values(name, v):
    """A file refreshed every minute: counters grow by their value each
    minute, gauges stay; the run's timestamp refreshes for 5 minutes
    (at 0..300 s) and then stops."""
    if name == "rtlat_run_timestamp_seconds":
        return f"0+60x5 300x{MINUTES - 5}"
    if name.endswith(("_bucket", "_count", "_sum")):
        return f"{v:.17g}+{v:.17g}x{MINUTES}"
    return f"{v:.17g}x{MINUTES}"


def bucket_quantile(q, rows):
    """Prometheus' histogram_quantile on (upper bound, cumulative) rows."""
    rows = sorted(rows)
    rank = q * rows[-1][1]
    b = next(i for i, (_, c) in enumerate(rows) if c >= rank)
    if rows[b][0] == float("inf"):
        return rows[-2][0]
    start, end, count = 0.0, rows[b][0], rows[b][1]
    if b > 0:
        start = rows[b - 1][0]
        count -= rows[b - 1][1]
        rank -= rows[b - 1][1]
    return start + (end - start) * (rank / count)


def near(expr, value, labels):
    """A promql_expr_test: expr (a recorded series: instance, no job)
    within 1e-6 relative of value."""
    tol = max(abs(value) * 1e-6, 1e-12)
    lab = {**labels, "instance": INSTANCE["instance"]}
    return {"expr": f"abs(({expr}) - {value:.17g}) < bool {tol:.17g}",
            "eval_time": "10m",
            "exp_samples": [{"labels": "{" + ",".join(
                f'{k}="{v}"' for k, v in sorted(lab.items())) + "}",
                "value": 1}]}


def test_promtool_check_rules():
    r = subprocess.run([promtool(), "check", "rules", str(RULES)],
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stdout + r.stderr


def test_promtool_test_rules_on_series_rtlat_wrote(files, tmp_path):
    done, live = files
    inputs, exprs = [], []
    for path in (done, live):
        for name, labels, v in samples(path):
            if name.endswith("_created"):
                continue
            inputs.append({"series": series(name, labels),
                           "values": values(name, v)})
    lv = samples(live)
    run_id = lv[0][1]["run"]
    parts = {(lab["cpu"], lab["series"]) for n, lab, _ in lv
             if n == "rtlat_latency_seconds_bucket" and lab["thread"] != "all"}
    assert parts
    for cpu, ser in parts:
        key = {"run": run_id, "test": "timer", "series": ser, "cpu": cpu}
        sel = ",".join(f'{k}="{v}"' for k, v in sorted(key.items()))
        rows = [(float(lab["le"]), v) for n, lab, v in lv
                if n == "rtlat_latency_seconds_bucket" and lab["cpu"] == cpu
                and lab["thread"] != "all" and lab["series"] == ser]
        # counters grow by the file's counts each minute: a 5 min rate is
        # the file's distribution, scaled, and quantiles do not scale
        for rec, q in (("p99_5m", 0.99), ("p9999_5m", 0.9999)):
            exprs.append(near(f"rtlat:latency_seconds:{rec}{{{sel}}}",
                              bucket_quantile(q, rows), {**key}))
        (mx,) = [v for n, lab, v in lv if n == "rtlat_last_step_max_seconds"
                 and lab["cpu"] == cpu and lab["series"] == ser
                 and lab["thread"] != "all"]
        exprs.append(near(f"rtlat:latency_seconds:max_5m{{{sel}}}", mx, key))
        total = dict(rows)[float("inf")]
        for rec, le in (("over_100us", 1e-4), ("over_1ms", 1e-3)):
            exprs.append(near(
                f"rtlat:latency_spikes_{rec}:increase_5m{{{sel}}}",
                5 * (total - dict(rows)[le]), key))
    dv = samples(done)
    over = {(lab["run"], lab["series"]) for n, lab, v in dv
            if n == "rtlat_threshold_exceeded" and v == 1}
    assert over
    summary = {
        "over": "rtlat timer/{s} on lab1:9100: a latency over its threshold (run {r})",
        "stale": "rtlat timer on lab1:9100: run {r} has not refreshed its figures for 15 minutes",
        "ended": "rtlat timer on lab1:9100: run {r} ended incomplete "
                 "(its last figures are a checkpoint's)"}

    def alert(kind, sev, **lab):
        return {"exp_labels": {**INSTANCE, **lab, "severity": sev,
                               "test": "timer"},
                "exp_annotations": {"summary": summary[kind].format(
                    s=lab.get("series"), r=lab["run"])}}
    # the live run's timestamp stops at 300 s: over 900 s old at 20 min,
    # over an hour at 70 min
    live_ts = {**INSTANCE, "run": run_id, "test": "timer"}
    alerts = [
        {"eval_time": "2m", "alertname": "RtlatLatencyOverThreshold",
         "exp_alerts": [{"exp_labels": {k: v for k, v in
                                        alert("over", "critical", run=r, series=s)
                                        ["exp_labels"].items() if k != "job"},
                         "exp_annotations": alert("over", "critical", run=r,
                                                  series=s)["exp_annotations"]}
                        for r, s in sorted(over)]},
        {"eval_time": "10m", "alertname": "RtlatRunStoppedRefreshing",
         "exp_alerts": []},
        {"eval_time": "25m", "alertname": "RtlatRunStoppedRefreshing",
         "exp_alerts": [{"exp_labels": {**live_ts, "severity": "warning"},
                         "exp_annotations": {"summary": summary["stale"].format(r=run_id)}}]},
        {"eval_time": "20m", "alertname": "RtlatRunEndedIncomplete",
         "exp_alerts": []},
        {"eval_time": "70m", "alertname": "RtlatRunEndedIncomplete",
         "exp_alerts": [{"exp_labels": {**live_ts, "severity": "critical"},
                         "exp_annotations": {"summary": summary["ended"].format(r=run_id)}}]},
    ]
    test = {"rule_files": [str(RULES)], "evaluation_interval": "1m",
            "tests": [{"interval": "1m", "input_series": inputs,
                       "promql_expr_test": exprs, "alert_rule_test": alerts}]}
    path = tmp_path / "rtlat-rules-test.yml"
    path.write_text(json.dumps(test, indent=1))   # JSON is YAML
    r = subprocess.run([promtool(), "test", "rules", str(path)],
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stdout[-4000:] + r.stderr[-4000:]


def load_builder():
    spec = importlib.util.spec_from_file_location("rtlat_dashboard",
                                                  GRAFANA / "dashboard.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_dashboard_built_by_the_sdk_is_the_one_shipped():
    pytest.importorskip("grafana_foundation_sdk",
                        reason="pip install grafana-foundation-sdk "
                        "(tests/requirements.txt)")
    from grafana_foundation_sdk.models.dashboard import Dashboard
    built = load_builder().dashboard_json()
    shipped = json.loads((GRAFANA / "rtlat-dashboard.json").read_text())
    assert built == shipped, "run packaging/grafana/dashboard.py > " \
        "packaging/grafana/rtlat-dashboard.json"
    back = Dashboard.from_json(shipped)
    assert back.title == shipped["title"] and back.uid == shipped["uid"]
    kinds = {p.type_val for p in back.panels}
    assert {"heatmap", "timeseries", "stat", "table"} <= kinds, kinds
    exprs = " ".join(t["expr"] for p in shipped["panels"]
                     for t in p.get("targets", []))
    for metric in ("rtlat_latency_seconds_bucket", "rtlat:latency_seconds:p99_5m",
                   "rtlat:latency_seconds:max_5m", "rtlat_threshold_exceeded",
                   "rtlat_info", "rtlat:latency_spikes_over_100us:increase_5m"):
        assert metric in exprs, metric
