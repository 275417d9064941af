# SPDX-License-Identifier: GPL-2.0-or-later
"""rtlat request (trltp): output formats, rounds and loads, endings, the
server as a network service, two hosts in two network namespaces.
Timing on this machine is noisy: no test asserts a latency value, only
formats, counts and identities between series."""
import contextlib
import json
import os
import random
import re
import signal
import socket
import subprocess
from pathlib import Path

import pytest

from conftest import (RTLAT, free_port, has_thread, read_pty, run, running, start, stop, wait_for,
                      wait_line, watching)

SERIES = ["POSIX Timer Interval Time", "Send Time", r"nanosleep\(100us\) Time",
          "Receive Time", "Response Time", "Total Jitter"]
LINE = r"min -?\d+\.\d\(MicroSec\) avr -?\d+\.\d\(MicroSec\) max -?\d+\.\d\(MicroSec\) S \d+\.\d$"
KEYS = ["interval", "send", "sleep", "receive", "response", "total_jitter",
        "round_trip"]


def check_round_blocks(out, rounds, series=SERIES):
    banners = re.findall(r"^=== Load processes: (\d+), POSIX timer (\d+) Hz .*===$",
                         out, re.M)
    assert [int(b[0]) for b in banners] == list(range(rounds))
    for name in series:
        lines = re.findall(rf"^{name} +{LINE}", out, re.M)
        assert len(lines) == rounds, (name, out)


def summary_rows(out):
    tail = out[out.index("\nSummary\n"):]
    return re.findall(r"^ +(\d+)([ *]) +((?:-?\d+\.\d +){7}-?\d+\.\d)$", tail, re.M)


def parse_log(path):
    """Rounds of the CSV log: {round: {series: (figures, bins)}} + summary."""
    rounds, cur, table = {}, None, []
    lines = Path(path).read_text().splitlines()
    i = 0
    while i < len(lines):
        ln = lines[i]
        if ln.startswith("Load processes,") and ",Rate," in ln:
            cur = rounds.setdefault(int(ln.split(",")[1]), {"head": ln})
        elif ",Min," in ln and ln.endswith(tuple("0123456789")) and cur is not None:
            f = ln.split(",")
            assert len(f) == 12 and f[1::3] == ["Min", "Avr", "Max", "Standard deviation"]
            assert f[3::3] == ["(MicroSeconds)"] * 3
            assert lines[i + 1] == "Time(MicroSeconds),Number of Times"
            bins, j = [], i + 2
            while lines[j]:
                a, b = lines[j].split(",")
                bins.append((a, int(b)))
                j += 1
            cur[f[0]] = ([float(f[2]), float(f[5]), float(f[8]), float(f[11])], bins)
            i = j
        elif ln == "Summary":
            table = [r.split(",") for r in lines[i + 2:] if r]
            break
        i += 1
    return rounds, table


def test_local_run_formats(tmp_path, leakcheck):
    log, js = tmp_path / "log.csv", tmp_path / "r.json"
    r = run(["request", "-i", "3", "--samples", "2000", "-C", "5000",
             "-p", str(free_port()), "-l", str(log), "--json", str(js)])
    assert r.returncode == 0, r.stderr
    out = r.stdout
    assert re.search(r"^Layout \(.+\):$", out, re.M)
    for role in ("main", "server", "client"):
        assert re.search(rf"^  {role} +CPU\d+ SCHED_FIFO \d+", out, re.M)
    assert re.search(r"^  load +CPU[\d,]+ SCHED_RR \d+", out, re.M)
    assert "127.0.0.1:" in out
    check_round_blocks(out, 3)
    rows = summary_rows(out)
    assert [int(x[0]) for x in rows] == [0, 1, 2]
    assert all(x[1] == " " for x in rows)

    rounds, table = parse_log(log)
    assert sorted(rounds) == [0, 1, 2]
    for k, series in rounds.items():
        assert series["head"] == f"Load processes,{k},Rate,5000,(Hz),Samples,2000"
        assert len(series) == 7
        for name, val in series.items():
            if name == "head":
                continue
            fig, bins = val
            assert fig[0] <= fig[1] <= fig[2]
            assert sum(c for _, c in bins) == 2000, name
            starts = [int(a) for a, _ in bins if a.isdigit()]
            assert starts == sorted(starts) and all(s % 10 == 0 for s in starts)
    assert [int(t[0]) for t in table] == [0, 1, 2]
    assert all(t[-2] == "2000" and t[-1] == "no" for t in table)

    d = json.loads(js.read_text())
    assert d["return_code"] == 0 and d["rtlat"]["test"] == "request"
    req = d["request"]
    assert req["settings"]["rate_hz"] == 5000 and req["settings"]["period_ns"] == 200000
    assert req["layout"]["load"]["policy"] == "SCHED_RR"
    assert "system" in d and "rt" in d
    assert len(req["rounds"]) == 3
    for k, rd in enumerate(req["rounds"]):
        assert rd["load_processes"] == k and rd["samples"] == 2000 and not rd["partial"]
        s = rd["series"]
        assert sorted(s) == sorted(KEYS)
        for key in KEYS:
            h = s[key]["histogram"]
            assert s[key]["samples"] == 2000
            assert sum(c for _, c in h["counts"]) + h["underflow"] + h["overflow"] == 2000
            assert list(s[key]["percentiles_ns"]) == ["p50", "p90", "p99", "p99.9", "p99.99"]
        assert s["interval"]["target_ns"] == 200000
        assert s["sleep"]["target_ns"] == 100000
        # Identities of the definitions, whatever the timing was.
        mean = {key: s[key]["avg_ns"] for key in KEYS}
        assert abs(mean["response"] - mean["send"] - mean["sleep"] - mean["receive"]) < 1
        assert abs(mean["round_trip"] - mean["send"] - mean["receive"]) < 1
        assert mean["total_jitter"] >= mean["round_trip"] - 1
        assert s["sleep"]["min_ns"] >= 100000
    leakcheck()


