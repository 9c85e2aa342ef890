"""Loads into LDS ("LDS DMA": gfx11's GLOBAL_LOAD_LDS_*, SCRATCH_LOAD_LDS_*, BUFFER_LOAD_LDS_*, and gfx942/
gfx950's GLOBAL_LOAD_LDS_*, SCRATCH_LOAD_LDS_* and MUBUF loads with the lds bit: BUFFER_LOAD_{U,S}BYTE,
_{U,S}SHORT, _DWORD, _FORMAT_X, gfx950's _DWORDX3/X4, whose vdata is not written), and the
GLOBAL_*_ADDTID_B32 operations the spec also lists in the FLAT encoding (manual: the ISA manuals' prose;
the pseudocode has none for the loads into LDS).

Each active lane reads memory as the plain load would (addresses: memory_ops.vector_segments for GLOBAL
and SCRATCH, buffer.BufferAccess with its range check for BUFFER, where out of range reads 0) and
writes its data to LDS at
    LDS_ADDR = M0 + instruction offset + lane * size
(the manuals' "LDS_ADDR = LDSbase + LDS_offset + inst_offset + TID*4"; LLVM documents the immediate
offset as applied to both addresses). M0 is M0[15:0] on gfx11 (its 64 KiB LDS), the whole M0 on gfx9
(the LDS pointer LLVM writes there; gfx950's LDS is 160 KiB). The data is one dword, the value a VGPR
load would get (U8/U16 zero-, I8/I16 sign-extended; BUFFER_LOAD_LDS_FORMAT_X's X converted as
buffer_format.py does), or gfx950's DWORDX3/DWORDX4: 12 or 16 bytes a lane, each lane's after the
previous one's (size 12 or 16 in the address). LDS bytes beyond the allocation are dropped
(segments.LOCAL); a faulting global or scratch read writes no LDS.

The FLAT-encoded (gfx12: VFLAT) GLOBAL_LOAD/STORE_ADDTID_B32 address as the GLOBAL ones do (SGPR pair +
offset + lane * 4), resolved through the flat apertures.
"""
from __future__ import annotations

import numpy as np

from gpubench.emu.context import Context
from gpubench.emu.ops import factory
from gpubench.emu.ops.buffer import BUFFER_FORMATS, BufferAccess
from gpubench.emu.ops.buffer_format import by_format, fetch
from gpubench.emu.ops.lane_data import DataAccess, data_access, from_vgprs, to_vgprs
from gpubench.emu.ops.lds import M0_CDNA, M0_RDNA
from gpubench.emu.ops.memory_ops import VECTOR_FAMILIES, field, vector_segments
from gpubench.emu.ops.segments import LOCAL, Lanes
from gpubench.isa.decoder import Instruction


def _widen(raw: np.ndarray, access: DataAccess) -> np.ndarray:
    """[lanes, size] loaded bytes as the bytes LDS receives: a sub-dword widened as a VGPR load would."""
    raw = np.ascontiguousarray(raw)
    if access.size >= 4:
        return raw
    dtype = {(1, False): np.uint8, (1, True): np.int8, (2, False): np.uint16, (2, True): np.int16}[
        (access.size, access.signed)]
    return _dword_bytes(raw.view(dtype)[:, 0].astype(np.int64).astype(np.uint32))


def _dword_bytes(values: np.ndarray) -> np.ndarray:
    return values.astype("<u4")[:, None].view(np.uint8)


def _offset(inst: Instruction) -> int:
    """The immediate offset: signed in GLOBAL/SCRATCH, unsigned in MUBUF."""
    value, width = inst["offset"], inst.fmt.field("offset").width
    signed = inst.isa.root_of(inst.fmt) in VECTOR_FAMILIES and value >> (width - 1) & 1
    return value - (1 << width) if signed else value


def _write_lds(ctx: Context, inst: Instruction, lanes: Lanes, data: np.ndarray) -> None:
    """Each lane's [lanes, size] bytes at M0 + offset + lane * size."""
    cdna = inst.isa.arch == "cdna"
    m0 = ctx.waves.sgpr[lanes.wave, M0_CDNA if cdna else M0_RDNA].astype(np.int64) & (0xFFFFFFFF if cdna else 0xFFFF)
    address = (m0 + _offset(inst) + lanes.lane.astype(np.int64) * data.shape[1]) & 0xFFFFFFFF
    LOCAL.write(ctx, lanes.at(address.astype(np.uint64)), data)


@factory
def load_to_lds(inst: Instruction):
    root = inst.isa.root_of(inst.fmt)
    tokens = inst.name.split("_")
    gfx9_lds_bit = tokens[1] == "LOAD" and inst.get("lds")
    if root not in (*VECTOR_FAMILIES, *BUFFER_FORMATS) or (tokens[1:3] != ["LOAD", "LDS"] and not gfx9_lds_bit):
        return None
    data = inst.idef.operand("vdst") or inst.idef.operand("vdata")  # DWORDX3/X4: 96/128 bits; others 32 or none
    access = data_access(inst.name, data.bits if data is not None else 32)

    def run(ctx: Context, waves: np.ndarray) -> None:
        if root not in BUFFER_FORMATS:
            for segment, lanes in vector_segments(ctx, inst, waves):
                _write_lds(ctx, inst, lanes, _widen(segment.read(ctx, lanes, access.size), access))
        elif "FORMAT" in tokens:
            for fmt, group in by_format(ctx, inst, waves, None):
                buffer = BufferAccess(ctx, inst, group)
                _write_lds(ctx, inst, buffer.lanes, _dword_bytes(fetch(ctx, buffer, fmt, 1, False)[:, 0]))
        else:
            buffer = BufferAccess(ctx, inst, waves)
            _write_lds(ctx, inst, buffer.lanes, _widen(buffer.read(ctx, access.size), access))
        ctx.waves.pc[waves] += inst.size

    return run


@factory
def flat_addtid(inst: Instruction):
    """GLOBAL_LOAD/STORE_ADDTID_B32 in the FLAT (gfx12: VFLAT) encoding, whose spec entry lists no operands."""
    if inst.isa.root_of(inst.fmt) not in ("FLAT", "VFLAT") or \
            inst.name not in ("GLOBAL_LOAD_ADDTID_B32", "GLOBAL_STORE_ADDTID_B32"):
        return None
    load, access = "LOAD" in inst.name, DataAccess(4)

    def run(ctx: Context, waves: np.ndarray) -> None:
        for segment, lanes in vector_segments(ctx, inst, waves):
            if load:
                to_vgprs(ctx, lanes, inst["vdst"], segment.read(ctx, lanes, 4), access)
            else:
                segment.write(ctx, lanes, from_vgprs(ctx, lanes, field(inst, "data", "vsrc"), access))
        ctx.waves.pc[waves] += inst.size

    return run
