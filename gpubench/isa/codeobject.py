"""AMDGPU code objects (HSA ELF, code object v4-v6): target, kernels, descriptors, disassembly.

`CodeObject.load(path)` reads what the emulator needs: the target from e_flags, the
NT_AMDGPU_METADATA note, each kernel's 64-byte descriptor and its decoded code. `objdump(path)`
prints the executable sections as `llvm-objdump-22 -d` does, byte for byte, with one exception:
the wave size of wave-sized operands follows each kernel's descriptor (llvm-objdump decodes
gfx10+ code as wave32 unless given --mattr=+wavefrontsize64; pass wave_size=32 for its plain -d).

The layout rules below follow llvm-objdump's disassembleObject and AMDGCNPrettyPrinter; the
numbers follow LLVM's ELF.h and AMDHSAKernelDescriptor.h (AMDGPUUsage, "Kernel Descriptor").
"""
from __future__ import annotations

import bisect
import functools
import io
import struct
import sys
from dataclasses import dataclass, field
from pathlib import Path

import msgpack
from elftools.elf.constants import SH_FLAGS
from elftools.elf.elffile import ELFFile
from elftools.elf.enums import ENUM_ST_INFO_TYPE
from elftools.elf.sections import NoteSection, SymbolTableSection

from gpubench.isa.arch import ISA
from gpubench.isa.decoder import DecodeError, Instruction
from gpubench.isa.disasm import disassemble_at
from gpubench.isa.targets import TARGETS


class CodeObjectError(ValueError):
    pass


ELFOSABI_AMDGPU_HSA = 64
CODE_OBJECT_VERSIONS = {2: 4, 3: 5, 4: 6}  # e_ident[EI_ABIVERSION] -> code object version
NT_AMDGPU_METADATA = 32

# EF_AMDGPU_MACH (e_flags bits 7:0) -> processor, as LLVM 22 writes them. Processors gpubench
# has no tables for are listed too, so that the error can name what the object is for.
EF_AMDGPU_MACH = 0x0FF
MACHINES = {
    0x020: "gfx600", 0x021: "gfx601", 0x022: "gfx700", 0x023: "gfx701", 0x024: "gfx702",
    0x025: "gfx703", 0x026: "gfx704", 0x028: "gfx801", 0x029: "gfx802", 0x02A: "gfx803",
    0x02B: "gfx810", 0x02C: "gfx900", 0x02D: "gfx902", 0x02E: "gfx904", 0x02F: "gfx906",
    0x030: "gfx908", 0x031: "gfx909", 0x032: "gfx90c", 0x033: "gfx1010", 0x034: "gfx1011",
    0x035: "gfx1012", 0x036: "gfx1030", 0x037: "gfx1031", 0x038: "gfx1032", 0x039: "gfx1033",
    0x03A: "gfx602", 0x03B: "gfx705", 0x03C: "gfx805", 0x03D: "gfx1035", 0x03E: "gfx1034",
    0x03F: "gfx90a", 0x041: "gfx1100", 0x042: "gfx1013", 0x043: "gfx1150", 0x044: "gfx1103",
    0x045: "gfx1036", 0x046: "gfx1101", 0x047: "gfx1102", 0x048: "gfx1200", 0x049: "gfx1250",
    0x04A: "gfx1151", 0x04C: "gfx942", 0x04E: "gfx1201", 0x04F: "gfx950",
    0x051: "gfx9-generic", 0x052: "gfx10-1-generic", 0x053: "gfx10-3-generic",
    0x054: "gfx11-generic", 0x055: "gfx1152", 0x058: "gfx1153", 0x059: "gfx12-generic",
    0x05A: "gfx1251", 0x05F: "gfx9-4-generic",
}
# Code object v4+ feature settings: two bits each for XNACK (9:8) and SRAMECC (11:10).
EF_AMDGPU_FEATURE_XNACK = 0x300
EF_AMDGPU_FEATURE_SRAMECC = 0xC00
FEATURE_SETTINGS = {0: None, 1: "any", 2: "off", 3: "on"}  # None: the processor lacks the feature
EF_AMDGPU_GENERIC_VERSION_SHIFT = 24