def test_trltp_compatible_name(tmp_path, leakcheck):
    log = tmp_path / "t.log"
    r = run(["-C", "2000", "-p", str(free_port()), "-a", "-l", str(log), "-i", "1",
             "-D", "--samples", "300"], argv0="trltp")
    assert r.returncode == 0, r.stderr
    # The design's blocks (issue 31; formats line by line in
    # test_compat_trltp.py), with rtlat's -a, -D and --samples.
    assert "\nPOSIX Timer Interval Time \tmin " in r.stdout
    assert "trltp: debug: client: pid" in r.stderr
    assert log.read_text().startswith("********************************************* \n"
                                      "****  Low priority Client Number    0:   **** \n"
                                      "****  Posix Timer Cycle 2000 Hz          **** \n")
    leakcheck()


def proc_sched(pid):
    """(policy, rt_priority, allowed CPUs) of a process."""
    stat = Path(f"/proc/{pid}/stat").read_text()
    fields = stat[stat.rindex(")") + 2:].split()
    prio, policy = int(fields[37]), int(fields[38])
    status = Path(f"/proc/{pid}/status").read_text()
    cpus = re.search(r"^Cpus_allowed_list:\s*(\S+)", status, re.M).group(1)
    return policy, prio, cpus


def named_children(pid, prefix):
    """The run's processes named prefix...: under pid at any depth (the
    server, clients and load processes are forked by the run's spawner,
    rtlat-spawn, a child of main)."""
    found, todo = [], [pid]
    while todo:
        out = subprocess.run(["ps", "-o", "pid=,comm=", "--ppid", str(todo.pop())],
                             capture_output=True, text=True).stdout
        for p, c in (ln.split() for ln in out.splitlines()):
            todo.append(int(p))
            if c.startswith(prefix):
                found.append(int(p))
    return found


@contextlib.contextmanager
def frozen(pid):
    """The client stopped (SIGSTOP) while the test looks: its round, and
    so the load processes of that round, cannot end meanwhile however
    late a loaded machine lets the test look."""
    os.kill(pid, signal.SIGSTOP)
    try:
        yield
    finally:
        os.kill(pid, signal.SIGCONT)


