"""PM4 type-3 packets on a compute queue (the MEC's packet set, gfx9-gfx12; layouts from Linux's
amdgpu PM4 headers: nvd.h / soc15d.h).

Implemented: NOP, SET_SH_REG, SET_UCONFIG_REG, DISPATCH_DIRECT, DISPATCH_INDIRECT, ACQUIRE_MEM,
RELEASE_MEM (32/64-bit data, GPU clock timestamps, end-of-pipe interrupts), WAIT_REG_MEM (memory
and register space), WRITE_DATA, COPY_DATA, INDIRECT_BUFFER, EVENT_WRITE, ATOMIC_MEM, PRED_EXEC
(dispatches run on one XCC, XCC 0: packets predicated on the others are skipped).

The emulator has no caches and runs a dispatch to its end before the next packet, so cache
actions (ACQUIRE_MEM, RELEASE_MEM's GCR bits) and pipeline events (EVENT_WRITE: CS_PARTIAL_FLUSH
...) are complete as soon as they are read. Registers are a plain register file; a register pair
written and waited on by WAIT_REG_MEM's write-then-wait operation (the HDP flush request/done pair)
completes at once, because the emulated GPU has no host data path cache to flush.

The common packets and the repeated dispatches of a stream run natively, without the GIL, with these
handlers' semantics (cp/pm4_native.py, emu/native/packets.py); the handlers here run the rest, a
kernel's first dispatch, and everything while a tool watches the memory from Python.
"""
from __future__ import annotations

import functools
import math
import time
from typing import Callable

from gpubench.emu import executor
from gpubench.emu.cp import interpreter
from gpubench.emu.cp.pm4_native import NativePackets
from gpubench.emu.cp.queue import HardwareQueue, Interrupt, QueueError, WaitNotSatisfied, compare, gpu_clock
from gpubench.emu.launch import LaunchStats, launch
from gpubench.emu.memory import AddressSpace
from gpubench.emu.native.packets import KEY_BODY_WORDS, KEY_REGISTERS, Stop
from gpubench.emu.native.plans import DispatchPlan
from gpubench.isa.codeobject import KernelDescriptor

NOP, DISPATCH_DIRECT, DISPATCH_INDIRECT, ATOMIC_MEM, PRED_EXEC = 0x10, 0x15, 0x16, 0x1E, 0x23
WRITE_DATA, WAIT_REG_MEM, INDIRECT_BUFFER, COPY_DATA, EVENT_WRITE = 0x37, 0x3C, 0x3F, 0x40, 0x46
RELEASE_MEM, ACQUIRE_MEM, SET_SH_REG, SET_UCONFIG_REG = 0x49, 0x58, 0x76, 0x79
SH_REG_BASE, UCONFIG_REG_BASE = 0x2C00, 0xC000

# compute registers (dword addresses; the same on gfx9-gfx12)
COMPUTE_DISPATCH_INITIATOR, COMPUTE_START_X, COMPUTE_NUM_THREAD_X = 0x2E00, 0x2E04, 0x2E07
COMPUTE_PGM_LO, COMPUTE_PGM_HI, COMPUTE_PGM_RSRC1, COMPUTE_PGM_RSRC2 = 0x2E0C, 0x2E0D, 0x2E12, 0x2E13
COMPUTE_TMPRING_SIZE, COMPUTE_PGM_RSRC3, COMPUTE_USER_DATA_0 = 0x2E18, 0x2E28, 0x2E40
FORCE_START_AT_000, CS_W32_EN = 1 << 2, 1 << 15
LDS_GRANULE = 512  # COMPUTE_PGM_RSRC2.LDS_SIZE counts 128-dword blocks
PGM_HI_BITS = 0xFF  # COMPUTE_PGM_HI holds address bits 47:40: programs live in the 48-bit GPU VA space
MAX_WORKGROUP_THREADS = 1024  # the most a workgroup can have on gfx9-gfx12
# COMPUTE_TMPRING_SIZE.WAVESIZE: (field width, bytes per unit) of the scratch per wave64, as the
# register holds it; no dispatch can have more private memory per lane than it can express
TMPRING_WAVESIZE = {"cdna": (13, 1024), "rdna3": (15, 256), "rdna4": (18, 256)}
MAX_IB_DEPTH = 4