# ELF symbol types as llvm-objdump tells code from data.
STT_NOTYPE, STT_OBJECT, STT_FUNC, STT_COMMON = "STT_NOTYPE", "STT_OBJECT", "STT_FUNC", "STT_COMMON"
DATA_SYMBOL_TYPES = (STT_OBJECT, STT_COMMON)

# ---------------------------------------------------------------------------------------------
# Target


@dataclass(frozen=True)
class TargetId:
    """The processor and feature settings that e_flags records."""

    processor: str  # gfx942
    xnack: str | None  # "on", "off", "any"; None where the processor has no XNACK
    sramecc: str | None
    generic_version: int = 0  # EF_AMDGPU_GENERIC_VERSION; 0 for a specific processor

    @classmethod
    def from_flags(cls, e_flags: int) -> "TargetId":
        mach = e_flags & EF_AMDGPU_MACH
        if mach not in MACHINES:
            raise CodeObjectError(f"unknown EF_AMDGPU_MACH 0x{mach:03x} in e_flags 0x{e_flags:x}")
        return cls(MACHINES[mach],
                   FEATURE_SETTINGS[(e_flags & EF_AMDGPU_FEATURE_XNACK) >> 8],
                   FEATURE_SETTINGS[(e_flags & EF_AMDGPU_FEATURE_SRAMECC) >> 10],
                   e_flags >> EF_AMDGPU_GENERIC_VERSION_SHIFT)

    def __str__(self) -> str:
        """The target ID as amdhsa.target ends: features sorted, 'any' left out."""
        suffix = {"on": "+", "off": "-"}
        features = [f":{name}{suffix[value]}" for name, value in (("sramecc", self.sramecc), ("xnack", self.xnack))
                    if value in suffix]
        return self.processor + "".join(features)


# ---------------------------------------------------------------------------------------------
# Kernel descriptor

_ALL = ("cdna", "rdna3", "rdna4")
_GFX9 = ("cdna",)  # gfx942/gfx950 are GFX9-family: GFX90A's COMPUTE_PGM_RSRC3
_GFX10_PLUS = ("rdna3", "rdna4")

