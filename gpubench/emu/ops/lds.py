"""Every DS instruction: LDS loads and stores, LDS atomics, append/consume, and the cross-lane
permutes and swizzle that use the DS encoding without touching LDS (manual: the pseudocode's MEM is
the workgroup's LDS, see segments.py for out-of-range addresses).

Addresses (RDNA3/CDNA3 ISA manuals; gfx9 and later need no M0 for LDS):
- one address: VGPR[addr] + offset, the 16-bit offset1:offset0;
- two addresses (2ADDR, READ2/WRITE2): VGPR[addr] + offsetN * element size, times 64 for STRIDE64/ST64;
- ADDTID: offset + M0[15:0] + lane * 4; APPEND/CONSUME: M0[15:0] + offset, one update per wave by the
  number of active lanes, every active lane getting the prior value.
Atomic data: DATA is data0, DATA2 data1; CDNA's DS_CMPST takes the compare value in data0, RDNA's
DS_CMPSTORE in data1 (their pseudocode).
Cross-lane (the RDNA3 pseudocode): ds_bpermute lane i reads lane (VGPR[addr] + offset) / 4 mod 32,
0 if that lane is inactive; ds_permute writes lane i's data to that lane (the highest source wins,
0 where no lane wrote). RDNA runs a wave64 permute as two wave32 halves, so each half addresses its own
32 lanes (the RDNA3 manual: "destination lane is MOD 32 regardless of wave size"); CDNA's waves are
64 lanes. DS_BPERMUTE_FI (RDNA4) reads inactive lanes too and addresses the whole wave. ds_swizzle
follows the RDNA3 pseudocode's four modes (FFT, rotate, quad permute, bitmask) within 32-lane groups.
Transposing loads (gfx950's DS_READ_B64_TR_B4/B8/B16, DS_READ_B96_TR_B6; the CDNA4 manual gives no text):
each lane reads 64 bits (96 for B6) at its address, then the elements move across each group of 16 lanes as
transpose.py says (16 lanes read E rows of 16 elements, each lane gets its column). The mapping is the one
AMD's rocRoller TransposeLoadsTest (GPU tests on gfx950, every width) expects of its address pattern, and the
Mojo stdlib's description of ds_read_tr8_b64 ("two interleaved 8x8 byte transposes"); that each lane reads
at its own address whatever the others do is inferred.
"""
from __future__ import annotations

import numpy as np

from gpubench.emu.context import Context
from gpubench.emu.ops import Unsupported, factory
from gpubench.emu.ops.lane_data import (
    data_access,
    dwords_to_words,
    from_vgprs,
    read_dwords,
    to_vgprs,
    words_to_dwords,
    write_dwords,
)
from gpubench.emu.ops.rmw import AtomicOp, atomic, atomic_op
from gpubench.emu.ops.segments import LOCAL, Lanes
from gpubench.emu.ops.transpose import transposed
from gpubench.isa.decoder import Instruction

M0_RDNA, M0_CDNA = 125, 124
NOT_LDS = ("GWS", "ORDERED", "BVH", "GS")  # GDS, ordered counts, ray-tracing stacks, GS registers
TRANSPOSED = {"DS_READ_B64_TR_B4": (64, 4), "DS_READ_B64_TR_B8": (64, 8), "DS_READ_B64_TR_B16": (64, 16),
              "DS_READ_B96_TR_B6": (96, 6)}  # bits a lane reads, element bits
TRANSPOSE_GROUP = 16  # lanes


def ds_offset(inst: Instruction) -> int:
    return inst["offset1"] << 8 | inst["offset0"]


def _m0(ctx: Context, inst: Instruction, waves: np.ndarray) -> np.ndarray:
    return ctx.waves.sgpr[waves, M0_CDNA if inst.isa.arch == "cdna" else M0_RDNA].astype(np.uint64)


def _vgpr_address(ctx: Context, inst: Instruction, waves: np.ndarray) -> np.ndarray:
    return ctx.waves.vgpr[waves, inst["addr"], :].astype(np.uint64)


def _bits(inst: Instruction, field: str) -> int:
    return inst.idef.operand(field).bits


