# SPDX-License-Identifier: GPL-2.0-or-later
"""rtlat request --clients N (the ORB multi-client test): per-client output,
log and JSON, the server's per-connection threads and their priorities read
back from /proc, --max-clients, hostile clients beside good ones, every way
of ending, and two hosts in two network namespaces. No latency is asserted."""
import json
import os
import re
import signal
import socket
import subprocess
from pathlib import Path

import pytest

from conftest import RTLAT, free_port, run, running, start, stop, wait_for, wait_line, watching
from test_request import LINE, SERIES, parse_log, two_namespaces  # noqa: F401

PRIO_MAX = os.sched_get_priority_max(os.SCHED_FIFO)
CLIENT0 = PRIO_MAX - 1          # client 0: max-1, client i: max-1-i
SERVER = PRIO_MAX - 2           # the server's own priority
BANNER = (r"^=== Clients: (\d+), client (\d+) \(SCHED_FIFO (\d+)\), load processes: (\d+), "
          r"POSIX timer (\d+) Hz \(round (\d+) of (\d+), (\d+) samples.*\) ===$")


EST = SERIES[:1] + [r"Send Time \(estimate\)", SERIES[2], r"Receive Time \(estimate\)",
                    "Response Time", "Total Jitter", "Network Round Trip"]


def blocks(out, series=SERIES):
    """Per (round, client): the banner's fields and the series lines."""
    found = {}
    parts = re.split(r"^(?==== Clients)", out, flags=re.M)
    for part in parts[1:]:
        m = re.match(BANNER, part.splitlines()[0])
        assert m, part
        n, i, prio, loads, hz, rnd, rounds, samples = map(int, m.groups())
        body = part.split("\nSummary")[0]
        for name in series:
            assert len(re.findall(rf"^{name} +{LINE}", body, re.M)) == 1, (name, part)
        found[(rnd - 1, i)] = dict(n=n, prio=prio, loads=loads, hz=hz, samples=samples)
    return found


def orb_rows(out):
    tail = out[out.index("\nSummary: client 0"):]
    return re.findall(r"^ +(\d+) +(\d+)([ *]) +((?:-?\d+\.\d +){7}-?\d+\.\d) +(\d+|-) +(\S+) +(\S+)$",
                      tail, re.M)


def test_per_client_output_log_and_json(tmp_path, leakcheck):
    log, js = tmp_path / "o.csv", tmp_path / "o.json"
    r = run(["request", "--clients", "3", "--rate0", "400", "--rate", "200", "-i", "2",
             "--samples", "200", "-l", str(log), "--json", str(js)])
    assert r.returncode == 0, r.stderr
    assert re.search(rf"^  clients CPU\d+ SCHED_FIFO {CLIENT0}..{CLIENT0 - 2}  3: client 0 400 Hz, "
                     r"others 200 Hz; server threads at their client's priority$", r.stdout, re.M)
    b = blocks(r.stdout)
    assert sorted(b) == [(k, i) for k in range(2) for i in range(3)]
    for (k, i), v in b.items():
        assert v["n"] == 3 and v["loads"] == k and v["prio"] == CLIENT0 - i
        assert v["hz"] == (400 if i == 0 else 200)
    assert all(b[(k, 0)]["samples"] == 200 for k in range(2))
    rows = orb_rows(r.stdout)
    assert [(int(x[0]), int(x[1]), x[2]) for x in rows] == [(3, 0, " "), (3, 1, " ")]
    assert all(x[4] in ("1", "2") for x in rows)

    heads = [ln for ln in log.read_text().splitlines() if ln.startswith("Load processes,")
             and ",Rate," in ln]
    assert len(heads) == 6
    assert heads[0] == f"Load processes,0,Rate,400,(Hz),Samples,200,Clients,3,Client,0,Priority,{CLIENT0}"
    assert re.fullmatch(rf"Load processes,1,Rate,200,\(Hz\),Samples,\d+,Clients,3,Client,2,Priority,{CLIENT0 - 2}",
                        heads[-1])
    text = log.read_text()
    table = text[text.index("\nSummary\n") + 9:].splitlines()
    assert table[0].startswith("Clients,Load processes,Total Jitter Min,")
    assert table[0].endswith(",Worst other client,Its Total Jitter Max,Its Response Time Max")
    assert [row.split(",")[:2] for row in table[1:]] == [["3", "0"], ["3", "1"]]

    d = json.loads(js.read_text())["request"]
    assert d["settings"]["clients"] == 3 and d["settings"]["rate0_hz"] == 400
    assert d["settings"]["server_priority"] == "propagate" and d["settings"]["max_clients"] == 3
    for k, rd in enumerate(d["rounds"]):
        assert rd["clients"] == 3 and rd["load_processes"] == k
        assert rd["worst_other_client"] in (1, 2)
        pc = rd["per_client"]
        assert [c["client"] for c in pc] == [0, 1, 2]
        assert [c["priority"] for c in pc] == [CLIENT0, CLIENT0 - 1, CLIENT0 - 2]
        assert [c["rate_hz"] for c in pc] == [400, 200, 200]
        assert pc[0]["samples"] == 200 and all(c["samples"] > 0 for c in pc)
        for c in pc:
            s = c["series"]
            assert s["interval"]["target_ns"] == 10**9 // c["rate_hz"]
            assert s["response"]["samples"] == c["samples"]
            assert s["sleep"]["min_ns"] >= 100000
    leakcheck()


