"""GFX9's s_cbranch_i_fork / s_cbranch_g_fork / s_cbranch_join on gfx942 and gfx950: the side of the fork
with fewer lanes runs first, the other side's { PC, EXEC } waits in s[4*CSP : 4*CSP+3], and the join runs
it (the CDNA manuals' pseudocode, worked by hand), on both engines."""
import numpy as np
import pytest
from asm_dispatch import CODE_BASE
from test_hardware_instructions import ENGINES, run

from gpubench.isa.arch import ISA
from gpubench.isa.asm import assemble

LANES = np.arange(64, dtype=np.uint32)


def body(fork: str) -> str:
    return f"""
    s_getreg_b32 s20, hwreg(HW_REG_MODE, 29, 3)
    v_mov_b32 v1, 0
    v_cmp_gt_u32 vcc, s10, v0
    {fork}
    v_add_u32 v1, 1, v1
    s_branch join
    taken:
    v_add_u32 v1, 2, v1
    join:
    s_cbranch_join s20
    v_add_u32 v1, 100, v1
    s_getreg_b32 s21, hwreg(HW_REG_MODE, 29, 3)
    """


def check(ctx, passing: int, first_side: str):
    """Lanes below ``passing`` took the branch (+2), the others fell through (+1); the side that ran
    second goes on past the join (+100) with its EXEC; the stack is back at CSP 0."""
    v1 = ctx.waves.vgpr[0, 1, :64]
    second_taken = first_side == "fallthrough"
    want = np.where(LANES < passing, 2 + (100 if second_taken else 0), 1 + (0 if second_taken else 100))
    assert list(v1) == list(want)
    exec_ = int(ctx.waves.sgpr[0, 126]) | int(ctx.waves.sgpr[0, 127]) << 32
    second_lanes = LANES < passing if second_taken else LANES >= passing
    assert exec_ == sum(1 << int(lane) for lane in LANES[second_lanes])
    assert ctx.waves.sgpr[0, 20] == 0 and ctx.waves.sgpr[0, 21] == 0


@pytest.mark.parametrize("target", ["gfx942", "gfx950"])
@pytest.mark.parametrize("passing, first_side", [(10, "taken"), (50, "fallthrough")])
def test_i_fork_runs_the_smaller_side_first(target, passing, first_side):
    for engine_name in ENGINES:
        ctx = run(body("s_cbranch_i_fork vcc, taken"), engine_name, target, v0=LANES, s10=passing)
        check(ctx, passing, first_side)
        # the waiting side's entry: mask, then the PC it resumes at
        entry = [int(x) for x in ctx.waves.sgpr[0, 0:4]]
        waiting = LANES >= passing if first_side == "taken" else LANES < passing
        assert entry[0] | entry[1] << 32 == sum(1 << int(lane) for lane in LANES[waiting])


@pytest.mark.parametrize("target", ["gfx942", "gfx950"])
@pytest.mark.parametrize("passing, first_side", [(10, "taken"), (50, "fallthrough")])
def test_g_fork_jumps_to_the_address_in_s1(target, passing, first_side):
    text = body("s_cbranch_g_fork vcc, s[22:23]")
    prefix = text.split("taken:")[0]
    offset = len(assemble(ISA.get(target), prefix + "join:\n").data)  # the label s_branch names
    taken = CODE_BASE + offset
    for engine_name in ENGINES:
        ctx = run(text, engine_name, target, v0=LANES, s10=passing, s22=taken & 0xFFFFFFFF, s23=taken >> 32)
        check(ctx, passing, first_side)


@pytest.mark.parametrize("engine_name", ENGINES)
def test_a_fork_all_lanes_take_is_a_branch(engine_name):
    ctx = run(body("s_cbranch_i_fork vcc, taken"), engine_name, "gfx942", v0=LANES, s10=64)
    assert list(ctx.waves.vgpr[0, 1, :64]) == [102] * 64
