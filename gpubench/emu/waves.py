"""The state of every wave of a dispatch, as arrays: one instruction updates many waves at once.

Register files are structure-of-arrays: ``sgpr[wave, reg]`` and ``vgpr[wave, reg, lane]`` (uint32),
so an instruction executed for the waves standing at one PC is a handful of numpy operations over
``[waves, lanes]``, never a Python loop over lanes.
"""
from __future__ import annotations

import ctypes
import enum
import functools
from dataclasses import dataclass

import numpy as np

SGPRS = 128  # the scalar operand space 0..127 (VCC, TTMP, M0, EXEC ... live here too)
VCC_LO, EXEC_LO = 106, 126
# MODE until a dispatch sets it from the kernel descriptor: as compute kernels start (round to
# nearest even, denormals kept, DX10 clamp, IEEE), so hand-made waves run float code too.
DEFAULT_MODE = 0x3F0


# glibc's malloc returns freed blocks above M_MMAP_THRESHOLD (or freed memory at the heap's top above
# M_TRIM_THRESHOLD) to the kernel, and the next allocation page-faults all of it in again. One
# instruction over [waves, lanes] makes several temporaries of MBs each: that refaulting cost more
# than the arithmetic (expsin ran 1.5x faster without it). Raised limits keep freed memory for reuse.
_M_TRIM_THRESHOLD, _M_MMAP_THRESHOLD = -1, -3
MMAP_THRESHOLD_BYTES = 256 << 20
TRIM_THRESHOLD_BYTES = 1 << 30


@functools.cache
def keep_freed_memory() -> bool:
    """Tune glibc's malloc (once per process) so large freed arrays are reused, not unmapped;
    False where the C library is not glibc."""
    try:
        mallopt = ctypes.CDLL(None).mallopt  # the process's own symbols: the C library's
    except (OSError, AttributeError):
        return False
    return bool(mallopt(_M_MMAP_THRESHOLD, MMAP_THRESHOLD_BYTES) and mallopt(_M_TRIM_THRESHOLD, TRIM_THRESHOLD_BYTES))


class WaveState(enum.IntEnum):
    RUNNING = 0
    BARRIER = 1  # waiting at s_barrier for the rest of its workgroup
    DONE = 2


@dataclass
class Waves:
    wave_size: int
    sgpr: np.ndarray  # uint32 [waves, 128]
    vgpr: np.ndarray  # uint32 [waves, vgprs, lanes]
    pc: np.ndarray  # int64 [waves], byte address of the next instruction
    scc: np.ndarray  # bool [waves]
    state: np.ndarray  # int8 [waves], WaveState
    workgroup: np.ndarray  # int64 [waves], index into the dispatch's workgroups
    wave_id: np.ndarray  # int64 [waves], the wave's index within its workgroup
    executed: np.ndarray  # int64 [waves], instructions executed (the watchdog and statistics read it)
    mode: np.ndarray  # uint32 [waves], the MODE register (float round/denormal modes, IEEE ...: ops/modes.py)
    # CDNA3/CDNA4 (gfx90a+) have one unified VGPR file: the AGPRs follow the VGPRs, a[n] is ``vgpr``
    # register accum_offset + n (the kernel descriptor's COMPUTE_PGM_RSRC3.ACCUM_OFFSET; ops/accvgpr.py).
    # None: no AGPRs (RDNA, or waves made by hand without setting it). Nothing reads it on RDNA.
    accum_offset: int | None = None

    @classmethod
    def create(cls, count: int, wave_size: int, vgprs: int, accum_offset: int | None = None) -> "Waves":
        """``vgprs``: the whole (unified, on CDNA) register file; ``accum_offset``: where its AGPRs start."""
        keep_freed_memory()
        if accum_offset is not None and not 0 < accum_offset <= vgprs:
            raise ValueError(f"accum_offset {accum_offset} is outside the {vgprs} VGPRs")
        return cls(wave_size, np.zeros((count, SGPRS), np.uint32), np.zeros((count, vgprs, wave_size), np.uint32),
                   np.zeros(count, np.int64), np.zeros(count, bool), np.zeros(count, np.int8),
                   np.zeros(count, np.int64), np.zeros(count, np.int64), np.zeros(count, np.int64),
                   np.full(count, DEFAULT_MODE, np.uint32), accum_offset)

    def arrays(self) -> tuple[np.ndarray, ...]:
        """Every per-wave array, in the constructor's order: the whole state of the waves."""
        return (self.sgpr, self.vgpr, self.pc, self.scc, self.state, self.workgroup, self.wave_id, self.executed,
                self.mode)

    def copy(self) -> "Waves":
        return Waves(self.wave_size, *(a.copy() for a in self.arrays()), self.accum_offset)

    @property
    def count(self) -> int:
        return self.sgpr.shape[0]

    def every_wave(self) -> np.ndarray:
        """``arange(count)``, one shared array: the executor passes it when every wave runs at one PC
        (the common case), so `rows` can tell that case by identity, at no cost per step."""
        every = self.__dict__.get("_every")
        if every is None or len(every) != self.count:
            every = self.__dict__["_every"] = np.arange(self.count)
            every.flags.writeable = False
        return every

    def rows(self, waves: np.ndarray):
        """An index for ``waves`` into the per-wave arrays: a slice (a view, no gather or scatter
        copy) when ``waves`` is `every_wave`, else ``waves`` itself."""
        return slice(None) if waves is self.__dict__.get("_every") else waves

    def read_mask(self, reg: int, waves: np.ndarray) -> np.ndarray:
        """A lane mask register pair (EXEC, VCC, an SGPR pair) as bool [waves, lanes]."""
        words = np.ascontiguousarray(self.sgpr[self.rows(waves), reg:reg + self.wave_size // 32])  # little-endian dwords
        return np.unpackbits(words.view(np.uint8), axis=1, bitorder="little").view(bool)

    def write_mask(self, reg: int, waves: np.ndarray, mask: np.ndarray) -> None:
        """Store bool [waves, lanes] into a mask register (the pair's high half too in wave64)."""
        packed = np.packbits(np.asarray(mask, bool).reshape(len(waves), self.wave_size), axis=1, bitorder="little")
        self.sgpr[self.rows(waves), reg:reg + self.wave_size // 32] = packed.view(np.uint32)

    def exec_mask(self, waves: np.ndarray) -> np.ndarray:
        return self.read_mask(EXEC_LO, waves)
