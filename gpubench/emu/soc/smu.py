"""The SMU (MP1) message mailbox: the driver clears the response register (C2PMSG_90), puts the
argument in C2PMSG_82 and the message id in C2PMSG_66; the SMU answers in C2PMSG_90 (1: OK,
0xFE: unknown message) and leaves its return value in C2PMSG_82. The DPM tables are the
product's clock levels (`CLOCK_LEVELS_MHZ`), which GetDpmFreqByIndex reports (index 0xFF: the
number of levels) and SetSoftMin/MaxByFreq choose among.

Message and clock ids are per SMU: 13.0.0 and 14.0.2 (smu_v13_0_0_ppsmc.h, smu_v14_0_2_ppsmc.h, the
RDNA3 and RDNA4 parts, which agree on every message used here) and 13.0.6 / 13.0.12
(smu_v13_0_6_ppsmc.h, smu_v13_0_12_ppsmc.h: MI300, MI350), in `MESSAGES` and `CLOCKS`.
"""
from __future__ import annotations

import logging

from gpubench.emu.soc.chips import MP1
from gpubench.emu.soc.registers import Register

log = logging.getLogger("gpubench.soc")

RESULT_OK, RESULT_UNKNOWN = 0x1, 0xFE
MESSAGE_NAMES = ("GetSmuVersion", "EnableAllSmuFeatures", "SetDriverDramAddrHigh", "SetDriverDramAddrLow",
                 "SetSoftMinByFreq", "SetSoftMaxByFreq", "GetDpmFreqByIndex", "SetPptLimit")
RDNA_MESSAGES = dict(zip(MESSAGE_NAMES, (2, 6, 14, 15, 25, 26, 31, 50)))
CDNA_MESSAGES = dict(zip(MESSAGE_NAMES, (2, 5, 13, 14, 19, 20, 23, 24)))
MESSAGES = {(13, 0, 0): RDNA_MESSAGES, (14, 0, 3): RDNA_MESSAGES, (13, 0, 6): CDNA_MESSAGES, (13, 0, 12): CDNA_MESSAGES}
RDNA_CLOCKS, CDNA_CLOCKS = {"GFXCLK": 0, "SOCCLK": 1, "UCLK": 2, "FCLK": 3}, {"SOCCLK": 2, "UCLK": 3, "FCLK": 4}
CLOCKS = {(13, 0, 0): RDNA_CLOCKS, (14, 0, 3): RDNA_CLOCKS, (13, 0, 6): CDNA_CLOCKS, (13, 0, 12): CDNA_CLOCKS}
LEVEL_COUNT = 0xFF
SMU_VERSION = 0x004E4B00
CLOCK_LEVELS_MHZ = {"GFXCLK": (500, 1500, 2500), "SOCCLK": (600, 1000, 1200), "UCLK": (96, 772, 1249),
                    "FCLK": (400, 1400, 1900)}


class SystemManagementUnit:
    def __init__(self, soc):
        self.soc = soc
        version = soc.chip.version(MP1)
        self.ids = MESSAGES[version]
        self.levels = {clock: CLOCK_LEVELS_MHZ[name] for name, clock in CLOCKS[version].items()}
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
        name = next((n for n, i in self.ids.items() if i == message), None)
        if name == "GetSmuVersion":
            value = SMU_VERSION
        elif name == "SetDriverDramAddrHigh":
            self.driver_table = (argument << 32) | (self.driver_table & 0xFFFFFFFF)
        elif name == "SetDriverDramAddrLow":
            self.driver_table = (self.driver_table & ~0xFFFFFFFF) | argument
        elif name == "EnableAllSmuFeatures":
            self.features_enabled = True
        elif name == "GetDpmFreqByIndex" and clock in self.levels:
            levels = self.levels[clock]
            value = len(levels) if index == LEVEL_COUNT else levels[min(index, len(levels) - 1)]
        elif name in ("SetSoftMinByFreq", "SetSoftMaxByFreq") and clock in self.levels:
            self.soft_limits.setdefault(clock, [0, 0xFFFF])[name == "SetSoftMaxByFreq"] = index
        elif name != "SetPptLimit":
            log.warning("smu: message 0x%x (argument 0x%x) is not emulated", message, argument)
            result = RESULT_UNKNOWN
        self.soc.registers.store(self._address(82), value)
        self.soc.registers.store(self._address(90), result)

    def registers(self):
        return [(MP1, "MP1_SMN_C2PMSG_66", Register(on_write=self._message))]
