"""AQL queues (HSA architected queuing language; hsa.h and ROCR's amd_hsa_queue.h / amd_hsa_signal.h).

The ring holds 64-byte packets; the write pointer (amd_queue_t.write_dispatch_id, which the client
advances before it rings the doorbell) and the read pointer (read_dispatch_id) count packets. Packet kinds: KERNEL_DISPATCH (the
kernel descriptor at kernel_object gives the program, the RSRC registers and which user SGPRs to
set up, as the CP firmware does), BARRIER_AND / BARRIER_OR (wait on up to five signals reaching
0), and the vendor-specific AMD PM4 IB packet (an INDIRECT_BUFFER run by the PM4 processor).
A completed packet with a completion signal decrements it, and raises the signal's event.
"""
from __future__ import annotations

import dataclasses
import struct

from gpubench.emu.cp.pm4 import PM4Queue
from gpubench.emu.cp.queue import HardwareQueue, Interrupt, QueueError, WaitNotSatisfied
from gpubench.emu import abi
from gpubench.isa.codeobject import DESCRIPTOR_SIZE, KernelDescriptor

PACKET_BYTES = 64
VENDOR_SPECIFIC, INVALID, KERNEL_DISPATCH, BARRIER_AND, AGENT_DISPATCH, BARRIER_OR = range(6)
AMD_PM4_IB_FORMAT = 1
# amd_queue_t: offsets of the fields the packet processor reads (the KFD queue's read pointer
# address is the queue's read_dispatch_id; the rest is found from there)
READ_DISPATCH_ID, SCRATCH_RESOURCE_DESCRIPTOR, SCRATCH_WAVE64_LANE_BYTES = 128, 144, 176
# amd_signal_t
SIGNAL_VALUE, SIGNAL_EVENT_MAILBOX, SIGNAL_EVENT_ID = 8, 16, 24


class AQLQueue(PM4Queue):
    kind = "aql"
    pointer_unit = PACKET_BYTES
    execute_pending = HardwareQueue.execute_pending  # one 64-byte packet after the other, not a PM4 stream

    def write_pointer(self) -> int:
        # the packet processor reads amd_queue_t.write_dispatch_id; the doorbell only wakes it
        return self.access.read64(self.write_pointer_address)

    @property
    def queue_address(self) -> int:
        return self.read_pointer_address - READ_DISPATCH_ID

    def execute_packet(self) -> int:
        address = self.ring_address + (self.read_pointer * PACKET_BYTES) % self.ring_size
        packet = self.access.read(address, PACKET_BYTES)
        header = struct.unpack_from("<H", packet)[0]
        kind = header & 0xFF
        if kind == KERNEL_DISPATCH:
            self.kernel_dispatch(packet, address)
        elif kind in (BARRIER_AND, BARRIER_OR):
            self.barrier(packet, require_all=kind == BARRIER_AND)
        elif kind == VENDOR_SPECIFIC:
            self.vendor_packet(packet)
        elif kind == INVALID:
            raise WaitNotSatisfied()  # the slot is not written yet
        else:
            raise QueueError(f"AQL packet type {kind} (header 0x{header:04x}) at 0x{address:x} is not supported")
        self.complete(struct.unpack_from("<Q", packet, 56)[0])
        self.access.write32(address, INVALID)  # hand the slot back, as the packet processor does
        return 1

    def kernel_dispatch(self, packet: bytes, address: int) -> None:
        (_, _, *fields) = struct.unpack_from("<HHHHHHIIIIIQQ", packet)
        block, grid_items = tuple(fields[0:3]), tuple(fields[4:7])
        private_size, group_size, kernel_object, kernarg = fields[7:11]
        if 0 in block or 0 in grid_items:  # the firmware's "invalid dimensions" queue error
            raise QueueError(f"AQL dispatch at 0x{address:x} with grid {grid_items} and workgroup {block}: "
                             "sizes must be at least 1")
        if any(g % b for g, b in zip(grid_items, block)):
            raise QueueError(f"grid {grid_items} is not a multiple of the workgroup size {block}: "
                             "partial workgroups are not emulated")
        raw = self.access.read(kernel_object, DESCRIPTOR_SIZE)
        desc = KernelDescriptor.parse(raw, self.arch)
        desc = dataclasses.replace(desc, group_segment_fixed_size=group_size,
                                   private_segment_fixed_size=max(private_size, desc.private_segment_fixed_size))
        queue = self.queue_address
        scratch = tuple(self.access.read32(queue + SCRATCH_RESOURCE_DESCRIPTOR + 4 * i) for i in range(4))
        user = abi.user_sgpr_values(desc, abi.LaunchAddresses(
            kernarg_ptr=kernarg, dispatch_ptr=address, queue_ptr=queue, dispatch_id=self.read_pointer,
            private_segment_size=desc.private_segment_fixed_size, private_segment_buffer=scratch))
        preload = desc["KERNARG_PRELOAD_SPEC_LENGTH"] + desc["KERNARG_PRELOAD_SPEC_OFFSET"]
        user += abi.preloaded_kernargs(desc, self.access.read(kernarg, 4 * preload) if preload else b"")
        grid = tuple(g // b for g, b in zip(grid_items, block))
        self.run_dispatch(desc, abi.entry_point(desc, kernel_object), user, grid, block)

    def barrier(self, packet: bytes, require_all: bool) -> None:
        signals = [s for s in struct.unpack_from("<5Q", packet, 8) if s]
        done = [self.access.read64(s + SIGNAL_VALUE) == 0 for s in signals]
        if signals and not (all(done) if require_all else any(done)):
            raise WaitNotSatisfied()

    def vendor_packet(self, packet: bytes) -> None:
        if struct.unpack_from("<H", packet, 2)[0] != AMD_PM4_IB_FORMAT:
            raise QueueError("a vendor-specific AQL packet that is not an AMD PM4 IB packet")
        words = struct.unpack_from("<4I", packet, 4)
        self.execute(list(words), depth=0)

    def complete(self, signal: int) -> None:
        if not signal:
            return
        self.access.write64(signal + SIGNAL_VALUE, self.access.read64(signal + SIGNAL_VALUE) - 1)
        mailbox = self.access.read64(signal + SIGNAL_EVENT_MAILBOX)
        if mailbox:
            event_id = self.access.read32(signal + SIGNAL_EVENT_ID)
            self.access.write32(mailbox, event_id)
            self.interrupt(Interrupt("end_of_pipe", context_id=event_id))
