"""MUBUF / VBUFFER loads, stores and atomics through a buffer resource (V#), with the hardware's range
check (manual: the ISA manuals' "Buffer Instructions" prose; the data moves as lane_data.py says, the
atomics update as rmw.py says).

The V# (four SGPRs): base address in bits 47:0, stride in 61:48, swizzle enable in 63:62 (RDNA; CDNA's
is bit 63), num_records in dword 2; dword 3 holds ADD_TID_ENABLE (bit 23) and, on RDNA, OOB_SELECT
(bits 29:28). Swizzled buffers and typed (FORMAT) accesses are not emulated.

Address, swizzling off:
    index  = (idxen ? VGPR[vaddr] : 0) + (ADD_TID_ENABLE ? lane : 0)
    offset = (offen ? VGPR[vaddr + idxen] : 0) + instruction offset
    ADDR   = base + soffset + offset + index * stride
Range check (soffset takes no part in it, as LLVM's buffer intrinsics document). Out of range, a load
returns 0 and a store or atomic does nothing (and an atomic returns 0): the hardware drops the access,
it never faults. Loads and stores of several dwords check each dword on its own, atomics the whole
access.
- RDNA, by OOB_SELECT: 0 index >= num_records or offset + size > stride; 1 index >= num_records;
  2 num_records == 0 (no check otherwise); 3 (raw) the byte index * stride + offset + size > num_records.
- CDNA: with idxen, index >= num_records (records); without, offset + size > num_records (bytes).
"""
from __future__ import annotations

import numpy as np

from gpubench.emu.context import Context
from gpubench.emu.ops import Unsupported, factory
from gpubench.emu.ops import operands as opnd
from gpubench.emu.ops.atomics import returns_prior_value
from gpubench.emu.ops.lane_data import (
    DataAccess,
    data_access,
    dwords_to_words,
    from_vgprs,
    read_dwords,
    to_vgprs,
    words_to_dwords,
    write_dwords,
)
from gpubench.emu.ops.memory_ops import check_data_registers
from gpubench.emu.ops.rmw import atomic, atomic_op
from gpubench.emu.ops.segments import GLOBAL, Lanes
from gpubench.isa.decoder import Instruction

BUFFER_FORMATS = ("MUBUF", "MTBUF", "VBUFFER")


class Resource:
    """The fields of one V# per wave."""

    def __init__(self, ctx: Context, inst: Instruction, waves: np.ndarray):
        first = inst["rsrc"] if inst.fmt.field("rsrc") is not None else inst["srsrc"] * 4
        words = ctx.waves.sgpr[waves, first:first + 4].astype(np.uint64)
        self.base = words[:, 0] | ((words[:, 1] & np.uint64(0xFFFF)) << np.uint64(32))
        self.stride = (words[:, 1] >> np.uint64(16)) & np.uint64(0x3FFF)
        rdna = inst.isa.arch != "cdna"
        self.swizzled = (words[:, 1] >> np.uint64(30 if rdna else 31)) != 0
        self.records = words[:, 2]
        self.add_tid = (words[:, 3] >> np.uint64(23)) & np.uint64(1)
        self.oob_select = (words[:, 3] >> np.uint64(28)) & np.uint64(3) if rdna else None


def _addresses(ctx: Context, inst: Instruction, waves: np.ndarray, resource: Resource):
    """Per wave and lane: (address without the range check, index, offset), uint64 [waves, lanes]."""
    shape = (len(waves), ctx.waves.wave_size)
    vaddr = inst["vaddr"]
    index = np.zeros(shape, np.uint64)
    if inst["idxen"]:
        index += ctx.waves.vgpr[waves, vaddr, :]
    index += resource.add_tid[:, None] * np.arange(shape[1], dtype=np.uint64)[None, :]
    offset = np.full(shape, inst["ioffset"] if inst.fmt.field("ioffset") else inst["offset"], np.uint64)
    if inst["offen"]:
        offset += ctx.waves.vgpr[waves, vaddr + inst["idxen"], :]
    offset &= np.uint64(0xFFFFFFFF)
    soffset = opnd.read_scalar(ctx, waves, inst["soffset"], 32).astype(np.uint64)
    address = resource.base[:, None] + soffset[:, None] + offset + index * resource.stride[:, None]
    return address, index, offset


