"""The dispatch tools on tinygrad's own AMD drivers, over MOCKKFD (amdkfd's) and MOCKPCI (AM, with the GPU's
own page tables): `gpubench run --record/--fidelity`, `gpubench replay`, `gpubench debug --recorded` and
`gpubench debug --run --kernel` (each tinygrad run in a subprocess: tinygrad's devices are global to a
process)."""
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

from gpubench.debug import replay
from gpubench.debug_cli import debug
from gpubench.debug_cli import replay as replay_command
from gpubench.emu.launch import run
from gpubench.emu.memory import AddressSpace

SUITE = Path(__file__).resolve().parent / "data" / "tinygrad_suite.py"
REPO = Path(__file__).resolve().parents[2]
DEVICES = ["MOCKKFD+AMD", "MOCKPCI+AMD"]


def gpubench(*args: str, cwd: Path) -> str:
    done = subprocess.run([sys.executable, "-m", "gpubench.cli", *args], cwd=cwd, capture_output=True, text=True,
                          timeout=120, check=False, env={**os.environ, "COLUMNS": "120",  # this checkout, whatever is installed
                                                           "PYTHONPATH": os.pathsep.join([str(REPO), os.environ.get("PYTHONPATH", "")])})
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    return done.stdout


@pytest.fixture(scope="module", params=DEVICES)
def recorded(request, tmp_path_factory):
    """The suite run once per device with --record and --fidelity: (stdout, {kernel name: dispatch directory})."""
    where = tmp_path_factory.mktemp("record")
    out = gpubench("run", "--dev", request.param, "--record", "rec", "--fidelity", str(SUITE), "-q", cwd=where)
    dispatches = {json.loads((d / "manifest.json").read_text())["kernel"]: d for d in (where / "rec").iterdir()}
    return out, dispatches


def test_dispatches_are_recorded_by_kernel_name(recorded):
    out, dispatches = recorded
    assert set(dispatches) == {"E_4", "r_4_4_4"}  # a + b, and the 4x4 matmul
    assert "recorded 2 dispatches" in out


def test_a_recorded_dispatch_replays_to_the_same_outputs(recorded):
    launch = replay.load(recorded[1]["E_4"])
    run(launch.ctx)
    assert replay.compare(launch) == []
    written = [m for m in launch.manifest["mappings"] if m["after"]]
    assert len(written) == 1  # the one holding the output buffer: a + b (on MOCKPCI, in a run of the page tables)
    memory, user_sgprs = launch.ctx.memory, launch.manifest["user_sgprs"]
    read = lambda address, size: memory.read(np.array([address], np.uint64), size)[0]
    output = int(read(user_sgprs[0] | user_sgprs[1] << 32, 8).view(np.uint64)[0])  # kernel argument 0
    assert memory.find(output).base == written[0]["base"]
    assert read(output, 16).view(np.float32).tolist() == [11.0, 22.0, 33.0, 44.0]


def test_replay_compare_reports_a_difference(recorded, tmp_path):
    runner = CliRunner()
    ok = runner.invoke(replay_command, [str(recorded[1]["r_4_4_4"]), "--compare"])
    assert ok.exit_code == 0 and "match: " in ok.output, ok.output
    broken = shutil.copytree(recorded[1]["E_4"], tmp_path / "broken")
    after = next(broken.glob("*.after.bin"))
    data = np.fromfile(after, np.uint8)
    data[0] ^= 1
    data.tofile(after)
    bad = runner.invoke(replay_command, [str(broken), "--compare"])
    assert bad.exit_code == 1 and "1 bytes differ, first at +0x0" in bad.output, bad.output


def test_fidelity_report_lists_the_instructions_of_the_kernels(recorded):
    report = recorded[0].split("gpubench fidelity", 1)[1]
    rows = {line.split()[0]: line.split() for line in report.splitlines()[1:] if len(line.split()) == 4}
    assert rows["v_add_f32_e64"][1:] == ["4", "4", "pseudocode"]  # E_4: one wave, four adds, unrolled
    assert rows["global_store_b128"][3] == "manual" and rows["s_endpgm"][1] == "2"  # one wave per kernel


def test_debugging_a_recorded_dispatch(recorded, tmp_path):
    commands = tmp_path / "cmds"
    commands.write_text("break global_store_b128\ncontinue\np/f v0\n")
    out = CliRunner().invoke(debug, ["--recorded", str(recorded[1]["E_4"]), "-x", str(commands), "--batch"]).output
    assert "breakpoint 1, wave 0" in out and "<E_4+0x" in out, out
    assert re.search(r"\[ 0\]\s+(\S+)", out.split("p/f v0")[1]).group(1) == "11", out  # lane 0 stores 1 + 10


@pytest.mark.parametrize("dev", DEVICES)
def test_debug_run_stops_at_a_named_tinygrad_kernel(dev, tmp_path):
    commands = tmp_path / "cmds"
    commands.write_text("where\nbreak v_fmac_f32\ncontinue\ninfo waves\n")
    out = gpubench("debug", "--dev", dev, "--run", f"{SUITE}::test_matmul", "--kernel", "r_*", "-x", str(commands),
                   "--batch", cwd=tmp_path)
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
