"""The AMDHSA assembler directives: what llvm-mc-22 makes of them, without LLVM.

- `.amdhsa_kernel NAME ... .end_amdhsa_kernel` -> the 64-byte kernel descriptor, bit for bit as
  llvm-mc encodes it: the same defaults, the same register granules, the same errors.
- `.amdgpu_metadata ... .end_amdgpu_metadata` -> the metadata document of the NT_AMDGPU_METADATA
  note, read as LLVM reads it (gpubench.isa.hsa_metadata).
- `.gpubench_args NAME ... .end_gpubench_args` (gpubench's own, not LLVM's) -> the `.args` of a
  kernel whose metadata gpubench synthesizes (hsa_metadata.synthesized).
- `.amdhsa_code_object_version` and `.amdgcn_target`, which the code object writer reads.

The facts come from LLVM's AMDGPUUsage ("Kernel Descriptor", "AMDHSA Kernel Assembler Directives")
and from llvm-mc-22 itself: tests/isa/test_codeobject_writer.py
compares with it. The assembler (gpubench.isa.asm) hands each block here as its source lines.
"""
from __future__ import annotations

import re
import struct
from dataclasses import dataclass

from gpubench.isa import hsa_metadata
from gpubench.isa.arch import ISA
from gpubench.isa.codeobject import DESCRIPTOR_FIELDS, KernelDescriptor, TargetId

# Block start directive -> its end directive.
BLOCKS = {".amdhsa_kernel": ".end_amdhsa_kernel", ".amdgpu_metadata": ".end_amdgpu_metadata",
          ".gpubench_args": ".end_gpubench_args"}
CODE_OBJECT_VERSIONS = (4, 5, 6)
DEFAULT_CODE_OBJECT_VERSION = 6  # llvm-mc-22's when the source names none


class DirectiveError(ValueError):
    """An error at a line and column of the source, in llvm-mc's words."""

    def __init__(self, line_number: int, column: int, message: str):
        super().__init__(message)
        self.line_number, self.column, self.message = line_number, column, message


@dataclass(frozen=True)
class Place:
    """A place in the source that an error can point at."""

    line_number: int
    column: int

    def error(self, message: str) -> DirectiveError:
        return DirectiveError(self.line_number, self.column, message)


# A block's lines as the assembler hands them over: (line number, text without its comment).
SourceLines = list[tuple[int, str]]


@dataclass(frozen=True)
class MetadataBlock:
    """A `.amdgpu_metadata` block: the document, typed as LLVM types it."""

    document: dict
    line_number: int


@dataclass(frozen=True)
class ArgsBlock:
    """A `.gpubench_args NAME` block: a kernel's `.args` for the metadata gpubench synthesizes."""

    kernel: str
    args: list
    line_number: int


# ---------------------------------------------------------------------------------------------
# Target ID: the processor and its XNACK / SRAMECC settings (-mattr=+xnack, ...)

# Processors with the XNACK and SRAMECC target features; on the others neither can be named.
TARGET_FEATURES = {"gfx942": ("sramecc", "xnack"), "gfx950": ("sramecc", "xnack")}


def target_id(processor: str, mattr: str | None) -> TargetId:
    """The target ID llvm-mc derives from -mcpu and -mattr: a feature left unnamed is "any"."""
    supported = TARGET_FEATURES.get(processor, ())
    settings = dict.fromkeys(supported, "any")
    for feature in filter(None, (f.strip() for f in (mattr or "").split(","))):
        name = feature.lstrip("+-")
        if name not in ("xnack", "sramecc"):
            continue  # the wave size features are the ISA's business
        if name not in supported:
            raise ValueError(f"{processor} has no {name} setting")
        settings[name] = "off" if feature.startswith("-") else "on"
    return TargetId(processor, settings.get("xnack"), settings.get("sramecc"))


def target_name(target: TargetId) -> str:
    """As `.amdgcn_target` and `amdhsa.target` spell it."""
    return f"amdgcn-amd-amdhsa--{target}"


