"""The SMU (MP1) message mailbox: the driver clears the response register (C2PMSG_90), puts the
argument in C2PMSG_82 and the message id in C2PMSG_66; the SMU answers in C2PMSG_90 (1: OK,
0xFE: unknown message) and leaves its return value in C2PMSG_82. The DPM tables are the
product's clock levels (`CLOCK_LEVELS_MHZ`), which GetDpmFreqByIndex reports (index 0xFF: the
number of levels) and SetSoftMin/MaxByFreq choose among.

Message ids are those of SMU 13.0.0 and 14.0.2 (smu_v13_0_0_ppsmc.h, smu_v14_0_2_ppsmc.h), the
SMUs of the RDNA3 and RDNA4 parts, which agree on every message used here.
"""
from __future__ import annotations

import logging

from gpubench.emu.soc.chips import MP1
from gpubench.emu.soc.registers import Register

log = logging.getLogger("gpubench.soc")

RESULT_OK, RESULT_UNKNOWN = 0x1, 0xFE
GET_SMU_VERSION, ENABLE_ALL_FEATURES, DRIVER_DRAM_HIGH, DRIVER_DRAM_LOW = 2, 6, 14, 15
SOFT_MIN, SOFT_MAX, GET_DPM_FREQ, SET_PPT_LIMIT = 25, 26, 31, 50
LEVEL_COUNT = 0xFF
SMU_VERSION = 0x004E4B00
GFXCLK, SOCCLK, UCLK, FCLK = 0, 1, 2, 3
CLOCK_LEVELS_MHZ = {GFXCLK: (500, 1500, 2500), SOCCLK: (600, 1000, 1200), UCLK: (96, 772, 1249),
                    FCLK: (400, 1400, 1900)}


class SystemManagementUnit:
    def __init__(self, soc):
        self.soc = soc
        self.driver_table = 0
        self.features_enabled = False
        self.soft_limits: dict[int, list[int]] = {}  # clock -> [min MHz, max MHz]
        self.messages: list[tuple[int, int]] = []  # (message, argument), in arrival order

    def _address(self, n: int) -> int:
        return self.soc.address(MP1, f"MP1_SMN_C2PMSG_{n}")

    def _message(self, message: int) -> None:
        argument = self.soc.registers.load(self._address(82))
        self.messages.append((message, argument))
        result, value = RESULT_OK, argument
        clock, index = argument >> 16, argument & 0xFFFF
        if message == GET_SMU_VERSION:
            value = SMU_VERSION
        elif message == DRIVER_DRAM_HIGH:
            self.driver_table = (argument << 32) | (self.driver_table & 0xFFFFFFFF)
        elif message == DRIVER_DRAM_LOW:
            self.driver_table = (self.driver_table & ~0xFFFFFFFF) | argument
        elif message == ENABLE_ALL_FEATURES:
            self.features_enabled = True
        elif message == GET_DPM_FREQ and clock in CLOCK_LEVELS_MHZ:
            levels = CLOCK_LEVELS_MHZ[clock]
            value = len(levels) if index == LEVEL_COUNT else levels[min(index, len(levels) - 1)]
        elif message in (SOFT_MIN, SOFT_MAX) and clock in CLOCK_LEVELS_MHZ:
            self.soft_limits.setdefault(clock, [0, 0xFFFF])[message == SOFT_MAX] = index
        elif message != SET_PPT_LIMIT:
            log.warning("smu: message 0x%x (argument 0x%x) is not emulated", message, argument)
            result = RESULT_UNKNOWN
        self.soc.registers.store(self._address(82), value)
        self.soc.registers.store(self._address(90), result)

    def registers(self):
        return [(MP1, "MP1_SMN_C2PMSG_66", Register(on_write=self._message))]