def conn_threads(pid):
    """SCHED_FIFO priorities of a server's connection threads."""
    prios = []
    for t in Path(f"/proc/{pid}/task").iterdir():
        try:
            stat = (t / "stat").read_text()
        except OSError:
            continue
        comm = stat[stat.index("(") + 1:stat.rindex(")")]
        fields = stat[stat.rindex(")") + 2:].split()
        if comm == "rtlat-conn":
            assert int(fields[38]) == 1           # SCHED_FIFO
            prios.append(int(fields[37]))
    return sorted(prios)


@pytest.mark.parametrize("mode,want", [
    ("propagate", [CLIENT0 - 2, CLIENT0 - 1, CLIENT0]),
    ("fixed", [SERVER] * 3)])
def test_server_threads_run_at_the_clients_priority(mode, want, leakcheck):
    with running(["request", "-D", "--clients", "3", "--rate0", "200", "--rate", "100",
                  "-i", "1", "--samples", "100000", "--server-priority", mode]) as p:
        m, _ = wait_line(p.stderr, r"server: pid (\d+)")
        srv = int(m.group(1))
        wait_line(p.stderr, r"round 0: 0 load processes, 3 clients")
        wait_for(lambda: conn_threads(srv) == want,
                 lambda: f"connection threads at {want} (now {conn_threads(srv)})",
                 timeout=5, proc=p)
        rc, out, err = stop(p, signal.SIGINT)
    assert rc == 0, err
    assert len(blocks(out)) == 3
    leakcheck()


def serve(extra):
    port = free_port()
    srv = start(["request", "-s", "-D", "--bind", "127.0.0.1", "-p", str(port)] + extra)
    m, _ = wait_line(srv.stdout, rf"server listening on 127\.0\.0\.1:{port} .*up to (\d+) clients")
    assert int(m.group(1)) == int(extra[extra.index("--max-clients") + 1]
                                  if "--max-clients" in extra else 64)
    return srv, port


def client_args(port, n, samples=100):
    return ["request", "-c", "127.0.0.1", "-p", str(port), "--clients", str(n),
            "--rate0", "200", "--rate", "200", "-i", "1", "--samples", str(samples)]


def test_max_clients_refuses_the_next(leakcheck):
    srv, port = serve(["--max-clients", "2"])
    try:
        ok = run(client_args(port, 2))
        assert ok.returncode == 0, ok.stderr
        r = run(client_args(port, 3))
        assert r.returncode == 1
        assert re.search(r"client 2: no reply from 127\.0\.0\.1 .*see --max-clients", r.stderr), r.stderr
        assert "partial round" in r.stdout
    finally:
        rc, out, err = stop(srv, signal.SIGTERM)
    assert rc == 0
    assert re.search(r"server: 127\.0\.0\.1:\d+: refused: 2 clients are being served "
                     r"\(--max-clients 2\); connection closed", err), err
    assert re.search(r"server stopped: \d+ requests served, 4 connections, 1 refused", out), out
    leakcheck()


def raw_call(s, flags, seq=1):
    s.sendall(b"RQ\x01" + bytes([flags]) + seq.to_bytes(4, "big"))
    reply = b""
    while len(reply) < 16:
        chunk = s.recv(16 - len(reply))
        if not chunk:
            break
        reply += chunk
    return reply


