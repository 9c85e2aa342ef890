"""Manual: hardware registers (s_getreg/s_setreg), clocks, messages, traps and halts.

The pseudocode reads HW_REGISTERS[id] and leaves the registers to the emulator. Register ids are the
ISA's HWREG enums; field positions come from AMD's ISA manuals and the Linux kernel's context-save
trap handlers (cwsr_trap_handler_gfx10.asm covers gfx10/gfx11, _gfx12.asm gfx12, _gfx9.asm gfx9):

  MODE            FP_ROUND[3:0] FP_DENORM[7:4] DX10_CLAMP[8] IEEE[9] ... (read/write)
  STATUS          SCC[0] EXECZ[9] VCCZ[10] IN_TG[11] VALID[16]            (gfx9-gfx11, read-only here)
  WAVE_STATUS     IN_WG[11] WAVE64[29]                                    (gfx12)
  WAVE_STATE_PRIV SCC[9]                                                  (gfx12)
  TRAPSTS         EXCP[8:0] (read/write)          gfx12: WAVE_EXCP_FLAG_USER (read/write)
  GPR_ALLOC       VGPR_SIZE[13:8] (gfx12 [19:12]) = allocated VGPRs / 4 - 1 (CDNA: / 8 - 1)
  LDS_ALLOC       LDS_SIZE[20:12] in 256-byte granules (gfx12: 512-byte)
  IB_STS          0: memory operations complete at once, no counter is ever outstanding
  IB_STS2         WAVE64[11]                                              (gfx10/gfx11)
  HW_ID1 / HW_ID  WAVE_ID[4:0] (gfx9 HW_ID: WAVE_ID[3:0], TG_ID[19:16]): the emulator's
  HW_ID2, XCC_ID  placement is one WGP/CU on one shader engine, so every other id field reads 0
  SHADER_CYCLES   CYCLES[19:0] (gfx12: SHADER_CYCLES_LO/HI, 64 bits)

MODE is the wave's MODE register (`Waves.mode`, ops/modes.py: it starts from the kernel descriptor and
the float semantics read it); s_getreg/s_setreg read and write it whole. The other registers the
emulator keeps (the trap status, gfx12's SCHED_MODE) live in one uint32 per wave, attached to the
context on first use (`wave_registers`). Bits s_setreg may not write (and whole read-only registers)
are left unchanged, as user-mode hardware does; an id the emulator does not model stops the dispatch
naming it.

Time is the dispatch's step count (`ctx.stats["steps"]`): s_memtime, s_memrealtime,
MSG_RTN_GET_REALTIME and SHADER_CYCLES read it, so it is monotonic and the same run to run.

s_trap 2 (llvm.trap) and every other trap id stop the dispatch with a `WaveTrap` naming the id, the
PC, the workgroup and the wave: the emulator has no trap handler. s_trap 3 (llvm.debugtrap) continues,
as AMDGPUUsage specifies when no debugger is attached. s_sethalt 1 stops the dispatch with a
`WaveHalted`: nothing would resume the wave. MSG_RTN_GET_TBA / GET_TMA return 0 (no trap handler).
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from gpubench.emu.context import Context, ExecutionError
from gpubench.emu.ops import Unsupported, factory
from gpubench.emu.ops import operands as opnd
from gpubench.emu.waves import VCC_LO
from gpubench.isa.decoder import Instruction

DEBUG_TRAP = 3  # llvm.debugtrap: a no-op without a debugger

Reader = Callable[[Context, np.ndarray], np.ndarray]


class WaveHalted(ExecutionError):
    """A wave stopped itself (s_sethalt, s_trap): the dispatch cannot go on."""

    def __init__(self, message: str, pc: int, workgroup: int, wave: int):
        super().__init__(f"{message} at pc 0x{pc:x} (workgroup {workgroup}, wave {wave})")
        self.pc, self.workgroup, self.wave = pc, workgroup, wave


class WaveTrap(WaveHalted):
    def __init__(self, trap_id: int, pc: int, workgroup: int, wave: int):
        name = " (llvm.trap)" if trap_id == 2 else ""
        super().__init__(f"s_trap {trap_id}{name}: the emulator has no trap handler; the wave trapped",
                         pc, workgroup, wave)
        self.trap_id = trap_id


@dataclass(frozen=True)
class HardwareRegister:
    """How a register reads: kept per wave (``kept`` is its initial value, ``writable`` the bits
    s_setreg changes; MODE is `Waves.mode`) or computed from the wave's state by ``read``."""

    read: Reader | None = None
    kept: int | None = None
    writable: int = 0