def _in_range(records: np.ndarray, stride: np.ndarray, select: np.ndarray | None, indexed: bool,
              index: np.ndarray, offset: np.ndarray, size: int) -> np.ndarray:
    """Whether bytes [offset, offset + size) of each lane's record pass the range check (all arguments
    per lane; ``select`` is OOB_SELECT, None on CDNA)."""
    end = offset + np.uint64(size)
    if select is None:  # CDNA: idxen chooses records or bytes
        return index < records if indexed else end <= records
    return np.select([select == 0, select == 1, select == 2],
                     [(index < records) & (end <= stride), index < records, records != 0],
                     index * stride + end <= records)


@factory
def buffer_memory(inst: Instruction):
    if inst.isa.root_of(inst.fmt) not in BUFFER_FORMATS:
        return None
    name, tokens = inst.name, inst.name.split("_")
    if tokens[1] in ("GL0", "GL1", "WBL2", "INV", "WBINVL1"):
        return None  # cache control: control.py
    if "FORMAT" in tokens or inst.isa.root_of(inst.fmt) == "MTBUF":
        raise Unsupported(f"{name}: typed (FORMAT) buffer accesses are not emulated")
    if "LDS" in tokens or inst.get("lds") or inst.get("tfe"):
        raise Unsupported(f"{name}: buffer loads to LDS and TFE are not emulated")
    check_data_registers(inst)
    op = atomic_op(name) if tokens[1] == "ATOMIC" else None
    if tokens[1] == "ATOMIC" and op is None:
        raise Unsupported(f"{name} is not emulated")
    load = tokens[1] == "LOAD"
    access = DataAccess(op.size) if op else data_access(name, inst.idef.operand("vdata").bits)
    returns = op is not None and returns_prior_value(inst)

    def run(ctx: Context, waves: np.ndarray) -> None:
        resource = Resource(ctx, inst, waves)
        if resource.swizzled.any():
            raise Unsupported(f"{name}: swizzled buffers are not emulated")
        address, index, offset = _addresses(ctx, inst, waves, resource)
        rows, lane = np.nonzero(ctx.waves.exec_mask(waves))
        lanes = Lanes(waves[rows], lane, address[rows, lane])
        select = None if resource.oob_select is None else resource.oob_select[rows]

        def in_range(start: int, size: int) -> np.ndarray:
            return _in_range(resource.records[rows], resource.stride[rows], select, bool(inst["idxen"]),
                             index[rows, lane], offset[rows, lane] + np.uint64(start), size)

        if op is not None:
            _atomic(ctx, inst, op, lanes, in_range(0, op.size), returns)
        elif load:
            raw = np.zeros((len(lanes), access.size), np.uint8)
            for start, size in _pieces(access):
                ok = in_range(start, size)
                part = lanes.take(ok)
                raw[ok, start:start + size] = GLOBAL.read(ctx, part.at(part.address + np.uint64(start)), size)
            to_vgprs(ctx, lanes, inst["vdata"], raw, access)
        else:
            data = from_vgprs(ctx, lanes, inst["vdata"], access)
            for start, size in _pieces(access):
                ok = in_range(start, size)
                part = lanes.take(ok)
                GLOBAL.write(ctx, part.at(part.address + np.uint64(start)), data[ok, start:start + size])
        ctx.waves.pc[waves] += inst.size

    return run


def _pieces(access: DataAccess) -> list[tuple[int, int]]:
    """The (start, size) pieces range-checked on their own: each dword of a multi-dword access."""
    if access.size <= 4:
        return [(0, access.size)]
    return [(start, 4) for start in range(0, access.size, 4)]


def _atomic(ctx: Context, inst: Instruction, op, lanes: Lanes, ok: np.ndarray, returns: bool) -> None:
    dwords = op.bits // 32
    data = inst["vdata"]
    a = dwords_to_words(read_dwords(ctx, lanes, data, dwords))
    b = dwords_to_words(read_dwords(ctx, lanes, data + dwords, dwords)) if op.operands == 2 else a
    before = np.zeros(len(lanes), np.uint64)
    chosen = np.flatnonzero(ok)
    before[chosen] = atomic(ctx, GLOBAL, lanes.take(chosen), op, a[chosen], b[chosen])
    if returns:
        write_dwords(ctx, lanes, data, words_to_dwords(before, dwords))