# (register, field, low bit, width, archs it exists on). Reserved bits are left out.
DESCRIPTOR_FIELDS = (
    ("compute_pgm_rsrc1", "GRANULATED_WORKITEM_VGPR_COUNT", 0, 6, _ALL),
    ("compute_pgm_rsrc1", "GRANULATED_WAVEFRONT_SGPR_COUNT", 6, 4, _ALL),
    ("compute_pgm_rsrc1", "PRIORITY", 10, 2, _ALL),
    ("compute_pgm_rsrc1", "FLOAT_ROUND_MODE_32", 12, 2, _ALL),
    ("compute_pgm_rsrc1", "FLOAT_ROUND_MODE_16_64", 14, 2, _ALL),
    ("compute_pgm_rsrc1", "FLOAT_DENORM_MODE_32", 16, 2, _ALL),
    ("compute_pgm_rsrc1", "FLOAT_DENORM_MODE_16_64", 18, 2, _ALL),
    ("compute_pgm_rsrc1", "PRIV", 20, 1, _ALL),
    ("compute_pgm_rsrc1", "ENABLE_DX10_CLAMP", 21, 1, ("cdna", "rdna3")),
    ("compute_pgm_rsrc1", "ENABLE_WG_RR_EN", 21, 1, ("rdna4",)),
    ("compute_pgm_rsrc1", "DEBUG_MODE", 22, 1, _ALL),
    ("compute_pgm_rsrc1", "ENABLE_IEEE_MODE", 23, 1, ("cdna", "rdna3")),
    ("compute_pgm_rsrc1", "DISABLE_PERF", 23, 1, ("rdna4",)),
    ("compute_pgm_rsrc1", "BULKY", 24, 1, _ALL),
    ("compute_pgm_rsrc1", "CDBG_USER", 25, 1, _ALL),
    ("compute_pgm_rsrc1", "FP16_OVFL", 26, 1, _ALL),
    ("compute_pgm_rsrc1", "WGP_MODE", 29, 1, _GFX10_PLUS),
    ("compute_pgm_rsrc1", "MEM_ORDERED", 30, 1, _GFX10_PLUS),
    ("compute_pgm_rsrc1", "FWD_PROGRESS", 31, 1, _GFX10_PLUS),
    ("compute_pgm_rsrc2", "ENABLE_PRIVATE_SEGMENT", 0, 1, _ALL),
    ("compute_pgm_rsrc2", "USER_SGPR_COUNT", 1, 5, _ALL),
    ("compute_pgm_rsrc2", "ENABLE_TRAP_HANDLER", 6, 1, ("cdna", "rdna3")),
    ("compute_pgm_rsrc2", "ENABLE_DYNAMIC_VGPR", 6, 1, ("rdna4",)),
    ("compute_pgm_rsrc2", "ENABLE_SGPR_WORKGROUP_ID_X", 7, 1, _ALL),
    ("compute_pgm_rsrc2", "ENABLE_SGPR_WORKGROUP_ID_Y", 8, 1, _ALL),
    ("compute_pgm_rsrc2", "ENABLE_SGPR_WORKGROUP_ID_Z", 9, 1, _ALL),
    ("compute_pgm_rsrc2", "ENABLE_SGPR_WORKGROUP_INFO", 10, 1, _ALL),
    ("compute_pgm_rsrc2", "ENABLE_VGPR_WORKITEM_ID", 11, 2, _ALL),
    ("compute_pgm_rsrc2", "ENABLE_EXCEPTION_ADDRESS_WATCH", 13, 1, _ALL),
    ("compute_pgm_rsrc2", "ENABLE_EXCEPTION_MEMORY", 14, 1, _ALL),
    ("compute_pgm_rsrc2", "GRANULATED_LDS_SIZE", 15, 9, _ALL),
    ("compute_pgm_rsrc2", "ENABLE_EXCEPTION_IEEE_754_FP_INVALID_OPERATION", 24, 1, _ALL),
    ("compute_pgm_rsrc2", "ENABLE_EXCEPTION_FP_DENORMAL_SOURCE", 25, 1, _ALL),
    ("compute_pgm_rsrc2", "ENABLE_EXCEPTION_IEEE_754_FP_DIVISION_BY_ZERO", 26, 1, _ALL),
    ("compute_pgm_rsrc2", "ENABLE_EXCEPTION_IEEE_754_FP_OVERFLOW", 27, 1, _ALL),
    ("compute_pgm_rsrc2", "ENABLE_EXCEPTION_IEEE_754_FP_UNDERFLOW", 28, 1, _ALL),
    ("compute_pgm_rsrc2", "ENABLE_EXCEPTION_IEEE_754_FP_INEXACT", 29, 1, _ALL),
    ("compute_pgm_rsrc2", "ENABLE_EXCEPTION_INT_DIVIDE_BY_ZERO", 30, 1, _ALL),
    ("compute_pgm_rsrc2", "WGP_TAKEOVER", 31, 1, ("rdna4",)),
    ("compute_pgm_rsrc3", "ACCUM_OFFSET", 0, 6, _GFX9),
    ("compute_pgm_rsrc3", "TG_SPLIT", 16, 1, _GFX9),
    ("compute_pgm_rsrc3", "SHARED_VGPR_COUNT", 0, 4, ("rdna3",)),
    ("compute_pgm_rsrc3", "INST_PREF_SIZE", 4, 6, ("rdna3",)),
    ("compute_pgm_rsrc3", "TRAP_ON_START", 10, 1, ("rdna3",)),
    ("compute_pgm_rsrc3", "TRAP_ON_END", 11, 1, ("rdna3",)),
    ("compute_pgm_rsrc3", "INST_PREF_SIZE", 4, 8, ("rdna4",)),
    ("compute_pgm_rsrc3", "GLG_EN", 13, 1, ("rdna4",)),
    ("compute_pgm_rsrc3", "IMAGE_OP", 31, 1, _GFX10_PLUS),
    ("kernel_code_properties", "ENABLE_SGPR_PRIVATE_SEGMENT_BUFFER", 0, 1, _ALL),
    ("kernel_code_properties", "ENABLE_SGPR_DISPATCH_PTR", 1, 1, _ALL),
    ("kernel_code_properties", "ENABLE_SGPR_QUEUE_PTR", 2, 1, _ALL),
    ("kernel_code_properties", "ENABLE_SGPR_KERNARG_SEGMENT_PTR", 3, 1, _ALL),
    ("kernel_code_properties", "ENABLE_SGPR_DISPATCH_ID", 4, 1, _ALL),
    ("kernel_code_properties", "ENABLE_SGPR_FLAT_SCRATCH_INIT", 5, 1, _ALL),
    ("kernel_code_properties", "ENABLE_SGPR_PRIVATE_SEGMENT_SIZE", 6, 1, _ALL),
    ("kernel_code_properties", "ENABLE_WAVEFRONT_SIZE32", 10, 1, _GFX10_PLUS),
    ("kernel_code_properties", "USES_DYNAMIC_STACK", 11, 1, _ALL),
    ("kernarg_preload", "KERNARG_PRELOAD_SPEC_LENGTH", 0, 7, _ALL),
    ("kernarg_preload", "KERNARG_PRELOAD_SPEC_OFFSET", 7, 9, _ALL),
)

