# SPDX-License-Identifier: GPL-2.0-or-later
"""rtlat's OpenMetrics as a Prometheus user gets them (issue 49): the
real node_exporter's textfile collector serves two runs' files from one
directory, the real Prometheus scrapes it, and PromQL on what it stored
answers as the runs' JSON does: histogram_quantile(1) within one bucket
of the max of a run with a 30 ms spike (the run is stopped with SIGSTOP
for 30 ms: no real-time hog), sum by (le) over the threads equals
thread="all", both runs visible. A run that writes over another run's
file says so in one line."""
import json
import re
import shutil
import signal
import subprocess
import time
import urllib.parse
import urllib.request

import pytest

from conftest import free_port, reaped, run, start, wait_for, wait_line
from test_fleet_engines import exporter

BOUND_RATIO = 10 ** (1 / 25)    # one OpenMetrics bucket: 9.6 %
LE_FIRST, LE_LAST = 1e-8, 10.0


def installed(name):
    """A tool of the Debian package prometheus (prometheus, promtool), or
    a skip saying it is not installed."""
    exe = shutil.which(name)
    if not exe:
        pytest.skip(f"{name} is not installed (Debian package prometheus; "
                    "tests/install-deps)")
    return exe


def run_id(prom_text):
    ids = set(re.findall(r'\{run="([^"]+)"', prom_text))
    assert len(ids) == 1, ids
    return ids.pop()


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    """Two timer runs writing into one textfile directory: A on every CPU
    with a 30 ms stop in its measuring, B a plain one. {name: (json,
    prom, run id)}."""
    d = tmp_path_factory.mktemp("metrics")
    tf = d / "textfile"
    tf.mkdir()
    out = {}
    a = start(["timer", "-c", "all", "-T", "3", "--json", str(d / "a.json"),
               "--openmetrics", str(tf / "a.prom")])
    with reaped(a):
        # measuring past its warm-up: its first per-second line
        wait_line(a.stdout, r"^RTD\|")
        a.send_signal(signal.SIGSTOP)
        time.sleep(0.030)       # the spike's length, not a wait for an event
        a.send_signal(signal.SIGCONT)
        _, err = a.communicate(timeout=60)
    assert a.returncode == 0, err
    b = run(["timer", "-T", "1", "-q", "--json", str(d / "b.json"),
             "--openmetrics", str(tf / "b.prom")])
    assert b.returncode == 0, b.stderr
    for name in ("a", "b"):
        prom = tf / f"{name}.prom"
        out[name] = (json.loads((d / f"{name}.json").read_text()), prom,
                     run_id(prom.read_text()))
    return d, tf, out


def query(port, expr):
    url = f"http://127.0.0.1:{port}/api/v1/query?" + \
        urllib.parse.urlencode({"query": expr})
    with urllib.request.urlopen(url, timeout=10) as r:
        body = json.loads(r.read().decode())
    assert body["status"] == "success", body
    return body["data"]["result"]


@pytest.fixture(scope="module")
def promql(runs, tmp_path_factory):
    """A query function on a real Prometheus that scraped node_exporter
    serving the runs' textfile directory."""
    d, tf, _ = runs
    work = tmp_path_factory.mktemp("prometheus")
    with exporter(tf, work / "node_exporter.log") as (ne, ne_port):
        port = free_port()
        cfg = work / "prometheus.yml"
        cfg.write_text("global:\n  scrape_interval: 1s\n"
                       "scrape_configs:\n  - job_name: rtlat\n"
                       f"    static_configs:\n      - targets: ['127.0.0.1:{ne_port}']\n")
        log = open(work / "prometheus.log", "w")
        p = subprocess.Popen([installed("prometheus"), f"--config.file={cfg}",
                              f"--storage.tsdb.path={work / 'data'}",
                              f"--web.listen-address=127.0.0.1:{port}"],
                             stdout=log, stderr=subprocess.STDOUT)
        with reaped(p):
            def scraped():
                try:
                    return len(query(port, "count by (run) (rtlat_info)")) == 2
                except OSError:
                    return False
            wait_for(scraped, "Prometheus to have scraped both runs' files",
                     proc=p)
            yield lambda expr: query(port, expr)
            p.terminate()
            p.wait(timeout=30)
        log.close()


def test_openmetrics_bounds_are_fixed(runs):
    """Every series, thread and CPU has the same bounds, 10 ns to 10 s."""
    _, _, out = runs
    bounds = {}
    for _, prom, _ in out.values():
        for line in prom.read_text().splitlines():
            m = re.match(r'rtlat_latency_seconds_bucket\{(.*),le="([^"]+)"\}', line)
            if m:
                bounds.setdefault(m.group(1), []).append(m.group(2))
    assert len(bounds) >= 3
    first = next(iter(bounds.values()))
    assert all(b == first for b in bounds.values())
    assert float(first[0]) == LE_FIRST and float(first[-2]) == LE_LAST
    assert first[-1] == "+Inf" and len(first) == 9 * 25 + 2


def test_histogram_quantile_1_within_one_bucket_of_the_max(runs, promql):
    _, _, out = runs
    js, _, rid = out["a"]
    max_s = js["latency"]["max_ns"] / 1e9
    assert max_s >= 0.025, max_s    # the 30 ms stop is in the run
    (r,) = promql('histogram_quantile(1, rtlat_latency_seconds_bucket'
                  f'{{run="{rid}",thread="all"}})')
    got = float(r["value"][1])
    # the bound above the max's bucket (0.1 % wide): one bucket up at most
    assert max_s <= got <= max_s * BOUND_RATIO * 1.001, (got, max_s)


def test_sum_by_le_over_threads_is_thread_all(runs, promql):
    _, _, out = runs
    rid = out["a"][2]
    threads = promql('count(count by (thread) (rtlat_latency_seconds_bucket'
                     f'{{run="{rid}",thread!="all"}}))')
    assert float(threads[0]["value"][1]) >= 1
    parts = promql('sum by (le) (rtlat_latency_seconds_bucket'
                   f'{{run="{rid}",thread!="all"}})')
    whole = promql('sum by (le) (rtlat_latency_seconds_bucket'
                   f'{{run="{rid}",thread="all"}})')
    got = {r["metric"]["le"]: float(r["value"][1]) for r in parts}
    want = {r["metric"]["le"]: float(r["value"][1]) for r in whole}
    assert len(want) == 9 * 25 + 2
    assert got == want


def test_two_runs_files_both_visible(runs, promql):
    _, _, out = runs
    ids = {r["metric"]["run"] for r in promql("rtlat_info")}
    assert ids == {out["a"][2], out["b"][2]}
    for rid in ids:
        n = promql(f'rtlat_latency_seconds_count{{run="{rid}",thread="all"}}')
        assert len(n) == 1 and float(n[0]["value"][1]) > 0


def test_writing_over_another_runs_file_says_so(runs, tmp_path):
    _, _, out = runs
    target = tmp_path / "same.prom"
    shutil.copy(out["a"][1], target)
    r = run(["timer", "-T", "1", "-q", "--openmetrics", str(target)])
    assert r.returncode == 0, r.stderr
    said = [ln for ln in r.stderr.splitlines() if "writing over" in ln]
    assert len(said) == 1 and out["a"][2] in said[0], r.stderr
    assert run_id(target.read_text()) != out["a"][2]
    # a file of no run (none written yet, or not rtlat's): nothing said
    fresh = tmp_path / "fresh.prom"
    r = run(["timer", "-T", "1", "-q", "--openmetrics", str(fresh)])
    assert r.returncode == 0 and "writing over" not in r.stderr, r.stderr
