"""Manual: the accumulation registers (AGPRs) of CDNA3 and CDNA4 (gfx942, gfx950), and every instruction
that names one.

gfx90a and later have one unified VGPR file per wave: the architectural VGPRs v0 .. v[ACCUM_OFFSET-1],
then the AGPRs, a[n] being unified register ACCUM_OFFSET + n (AMDGPUUsage, COMPUTE_PGM_RSRC3
ACCUM_OFFSET: "offset of a first AccVGPR in the unified register file", granule 4; the descriptor's
VGPR count covers both parts). The emulator holds that file as ``Waves.vgpr`` and the offset as
``Waves.accum_offset`` (abi.py sets it from the kernel descriptor).

Which operands are AGPRs, the encoding says (CDNA3 ISA manual, "Dependent Arithmetic / Matrix" and
the memory chapters; LLVM's SIInstrInfo encodings):
- v_accvgpr_read_b32 (its src0), v_accvgpr_write_b32 (its vdst), v_accvgpr_mov_b32 (both, also in
  its DPP16 form): always. v_accvgpr_write_b32's source is a VGPR, an SGPR or an inline constant.
- MFMA (VOP3P-MAI): ACC_CD (bit 15) makes C (src2) and D (vdst) AGPRs, ACC[0] / ACC[1] (bits 59/60)
  A (src0) / B (src1).
- DS, FLAT / GLOBAL / SCRATCH and MUBUF: the ACC bit (DS bit 25, the others bit 55) makes every data
  operand (data, data0, data1, vdata, vdst) an AGPR; address operands stay VGPRs.

The moves are written here; every other instruction runs with its ordinary handler (matrix.py,
memory_ops.py, lds.py, atomics.py, buffer.py ...) built for the instruction *rebased*: its AGPR
operands renamed to the unified-file registers they are, so those handlers need not know about AGPRs
(one handler per accumulation offset a dispatch uses). RDNA instructions never come here.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from gpubench.emu.context import Context, ExecutionError
from gpubench.emu.ops import FACTORIES, Handler, Unsupported, dpp, factory
from gpubench.emu.ops import operands as opnd
from gpubench.isa.decoder import Instruction

MOVES = ("V_ACCVGPR_READ", "V_ACCVGPR_WRITE", "V_ACCVGPR_MOV_B32")
DATA_OPERANDS = ("data", "data0", "data1", "vdata", "vdst")
SOURCE_FIELDS = ("src0", "src1", "src2")  # 9-bit: a register is VGPR_BASE + n


@dataclass(frozen=True)
class Rebased(Instruction):
    """``inst`` with some register fields replaced (AGPR n -> unified register accum_offset + n) and its
    ACC bits cleared, for handlers that know only VGPRs. The encoding (``word``, ``bytes``) is the original."""

    overrides: tuple[tuple[str, int], ...] = field(default=())

    def __getitem__(self, name: str) -> int:
        for key, value in self.overrides:
            if key == name:
                return value
        return super().__getitem__(name)

    def get(self, name: str, default: int | None = None) -> int | None:
        for key, value in self.overrides:
            if key == name:
                return value
        return super().get(name, default)


def agpr_fields(inst: Instruction) -> tuple[str, ...]:
    """The register fields of ``inst`` that name AGPRs (none on RDNA)."""
    if inst.isa.arch != "cdna":
        return ()
    if inst.fmt.name.endswith("_MFMA") or inst.fmt.name == "VOP3PX2":
        acc, acc_cd = inst.get("acc", 0), inst.get("acc_cd", 0)
        names = [name for name, bit in (("src0", acc & 1), ("src1", acc & 2)) if bit]
        if acc_cd:
            names += ["src2", "vdst"] if inst["src2"] >= opnd.VGPR_BASE else ["vdst"]
        return tuple(names)
    if inst.get("acc"):  # DS, FLAT/GLOBAL/SCRATCH, MUBUF/MTBUF
        return tuple(o.field for o in inst.idef.operands if o.type == "OPR_VGPR_OR_ACCVGPR")
    return ()


def accum_base(ctx: Context, inst: Instruction) -> int:
    offset = ctx.waves.accum_offset
    if offset is None:
        raise ExecutionError(f"{inst.name} names an AGPR, but the waves have no accumulation registers "
                             "(no ACCUM_OFFSET: Waves.accum_offset is unset)")
    return offset


def rebased(inst: Instruction, names: tuple[str, ...], offset: int) -> Rebased:
    """``inst`` with the AGPR fields ``names`` renamed to unified-file registers and ACC bits cleared."""
    overrides = [(name, inst[name] + offset) for name in names]
    overrides += [(bit, 0) for bit in ("acc", "acc_cd") if inst.fmt.field(bit) is not None]
    return Rebased(inst.isa, inst.fmt, inst.idef, inst.word, inst.size, inst.offset, inst.idef_y, tuple(overrides))


def _ordinary_handler(inst: Instruction) -> Handler:
    for make in FACTORIES:
        if make is agpr_operands:
            continue
        handler = make(inst)
        if handler is not None:
            return handler
    raise Unsupported(f"no semantics for {inst.name} ({inst.fmt.name})")


def _check_range(ctx: Context, inst: Instruction, last: int) -> None:
    if last >= ctx.waves.vgpr.shape[1]:
        raise ExecutionError(f"{inst.name}: unified register {last} (an AGPR) is beyond the wave's "
                             f"{ctx.waves.vgpr.shape[1]} VGPRs")


def _move(inst: Instruction) -> Handler:
    """v_accvgpr_read/write/mov_b32: D = S in the active lanes (mov's DPP16 form permutes S first)."""
    name = inst.name
    to_agpr, from_agpr = not name.startswith("V_ACCVGPR_READ"), not name.startswith("V_ACCVGPR_WRITE")
    permutation = dpp.for_instruction(inst, inst.isa.wave_size)
    if inst.fmt.name != inst.isa.root_of(inst.fmt) and permutation is None:
        raise Unsupported(f"{name} in {inst.fmt.name} form")
    source = inst["vsrc0"] + opnd.VGPR_BASE if permutation is not None else inst["src0"]
    if from_agpr and source < opnd.VGPR_BASE:
        raise ValueError(f"{name}: the source must be an AGPR")
    dest = inst["vdst"]

    def run(ctx: Context, waves: np.ndarray) -> None:
        base = accum_base(ctx, inst) if from_agpr or to_agpr else 0
        value = source + (base if from_agpr else 0)
        reg = dest + (base if to_agpr else 0)
        _check_range(ctx, inst, max(reg, value - opnd.VGPR_BASE))
        active = ctx.waves.exec_mask(waves)
        data = opnd.read_vector(ctx, waves, value, 32, "FMT_NUM_B32")
        if permutation is not None:
            data = permutation.permute(np.ascontiguousarray(data), active)
            active = permutation.writable(active)
        opnd.write_vector(ctx, waves, reg, data, 32, active)
        ctx.waves.pc[waves] += inst.size

    return run


@factory
def agpr_operands(inst: Instruction):
    if inst.isa.arch != "cdna":
        return None
    if inst.name.startswith(MOVES):
        return _move(inst)
    names = agpr_fields(inst)
    if not names:
        return None
    _ordinary_handler(rebased(inst, names, 0))  # stops here, not at run time, when the rest is not emulated
    widths = {o.field: max(1, o.bits // 32) for o in inst.idef.operands}
    built: dict[int, Handler] = {}

    def run(ctx: Context, waves: np.ndarray) -> None:
        offset = accum_base(ctx, inst)
        handler = built.get(offset)
        if handler is None:
            target = rebased(inst, names, offset)
            _check_range(ctx, inst, max(target[n] - (opnd.VGPR_BASE if n in SOURCE_FIELDS else 0)
                                        + widths.get(n, 1) - 1 for n in names))
            handler = built[offset] = _ordinary_handler(target)
        handler(ctx, waves)

    return run