# ---------------------------------------------------------------------------------------------
# Directive values: llvm-mc's absolute expressions over integers

_TOKEN = re.compile(r"\s*(?:(0[xX][0-9a-fA-F]+|0[bB][01]+|\d+)|(<<|>>|[-+*/%&|^~()]))")
# Binary operators by precedence, as llvm-mc ranks them for GNU syntax: + and - lowest, then the
# bitwise ones (unlike C), then multiplication, division and shifts.
_PRECEDENCE = {"+": 1, "-": 1, "|": 2, "^": 2, "&": 2, "*": 3, "/": 3, "%": 3, "<<": 3, ">>": 3}


def _literal(text: str) -> int:
    if len(text) > 1 and text[0] == "0" and text[1].isdigit():
        return int(text, 8)  # a leading zero means octal, as in C
    return int(text, 0)


def evaluate(text: str, place: Place) -> int:
    """The value of an integer expression: literals, + - * / % << >> & | ^ ~ and parentheses."""
    tokens, position = [], 0
    while position < len(text.rstrip()):
        m = _TOKEN.match(text, position)
        if not m:
            raise place.error("expected absolute expression")
        tokens.append(_literal(m.group(1)) if m.group(1) else m.group(2))
        position = m.end()

    def primary(i: int) -> tuple[int, int]:
        if i >= len(tokens):
            raise place.error("expected absolute expression")
        token = tokens[i]
        if isinstance(token, int):
            return token, i + 1
        if token in "-~+":
            value, i = primary(i + 1)
            return {"-": -value, "~": ~value, "+": value}[token], i
        if token == "(":
            value, i = binary(i + 1, 1)
            if i < len(tokens) and tokens[i] == ")":
                return value, i + 1
        raise place.error("expected absolute expression")

    def binary(i: int, lowest: int) -> tuple[int, int]:
        value, i = primary(i)
        while i < len(tokens) and _PRECEDENCE.get(tokens[i], 0) >= lowest:
            op = tokens[i]
            right, i = binary(i + 1, _PRECEDENCE[op] + 1)
            value = _apply(op, value, right, place)
        return value, i

    value, end = binary(0, 1)
    if end != len(tokens):
        raise place.error("expected absolute expression")
    return value


def _apply(op: str, a: int, b: int, place: Place) -> int:
    if op in "/%" and b == 0:
        raise place.error("division by zero")
    if op == "/":
        return abs(a) // abs(b) * (1 if (a < 0) == (b < 0) else -1)  # truncates, as in C
    if op == "%":
        return a - b * _apply("/", a, b, place)
    return {"+": a + b, "-": a - b, "*": a * b, "<<": a << b, ">>": a >> b, "&": a & b, "|": a | b,
            "^": a ^ b}[op]


# ---------------------------------------------------------------------------------------------
# Kernel descriptor

# The descriptor's layout (codeobject.KernelDescriptor reads the same): group, private and kernarg
# segment sizes, 4 reserved, the entry's offset, 20 reserved, rsrc3, rsrc1, rsrc2, kernel code
# properties, kernarg preload, 4 reserved.
_DESCRIPTOR = struct.Struct("<III4xq20xIIIHH4x")
ENTRY_OFFSET = 16  # of kernel_code_entry_byte_offset: only the code object's layout decides it
SEGMENT_SIZES = {".amdhsa_group_segment_fixed_size": "group_segment_fixed_size",
                 ".amdhsa_private_segment_fixed_size": "private_segment_fixed_size",
                 ".amdhsa_kernarg_size": "kernarg_size"}

