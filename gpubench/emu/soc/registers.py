"""The register file behind the MMIO BAR: one 32-bit word per register, held in the BAR's memory,
and a table of the registers that do something when read or written (a mailbox that answers, a
request that is acknowledged, a status that is computed). Every other register keeps what was
last written to it, its reset value until then.

A block (psp.py, smu.py ...) describes its registers as data: name -> Register(reset, on_read,
on_write), resolved to dword addresses through the chip's IP bases and regmap.py's offsets.

Banked registers (a Bank: a range of addresses and the selector register's current choice, such
as GRBM_GFX_CNTL's ME/pipe/queue for the HQD registers) keep one value per choice.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import numpy as np


@dataclass(frozen=True)
class Bank:
    first: int
    last: int
    selected: Callable[[], tuple]  # which copy of the range accesses reach now


@dataclass(frozen=True)
class Register:
    reset: int = 0
    on_read: Callable[[], int] | None = None  # the value a read returns, computed
    on_write: Callable[[int], None] | None = None  # what the hardware does with a written value (stored first)


class RegisterFile:
    def __init__(self, storage: np.ndarray, behaviour: dict[int, Register], banks: tuple[Bank, ...] = ()):
        self.words = storage.view(np.uint32)
        self.behaviour, self.banks = behaviour, ()
        self.beyond: dict[int, int] = {}  # registers past the BAR, reached through the indirect window
        self.banked: dict[tuple[tuple, int], int] = {}  # (bank choice, address) -> value
        for address, register in behaviour.items():
            self.store(address, register.reset)  # banked registers reset to 0 in every bank
        self.banks = banks

    def read(self, address: int) -> int:
        register = self.behaviour.get(address)
        if register is not None and register.on_read is not None:
            return register.on_read() & 0xFFFFFFFF
        return self.load(address)

    def write(self, address: int, value: int) -> None:
        self.store(address, value & 0xFFFFFFFF)
        register = self.behaviour.get(address)
        if register is not None and register.on_write is not None:
            register.on_write(value & 0xFFFFFFFF)

    def bank_choice(self, address: int) -> tuple | None:
        return next((bank.selected() for bank in self.banks if bank.first <= address <= bank.last), None)

    def load(self, address: int, choice: tuple | None = None) -> int:
        choice = choice or self.bank_choice(address)
        if choice is not None:
            return self.banked.get((choice, address), 0)
        return int(self.words[address]) if address < len(self.words) else self.beyond.get(address, 0)

    def store(self, address: int, value: int, choice: tuple | None = None) -> None:
        choice = choice or self.bank_choice(address)
        if choice is not None:
            self.banked[(choice, address)] = value
        elif address < len(self.words):
            self.words[address] = value
        else:
            self.beyond[address] = value
