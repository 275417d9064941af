# SPDX-License-Identifier: GPL-2.0-or-later
"""rtlat request against the TRLTP design (../shared/reference/
trltp-design.ja.txt, issue 31): where the server takes t1, and the
program started as `trltp` printing and behaving as the design's.
No latency value is asserted: orderings, formats, counts, defaults."""
import re
import signal
import socket
import time

from conftest import run, running, stop
from test_request import free_port, wait_line


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
    sends its 8-byte request in two parts 0.3 s apart: the server's t1
    (CLOCK_MONOTONIC ns, the same clock on one host) must come after the
    second part was sent, however loaded the machine is."""
    port = free_port()
    with running(["request", "-s", "--bind", "127.0.0.1", "-p", str(port)]) as srv:
        wait_line(srv.stdout, rf"server listening on 127\.0\.0\.1:{port} ")
        with socket.create_connection(("127.0.0.1", port), timeout=10) as s:
            s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            for seq in (7, 8):
                frame = b"RQ\x01\x00" + seq.to_bytes(4, "big")
                s.sendall(frame[:3])
                time.sleep(0.3)
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