# Directives that set one descriptor bit field: directive -> (register, field of DESCRIPTOR_FIELDS).
FIELD_DIRECTIVES = {
    ".amdhsa_user_sgpr_dispatch_ptr": ("kernel_code_properties", "ENABLE_SGPR_DISPATCH_PTR"),
    ".amdhsa_user_sgpr_queue_ptr": ("kernel_code_properties", "ENABLE_SGPR_QUEUE_PTR"),
    ".amdhsa_user_sgpr_kernarg_segment_ptr": ("kernel_code_properties", "ENABLE_SGPR_KERNARG_SEGMENT_PTR"),
    ".amdhsa_user_sgpr_dispatch_id": ("kernel_code_properties", "ENABLE_SGPR_DISPATCH_ID"),
    ".amdhsa_user_sgpr_private_segment_size": ("kernel_code_properties", "ENABLE_SGPR_PRIVATE_SEGMENT_SIZE"),
    ".amdhsa_user_sgpr_kernarg_preload_length": ("kernarg_preload", "KERNARG_PRELOAD_SPEC_LENGTH"),
    ".amdhsa_user_sgpr_kernarg_preload_offset": ("kernarg_preload", "KERNARG_PRELOAD_SPEC_OFFSET"),
    ".amdhsa_wavefront_size32": ("kernel_code_properties", "ENABLE_WAVEFRONT_SIZE32"),
    ".amdhsa_uses_dynamic_stack": ("kernel_code_properties", "USES_DYNAMIC_STACK"),
    ".amdhsa_enable_private_segment": ("compute_pgm_rsrc2", "ENABLE_PRIVATE_SEGMENT"),
    ".amdhsa_system_sgpr_workgroup_id_x": ("compute_pgm_rsrc2", "ENABLE_SGPR_WORKGROUP_ID_X"),
    ".amdhsa_system_sgpr_workgroup_id_y": ("compute_pgm_rsrc2", "ENABLE_SGPR_WORKGROUP_ID_Y"),
    ".amdhsa_system_sgpr_workgroup_id_z": ("compute_pgm_rsrc2", "ENABLE_SGPR_WORKGROUP_ID_Z"),
    ".amdhsa_system_sgpr_workgroup_info": ("compute_pgm_rsrc2", "ENABLE_SGPR_WORKGROUP_INFO"),
    ".amdhsa_system_vgpr_workitem_id": ("compute_pgm_rsrc2", "ENABLE_VGPR_WORKITEM_ID"),
    ".amdhsa_float_round_mode_32": ("compute_pgm_rsrc1", "FLOAT_ROUND_MODE_32"),
    ".amdhsa_float_round_mode_16_64": ("compute_pgm_rsrc1", "FLOAT_ROUND_MODE_16_64"),
    ".amdhsa_float_denorm_mode_32": ("compute_pgm_rsrc1", "FLOAT_DENORM_MODE_32"),
    ".amdhsa_float_denorm_mode_16_64": ("compute_pgm_rsrc1", "FLOAT_DENORM_MODE_16_64"),
    ".amdhsa_dx10_clamp": ("compute_pgm_rsrc1", "ENABLE_DX10_CLAMP"),
    ".amdhsa_ieee_mode": ("compute_pgm_rsrc1", "ENABLE_IEEE_MODE"),
    ".amdhsa_fp16_overflow": ("compute_pgm_rsrc1", "FP16_OVFL"),
    ".amdhsa_tg_split": ("compute_pgm_rsrc3", "TG_SPLIT"),
    ".amdhsa_workgroup_processor_mode": ("compute_pgm_rsrc1", "WGP_MODE"),
    ".amdhsa_memory_ordered": ("compute_pgm_rsrc1", "MEM_ORDERED"),
    ".amdhsa_forward_progress": ("compute_pgm_rsrc1", "FWD_PROGRESS"),
    ".amdhsa_shared_vgpr_count": ("compute_pgm_rsrc3", "SHARED_VGPR_COUNT"),
    ".amdhsa_inst_pref_size": ("compute_pgm_rsrc3", "INST_PREF_SIZE"),
    ".amdhsa_round_robin_scheduling": ("compute_pgm_rsrc1", "ENABLE_WG_RR_EN"),
    ".amdhsa_exception_fp_ieee_invalid_op": ("compute_pgm_rsrc2", "ENABLE_EXCEPTION_IEEE_754_FP_INVALID_OPERATION"),
    ".amdhsa_exception_fp_denorm_src": ("compute_pgm_rsrc2", "ENABLE_EXCEPTION_FP_DENORMAL_SOURCE"),
    ".amdhsa_exception_fp_ieee_div_zero": ("compute_pgm_rsrc2", "ENABLE_EXCEPTION_IEEE_754_FP_DIVISION_BY_ZERO"),
    ".amdhsa_exception_fp_ieee_overflow": ("compute_pgm_rsrc2", "ENABLE_EXCEPTION_IEEE_754_FP_OVERFLOW"),
    ".amdhsa_exception_fp_ieee_underflow": ("compute_pgm_rsrc2", "ENABLE_EXCEPTION_IEEE_754_FP_UNDERFLOW"),
    ".amdhsa_exception_fp_ieee_inexact": ("compute_pgm_rsrc2", "ENABLE_EXCEPTION_IEEE_754_FP_INEXACT"),
    ".amdhsa_exception_int_div_zero": ("compute_pgm_rsrc2", "ENABLE_EXCEPTION_INT_DIVIDE_BY_ZERO"),
}
# SGPRs each user SGPR directive asks for, when set: their sum is USER_SGPR_COUNT unless given.
USER_SGPRS = {".amdhsa_user_sgpr_dispatch_ptr": 2, ".amdhsa_user_sgpr_queue_ptr": 2,
              ".amdhsa_user_sgpr_kernarg_segment_ptr": 2, ".amdhsa_user_sgpr_dispatch_id": 2,
              ".amdhsa_user_sgpr_private_segment_size": 1}