def test_rounds_add_loads_one_by_one(leakcheck):
    # Rounds of 4 s of the client's time: the line of a load process is
    # read, and the client frozen, before its round can end (a 1.5 s round
    # ended first once, under a load average of 22, and its load process
    # with it).
    with running(["request", "-D", "-i", "3", "--samples", "4000", "-C", "1000",
                  "-p", str(free_port())]) as p:
        m, _ = wait_line(p.stderr, r"client: pid (\d+), CPU (\d+), SCHED_FIFO (\d+)")
        cpid, ccpu, cprio = map(int, m.groups())
        with frozen(cpid):
            assert proc_sched(cpid) == (1, cprio, str(ccpu))   # SCHED_FIFO
            assert named_children(p.pid, "rtlat-load") == []
        for j in range(2):
            m, _ = wait_line(p.stderr, rf"load process {j} started: pid (\d+), CPU (\d+), SCHED_RR (\d+)")
            lpid, lcpu, lprio = map(int, m.groups())
            with frozen(cpid):
                assert proc_sched(lpid) == (2, lprio, str(lcpu))   # SCHED_RR
                assert lprio == 1 and lcpu == ccpu             # shares the client's CPU
                assert len(named_children(p.pid, "rtlat-load")) == j + 1
        out, _ = p.communicate(timeout=60)
    assert p.returncode == 0
    check_round_blocks(out, 3)
    leakcheck()


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM])
def test_signal_in_a_round_prints_partial(tmp_path, sig, leakcheck):
    log, js = tmp_path / "l.csv", tmp_path / "r.json"
    with watching(["request", "-D", "-i", "3", "--samples", "100000", "-C", "2000",
                   "-p", str(free_port()), "-l", str(log), "--json", str(js)]) as p:
        p.wait_line(r"round 0: 0 load processes")
        p.measuring()
        rc, out, err = stop(p, sig)
    assert rc == 0, err
    assert re.search(r"^=== Load processes: 0, .*partial round, stopped before 100000\) ===$",
                     out, re.M)
    check_round_blocks(out, 1)
    rows = summary_rows(out)
    assert len(rows) == 1 and rows[0][1] == "*"
    assert "* partial round" in out
    rounds, table = parse_log(log)
    assert rounds[0]["head"].endswith(",partial") and table[0][-1] == "yes"
    d = json.loads(js.read_text())
    assert d["request"]["rounds"][0]["partial"] is True
    assert 0 < d["request"]["rounds"][0]["samples"] < 100000
    leakcheck()


def test_sigterm_with_loads_running(tmp_path, leakcheck):
    p = start(["request", "-D", "-i", "4", "--samples", "400", "-C", "2000",
               "-p", str(free_port())])
    wait_line(p.stderr, r"round 2: 2 load processes")
    rc, out, err = stop(p, signal.SIGTERM)
    assert rc == 0, err
    check_round_blocks(out, 3)
    assert len(summary_rows(out)) == 3
    leakcheck()


def test_sigkill_of_main_takes_everything(leakcheck):
    p = start(["request", "-D", "-i", "3", "--samples", "100000", "-C", "1000",
               "-p", str(free_port())])
    wait_line(p.stderr, r"round 0: 0 load processes")
    kids = named_children(p.pid, "rtlat-")
    assert len(kids) >= 2
    p.kill()
    p.wait()
    p.stdout.close()
    p.stderr.close()
    leakcheck()


def test_dead_client_ends_the_run(tmp_path, leakcheck):
    js = tmp_path / "r.json"
    with watching(["request", "-D", "-i", "2", "--samples", "100000", "-C", "1000",
                   "-p", str(free_port()), "--json", str(js)]) as p:
        m = p.wait_line(r"client: pid (\d+)")
        p.wait_line(r"round 0:")
        p.measuring()
        os.kill(int(m.group(1)), signal.SIGKILL)
        out, err = p.communicate(timeout=15)
    assert p.returncode == 1
    assert re.search(r"the client \(pid \d+\) was killed by signal 9", err)
    assert "partial round" in out
    d = json.loads(js.read_text())
    assert d["return_code"] == 1 and "killed" in d["error"]
    leakcheck()


BAD = [
    (["-C", "0"], "-C/--rate", "1 to 10000"),
    (["-C", "10001"], "-C/--rate", "1 to 10000"),
    (["-p", "0"], "-p/--port", "1 to 65535"),
    (["-p", "65536"], "-p/--port", "1 to 65535"),
    (["-i", "-1"], "-i/--rounds", "from 1 to"),
    (["-i", "66"], "-i/--rounds", "from 1 to"),
    (["--samples", "0"], "--samples", "from 1 to"),
    (["--client-cpu", "4095"], "--client-cpu", "online CPU"),
    (["--load-cpus", "4000"], "--load-cpus", "not online"),
    (["-c", "no-such-host.invalid"], "-c/--client", "cannot resolve"),
    (["-s", "-c", "localhost"], "-s/--server", "not with -c"),
    (["--bind", "127.0.0.1"], "--bind", "only with -s"),
    (["-C"], "-C/--rate", "needs an argument"),
]


