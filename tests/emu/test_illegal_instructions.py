"""Instructions a hostile or buggy program may hold, on both engines: each has the outcome the hardware
gives it (a defined value, or an illegal instruction that stops the dispatch with its PC and text),
never a Python exception from inside the emulator or native code writing past the register file."""
from __future__ import annotations

import numpy as np
import pytest
from asm_dispatch import CODE_BASE, Dispatch

from gpubench.emu import launch
from gpubench.emu.context import ExecutionError
from gpubench.emu.executor import GPUPageFault
from gpubench.emu.memory import NOT_EXECUTABLE
from gpubench.isa.asm import assemble

ENGINES = ("native", "reference")


def run_code(monkeypatch, engine: str, run: Dispatch, code: bytes) -> None:
    monkeypatch.setenv("GPUBENCH_ENGINE", engine)
    run.device.alloc_at(CODE_BASE, code + assemble(run.isa, "s_endpgm").data)
    run.waves.pc[:] = CODE_BASE
    launch.run(run.context())


@pytest.mark.parametrize("engine", ENGINES)
def test_a_float_inline_constant_on_a_24_bit_operand_is_its_f32_pattern(monkeypatch, engine):
    # LLVM encodes the literal 0xbf800000 in this operand as the inline constant -1.0: its low 24 bits,
    # 0x800000, are -2^23 as an i24
    run = Dispatch("gfx1100")
    run.vgpr[:, 2, :], run.vgpr[:, 3, :] = 3, 5
    run_code(monkeypatch, engine, run, assemble(run.isa, "v_mad_i32_i24 v1, v2, -1.0, v3").data)
    assert (run.vgpr[:, 1, :].view(np.int32) == 3 * -(1 << 23) + 5).all()


ILLEGAL = {  # case -> (target, wave size, VGPRs allocated, bytes, what the error names)
    "a 64-bit VGPR operand past v255": ("gfx1201", 32, 256, "d00cff1d", "v[255:256]"),
    "a VGPR past .amdhsa_next_free_vgpr (read)": ("gfx1100", 32, 24, "c8050206", "v200"),
    "a VGPR past .amdhsa_next_free_vgpr (written)": ("gfx1100", 32, 24, "01059007", "v200"),
    "a 64-bit VGPR destination past the allocation": ("gfx1100", 32, 24, "fe002ad7040d0200", "v[254:255]"),
    "a VOPD half writing past the allocation": ("gfx1100", 32, 24, "0105c8c8040bca00", "v203"),
    "a 64-bit SGPR destination at s127": ("gfx1100", 32, 32, "0200ff85", "128 SGPRs"),
    "SDWA selector 7 (reserved)": ("gfx942", 64, 32, "f97e937cfe000716", "src0_sel 7 is reserved"),
    "a literal source in a DPP16 encoding": ("gfx1100", 32, 32, "7e0097d4fafe8100fee400ff",
                                             "a literal source, and the format has no literal dword"),
    "a literal source in a gfx942 VOP3": ("gfx942", 64, 32, "01214fd1ff000000",
                                          "a literal source, and the format has no literal dword"),
    "an SGPR as a WMMA accumulator": ("gfx1100", 64, 256, "085043cc1031fe19",
                                      "C must be a VGPR or an inline constant"),
}


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("name", ILLEGAL)
def test_an_illegal_instruction_stops_the_dispatch_with_its_pc(monkeypatch, engine, name):
    target, wave_size, vgprs, code, named = ILLEGAL[name]
    run = Dispatch(target, wave_size, vgprs=vgprs)
    before = run.vgpr.copy()
    with pytest.raises(ExecutionError, match="illegal instruction|cannot execute") as error:
        run_code(monkeypatch, engine, run, bytes.fromhex(code))
    assert f"0x{CODE_BASE:x}" in str(error.value) and named in str(error.value)
    assert (run.vgpr == before).all(), "an illegal instruction wrote registers"


@pytest.mark.parametrize("engine", ENGINES)
def test_a_jump_to_unmapped_memory_is_an_instruction_fetch_fault_naming_the_pc_and_wave(monkeypatch, engine):
    run = Dispatch("gfx1100", waves_per_group=2)
    run.sgpr_pair(4, 0xDEAD_0000)
    with pytest.raises(GPUPageFault) as error:
        run_code(monkeypatch, engine, run, assemble(run.isa, "s_setpc_b64 s[4:5]").data)
    assert str(error.value).startswith("GPU page fault: read at 0xdead0000 (instruction fetch from unmapped memory)")
    assert error.value.fault.context == {"workgroup": 0, "wave": 0, "pc": "0xdead0000",
                                         "instruction": "<no instruction: nothing is mapped at the PC>"}


@pytest.mark.parametrize("engine", ENGINES)
def test_a_jump_into_memory_that_is_not_executable_is_an_instruction_fetch_fault(monkeypatch, engine):
    """A mapping without execute permission (a GPU PTE without EXECUTABLE, MOCKPCI) holds data, not code: the
    wave's fetch there faults, whatever the bytes would decode to."""
    run = Dispatch("gfx1100")
    run.device.memory.map(0xDEAD_0000, np.frombuffer(assemble(run.isa, "s_endpgm").data, np.uint8).copy(),
                          executable=False)
    run.sgpr_pair(4, 0xDEAD_0000)
    with pytest.raises(GPUPageFault) as error:
        run_code(monkeypatch, engine, run, assemble(run.isa, "s_setpc_b64 s[4:5]").data)
    assert error.value.fault.reason == NOT_EXECUTABLE and error.value.fault.address == 0xDEAD_0000


@pytest.mark.parametrize("engine", ENGINES)
def test_an_addtid_load_with_saddr_off_reads_from_its_offset_plus_the_lane_id(monkeypatch, engine):
    # FLAT-encoded GLOBAL_LOAD_ADDTID_B32 v2, off: address = lane id * 4 + 0, where nothing is mapped
    run = Dispatch("gfx1100", 64, vgprs=96)
    with pytest.raises(GPUPageFault, match="read at 0x0 "):
        run_code(monkeypatch, engine, run, bytes.fromhex("0040a0dc02007d01"))
