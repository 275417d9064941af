# SPDX-License-Identifier: GPL-2.0-or-later
"""rtlat's --samples files (rtlat-samples-1: the layout rtlat(1)'s SAMPLES
FILE section documents): every sample of a run, into model.Samples. The
file is mapped, not read: a week's file is walked block by block, and
only each series' rows are copied out."""
import os

import numpy as np

from ..io import InputError, too_much_memory
from ..model import SampleSeries, Samples

MAGIC = b"RTLATSMP"
SERIES, ROWS, END = 1, 2, 3


def dtypes(order):
    """The header, a block head, a series declaration and a row in the
    file's byte order ("<" or ">")."""
    return (np.dtype([("magic", "S8"), ("order", order + "u4"),
                      ("version", order + "u4"), ("origin", order + "i8"),
                      ("wall", order + "i8"), ("ring", order + "u4"),
                      ("zero", order + "u4"), ("test", "S24")]),
            np.dtype([("kind", order + "u4"), ("series", order + "u4"),
                      ("rows", order + "u4"), ("zero", order + "u4")]),
            np.dtype([("thread", order + "i4"), ("cpu", order + "i4"),
                      ("threshold", order + "i8"), ("test", "S24"),
                      ("series", "S48")]),
            np.dtype([("t", order + "i8"), ("ns", order + "i8")]))


def text(b):
    return b.split(b"\0", 1)[0].decode("utf-8", "replace")


def is_samples(path):
    try:
        with open(path, "rb") as f:
            return f.read(8) == MAGIC
    except OSError:
        return False


def header(m, path):
    if len(m) < 64 or bytes(m[:8]) != MAGIC:
        raise InputError(f"{path}: not an rtlat --samples file (no "
                         "RTLATSMP header)")
    for order in "<>":
        head = dtypes(order)[0]
        h = np.frombuffer(m, head, count=1)[0]
        if h["order"] == 0x01020304:
            if h["version"] != 1:
                raise InputError(f"{path}: --samples layout version "
                                 f"{h['version']}: this rtlat-report reads 1")
            return order, h
    raise InputError(f"{path}: byte_order is neither 0x01020304 nor its "
                     "swap: not an rtlat --samples file")


def walk(m, path, order):
    """(declarations {id: record}, rows {id: [arrays]}, end or None)."""
    _, bhead, decl, row = dtypes(order)
    decls, rows, end, off = {}, {}, None, 64
    size = len(m)
    while off < size:
        if off + 16 > size:
            raise InputError(f"{path}: cut inside a block head at byte "
                             f"{off}")
        b = np.frombuffer(m, bhead, count=1, offset=off)[0]
        off += 16
        kind, sid, n = int(b["kind"]), int(b["series"]), int(b["rows"])
        need = {SERIES: decl.itemsize, ROWS: n * row.itemsize,
                END: 16}.get(kind)
        if need is None:
            raise InputError(f"{path}: block of unknown kind {kind} at byte "
                             f"{off - 16}")
        if off + need > size:
            raise InputError(f"{path}: cut inside a block of kind {kind} at "
                             f"byte {off - 16}")
        if kind == SERIES:
            decls[sid] = np.frombuffer(m, decl, count=1, offset=off)[0]
        elif kind == ROWS:
            if sid not in decls:
                raise InputError(f"{path}: samples of series {sid} before "
                                 "its declaration")
            rows.setdefault(sid, []).append(
                np.frombuffer(m, row, count=n, offset=off))
        else:
            end = np.frombuffer(m, np.dtype(order + "u8"), count=2,
                                offset=off)
        off += need
        if kind == END:
            break
    return decls, rows, end


def load_samples(path):
    """model.Samples of a --samples file; InputError when it is not one or
    is damaged (a file cut at a block's end reads, complete False)."""
    try:
        size = os.path.getsize(path)
        if size == 0:
            raise InputError(f"{path}: empty: not an rtlat --samples file")
        mem = too_much_memory(path, size // 16)
        if mem:
            raise mem
        m = np.memmap(path, dtype=np.uint8, mode="r")
    except OSError as e:
        raise InputError(f"{path}: cannot read: {e.strerror or e}") from e
    order, h = header(m, path)
    decls, rows, end = walk(m, path, order)
    out = Samples(path=path, test=text(h["test"]), origin_ns=int(h["origin"]),
                  origin_wall_ns=int(h["wall"]), ring_rows=int(h["ring"]),
                  complete=end is not None,
                  written=int(end[0]) if end is not None else None,
                  dropped=int(end[1]) if end is not None else None)
    for sid in sorted(decls):
        d = decls[sid]
        parts = rows.get(sid, [])
        both = np.concatenate(parts) if parts else np.empty(0, dtypes(order)[3])
        thr = int(d["threshold"])
        out.series.append(SampleSeries(
            test=text(d["test"]), name=text(d["series"]),
            thread=int(d["thread"]),
            cpu=int(d["cpu"]) if d["cpu"] >= 0 else None,
            threshold_ns=thr if thr >= 0 else None,
            t_ns=both["t"].astype(np.int64), ns=both["ns"].astype(np.int64)))
    return out