@pytest.mark.parametrize("args,opt,text", BAD, ids=[" ".join(b[0]) for b in BAD])
def test_bad_input(tmp_path, args, opt, text, leakcheck):
    log = tmp_path / "never.csv"
    r = run(["request", "-l", str(log)] + args, timeout=20)
    assert r.returncode == 2
    lines = r.stderr.splitlines()
    assert len(lines) == 1 and opt in lines[0] and text in lines[0], r.stderr
    assert r.stdout == "" and not log.exists()
    leakcheck()


def test_port_in_use_is_named(leakcheck):
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    s.listen()
    port = s.getsockname()[1]
    try:
        r = run(["request", "-p", str(port)])
    finally:
        s.close()
    assert r.returncode == 2
    assert r.stderr.strip() == (f"rtlat request: option -p/--port: port {port} is in use "
                                "on 127.0.0.1; accepted: a free port from 1 to 65535")
    leakcheck()


def test_connection_refused_says_where(leakcheck):
    port = free_port()
    r = run(["request", "-c", "127.0.0.1", "-p", str(port)])
    assert r.returncode == 2
    assert f"cannot connect to 127.0.0.1 port {port} (tried 127.0.0.1:{port}): Connection refused" in r.stderr
    assert len(r.stderr.splitlines()) == 1
    leakcheck()


def test_two_local_runs_at_once_do_not_collide(leakcheck):
    """Without -p the local test listens on a port the kernel picks, so
    two runs started together both work; the layout names the port."""
    procs = [start(["request", "-i", "1", "--samples", "500", "-C", "2000"])
             for _ in range(2)]
    ports = []
    for p in procs:
        out, err = p.communicate(timeout=60)
        assert p.returncode == 0, err
        m = re.search(r"^  server .* 127\.0\.0\.1:(\d+) \(loopback only\)$", out, re.M)
        assert m, out
        ports.append(int(m.group(1)))
    assert ports[0] != ports[1] and 0 not in ports
    leakcheck()


def test_summary_for_the_suite(leakcheck):
    rfd, wfd = os.pipe()
    r = run(["request", "-i", "2", "--samples", "300", "-C", "5000", "-p", str(free_port())],
            env=dict(os.environ, RTLAT_SUMMARY_FD=str(wfd)), pass_fds=(wfd,))
    os.close(wfd)
    with os.fdopen(rfd) as f:
        lines = f.read().splitlines()
    assert r.returncode == 0
    assert [ln.split("\t")[0] for ln in lines] == ["response", "total_jitter"]
    assert all(ln.split("\t")[1] == "300" for ln in lines)
    leakcheck()


def well_formed_call(port, seq=7):
    with socket.create_connection(("127.0.0.1", port), timeout=5) as s:
        s.sendall(b"RQ\x01\x00" + seq.to_bytes(4, "big"))
        reply = b""
        while len(reply) < 16:
            chunk = s.recv(16 - len(reply))
            assert chunk, "server closed a well-formed client"
            reply += chunk
    assert reply[:3] == b"RP\x01" and reply[3] == seq & 0xFF
    return int.from_bytes(reply[4:8], "big")


def hostile_streams(rng):
    yield b"GET / HTTP/1.0\r\n\r\n"
    yield b"RQ\x02\x00\x00\x00\x00\x01"              # wrong version
    yield b"RQ\x01\x07\x00\x00\x00\x01"              # unknown flags
    yield b"RQ\x01"                                  # truncated, then silence
    yield b"RQ\x01\x00\x00\x00\x00\x01" * 4          # pipelined / oversized
    yield b"\xff" * 70000                            # a flood
    for _ in range(12):
        yield bytes(rng.randrange(256) for _ in range(rng.randrange(1, 300)))


