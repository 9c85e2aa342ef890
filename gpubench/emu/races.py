"""The race detector (`gpubench run --races`, GPUBENCH_RACES, the Python API's ``races=True``): two
accesses to the same byte of LDS or global memory by different waves, at least one a write and not
both atomic, with nothing the hardware promises ordering them. Atomic: an atomic instruction, or a
load or store with a cache-policy bit set (glc/dlc, sc0/sc1, a gfx12 scope past the CU): the form in
which compilers emit device-scope atomic loads and stores (and volatile ones).

Every LDS and global access (segments.py: loads, stores, atomics, LDS DMA, buffer and scalar stores;
SMEM loads are not seen) is checked byte by byte against a shadow of that memory: per byte, the
last write and the readers since it (the lowest- and highest-numbered reader wave, which is enough
to know whether a wave other than the writer read it). An access records its wave, lane, PC, the
issue it ran in and its workgroup's barrier epoch (barriers the workgroup has passed). What orders
two accesses:

- the same wave: program order (its lanes too: one instruction is one access);
- the same workgroup: a barrier between them (the epochs differ); the emulator completes every
  access before the next instruction, so the waitcnt and cache fences a barrier needs on hardware
  are not checked;
- different workgroups (global memory): the earlier wave released (a waitcnt or write-back, then an
  atomic) after its access, and the later one acquired after an atomic issued later than that one
  (an atomic, then a cache invalidate) before its access: the message-passing pattern of
  __threadfence and a flag or counter.

A race is reported once per pair of PCs, like a page fault: the address, both PCs with their
disassembly, both waves and lanes, the kernel. The detector runs on the reference engine (native
code's accesses are not seen by Python) and costs what the README's "Races" section measures.
"""
from __future__ import annotations

import os
from dataclasses import dataclass

import numpy as np

from gpubench.emu.context import Context
from gpubench.emu.ops.rmw import atomic_op
from gpubench.isa.decoder import Instruction

ENV = "GPUBENCH_RACES"
CHUNK_BITS = 16  # global memory is shadowed in chunks of 64 KiB, made as accesses reach them
NO_LOW, NO_HIGH = np.iinfo(np.int64).max, -1  # reader slots' empty values (packed: wave << 32 | record)
RELEASES = ("S_WAITCNT", "S_WAIT_STORECNT", "S_WAIT_LOADCNT", "S_WAIT_DSCNT", "BUFFER_WBL2", "GLOBAL_WB",
            "S_DCACHE_WB")  # prefixes: what makes a wave's earlier writes visible before what follows
COHERENT = ("glc", "dlc", "sc0", "sc1", "scope")  # cache-policy fields: set, the access bypasses the CU's cache
ACQUIRES = ("BUFFER_GL0_INV", "BUFFER_GL1_INV", "BUFFER_INV", "GLOBAL_INV", "GLOBAL_WBINV", "BUFFER_WBINVL1",
            "S_DCACHE_INV", "S_GL1_INV")  # cache invalidates: what makes later reads see others' writes


@dataclass(frozen=True)
class Access:
    wave: int  # index into the dispatch's waves
    workgroup: int
    wave_id: int  # within its workgroup
    lane: int
    pc: int
    offset: int  # of the PC from the kernel's entry point (llvm-objdump's <kernel+offset>)
    write: bool
    instruction: str  # disassembly


@dataclass(frozen=True)
class RaceReport:
    kernel: str
    space: str  # "LDS" or "global"
    address: int  # in LDS: the offset in the workgroup's allocation
    first: Access
    second: Access
    ordering: str  # what was missing between them

    def __str__(self) -> str:
        def line(a: Access) -> str:
            kind = "write" if a.write else "read "
            return (f"  {kind} by workgroup {a.workgroup} wave {a.wave_id} lane {a.lane} at 0x{a.pc:x} "
                    f"<{self.kernel}+0x{a.offset:x}>: {a.instruction}")
        return (f"data race on {self.space} address 0x{self.address:x} in kernel {self.kernel}:\n"
                f"{line(self.first)}\n{line(self.second)}\n  {self.ordering}")


def requested(environ=os.environ) -> bool:
    return environ.get(ENV, "") not in ("", "0")


# Every race this process reported, once per kernel and pair of PCs (as offsets from the entry point,
# so a kernel loaded again elsewhere is the same): `gpubench run --races` prints them at the end.
reported: dict[tuple, RaceReport] = {}


def collect(reports: list[RaceReport]) -> None:
    for report in reports:
        reported.setdefault((report.kernel, *sorted((report.first.offset, report.second.offset))), report)


class _Log:
    """One entry per lane access: wave, lane, PC, issue number, barrier epoch, atomic."""

    FIELDS = {"wave": np.int64, "lane": np.int64, "pc": np.int64, "issue": np.int64, "epoch": np.int64,
              "atomic": bool}

    def __init__(self) -> None:
        self.size = 0
        self.columns = {name: np.zeros(1024, dtype) for name, dtype in self.FIELDS.items()}

    def add(self, **values: np.ndarray) -> np.ndarray:
        count = len(values["wave"])
        if self.size + count > len(self.columns["wave"]):
            grown = max(2 * len(self.columns["wave"]), self.size + count)
            for name, column in self.columns.items():
                self.columns[name] = np.concatenate([column, np.zeros(grown - len(column), column.dtype)])
        for name, value in values.items():
            self.columns[name][self.size:self.size + count] = value
        self.size += count
        return np.arange(self.size - count, self.size)

    def __getattr__(self, name: str) -> np.ndarray:
        return self.__dict__["columns"][name]


