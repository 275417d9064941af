#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""The SQUAD server tests/test_fleet_squad.py runs: PyPI's squad 1.x in a
venv of its own (build/squad-venv, or $RTLAT_SQUAD_VENV: squad pins
Django and friends the test venv must not get), made once, its frontend's
download step (JavaScript fetched from the internet when squad.frontend is
imported) satisfied with empty stand-ins, and a database migrated once as
the template each test session copies. make check starts it at once
beside the build (python3 tests/squad_venv.py): a fresh machine's install
(40 to 110 s) then overlaps the venv, the unit tests and the first tests.
Exit 0 ready, 77 squad cannot be installed here (the reason on stderr)."""
import fcntl
import os
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
VENV = Path(os.environ.get("RTLAT_SQUAD_VENV", ROOT / "build" / "squad-venv"))
SQUAD_SPEC = "squad>=1.90,<2"
TEMPLATE_DB = VENV / "rtlat-migrated.sqlite3"


class Unavailable(Exception):
    """squad cannot be installed or imported here: why."""


def squad_env(db, data):
    """SQUAD's settings from the environment: its database, its data
    directories (never in the venv's source tree), production mode."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("DJANGO", "PYTHON"))}
    env.update(DATABASE=f"ENGINE=django.db.backends.sqlite3:NAME={db}",
               SECRET_KEY="rtlat-tests-only", ENV="production",
               SQUAD_STATIC_DIR=str(data / "static"), SQUAD_STORAGE_DIR=str(data / "storage"),
               XDG_DATA_HOME=str(data), SQUAD_LOG_LEVEL="WARNING")
    return env


def install():
    """The venv with squad in it (a lock: make check's background install
    and the tests' fixture never both make it)."""
    VENV.parent.mkdir(parents=True, exist_ok=True)
    with open(VENV.parent / ".squad-venv.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        admin = VENV / "bin" / "squad-admin"
        if not admin.exists():
            base = shutil.which("python3") or sys.executable
            r = subprocess.run([base, "-m", "venv", "--clear", str(VENV)],
                               capture_output=True, text=True, timeout=300)
            if r.returncode:
                raise Unavailable(f"cannot make a venv for squad: {r.stderr.strip()}")
            r = subprocess.run([str(VENV / "bin" / "pip"), "install", "-q",
                                "--disable-pip-version-check", SQUAD_SPEC],
                               capture_output=True, text=True, timeout=900)
            if r.returncode or not admin.exists():
                shutil.rmtree(VENV, ignore_errors=True)
                raise Unavailable(f"pip cannot install {SQUAD_SPEC}: "
                                  f"{(r.stderr.strip().splitlines() or ['?'])[-1]}")
        r = subprocess.run([str(VENV / "bin" / "python"), "-c",
                            "import os, squad; print(os.path.dirname(squad.__file__))"],
                           capture_output=True, text=True, timeout=60)
        if r.returncode:
            raise Unavailable(f"squad does not import in {VENV}: {r.stderr.strip()}")
        stand_ins(Path(r.stdout.strip()) / "frontend" / "static")
        # SQUAD's 200-odd migrations take 11 s on SQLite: once, into a
        # template each session copies (and migrates again: nothing to do)
        if not TEMPLATE_DB.exists():
            tmp = TEMPLATE_DB.with_suffix(".tmp")
            tmp.unlink(missing_ok=True)
            r = subprocess.run([str(VENV / "bin" / "squad-admin"), "migrate", "-v", "0"],
                               env=squad_env(tmp, VENV), capture_output=True, text=True,
                               timeout=300)
            if r.returncode:
                raise RuntimeError(f"squad-admin migrate failed: {r.stdout}{r.stderr}")
            tmp.rename(TEMPLATE_DB)


def stand_ins(static):
    """Each entry of download.conf as an empty file or directory, recorded
    in download.status as already fetched: the download script then
    fetches nothing."""
    status = static / "download.status"
    lines = []
    for line in (static / "download.conf").read_text().splitlines():
        words = line.split()
        if len(words) < 2 or words[0].startswith("#"):
            continue
        dest, url = words[0], words[1]
        target = static / dest
        if not target.exists():
            target.parent.mkdir(parents=True, exist_ok=True)
            if url.endswith((".js", ".css")):
                target.write_text("")
            else:
                target.mkdir()
        lines.append(" ".join(words[:3]))
    status.write_text("\n".join(lines) + "\n")


if __name__ == "__main__":
    try:
        install()
    except Unavailable as e:
        print(f"squad_venv: {e}", file=sys.stderr)
        sys.exit(77)
