"""Decoded instructions are shared by every dispatch (executor.Program): by the bytes at a PC, so
code rewritten in place or new code at a reused address runs as written, never as decoded before."""
import numpy as np

from gpubench.emu import executor
from gpubench.emu.waves import WaveState
from gpubench.isa.asm import assemble

from tests.emu.asm_dispatch import CODE_BASE, Dispatch


def test_new_code_at_a_reused_address_runs():
    for value in (1, 2, 3):
        ctx = Dispatch()(f"v_mov_b32 v1, {value}")
        assert (ctx.waves.vgpr[:, 1, :] == value).all()


def test_code_rewritten_in_place_between_dispatches_runs():
    run = Dispatch()
    run("v_mov_b32 v1, 7")
    code = assemble(run.isa, "v_mov_b32 v1, 9\ns_endpgm\n").data
    mapping = run.device.memory.find(CODE_BASE)
    mapping.data[:len(code)] = np.frombuffer(code, np.uint8)
    run.waves.pc[:] = CODE_BASE
    run.waves.state[:] = WaveState.RUNNING
    ctx = run.context()
    executor.run(ctx)
    assert (ctx.waves.vgpr[:, 1, :] == 9).all()


def test_a_second_dispatch_decodes_nothing(monkeypatch):
    run = Dispatch()
    run("v_mov_b32 v1, 5\nv_add_nc_u32 v1, v1, v1")
    decoded, decode = [], executor.decode
    monkeypatch.setattr(executor, "decode", lambda *args: decoded.append(args) or decode(*args))
    ctx = Dispatch()("v_mov_b32 v1, 5\nv_add_nc_u32 v1, v1, v1")
    assert (ctx.waves.vgpr[:, 1, :] == 10).all()
    assert decoded == []


def test_an_instruction_is_decoded_once_whatever_follows_it(monkeypatch):
    decoded, decode = [], executor.decode
    monkeypatch.setattr(executor, "decode", lambda *args: decoded.append(args) or decode(*args))
    for neighbour in ("v_mov_b32 v2, 1", "v_mov_b32 v3, 0x12345", "s_nop 3"):
        ctx = Dispatch()(f"v_mov_b32 v1, 0x4242\n{neighbour}")
        assert (ctx.waves.vgpr[:, 1, :] == 0x4242).all()
    mov = assemble(Dispatch().isa, "v_mov_b32 v1, 0x4242").data
    assert sum(1 for args in decoded if args[1].startswith(mov)) == 1