def test_hostile_clients_do_not_hurt_the_server(leakcheck):
    port = free_port()
    srv = start(["request", "-s", "--bind", "127.0.0.1", "-p", str(port), "--timeout", "1",
                 "--max-clients", "1"])
    try:
        wait_line(srv.stdout, rf"server listening on 127\.0\.0\.1:{port} ")
        rng = random.Random(4)
        for data in hostile_streams(rng):
            with socket.create_connection(("127.0.0.1", port), timeout=5) as s:
                try:
                    s.sendall(data)
                    if rng.random() < 0.3:
                        s.shutdown(socket.SHUT_WR)
                    while s.recv(4096):
                        pass
                except OSError:     # reset or closed by the server: fine
                    pass
            assert srv.poll() is None
        # A second client while one is served is turned away at once.
        with socket.create_connection(("127.0.0.1", port)) as first:
            wait_for(lambda: has_thread(srv.pid, "rtlat-conn"),
                     "the server's thread for the first client", proc=srv)
            with socket.create_connection(("127.0.0.1", port), timeout=3) as second:
                assert second.recv(16) == b""
            # The first is still served, then dropped once silent.
            first.sendall(b"RQ\x01\x00\x00\x00\x00\x05")
            assert first.recv(16)[:2] == b"RP"
            first.settimeout(4)
            assert first.recv(16) == b""
        assert well_formed_call(port) >= 100000
        r = run(["request", "-c", "127.0.0.1", "-p", str(port), "-i", "1",
                 "--samples", "200", "-C", "2000"])
        assert r.returncode == 0, r.stderr
        check_round_blocks(r.stdout, 1, SERIES[:1] + [r"Send Time \(estimate\)"])
    finally:
        rc, out, err = stop(srv, signal.SIGTERM)
    assert rc == 0
    for what in ("bad magic", "unsupported version 2", "unknown flags",
                 "truncated frame", "oversized frame", "refused: a client",
                 "silent for 1 s"):
        assert what in err, what
    assert all(ln.startswith("rtlat request: server: 127.0.0.1:") for ln in err.splitlines())
    assert re.search(r"server stopped: \d+ requests served", out)
    leakcheck()


def test_local_server_is_loopback_only_and_single_client(leakcheck):
    port = free_port()
    p = start(["request", "-D", "-i", "1", "--samples", "100000", "-C", "1000",
               "-p", str(port)])
    try:
        wait_line(p.stderr, r"round 0:")
        listening = [ln.split()[1] for ln in Path("/proc/net/tcp").read_text().splitlines()[1:]
                     if ln.split()[3] == "0A"]
        assert f"0100007F:{port:04X}" in listening
        with socket.create_connection(("127.0.0.1", port), timeout=3) as s:
            assert s.recv(16) == b""
    finally:
        rc, out, err = stop(p)
    assert rc == 0
    assert "refused: a client" in err
    leakcheck()


def test_server_only_prints_where(leakcheck):
    port = free_port()
    srv = start(["request", "-s", "-p", str(port)])
    wait_line(srv.stdout, rf"server listening on 0\.0\.0\.0:{port} \(TCP\)")
    rc, out, err = stop(srv, signal.SIGINT)
    assert rc == 0 and "server stopped: 0 requests served" in out
    leakcheck()


def netns(*cmd, check=True):
    return subprocess.run(["ip"] + list(cmd), capture_output=True, text=True, check=check)


@pytest.fixture
def two_namespaces():
    tag = f"{os.getpid() % 100000}"
    a, b = f"rqa{tag}", f"rqb{tag}"
    net = f"10.{200 + os.getpid() % 50}.{os.getpid() % 250}"
    try:
        netns("netns", "add", a)
        netns("netns", "add", b)
    except (subprocess.CalledProcessError, FileNotFoundError) as e:
        for n in (a, b):
            netns("netns", "del", n, check=False)
        pytest.skip(f"cannot create network namespaces: {getattr(e, 'stderr', e)}")
    try:
        netns("link", "add", f"va{tag}", "netns", a, "type", "veth", "peer",
              "name", f"vb{tag}", "netns", b)
        for n, dev, ip in ((a, f"va{tag}", f"{net}.1"), (b, f"vb{tag}", f"{net}.2")):
            netns("-n", n, "addr", "add", f"{ip}/24", "dev", dev)
            netns("-n", n, "link", "set", dev, "up")
            netns("-n", n, "link", "set", "lo", "up")
        yield a, b, f"{net}.1"
    finally:
        for n in (a, b):
            netns("netns", "del", n, check=False)


