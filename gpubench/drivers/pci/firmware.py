"""Firmware for a driver that loads it itself, without network: the linux-firmware file it asks
for by name and sha256, from GPUBENCH_FIRMWARE (a directory the user names) or
/lib/firmware/amdgpu when a file there has that hash; otherwise the emulator's stand-in image
(gpubench/emu/soc/firmware.py), which the emulated PSP and SMU accept as they accept real ones."""
from __future__ import annotations

import hashlib
import logging
import os
from pathlib import Path

from gpubench.emu.soc.firmware import stand_in

log = logging.getLogger("gpubench.pci")
SYSTEM_DIRECTORY = "/lib/firmware/amdgpu"


def directories(environ=os.environ) -> list[Path]:
    named = environ.get("GPUBENCH_FIRMWARE")
    return [Path(d) for d in ([named] if named else []) + [SYSTEM_DIRECTORY]]


def firmware(name: str, sha256: str) -> bytes:
    for directory in directories():
        path = directory / name
        if path.is_file() and hashlib.sha256(data := path.read_bytes()).hexdigest() == sha256:
            return data
    log.info("pci: no linux-firmware %s with sha256 %s in %s: using gpubench's stand-in image",
             name, sha256[:12], ", ".join(map(str, directories())))
    return stand_in(name)