# group/private segment sizes, kernarg size, 4 reserved, entry offset (signed), 20 reserved,
# rsrc3, rsrc1, rsrc2, kernel code properties, kernarg preload, 4 reserved.
_DESCRIPTOR = struct.Struct("<III4xq20xIIIHH4x")
DESCRIPTOR_SIZE = _DESCRIPTOR.size  # 64


_FIELD_REGISTERS = tuple(dict.fromkeys(register for register, *_ in DESCRIPTOR_FIELDS))


@functools.lru_cache(maxsize=4096)
def _fields(arch: str, *registers: int) -> tuple[dict[str, dict[str, int]], dict[str, int]]:
    """The fields by register and by name, once per register values: the command processor builds a
    descriptor per dispatch from the same registers, and reads a dozen fields of it (emu/abi.py)."""
    by_register: dict[str, dict[str, int]] = {}
    value_of = dict(zip(_FIELD_REGISTERS, registers))
    for register, name, lo, width, archs in DESCRIPTOR_FIELDS:
        if arch in archs:
            by_register.setdefault(register, {})[name] = (value_of[register] >> lo) & ((1 << width) - 1)
    return by_register, {name: value for values in by_register.values() for name, value in values.items()}


@dataclass(frozen=True)
class KernelDescriptor:
    arch: str  # decides the meaning of the bits that differ between generations
    group_segment_fixed_size: int
    private_segment_fixed_size: int
    kernarg_size: int
    kernel_code_entry_byte_offset: int  # from the descriptor's own address
    compute_pgm_rsrc3: int
    compute_pgm_rsrc1: int
    compute_pgm_rsrc2: int
    kernel_code_properties: int
    kernarg_preload: int

    @classmethod
    def parse(cls, data: bytes, arch: str) -> "KernelDescriptor":
        if len(data) < DESCRIPTOR_SIZE:
            raise CodeObjectError(f"kernel descriptor needs {DESCRIPTOR_SIZE} bytes, got {len(data)}")
        return cls(arch, *_DESCRIPTOR.unpack_from(data))

    def fields(self) -> dict[str, dict[str, int]]:
        """Each register's named bit fields, e.g. ``{"compute_pgm_rsrc2": {"USER_SGPR_COUNT": 2, ...}}``."""
        return {register: dict(values) for register, values in self._registers[0].items()}

    @functools.cached_property
    def _registers(self) -> tuple[dict[str, dict[str, int]], dict[str, int]]:
        return _fields(self.arch, *(getattr(self, register) for register in _FIELD_REGISTERS))

    @functools.cached_property
    def _values(self) -> dict[str, int]:
        return self._registers[1]

    def __getitem__(self, name: str) -> int:
        """One bit field by name (names are unique across the registers)."""
        try:
            return self._values[name]
        except KeyError:
            raise KeyError(f"no kernel descriptor field '{name}' on {self.arch}") from None

    def get(self, name: str, default: int) -> int:
        """A bit field by name, or ``default`` where this target's descriptor has no such field."""
        return self._values.get(name, default)

    @property
    def wave_size(self) -> int:
        # GFX9 has no wave32: its descriptor has no ENABLE_WAVEFRONT_SIZE32 bit.
        return 32 if self.get("ENABLE_WAVEFRONT_SIZE32", 0) else 64


# ---------------------------------------------------------------------------------------------
# Symbols and decoded code


@dataclass(frozen=True)
class Symbol:
    address: int
    name: str
    type: str  # STT_FUNC, STT_OBJECT, STT_NOTYPE ...
    size: int = 0

    def sort_key(self) -> tuple:
        # llvm-objdump's order (SymbolInfoTy's operator<): the last one at an address is shown.
        return self.address, self.name.encode(), ENUM_ST_INFO_TYPE[self.type]


