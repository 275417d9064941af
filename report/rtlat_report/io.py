# SPDX-License-Identifier: GPL-2.0-or-later
"""The report's edge with the file system, the lowest layer: reading a
regular file within the caps (--max-file-size, the memory this process
may have), writing an output whole (write) and saying a failure in one
line (fail). Every other module reads and writes through these."""
import os
import resource
import stat
import sys
import tempfile
from dataclasses import dataclass

PROG = "rtlat-report"


class InputError(Exception):
    """A file or directory the user named cannot be read (exit status 2)."""


# The largest JSON rtlat writes, from its own limits: for each series and
# thread (at most RECORD_MAX_SERIES in a run, src/measure/record.h) its
# --largest rows (at most LARGEST_MAX_K, src/measure/largest.h), its time
# line's steps (TL_CAP_DEFAULT, src/measure/timeline.h) and its histogram's
# cells (the timer's -H at most HIST_MAX_CELLS), each at the most bytes
# rtlat writes one in (every figure at its widest, as indented). A file
# past it is no rtlat result (tests/test_report_input_attacks.py checks
# these against the C sources and rtlat's own output).
LARGEST_MAX_K = 1 << 20
RECORD_MAX_SERIES = 4096
TL_CAP_DEFAULT = 10000
HIST_MAX_CELLS = 1000000
ROW_BYTES = len("          [ -9223372036854775808, -9223372036.854775808, "
                "-2147483648 ],\n")
# A step with the timer's context columns beside it.
STEP_BYTES = 512
CELL_BYTES = len("            [ -9223372036854775808, 18446744073709551615 ]"
                 ",\n")
RTLAT_MAX_BYTES = RECORD_MAX_SERIES * (LARGEST_MAX_K * ROW_BYTES +
                                       TL_CAP_DEFAULT * STEP_BYTES +
                                       HIST_MAX_CELLS * CELL_BYTES)