MAX_USER_SGPRS = 31  # USER_SGPR_COUNT is 5 bits
MAX_KERNARG_PRELOAD = 16  # SGPRs: llvm-mc rejects a longer preload
MAX_SGPRS_GFX9 = 102  # addressable SGPRs; gfx10+ descriptors do not count them

# Directives LLVM knows but rejects for a generation: directive -> {arch: llvm-mc's error}.
_GFX9_ONLY = {"rdna3": "directive requires gfx90a+", "rdna4": "directive requires gfx90a+"}
_GFX10_PLUS = {"cdna": "directive requires gfx10+"}
UNAVAILABLE = {
    ".amdhsa_user_sgpr_kernarg_preload_length": _GFX9_ONLY,
    ".amdhsa_user_sgpr_kernarg_preload_offset": _GFX9_ONLY,
    ".amdhsa_accum_offset": _GFX9_ONLY,
    ".amdhsa_tg_split": _GFX9_ONLY,
    ".amdhsa_wavefront_size32": _GFX10_PLUS,
    ".amdhsa_memory_ordered": _GFX10_PLUS,
    ".amdhsa_forward_progress": _GFX10_PLUS,
    ".amdhsa_workgroup_processor_mode": {"cdna": "directive unsupported on {processor}"},
    ".amdhsa_dx10_clamp": {"rdna4": "directive unsupported on gfx12+"},
    ".amdhsa_ieee_mode": {"rdna4": "directive unsupported on gfx12+"},
    ".amdhsa_shared_vgpr_count": {"cdna": "directive requires gfx10 or gfx11",
                                  "rdna4": "directive requires gfx10 or gfx11"},
    ".amdhsa_inst_pref_size": {"cdna": "directive requires gfx11+"},
    ".amdhsa_round_robin_scheduling": {"cdna": "directive requires gfx12+", "rdna3": "directive requires gfx12+"},
}
# Known to LLVM, rejected on every processor gpubench has tables for (all have architected flat
# scratch; named barriers are gfx1250's).
_FLAT_SCRATCH = "directive is not supported with architected flat scratch"
REJECTED = {".amdhsa_user_sgpr_private_segment_buffer": _FLAT_SCRATCH,
            ".amdhsa_user_sgpr_flat_scratch_init": _FLAT_SCRATCH,
            ".amdhsa_system_sgpr_private_segment_wavefront_offset": _FLAT_SCRATCH,
            ".amdhsa_reserve_flat_scratch": _FLAT_SCRATCH,
            ".amdhsa_named_barrier_count": "directive requires gfx1250+"}