@factory
def data_share(inst: Instruction):
    if inst.isa.root_of(inst.fmt) != "DS":
        return None
    name, tokens = inst.name, inst.name.split("_")
    if inst.get("gds"):
        raise Unsupported(f"{name}: GDS (global data share) is not emulated")
    if inst.get("acc"):
        raise Unsupported(f"{name}: AGPR data is not emulated")
    if any(t in tokens for t in NOT_LDS):
        raise Unsupported(f"{name} is not emulated")
    for make in (_cross_lane, _append_consume, _lane_addressed, _transposed, _two_addresses, _load_store, _atomic,
                 _nop):
        handler = make(inst, tokens)
        if handler is not None:
            return _advancing(inst, handler)
    raise Unsupported(f"{name} is not emulated")


def _advancing(inst: Instruction, handler):
    def run(ctx: Context, waves: np.ndarray) -> None:
        handler(ctx, waves)
        ctx.waves.pc[waves] += inst.size
    return run


def _nop(inst: Instruction, tokens: list[str]):
    return (lambda ctx, waves: None) if inst.name == "DS_NOP" else None


def _load_store(inst: Instruction, tokens: list[str]):
    """DS_LOAD_*/DS_READ_* and DS_STORE_*/DS_WRITE_* with one address, any width, D16 halves."""
    if tokens[1] in ("LOAD", "READ"):
        access, reg, load = data_access(inst.name, _bits(inst, "vdst")), "vdst", True
    elif tokens[1] in ("STORE", "WRITE") and "ADDR" not in inst.name:
        access, reg, load = data_access(inst.name, _bits(inst, "data0")), "data0", False
    else:
        return None
    offset = np.uint64(ds_offset(inst))

    def run(ctx: Context, waves: np.ndarray) -> None:
        lanes = Lanes.active(ctx, waves, _vgpr_address(ctx, inst, waves) + offset)
        if load:
            to_vgprs(ctx, lanes, inst[reg], LOCAL.read(ctx, lanes, access.size), access)
        else:
            LOCAL.write(ctx, lanes, from_vgprs(ctx, lanes, inst[reg], access))
    return run


