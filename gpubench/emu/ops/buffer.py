"""MUBUF / VBUFFER loads, stores and atomics through a buffer resource (V#), with the hardware's range
check (manual: the ISA manuals' "Buffer Instructions" prose; the data moves as lane_data.py says, the
atomics update as rmw.py says).

The V# (four SGPRs): base address in bits 47:0, stride in 61:48, swizzle enable in 63:62 (RDNA; CDNA's
is bit 63), num_records in dword 2; dword 3 holds ADD_TID_ENABLE (bit 23) and, on RDNA, OOB_SELECT
(bits 29:28). Swizzled buffers are not emulated; typed (FORMAT) accesses are buffer_format.py's, loads
to LDS lds_dma.py's (both through `BufferAccess`).

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
        self.word3 = words[:, 3]  # RDNA: DST_SEL_X..W (bits 11:0) and FORMAT (18:12), for buffer_format.py


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


class BufferAccess:
    """The active lanes of one buffer instruction, their addresses and the range check."""

    def __init__(self, ctx: Context, inst: Instruction, waves: np.ndarray):
        resource = Resource(ctx, inst, waves)
        if resource.swizzled.any():
            raise Unsupported(f"{inst.name}: swizzled buffers are not emulated")
        address, index, offset = _addresses(ctx, inst, waves, resource)
        rows, lane = np.nonzero(ctx.waves.exec_mask(waves))
        self.rows = rows  # each lane's row in the per-wave arrays (resource fields)
        self.lanes = Lanes(waves[rows], lane, address[rows, lane])
        self.resource = resource
        self._check = (resource.records[rows], resource.stride[rows],
                       None if resource.oob_select is None else resource.oob_select[rows],
                       bool(inst["idxen"]), index[rows, lane], offset[rows, lane])

    def in_range(self, start: int, size: int) -> np.ndarray:
        records, stride, select, indexed, index, offset = self._check
        return _in_range(records, stride, select, indexed, index, offset + np.uint64(start), size)

    def read(self, ctx: Context, size: int) -> np.ndarray:
        """[lanes, size] bytes from each lane's address; pieces out of range read 0."""
        raw = np.zeros((len(self.lanes), size), np.uint8)
        for start, piece in pieces(size):
            ok = self.in_range(start, piece)
            part = self.lanes.take(ok)
            raw[ok, start:start + piece] = GLOBAL.read(ctx, part.at(part.address + np.uint64(start)), piece)
        return raw

    def write(self, ctx: Context, data: np.ndarray, start: int = 0) -> None:
        """Store [lanes, n] bytes at each lane's address + ``start``; pieces out of range are dropped."""
        for first, piece in pieces(data.shape[1]):
            ok = self.in_range(start + first, piece)
            part = self.lanes.take(ok)
            GLOBAL.write(ctx, part.at(part.address + np.uint64(start + first)), data[ok, first:first + piece])


@factory
def buffer_memory(inst: Instruction):
    if inst.isa.root_of(inst.fmt) not in BUFFER_FORMATS:
        return None
    name, tokens = inst.name, inst.name.split("_")
    if tokens[1] in ("GL0", "GL1", "WBL2", "INV", "WBINVL1"):
        return None  # cache control: control.py
    if "FORMAT" in tokens or inst.isa.root_of(inst.fmt) == "MTBUF" or "LDS" in tokens or inst.get("lds"):
        return None  # typed: buffer_format.py; loads to LDS (gfx11's, gfx9's lds bit): lds_dma.py
    if inst.get("tfe"):
        raise Unsupported(f"{name}: TFE is not emulated")
    check_data_registers(inst)
    op = atomic_op(name) if tokens[1] == "ATOMIC" else None
    if tokens[1] == "ATOMIC" and op is None:
        raise Unsupported(f"{name} is not emulated")
    load = tokens[1] == "LOAD"
    access = DataAccess(op.size) if op else data_access(name, inst.idef.operand("vdata").bits)
    returns = op is not None and returns_prior_value(inst)

    def run(ctx: Context, waves: np.ndarray) -> None:
        buffer = BufferAccess(ctx, inst, waves)
        if op is not None:
            _atomic(ctx, inst, op, buffer.lanes, buffer.in_range(0, op.size), returns)
        elif load:
            to_vgprs(ctx, buffer.lanes, inst["vdata"], buffer.read(ctx, access.size), access)
        else:
            buffer.write(ctx, from_vgprs(ctx, buffer.lanes, inst["vdata"], access))
        ctx.waves.pc[waves] += inst.size

    return run


def pieces(size: int) -> list[tuple[int, int]]:
    """The (start, size) pieces range-checked on their own: each dword of a multi-dword access."""
    if size <= 4:
        return [(0, size)]
    return [(start, min(4, size - start)) for start in range(0, size, 4)]


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
