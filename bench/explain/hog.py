#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""A known disturbance: SCHED_FIFO PRIO on CPU, busy for BURST_US every
PERIOD_MS, until killed. Prints its pid, then "ready"; on SIGUSR1 a
line "bursts N", the bursts it has run to their end (that it ran)."""
import os
import signal
import sys
import time

cpu, prio, burst_us, period_ms = (int(a) for a in sys.argv[1:5])
os.sched_setaffinity(0, {cpu})
os.sched_setscheduler(0, os.SCHED_FIFO, os.sched_param(prio))
bursts = 0
signal.signal(signal.SIGUSR1, lambda *_: print("bursts", bursts, flush=True))
print(os.getpid(), "ready", flush=True)
while True:
    time.sleep(period_ms / 1000)
    end = time.monotonic() + burst_us / 1e6
    while time.monotonic() < end:
        pass
    bursts += 1