def test_hostile_clients_beside_good_ones(leakcheck):
    srv, port = serve(["--timeout", "1"])
    good = start(client_args(port, 3, samples=300))
    try:
        # the good clients being served first
        wait_for(lambda: conn_threads(srv.pid), "the server's threads for "
                 "the good clients", proc=good)
        # A priority out of range: a refusal frame, then the close.
        for flags, asked in ((0xFF, 127), (0x80 | (PRIO_MAX + 1), PRIO_MAX + 1)):
            with socket.create_connection(("127.0.0.1", port), timeout=5) as s:
                reply = raw_call(s, flags)
                assert reply[:4] == b"RE\x01\x01", reply
                assert [int.from_bytes(reply[o:o + 4], "big") for o in (4, 8, 12)] == [asked, 1, PRIO_MAX]
                assert s.recv(16) == b""
        # The flag with priority 0 is no priority: a malformed frame.
        with socket.create_connection(("127.0.0.1", port), timeout=5) as s:
            assert raw_call(s, 0x80) == b""
        # Priority above the server's cap: served, capped.
        with socket.create_connection(("127.0.0.1", port), timeout=5) as s:
            assert raw_call(s, 0x80 | PRIO_MAX)[:3] == b"RP\x01"
        for data in (b"GET / HTTP/1.0\r\n\r\n", b"RQ\x01\x07\x00\x00\x00\x01", b"RQ\x01",
                     b"RQ\x01\x00\x00\x00\x00\x01" * 4, b"\xff" * 70000):
            with socket.create_connection(("127.0.0.1", port), timeout=5) as s:
                try:
                    s.sendall(data)
                    while s.recv(4096):
                        pass
                except OSError:
                    pass
        out, err = good.communicate(timeout=30)
        assert good.returncode == 0, err
        assert len(blocks(out, EST)) == 3
        assert srv.poll() is None
    finally:
        if good.poll() is None:
            good.kill()
            good.communicate()
        rc, sout, serr = stop(srv, signal.SIGINT)
    assert rc == 0
    for what in (f"priority {PRIO_MAX + 1} asked is out of range; accepted: 1 to {PRIO_MAX}",
                 "unknown flags 0x80", f"priority 127 asked is out of range; accepted: 1 to {PRIO_MAX}",
                 "bad magic", "unknown flags", "truncated frame", "oversized frame"):
        assert what in serr, what
    assert "refused: " not in serr
    leakcheck()


def test_refused_priority_is_a_clear_client_error():
    # The client side of a refusal frame, as a hostile server would send.
    with socket.socket() as ls:
        ls.bind(("127.0.0.1", 0))
        ls.listen()
        port = ls.getsockname()[1]
        p = start(client_args(port, 1))
        c, _ = ls.accept()
        c.recv(8)
        c.sendall(b"RE\x01\x01" + (120).to_bytes(4, "big") + (1).to_bytes(4, "big") +
                  (99).to_bytes(4, "big"))
        out, err = p.communicate(timeout=15)
        c.close()
    assert p.returncode == 1
    assert "client 0: request from 127.0.0.1 (127.0.0.1:%d): refused: priority 120 out of range; accepted: 1 to 99" % port in err, err


def test_clients_sweep(tmp_path, leakcheck):
    js = tmp_path / "s.json"
    r = run(["request", "--clients", "4", "--clients-sweep", "--rate0", "500", "--rate", "250",
             "--samples", "100", "--json", str(js)])
    assert r.returncode == 0, r.stderr
    b = blocks(r.stdout)
    assert sorted(b) == [(0, 0), (1, 0), (1, 1), (2, 0), (2, 1), (2, 2), (2, 3)]
    assert all(v["loads"] == 0 for v in b.values())
    rows = orb_rows(r.stdout)
    assert [int(x[0]) for x in rows] == [1, 2, 4]
    assert rows[0][4:] == ("-", "-", "-")
    d = json.loads(js.read_text())["request"]
    assert [rd["clients"] for rd in d["rounds"]] == [1, 2, 4]
    assert d["settings"]["clients_sweep"] is True
    leakcheck()