@dataclass(frozen=True)
class Decoded:
    """One instruction as the disassembler sees it at ``address``."""

    address: int
    data: bytes  # the bytes it covers
    inst: Instruction | None  # None: nothing decodes here (llvm-objdump prints `.long`)
    text: str | None  # LLVM's text; None where nothing decodes
    target: int | None = None  # a branch's or call's target address
    label: str | None = None  # the symbol that names the target in ``text`` (a plain label)

    @property
    def size(self) -> int:
        return len(self.data)


def _branch_target(inst: Instruction, address: int) -> int | None:
    """PC-relative label operands count dwords from the next instruction (SOPP/SOPK, 4 bytes)."""
    if not any(o.type == "OPR_LABEL" for o in inst.idef.operands):
        return None
    simm16 = inst["simm16"]
    return address + 4 + (simm16 - 0x10000 if simm16 & 0x8000 else simm16) * 4


def decode_at(isa: ISA, data: bytes, offset: int, address: int, labels: dict[int, str]) -> Decoded:
    """The instruction at ``data[offset:]``, which sits at ``address``.

    ``labels`` maps addresses to plain (STT_NOTYPE) symbols: like LLVM's AMDGPU symbolizer, a branch
    to one of them shows its name instead of the number. Undecodable words take 4 bytes, as in LLVM.
    """
    try:
        inst, text = disassemble_at(isa, data, offset)
    except DecodeError:
        return Decoded(address, data[offset:offset + 4], None, None)
    target = _branch_target(inst, address)
    label = labels.get(target) if target is not None else None
    if label is not None:
        text = f"{text.rpartition(' ')[0]} {label}"  # the label is the last operand in LLVM's syntax
    return Decoded(address, data[offset:offset + inst.size], inst, text, target, label)


# ---------------------------------------------------------------------------------------------
# Code object


@dataclass(frozen=True)
class Kernel:
    name: str
    symbol: str  # the descriptor's symbol: name + ".kd"
    descriptor_address: int
    descriptor: KernelDescriptor
    metadata: dict  # its amdhsa.kernels entry (.args, .sgpr_count ...); {} when the object has none
    address: int  # of the first instruction: descriptor address + kernel_code_entry_byte_offset
    code: bytes  # the kernel function's bytes (its symbol's size)
    instructions: tuple[Decoded, ...] = field(repr=False)

    @property
    def size(self) -> int:
        return len(self.code)

    def get(self, name: str, default: int) -> int:
        """A bit field by name, or ``default`` where this target's descriptor has no such field."""
        return self._values.get(name, default)

    @property
    def wave_size(self) -> int:
        return self.descriptor.wave_size


@dataclass(frozen=True)
class _Section:
    index: int
    name: str
    address: int
    size: int  # sh_size: NOBITS sections have a size but no data
    data: bytes
    flags: int

    @property
    def end(self) -> int:
        return self.address + self.size

    @property
    def executable(self) -> bool:
        return bool(self.flags & SH_FLAGS.SHF_EXECINSTR)