def _transposed(inst: Instruction, tokens: list[str]):
    """gfx950's DS_READ_B*_TR_B*: loads, then the elements moved across each 16-lane group (transpose.py)."""
    if inst.name not in TRANSPOSED:
        return None
    bits, element_bits = TRANSPOSED[inst.name]
    offset = np.uint64(ds_offset(inst))

    def run(ctx: Context, waves: np.ndarray) -> None:
        lanes = Lanes.active(ctx, waves, _vgpr_address(ctx, inst, waves) + offset)
        raw = LOCAL.read(ctx, lanes, bits // 8)
        write_dwords(ctx, lanes, inst["vdst"], transposed(ctx, waves, lanes, raw, TRANSPOSE_GROUP, element_bits))
    return run


def _two_addresses(inst: Instruction, tokens: list[str]):
    """2ADDR / READ2 / WRITE2 loads, stores and exchanges: two elements at two scaled offsets."""
    if "2ADDR" not in tokens and tokens[1] not in ("READ2", "READ2ST64", "WRITE2", "WRITE2ST64", "WRXCHG2",
                                                   "WRXCHG2ST64"):
        return None
    element = 8 if tokens[-1] == "B64" else 4
    scale = element * (64 if "STRIDE64" in tokens or tokens[1].endswith("ST64") else 1)
    offsets = (np.uint64(inst["offset0"] * scale), np.uint64(inst["offset1"] * scale))
    dwords = element // 4
    kind = "load" if tokens[1] in ("LOAD", "READ2", "READ2ST64") else \
        "store" if tokens[1] in ("STORE", "WRITE2", "WRITE2ST64") else "exchange"
    swap = AtomicOp("swap", element * 8)

    def run(ctx: Context, waves: np.ndarray) -> None:
        lanes = Lanes.active(ctx, waves, _vgpr_address(ctx, inst, waves))
        results = []
        for offset, data in zip(offsets, ("data0", "data1")):
            at = lanes.at(lanes.address + offset)
            if kind == "load":
                results.append(LOCAL.read(ctx, at, element).view(np.uint32))
            elif kind == "store":
                LOCAL.write(ctx, at, read_dwords(ctx, at, inst[data], dwords).view(np.uint8))
            else:
                value = dwords_to_words(read_dwords(ctx, at, inst[data], dwords))
                results.append(words_to_dwords(atomic(ctx, LOCAL, at, swap, value, value), dwords))
        if results:
            write_dwords(ctx, lanes, inst["vdst"], np.concatenate(results, axis=1))
    return run


def _atomic(inst: Instruction, tokens: list[str]):
    if inst.name.startswith("DS_CONDXCHG32"):
        return _condxchg(inst)
    op = atomic_op(inst.name)
    if op is None:
        return None
    returns = "RTN" in tokens
    dwords = op.bits // 32
    data_first, data_second = ("data1", "data0") if "CMPST" in tokens else ("data0", "data1")
    offset = np.uint64(ds_offset(inst))

    def run(ctx: Context, waves: np.ndarray) -> None:
        lanes = Lanes.active(ctx, waves, _vgpr_address(ctx, inst, waves) + offset)
        a = dwords_to_words(read_dwords(ctx, lanes, inst[data_first], dwords))
        b = dwords_to_words(read_dwords(ctx, lanes, inst[data_second], dwords)) if op.operands == 2 else a
        before = atomic(ctx, LOCAL, lanes, op, a, b)
        if returns:
            write_dwords(ctx, lanes, inst["vdst"], words_to_dwords(before, dwords))
    return run


def _condxchg(inst: Instruction):
    """DS_CONDXCHG32_RTN_B64: two dwords at (address & 0xfff8) and +4, each replaced by DATA's half
    when that half's bit 31 is set (without the bit); returns both prior dwords."""
    op = AtomicOp("condxchg", 32)
    offset = np.uint64(ds_offset(inst))

    def run(ctx: Context, waves: np.ndarray) -> None:
        address = (_vgpr_address(ctx, inst, waves) + offset) & np.uint64(0xFFF8)
        lanes = Lanes.active(ctx, waves, address)
        data = read_dwords(ctx, lanes, inst["data0"], 2).astype(np.uint64)
        before = [atomic(ctx, LOCAL, lanes.at(lanes.address + np.uint64(4 * half)), op, data[:, half], data[:, half])
                  for half in (0, 1)]
        write_dwords(ctx, lanes, inst["vdst"], np.stack(before, axis=1).astype(np.uint32))
    return run


def _lane_addressed(inst: Instruction, tokens: list[str]):
    """DS_LOAD/STORE_ADDTID_B32 (CDNA: READ/WRITE): offset + M0[15:0] + lane * 4."""
    if "ADDTID" not in tokens:
        return None
    load = tokens[1] in ("LOAD", "READ")
    access = data_access(inst.name, 32)
    offset = np.uint64(ds_offset(inst))

    def run(ctx: Context, waves: np.ndarray) -> None:
        lane_bytes = np.arange(ctx.waves.wave_size, dtype=np.uint64) * np.uint64(4)
        base = (_m0(ctx, inst, waves) & np.uint64(0xFFFF)) + offset
        lanes = Lanes.active(ctx, waves, base[:, None] + lane_bytes[None, :])
        if load:
            to_vgprs(ctx, lanes, inst["vdst"], LOCAL.read(ctx, lanes, 4), access)
        else:
            LOCAL.write(ctx, lanes, from_vgprs(ctx, lanes, inst["data0"], access))
    return run


def _append_consume(inst: Instruction, tokens: list[str]):
    if inst.name not in ("DS_APPEND", "DS_CONSUME"):
        return None
    op = AtomicOp("add" if inst.name == "DS_APPEND" else "sub", 32)
    offset = np.uint64(ds_offset(inst))

    def run(ctx: Context, waves: np.ndarray) -> None:
        active = ctx.waves.exec_mask(waves)
        counts = active.sum(axis=1).astype(np.uint64)
        taking = np.flatnonzero(counts)
        address = (_m0(ctx, inst, waves) & np.uint64(0xFFFF)) + offset
        per_wave = Lanes(waves[taking], active[taking].argmax(axis=1), address[taking])
        prior = np.zeros(ctx.waves.count, np.uint64)
        prior[waves[taking]] = atomic(ctx, LOCAL, per_wave, op, counts[taking], counts[taking])
        lanes = Lanes.active(ctx, waves, np.zeros(active.shape, np.uint64), active)
        write_dwords(ctx, lanes, inst["vdst"], prior[lanes.wave].astype(np.uint32)[:, None])
    return run


# ---- cross-lane --------------------------------------------------------------------------------


def _source_lanes(ctx: Context, inst: Instruction, waves: np.ndarray, whole_wave: bool) -> np.ndarray:
    """[waves, lanes] the lane each lane addresses: (VGPR[addr] + offset) / 4, within its 32-lane half
    on RDNA (or the whole wave: CDNA, and DS_BPERMUTE_FI)."""
    size = ctx.waves.wave_size
    index = ((_vgpr_address(ctx, inst, waves) + np.uint64(ds_offset(inst))) >> np.uint64(2)).astype(np.int64)
    if whole_wave or inst.isa.arch == "cdna":
        return index % size
    return (np.arange(size) & 32)[None, :] | (index % 32)


def swizzle_sources(offset: int, size: int) -> np.ndarray:
    """ds_swizzle: the lane each lane reads, by the RDNA3 pseudocode's modes, within groups of 32."""
    lane = np.arange(size)
    low = lane & 31
    if offset >= 0xE000:  # FFT decomposition
        mask = offset & 31
        reversed_bits = np.array([int(f"{i:05b}"[::-1], 2) for i in range(32)])[low]
        source = (reversed_bits >> mask.bit_count()) | (low & mask)
    elif offset >= 0xC000:  # rotate within the group (the pseudocode's i + rotate, kept in the group)
        mask, amount = offset & 31, (offset >> 5) & 31
        amount = -amount if offset >> 10 & 1 else amount
        source = (low & mask) | ((low + amount) & ~mask & 31)
    elif offset & 0x8000:  # quad permute: each lane of a quad picks one by two bits of the offset
        source = (low & ~3) | ((offset >> (2 * (low & 3))) & 3)
    else:  # bitmask: ((lane & and) | or) ^ xor on the 5-bit lane id
        source = ((low & (offset & 31)) | ((offset >> 5) & 31)) ^ ((offset >> 10) & 31)
    return (lane & 32) | source


def _cross_lane(inst: Instruction, tokens: list[str]):
    name = inst.name
    if name not in ("DS_BPERMUTE_B32", "DS_BPERMUTE_FI_B32", "DS_PERMUTE_B32", "DS_SWIZZLE_B32"):
        return None

    def run(ctx: Context, waves: np.ndarray) -> None:
        w = ctx.waves
        active = w.exec_mask(waves)
        rows = np.arange(len(waves))[:, None]
        if name == "DS_PERMUTE_B32":
            data = w.vgpr[waves, inst["data0"], :]
            target = _source_lanes(ctx, inst, waves, whole_wave=False)
            writer = np.full(active.shape, -1)
            source = np.broadcast_to(np.arange(w.wave_size), active.shape)
            np.maximum.at(writer, (np.broadcast_to(rows, active.shape)[active], target[active]), source[active])
            result = np.where(writer >= 0, data[rows, np.maximum(writer, 0)], 0)
        else:
            if name == "DS_SWIZZLE_B32":
                data = w.vgpr[waves, inst["addr"], :]
                source = np.broadcast_to(swizzle_sources(ds_offset(inst), w.wave_size), active.shape)
            else:
                data = w.vgpr[waves, inst["data0"], :]
                source = _source_lanes(ctx, inst, waves, whole_wave=name == "DS_BPERMUTE_FI_B32")
            readable = active[rows, source] | (name == "DS_BPERMUTE_FI_B32")
            result = np.where(readable, data[rows, source], 0)
        vdst = inst["vdst"]
        w.vgpr[waves, vdst, :] = np.where(active, result, w.vgpr[waves, vdst, :]).astype(np.uint32)
    return run
