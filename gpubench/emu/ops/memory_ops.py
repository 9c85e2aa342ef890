"""Scalar and global memory loads and stores (the manual's prose: the pseudocode's ADDR is the
hardware's address calculation, written here once per family).

SMEM: ADDR = SGPR pair (or a buffer descriptor's base) + immediate offset + SGPR offset.
GLOBAL: ADDR = (SGPR pair + 32-bit VGPR offset) or (64-bit VGPR address) + signed immediate.
FLAT: ADDR = 64-bit VGPR address + immediate.
Widths come from the operand tables; signedness and 16-bit halves from the mnemonic.
"""
from __future__ import annotations

from contextlib import contextmanager

import numpy as np

from gpubench.emu.context import Context
from gpubench.emu.ops import factory
from gpubench.emu.ops import operands as opnd
from gpubench.isa.decoder import Instruction

NULL_RDNA, NULL_CDNA_OFF = 124, 0x7F
SUBDWORD = {"U8": (1, False), "I8": (1, True), "U16": (2, False), "I16": (2, True), "B8": (1, False),
            "B16": (2, False)}


def _signed(value: int, bits: int) -> int:
    return value - (1 << bits) if value >> (bits - 1) & 1 else value


def _smem_address(ctx: Context, inst: Instruction, waves: np.ndarray) -> np.ndarray:
    base = opnd.read_scalar(ctx, waves, inst["sbase"] * 2, 64)
    if inst.name.startswith("S_BUFFER_"):  # sbase names a buffer descriptor: base address in bits 47:0
        base = opnd.read_scalar(ctx, waves, inst["sbase"] * 2, 64) & np.uint64((1 << 48) - 1)
    offset_field = inst.fmt.field("offset")
    address = base + np.uint64(_signed(inst["offset"], offset_field.width) & 0xFFFFFFFFFFFFFFFF)
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

    def run(ctx: Context, waves: np.ndarray) -> None:
        data = ctx.memory.read(_smem_address(ctx, inst, waves), 4 * dwords).view(np.uint32)
        reg = inst["sdata"]
        if reg < 124:
            ctx.waves.sgpr[waves, reg:reg + dwords] = data
        ctx.waves.pc[waves] += inst.size

    return run


def _global_address(ctx: Context, inst: Instruction, waves: np.ndarray) -> np.ndarray:
    """[waves, lanes] uint64 addresses."""
    saddr = inst["saddr"]
    off = NULL_CDNA_OFF if inst.isa.arch == "cdna" else NULL_RDNA
    offset = np.uint64(_signed(inst["offset"], inst.fmt.field("offset").width) & 0xFFFFFFFFFFFFFFFF)
    if saddr == off or saddr >= 0x7C and inst.isa.arch != "cdna":
        address = opnd.read_vector(ctx, waves, inst["addr"] + opnd.VGPR_BASE, 64)
    else:
        vofs = ctx.waves.vgpr[waves, inst["addr"], :].astype(np.uint64)
        address = opnd.read_scalar(ctx, waves, saddr, 64)[:, None] + vofs
    return address + offset


@contextmanager
def naming_lanes(ctx: Context, wave_of_access: np.ndarray, lane_of_access: np.ndarray):
    """A fault in a flattened per-lane access names the wave and lane it came from."""
    from gpubench.emu.memory import PageFault
    try:
        yield
    except PageFault as fault:
        if fault.lane is not None:
            wave = int(wave_of_access[fault.lane])
            fault.context.update(wave=int(ctx.waves.wave_id[wave]), workgroup=int(ctx.waves.workgroup[wave]))
            fault.lane = int(lane_of_access[fault.lane])
        raise


def _access(inst: Instruction) -> tuple[int, bool, bool]:
    """(bytes per lane, sign-extend, into the high 16 bits) for a load or store.

    GLOBAL_LOAD_D16_HI_U8 loads one byte zero-extended into bits 31:16; GLOBAL_STORE_B16_D16_HI
    stores bits 31:16; a plain B16/U8/I8 access uses the low bits.
    """
    high = "_D16_HI" in inst.name
    suffix = inst.name.removesuffix("_D16_HI").rsplit("_", 1)[-1]
    if suffix in SUBDWORD:
        return *SUBDWORD[suffix], high
    data = inst.idef.operand("vdst") or inst.idef.operand("data")
    return data.bits // 8, False, high


@factory
def global_memory(inst: Instruction):
    root = inst.isa.root_of(inst.fmt)
    # FLAT addresses are treated as global ones: an address in the LDS or scratch aperture is unmapped
    # in the emulator's address space and faults, naming it.
    if root not in ("GLOBAL", "VGLOBAL", "FLAT", "VFLAT") or not ("_LOAD_" in inst.name or "_STORE_" in inst.name) \
            or "_LDS_" in inst.name or "ADDTID" in inst.name:
        return None
    size, signed, high = _access(inst)
    load = "_LOAD_" in inst.name

    def run(ctx: Context, waves: np.ndarray) -> None:
        active = ctx.waves.exec_mask(waves)
        address = _global_address(ctx, inst, waves)
        wave_index, lane = np.nonzero(active)
        lane_addresses = address[wave_index, lane]
        vgpr = ctx.waves.vgpr
        w = waves[wave_index]
        with naming_lanes(ctx, w, lane):
            transfer(ctx, w, lane, lane_addresses)
        ctx.waves.pc[waves] += inst.size

    def transfer(ctx: Context, w: np.ndarray, lane: np.ndarray, lane_addresses: np.ndarray) -> None:
        vgpr = ctx.waves.vgpr
        if load:
            raw = ctx.memory.read(lane_addresses, size)
            dest = inst["vdst"]
            if size >= 4:
                vgpr[w, dest:dest + size // 4, lane] = raw.view(np.uint32).reshape(-1, size // 4)
            else:
                value = raw.view(np.uint8 if size == 1 else np.uint16).reshape(-1).astype(np.uint32)
                if signed:
                    value = (value.astype(np.int32) << (32 - 8 * size) >> (32 - 8 * size)).astype(np.uint32)
                if high:
                    vgpr[w, dest, lane] = (vgpr[w, dest, lane] & 0xFFFF) | (value << 16)
                elif "_D16" in inst.name:
                    vgpr[w, dest, lane] = (vgpr[w, dest, lane] & 0xFFFF0000) | (value & 0xFFFF)
                else:
                    vgpr[w, dest, lane] = value
        else:
            src = inst["data"]
            words = vgpr[w, src:src + max(1, size // 4), lane]
            if high:
                words = words >> 16
            data = np.ascontiguousarray(words, dtype=np.uint32).view(np.uint8).reshape(len(w), -1)
            ctx.memory.write(lane_addresses, data[:, :size])

    return run
