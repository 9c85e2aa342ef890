"""Register BARs mapped into the client, by address: the seam asks `register_window(address,
nbytes, fmt)` when tinygrad makes an MMIO view, and gets a view whose dword reads and writes go to
the register file (None outside a register BAR, or for a view that is not of dwords)."""
from __future__ import annotations

import numpy as np

_mapped: dict[int, tuple[int, object, int]] = {}  # client address -> (bytes, register file, first dword)


def mapped(address: int, size: int, registers, offset: int) -> None:
    _mapped[address] = (size, registers, offset // 4)


def unmapped(address: int, size: int) -> None:
    for start in [a for a, (n, _, _) in _mapped.items() if a < address + size and address < a + n]:
        del _mapped[start]


class RegisterWindow:
    """Dwords [first, first + count) of a register file, indexed like a memoryview of 'I'."""

    def __init__(self, registers, first: int, count: int):
        self.registers, self.first, self.count = registers, first, count

    def __len__(self) -> int:
        return self.count

    def _address(self, index: int) -> int:
        if not -self.count <= index < self.count:
            raise IndexError(f"register {index} is outside this {self.count}-register view")
        return self.first + index % self.count

    def __getitem__(self, key):
        if isinstance(key, slice):
            return np.array([self.registers.read(self._address(i)) for i in range(*key.indices(self.count))], np.uint32)
        return self.registers.read(self._address(key))

    def __setitem__(self, key, value) -> None:
        if isinstance(key, slice):
            for i, word in zip(range(*key.indices(self.count)), value):
                self.registers.write(self._address(i), int(word))
        else:
            self.registers.write(self._address(key), int(value))

    def cast(self, fmt: str) -> "RegisterWindow":
        if fmt != "I":
            raise TypeError(f"a register BAR is read as dwords, not '{fmt}'")
        return self


def register_window(address: int, nbytes: int, fmt: str) -> RegisterWindow | None:
    if fmt != "I" or address % 4 or nbytes % 4:
        return None
    for start, (size, registers, first) in _mapped.items():
        if start <= address and address + nbytes <= start + size:
            return RegisterWindow(registers, first + (address - start) // 4, nbytes // 4)
    return None
