"""s_rfe_b64 (every target) and GFX9's s_rfe_restore_b64 (gfx942, gfx950): the wave goes on at the 64-bit
address S0 holds (worked out by hand from s_getpc_b64: each instruction here is 4 bytes), out of privileged
mode, which a wave on the emulator never is; s_rfe_restore_b64's S1 (INST_ATC) changes nothing. Both engines."""
import pytest
from test_hardware_instructions import ENGINES, run

# s_getpc_b64 gives the address of the next instruction, P; +16 is the second s_mov_b32 (P+4 s_add_u32,
# P+8 s_addc_u32, P+12 the return; gfx12 spells the adds s_add_co_u32, s_add_co_ci_u32, P+16 s_mov_b32 s7, P+20 s_mov_b32 s8): the return skips s7's
PROGRAM = "s_getpc_b64 s[4:5]\n{add} s4, s4, {skip}\n{addc} s5, s5, 0\n{ret}\ns_mov_b32 s7, 1\ns_mov_b32 s8, 2"


@pytest.mark.parametrize("target,ret", [
    ("gfx1100", "s_rfe_b64 s[4:5]"), ("gfx1201", "s_rfe_b64 s[4:5]"), ("gfx942", "s_rfe_b64 s[4:5]"),
    ("gfx942", "s_rfe_restore_b64 s[4:5], s6"), ("gfx950", "s_rfe_restore_b64 s[4:5], s6"),
])
@pytest.mark.parametrize("engine_name", ENGINES)
@pytest.mark.parametrize("s6", [0, 1])
def test_return_goes_on_at_s0(target, ret, engine_name, s6):
    add, addc = ("s_add_co_u32", "s_add_co_ci_u32") if target == "gfx1201" else ("s_add_u32", "s_addc_u32")
    ctx = run(PROGRAM.format(add=add, addc=addc, skip=16, ret=ret), engine_name, target, s6=s6, s7=0, s8=0)
    assert (ctx.waves.sgpr[0, 7], ctx.waves.sgpr[0, 8]) == (0, 2)


@pytest.mark.parametrize("engine_name", ENGINES)
def test_return_to_the_next_instruction_runs_everything(engine_name):
    ctx = run(PROGRAM.format(add="s_add_u32", addc="s_addc_u32", skip=12, ret="s_rfe_restore_b64 s[4:5], s6"), engine_name, "gfx942", s7=0, s8=0)
    assert (ctx.waves.sgpr[0, 7], ctx.waves.sgpr[0, 8]) == (1, 2)
