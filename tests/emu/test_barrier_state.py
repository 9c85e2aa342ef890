"""gfx12's barrier state instructions (s_barrier_signal_isfirst, s_get_barrier_state), s_sleep_var and
s_alloc_vgpr (gpubench/emu/ops/barriers.py, dynamic_vgprs.py), against the RDNA4 manual's pseudocode
worked by hand, on both engines: several workgroups of several waves."""
import pytest
from asm_dispatch import CODE_BASE, Dispatch

from gpubench.emu import executor
from gpubench.emu.context import ExecutionError
from gpubench.emu.native import engine
from gpubench.isa.asm import assemble

ENGINES = ("reference", "native")
GROUPS, WAVES = 2, 3


def run(text: str, engine_name: str, m0: int = 0, vgprs: int = 32):
    d = Dispatch("gfx1201", 32, groups=GROUPS, waves_per_group=WAVES, vgprs=vgprs)
    d.waves.sgpr[:, 125] = m0
    d.device.alloc_at(CODE_BASE, assemble(d.isa, text + "\ns_endpgm\n").data)
    d.waves.pc[:] = CODE_BASE
    ctx = d.context()
    (engine.run if engine_name == "native" else executor.run)(ctx, executor.Watchdog())
    return ctx


def state(signals: int, members: int, valid: int) -> int:
    """The manual's { 9'0, signalCnt.u7, 5'0, memberCnt.u7, 3'0, valid.u1 }."""
    return signals << 16 | members << 4 | valid


PROGRAM = """
s_get_barrier_state s10, -1
s_barrier_signal_isfirst -1
s_cselect_b32 s11, 1, 0
s_barrier_wait -1
s_get_barrier_state s12, -1
s_mov_b32 s13, 7
s_barrier_signal_isfirst 0
s_cselect_b32 s13, 1, 0
s_get_barrier_state s14, -2
s_sleep_var s10
"""


@pytest.mark.parametrize("engine_name", ENGINES)
def test_the_first_wave_of_each_workgroup_to_signal_sees_scc(engine_name):
    ctx = run(PROGRAM, engine_name)
    sgpr = ctx.waves.sgpr
    group = ctx.waves.workgroup
    for g in range(GROUPS):
        assert sgpr[group == g, 11].sum() == 1  # exactly one first signal per workgroup and round
    assert (sgpr[:, 10] == state(0, WAVES, 1)).all()  # before: nobody parked, every wave a member
    assert (sgpr[:, 12] == state(0, WAVES, 1)).all()  # after the release: a new round
    assert (sgpr[:, 13] == 0).all()  # barrier 0 is a no-op: SCC clear
    assert (sgpr[:, 14] == 0).all()  # the trap barrier reads as no barrier outside a trap


@pytest.mark.parametrize("engine_name", ENGINES)
def test_named_barrier_numbers_are_refused(engine_name):
    with pytest.raises(ExecutionError, match="barrier 3 is a named barrier"):
        run("s_barrier_signal_isfirst m0", engine_name, m0=3)


@pytest.mark.parametrize("engine_name", ENGINES)
@pytest.mark.parametrize("request_, scc", [(16, 1), (32, 1), (33, 0), (0x200 + 8, 1)])
def test_alloc_vgpr_grants_what_the_wave_holds(engine_name, request_, scc):
    ctx = run(f"s_mov_b32 s1, {request_}\ns_alloc_vgpr s1\ns_cselect_b32 s2, 1, 0", engine_name, vgprs=32)
    assert (ctx.waves.sgpr[:, 2] == scc).all()
    assert ctx.waves.vgpr.shape[1] == 32
