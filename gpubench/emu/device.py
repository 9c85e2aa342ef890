"""The Python API: an emulated GPU without any driver in between.

    dev = gpubench.Device("gfx1100")
    x = dev.to_device(np.arange(1024, dtype=np.float32))
    y = dev.alloc(4096)
    kernels = dev.load("saxpy.hsaco")
    kernels["saxpy"](grid=(4, 1, 1), block=(256, 1, 1), args=(2.0, x, y, 1024))
    dev.to_host(y, np.float32)

Arguments are laid out by the code object's metadata (`.args`): buffers by address, scalars by
value; the hidden arguments of code object v5 (block counts, group sizes, remainders, grid
dimensions) are filled in as the runtime would.
"""
from __future__ import annotations

import struct
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
from elftools.elf.elffile import ELFFile

from gpubench.emu import abi, executor
from gpubench.emu.context import Context
from gpubench.emu.launch import LaunchStats, prepare_context, run
from gpubench.emu.memory import PAGE, AddressSpace
from gpubench.emu.schedule import Schedule
from gpubench.isa.codeobject import CodeObject, Kernel

HEAP_BASE = 0x1_0000_0000
HIDDEN_ARGS = {  # value_kind -> how the runtime fills it, from (grid in groups, block)
    "hidden_block_count_x": lambda g, b: g[0], "hidden_block_count_y": lambda g, b: g[1],
    "hidden_block_count_z": lambda g, b: g[2],
    "hidden_group_size_x": lambda g, b: b[0], "hidden_group_size_y": lambda g, b: b[1],
    "hidden_group_size_z": lambda g, b: b[2],
    "hidden_remainder_x": lambda g, b: 0, "hidden_remainder_y": lambda g, b: 0, "hidden_remainder_z": lambda g, b: 0,
    "hidden_grid_dims": lambda g, b: 1 + (g[1] * b[1] > 1 or g[2] * b[2] > 1) + (g[2] * b[2] > 1),
}


@dataclass(frozen=True)
class Buffer:
    address: int
    size: int
    data: np.ndarray = field(repr=False)  # uint8 view of the mapped bytes


