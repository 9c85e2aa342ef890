"""Scalar memory loads, and the vector memory loads and stores of the FLAT family: GLOBAL, SCRATCH
and FLAT (manual: the manual's prose on address calculation; the pseudocode's ADDR is written here
once per family, MEM is a segment of segments.py).

SMEM: ADDR = SGPR pair (or a buffer descriptor's base) + immediate offset + SGPR offset (gfx9 with
  imm = 0 and no soffset: the offset field names an SGPR instead).
GLOBAL: ADDR = (SGPR pair + 32-bit VGPR offset) or (64-bit VGPR address, saddr off) + signed immediate;
  GLOBAL_*_ADDTID: SGPR pair + immediate + lane * 4.
SCRATCH: a 32-bit offset in the lane's private segment: SGPR (unless off) + VGPR (when the SVE bit is
  set) + signed immediate.
FLAT: 64-bit VGPR address + immediate (unsigned on CDNA, whose FLAT offset field has no sign bit); the
  address's aperture picks global memory, LDS or scratch (segments.flat_split).
Widths and types come from the mnemonic (lane_data.py). gfx12 names the fields vaddr/vsrc/ioffset.
"""
from __future__ import annotations

import numpy as np

from gpubench.emu.context import Context
from gpubench.emu.ops import Unsupported, factory
from gpubench.emu.ops import operands as opnd
from gpubench.emu.ops.lane_data import SUBDWORD, data_access, from_vgprs, to_vgprs
from gpubench.emu.ops.segments import GLOBAL, PRIVATE, Lanes, Segment, flat_split
from gpubench.isa.decoder import Instruction

NULL_RDNA, NULL_CDNA_OFF = 124, 0x7F
VECTOR_FAMILIES = {"GLOBAL": "global", "VGLOBAL": "global", "SCRATCH": "scratch", "VSCRATCH": "scratch",
                   "FLAT": "flat", "VFLAT": "flat"}


def signed(value: int, bits: int) -> int:
    return value - (1 << bits) if value >> (bits - 1) & 1 else value


def smem_address(ctx: Context, inst: Instruction, waves: np.ndarray) -> np.ndarray:
    base = opnd.read_scalar(ctx, waves, inst["sbase"] * 2, 64)
    if inst.name.startswith("S_BUFFER_"):  # sbase names a buffer descriptor: base address in bits 47:0
        base = opnd.read_scalar(ctx, waves, inst["sbase"] * 2, 64) & np.uint64((1 << 48) - 1)
    name = "ioffset" if inst.fmt.field("ioffset") else "offset"
    offset = signed(inst[name], inst.fmt.field(name).width)
    if inst.get("imm", 1) == 0 and not inst.get("soffset_en"):  # gfx9: an SGPR in the offset field
        address = base + opnd.read_scalar(ctx, waves, inst[name] & 0x7F, 32).astype(np.uint64)
    else:
        address = base + np.uint64(offset & 0xFFFFFFFFFFFFFFFF)
    soffset = inst.get("soffset")
    uses_soffset = inst.get("soffset_en", 1) if inst.isa.arch == "cdna" else soffset != NULL_RDNA
    if soffset is not None and uses_soffset:
        address = address + opnd.read_scalar(ctx, waves, soffset, 32).astype(np.uint64)
    return address


@factory
def scalar_load(inst: Instruction):
    if inst.isa.root_of(inst.fmt) != "SMEM" or "LOAD" not in inst.name:
        return None
    dwords = inst.idef.operand("sdata").bits // 32
    sub_dword = SUBDWORD.get(inst.name.rsplit("_", 1)[-1])  # gfx12's s_load_u8/i8/u16/i16: (bytes, signed)

    def run(ctx: Context, waves: np.ndarray) -> None:
        address = smem_address(ctx, inst, waves)
        if sub_dword is None:
            data = ctx.memory.read(address, 4 * dwords).view(np.uint32)
        else:  # one byte or half, zero- or sign-extended into the SGPR
            size, signed = sub_dword
            dtype = np.dtype(f"{'i' if signed else 'u'}{size}")
            data = ctx.memory.read(address, size).view(dtype).astype(np.int64).astype(np.uint32).reshape(-1, 1)
        reg = inst["sdata"]
        if reg < 124:
            ctx.waves.sgpr[waves, reg:reg + dwords] = data
        ctx.waves.pc[waves] += inst.size

    return run


def field(inst: Instruction, *names: str) -> int:
    """The first of ``names`` the encoding has (gfx12 renamed addr/data/offset to vaddr/vsrc/ioffset)."""
    for name in names:
        value = inst.get(name)
        if value is not None:
            return value
    raise KeyError(f"{inst.fmt.name} has none of {names}")