# Directives that set no field of their own: they feed the computations after the block.
COMPUTED = {".amdhsa_next_free_vgpr", ".amdhsa_next_free_sgpr", ".amdhsa_accum_offset", ".amdhsa_reserve_vcc",
            ".amdhsa_reserve_xnack_mask", ".amdhsa_user_sgpr_count"}


def _field(arch: str, register: str, name: str) -> tuple[int, int]:
    """(low bit, width) of a descriptor field on an arch."""
    for reg, field_name, lo, width, archs in DESCRIPTOR_FIELDS:
        if reg == register and field_name == name and arch in archs:
            return lo, width
    raise KeyError(f"no {register}.{name} on {arch}")


@dataclass(frozen=True)
class Directive(Place):
    """One `.amdhsa_*` line: its value, at the place of the value (where llvm-mc reports a bad
    value), and the column of its name (where it reports a directive out of place)."""

    name: str = ""
    value: int = 0
    name_column: int = 1

    def name_error(self, message: str) -> DirectiveError:
        return DirectiveError(self.line_number, self.name_column, message)


@dataclass(frozen=True)
class KernelBlock:
    """A `.amdhsa_kernel` block, encoded."""

    name: str
    descriptor: bytes  # its kernel_code_entry_byte_offset is 0 until the code object is laid out
    sgpr_count: int  # next_free_sgpr and the SGPRs the target reserves (VCC...), as LLVM's metadata counts
    vgpr_count: int  # architected VGPRs
    agpr_count: int | None  # accumulation VGPRs, on processors that have them
    reserve_xnack_mask: Directive | None  # its value must agree with the target's XNACK setting

    def decoded(self, arch: str) -> KernelDescriptor:
        return KernelDescriptor.parse(self.descriptor, arch)


class _Descriptor:
    """The descriptor's registers while a block is read, starting from llvm-mc's defaults."""

    def __init__(self, isa: ISA):
        self.arch = isa.arch
        self.registers = dict.fromkeys(("compute_pgm_rsrc1", "compute_pgm_rsrc2", "compute_pgm_rsrc3",
                                        "kernel_code_properties", "kernarg_preload"), 0)
        self.sizes = dict.fromkeys(SEGMENT_SIZES.values(), 0)
        self.set("compute_pgm_rsrc1", "FLOAT_DENORM_MODE_16_64", 3)  # no FP16/FP64 denormal flushing
        if self.arch != "rdna4":
            self.set("compute_pgm_rsrc1", "ENABLE_DX10_CLAMP", 1)
            self.set("compute_pgm_rsrc1", "ENABLE_IEEE_MODE", 1)
        if self.arch != "cdna":
            self.set("compute_pgm_rsrc1", "WGP_MODE", 1)
            self.set("compute_pgm_rsrc1", "MEM_ORDERED", 1)
            self.set("compute_pgm_rsrc1", "FWD_PROGRESS", 1)
            self.set("kernel_code_properties", "ENABLE_WAVEFRONT_SIZE32", int(isa.wave_size == 32))
        self.set("compute_pgm_rsrc2", "ENABLE_SGPR_WORKGROUP_ID_X", 1)

    def fits(self, register: str, name: str, value: int) -> bool:
        return value < 1 << _field(self.arch, register, name)[1]

    def set(self, register: str, name: str, value: int) -> None:
        lo, width = _field(self.arch, register, name)
        mask = ((1 << width) - 1) << lo
        self.registers[register] = self.registers[register] & ~mask | value << lo

    def get(self, register: str, name: str) -> int:
        lo, width = _field(self.arch, register, name)
        return self.registers[register] >> lo & ((1 << width) - 1)

    def pack(self) -> bytes:
        r = self.registers
        return _DESCRIPTOR.pack(self.sizes["group_segment_fixed_size"], self.sizes["private_segment_fixed_size"],
                                self.sizes["kernarg_size"], 0, r["compute_pgm_rsrc3"], r["compute_pgm_rsrc1"],
                                r["compute_pgm_rsrc2"], r["kernel_code_properties"], r["kernarg_preload"])


