# SPDX-License-Identifier: GPL-2.0-or-later
"""rtlat request against the TRLTP design (../shared/reference/
trltp-design.ja.txt, issue 31): where the server takes t1, and the
program started as `trltp` printing and behaving as the design's.
No latency value is asserted: orderings, formats, counts, defaults."""
import re
import signal
import socket
import time

from conftest import free_port, run, running, stop, wait_line


def reply_of(sock):
    reply = b""
    while len(reply) < 16:
        chunk = sock.recv(16 - len(reply))
        assert chunk, "the server closed a well-formed client"
        reply += chunk
    return reply


def test_server_takes_t1_after_the_request_is_received(leakcheck):
    """The design: "select からの復帰後受信を行い、その時点でのタイムスタンプ
    計測 (t1)" (after select returns, receive, then take t1). A client
    sends its 8-byte request in two parts 0.3 s apart, then 1.5 s apart:
    the server's t1 (CLOCK_MONOTONIC ns, the same clock on one host) must
    come after the second part was sent, however loaded the machine is.
    A pause mid-frame is silence like any other (--timeout, 10 s): a
    client stalled past a second, as on a loaded machine, is still
    served."""
    port = free_port()
    with running(["request", "-s", "--bind", "127.0.0.1", "-p", str(port)]) as srv:
        wait_line(srv.stdout, rf"server listening on 127\.0\.0\.1:{port} ")
        with socket.create_connection(("127.0.0.1", port), timeout=10) as s:
            s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            for seq, pause in ((7, 0.3), (8, 1.5)):
                frame = b"RQ\x01\x00" + seq.to_bytes(4, "big")
                s.sendall(frame[:3])
                time.sleep(pause)
                second = time.clock_gettime_ns(time.CLOCK_MONOTONIC)
                s.sendall(frame[3:])
                reply = reply_of(s)
                assert reply[:3] == b"RP\x01" and reply[3] == seq
                slept = int.from_bytes(reply[4:8], "big")
                t1 = int.from_bytes(reply[8:16], "big")
                assert t1 >= second, f"t1 {second - t1} ns before the request was complete"
                # nanosleep never returns early: t2 - t1 covers the sleep.
                assert slept >= 100000
        rc, out, err = stop(srv, signal.SIGTERM)
    assert rc == 0, err
    assert "server stopped: 2 requests served" in out
    leakcheck()


# The design's client() and calc(), as its source in the design document
# prints them (stdout, then the -l log):
#   printf("********************************************* \n");
#   printf("****  Low priority Client Number %4d:   **** \n",n);
#   printf("****  Posix Timer Cycle %4d Hz          **** \n",CYCLE);
#   printf("********************************************* \n");
#   printf("%s\tmin %8.1f(MicroSec) avr %8.1f(MicroSec) max %8.1f(MicroSec) S %8.1f\n",tag,...);
#   printf("Total Jitter Time         \tmin %8.1f(MicroSec) avr %8.1f(MicroSec) max %8.1f(MicroSec) S %8.1f\n",...);
#   fprintf(logfp,"%s\t,Min,%8.1f,(MicroSeconds),Avr,%8.1f,(MicroSeconds),Max,%8.1f,(MicroSeconds),Standard deviation,%8.1f\n",tag,...);
#   fprintf(logfp,"Total Jitter\t,Min,%8.1f,(MicroSeconds),Avr,...,Standard deviation,%8.1f\n",...);
#   fprintf(logfp,"Time(MicroSeconds),Number of Times\n");
#   if (his[count]) fprintf(logfp,"%d,%d\n",count*10,his[count]);   /* MAX_HISTORY 200000 */
#   fprintf(logfp,"\n\n");
# with the tags of calc(logfp, ..., tag, target):
DESIGN_TAGS = ["POSIX Timer Interval Time ", "Send Time                 ",
               "nanosleep(100 Micro Sec)  ", "Receive Time              ",
               "Response Time             "]
STDOUT_TAGS = DESIGN_TAGS + ["Total Jitter Time         "]
LOG_TAGS = DESIGN_TAGS + ["Total Jitter"]
# In main(): -p prints "PORT %d\n", -C "CYCLE %d Hz\n" after
#   if (CYCLE<=0) CYCLE = 1; if (CYCLE>=10000) CYCLE = 10000;


def banner(loads, hz):
    return ["********************************************* ",
            f"****  Low priority Client Number {loads:4d}:   **** ",
            f"****  Posix Timer Cycle {hz:4d} Hz          **** ",
            "********************************************* "]


def f81(text):
    """A %8.1f field: the figure as the design's format writes it."""
    assert text == "%8.1f" % float(text), text
    return float(text)


def check_stdout_line(line, tag):
    m = re.fullmatch(re.escape(tag) + r"\tmin (.{8,})\(MicroSec\) avr (.{8,})\(MicroSec\)"
                     r" max (.{8,})\(MicroSec\) S (.{8,})", line)
    assert m, (tag, line)
    mn, avg, mx, _ = (f81(x) for x in m.groups())
    assert mn <= avg <= mx