def immediate_offset(inst: Instruction) -> int:
    name = "ioffset" if inst.fmt.field("ioffset") else "offset"
    width = inst.fmt.field(name).width
    family = VECTOR_FAMILIES[inst.isa.root_of(inst.fmt)]
    return inst[name] if family == "flat" and inst.isa.arch == "cdna" else signed(inst[name], width)


def saddr_register(inst: Instruction) -> int | None:
    """The SGPR base, or None when the field says off/NULL."""
    saddr = inst["saddr"]
    if inst.isa.arch == "cdna":
        return None if saddr == NULL_CDNA_OFF else saddr
    return None if saddr >= NULL_RDNA else saddr


def vector_address(ctx: Context, inst: Instruction, waves: np.ndarray) -> np.ndarray:
    """[waves, lanes] uint64: the address (SCRATCH: the private-segment offset) each lane accesses."""
    family = VECTOR_FAMILIES[inst.isa.root_of(inst.fmt)]
    immediate = np.uint64(immediate_offset(inst) & 0xFFFFFFFFFFFFFFFF)
    saddr = saddr_register(inst)
    vaddr = field(inst, "addr", "vaddr") if inst.idef.operand("addr") or inst.idef.operand("vaddr") else None
    if family == "scratch":
        offset = np.full((len(waves), ctx.waves.wave_size), immediate, np.uint64)
        if saddr is not None:
            offset += ctx.waves.sgpr[waves, saddr].astype(np.uint64)[:, None]
        if inst.get("sve"):
            offset += ctx.waves.vgpr[waves, vaddr, :].astype(np.uint64)
        return offset & np.uint64(0xFFFFFFFF)
    if vaddr is None:  # GLOBAL_*_ADDTID: saddr (or 0 with saddr off) + the lane's id * 4
        lane_bytes = np.arange(ctx.waves.wave_size, dtype=np.uint64) * np.uint64(4)
        base = opnd.read_scalar(ctx, waves, saddr, 64) if saddr is not None else np.zeros(len(waves), np.uint64)
        return base[:, None] + lane_bytes[None, :] + immediate
    if saddr is None or family == "flat":
        return opnd.read_vector(ctx, waves, vaddr + opnd.VGPR_BASE, 64) + immediate
    offset = ctx.waves.vgpr[ctx.waves.rows(waves), vaddr, :].astype(np.uint64)  # rows: a view when all waves run
    offset += opnd.read_scalar(ctx, waves, saddr, 64)[:, None]
    offset += immediate
    return offset


def vector_segments(ctx: Context, inst: Instruction, waves: np.ndarray) -> list[tuple[Segment, Lanes]]:
    """The active lanes of a FLAT-family access, by the segment each one reaches."""
    lanes = Lanes.active(ctx, waves, vector_address(ctx, inst, waves))
    family = VECTOR_FAMILIES[inst.isa.root_of(inst.fmt)]
    if family == "flat":
        return flat_split(lanes)
    return [(PRIVATE if family == "scratch" else GLOBAL, lanes)]


def check_data_registers(inst: Instruction) -> None:
    """AGPR data (CDNA's ACC bit) reaches the handlers renamed to unified-file VGPRs, ACC cleared
    (accvgpr.py): a set ACC bit here means an instruction that bypassed that."""
    if inst.get("acc"):
        raise Unsupported(f"{inst.name}: AGPR data not renamed to unified-file VGPRs")


@factory
def vector_load_store(inst: Instruction):
    if inst.isa.root_of(inst.fmt) not in VECTOR_FAMILIES or "_ATOMIC_" in inst.name:
        return None
    tokens = inst.name.split("_")
    load = tokens[1] == "LOAD"
    if not load and tokens[1] != "STORE":
        return None  # GLOBAL_INV/WB: control.py
    if "BLOCK" in tokens:
        return None  # block_memory.py
    if any(t in tokens for t in ("LDS", "TR")):
        raise Unsupported(f"{inst.name} is not emulated (LDS DMA, transposing loads)")
    check_data_registers(inst)
    data = inst.idef.operand("vdst") if load else inst.idef.operand("data") or inst.idef.operand("vsrc")
    access = data_access(inst.name, data.bits)
    register = data.field

    def run(ctx: Context, waves: np.ndarray) -> None:
        for segment, lanes in vector_segments(ctx, inst, waves):
            if load:
                to_vgprs(ctx, lanes, inst[register], segment.read(ctx, lanes, access.size), access)
            else:
                segment.write(ctx, lanes, from_vgprs(ctx, lanes, inst[register], access))
        ctx.waves.pc[waves] += inst.size

    return run