_IDENTIFIER = re.compile(r"[A-Za-z_.$][\w.$]*")


def _end_of(lines: SourceLines) -> Place:
    """Just after a block's end directive: where llvm-mc reports what the whole block gets wrong."""
    number, text = lines[-1]
    return Place(number, len(text.rstrip()) + 1)


def _block_name(header: tuple[int, str], what: str) -> str:
    number, text = header
    words = text.split()
    if len(words) != 2 or not _IDENTIFIER.fullmatch(words[1]):
        raise DirectiveError(number, text.index(words[0]) + len(words[0]) + 1, f"expected {what} name")
    return words[1]


def _directives(lines: SourceLines) -> list[Directive]:
    """The block's `.amdhsa_*` lines, values evaluated, in llvm-mc's order of checks."""
    seen, result = set(), []
    for number, text in lines:
        words = text.split(None, 1)
        if not words:
            continue
        name, column = words[0], text.index(words[0]) + 1
        if not _IDENTIFIER.fullmatch(name):
            raise DirectiveError(number, column, "expected .amdhsa_ directive or .end_amdhsa_kernel")
        value_column = text.index(words[1], column) + 1 if len(words) > 1 else len(text.rstrip()) + 1
        if name in seen:
            raise DirectiveError(number, value_column, ".amdhsa_ directives cannot be repeated")
        seen.add(name)
        value = evaluate(words[1] if len(words) > 1 else "", Place(number, value_column))
        directive = Directive(number, value_column, name, value, column)
        if directive.value < 0:
            raise directive.error("value out of range")
        result.append(directive)
    return result