ATOMIC_ADD_64 = 47  # the TC atomic operation ATOMIC_MEM and SDMA ATOMIC are used with (64-bit add)


class PM4Queue(HardwareQueue):
    kind = "compute"
    pointer_unit = 4  # read/write pointers and the doorbell count dwords

    def __init__(self, *args, target: str, arch: str, lds_bytes: int, watchdog: executor.Watchdog, **kwargs):
        super().__init__(*args, **kwargs)
        self.target, self.arch, self.lds_bytes, self.watchdog = target, arch, lds_bytes, watchdog
        self.native = NativePackets()
        self.registers = self.native.registers  # uint32, by dword address: the native packets' too
        self.registers[COMPUTE_NUM_THREAD_X:COMPUTE_NUM_THREAD_X + 3] = 1  # a workgroup is one work-item until set
        width, unit = TMPRING_WAVESIZE[arch]
        self.max_private_bytes_per_lane = ((1 << width) - 1) * unit // 64

    @property
    def memory(self) -> AddressSpace:
        return self.access.memory

    def execute_pending(self, write_pointer: int) -> None:
        """The packets pending in the ring: natively as far as they go (cp/pm4_native.py), each that
        stops the native pass in Python, then natively again."""
        if not self.native.usable(self):
            self.execute_in_python(write_pointer)
            return
        while self.read_pointer < write_pointer:
            stop = self.native.run(self, write_pointer)
            if stop == Stop.WAITING:
                raise WaitNotSatisfied()
            if stop == Stop.UNFINISHED:
                self.native.resume(self)
                self.read_pointer += self.packet_length(self.ring_dword(self.read_pointer), self.ring_size // 4)
                self.stats.packets += 1
            elif stop == Stop.PYTHON:
                self.execute_one()

    def execute_in_python(self, write_pointer: int) -> None:
        """The packets pending in the ring, read in one go and run one after the other (the pass's
        common case is a dozen small packets a dispatch: no per-packet trip through the base loop)."""
        words, available = self.ring_dwords(self.read_pointer, write_pointer - self.read_pointer), self.ring_size // 4
        position = 0
        while position < len(words):
            length = self.packet_length(words[position], available)
            packet = words[position:position + length] if position + length <= len(words) else \
                self.ring_dwords(self.read_pointer, length)  # written past the doorbell's count
            skipped = self.execute(packet, depth=0)
            self.read_pointer += length + skipped
            self.stats.packets += 1
            position += length + skipped

    def execute_one(self) -> None:
        """The packet at the read pointer, in Python."""
        length = self.packet_length(self.ring_dword(self.read_pointer), self.ring_size // 4)
        skipped = self.execute(self.ring_dwords(self.read_pointer, length), depth=0)
        self.read_pointer += length + skipped
        self.stats.packets += 1

    @staticmethod
    def packet_length(header: int, available: int) -> int:
        kind = header >> 30
        if kind == 2:  # a type-2 filler dword
            return 1
        if kind != 3:
            raise QueueError(f"PM4 packet type {kind} (header 0x{header:08x}) on a compute queue: only type 3 is accepted")
        length = ((header >> 16) & 0x3FFF) + 2
        if length > available:
            raise QueueError(f"PM4 packet 0x{header:08x} claims {length} dwords, more than the {available} there are")
        return length

    def execute(self, words: list[int], depth: int) -> int:
        """Execute one whole packet (header and body); returns how many dwords after it to skip
        (PRED_EXEC for an XCC other than this GPU's one)."""
        header = words[0]
        if header >> 30 == 2:
            return 0
        opcode, body = (header >> 8) & 0xFF, words[1:]
        handler = PACKETS.get(opcode)
        if handler is None:
            raise QueueError(f"PM4 opcode 0x{opcode:02x} (header 0x{header:08x}) is not supported by the emulated MEC")
        if len(body) < handler[1]:
            raise QueueError(f"PM4 {handler[0].__name__.lstrip('_').upper()} needs {handler[1]} body dwords, got {len(body)}")
        return handler[0](self, body, depth) or 0

    def execute_stream(self, words: list[int], depth: int) -> None:
        """A stream of whole packets (an indirect buffer)."""
        position = 0
        while position < len(words):
            length = self.packet_length(words[position], len(words) - position)
            position += length + self.execute(words[position:position + length], depth)

    # ---- packets ---------------------------------------------------------------------------

    def _nop(self, body, depth):
        pass

    def _set_sh_reg(self, body, depth):
        self._set_registers(SH_REG_BASE + (body[0] & 0xFFFF), body[1:])

    def _set_uconfig_reg(self, body, depth):
        self._set_registers(UCONFIG_REG_BASE + (body[0] & 0xFFFF), body[1:])

    def _set_registers(self, first: int, values) -> None:
        self.registers[first:first + len(values)] = values

    def _dispatch_direct(self, body, depth):
        grid = tuple(body[0:3])
        desc, program, user = self.dispatch(grid, body[3])
        if desc is not None:  # the next dispatches like it may run natively
            self.native.learn(tuple(self.registers[list(KEY_REGISTERS)].tolist()) + tuple(body[0:KEY_BODY_WORDS]),
                              lambda: DispatchPlan.make(self.memory, self.target, desc, program, len(user), grid,
                                                        self._block(), self.watchdog))

    def _dispatch_indirect(self, body, depth):
        # the MEC's form: the dimensions' address (lo, hi), then the dispatch initiator
        address = body[0] | (body[1] << 32)
        self.dispatch(tuple(int(d) for d in self.access.dwords(address, 3)), body[2])

    def _block(self) -> tuple[int, int, int]:
        return tuple(int(self.registers[COMPUTE_NUM_THREAD_X + i]) & 0xFFFF for i in range(3))

    def dispatch(self, grid: tuple[int, ...], initiator: int) -> tuple:
        """The dispatch the registers describe, run; returns its (descriptor, program, user SGPRs), or
        Nones when it was empty."""
        regs = self.registers
        if not initiator & FORCE_START_AT_000 and regs[COMPUTE_START_X:COMPUTE_START_X + 3].any():
            raise QueueError("dispatches starting at a workgroup other than (0, 0, 0) are not emulated")
        block = self._block()
        if 0 in grid or 0 in block:
            return None, None, None  # an empty dispatch does nothing
        wave32 = self.arch != "cdna" and bool(initiator & CS_W32_EN)
        desc = _descriptor(self.arch, int(regs[COMPUTE_PGM_RSRC1]), int(regs[COMPUTE_PGM_RSRC2]),
                           int(regs[COMPUTE_PGM_RSRC3]), self.private_bytes_per_lane(), wave32)
        program = (int(regs[COMPUTE_PGM_LO]) | ((int(regs[COMPUTE_PGM_HI]) & PGM_HI_BITS) << 32)) << 8
        user = regs[COMPUTE_USER_DATA_0:COMPUTE_USER_DATA_0 + desc["USER_SGPR_COUNT"]].tolist()
        self.run_dispatch(desc, program, user, grid, block)
        return desc, program, user

    def run_dispatch(self, desc, program, user, grid, block) -> None:
        # what the hardware cannot launch at all, the packet processor reports as a queue error
        # (the AQL firmware's "group too large" and "invalid group memory", ROCr's scratch limit)
        if math.prod(block) > MAX_WORKGROUP_THREADS:
            raise QueueError(f"a workgroup of {block} work-items: at most {MAX_WORKGROUP_THREADS} fit in one")
        if desc.group_segment_fixed_size > self.lds_bytes:
            raise QueueError(f"{desc.group_segment_fixed_size} bytes of LDS per workgroup: the GPU has {self.lds_bytes}")
        if desc.private_segment_fixed_size > self.max_private_bytes_per_lane:
            raise QueueError(f"{desc.private_segment_fixed_size} bytes of scratch per work-item: at most "
                             f"{self.max_private_bytes_per_lane} fit COMPUTE_TMPRING_SIZE.WAVESIZE")
        self.count_dispatch(lambda: launch(self.memory, self.target, desc, program, user, grid, block, self.watchdog),
                            math.prod(grid) * math.prod(block))

    def count_dispatch(self, run: Callable[[], LaunchStats], lanes: int) -> None:
        """``run()``, a dispatch of ``lanes`` lanes, in the queue's statistics."""
        start = time.perf_counter()
        with interpreter.dispatch_running(lanes):
            stats = run()
        self.stats.dispatches += 1
        self.stats.wave_instructions += stats.wave_instructions
        self.stats.emulation_seconds += time.perf_counter() - start
        self.stats.executed |= stats.executed
        self.stats.by_reference.update(stats.by_reference)

    def private_bytes_per_lane(self) -> int:
        """COMPUTE_TMPRING_SIZE.WAVESIZE: scratch per wave64 in 256-byte units (1 KiB on gfx9)."""
        width, unit = TMPRING_WAVESIZE[self.arch]
        wave_bytes = ((int(self.registers[COMPUTE_TMPRING_SIZE]) >> 12) & ((1 << width) - 1)) * unit
        return wave_bytes // 64

    def _acquire_mem(self, body, depth):
        pass  # no caches to invalidate or write back

    def _event_write(self, body, depth):
        pass  # dispatches end before the next packet is read: every flush event is already done

    def _release_mem(self, body, depth):
        data_sel, int_sel = (body[1] >> 29) & 7, (body[1] >> 24) & 7
        address, data = body[2] | (body[3] << 32), body[4] | (body[5] << 32)
        if data_sel == 1:
            self.access.write32(address, data)
        elif data_sel == 2:
            self.access.write64(address, data)
        elif data_sel in (3, 4):
            self.access.write64(address, gpu_clock())
        elif data_sel != 0:
            raise QueueError(f"RELEASE_MEM DATA_SEL {data_sel} is not supported")
        if int_sel:
            self.raise_end_of_pipe(body[6])

    def raise_end_of_pipe(self, context_id: int) -> None:
        self.interrupt(Interrupt("end_of_pipe", context_id=context_id))

    def _wait_reg_mem(self, body, depth):
        function, mem_space, operation = body[0] & 7, (body[0] >> 4) & 3, (body[0] >> 6) & 3
        reference, mask = body[3], body[4]
        if mem_space == 1:
            value = self.access.read32((body[1] & ~3) | (body[2] << 32))
        elif operation == 1:  # write the request register, then wait on the done register
            self.registers[body[1] & 0x3FFFF] = reference
            self.registers[body[2] & 0x3FFFF] = reference
            value = reference
        else:
            value = int(self.registers[body[1] & 0x3FFFF])
        if not compare(function, value & mask, reference):
            raise WaitNotSatisfied()

    def _write_data(self, body, depth):
        dst_sel, one_address = (body[0] >> 8) & 0xF, bool(body[0] & (1 << 16))
        address, values = body[1] | (body[2] << 32), body[3:]
        if dst_sel == 0:
            for i, value in enumerate(values):
                self.registers[((body[1] & 0x3FFFF) + (0 if one_address else i)) & 0x3FFFF] = value
        elif dst_sel in (2, 5):
            for i, value in enumerate(values):
                self.access.write32(address + (0 if one_address else 4 * i), value)
        else:
            raise QueueError(f"WRITE_DATA DST_SEL {dst_sel} is not supported")

    def _copy_data(self, body, depth):
        src_sel, dst_sel, wide = body[0] & 0xF, (body[0] >> 8) & 0xF, bool(body[0] & (1 << 16))
        source = body[1] | (body[2] << 32)
        if src_sel == 0:
            value = int(self.registers[body[1] & 0x3FFFF])
        elif src_sel in (1, 2):
            value = self.access.read64(source) if wide else self.access.read32(source)
        elif src_sel == 4:
            value = 0  # performance counters: the emulator counts none
        elif src_sel == 5:
            value = source
        elif src_sel in (9, 10):
            value = gpu_clock()
        else:
            raise QueueError(f"COPY_DATA SRC_SEL {src_sel} is not supported")
        destination = body[3] | (body[4] << 32)
        if dst_sel == 0:
            self.registers[body[3] & 0x3FFFF] = value & 0xFFFFFFFF
        elif dst_sel in (2, 5):
            (self.access.write64 if wide else self.access.write32)(destination, value)
        else:
            raise QueueError(f"COPY_DATA DST_SEL {dst_sel} is not supported")

    def _indirect_buffer(self, body, depth):
        if depth >= MAX_IB_DEPTH:
            raise QueueError(f"indirect buffers nested deeper than {MAX_IB_DEPTH}")
        address, size = (body[0] & ~3) | ((body[1] & 0xFFFF) << 32), body[2] & 0xFFFFF
        self.execute_stream(self.access.dwords(address, size).tolist(), depth + 1)

    def _pred_exec(self, body, depth):
        # the emulated GPU executes everything on one XCC, XCC 0: packets for the others are skipped
        return 0 if body[0] >> 24 & 1 else body[0] & 0x3FFF

    def _atomic_mem(self, body, depth):
        if body[0] & 0x7F != ATOMIC_ADD_64:
            raise QueueError(f"ATOMIC_MEM operation {body[0] & 0x7F} is not supported")
        address, source = body[1] | (body[2] << 32), body[3] | (body[4] << 32)
        self.access.write64(address, self.access.read64(address) + source)


@functools.lru_cache(maxsize=1024)
def _descriptor(arch: str, rsrc1: int, rsrc2: int, rsrc3: int, private_bytes_per_lane: int,
                wave32: bool) -> KernelDescriptor:
    """What a dispatch's registers say as a kernel descriptor: one object per register values (a
    client dispatches the same kernels again and again, and the launch caches by descriptor)."""
    return KernelDescriptor(
        arch, group_segment_fixed_size=((rsrc2 >> 15) & 0x1FF) * LDS_GRANULE,
        private_segment_fixed_size=private_bytes_per_lane, kernarg_size=0, kernel_code_entry_byte_offset=0,
        compute_pgm_rsrc3=rsrc3, compute_pgm_rsrc1=rsrc1, compute_pgm_rsrc2=rsrc2,
        kernel_code_properties=(1 << 10) if wave32 else 0, kernarg_preload=0)


PACKETS = {  # opcode -> (handler, minimum body dwords)
    NOP: (PM4Queue._nop, 0), SET_SH_REG: (PM4Queue._set_sh_reg, 1), SET_UCONFIG_REG: (PM4Queue._set_uconfig_reg, 1),
    DISPATCH_DIRECT: (PM4Queue._dispatch_direct, 4), DISPATCH_INDIRECT: (PM4Queue._dispatch_indirect, 3),
    ACQUIRE_MEM: (PM4Queue._acquire_mem, 0), EVENT_WRITE: (PM4Queue._event_write, 1),
    RELEASE_MEM: (PM4Queue._release_mem, 7), WAIT_REG_MEM: (PM4Queue._wait_reg_mem, 6),
    WRITE_DATA: (PM4Queue._write_data, 3), COPY_DATA: (PM4Queue._copy_data, 5),
    INDIRECT_BUFFER: (PM4Queue._indirect_buffer, 3), PRED_EXEC: (PM4Queue._pred_exec, 1),
    ATOMIC_MEM: (PM4Queue._atomic_mem, 8),
}
