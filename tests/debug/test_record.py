"""The dispatch tools on tinygrad's own AMD drivers, over MOCKKFD (amdkfd's) and MOCKPCI (AM, with the GPU's
own page tables): `gpubench run --record/--fidelity` (the emulator's side of a bundle), `gpubench compare`,
`gpubench debug --recorded` and `gpubench debug --run --kernel` (each tinygrad run in a subprocess:
tinygrad's devices are global to a process)."""
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

from gpubench.debug import compare, replay
from gpubench.debug.bundle import read_manifest
from gpubench.debug_cli import compare as compare_command
from gpubench.debug_cli import debug
from gpubench.emu.memory import AddressSpace

SUITE = Path(__file__).resolve().parent / "data" / "tinygrad_suite.py"
REPO = Path(__file__).resolve().parents[2]
DEVICES = ["MOCKKFD+AMD", "MOCKPCI+AMD"]


def gpubench(*args: str, cwd: Path, status: int = 0) -> subprocess.CompletedProcess:
    done = subprocess.run([sys.executable, "-m", "gpubench.cli", *args], cwd=cwd, capture_output=True, text=True,
                          timeout=120, check=False, env={**os.environ, "COLUMNS": "160",  # this checkout, whatever is installed
                                                           "PYTHONPATH": os.pathsep.join([str(REPO), os.environ.get("PYTHONPATH", "")])})
    assert done.returncode == status, done.stdout[-3000:] + done.stderr[-3000:]
    return done


def launches(bundle: Path) -> dict[str, Path]:
    """A bundle's launch manifests by kernel name."""
    return {read_manifest(path)["kernel"]: path for path in sorted((bundle / "launches").glob("*.json"))}


@pytest.fixture(scope="module", params=DEVICES)
def recorded(request, tmp_path_factory):
    """The suite run once per device with --record and --fidelity: (stdout, {kernel name: launch manifest})."""
    where = tmp_path_factory.mktemp("record")
    out = gpubench("run", "--dev", request.param, "--record", "rec", "--fidelity", str(SUITE), "-q", cwd=where).stdout
    return out, launches(where / "rec")


def test_dispatches_are_recorded_by_kernel_name(recorded):
    out, dispatches = recorded
    assert set(dispatches) == {"E_4", "r_4_4_4"}  # a + b, and the 4x4 matmul
    assert "recorded 2 dispatches" in out


def test_a_recorded_dispatch_replays_to_the_same_outputs(recorded):
    launch = replay.load(recorded[1]["E_4"])
    assert launch.manifest["start"]["kind"] == "registers" and launch.manifest["source"] == "emulator"
    result = compare.run_and_compare(launch)
    assert result.status == "equal" and result.compared >= 1, result
    written = [r for r in launch.manifest["regions"] if r["after"]]
    assert len(written) == 1  # the one holding the output buffer: a + b (on MOCKPCI, in a run of the page tables)
    memory, user_sgprs = launch.ctx.memory, launch.manifest["start"]["user_sgprs"]
    read = lambda address, size: memory.read(np.array([address], np.uint64), size)[0]
    output = int(read(user_sgprs[0] | user_sgprs[1] << 32, 8).view(np.uint64)[0])  # kernel argument 0
    assert memory.find(output).base == written[0]["address"]
    assert read(output, 16).view(np.float32).tolist() == [11.0, 22.0, 33.0, 44.0]


def test_compare_reports_a_changed_byte_of_an_emulator_recording(recorded, tmp_path, altered_copy):
    runner = CliRunner()
    bundle = recorded[1]["E_4"].parent.parent
    ok = runner.invoke(compare_command, [str(bundle)])
    assert ok.exit_code == 0 and "2 launches: 2 equal" in ok.output, ok.output
    launch = replay.load(recorded[1]["E_4"])
    user_sgprs = launch.manifest["start"]["user_sgprs"]
    kernargs = user_sgprs[0] | user_sgprs[1] << 32
    output = int(np.frombuffer(launch.ctx.memory.read_bytes(kernargs, 8), np.uint64)[0])  # kernel argument 0
    written = next(r for r in launch.manifest["regions"] if r["after"])
    offset = output - written["address"]

    def flip(data):
        data[offset] ^= 1
    broken = altered_copy(bundle, tmp_path / "broken", "E_4", lambda region: region["address"] == written["address"],
                          flip)
    bad = runner.invoke(compare_command, [str(broken), "--json-report", str(tmp_path / "report.json")])
    assert bad.exit_code == 1 and "2 launches: 1 equal, 1 differ" in bad.output, bad.output
    [difference] = next(r for r in json.loads((tmp_path / "report.json").read_text())["launches"]
                        if r["kernel"] == "E_4")["differences"]
    # 11.0 is 0x41300000: its first byte 0x00, recorded as 0x01; the emulator's own regions are bytes
    assert (difference["dtype"], difference["differing"], difference["first"]) == ("uint8", 1, offset)
    assert (difference["recorded"], difference["replayed"], difference["max_ulp"]) == ("1", "0", None)


def test_debugging_a_recorded_dispatch(recorded, tmp_path):
    commands = tmp_path / "cmds"
    commands.write_text("break global_store_b128\ncontinue\np/f v0\n")
    out = CliRunner().invoke(debug, ["--recorded", str(recorded[1]["E_4"]), "-x", str(commands), "--batch"]).output
    assert "breakpoint 1, wave 0" in out and "<E_4+0x" in out, out
    assert re.search(r"\[ 0\]\s+(\S+)", out.split("p/f v0")[1]).group(1) == "11", out  # lane 0 stores 1 + 10


def test_fidelity_report_lists_the_instructions_of_the_kernels(recorded):
    report = recorded[0].split("gpubench fidelity", 1)[1]
    rows = {line.split()[0]: line.split() for line in report.splitlines()[1:] if len(line.split()) == 4}
    assert rows["v_add_f32_e64"][1:] == ["4", "4", "pseudocode"]  # E_4: one wave, four adds, unrolled
    assert rows["global_store_b128"][3] == "manual" and rows["s_endpgm"][1] == "2"  # one wave per kernel


@pytest.mark.parametrize("dev", DEVICES)
def test_debug_run_stops_at_a_named_tinygrad_kernel(dev, tmp_path):
    commands = tmp_path / "cmds"
    commands.write_text("where\nbreak v_fmac_f32\ncontinue\ninfo waves\n")
    out = gpubench("debug", "--dev", dev, "--run", f"{SUITE}::test_matmul", "--kernel", "r_*", "-x", str(commands),
                   "--batch", cwd=tmp_path).stdout
    assert "=> 0x" in out and "<r_4_4_4>" in out.split("(gpubench) where")[1].split("(gpubench)")[0], out
    assert "breakpoint 1, wave 0" in out
    assert "1 passed" in out  # the session ended, the dispatch ran on and the test passed


def test_watched_address_space_reports_first_reads_and_writes_once():
    memory = AddressSpace()
    memory.map(0x1000, 64)
    memory.map(0x2000, 64)
    seen = []
    memory.watch(lambda m, write: seen.append((m.base, write)))
    memory.read(np.array([0x1000, 0x1004, 0x2000], np.uint64), 4)
    memory.write(np.array([0x2008], np.uint64), np.ones((1, 4), np.uint8))
    memory.read(np.array([0x1008], np.uint64), 4)
    memory.unwatch()
    memory.read(np.array([0x1000], np.uint64), 4)
    assert sorted(set(seen)) == [(0x1000, False), (0x2000, False), (0x2000, True)] and len(seen) == len(set(seen))
    assert "read" not in vars(memory)  # unwatched: the class's methods again