def parse_kernel(isa: ISA, lines: SourceLines) -> KernelBlock:
    """Encode a `.amdhsa_kernel` block (its lines, header and end included) for ``isa``'s target
    and wave size, as llvm-mc -mcpu=<target> [-mattr=+wavefrontsize64] does."""
    name = _block_name(lines[0], "kernel")
    at_end = _end_of(lines)
    kd = _Descriptor(isa)
    given: dict[str, Directive] = {}
    for d in _directives(lines[1:-1]):
        given[d.name] = d
        _check_available(isa, d)
        if d.name in SEGMENT_SIZES:
            if d.value >= 1 << 32:
                raise d.error("value out of range")
            kd.sizes[SEGMENT_SIZES[d.name]] = d.value
        elif d.name in FIELD_DIRECTIVES:
            register, field_name = FIELD_DIRECTIVES[d.name]
            if not kd.fits(register, field_name, d.value) or (
                    d.name == ".amdhsa_user_sgpr_kernarg_preload_length" and d.value > MAX_KERNARG_PRELOAD):
                raise d.error("value out of range")
            kd.set(register, field_name, d.value)
        elif d.name in (".amdhsa_reserve_vcc", ".amdhsa_reserve_xnack_mask") and d.value > 1:
            raise d.error("value out of range")
        elif d.name == ".amdhsa_reserve_xnack_mask" and "xnack" not in TARGET_FEATURES.get(isa.target.name, ()):
            # Without XNACK the target ID can only say "none"; with it, the writer checks (check_xnack).
            check_xnack_value(d, None)

    for required in (".amdhsa_next_free_vgpr", ".amdhsa_next_free_sgpr"):
        if required not in given:
            raise at_end.error(f"{required} directive is required")
    user_sgprs = _user_sgpr_count(kd, given)
    sgpr_count = _sgpr_blocks(isa, kd, given, user_sgprs)
    wave32 = kd.get("kernel_code_properties", "ENABLE_WAVEFRONT_SIZE32") if isa.arch != "cdna" else 0
    vgprs = given[".amdhsa_next_free_vgpr"]
    vgpr_blocks = _blocks(vgprs.value, 8 if isa.arch == "cdna" or wave32 else 4)
    if not kd.fits("compute_pgm_rsrc1", "GRANULATED_WORKITEM_VGPR_COUNT", vgpr_blocks):
        raise vgprs.error("value out of range")
    kd.set("compute_pgm_rsrc1", "GRANULATED_WORKITEM_VGPR_COUNT", vgpr_blocks)
    _check_user_sgpr_count(kd, given, user_sgprs, at_end)
    preload = kd.get("kernarg_preload", "KERNARG_PRELOAD_SPEC_LENGTH")
    preload_end = 4 * (preload + kd.get("kernarg_preload", "KERNARG_PRELOAD_SPEC_OFFSET"))  # in dwords
    if preload and kd.sizes["kernarg_size"] and preload_end > kd.sizes["kernarg_size"]:
        raise at_end.error("Kernarg preload length + offset is larger than the kernarg segment size")
    kd.set("compute_pgm_rsrc2", "USER_SGPR_COUNT", user_sgprs)
    vgpr_count, agpr_count = vgprs.value, None
    if isa.arch == "cdna":
        accum_offset = _accum_offset(given, vgprs.value, at_end)
        kd.set("compute_pgm_rsrc3", "ACCUM_OFFSET", accum_offset // 4 - 1)
        # AGPRs follow the architected VGPRs from accum_offset on, in one register file.
        vgpr_count, agpr_count = min(vgprs.value, accum_offset), max(vgprs.value - accum_offset, 0)
    if isa.arch == "rdna3":
        _check_shared_vgprs(kd.get("compute_pgm_rsrc3", "SHARED_VGPR_COUNT"), vgpr_blocks, given, at_end)
    return KernelBlock(name, kd.pack(), sgpr_count, vgpr_count, agpr_count,
                       given.get(".amdhsa_reserve_xnack_mask"))


def _check_shared_vgprs(shared: int, vgpr_blocks: int, given: dict[str, Directive], at_end: Place) -> None:
    """Shared VGPRs are wave64's, in blocks of 8 out of a 64-block budget. llvm-mc rejects them
    under an explicit `.amdhsa_wavefront_size32 1`, and otherwise checks the budget whatever the
    wave size."""
    wave32 = given.get(".amdhsa_wavefront_size32")
    if shared and wave32 and wave32.value:
        raise at_end.error("shared_vgpr_count directive not valid on wavefront size 32")
    if 2 * shared + vgpr_blocks > 63:
        raise at_end.error("shared_vgpr_count*2 + compute_pgm_rsrc1.GRANULATED_WORKITEM_VGPR_COUNT cannot exceed 63")


def _check_available(isa: ISA, d: Directive) -> None:
    if d.name in REJECTED:
        raise d.name_error(REJECTED[d.name])
    message = UNAVAILABLE.get(d.name, {}).get(isa.arch)
    if message:
        raise d.name_error(message.format(processor=isa.target.name))
    if d.name not in FIELD_DIRECTIVES and d.name not in COMPUTED and d.name not in SEGMENT_SIZES:
        raise d.name_error("unknown .amdhsa_kernel directive")


def _blocks(count: int, granule: int) -> int:
    """A register count as the descriptor holds it: granules, less one (no registers counts as one)."""
    return -(-max(count, 1) // granule) - 1


def _implied_user_sgprs(kd: _Descriptor, given: dict[str, Directive]) -> int:
    implied = sum(size for name, size in USER_SGPRS.items() if name in given and given[name].value)
    return implied + kd.get("kernarg_preload", "KERNARG_PRELOAD_SPEC_LENGTH")


def _user_sgpr_count(kd: _Descriptor, given: dict[str, Directive]) -> int:
    explicit = given.get(".amdhsa_user_sgpr_count")
    return explicit.value if explicit else _implied_user_sgprs(kd, given)


def _check_user_sgpr_count(kd: _Descriptor, given: dict[str, Directive], count: int, at_end: Place) -> None:
    if count < _implied_user_sgprs(kd, given):
        raise at_end.error("amdgpu_user_sgpr_count smaller than than implied by enabled user SGPRs")
    if count > MAX_USER_SGPRS:
        raise at_end.error("too many user SGPRs enabled")


def _sgpr_blocks(isa: ISA, kd: _Descriptor, given: dict[str, Directive], user_sgprs: int) -> int:
    """Set GRANULATED_WAVEFRONT_SGPR_COUNT; return the SGPR count LLVM's metadata reports."""
    sgprs = given[".amdhsa_next_free_sgpr"]
    reserve_vcc = given[".amdhsa_reserve_vcc"].value if ".amdhsa_reserve_vcc" in given else 1
    if isa.arch != "cdna":
        return sgprs.value + 2 * reserve_vcc  # gfx10+ descriptors leave the SGPR granule at 0
    if sgprs.value > MAX_SGPRS_GFX9:
        raise sgprs.error("value out of range")
    count = sgprs.value
    if kd.get("kernarg_preload", "KERNARG_PRELOAD_SPEC_LENGTH"):
        count = max(count, user_sgprs)  # the preloaded arguments live in SGPRs the kernel owns
    # VCC, FLAT_SCRATCH and XNACK_MASK sit just above the kernel's SGPRs. Flat scratch cannot be
    # released on these processors (architected flat scratch), so it is 6 whatever VCC and XNACK say.
    count += 6
    kd.set("compute_pgm_rsrc1", "GRANULATED_WAVEFRONT_SGPR_COUNT", _blocks(count, 8))
    return count


def _accum_offset(given: dict[str, Directive], next_free_vgpr: int, at_end: Place) -> int:
    directive = given.get(".amdhsa_accum_offset")
    if directive is None:
        raise at_end.error(".amdhsa_accum_offset directive is required")
    value = directive.value
    if not 4 <= value <= 256 or value % 4:
        raise at_end.error("accum_offset should be in range [4..256] in increments of 4")
    if value > -(-max(next_free_vgpr, 1) // 4) * 4:
        raise at_end.error("accum_offset exceeds total VGPR allocation")
    return value


def check_xnack(kernel: KernelBlock, target: TargetId) -> None:
    """`.amdhsa_reserve_xnack_mask`, when given, must say what the target ID says."""
    if kernel.reserve_xnack_mask is not None:
        check_xnack_value(kernel.reserve_xnack_mask, target.xnack)


def check_xnack_value(directive: Directive, xnack: str | None) -> None:
    """The mask is reserved unless the target has no XNACK or has it off."""
    if directive.value != int(xnack not in (None, "off")):
        raise directive.name_error(".amdhsa_reserve_xnack_mask does not match target id")


# ---------------------------------------------------------------------------------------------
# The metadata blocks (the document's rules are gpubench.isa.hsa_metadata's)


def parse_metadata(lines: SourceLines) -> MetadataBlock:
    """A `.amdgpu_metadata` block, typed and checked as llvm-mc types and checks it."""
    document = _yaml_block(lines, hsa_metadata.valid_document, "invalid HSA metadata")
    return MetadataBlock(document, lines[0][0])


def parse_args(lines: SourceLines) -> ArgsBlock:
    """A `.gpubench_args NAME` block: the kernel's `.args` as a YAML list in the metadata's form
    (`- {.offset: 0, .size: 8, .value_kind: global_buffer, .address_space: global}`)."""
    name = _block_name(lines[0], "kernel")
    return ArgsBlock(name, _yaml_block(lines, hsa_metadata.valid_args, "invalid kernel arguments"), lines[0][0])


def _yaml_block(lines: SourceLines, valid, message: str):
    try:
        value = hsa_metadata.from_yaml("\n".join(text for _, text in lines[1:-1]))
    except ValueError:
        value = None
    if not valid(value):
        raise _end_of(lines).error(message)
    return value


def parse_block(isa: ISA, lines: SourceLines) -> KernelBlock | MetadataBlock | ArgsBlock:
    """A block of `BLOCKS`, from its start line to its end line."""
    start = lines[0][1].split()[0]
    if start == ".amdhsa_kernel":
        return parse_kernel(isa, lines)
    return parse_metadata(lines) if start == ".amdgpu_metadata" else parse_args(lines)
