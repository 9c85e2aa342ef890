"""Where a vector memory access lands: the global address space, the workgroup's LDS, or a lane's
private segment; and the FLAT apertures that choose between them (manual: the hardware's behaviour
around the pseudocode's MEM[ADDR], which the pseudocode leaves out).

Every access arrives flattened to the lanes that take part (`Lanes`: wave, lane, address), so a
segment reads or writes all of them with a few numpy gathers and scatters.

- Global: the emulator's `AddressSpace`; a byte outside every mapping is a `PageFault` naming the lane.
- LDS: ``ctx.lds[workgroup]``, addressed from 0. An address at or beyond the workgroup's allocation
  reads 0 and its write is dropped, without a fault (RDNA3 behaviour; the emulator does the same on
  every target). Each byte is checked, so a wide access straddling the end keeps its in-range bytes.
- Private (scratch): ``ctx.scratch[wave, lane]``, one segment per lane of the kernel descriptor's
  private_segment_fixed_size; the address is the offset in it, as the kernel computes it (gfx11,
  gfx12 and gfx942 run with architected flat scratch: SCRATCH_* and private-aperture FLAT addresses
  are per-lane offsets, the hardware adds the wave's base and interleaves the lanes). An access
  outside the segment is a `PageFault` naming the address and the lane.
- FLAT apertures (AMDGPUUsage "Address Spaces"; the Linux driver's values for gfx9 and later): the
  shared (LDS) aperture is the 4 GiB at 1 << 48, the private one the 4 GiB at 2 << 48. A FLAT access in
  one of them goes to LDS or the lane's private segment at the offset within the aperture; anything
  else is global. The aperture operands (src_shared_base ...) read these bases and limits.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from gpubench.emu.context import Context
from gpubench.emu.memory import PageFault

APERTURE_SIZE = 1 << 32
SHARED_BASE, PRIVATE_BASE = 1 << 48, 2 << 48
APERTURE_SOURCES = {  # the operand codes of src_shared_base/limit, src_private_base/limit -> 64-bit value
    235: SHARED_BASE, 236: SHARED_BASE + APERTURE_SIZE - 1,
    237: PRIVATE_BASE, 238: PRIVATE_BASE + APERTURE_SIZE - 1,
}


@dataclass(frozen=True)
class Lanes:
    """The lanes of one access, flattened: wave (index into ctx.waves), lane, and byte address."""

    wave: np.ndarray  # int64
    lane: np.ndarray  # int64
    address: np.ndarray  # uint64
    # When the lanes are every lane of some waves, wave by wave: those waves' index into the
    # per-wave arrays (Waves.rows), so register reads/writes (lane_data.py) can move whole rows
    # instead of gathering/scattering lane by lane. None otherwise.
    rows: object = field(default=None, compare=False)

    @classmethod
    def active(cls, ctx: Context, waves: np.ndarray, address: np.ndarray,
               mask: np.ndarray | None = None) -> Lanes:
        """The lanes EXEC (and ``mask``) enable, from a [waves, lanes] address array."""
        enabled = ctx.waves.exec_mask(waves) if mask is None else mask
        if enabled.all():  # every lane (the common case): the same lanes in the same order, no nonzero
            count, width = enabled.shape
            return cls(np.repeat(waves, width), np.tile(np.arange(width, dtype=np.intp), count),
                       np.asarray(address).astype(np.uint64).reshape(-1), ctx.waves.rows(waves))
        row, lane = np.nonzero(enabled)
        return cls(waves[row], lane, address[row, lane].astype(np.uint64))

    def __len__(self) -> int:
        return len(self.wave)

    def take(self, index: np.ndarray) -> Lanes:
        return Lanes(self.wave[index], self.lane[index], self.address[index])

    def at(self, address: np.ndarray) -> Lanes:
        return Lanes(self.wave, self.lane, address.astype(np.uint64), self.rows)

    def fault(self, ctx: Context, index: int, write: bool, reason: str) -> PageFault:
        """A page fault at lane ``index`` of this access, naming its address, wave and workgroup."""
        wave = int(self.wave[index])
        fault = PageFault(int(self.address[index]), write, reason, int(self.lane[index]))
        fault.context.update(workgroup=int(ctx.waves.workgroup[wave]), wave=int(ctx.waves.wave_id[wave]))
        return fault


class Segment:
    """Bytes at per-lane addresses. ``read`` gives [lanes, size] uint8; ``write`` takes the same.

    ``locate`` is for read-modify-write: a key per lane that is equal exactly when two lanes touch the
    same bytes (so atomics can serialize them), and whether the lane's access happens at all.
    ``space`` names the memory waves share (the race detector, ctx.races, sees its accesses)."""

    space: str | None = None

    def read(self, ctx: Context, lanes: Lanes, size: int) -> np.ndarray:
        raise NotImplementedError

    def write(self, ctx: Context, lanes: Lanes, data: np.ndarray) -> None:
        raise NotImplementedError

    def locate(self, ctx: Context, lanes: Lanes, size: int) -> tuple[np.ndarray, np.ndarray]:
        raise NotImplementedError


def _shared(ctx: Context, segment: Segment, lanes: Lanes, size: int, write: bool) -> None:
    """An access done: the race detector sees it when it runs and the memory is shared."""
    if ctx.races is not None and segment.space is not None:
        ctx.races.access(segment.space, lanes.wave, lanes.lane, lanes.address, size, write)


class GlobalSegment(Segment):
    space = "global"

    def read(self, ctx: Context, lanes: Lanes, size: int) -> np.ndarray:
        with _naming(ctx, lanes):
            data = ctx.memory.read(lanes.address, size)
        _shared(ctx, self, lanes, size, False)
        return data

    def write(self, ctx: Context, lanes: Lanes, data: np.ndarray) -> None:
        with _naming(ctx, lanes):
            ctx.memory.write(lanes.address, data)
        _shared(ctx, self, lanes, data.shape[1], True)

    def locate(self, ctx: Context, lanes: Lanes, size: int) -> tuple[np.ndarray, np.ndarray]:
        return lanes.address, np.ones(len(lanes), bool)


class _FlatBytes(Segment):
    """A segment kept in one numpy array, addressed by (wave, lane, address) -> a flat byte index."""

    def backing(self, ctx: Context) -> np.ndarray:
        raise NotImplementedError

    def base_and_size(self, ctx: Context, lanes: Lanes) -> tuple[np.ndarray, int]:
        """Per lane, the flat index of its segment's byte 0; and the segment's size."""
        raise NotImplementedError

    def _spans(self, ctx: Context, lanes: Lanes, size: int, write: bool) -> tuple[np.ndarray, np.ndarray]:
        base, limit = self.base_and_size(ctx, lanes)
        offset = lanes.address[:, None] + np.arange(size, dtype=np.uint64)
        inside = offset < np.uint64(limit)
        self.check(ctx, lanes, inside, write, limit)
        index = base[:, None] + np.where(inside, offset, 0).astype(np.int64)
        return index, inside

    def check(self, ctx: Context, lanes: Lanes, inside: np.ndarray, write: bool, limit: int) -> None:
        """What happens to bytes outside the segment: nothing by default (reads 0, writes dropped)."""

    def _word_index(self, ctx: Context, lanes: Lanes, size: int) -> np.ndarray | None:
        """Fast path for the common access: whole dwords, every lane aligned and inside its segment.
        Then [lanes, size // 4] indices into the backing viewed as uint32 (a quarter of the byte
        indices, and no masking); None when any lane needs the byte-wise path (and its checks)."""
        base, limit = self.base_and_size(ctx, lanes)
        if size % 4 or limit % 4 or limit < size or len(lanes) == 0:
            return None
        address = lanes.address
        if address.dtype != np.uint64 or (address & np.uint64(3)).any() or (address > np.uint64(limit - size)).any():
            return None
        first = (np.asarray(base, np.int64) >> 2) + (address >> np.uint64(2)).astype(np.int64)
        return first[:, None] + np.arange(size // 4)

    def read(self, ctx: Context, lanes: Lanes, size: int) -> np.ndarray:
        words = self._word_index(ctx, lanes, size)
        if words is not None:
            data = self.backing(ctx).view(np.uint32)[words].view(np.uint8)
        else:
            index, inside = self._spans(ctx, lanes, size, write=False)
            data = np.where(inside, self.backing(ctx)[index], 0).astype(np.uint8)
        _shared(ctx, self, lanes, size, False)
        return data

    def write(self, ctx: Context, lanes: Lanes, data: np.ndarray) -> None:
        words = self._word_index(ctx, lanes, data.shape[1])
        if words is not None:  # whole lanes land in lane order: later lanes win overlaps, as below
            self.backing(ctx).view(np.uint32)[words] = np.ascontiguousarray(data, np.uint8).view(np.uint32)
        else:
            index, inside = self._spans(ctx, lanes, data.shape[1], write=True)
            self.backing(ctx)[index[inside]] = data[inside]
        _shared(ctx, self, lanes, data.shape[1], True)

    def locate(self, ctx: Context, lanes: Lanes, size: int) -> tuple[np.ndarray, np.ndarray]:
        base, limit = self.base_and_size(ctx, lanes)
        inside = lanes.address + np.uint64(size) <= np.uint64(limit)
        self.check(ctx, lanes, np.broadcast_to(inside[:, None], (len(lanes), size)), True, limit)
        return (base + np.where(inside, lanes.address, 0).astype(np.int64)).astype(np.uint64), inside


class LocalSegment(_FlatBytes):
    """The workgroup's LDS: out-of-range bytes read 0 and are not written."""

    space = "LDS"

    def backing(self, ctx: Context) -> np.ndarray:
        return ctx.lds.reshape(-1)

    def base_and_size(self, ctx: Context, lanes: Lanes) -> tuple[np.ndarray, int]:
        size = ctx.lds.shape[1]
        return ctx.waves.workgroup[lanes.wave].astype(np.int64) * size, size