def _clock(ctx: Context, waves: np.ndarray) -> np.ndarray:
    return np.full(len(waves), ctx.stats["steps"], np.uint64)


def _bit(values: np.ndarray, position: int) -> np.ndarray:
    return values.astype(np.uint32) << np.uint32(position)


def _status(ctx: Context, waves: np.ndarray) -> np.ndarray:
    w = ctx.waves
    execz = ~w.exec_mask(waves).any(axis=1)
    vccz = ~w.read_mask(VCC_LO, waves).any(axis=1)
    return _bit(w.scc[waves], 0) | _bit(execz, 9) | _bit(vccz, 10) | _bit(_in_group(ctx, waves), 11) | \
        np.uint32(1 << 16)


def _in_group(ctx: Context, waves: np.ndarray) -> np.ndarray:
    """The wave shares its workgroup with other waves."""
    sizes = np.bincount(ctx.waves.workgroup, minlength=ctx.lds.shape[0])
    return sizes[ctx.waves.workgroup[waves]] > 1


def _wave_status_gfx12(ctx: Context, waves: np.ndarray) -> np.ndarray:
    return _bit(_in_group(ctx, waves), 11) | np.uint32((ctx.waves.wave_size == 64) << 29)


def _state_priv_gfx12(ctx: Context, waves: np.ndarray) -> np.ndarray:
    return _bit(ctx.waves.scc[waves], 9)