class Device:
    def __init__(self, target: str = "gfx1100"):
        self.target = target
        self.memory = AddressSpace()
        self._next = HEAP_BASE

    def alloc(self, size: int, name: str = "") -> Buffer:
        size = max(size, 1)
        address = self._next
        self._next += -(-size // PAGE) * PAGE + PAGE  # a guard page between allocations
        mapping = self.memory.map(address, size, name=name)
        return Buffer(address, size, mapping.data)

    def to_device(self, array: np.ndarray) -> Buffer:
        buf = self.alloc(array.nbytes)
        buf.data[:] = np.ascontiguousarray(array).view(np.uint8).reshape(-1)
        return buf

    def to_host(self, buf: Buffer, dtype=np.uint8) -> np.ndarray:
        return buf.data.view(dtype).copy()

    def load(self, code_object: str | Path | bytes) -> dict[str, "KernelHandle"]:
        """Map a code object's loadable segments and return its kernels by name."""
        data = Path(code_object).read_bytes() if not isinstance(code_object, bytes) else code_object
        obj = CodeObject.load(data)
        if obj.target != self.target:
            raise ValueError(f"code object is for {obj.target}, this device is {self.target}")
        base = self._next
        image = _load_image(data)
        self.alloc_at(base, image)
        return {k.name: KernelHandle(self, k, base) for k in obj.kernels}

    def alloc_at(self, address: int, image: bytes) -> None:
        self.memory.map(address, np.frombuffer(image, np.uint8).copy(), writable=False, name="code")
        self._next = max(self._next, address + -(-len(image) // PAGE) * PAGE + PAGE)


def _load_image(data: bytes) -> bytes:
    """The PT_LOAD segments laid out at their virtual addresses (relative to the load base)."""
    import io
    elf = ELFFile(io.BytesIO(data))
    segments = [s for s in elf.iter_segments() if s["p_type"] == "PT_LOAD"]
    size = max(s["p_vaddr"] + s["p_memsz"] for s in segments)
    image = bytearray(size)
    for s in segments:
        image[s["p_vaddr"]:s["p_vaddr"] + s["p_filesz"]] = s.data()
    return bytes(image)


class KernelHandle:
    def __init__(self, device: Device, kernel: Kernel, base: int):
        self.device, self.kernel, self.base = device, kernel, base

    @property
    def name(self) -> str:
        return self.kernel.name

    def kernargs(self, args: tuple, grid: tuple[int, int, int], block: tuple[int, int, int]) -> bytes:
        meta = self.kernel.metadata
        out = bytearray(meta.get(".kernarg_segment_size", self.kernel.descriptor.kernarg_size))
        explicit = [a for a in meta.get(".args", []) if not a[".value_kind"].startswith("hidden_")]
        if len(args) != len(explicit):
            raise TypeError(f"{self.name} takes {len(explicit)} arguments, got {len(args)}")
        for spec, value in zip(explicit, args):
            _pack(out, spec, value.address if isinstance(value, Buffer) else value)
        for spec in meta.get(".args", []):
            fill = HIDDEN_ARGS.get(spec[".value_kind"])
            if fill is not None:
                _pack(out, spec, fill(grid, block))
        return bytes(out)

    def prepare(self, grid: tuple[int, ...], block: tuple[int, ...], args: tuple = ()) -> "PreparedLaunch":
        """The launch set up but not run: kernarg segment and dispatch packet mapped, waves initialized."""
        grid = tuple(grid) + (1,) * (3 - len(grid))
        block = tuple(block) + (1,) * (3 - len(block))
        dev, desc = self.device, self.kernel.descriptor
        segment = self.kernargs(args, grid, block)
        # Compilers load kernel arguments in wide scalar loads that may read past the segment's end
        # (s_load_b256 of the last 8 bytes): the segment gets a page of its own, like the runtime's.
        kernarg = dev.alloc(-(-max(1, len(segment)) // PAGE) * PAGE, name="kernarg")
        kernarg.data[:len(segment)] = np.frombuffer(segment, np.uint8)
        packet = dev.alloc(PAGE, name="dispatch packet")  # a page: wide scalar loads stay mapped
        aql = abi.dispatch_packet(grid, block, desc, self.base + self.kernel.descriptor_address, kernarg.address)
        packet.data[:len(aql)] = np.frombuffer(aql, np.uint8)
        user_sgprs = abi.user_sgpr_values(desc, abi.LaunchAddresses(kernarg_ptr=kernarg.address,
                                                                    dispatch_ptr=packet.address))
        user_sgprs += abi.preloaded_kernargs(desc, segment)
        program = abi.entry_point(desc, self.base + self.kernel.descriptor_address)
        ctx = prepare_context(dev.memory, dev.target, desc, program, user_sgprs, grid, block)
        return PreparedLaunch(ctx, self, grid, block, (kernarg.address, packet.address))

    def __call__(self, grid: tuple[int, ...], block: tuple[int, ...], args: tuple = (),
                 watchdog: executor.Watchdog = executor.Watchdog(), schedule: str | None = None,
                 races: bool | None = None) -> LaunchStats:
        """Run the kernel; ``schedule`` (schedule.py: lockstep, per-wave, reverse, random[:SEED]) orders
        the waves of each workgroup, and the returned stats name it with its seed; ``races`` runs the
        race detector (races.py; None: GPUBENCH_RACES says), whose reports are the stats' ``races``."""
        prepared = self.prepare(grid, block, args)
        try:
            return run(prepared.ctx, watchdog, Schedule.parse(schedule) if schedule else None, races, self.name)
        finally:
            prepared.close()


@dataclass
class PreparedLaunch:
    ctx: Context
    handle: KernelHandle
    grid: tuple[int, int, int]
    block: tuple[int, int, int]
    temporary: tuple[int, ...]  # addresses of the kernarg segment and the dispatch packet

    def close(self) -> None:
        for address in self.temporary:
            self.handle.device.memory.unmap(address)
        self.temporary = ()


def _pack(out: bytearray, spec: dict, value) -> None:
    offset, size = spec[".offset"], spec[".size"]
    if isinstance(value, np.generic):  # a numpy scalar carries its own width
        data = value.tobytes()
        if len(data) != size:
            raise TypeError(f"argument at offset {offset} is {size} bytes; got a {value.dtype} ({len(data)} bytes)")
        out[offset:offset + size] = data
    elif isinstance(value, float):
        out[offset:offset + size] = struct.pack({4: "<f", 8: "<d", 2: "<e"}[size], value)
    else:
        out[offset:offset + size] = (int(value) & ((1 << (8 * size)) - 1)).to_bytes(size, "little")