def test_two_hosts_in_two_namespaces(tmp_path, two_namespaces, leakcheck):
    a, b, addr = two_namespaces
    port = free_port()
    js = tmp_path / "c.json"
    srv = subprocess.Popen(["ip", "netns", "exec", a, RTLAT, "request", "-s",
                            "--bind", addr, "-p", str(port)],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        wait_line(srv.stdout, rf"server listening on {re.escape(addr)}:{port} ")
        r = subprocess.run(["ip", "netns", "exec", b, RTLAT, "request", "-c", addr,
                            "-p", str(port), "-i", "2", "--samples", "500",
                            "-C", "2000", "--json", str(js)],
                           capture_output=True, text=True, timeout=60)
        assert r.returncode == 0, r.stderr
        names = SERIES[:1] + [r"Send Time \(estimate\)", SERIES[2],
                              r"Receive Time \(estimate\)", "Response Time",
                              "Total Jitter", "Network Round Trip"]
        check_round_blocks(r.stdout, 2, names)
        assert f"server {addr} ({addr}:{port})" in r.stdout
        assert "  server " not in r.stdout.split("===")[0].replace(f"server {addr}", "")
        d = json.loads(js.read_text())
        assert d["request"]["settings"]["two_hosts"] is True
        rd = d["request"]["rounds"][1]
        assert rd["estimates"] == ["send", "receive"] and rd["samples"] == 500
        # From another namespace the client's address is not loopback.
        # The server's clock is not ours: only its own difference is used.
        assert rd["series"]["sleep"]["min_ns"] >= 100000
    finally:
        srv.send_signal(signal.SIGINT)
        out, err = srv.communicate(timeout=15)
    assert srv.returncode == 0
    assert "requests served" in out
    leakcheck()


def test_progress_only_on_a_terminal(leakcheck):
    import pty
    master, slave = pty.openpty()
    p = subprocess.Popen([RTLAT, "request", "-i", "2", "--samples", "1500", "-C", "1000",
                          "-p", str(free_port())], stdout=subprocess.PIPE,
                         stderr=slave, text=True)
    os.close(slave)
    out, _ = p.communicate(timeout=30)
    err = read_pty(master)
    assert p.returncode == 0, err.decode(errors="replace")
    assert re.search(rb"round 1 of 2, elapsed \d+s, remaining about \d+s", err)
    assert "\033" not in out          # stdout is a pipe: no escape codes
    check_round_blocks(out, 2)
    leakcheck()


def test_dead_server_ends_the_run(leakcheck):
    p = start(["request", "-D", "-i", "2", "--samples", "100000", "-C", "1000",
               "-p", str(free_port())])
    m, _ = wait_line(p.stderr, r"server: pid (\d+)")
    wait_line(p.stderr, r"round 0:")
    os.kill(int(m.group(1)), signal.SIGKILL)
    out, err = p.communicate(timeout=15)
    assert p.returncode == 1
    # Whichever the main process saw first: the server's death or its effect.
    assert re.search(r"the server \(pid \d+\) was killed by signal 9|"
                     r"client: no reply from 127\.0\.0\.1:\d+: ", err), err
    assert "partial round" in out
    leakcheck()


def test_load_cpus_widen_the_rounds_range(leakcheck):
    # Checked against the list given, before anything starts.
    r = run(["request", "--load-cpus", "0,0", "-i", "40", "-p", str(free_port())])
    assert r.returncode == 2
    assert "40 rounds need 39 load processes; accepted: 1 to 33" in r.stderr
    leakcheck()


def test_rounds_range_follows_abbreviated_load_cpus(leakcheck):
    # --load is getopt's abbreviation of --load-cpus: the range comes from
    # the parsed options, in any order.
    for args in (["-i", "40", "--load=0,0"], ["--load=0,0", "-i", "40"]):
        r = run(["request"] + args + ["-p", str(free_port())])
        assert r.returncode == 2
        assert "40 rounds need 39 load processes; accepted: 1 to 33" in r.stderr
    leakcheck()


def test_placement_options(leakcheck):
    last = max(os.sched_getaffinity(0))
    # Rounds of 2 s: the load process lives for round 1 only, and the
    # test reads its CPU after the line; at 0.15 s a round (300 samples)
    # a loaded machine made the test read it after it had gone.
    with running(["request", "-D", "-i", "2", "--samples", "4000", "-C", "2000",
                  "--client-cpu", "0", "--server-cpu", str(last), "--main-cpu", str(last),
                  "--load-cpus", f"0,{last}", "-p", str(free_port())]) as p:
        m, _ = wait_line(p.stderr, r"client: pid (\d+), CPU (\d+)")
        assert proc_sched(int(m.group(1)))[2] == "0"
        m, _ = wait_line(p.stderr, r"load process 0 started: pid (\d+), CPU (\d+)")
        assert int(m.group(2)) == 0 and proc_sched(int(m.group(1)))[2] == "0"
        out, _ = p.communicate(timeout=30)
    assert p.returncode == 0
    assert "Layout (set by options):" in out
    assert re.search(rf"^  server +CPU{last} ", out, re.M)
    assert re.search(rf"^  load +CPU0,{last} SCHED_RR", out, re.M)
    leakcheck()