BAD = [
    (["--clients", "0"], "--clients", "1 to 64"),
    (["--clients", "65"], "--clients", "1 to 64"),
    (["--clients", "64", "-i", "9"], "--clients", "clients times rounds up to 512"),
    (["--clients-sweep"], "--clients-sweep", "needs --clients N"),
    (["--clients", "4", "--clients-sweep", "-i", "2"], "--clients-sweep", "not with -i"),
    (["--rate0", "30"], "--rate0", "only with --clients"),
    (["--clients", "2", "--rate0", "0"], "--rate0", "1 to 10000"),
    (["-s", "--clients", "2"], "--clients", "not with -s"),
    (["--max-clients", "0"], "--max-clients", "1 to 64"),
    (["--server-priority", "high"], "--server-priority", "propagate"),
]


@pytest.mark.parametrize("args,opt,text", BAD, ids=[" ".join(b[0]) for b in BAD])
def test_bad_input(args, opt, text, leakcheck):
    r = run(["request"] + args, timeout=20)
    assert r.returncode == 2
    lines = r.stderr.splitlines()
    assert len(lines) == 1 and opt in lines[0] and text in lines[0], r.stderr
    assert r.stdout == ""
    leakcheck()


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM, signal.SIGHUP])
def test_signals_end_cleanly(tmp_path, sig, leakcheck):
    js = tmp_path / "r.json"
    with watching(["request", "-D", "--clients", "4", "--rate0", "200", "--rate", "100",
                   "-i", "2", "--samples", "100000", "--json", str(js)]) as p:
        p.wait_line(r"round 0: 0 load processes, 4 clients")
        p.measuring()
        rc, out, err = stop(p, sig)
    assert rc == 0, err
    assert len(blocks(out)) == 4 and "* partial round" in out
    d = json.loads(js.read_text())
    assert d["request"]["rounds"][0]["per_client"][0]["partial"] is True
    leakcheck()


@pytest.mark.parametrize("who", ["client 2", "server"])
def test_a_dead_process_ends_the_run(tmp_path, who, leakcheck):
    js = tmp_path / "r.json"
    p = start(["request", "-D", "--clients", "3", "--rate0", "200", "--rate", "100",
               "-i", "2", "--samples", "100000", "--json", str(js)])
    m, _ = wait_line(p.stderr, rf"{who}: pid (\d+)")
    wait_line(p.stderr, r"round 0:")
    os.kill(int(m.group(1)), signal.SIGKILL)
    out, err = p.communicate(timeout=15)
    assert p.returncode == 1
    assert re.search(rf"the {who} \(pid \d+\) was killed by signal 9|no reply from", err), err
    assert json.loads(js.read_text())["return_code"] == 1
    leakcheck()


def test_sigkill_of_main_takes_every_client(leakcheck):
    p = start(["request", "-D", "--clients", "3", "-i", "1", "--samples", "100000"])
    wait_line(p.stderr, r"round 0:")
    p.kill()
    p.wait()
    p.stdout.close()
    p.stderr.close()
    leakcheck()


def test_two_hosts_with_three_clients(tmp_path, two_namespaces, leakcheck):  # noqa: F811
    a, b, addr = two_namespaces
    port = free_port()
    js = tmp_path / "c.json"
    srv = subprocess.Popen(["ip", "netns", "exec", a, RTLAT, "request", "-s", "-D",
                            "--bind", addr, "-p", str(port)],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        wait_line(srv.stdout, rf"server listening on {re.escape(addr)}:{port} ")
        r = subprocess.run(["ip", "netns", "exec", b, RTLAT, "request", "-c", addr,
                            "-p", str(port), "--clients", "3", "--rate0", "400", "--rate", "200",
                            "-i", "1", "--samples", "200", "--json", str(js)],
                           capture_output=True, text=True, timeout=60)
        assert r.returncode == 0, r.stderr
        assert len(re.findall(r"^Send Time \(estimate\) ", r.stdout, re.M)) == 3
        assert len(re.findall(r"^Network Round Trip ", r.stdout, re.M)) == 3
        d = json.loads(js.read_text())["request"]
        assert d["settings"]["two_hosts"] is True
        pc = d["rounds"][0]["per_client"]
        assert [c["client"] for c in pc] == [0, 1, 2] and pc[0]["samples"] == 200
        assert all(c["estimates"] == ["send", "receive"] for c in pc)
    finally:
        srv.send_signal(signal.SIGINT)
        out, err = srv.communicate(timeout=15)
    assert srv.returncode == 0
    assert re.search(r"\d+ requests served, 3 connections, 0 refused", out), out
    assert len(re.findall(r": connected$", err, re.M)) == 3
    leakcheck()
