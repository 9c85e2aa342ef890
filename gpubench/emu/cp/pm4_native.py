"""A compute queue's packets run natively where they can (emu/native/packets.py says which and how),
and what Python does around such a run: the pass's state block, the queue's dispatch plans, the
interrupts and statistics the run leaves behind.

The pass is used when nothing watches the memory from Python (a recorder sees each access) and the
ring lies in one mapping; its dispatch plans (emu/native/plans.py) only while `plans.allowed()`.
"""
from __future__ import annotations

import numpy as np

from gpubench.emu.cp import interpreter
from gpubench.emu.memory import AddressSpace
from gpubench.emu.native import engine, packets, plans
from gpubench.emu.native.layout import Dispatch
from gpubench.emu.native.packets import State, Stop


class NativePackets:
    """One queue's (passed to each call: the queue owns this, and a cycle would keep its memory past close)."""

    def __init__(self):
        self.registers = np.zeros(packets.REGISTER_SPACE, np.uint32)  # the queue's register file
        self.plans = plans.Plans()
        self.state = np.zeros(State.SLOTS, np.int64)
        self.memory_block = np.zeros(int(Dispatch.SLOTS), np.int64)
        self.interrupts = np.zeros(packets.MAX_INTERRUPTS, np.uint32)
        self.state[State.REGISTERS] = engine.address(self.registers)
        self.state[State.MEMORY] = engine.address(self.memory_block)
        self.state[State.PLANS] = engine.address(self.plans.table)
        self.state[State.INTERRUPTS] = engine.address(self.interrupts)
        self._ring_at = (None, -1, 0)  # (memory, generation, host address of the ring)

    def usable(self, queue) -> bool:
        memory = queue.memory
        return type(memory) is AddressSpace and not engine.watched(memory) and self._ring(queue, memory) != 0

    def _ring(self, q, memory: AddressSpace) -> int:
        """The ring's host address, 0 if no one mapping holds it (looked up again when mappings change)."""
        if self._ring_at[0] is not memory or self._ring_at[1] != memory.generation:
            mapping = memory.find(q.ring_address)
            host = 0
            if mapping is not None and q.ring_address + q.ring_size <= mapping.end and q.ring_size % 4 == 0:
                host = engine.address(mapping.data) + q.ring_address - mapping.base
            self._ring_at = (memory, memory.generation, host)
        return self._ring_at[2]

    def run(self, q, write_pointer: int) -> Stop:
        """Packets from the queue's read pointer on, natively, until one stops the pass; the read
        pointer, the statistics and the interrupts raised as the packets ran are the queue's after."""
        s = self.state
        maps = engine.maps_of(q.memory)
        self.memory_block[Dispatch.MAPS], self.memory_block[Dispatch.MAP_COUNT] = engine.address(maps), len(maps)
        s[State.RING], s[State.RING_DWORDS] = self._ring(q, q.memory), q.ring_size // 4
        s[State.READ], s[State.WRITE] = q.read_pointer, write_pointer
        s[State.PLAN_COUNT] = len(self.plans.plans) if plans.allowed() else 0
        for slot in (State.INTERRUPT_COUNT, State.PACKETS, State.DISPATCHES, State.WAVE_INSTRUCTIONS,
                     State.EMULATION_NS, State.PLANS_RUN):
            s[slot] = 0
        interpreter.running_without_the_gil()
        stop = Stop(packets.pass_function()(engine.address(s)))
        q.read_pointer = int(s[State.READ])
        stats = q.stats
        stats.packets += int(s[State.PACKETS])
        if s[State.DISPATCHES]:
            stats.dispatches += int(s[State.DISPATCHES])
            stats.wave_instructions += int(s[State.WAVE_INSTRUCTIONS])
            stats.emulation_seconds += int(s[State.EMULATION_NS]) * 1e-9
            ran = int(s[State.PLANS_RUN])
            for row, plan in enumerate(self.plans.plans):
                if ran >> row & 1:
                    stats.executed |= plan.executed()
        for context_id in self.interrupts[:int(s[State.INTERRUPT_COUNT])].tolist():
            q.raise_end_of_pipe(context_id)
        return stop

    def resume(self, queue) -> None:
        """The rest of the planned dispatch the pass stopped in (Stop.UNFINISHED), in Python."""
        plan = self.plans.plans[int(self.state[State.STOPPED_PLAN])]
        queue.count_dispatch(plan.resume, plan.ctx.waves.count * plan.ctx.waves.wave_size)

    def learn(self, key: tuple[int, ...], make) -> None:
        """After Python ran a dispatch: the plan ``make()`` returns for the next ones with ``key``."""
        if plans.allowed():
            self.plans.learn(key, make())
