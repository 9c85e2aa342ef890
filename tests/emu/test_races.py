"""The race detector (gpubench/emu/races.py): each racy kernel of tests/kernels is reported with the
two instructions that race (as LLVM disassembles them), once per pair of PCs, under every schedule;
every correct kernel is clean under every schedule; across workgroups, global memory handed on
without a release and an acquire is a race and with both it is not."""
import re
import subprocess

import numpy as np
import pytest
from asm_dispatch import CODE_BASE, Dispatch
from kernel_runner import cases, run_case
from test_schedules import CORRECT, SCHEDULES

from gpubench.emu import executor
from gpubench.emu.races import RaceDetector
from gpubench.isa.asm import assemble


def _llvm_disassembly(path, kernel: str) -> dict[int, str]:
    """Offset from ``kernel``'s entry -> llvm-objdump-22's text of the instruction there."""
    out = subprocess.run(["llvm-objdump-22", "-d", "--no-show-raw-insn", str(path)], capture_output=True, text=True,
                         check=True).stdout
    entry = int(re.search(rf"^([0-9a-f]+) <{kernel}>:", out, re.M).group(1), 16)
    return {int(address, 16) - entry: " ".join(text.split())
            for text, address in re.findall(r"^\s+(\S.*?)\s+// ([0-9A-F]+):", out, re.M)}


@pytest.mark.parametrize("schedule", ["lockstep", "per-wave"])
@pytest.mark.parametrize("variant", cases.PORTABLE)
@pytest.mark.parametrize("name", [c.name for c in cases.RACY])
def test_a_missing_barrier_is_reported_with_both_instructions(name, variant, schedule):
    case = cases.CASES[name]
    _, _, _, stats = run_case(case, variant, schedule=schedule, races=True)
    assert stats.races, f"{name}: no race reported"
    llvm = _llvm_disassembly(case.code_object(variant), case.kernel)
    pairs = [tuple(sorted((r.first.pc, r.second.pc))) for r in stats.races]
    assert len(set(pairs)) == len(pairs)  # once per pair of PCs
    for report in stats.races:
        assert report.space == "LDS" and report.kernel == case.kernel
        first, second = report.first, report.second
        assert first.workgroup == second.workgroup and first.wave_id != second.wave_id
        assert first.write or second.write
        assert report.address < case.min_lds
        for access in (first, second):
            assert access.instruction.startswith("ds_")
            assert access.instruction.startswith(llvm[access.offset] + "  [")  # ours, then the bytes
        assert "no barrier between them" in str(report)


@pytest.mark.parametrize("schedule", SCHEDULES)
@pytest.mark.parametrize("name,variant", CORRECT)
def test_correct_kernels_have_no_race(name, variant, schedule):
    _, _, _, stats = run_case(cases.CASES[name], variant, schedule=schedule, races=True)
    assert stats.races == []


RELEASE, ACQUIRE = "s_waitcnt_vscnt null, 0x0", "buffer_gl0_inv\nbuffer_gl1_inv"  # as __threadfence on gfx11


def _hand_off(release: str, acquire: str) -> tuple[np.ndarray, RaceDetector]:
    """Two workgroups of one wave: each stores its slot, (releases,) counts itself in with a returning
    atomic add, (acquires,) and the wave that counted last (its lane 31 saw 32 + 31) loads slot 0,
    the other workgroup's. Returns v3 of lane 31 per wave and the detector."""
    run = Dispatch("gfx1100", 32, groups=2, waves_per_group=1)
    slots, counter = run.buffer(np.zeros(2, np.uint32)), run.buffer(np.zeros(1, np.uint32))
    run.sgpr_pair(0, slots.address)
    run.sgpr_pair(2, counter.address)
    run.vgpr[:, 1, :] = (np.arange(2) * 4)[:, None]  # the wave's slot
    run.vgpr[:, 2, :] = (np.arange(2) + 7)[:, None]  # what it stores
    run.vgpr[:, 5, :] = 1
    text = f"""global_store_b32 v1, v2, s[0:1]
{release}
global_atomic_add_u32 v4, v6, v5, s[2:3] glc
s_waitcnt vmcnt(0)
{acquire}
v_cmpx_eq_u32 63, v4
global_load_b32 v3, v6, s[0:1]
s_endpgm"""
    run.device.alloc_at(CODE_BASE, assemble(run.isa, text).data)
    run.waves.pc[:] = CODE_BASE
    ctx = run.context()
    ctx.races = RaceDetector(ctx, "hand_off", CODE_BASE, executor.Program(ctx).describe)
    executor.run(ctx)
    return ctx.waves.vgpr[:, 3, 31], ctx.races


@pytest.mark.parametrize("release,acquire,race", [(RELEASE, ACQUIRE, False), ("", ACQUIRE, True),
                                                  (RELEASE, "", True), ("", "", True)])
