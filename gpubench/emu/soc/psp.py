"""The PSP (MP0) as a driver that loads firmware itself sees it: the bootloader's mailbox, the sOS
it starts, the KM ring the driver creates with the sOS, and the ring commands that load each IP
block's firmware, set up the TMR and start the RLC's autoload.

Bootloader (C2PMSG_35/36): bit 31 of C2PMSG_35 says the bootloader is ready; the driver puts a
component in the 1 MiB message buffer, writes its MC address >> 20 to C2PMSG_36 and the
component id to C2PMSG_35; loading the sOS (LOAD_SOSDRV) starts it, and C2PMSG_81 then reads
non-zero (sOS alive) and C2PMSG_64 has bit 31 set (sOS ready for ring commands).
Ring (C2PMSG_64/67/69/70/71): the ring's MC address and size in 69/70/71, the ring type << 16 in
64 creates it, the driver writes 64-byte frames and moves the write pointer (dwords) in 67; each
frame names a command buffer, whose response status the PSP writes, and a fence the PSP writes
the frame's fence value to.

The emulator does not run AMD's microcode: a component or firmware the PSP accepts is recorded
(`self.loaded`), real linux-firmware blobs and gpubench's stand-in images (firmware.py) alike.
"""
from __future__ import annotations

import logging
import struct

import numpy as np

from gpubench.emu.soc.chips import MP0
from gpubench.emu.soc.registers import Register

log = logging.getLogger("gpubench.soc")

READY = 1 << 31
LOAD_SOSDRV = 0x20000
RING_TYPE_KM, DESTROY_RINGS = 2, 0x30000
FRAME_BYTES, COMMAND_BYTES = 64, 1024
LOAD_IP_FW, SETUP_TMR, LOAD_TOC, AUTOLOAD_RLC, SPATIAL_PARTITION = 0x6, 0x5, 0x20, 0x21, 0x27
FW_TYPE_RLC_G = 0x8
STATUS_OK, STATUS_FAILED, STATUS_UNKNOWN_COMMAND = 0, 0x1, 0x100
RESPONSE_STATUS, RESPONSE_TMR_SIZE = 864, 880  # byte offsets in the command buffer
SOS_VERSION = 0x00310000  # what C2PMSG_81 reads once the sOS runs
TMR_BYTES = 16 << 20  # the trusted memory region the sOS asks for in its LOAD_TOC response


def _mailboxes(version: tuple[int, int, int]) -> str:
    return "MPASP_SMN_C2PMSG" if version >= (14, 0, 0) else "MP0_SMN_C2PMSG"  # MP0 v14 renamed them


class PlatformSecurityProcessor:
    def __init__(self, soc):
        self.soc = soc
        self.prefix = _mailboxes(soc.chip.version(MP0))
        self.sos_alive = False
        self.ring: tuple[int, int] | None = None  # MC address, bytes
        self.ring_read = 0  # dwords
        self.components: list[int] = []  # bootloader component ids, in load order
        self.loaded: dict[int, int] = {}  # firmware type -> bytes, from LOAD_IP_FW
        self.tmr: tuple[int, int] | None = None

    def _msg(self, n: int) -> str:
        return f"{self.prefix}_{n}"

    def _reg(self, n: int) -> int:
        return self.soc.registers.load(self.soc.address(MP0, self._msg(n)))

    def _set(self, n: int, value: int) -> None:
        self.soc.registers.store(self.soc.address(MP0, self._msg(n)), value)

    def _bootloader_command(self, component: int) -> None:
        self.components.append(component)
        if component == LOAD_SOSDRV:
            self.sos_alive = True
            self._set(81, SOS_VERSION)
            self._set(64, READY)
        self._set(35, READY)

    def _ring_control(self, command: int) -> None:
        if not self.sos_alive:
            return  # no sOS to answer: bit 31 stays clear
        if command == DESTROY_RINGS:
            self.ring = None
        elif command >> 16 == RING_TYPE_KM:
            self.ring, self.ring_read = ((self._reg(70) << 32) | self._reg(69), self._reg(71)), 0
        else:
            log.warning("psp: ring control 0x%x is not emulated", command)
            return
        self._set(64, READY)

    def _ring_write_pointer(self, write: int) -> None:
        if self.ring is None:
            log.error("psp: write pointer moved to %d with no ring created", write)
            return
        address, size = self.ring
        while self.ring_read != write % (size // 4):
            frame = self.soc.mc_view(address + self.ring_read * 4, FRAME_BYTES).tobytes()
            command_lo, command_hi, _, fence_lo, fence_hi, fence_value = struct.unpack_from("<6I", frame)
            self._execute((command_hi << 32) | command_lo)
            self.soc.mc_view((fence_hi << 32) | fence_lo, 4).view(np.uint32)[0] = fence_value
            self.ring_read = (self.ring_read + FRAME_BYTES // 4) % (size // 4)

    def _execute(self, address: int) -> None:
        buffer = self.soc.mc_view(address, COMMAND_BYTES)
        words = buffer.view(np.uint32)
        command = int(words[2])
        arguments = words[7:11]
        status = STATUS_OK
        if command == LOAD_IP_FW:
            self.loaded[int(arguments[3])] = int(arguments[2])
        elif command == SETUP_TMR:
            self.tmr = ((int(arguments[1]) << 32) | int(arguments[0]), int(arguments[2]))
        elif command == LOAD_TOC:
            words[RESPONSE_TMR_SIZE // 4] = TMR_BYTES
        elif command == AUTOLOAD_RLC:
            if FW_TYPE_RLC_G in self.loaded:
                self.soc.gfx.rlc_started()
            else:
                log.error("psp: AUTOLOAD_RLC before the RLC firmware (type 0x%x) was loaded", FW_TYPE_RLC_G)
                status = STATUS_FAILED
        elif command != SPATIAL_PARTITION:
            log.warning("psp: ring command 0x%x is not emulated", command)
            status = STATUS_UNKNOWN_COMMAND
        words[RESPONSE_STATUS // 4] = status

    def registers(self):
        return [(MP0, self._msg(35), Register(reset=READY, on_write=self._bootloader_command)),
                (MP0, self._msg(64), Register(on_write=self._ring_control)),
                (MP0, self._msg(67), Register(on_write=self._ring_write_pointer))]