class PrivateSegment(_FlatBytes):
    """Each lane's own scratch: an access outside it is a page fault."""

    def backing(self, ctx: Context) -> np.ndarray:
        return ctx.scratch.reshape(-1)

    def base_and_size(self, ctx: Context, lanes: Lanes) -> tuple[np.ndarray, int]:
        size = ctx.scratch.shape[2]
        return (lanes.wave.astype(np.int64) * ctx.waves.wave_size + lanes.lane) * size, size

    def check(self, ctx: Context, lanes: Lanes, inside: np.ndarray, write: bool, limit: int) -> None:
        outside = ~inside.all(axis=1)
        if outside.any():
            raise lanes.fault(ctx, int(np.argmax(outside)), write,
                              f"outside the lane's {limit}-byte private segment")


GLOBAL, LOCAL, PRIVATE = GlobalSegment(), LocalSegment(), PrivateSegment()


def flat_split(lanes: Lanes) -> list[tuple[Segment, Lanes]]:
    """A FLAT access's lanes by the aperture their address falls in, addressed within their segment:
    global memory first, then scratch, then LDS: a store whose global lanes fault writes nothing, one
    whose scratch lanes fault writes no LDS (out-of-range LDS bytes drop; they never fault)."""
    parts = []
    rest = np.ones(len(lanes), bool)
    for segment, base in ((PRIVATE, PRIVATE_BASE), (LOCAL, SHARED_BASE)):
        offset = lanes.address - np.uint64(base)  # wraps below the base: then it is >= the aperture size
        inside = offset < np.uint64(APERTURE_SIZE)
        if inside.any():
            parts.append((segment, lanes.take(inside).at(offset[inside])))
            rest &= ~inside
    if rest.any():
        parts.insert(0, (GLOBAL, lanes.take(rest)))
    return parts


class _naming:
    """A fault from the address space (which knows only the index into the access) names the lane."""

    def __init__(self, ctx: Context, lanes: Lanes):
        self.ctx, self.lanes = ctx, lanes

    def __enter__(self):
        return self

    def __exit__(self, kind, fault, traceback):
        if isinstance(fault, PageFault) and fault.lane is not None and "wave" not in fault.context:
            named = self.lanes.fault(self.ctx, fault.lane, fault.write, fault.reason)
            fault.lane, fault.context = named.lane, {**fault.context, **named.context}
        return False
