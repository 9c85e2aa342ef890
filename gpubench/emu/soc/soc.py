"""One emulated chip's SoC: its VRAM, its register file and the blocks that give registers
behaviour, wired through the chip's IP discovery facts.

Blocks are small classes with a `hw_id` and a `registers()` table (register name -> Register); the
SoC places each register at its block's base for the register's segment plus the header offset.
VRAM is seen at the memory controller's addresses [fb_base, fb_base + VRAM size), as the PSP and
SMU see memory the driver hands them.
"""
from __future__ import annotations

import numpy as np

from gpubench.emu.soc import discovery, regmap
from gpubench.emu.soc.chips import Chip
from gpubench.emu.soc.gfx import GraphicsCore
from gpubench.emu.soc.gmc import MemoryHubs
from gpubench.emu.soc.ih import InterruptHandler
from gpubench.emu.soc.nbio import HostInterface
from gpubench.emu.soc.psp import PlatformSecurityProcessor
from gpubench.emu.soc.registers import Register, RegisterFile
from gpubench.emu.soc.sdma import SystemDMA
from gpubench.emu.soc.smu import SystemManagementUnit


class SoC:
    def __init__(self, chip: Chip, vram: np.ndarray, mmio: np.ndarray):
        self.chip, self.vram = chip, vram
        self.gpuvm = None  # the GC hub's translations, once a command processor is attached (compute.py)
        self.command_processor = None  # runs the queues the driver starts (compute.py)
        table = discovery.discovery_binary(chip)
        top = chip.vram_bytes - discovery.TMR_OFFSET_FROM_TOP
        vram[top:top + len(table)] = np.frombuffer(table, np.uint8)
        self.nbio = HostInterface(self)
        self.gmc = MemoryHubs(self)
        self.psp = PlatformSecurityProcessor(self)
        self.smu = SystemManagementUnit(self)
        self.gfx = GraphicsCore(self)
        self.sdma = SystemDMA(self)
        self.ih = InterruptHandler(self)
        behaviour = {regmap.RCC_CONFIG_MEMSIZE: Register(reset=chip.vram_bytes >> 20)}
        for block in (self.nbio, self.gmc, self.psp, self.smu, self.gfx, self.sdma, self.ih):
            for hw_id, name, register, *instance in block.registers():  # (hw_id, name, register[, instance])
                behaviour[self.address(hw_id, name, *instance)] = register
        self.registers = RegisterFile(mmio, behaviour, self.gfx.banks())

    def address(self, hw_id: int, name: str, instance: int = 0) -> int:
        segment, offset = regmap.offsets(hw_id, self.chip.version(hw_id))[name]
        return self.chip.base(hw_id, segment, instance) + offset

    def has(self, hw_id: int, name: str) -> bool:
        return name in regmap.offsets(hw_id, self.chip.version(hw_id))

    def read(self, hw_id: int, name: str, instance: int = 0) -> int:
        return self.registers.read(self.address(hw_id, name, instance))

    def queue_started(self, queue) -> None:
        if self.command_processor is not None:
            self.command_processor.start(queue)

    def queue_stopped(self, queue) -> None:
        if self.command_processor is not None:
            self.command_processor.stop(queue)

    def mc_view(self, address: int, size: int) -> np.ndarray:
        """VRAM bytes at a memory-controller address, as the SoC's own engines reach them."""
        offset = address - self.chip.fb_base
        if offset < 0 or offset + size > self.chip.vram_bytes:
            raise ValueError(f"MC address 0x{address:x} (+0x{size:x}) is outside VRAM "
                             f"[0x{self.chip.fb_base:x}, 0x{self.chip.fb_base + self.chip.vram_bytes:x})")
        return self.vram[offset:offset + size]
