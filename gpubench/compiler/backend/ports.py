"""Wave state that a compiled instruction reads and writes: its ports, their widths and array dtypes.

A port is a register of the wave as the pseudocode names it (S0, D0, SCC, VCC, ...), or a field of a
state record (WAVE_MODE.IEEE -> ``WAVE_MODE_IEEE``). Its array holds one element per lane (VALU) or
per wave (SALU):
  - a flag (SCC, VCCZ, WAVE32, record fields) is a bool array;
  - a lane mask accessed as this lane's bit (``VCC.u64[laneId]``) is a bool array of that bit;
  - any other register is uint32 (up to 32 bits used), uint64 (up to 64), or for wider operands
    (V_MQSAD_U32_U8's 128-bit D0) a (n, words) uint32 array, least significant word first.
A port is an input if the pseudocode reads it before writing it, or writes only some of its bits
(then the old value supplies the rest); it is an output if the pseudocode writes it.

Widths come from a first compilation pass that records every access (``PortUse``); the second pass
compiles against the resulting ``PortSpec``s.
"""
from __future__ import annotations

from dataclasses import dataclass

from gpubench.compiler.backend.operands import BackendUnsupported

# Registers the emulator provides. A bare read of one (``S0``) reads all 64 bits, as the evaluator's
# environment holds them.
REGISTERS = frozenset({
    "S0", "S1", "S2", "D0", "D1", "VCC", "EXEC", "laneId", "M0", "SIMM16", "SIMM32", "OPSEL", "OPSEL_HI",
    "NEG", "NEG_HI", "PC",
})
FLAGS = frozenset({"SCC", "VCCZ", "EXECZ", "WAVE32", "WAVE64", "FP8_FNUZ"})  # FP8_FNUZ: corrections.py
# Fields of the state records, each a one-bit flag.
RECORD_FIELDS = {
    "WAVE_MODE": frozenset({"IEEE", "GPR_IDX_EN"}),
    "WAVE_STATUS": frozenset({"PRIV", "COND_DBG_SYS", "COND_DBG_USER"}),
    "TRAPSTS": frozenset({"INVALID"}),
}
PROVISIONAL_WIDTH = 64  # the width a register has in the first pass, as in the evaluator

NOT_MODELLED_STATE = {
    "VGPR": "cross-lane VGPR access belongs to the emulator (it gathers operands before the call)",
    "SGPR": "register-file indexing (SGPR[...]) belongs to the emulator",
    "MEM": "memory belongs to the emulator's memory model",
    "LDS": "memory belongs to the emulator's memory model",
    "HW_REGISTERS": "hardware registers outside one lane",
}


def field_port(record: str, field_name: str) -> str:
    return f"{record}_{field_name}"


@dataclass
class PortUse:
    """What the first pass saw of one port."""

    name: str
    flag: bool
    lane_bit: bool | None = None  # None until the first access decides
    read_extent: int = 0  # bits read before they were written
    write_extent: int = 0
    defined: int = 0  # bits written on every path so far (bit mask; bit 0 for lane-bit ports)

    def access(self, lane_bit: bool, instruction: str) -> None:
        if self.lane_bit is not None and self.lane_bit != lane_bit:
            raise BackendUnsupported(
                f"{instruction}: {self.name} is used both as this lane's bit ({self.name}[laneId]) and as a "
                "whole register; the backend gives a port one of the two forms")
        self.lane_bit = lane_bit

    def note_read(self, lo: int, hi: int) -> None:
        wanted = ((1 << hi) - 1) ^ ((1 << lo) - 1)
        if wanted & ~self.defined:
            self.read_extent = max(self.read_extent, hi)

    def note_write(self, lo: int, hi: int, unconditional: bool) -> None:
        self.write_extent = max(self.write_extent, hi)
        if unconditional:
            self.defined |= ((1 << hi) - 1) ^ ((1 << lo) - 1)

    def spec(self) -> PortSpec:
        if self.lane_bit or self.flag:
            width = 1
        else:
            used = max(self.read_extent, self.write_extent)
            width = 32 if used <= 32 else 64 if used <= 64 else -(-used // 32) * 32
        is_output = self.write_extent > 0
        partial = is_output and (self.defined & ((1 << width) - 1)) != (1 << width) - 1
        return PortSpec(self.name, width, bool(self.lane_bit), self.read_extent > 0 or partial, is_output)


@dataclass(frozen=True)
class PortSpec:
    """One port of a compiled instruction: its name, width and whether it is read and/or written."""

    name: str
    width: int  # 1: a bool array (flag or lane bit); 32/64: uint32/uint64; more: (n, width/32) uint32
    lane_bit: bool
    is_input: bool
    is_output: bool

    @property
    def dtype(self) -> str:
        """The numpy dtype of the port's array."""
        return "bool" if self.width == 1 else "uint64" if self.width == 64 else "uint32"

    @property
    def words(self) -> int:
        """For a port wider than 64 bits, the number of uint32 words per element; else 0."""
        return self.width // 32 if self.width > 64 else 0