class _Shadow:
    """Per byte of one memory: the last write's log entry (-1: none) and the lowest and highest
    reader since (packed wave << 32 | entry)."""

    def __init__(self, size: int = 0):
        self.writer = np.full(size, -1, np.int64)
        self.low = np.full(size, NO_LOW, np.int64)
        self.high = np.full(size, NO_HIGH, np.int64)

    def grow(self, size: int) -> None:
        more = size - len(self.writer)
        self.writer = np.concatenate([self.writer, np.full(more, -1, np.int64)])
        self.low = np.concatenate([self.low, np.full(more, NO_LOW, np.int64)])
        self.high = np.concatenate([self.high, np.full(more, NO_HIGH, np.int64)])


class RaceDetector:
    def __init__(self, ctx: Context, kernel: str, entry: int, describe):
        """``entry``: the kernel's first instruction; ``describe(pc)``: the disassembly at ``pc``."""
        self.ctx, self.kernel, self.entry, self.describe = ctx, kernel, entry, describe
        waves, groups = ctx.waves.count, ctx.lds.shape[0]
        self.epoch = np.zeros(groups, np.int64)  # barriers each workgroup has passed
        self.issue = 0
        self.atomic = False  # the instruction being executed is an atomic
        self.kinds: dict[int, tuple[bool, bool, bool]] = {}  # by PC: (atomic, release, acquire)
        # per wave, the issue numbers of: its last release fence, last atomic, the last release fence
        # before an atomic and that atomic, the last atomic before an acquire
        self.fenced, self.last_atomic = np.full(waves, -1, np.int64), np.full(waves, -1, np.int64)
        self.release_fence, self.release = np.full(waves, -1, np.int64), np.full(waves, -1, np.int64)
        self.acquired = np.full(waves, -1, np.int64)
        self.log = _Log()
        self.lds = _Shadow(ctx.lds.size)
        self.memory = _Shadow()
        self.chunks: dict[int, int] = {}  # global chunk number -> its slot in self.memory
        self.reports: list[RaceReport] = []
        self.seen: set[tuple[int, int]] = set()

    # ---- what the runner tells it -------------------------------------------------------------

    def issuing(self, pc: int, inst: Instruction, waves: np.ndarray) -> None:
        """Before the instruction at ``pc`` runs for ``waves``."""
        self.issue += 1
        kinds = self.kinds.get(pc)
        if kinds is None:
            name = inst.name
            atomic = "_ATOMIC_" in name or (name.startswith("DS_") and atomic_op(name) is not None) or \
                any(inst.get(field) for field in COHERENT)
            kinds = self.kinds[pc] = (atomic, name.startswith(RELEASES), name.startswith(ACQUIRES))
        self.atomic, release, acquire = kinds
        if release:
            self.fenced[waves] = self.issue
        if acquire:
            self.acquired[waves] = self.last_atomic[waves]
        if self.atomic:
            self.release_fence[waves], self.release[waves] = self.fenced[waves], self.issue
            self.last_atomic[waves] = self.issue

    def barrier(self, woken: np.ndarray) -> None:
        """The waves ``woken`` passed their workgroup's barrier."""
        self.epoch[np.unique(self.ctx.waves.workgroup[woken])] += 1

    # ---- what the segments tell it ------------------------------------------------------------

    def access(self, space: str, wave: np.ndarray, lane: np.ndarray, address: np.ndarray, size: int,
               write: bool) -> None:
        """Lanes (wave, lane) access ``size`` bytes at ``address``: an LDS offset, or a global address."""
        if not len(wave):
            return
        groups = self.ctx.waves.workgroup[wave]
        byte = address.astype(np.uint64)[:, None] + np.arange(size, dtype=np.uint64)
        if space == "LDS":
            limit = self.ctx.lds.shape[1]
            inside = byte < np.uint64(limit)  # out-of-range LDS bytes are dropped: nothing to race on
            keys = (groups[:, None] * limit + np.where(inside, byte, 0).astype(np.int64))[inside]
            shadow = self.lds
        else:
            inside = np.ones(byte.shape, bool)
            keys, shadow = self._global_keys(byte.reshape(-1)), self.memory
        entries = self.log.add(wave=wave, lane=lane, pc=self.ctx.waves.pc[wave], issue=np.full(len(wave), self.issue),
                               epoch=self.epoch[groups], atomic=np.full(len(wave), self.atomic))
        per_byte = np.broadcast_to(entries[:, None], byte.shape)[inside]
        addresses = byte[inside]
        self._check(space, shadow.writer[keys], per_byte, addresses, earlier_wrote=True, write=write)
        if write:
            for readers, empty in ((shadow.low, NO_LOW), (shadow.high, NO_HIGH)):
                packed = readers[keys]
                self._check(space, np.where(packed == empty, -1, packed & 0xFFFFFFFF), per_byte, addresses,
                            earlier_wrote=False, write=True)
            self._check_within(space, keys, per_byte, addresses)
            shadow.writer[keys] = per_byte
            shadow.low[keys], shadow.high[keys] = NO_LOW, NO_HIGH
        else:
            packed = (self.log.wave[per_byte] << 32) | per_byte
            for readers, empty, combine in ((shadow.low, NO_LOW, np.minimum), (shadow.high, NO_HIGH, np.maximum)):
                old = readers[keys]
                stale = (old != empty) & self._ordered(np.where(old == empty, 0, old & 0xFFFFFFFF), per_byte)
                readers[keys[stale]] = empty
                combine.at(readers, keys, packed)

    def _global_keys(self, addresses: np.ndarray) -> np.ndarray:
        chunks, inverse = np.unique(addresses >> np.uint64(CHUNK_BITS), return_inverse=True)
        slots = np.empty(len(chunks), np.int64)
        for i, chunk in enumerate(chunks.tolist()):
            slot = self.chunks.get(chunk)
            if slot is None:
                slot = self.chunks[chunk] = len(self.chunks)
                self.memory.grow(len(self.chunks) << CHUNK_BITS)
            slots[i] = slot
        return (slots[inverse] << CHUNK_BITS) + (addresses & np.uint64((1 << CHUNK_BITS) - 1)).astype(np.int64)

    # ---- ordering and reports -----------------------------------------------------------------

    def _ordered(self, earlier: np.ndarray, later: np.ndarray) -> np.ndarray:
        """Whether log entry ``earlier`` is ordered before ``later`` (same wave, a barrier between,
        or a release and acquire across workgroups)."""
        log, groups = self.log, self.ctx.waves.workgroup
        a, b = log.wave[earlier], log.wave[later]
        same_group = groups[a] == groups[b]
        released = (self.release_fence[a] > log.issue[earlier]) & (self.release[a] > log.issue[earlier])
        # the later wave's atomic came after the earlier's: a later issue, or the same one (its lanes
        # are serialised in wave order, rmw.py)
        after = (self.acquired[b] > self.release[a]) | ((self.acquired[b] == self.release[a]) & (a < b))
        handed_on = released & after
        return (a == b) | np.where(same_group, log.epoch[earlier] != log.epoch[later], handed_on)

    def _check(self, space: str, earlier: np.ndarray, later: np.ndarray, addresses: np.ndarray,
               earlier_wrote: bool, write: bool) -> None:
        found = earlier >= 0
        if not found.any():
            return
        e, l = earlier[found], later[found]
        racing = ~(self.log.atomic[e] & self.log.atomic[l]) & ~self._ordered(e, l)
        if racing.any():
            self._report(space, e[racing], l[racing], addresses[found][racing], earlier_wrote, write)

    def _check_within(self, space: str, keys: np.ndarray, entries: np.ndarray, addresses: np.ndarray) -> None:
        """Waves of one issue writing the same byte race with each other (unless atomic)."""
        if self.atomic or len(keys) < 2:
            return
        order = np.argsort(keys, kind="stable")
        k, e = keys[order], entries[order]
        clash = np.flatnonzero((k[1:] == k[:-1]) & (self.log.wave[e[1:]] != self.log.wave[e[:-1]]))
        if clash.size:
            self._report(space, e[clash], e[clash + 1], addresses[order][clash], True, True)

    def _report(self, space: str, earlier: np.ndarray, later: np.ndarray, addresses: np.ndarray,
                earlier_wrote: bool, write: bool) -> None:
        log = self.log
        pairs = np.stack([log.pc[earlier], log.pc[later]], axis=1)
        _, first = np.unique(np.sort(pairs, axis=1), axis=0, return_index=True)
        for i in sorted(first.tolist()):
            key = tuple(sorted((int(pairs[i, 0]), int(pairs[i, 1]))))
            if key in self.seen:
                continue
            self.seen.add(key)
            e, l = int(earlier[i]), int(later[i])
            same_group = self.ctx.waves.workgroup[log.wave[e]] == self.ctx.waves.workgroup[log.wave[l]]
            ordering = (f"no barrier between them (both in barrier epoch {log.epoch[l]} of the workgroup)" if same_group
                        else "different workgroups, no release (fence, atomic) and acquire (atomic, fence) "
                             "between them")
            self.reports.append(RaceReport(self.kernel, space, int(addresses[i]), self._access(e, earlier_wrote),
                                           self._access(l, write), ordering))

    def _access(self, entry: int, write: bool) -> Access:
        log, w = self.log, self.ctx.waves
        wave, pc = int(log.wave[entry]), int(log.pc[entry])
        return Access(wave, int(w.workgroup[wave]), int(w.wave_id[wave]), int(log.lane[entry]), pc, pc - self.entry,
                      write, self.describe(pc).split(": ", 1)[-1])