def test_global_memory_across_workgroups_needs_a_release_and_an_acquire(release, acquire, race):
    loaded, races = _hand_off(release, acquire)
    assert loaded.tolist() == [0, 7]  # workgroup 1 counted last and read workgroup 0's slot
    assert [(r.space, r.first.workgroup, r.first.write, r.second.workgroup, r.second.write) for r in races.reports] == \
        ([("global", 0, True, 1, False)] if race else [])
    if race:
        report = str(races.reports[0])
        assert "global_store_b32 v1, v2, s[0:1]" in report and "global_load_b32 v3, v6, s[0:1]" in report
        assert "different workgroups" in report


def test_the_debugger_stops_at_the_first_race():
    """`catch race`, then `continue`: the session stops after the first racing access, the racing
    wave selected, and says what the detector said; the next `continue` stops at the next pair."""
    import gpubench
    from gpubench.debug import Session

    case = cases.CASES["scan_lds_racy"]
    dev = gpubench.Device("gfx1100")
    inputs = case.inputs(0)
    args = (dev.to_device(inputs["in"]), dev.to_device(inputs["out"]))
    session = Session.load(dev, case.code_object("gfx1100"), case.kernel, case.grid, case.block, args)
    assert session.command("catch race").startswith("catching the first data race")
    llvm = _llvm_disassembly(case.code_object("gfx1100"), case.kernel)
    stopped = session.command("continue")
    assert stopped.startswith("race: data race on LDS address")
    first, second = session.ctx.races.reports[0].first, session.ctx.races.reports[0].second
    assert f"<scan_lds_racy+0x{first.offset:x}>: {llvm[first.offset]}" in stopped
    assert f"<scan_lds_racy+0x{second.offset:x}>: {llvm[second.offset]}" in stopped
    assert session.selected == second.wave
    assert int(session.waves.pc[second.wave]) > second.pc  # stopped after the access
    assert session.command("continue").startswith("race: ") and len(session.ctx.races.reports) >= 2
    session.close()


SUITE = '''
import sys
sys.path.insert(0, {here!r})
import pytest
from kernel_runner import cases, run_case


@pytest.mark.parametrize("name", ["reduce_sum_racy", "reduce_sum_racy", "scan_lds"])
def test_kernel(name):
    run_case(cases.CASES[name], "gfx1100")
'''


def test_gpubench_run_lists_each_race_once_over_its_workers(tmp_path):
    """`gpubench run --races -n 2`: the suite's launches (here through the Python API, which the
    environment reaches too) are checked, and the summary lists the racy kernel's races once."""
    import json
    import os
    import sys
    from pathlib import Path

    here = Path(__file__).resolve().parent
    suite = tmp_path / "test_racy_suite.py"
    suite.write_text(SUITE.format(here=str(here)))
    report = tmp_path / "report.json"
    done = subprocess.run([sys.executable, "-m", "gpubench.cli", "run", "--races", str(suite), "-n", "2",
                           "--json-report", str(report)], capture_output=True, text=True, cwd=tmp_path,
                          env={k: v for k, v in os.environ.items() if k != "GPUBENCH_RACES"})
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    alone = run_case(cases.CASES["reduce_sum_racy"], "gfx1100", races=True)[3].races
    listed = json.loads(report.read_text())["races"]
    assert len(listed) == len(alone) > 0
    assert all("in kernel reduce_sum_racy" in text for text in listed)
    assert f"race detector: {len(alone)} races" in done.stdout


@pytest.mark.parametrize("barrier,race", [("", True), ("s_barrier", False)])
def test_global_memory_in_a_workgroup_needs_a_barrier(barrier, race):
    """Two waves of one workgroup: lane 0 of wave 1 stores a word, then every lane of both waves loads
    it: wave 0's load races with the store unless a barrier stands between them."""
    run = Dispatch("gfx1100", 32, groups=1, waves_per_group=2)
    word = run.buffer(np.zeros(1, np.uint32))
    run.sgpr_pair(0, word.address)
    run.set_exec(np.array([[False] * 32, [True] + [False] * 31]))  # wave 1's lane 0 stores
    text = f"""global_store_b32 v1, v2, s[0:1]
s_mov_b32 exec_lo, -1
{barrier}
global_load_b32 v3, v1, s[0:1]
s_endpgm"""
    run.device.alloc_at(CODE_BASE, assemble(run.isa, text).data)
    run.waves.pc[:] = CODE_BASE
    ctx = run.context()
    ctx.races = RaceDetector(ctx, "in_group", CODE_BASE, executor.Program(ctx).describe)
    executor.run(ctx)
    found = {(r.first.wave_id, r.first.write, r.second.wave_id, r.second.write) for r in ctx.races.reports}
    assert found == ({(1, True, 0, False)} if race else set())
