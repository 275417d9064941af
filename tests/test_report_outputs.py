# SPDX-License-Identifier: GPL-2.0-or-later
"""Where rtlat-report writes (issue 44): a device or FIFO is written
directly, a link's target is replaced and the link kept, as rtlat's own
output files are (SPEC 8). Renaming a temp file over the output made
`rtlat-report ... -o /dev/null`, as root, replace the machine's
/dev/null with a regular file."""
import os
import stat
import threading
from pathlib import Path

from conftest import FIXTURES, report

FIX = FIXTURES / "edge" / "one-sample.json"


def test_a_fifo_is_written_into_and_stays_a_fifo(tmp_path):
    fifo = tmp_path / "page.md"
    os.mkfifo(fifo)
    got = []
    # The reader opens the FIFO as a script reading it would; it is
    # there before rtlat-report opens its end.
    reader = threading.Thread(
        target=lambda: got.append(Path(fifo).read_text()), daemon=True)
    reader.start()
    r = report(FIX, "--format", "md", "-o", fifo)
    reader.join(timeout=60)
    assert r.returncode == 0, r.stderr
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)
    assert got and got[0].startswith("#"), got
    assert [p.name for p in tmp_path.iterdir()] == ["page.md"]


def test_a_character_device_is_written_and_not_replaced(tmp_path):
    null = tmp_path / "null"
    try:
        os.mknod(null, 0o666 | stat.S_IFCHR, os.makedev(1, 3))
    except PermissionError:
        import pytest
        pytest.skip("mknod needs CAP_MKNOD")
    r = report(FIX, "--format", "md", "-o", null)
    assert r.returncode == 0, r.stderr
    assert stat.S_ISCHR(os.lstat(null).st_mode)
    assert [p.name for p in tmp_path.iterdir()] == ["null"]


def test_a_link_is_followed_and_kept(tmp_path):
    target = tmp_path / "real.md"
    target.write_text("old\n")
    link = tmp_path / "link.md"
    link.symlink_to(target)
    r = report(FIX, "--format", "md", "-o", link)
    assert r.returncode == 0, r.stderr
    assert link.is_symlink()
    assert target.read_text().startswith("#")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["link.md",
                                                          "real.md"]
