# SPDX-License-Identifier: GPL-2.0-or-later
"""SMI counts (MSR_SMI_COUNT, 0x34) through /dev/cpu/N/msr, against a
stand-in: a tmpfs over /dev/cpu in a private mount namespace whose N/msr
files hold known counts at the register's offset (this machine's CPUs
have no such counter: AMD, and a guest). Every result's JSON has them at
the start and the end; the cyclictest face's --smi prints cyclictest's
SMI column; where they cannot be read, one line says so and the run goes
on."""
import json
import re

from conftest import RTLAT, in_mount_ns, run
from test_hwlat import msr_bytes


def stand_in(counts):
    sh = ["mount -t tmpfs none /dev/cpu || exit 78"]
    for cpu, count in enumerate(counts):
        sh.append(f"mkdir /dev/cpu/{cpu} && printf '{msr_bytes(count)}' > /dev/cpu/{cpu}/msr")
    return "; ".join(sh) + "; "


def bump(cpu, to):
    """Shell: set CPU cpu's count to `to` (one byte at 0x34)."""
    return (f"printf '\\{to:03o}' | dd of=/dev/cpu/{cpu}/msr bs=1 seek=52 "
            "conv=notrunc 2>/dev/null; ")


def test_every_result_has_the_counts(tmp_path):
    """rtlat timer's JSON: "smi" per online CPU, its count at the start
    and at the end (no SMI came: the same)."""
    js = tmp_path / "t.json"
    r = in_mount_ns(stand_in([7, 300]) + f"{RTLAT} timer -q -T 1 --json {js}")
    assert r.returncode == 0, r.stderr
    doc = json.loads(js.read_text())
    smi = doc["smi"]
    assert smi["0"] == {"start": 7, "end": 7}
    if "1" in smi:      # the second CPU, where it is online
        assert smi["1"] == {"start": 300, "end": 300}
    assert "smi_unavailable" not in doc


def test_cyclictest_smi_column_counts_the_smis_of_the_run(tmp_path):
    """--smi: cyclictest's " SMI:%8ld" after Max on each T: line, the
    SMIs on the thread's CPU since the start: CPU 0's count goes from 7
    to 10 while the sampler runs. The JSON has the thread's smi_count and
    "smi" the start and end."""
    js, out = tmp_path / "c.json", tmp_path / "out"
    sh = (stand_in([7, 20]) +
          f"{RTLAT} cyclictest -t 1 -a 0 -i 1000 -D 0 --smi --json {js} > {out} & pid=$!; "
          "until grep -qs rtlat-sampler /proc/$pid/task/*/comm || ! kill -0 $pid; "
          "do sleep 0.01; done; " + bump(0, 10) + "kill -INT $pid; wait $pid")
    r = in_mount_ns(sh)
    assert r.returncode == 0, r.stderr
    assert "SMI" not in r.stderr, r.stderr
    t, = [ln for ln in out.read_text().splitlines() if ln.startswith("T: 0")]
    assert re.fullmatch(r"T: 0 \( *\d+\) P: 0 I:1000 C: +\d+ Min: +\d+ Act: +\d+ "
                        r"Avg: +\d+ Max: +\d+ SMI:       3", t), t
    doc = json.loads(js.read_text())
    assert doc["thread"]["0"]["smi_count"] == 3
    assert doc["smi"]["0"] == {"start": 7, "end": 10}


def test_no_counter_is_one_line_and_the_run_goes_on(tmp_path):
    """No /dev/cpu/N/msr (an empty /dev/cpu): --smi says so in one line,
    the T: line has no SMI column, the JSON says why ("smi_unavailable")."""
    js = tmp_path / "c.json"
    r = in_mount_ns("mount -t tmpfs none /dev/cpu || exit 78; "
                    f"{RTLAT} cyclictest -t 1 -l 100 -q --smi --json {js}")
    assert r.returncode == 0, r.stderr
    err = r.stderr.splitlines()
    assert [ln for ln in err if "--smi" in ln] == [
        "rtlat cyclictest: --smi: no /dev/cpu/0/msr (modprobe msr, as root; "
        "CONFIG_X86_MSR); no SMI column"], r.stderr
    assert "SMI:" not in r.stdout and "Max:" in r.stdout
    doc = json.loads(js.read_text())
    assert doc["smi"] is None and "/dev/cpu/0/msr" in doc["smi_unavailable"]
    assert "smi_count" not in doc["thread"]["0"]


def test_smi_help_and_man():
    assert "--smi" in run(["cyclictest", "--help"]).stdout
    assert "MSR_SMI_COUNT" in run(["--man", "cyclictest"]).stdout


def test_each_checkpoint_has_the_counts_then(tmp_path):
    """A --checkpoint file has "smi" with the counts at its writing; the
    final file the counts at the end (CPU 0's raised in between)."""
    js, first = tmp_path / "t.json", tmp_path / "first.json"
    sh = (stand_in([7, 20]) +
          f"{RTLAT} timer -q -c 0 -T 0 --checkpoint 1s --json {js} & pid=$!; "
          f"until grep -qs '\"complete\": false' {js} || ! kill -0 $pid; do sleep 0.05; done; "
          f"cp {js} {first}; " + bump(0, 10) + "kill -INT $pid; wait $pid")
    r = in_mount_ns(sh)
    assert r.returncode == 0, r.stderr
    ck = json.loads(first.read_text())
    assert ck["complete"] is False and ck["smi"]["0"] == {"start": 7, "end": 7}
    doc = json.loads(js.read_text())
    assert doc["complete"] is True and doc["smi"]["0"] == {"start": 7, "end": 10}
