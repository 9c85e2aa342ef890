"""What native code and Python agree on: the dispatch block, a wave's frame, an instruction's record
and the statuses a handler returns. All are arrays of 64-bit words, so both sides index them by the
slot numbers here and nothing depends on a C compiler's struct layout.
"""
from __future__ import annotations

import enum


class Status(enum.IntEnum):
    """What a handler (and the loop, for a wave) returns."""

    NEXT = 0  # go on at pc + size
    JUMPED = 1  # the handler set the PC
    END = 2  # s_endpgm: the wave is done
    BARRIER = 3  # s_barrier: the wave waits at pc + size for its workgroup
    REFERENCE = 4  # the reference engine runs this instruction (nothing was changed)
    UNBOUND = 5  # no record for this PC yet (the loop's own status)
    BUDGET = 6  # the call's budget of wave-instructions is spent (the loop's own status)


class Dispatch:
    """Slots of the dispatch block: the waves' arrays, the program, the memory map, counters. (Plain
    ints, not an enum: the engine reads them every round, and an enum member costs a lookup.)"""

    SGPR = 0  # uint32 [waves, 128]
    VGPR = 1  # uint32 [waves, vgprs, lanes]
    VGPR_STRIDE = 2  # bytes of one wave's VGPRs
    PC = 3  # int64 [waves]
    SCC = 4  # bool [waves]
    MODE = 5  # uint32 [waves]
    EXECUTED = 6  # int64 [waves]
    CODE_BASE = 7  # the address the record table starts at
    TABLE = 8  # int32 [dwords of code]: record index, or Binding.UNBOUND / Binding.REFERENCE
    TABLE_LENGTH = 9
    RECORDS = 10  # int64 [records, RECORD_WORDS]
    MAPS = 11  # int64 [maps, MAP_WORDS], sorted by base
    MAP_COUNT = 12
    LANE_OPERATIONS = 13  # counters the loop adds to
    WAVE_INSTRUCTIONS = 14
    BUDGET = 15  # wave-instructions this call may still execute
    WAVE_LIST = 16  # int64 [n]: the waves to run
    WAVE_COUNT = 17
    STATUS_LIST = 18  # int32 [n]: each wave's Status when it stopped
    REACHED = 19  # uint8 [records]: set when a record's instruction runs (the coverage of a dispatch)
    LAST_MAP = 20  # the map the last access hit (a one-entry TLB)
    LDS = 21  # uint8 [workgroups, LDS_BYTES]: ctx.lds
    LDS_BYTES = 22  # LDS bytes per workgroup
    WORKGROUP = 23  # int64 [waves]: each wave's workgroup (its row of LDS)
    TRAP_STATUS = 24  # uint32 [waves]: the trap status register (0 unless the program's handlers use it)
    SLOTS = 25


class Frame:
    """Slots of one wave's frame, which the loop fills and passes to every handler."""

    SGPR = 0  # this wave's uint32 [128]
    VGPR = 1  # this wave's uint32 [vgprs, lanes]
    PC = 2  # -> int64
    SCC = 3  # -> uint8
    MODE = 4  # -> uint32
    DISPATCH = 5  # -> the dispatch block
    WAVE = 6  # the wave's index (into the dispatch block's per-wave arrays)
    SLOTS = 8


RECORD_WORDS = 12  # [handler address, size in bytes, operand words...]
RECORD_FN, RECORD_SIZE, RECORD_OPERANDS = 0, 1, 2
OPERAND_WORDS = RECORD_WORDS - RECORD_OPERANDS
MAP_WORDS = 4  # [base, end, host address, writable]


class Binding(enum.IntEnum):
    """Table entries that are not record indices."""

    UNBOUND = -1
    REFERENCE = -2