class CodeObject:
    """An AMDHSA code object: use `CodeObject.load`."""

    def __init__(self, name: str, data: bytes):
        self.name = name  # as llvm-objdump names it: the path given, or <stdin> for bytes
        self.data = data
        elf = ELFFile(io.BytesIO(data))
        self._check_header(elf)
        self.target_id = TargetId.from_flags(elf.header.e_flags)
        if self.target_id.processor not in TARGETS:
            raise CodeObjectError(f"{name}: the code object is for {self.target_id.processor}, which gpubench "
                                  f"has no instruction tables for; known: {', '.join(TARGETS)}")
        self.target: str = self.target_id.processor
        self.arch = TARGETS[self.target].arch
        self.code_object_version = CODE_OBJECT_VERSIONS[elf.header.e_ident.EI_ABIVERSION]
        self.relocatable = elf.header.e_type == "ET_REL"
        self.sections = [_Section(i, s.name, s["sh_addr"], s["sh_size"],
                                  b"" if s["sh_type"] == "SHT_NOBITS" else s.data(), s["sh_flags"])
                         for i, s in enumerate(elf.iter_sections())]
        self.metadata = self._metadata(elf)
        self.section_symbols, self.absolute_symbols = self._symbols(elf)
        self.kernels = self._kernels()

    @classmethod
    def load(cls, source: str | Path | bytes, name: str | None = None) -> "CodeObject":
        if isinstance(source, bytes):
            return cls(name or "<stdin>", source)
        return cls(name or str(source), Path(source).read_bytes())

    def _check_header(self, elf: ELFFile) -> None:
        if elf.header.e_machine != "EM_AMDGPU":
            raise CodeObjectError(f"{self.name}: not an AMDGPU ELF (e_machine {elf.header.e_machine})")
        if elf.elfclass != 64 or not elf.little_endian:
            raise CodeObjectError(f"{self.name}: not a 64-bit little-endian ELF (elf32-amdgpu is R600)")
        osabi = self.data[7]  # pyelftools names 64 after ARM's ABI, so read the byte itself
        if osabi != ELFOSABI_AMDGPU_HSA:
            raise CodeObjectError(f"{self.name}: OS/ABI {osabi} is not AMDGPU HSA ({ELFOSABI_AMDGPU_HSA})")
        abi = elf.header.e_ident.EI_ABIVERSION
        if abi not in CODE_OBJECT_VERSIONS:
            raise CodeObjectError(f"{self.name}: HSA ABI version {abi} is not code object v4, v5 or v6")

    # -- metadata and symbols --

    @staticmethod
    def _metadata(elf: ELFFile) -> dict:
        for section in elf.iter_sections():
            if not isinstance(section, NoteSection):
                continue
            for note in section.iter_notes():
                if note["n_name"] == "AMDGPU" and note["n_type"] == NT_AMDGPU_METADATA:
                    return msgpack.unpackb(note["n_desc"], raw=False, strict_map_key=False)
        return {}

    def _symbols(self, elf: ELFFile) -> tuple[dict[int, list[Symbol]], list[Symbol]]:
        """Symbols by section index, sorted, and those in no section (ABS, undefined), as llvm-objdump
        collects them: .symtab, or .dynsym when .symtab puts none in a section (a stripped object)."""
        by_section, absolute = self._read_symbols(elf.get_section_by_name(".symtab"))
        if not by_section:
            by_section, _ = self._read_symbols(elf.get_section_by_name(".dynsym"))
        for symbols in by_section.values():
            symbols.sort(key=Symbol.sort_key)
        absolute.sort(key=Symbol.sort_key)
        return by_section, absolute

    def _read_symbols(self, table) -> tuple[dict[int, list[Symbol]], list[Symbol]]:
        by_section: dict[int, list[Symbol]] = {}
        absolute: list[Symbol] = []
        if not isinstance(table, SymbolTableSection):
            return by_section, absolute
        for sym in table.iter_symbols():
            kind = sym["st_info"]["type"]
            if not sym.name or kind in ("STT_SECTION", "STT_FILE"):
                continue
            symbol = Symbol(sym["st_value"], sym.name, kind, sym["st_size"])
            shndx = sym["st_shndx"]
            if isinstance(shndx, int) and 0 < shndx < len(self.sections):
                by_section.setdefault(shndx, []).append(symbol)
            else:
                absolute.append(symbol)
        return by_section, absolute

    def _section_at(self, address: int) -> _Section:
        for section in self.sections:
            if section.address <= address < section.end and section.flags & SH_FLAGS.SHF_ALLOC:
                return section
        raise CodeObjectError(f"{self.name}: no section holds address 0x{address:x}")

    def read(self, address: int, size: int) -> bytes:
        section = self._section_at(address)
        return section.data[address - section.address:address - section.address + size]

    # -- kernels --

    def _kernels(self) -> list[Kernel]:
        """One kernel per `.kd` descriptor symbol, with its metadata entry when there is one.

        A relocatable object has none: its descriptors' code offsets are relocations that only
        linking resolves."""
        if self.relocatable:
            return []
        entries = {k.get(".symbol"): k for k in self.metadata.get("amdhsa.kernels", [])}
        return [self._kernel(sym, entries.get(sym.name, {}))
                for _, symbols in sorted(self.section_symbols.items()) for sym in symbols
                if sym.type == STT_OBJECT and sym.name.endswith(".kd")]

    def _kernel(self, kd: Symbol, metadata: dict) -> Kernel:
        descriptor = KernelDescriptor.parse(self.read(kd.address, DESCRIPTOR_SIZE), self.arch)
        address = kd.address + descriptor.kernel_code_entry_byte_offset
        section = self._section_at(address)
        size = self._code_size(section, address)
        isa = ISA.get(self.target, descriptor.wave_size)
        labels = self._labels(section)
        offset, end = address - section.address, address - section.address + size
        instructions = []
        while offset < end:
            decoded = decode_at(isa, section.data, offset, section.address + offset, labels)
            instructions.append(decoded)
            offset += decoded.size
        return Kernel(kd.name.removesuffix(".kd"), kd.name, kd.address, descriptor, metadata, address,
                      section.data[address - section.address:end], tuple(instructions))

    def _code_size(self, section: _Section, address: int) -> int:
        """The function symbol's size, else up to the next symbol or the section's end."""
        symbols = self.section_symbols.get(section.index, [])
        for sym in symbols:
            if sym.address == address and sym.type == STT_FUNC and sym.size:
                return sym.size
        later = [s.address for s in symbols if s.address > address]
        return min(later, default=section.end) - address

    def _labels(self, section: _Section) -> dict[int, str]:
        """Plain (STT_NOTYPE) symbols of a section: the AMDGPU symbolizer names branch targets with
        the first of them at the target's address."""
        labels: dict[int, str] = {}
        for sym in self.section_symbols.get(section.index, []):
            if sym.type == STT_NOTYPE:
                labels.setdefault(sym.address, sym.name)
        return labels

    def wave_size_at(self, address: int) -> int:
        """The wave size of the kernel whose code holds ``address``; elsewhere the one the kernels
        share, or the target's default."""
        for kernel in self.kernels:
            if kernel.address <= address < kernel.address + kernel.size:
                return kernel.wave_size
        sizes = {k.wave_size for k in self.kernels}
        return sizes.pop() if len(sizes) == 1 else TARGETS[self.target].wave_sizes[0]

    # -- llvm-objdump -d --

    def objdump(self, wave_size: int | None = None) -> str:
        """The text of `llvm-objdump-22 -d`; ``wave_size`` overrides the descriptors' wave sizes."""
        out = [f"\n{self.name}:\tfile format elf64-amdgpu\n"]
        for section in self.sections:
            if section.executable and section.data:
                out.extend(self._objdump_section(section, wave_size))
        return "".join(out)

    def _display_symbols(self, section: _Section) -> list[Symbol]:
        """The section's symbols, with the section's name at its start when no symbol is there."""
        symbols = list(self.section_symbols.get(section.index, []))
        if not any(s.address == section.address for s in symbols):
            dummy = Symbol(section.address, section.name, STT_FUNC)
            keys = [s.sort_key() for s in symbols]
            symbols.insert(bisect.bisect_left(keys, dummy.sort_key()), dummy)
        return symbols

    def _objdump_section(self, section: _Section, wave_size: int | None) -> list[str]:
        out: list[str] = []
        symbols = self._display_symbols(section)
        starts = sorted({s.address for s in symbols})
        labels = self._labels(section)
        for i, start in enumerate(starts):
            here = [s for s in symbols if s.address == start]
            end = min(starts[i + 1] if i + 1 < len(starts) else section.end, section.end)
            if start < section.address or start >= end:
                continue
            if not out:
                out.append(f"\nDisassembly of section {section.name}:\n")
            # Code wins over data at one address: the last code symbol is shown, else the last one.
            code = [s for s in here if s.type not in DATA_SYMBOL_TYPES]
            shown = (code or here)[-1]
            out.append(f"\n{start:016x} <{shown.name}>:\n")
            if code:
                isa = ISA.get(self.target, wave_size or self.wave_size_at(start))
                out.extend(self._objdump_code(isa, section, start, end, labels))
            else:
                out.extend(_data_lines(section.data[start - section.address:end - section.address], start))
        return out

    def _objdump_code(self, isa: ISA, section: _Section, start: int, end: int,
                      labels: dict[int, str]) -> list[str]:
        lines = []
        offset, stop = start - section.address, end - section.address
        while offset < stop:
            zeros = _skippable_zeros(section.data[offset:stop])
            if zeros:
                lines.append("\t\t...\n")
                offset += zeros
                continue
            # Decoding reads on past `end` into the next symbol, as llvm-objdump does.
            decoded = decode_at(isa, section.data, offset, section.address + offset, labels)
            lines.append(self._line(decoded, section))
            offset += decoded.size
        return lines

    def _line(self, decoded: Decoded, section: _Section) -> str:
        """AMDGCNPrettyPrinter's line: the text left-justified to 60 columns (with its tab), then
        `// address:` and the bytes as dwords, then the branch target like llvm-objdump's."""
        data = decoded.data
        if decoded.text is not None:
            text = decoded.text
        elif len(data) >= 4:
            # Undecodable, or no syntax yet: shown as data, over the whole instruction so that the
            # addresses and lines after it stay those of llvm-objdump.
            text = f".long 0x{int.from_bytes(data[:4], 'little'):08x}"
        else:
            text = ".byte " + ", ".join(f"0x{b:02x}" for b in data)
        if len(data) >= 4:
            raw = " ".join(f"{int.from_bytes(data[i:i + 4], 'little'):08X}" for i in range(0, len(data) - 3, 4))
        else:
            raw = " ".join(f"{b:02X}" for b in data)
        column = ("\t" + text).ljust(60)
        return f"{column}// {decoded.address:012X}: {raw}{self._annotation(decoded, section)}\n"

    def _annotation(self, decoded: Decoded, section: _Section) -> str:
        """` <symbol+0x..>` after a branch, as llvm-objdump's evaluateBranch allows: only when the
        target is the instruction's first operand (SOPP branches, not s_call_b64) and no label names
        it already."""
        inst = decoded.inst
        if decoded.target is None or decoded.label is not None or inst.idef.operands[0].type != "OPR_LABEL":
            return ""
        sym = self._symbol_before(decoded.target, section)
        if sym is None:
            return ""
        offset = decoded.target - sym.address
        return f" <{sym.name}+0x{offset:x}>" if offset else f" <{sym.name}>"

    def _symbol_before(self, target: int, section: _Section) -> Symbol | None:
        """The last symbol at or before ``target`` in the section(s) at the highest address not above
        it (in a relocatable object: the branch's own section), else the last such absolute symbol."""
        if self.relocatable:
            candidates = [section]
        else:
            # Sections at one address are searched largest first, as llvm-objdump's reverse walk does.
            ordered = sorted(self.sections, key=lambda s: (s.address, s.size))
            below = [s for s in ordered if s.address <= target]
            candidates = [s for s in reversed(below) if s.address == below[-1].address]
        for symbols in [self._symbols_of(s) for s in candidates] + [self.absolute_symbols]:
            before = [s for s in symbols if s.address <= target]
            if before:
                return before[-1]
        return None

    def _symbols_of(self, section: _Section) -> list[Symbol]:
        """A section's symbols as llvm-objdump holds them: a disassembled one has its dummy too."""
        if section.executable and section.data:
            return self._display_symbols(section)
        return self.section_symbols.get(section.index, [])


