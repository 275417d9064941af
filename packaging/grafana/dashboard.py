#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""rtlat's Grafana dashboard, built with grafana-foundation-sdk's Python
types (pip install grafana-foundation-sdk). Prints the dashboard's JSON:

    packaging/grafana/dashboard.py > packaging/grafana/rtlat-dashboard.json

Import that file in Grafana (Dashboards, New, Import) with a Prometheus
data source that scrapes node_exporter's textfile collector holding
rtlat's --openmetrics files, and load packaging/prometheus/rtlat-rules.yml
(the p99, max and spike panels read its recorded series).

Panels: the run's verdict and context (threshold exceeded, complete,
rtlat's version, the kernel and its preemption model), a per-CPU latency
heatmap of the histogram's buckets (the same bounds, 10 ns to 10 s, for
every CPU), max and p99 over time per CPU, spikes over 100 us and 1 ms
beside the threshold."""
import json
import sys

from grafana_foundation_sdk.builders import common as common_b
from grafana_foundation_sdk.builders import dashboard as dash
from grafana_foundation_sdk.builders import heatmap, stat, table, timeseries
from grafana_foundation_sdk.builders.prometheus import Dataquery as Prom
from grafana_foundation_sdk.cog.encoder import JSONEncoder
from grafana_foundation_sdk.models import common
from grafana_foundation_sdk.models import dashboard as dash_m
from grafana_foundation_sdk.models import heatmap as heatmap_m
from grafana_foundation_sdk.models.prometheus import PromQueryFormat

SEL = 'instance=~"$instance", test=~"$test", run=~"$run"'


def var(name, label, query):
    return (dash.QueryVariable(name).label(label)
            .query(query).include_all(True).multi(True)
            .refresh(dash_m.VariableRefresh.ON_TIME_RANGE_CHANGED))


def verdict():
    return (stat.Panel().title("Threshold exceeded (1) per series")
            .grid_pos(dash_m.GridPos(h=5, w=8, x=0, y=0))
            .with_target(Prom().expr(
                f"max by (test, series) (rtlat_threshold_exceeded{{{SEL}}})")
                .legend_format("{{test}}/{{series}}").instant())
            .thresholds(dash.ThresholdsConfig()
                        .mode(dash_m.ThresholdsMode.ABSOLUTE)
                        .steps([dash_m.Threshold(value=None, color="green"),
                                dash_m.Threshold(value=1, color="red")]))
            .color_mode(common.BigValueColorMode.BACKGROUND))


def complete():
    return (stat.Panel().title("Run complete (0: still running or ended early)")
            .grid_pos(dash_m.GridPos(h=5, w=6, x=8, y=0))
            .with_target(Prom().expr(f"rtlat_run_complete{{{SEL}}}")
                         .legend_format("{{test}} {{run}}").instant())
            .thresholds(dash.ThresholdsConfig()
                        .mode(dash_m.ThresholdsMode.ABSOLUTE)
                        .steps([dash_m.Threshold(value=None, color="orange"),
                                dash_m.Threshold(value=1, color="green")])))


def context():
    return (table.Panel().title("Context: rtlat, kernel, preemption model")
            .grid_pos(dash_m.GridPos(h=5, w=10, x=14, y=0))
            .with_target(Prom().expr(f"rtlat_info{{{SEL}}}")
                         .format(PromQueryFormat.TABLE).instant()))


def heat():
    return (heatmap.Panel().title("Latency per CPU (histogram buckets, last refresh)")
            .grid_pos(dash_m.GridPos(h=10, w=24, x=0, y=5))
            .with_target(Prom().expr(
                f'sum by (le) (increase(rtlat_latency_seconds_bucket{{{SEL}, '
                f'cpu=~"$cpu", thread!="all"}}[$__rate_interval]))')
                .format(PromQueryFormat.HEATMAP).legend_format("{{le}}"))
            .calculate(False)
            .color(heatmap.HeatmapColorOptions()
                   .mode(heatmap_m.HeatmapColorMode.SCHEME)
                   .scheme("Oranges")
                   .scale(heatmap_m.HeatmapColorScale.EXPONENTIAL)
                   .exponent(0.5))
            .y_axis(heatmap.YAxisConfig().unit("s").decimals(6))
            .unit("s")
            .repeat("cpu").repeat_direction("v"))


def over_time(title, exprs, y):
    p = (timeseries.Panel().title(title)
         .grid_pos(dash_m.GridPos(h=8, w=12, x=0 if y % 2 == 0 else 12, y=y))
         .unit("s")
         .scale_distribution(common_b.ScaleDistributionConfig()
                             .type(common.ScaleDistribution.LOG).log(10)))
    for expr, legend in exprs:
        p = p.with_target(Prom().expr(expr).legend_format(legend))
    return p


def spikes():
    return (timeseries.Panel().title("Spikes over 100 us and 1 ms (5 min), threshold exceeded")
            .grid_pos(dash_m.GridPos(h=8, w=24, x=0, y=23))
            .with_target(Prom().expr(
                f"rtlat:latency_spikes_over_100us:increase_5m{{{SEL}}}")
                .legend_format("> 100 us CPU {{cpu}}"))
            .with_target(Prom().expr(
                f"rtlat:latency_spikes_over_1ms:increase_5m{{{SEL}}}")
                .legend_format("> 1 ms CPU {{cpu}}"))
            .with_target(Prom().expr(
                f"max by (test, series) (rtlat_threshold_exceeded{{{SEL}}})")
                .legend_format("threshold exceeded {{test}}/{{series}}")))


def build():
    return (dash.Dashboard("rtlat: real-time latency")
            .uid("rtlat-latency")
            .tags(["rtlat", "real-time", "latency"])
            .refresh("1m")
            .time("now-6h", "now")
            .timezone(common.TimeZoneBrowser)
            .with_variable(var("instance", "Host",
                               "label_values(rtlat_info, instance)"))
            .with_variable(var("test", "Test",
                               'label_values(rtlat_info{instance=~"$instance"}, test)'))
            .with_variable(var("run", "Run", 'label_values(rtlat_info'
                               '{instance=~"$instance", test=~"$test"}, run)'))
            .with_variable(var("cpu", "CPU", 'label_values(rtlat_latency_seconds_count'
                               f'{{{SEL}, thread!="all"}}, cpu)'))
            .with_panel(verdict())
            .with_panel(complete())
            .with_panel(context())
            .with_panel(heat())
            .with_panel(over_time("Max per CPU (5 min)", [
                (f'rtlat:latency_seconds:max_5m{{{SEL}, cpu=~"$cpu"}}', "max CPU {{cpu}}")], 15))
            .with_panel(over_time("p99 and p99.99 per CPU (5 min)", [
                (f'rtlat:latency_seconds:p99_5m{{{SEL}, cpu=~"$cpu"}}', "p99 CPU {{cpu}}"),
                (f'rtlat:latency_seconds:p9999_5m{{{SEL}, cpu=~"$cpu"}}',
                 "p99.99 CPU {{cpu}}")], 16))
            .with_panel(spikes()))


def dashboard_json():
    """The dashboard as Grafana imports it (a plain JSON object)."""
    return json.loads(json.dumps(build().build(), cls=JSONEncoder))


if __name__ == "__main__":
    json.dump(dashboard_json(), sys.stdout, indent=2, sort_keys=True)
    sys.stdout.write("\n")