def _gpr_alloc(shift: int, granule: int) -> Reader:
    def read(ctx: Context, waves: np.ndarray) -> np.ndarray:
        size = -(-ctx.waves.vgpr.shape[1] // granule) - 1
        return np.full(len(waves), size << shift, np.uint32)
    return read


def _lds_alloc(granule: int) -> Reader:
    def read(ctx: Context, waves: np.ndarray) -> np.ndarray:
        return np.full(len(waves), -(-ctx.lds.shape[1] // granule) << 12, np.uint32)
    return read


def _wave_id(mask: int) -> Reader:
    def read(ctx: Context, waves: np.ndarray) -> np.ndarray:
        return (ctx.waves.wave_id[waves] & mask).astype(np.uint32)
    return read


def _hw_id_gfx9(ctx: Context, waves: np.ndarray) -> np.ndarray:
    w = ctx.waves
    return ((w.wave_id[waves] & 0xF) | ((w.workgroup[waves] & 0xF) << 16)).astype(np.uint32)


def _constant(value: int) -> Reader:
    def read(ctx: Context, waves: np.ndarray) -> np.ndarray:
        return np.full(len(waves), value, np.uint32)
    return read


def _wave64_bit(position: int) -> Reader:
    def read(ctx: Context, waves: np.ndarray) -> np.ndarray:
        return np.full(len(waves), (ctx.waves.wave_size == 64) << position, np.uint32)
    return read


def _clock_bits(shift: int, mask: int) -> Reader:
    def read(ctx: Context, waves: np.ndarray) -> np.ndarray:
        return ((_clock(ctx, waves) >> np.uint64(shift)) & np.uint64(mask)).astype(np.uint32)
    return read


REGISTERS: dict[str, dict[str, HardwareRegister]] = {
    "rdna3": {
        "HW_REG_MODE": HardwareRegister(kept=0, writable=0xFFFFFFFF),
        "HW_REG_STATUS": HardwareRegister(_status),
        "HW_REG_TRAPSTS": HardwareRegister(kept=0, writable=0x1FF),
        "HW_REG_GPR_ALLOC": HardwareRegister(_gpr_alloc(8, 4)),
        "HW_REG_LDS_ALLOC": HardwareRegister(_lds_alloc(256)),
        "HW_REG_IB_STS": HardwareRegister(_constant(0)),
        "HW_REG_HW_ID1": HardwareRegister(_wave_id(0x1F)),
        "HW_REG_HW_ID2": HardwareRegister(_constant(0)),
        "HW_REG_IB_STS2": HardwareRegister(_wave64_bit(11)),
        "HW_REG_SHADER_CYCLES": HardwareRegister(_clock_bits(0, 0xFFFFF)),
    },
    "rdna4": {
        "HW_REG_WAVE_MODE": HardwareRegister(kept=0, writable=0xFFFFFFFF),
        "HW_REG_WAVE_STATUS": HardwareRegister(_wave_status_gfx12),
        "HW_REG_WAVE_STATE_PRIV": HardwareRegister(_state_priv_gfx12),
        "HW_REG_WAVE_GPR_ALLOC": HardwareRegister(_gpr_alloc(12, 4)),
        "HW_REG_WAVE_LDS_ALLOC": HardwareRegister(_lds_alloc(512)),
        "HW_REG_WAVE_EXCP_FLAG_USER": HardwareRegister(kept=0, writable=0xFFFFFFFF),
        "HW_REG_WAVE_HW_ID1": HardwareRegister(_wave_id(0x1F)),
        "HW_REG_WAVE_HW_ID2": HardwareRegister(_constant(0)),
        "HW_REG_WAVE_SCHED_MODE": HardwareRegister(kept=0, writable=0x3),
        "HW_REG_SHADER_CYCLES_LO": HardwareRegister(_clock_bits(0, 0xFFFFFFFF)),
        "HW_REG_SHADER_CYCLES_HI": HardwareRegister(_clock_bits(32, 0xFFFFFFFF)),
    },
    "cdna": {
        "HW_REG_MODE": HardwareRegister(kept=0, writable=0xFFFFFFFF),
        "HW_REG_STATUS": HardwareRegister(_status),
        "HW_REG_TRAPSTS": HardwareRegister(kept=0, writable=0x1FF),
        "HW_REG_HW_ID": HardwareRegister(_hw_id_gfx9),
        "HW_REG_GPR_ALLOC": HardwareRegister(_gpr_alloc(8, 8)),
        "HW_REG_LDS_ALLOC": HardwareRegister(_lds_alloc(256)),
        "HW_REG_IB_STS": HardwareRegister(_constant(0)),
        "HW_REG_XCC_ID": HardwareRegister(_constant(0)),
    },
}
MODE_REGISTER = {"rdna3": "HW_REG_MODE", "rdna4": "HW_REG_WAVE_MODE", "cdna": "HW_REG_MODE"}


def _register_name(inst: Instruction, reg: int) -> str:
    try:
        return inst.isa.enums["HWREG"](reg).name
    except ValueError:
        return f"hardware register {reg}"


def wave_registers(ctx: Context) -> dict[str, np.ndarray]:
    """The registers the emulator keeps, uint32 [waves] each (MODE: `Waves.mode` itself), made on first use."""
    kept = getattr(ctx, "hardware_registers", None)
    if kept is None:
        mode = MODE_REGISTER[ctx.isa.arch]
        kept = {name: ctx.waves.mode if name == mode else np.full(ctx.waves.count, reg.kept, np.uint32)
                for name, reg in REGISTERS[ctx.isa.arch].items() if reg.kept is not None}
        ctx.hardware_registers = kept
    return kept


def _hwreg_operand(inst: Instruction) -> tuple[str, HardwareRegister, int, int]:
    """(name, register, offset, size) of an s_getreg/s_setreg `hwreg(id, offset, size)` operand."""
    simm16 = inst["simm16"]
    reg, offset, size = simm16 & 63, (simm16 >> 6) & 31, ((simm16 >> 11) & 31) + 1
    name = _register_name(inst, reg)
    found = REGISTERS[inst.isa.arch].get(name)
    if found is None:
        raise Unsupported(f"{inst.name}: {name} is not emulated")
    return name, found, offset, size


def _read_register(ctx: Context, waves: np.ndarray, name: str, reg: HardwareRegister) -> np.ndarray:
    return wave_registers(ctx)[name][waves] if reg.read is None else reg.read(ctx, waves)


def getreg(inst: Instruction):
    name, reg, offset, size = _hwreg_operand(inst)
    field = np.uint32((1 << size) - 1)

    def run(ctx: Context, waves: np.ndarray) -> None:
        value = (_read_register(ctx, waves, name, reg) >> np.uint32(offset)) & field
        opnd.write_scalar(ctx, waves, inst["sdst"], value, 32)
        ctx.waves.pc[waves] += inst.size
    return run


def setreg(inst: Instruction):
    name, reg, offset, size = _hwreg_operand(inst)
    mask = np.uint32((((1 << size) - 1) << offset) & reg.writable & 0xFFFFFFFF)
    immediate = inst.name == "S_SETREG_IMM32_B32"

    def run(ctx: Context, waves: np.ndarray) -> None:
        if reg.read is None:
            source = np.full(len(waves), inst["literal"], np.uint32) if immediate else \
                opnd.read_scalar(ctx, waves, inst["sdst"], 32)
            kept = wave_registers(ctx)[name]
            kept[waves] = (kept[waves] & ~mask) | ((source << np.uint32(offset)) & mask)
        ctx.waves.pc[waves] += inst.size
    return run


def _stop(ctx: Context, waves: np.ndarray, make) -> None:
    first = waves[0]
    raise make(int(ctx.waves.pc[first]), int(ctx.waves.workgroup[first]), int(ctx.waves.wave_id[first]))


def trap(inst: Instruction):
    trap_id = inst["simm16"] & 0xFF

    def run(ctx: Context, waves: np.ndarray) -> None:
        if trap_id != DEBUG_TRAP:
            _stop(ctx, waves, lambda pc, group, wave: WaveTrap(trap_id, pc, group, wave))
        ctx.waves.pc[waves] += inst.size
    return run


def sethalt(inst: Instruction):
    halt = inst["simm16"] & 1

    def run(ctx: Context, waves: np.ndarray) -> None:
        if halt:
            _stop(ctx, waves, lambda pc, group, wave: WaveHalted(
                "s_sethalt 1: the wave halted and nothing in the emulator resumes it", pc, group, wave))
        ctx.waves.pc[waves] += inst.size
    return run


RETURNING_MESSAGES: dict[str, Callable[[Context, np.ndarray], np.ndarray]] = {
    "MSG_RTN_GET_REALTIME": _clock,
    "MSG_RTN_GET_TBA": lambda ctx, waves: np.zeros(len(waves), np.uint64),
    "MSG_RTN_GET_TMA": lambda ctx, waves: np.zeros(len(waves), np.uint64),
}


def sendmsg_rtn(inst: Instruction):
    message = inst["ssrc0"]
    try:
        name = inst.isa.enums["MSG"](message).name
    except ValueError:
        name = f"message {message}"
    answer = RETURNING_MESSAGES.get(name)
    if answer is None:
        raise Unsupported(f"{inst.name}: {name} is not emulated")
    bits = 64 if inst.name.endswith("_B64") else 32

    def run(ctx: Context, waves: np.ndarray) -> None:
        opnd.write_scalar(ctx, waves, inst["sdst"], answer(ctx, waves), bits)
        ctx.waves.pc[waves] += inst.size
    return run


def memtime(inst: Instruction):
    """s_memtime / s_memrealtime (SMEM on gfx9): the 64-bit clock into an SGPR pair."""
    def run(ctx: Context, waves: np.ndarray) -> None:
        opnd.write_scalar(ctx, waves, inst["sdata"], _clock(ctx, waves), 64)
        ctx.waves.pc[waves] += inst.size
    return run


HANDLERS = {
    "S_GETREG_B32": getreg,
    "S_SETREG_B32": setreg,
    "S_SETREG_IMM32_B32": setreg,
    "S_TRAP": trap,
    "S_SETHALT": sethalt,
    "S_SENDMSG_RTN_B32": sendmsg_rtn,
    "S_SENDMSG_RTN_B64": sendmsg_rtn,
    "S_MEMTIME": memtime,
    "S_MEMREALTIME": memtime,
}


@factory
def hardware_registers(inst: Instruction):
    make = HANDLERS.get(inst.name)
    return make(inst) if make else None