def _skippable_zeros(data: bytes) -> int:
    """llvm-objdump skips a run of 8 or more zero bytes (as `...`), in whole dwords."""
    count = len(data) - len(data.lstrip(b"\0"))
    return count & ~3 if count >= 8 else 0


def _data_lines(data: bytes, address: int) -> list[str]:
    """llvm-objdump's dumpELFData for a data symbol in a code section: 8 bytes a line, then ASCII."""
    lines = []
    for i in range(0, len(data), 8):
        chunk = data[i:i + 8]
        hexes = "".join(f" {b:02x}" for b in chunk)
        ascii_ = "".join(chr(b) if 0x20 <= b < 0x7F else "." for b in chunk)
        lines.append(f"{address + i:8x}:{hexes}{' ' * (3 * (8 - len(chunk)))}         {ascii_}\n")
    return lines


def objdump(source: str | Path | bytes, name: str | None = None, wave_size: int | None = None) -> str:
    """`llvm-objdump-22 -d` of a code object (a path, or its bytes: then named <stdin>)."""
    return CodeObject.load(source, name).objdump(wave_size)


def main(argv: list[str] | None = None) -> int:
    for path in argv if argv is not None else sys.argv[1:]:
        sys.stdout.write(objdump(path))
    return 0


if __name__ == "__main__":
    sys.exit(main())