MIB = 1 << 20
MAX_FILE_MIB = -(-RTLAT_MAX_BYTES // MIB)
# What that cap cannot bound: memory. A page takes about READ_COST times
# the bytes it reads (measured: 1.44 GB of RSS for 43 MB of rtlat JSON
# holding 1,048,576 largest rows, 0.72 GB for its markdown), checked
# against what this process may still have (memory_left).
READ_COST = 32
MAX_RUNS = 16
MAX_FILES = 256


def _int_file(path):
    try:
        with open(path, encoding="ascii") as f:
            return int(f.read().split()[0])
    except (OSError, ValueError, IndexError):
        return None


def _cgroup_left():
    """What this process's memory cgroup and each of its ancestors may
    still take (v2: memory.max less memory.current; v1: the limit less
    the usage), the least of them; None where there is no limit."""
    left = []
    try:
        with open("/proc/self/cgroup", encoding="utf-8") as f:
            lines = f.read().splitlines()
    except OSError:
        return None
    for line in lines:
        _, ctrl, path = (line.split(":", 2) + ["", ""])[:3]
        if ctrl == "" and path:
            base, lim, use = "/sys/fs/cgroup", "memory.max", "memory.current"
        elif "memory" in ctrl.split(","):
            base, lim, use = ("/sys/fs/cgroup/memory", "memory.limit_in_bytes",
                              "memory.usage_in_bytes")
        else:
            continue
        parts = [p for p in path.split("/") if p and p != ".."]
        for i in range(len(parts), -1, -1):
            d = os.path.join(base, *parts[:i])
            cap, used = _int_file(os.path.join(d, lim)), \
                _int_file(os.path.join(d, use))
            if cap is not None and used is not None and cap < 1 << 60:
                left.append(max(0, cap - used))
    return min(left) if left else None


def memory_left():
    """(bytes this process may still allocate, what says so): the least
    of MemAvailable, its cgroups' limits and RLIMIT_AS less its address
    space; (None, None) when none can be read."""
    found = []
    try:
        with open("/proc/meminfo", encoding="ascii") as f:
            avail = next((int(row.split()[1]) * 1024 for row in f
                          if row.startswith("MemAvailable:")), None)
        if avail is not None:
            found.append((avail, "MemAvailable"))
    except (OSError, ValueError):
        pass
    cg = _cgroup_left()
    if cg is not None:
        found.append((cg, "the memory cgroup's limit"))
    soft = resource.getrlimit(resource.RLIMIT_AS)[0]
    size = _int_file("/proc/self/statm")
    if soft != resource.RLIM_INFINITY and size is not None:
        found.append((max(0, soft - size * os.sysconf("SC_PAGE_SIZE")),
                      "RLIMIT_AS"))
    return min(found) if found else (None, None)


def too_much_memory(what, size):
    """InputError if reading size bytes (what: a file or 'the inputs'
    result files') takes more memory than this process may have."""
    left, why = memory_left()
    need = size * READ_COST
    if left is None or need <= left:
        return None
    return InputError(f"{what}: {size} bytes: reading takes about "
                      f"{-(-need // MIB)} MiB of memory, more than the "
                      f"{left // MIB} MiB this process may have ({why})")


@dataclass
class Limits:
    """What one file may be: --max-file-size, in bytes."""
    file_bytes: int = MAX_FILE_MIB * MIB


KINDS = ((stat.S_ISDIR, "a directory"), (stat.S_ISFIFO, "a FIFO"),
         (stat.S_ISCHR, "a character device"),
         (stat.S_ISBLK, "a block device"), (stat.S_ISSOCK, "a socket"))


class NotRegular(InputError):
    """A path that is not a regular file (a FIFO, device, socket...)."""


def _not_regular(path, mode):
    kind = next((k for test, k in KINDS if test(mode)), "not a regular file")
    return NotRegular(f"{path}: not a regular file ({kind}): rtlat-report "
                      "reads regular files and directories only")


def read_regular(path, limits=None):
    """The bytes of the regular file path, at most limits.file_bytes of
    them; InputError (one line naming the file) for anything else. A FIFO,
    device or socket is never read (a FIFO would block, /dev/zero never
    ends): stat before opening, fstat after (O_NONBLOCK: opening a FIFO
    cannot block), and never more than its size then plus one byte
    read."""
    cap = (limits or Limits()).file_bytes
    try:
        st = os.stat(path)
        if not stat.S_ISREG(st.st_mode):
            raise _not_regular(path, st.st_mode)
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_NOCTTY |
                     os.O_CLOEXEC)
        with os.fdopen(fd, "rb") as f:
            st = os.fstat(fd)
            if not stat.S_ISREG(st.st_mode):
                raise _not_regular(path, st.st_mode)
            # what stat said, and a byte more: read(cap + 1) would
            # allocate the cap (rtlat's largest) whatever the file
            raw = f.read(st.st_size + 1) if st.st_size <= cap else b""
    except OSError as e:
        raise InputError(f"{path}: cannot read: {e.strerror or e}") from e
    big = too_big(path, max(st.st_size, len(raw)), limits)
    if big:
        raise big
    return raw


def too_big(path, size, limits=None, memory=True):
    """InputError if a file of size bytes is over limits.file_bytes, or
    (memory) takes more memory to read than this process may have."""
    cap = (limits or Limits()).file_bytes
    if size <= cap:
        return too_much_memory(path, size) if memory else None
    more = "rtlat writes none so large" if cap >= RTLAT_MAX_BYTES else \
        "raise it to read this file"
    return InputError(f"{path}: {size} bytes, more than --max-file-size "
                      f"{cap / MIB:g} MiB allows ({more})")


def regular_size(path):
    """The size of path if it is a regular file (what read_regular
    would read), else 0."""
    try:
        st = os.stat(path)
    except OSError:
        return 0
    return st.st_size if stat.S_ISREG(st.st_mode) else 0


def fail(msg, status=2):
    print(f"{PROG}: {msg}", file=sys.stderr)
    return status


def write(out, text):
    """A regular file (or a new path) is written whole or not at all:
    a temp file beside it, renamed over it. A link is followed and its
    target replaced, the link kept. A device or FIFO (/dev/null, a pipe
    a script reads) is written directly: renaming over it would put a
    regular file in its place (as root, /dev/null for the whole
    machine). The same rule as rtlat's output files (outfile.c)."""
    if out == "-":
        sys.stdout.write(text)
        return
    real = os.path.realpath(out)
    try:
        st = os.stat(real)
    except FileNotFoundError:
        st = None
    if st is not None and not stat.S_ISREG(st.st_mode):
        with open(real, "w", encoding="utf-8") as f:
            f.write(text)
        return
    fd, tmp = tempfile.mkstemp(prefix=".rtlat-report-",
                               dir=os.path.dirname(real))
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
        os.chmod(tmp, 0o644)
        os.replace(tmp, real)
    except BaseException:
        os.unlink(tmp)
        raise