def check_log(lines, rounds, hz, samples):
    """The design's log, line by line; returns {(round, tag): bins}."""
    bins, i = {}, 0
    for k in range(rounds):
        assert lines[i:i + 4] == banner(k, hz)
        i += 4
        for tag in LOG_TAGS:
            m = re.fullmatch(re.escape(tag) + r"\t,Min,(.{8,}),\(MicroSeconds\),Avr,(.{8,}),"
                             r"\(MicroSeconds\),Max,(.{8,}),\(MicroSeconds\),"
                             r"Standard deviation,(.{8,})", lines[i])
            assert m, (tag, lines[i])
            mn, _, mx, _ = (f81(x) for x in m.groups())
            assert lines[i + 1] == "Time(MicroSeconds),Number of Times"
            i += 2
            rows = []
            while lines[i]:
                a, b = lines[i].split(",")
                rows.append((int(a), int(b)))
                i += 1
            assert lines[i:i + 2] == ["", ""], lines[i:i + 3]
            i += 2
            starts = [a for a, _ in rows]
            assert starts == sorted(set(starts)) and all(a % 10 == 0 for a in starts)
            assert sum(c for _, c in rows) == samples, tag
            # (int)(us + 0.5) / 10: min and max fall in the first and last bin.
            assert starts[0] == int(mn + 0.5) // 10 * 10 or starts[0] + 10 == int(mn + 0.5) // 10 * 10
            assert starts[-1] <= int(mx + 0.5) // 10 * 10 <= starts[-1] + 10
            bins[(k, tag)] = rows
    assert i == len(lines), lines[i:]
    return bins


def test_trltp_prints_as_the_design(tmp_path, leakcheck):
    log = tmp_path / "trltp.log"
    port = free_port()
    r = run(["-C", "2000", "--samples", "300", "-p", str(port), "-l", str(log)],
            argv0="trltp")
    assert r.returncode == 0, r.stderr
    out = r.stdout.splitlines()
    # One round by default (the design's TestLoop = 1), nothing else:
    # no layout, no summary table.
    assert out[:2] == [f"PORT {port}", "CYCLE 2000 Hz"]
    assert out[2:6] == banner(0, 2000)
    assert len(out) == 12, out
    for line, tag in zip(out[6:], STDOUT_TAGS):
        check_stdout_line(line, tag)
    check_log(log.read_text().split("\n")[:-1], 1, 2000, 300)
    leakcheck()


def test_trltp_rounds_and_histogram_to_two_seconds(tmp_path, leakcheck):
    """-i 2: rounds 0 and 1 (one load); the log's histograms go to 2 s:
    at 1 Hz (-C 0 clamped) every interval of about 1 s is a bin of its
    own, not an Above(10000) row."""
    log = tmp_path / "trltp.log"
    r = run(["-C", "0", "-i", "2", "--samples", "2", "-l", str(log)], argv0="trltp")
    assert r.returncode == 0, r.stderr
    assert re.fullmatch(r"trltp: option -C/--rate: 0 is out of range; clamped to 1, "
                        r"as the design \(accepted: 1 to 10000\)", r.stderr.splitlines()[0])
    out = r.stdout.splitlines()
    assert out[0] == "CYCLE 1 Hz"
    assert out[1:5] == banner(0, 1) and out[11:15] == banner(1, 1) and len(out) == 21
    bins = check_log(log.read_text().split("\n")[:-1], 2, 1, 2)
    for k in (0, 1):
        for start, _ in bins[(k, DESIGN_TAGS[0])]:
            assert 500000 <= start < 2000000
    assert "Above" not in log.read_text()
    leakcheck()


def test_trltp_clamps_the_rate_above(leakcheck):
    r = run(["-C", "20000", "--samples", "50"], argv0="trltp")
    assert r.returncode == 0, r.stderr
    assert "trltp: option -C/--rate: 20000 is out of range; clamped to 10000, as the design" in r.stderr
    assert r.stdout.splitlines()[:4] == ["CYCLE 10000 Hz"] + banner(0, 10000)[:3]
    # Not a number is still bad input (the design's atoi() made it 1).
    r = run(["-C", "fast"], argv0="trltp")
    assert r.returncode == 2 and r.stdout == ""
    assert len(r.stderr.splitlines()) == 1 and "-C" in r.stderr
    leakcheck()


def test_rtlat_request_keeps_its_own(tmp_path, leakcheck):
    """rtlat request: 4 rounds, its banner, labels, table and log, and a
    rate out of range refused."""
    log = tmp_path / "r.log"
    r = run(["request", "-C", "5000", "--samples", "50", "-l", str(log)])
    assert r.returncode == 0, r.stderr
    out = r.stdout
    assert re.search(r"^Layout \(.+\):$", out, re.M)
    banners = re.findall(r"^=== Load processes: (\d), POSIX timer 5000 Hz \(round \d of 4, 50 samples\) ===$",
                         out, re.M)
    assert banners == ["0", "1", "2", "3"]
    assert len(re.findall(r"^nanosleep\(100us\) Time +min \d+\.\d\(MicroSec\)", out, re.M)) == 4
    assert len(re.findall(r"^Total Jitter +min \d+\.\d\(MicroSec\)", out, re.M)) == 4
    assert "\nSummary\n" in out and "*****" not in out and "\t" not in out
    text = log.read_text()
    assert text.startswith("Load processes,0,Rate,5000,(Hz),Samples,50\n")
    assert "\nnanosleep(100us) Time,Min," in text and "\nTotal Jitter,Min," in text
    assert "\nSummary\n" in text
    r = run(["request", "-C", "20000"])
    assert r.returncode == 2 and r.stdout == ""
    assert re.fullmatch(r"rtlat request: option -C/--rate: .*accepted.*1.*10000.*\n", r.stderr)
    leakcheck()
