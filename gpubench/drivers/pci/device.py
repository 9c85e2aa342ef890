"""One emulated GPU as a PCI function: its BARs (VRAM, doorbells, registers) backed by memfds,
its configuration space and the sysfs files of /sys/bus/pci/devices/<address>, with the kernel
driver (amdgpu) bound until a client unbinds it. Behind BAR5 is the SoC's register file."""
from __future__ import annotations

from gpubench.drivers.pci import config, mmio
from gpubench.drivers.vfs import Attribute, VirtualFile
from gpubench.emu.executor import Watchdog
from gpubench.emu.hostmem import SharedMemory
from gpubench.emu.soc.chips import CHIPS
from gpubench.emu.soc.compute import CommandProcessor
from gpubench.emu.soc.soc import SoC

SYSFS = "/sys/bus/pci/devices"
VENDOR_AMD, CLASS_DISPLAY_VGA, REVISION = 0x1002, 0x030000, 0xC8
DOORBELL_BAR_BYTES, MMIO_BAR_BYTES = 2 << 20, 1 << 20
# BAR registers' low bits and the flags Linux prints in `resource`
MEM64_PREFETCH, MEM32 = 0xC, 0x0
RESOURCE_MEM64_PREFETCH, RESOURCE_MEM32 = 0x14220C, 0x40200
RESOURCE_LINES = 13  # six BARs, the expansion ROM, six SR-IOV BARs
BUS_WINDOW_BASE, BUS_WINDOW_BYTES = 1 << 42, 1 << 40  # each GPU's 64-bit BARs, below the GMC's 44-bit limit
MMIO_WINDOW_TOP = 0xFD000000  # 32-bit register BARs, downwards


def bar_size(size: int) -> int:
    return 1 << (size - 1).bit_length()  # a BAR is a power of two (VRAM's BAR is resized to cover it all)


class BarFile(VirtualFile):
    """resourceN: mmap places the BAR's memory in the client."""

    def __init__(self, memory: SharedMemory, registers=None):
        self.memory, self.registers = memory, registers

    def mmap(self, address: int, size: int, prot: int, flags: int, offset: int) -> int:
        placed = self.memory.map_into_client(address, size, prot, flags, offset)
        if self.registers is not None:
            mmio.mapped(placed, size, self.registers, offset)
        return placed


class PCIGPU:
    def __init__(self, index: int, target: str, domain: int, files: dict, system_address, watchdog: Watchdog):
        self.chip = CHIPS[target]
        self.address = f"{domain:04x}:{3 + index:02x}:00.0"
        self.audio_address = self.address[:-1] + "1"
        self.files = files
        self.vram = SharedMemory(bar_size(self.chip.vram_bytes), f"gpubench-vram-{index}")
        self.doorbells = SharedMemory(DOORBELL_BAR_BYTES, f"gpubench-doorbells-{index}")
        self.mmio = SharedMemory(MMIO_BAR_BYTES, f"gpubench-mmio-{index}")
        self.soc = SoC(self.chip, self.vram.array, self.mmio.array)
        self.cp = CommandProcessor(self.soc, self.doorbells.array, self.chip.shaders.lds_kib << 10, system_address,
                                   watchdog)
        window = BUS_WINDOW_BASE + index * BUS_WINDOW_BYTES
        self.bars = {0: (window, self.vram.size, RESOURCE_MEM64_PREFETCH, MEM64_PREFETCH),
                     2: (window + BUS_WINDOW_BYTES // 2, DOORBELL_BAR_BYTES, RESOURCE_MEM64_PREFETCH, MEM64_PREFETCH),
                     5: (MMIO_WINDOW_TOP - (index + 1) * MMIO_BAR_BYTES, MMIO_BAR_BYTES, RESOURCE_MEM32, MEM32)}
        words = [0] * 6
        for number, (start, _, _, low_bits) in self.bars.items():
            words[number] = (start & 0xFFFFFFFF) | low_bits
            if low_bits == MEM64_PREFETCH:
                words[number + 1] = start >> 32
        self.config = config.config_space(VENDOR_AMD, self.chip.device_id, REVISION, CLASS_DISPLAY_VGA,
                                          self.chip.device_id, words)
        self.enabled = False
        self.driver: str | None = "amdgpu"
        files.update(self._function_files())
        files.update(self._driver_files())
        files.update(self._audio_files())

    def _resource(self) -> str:
        lines = [(0, 0, 0)] * RESOURCE_LINES
        for number, (start, size, flags, _) in self.bars.items():
            lines[number] = (start, start + size - 1, flags)
        return "".join(f"0x{s:016x} 0x{e:016x} 0x{f:016x}\n" for s, e, f in lines)

    def _function_files(self) -> dict:
        base = f"{SYSFS}/{self.address}"
        files = {f"{base}/vendor": f"0x{VENDOR_AMD:04x}\n", f"{base}/device": f"0x{self.chip.device_id:04x}\n",
                 f"{base}/class": f"0x{CLASS_DISPLAY_VGA:06x}\n", f"{base}/revision": f"0x{REVISION:02x}\n",
                 f"{base}/subsystem_vendor": f"0x{VENDOR_AMD:04x}\n",
                 f"{base}/subsystem_device": f"0x{self.chip.device_id:04x}\n",
                 f"{base}/resource": self._resource(), f"{base}/config": config.ConfigFile(self.config),
                 f"{base}/enable": Attribute(lambda: f"{int(self.enabled)}\n", self._enable)}
        memories = {0: (self.vram, None), 2: (self.doorbells, None), 5: (self.mmio, self.soc.registers)}
        files.update({f"{base}/resource{n}": BarFile(memory, registers) for n, (memory, registers) in memories.items()})
        return files

    def bar_host_address(self, bus_address: int) -> int | None:
        """Where a bus address in this function's VRAM or doorbell BAR lives in this process (what a peer
        GPU's access there reaches); None outside them. The register BAR is no memory: a peer cannot map it."""
        for number, memory in ((0, self.vram), (2, self.doorbells)):
            start, size = self.bars[number][:2]
            if start <= bus_address < start + size:
                return memory.array.ctypes.data + bus_address - start
        return None

    def _driver_files(self) -> dict:
        return {f"{SYSFS}/{self.address}/driver/unbind": Attribute(lambda: "", self._unbind)}

    def _audio_files(self) -> dict:
        base = f"{SYSFS}/{self.audio_address}"
        return {f"{base}/vendor": f"0x{VENDOR_AMD:04x}\n", f"{base}/device": "0xab30\n", f"{base}/class": "0x040300\n",
                f"{base}/remove": Attribute(lambda: "", self._remove_audio)}

    def _enable(self, text: str) -> None:
        self.enabled = text.strip() != "0"

    def _unbind(self, text: str) -> None:
        if text.strip() == self.address:
            self.driver = None
            for path in self._driver_files():
                self.files.pop(path, None)

    def _remove_audio(self, text: str) -> None:
        if text.strip() == "1":
            for path in self._audio_files():
                self.files.pop(path, None)

    def close(self) -> None:
        self.cp.close()
        for memory in (self.vram, self.doorbells, self.mmio):
            memory.close()
