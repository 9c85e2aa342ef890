"""Typed buffer loads and stores (manual: the RDNA3 ISA manual's "Buffer Instructions" and data-format
prose; its pseudocode only says ConvertFromFormat/ConvertToFormat): MUBUF BUFFER_{LOAD,STORE}[_D16[_HI]]
_FORMAT_* (gfx12: VBUFFER BUFFER_*_FORMAT_*) take the format from the V#, TBUFFER_* from the instruction.
Addressing and the range check are buffer.py's (`BufferAccess`); the format numbers and names are the
ISA layer's (gpubench.isa.syntax.buffer):
- gfx11 and gfx12 number formats by the unified table (UNIFIED_FORMATS): the V#'s FORMAT is dword 3
  bits 18:12 on gfx11, 17:12 on gfx12 (Mesa's ac_build_buffer_descriptor writes FORMAT_GFX10 /
  FORMAT_GFX12 there), and the instruction's format field holds the same numbers.
- gfx9 (gfx942, gfx950) names a data format (DATA_FORMATS: the component widths) and a number format
  (NUMBER_FORMATS): the V#'s NUM_FORMAT in dword 3 bits 14:12 and DATA_FORMAT in 18:15 (SI's
  SQ_BUF_RSRC_WORD3 layout, which gfx9 keeps), the instruction's dfmt/nfmt fields. A pair is the
  format of the same name in the unified table (gfx10 numbered the pairs that exist); a pair without
  one (BUF_DATA_FORMAT_32 with UNORM, the reserved codes) is reported as not a format.

A format names its components' widths from the top bit down (10_11_11: X is bits 10:0, Z bits 31:22;
Mesa maps R11G11B10 to it), and a number type: UNORM u / (2^n - 1), SNORM max(s / (2^(n-1) - 1), -1),
USCALED/SSCALED the integer as a float, UINT/SINT the integer zero-/sign-extended, FLOAT f16/f32 or
the unsigned 11- and 10-bit floats (5-bit exponent; 6- or 5-bit mantissa).
- Loads read the whole element (all its bytes pass the range check, each dword on its own, as in
  buffer.py; out of range reads 0). A component the format lacks reads 0, W 1 (1.0 unless the type
  is UINT/SINT). The V#'s DST_SEL_X..W (bits 11:0: 0 zero, 1 one, 4..7 X..W) pick what each of the
  instruction's components receives. D16 forms return 16 bits: float results as f16 (rounded to
  nearest even), integers' low 16 bits; two per VGPR, X low; an odd last half keeps the VGPR's other
  half, and D16_HI fills bits 31:16 only.
- Stores write the components both the instruction and the format have, converting f32 (D16: f16,
  and a 16-bit integer extended by the format's signedness): UNORM/SNORM clamp to [0, 1] / [-1, 1],
  scale and round to nearest even (NaN to 0), UINT/SINT saturate, FLOAT rounds to nearest even.
  Stores to SCALED and 11/10-bit float formats, and stores of fewer components than a packed format
  holds, are reported as not emulated: the manual does not say how they round or what fills the rest.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from gpubench.emu.context import Context
from gpubench.emu.ops import Unsupported, factory
from gpubench.emu.ops.buffer import BUFFER_FORMATS, BufferAccess, Resource
from gpubench.emu.ops.lane_data import read_dwords, write_dwords
from gpubench.emu.ops.memory_ops import check_data_registers
from gpubench.isa.decoder import Instruction
from gpubench.isa.syntax.buffer import DATA_FORMATS, NUMBER_FORMATS, UNIFIED_FORMATS

COMPONENTS = {"X": 1, "XY": 2, "XYZ": 3, "XYZW": 4}
ONE_F32, ONE_F16 = 0x3F800000, 0x3C00


@dataclass(frozen=True)
class BufferFormat:
    name: str
    widths: tuple[int, ...]  # bits per component, X first
    kind: str  # UNORM SNORM USCALED SSCALED UINT SINT FLOAT

    @classmethod
    def of(cls, arch: str, number: int, name: str) -> BufferFormat:
        """The format a format code names (FORMAT_CODES: unified, or gfx9's dfmt | nfmt << 4)."""
        if arch == "cdna":
            pair = f"{DATA_FORMATS[number & 0xF]}_{NUMBER_FORMATS[number >> 4]}"
            if pair not in UNIFIED_FORMATS:
                raise Unsupported(f"{name}: BUF_DATA_FORMAT_{DATA_FORMATS[number & 0xF]} with "
                                  f"BUF_NUM_FORMAT_{NUMBER_FORMATS[number >> 4]} is not a buffer format")
            number = UNIFIED_FORMATS.index(pair)
        if not 0 < number < len(UNIFIED_FORMATS):
            raise Unsupported(f"{name}: buffer format {number} ({'INVALID' if number == 0 else 'unnamed'})")
        *widths, kind = UNIFIED_FORMATS[number].split("_")
        return cls(UNIFIED_FORMATS[number], tuple(int(w) for w in reversed(widths)), kind)

    @property
    def packed(self) -> bool:
        """Components that are not whole bytes of one width (10_11_11, 2_10_10_10 ...): one dword."""
        return len(set(self.widths)) > 1 or self.widths[0] not in (8, 16, 32)

    @property
    def size(self) -> int:
        return sum(self.widths) // 8

    def unpack(self, raw: np.ndarray) -> list[np.ndarray]:
        """Each component's bits (uint64 per lane) from the element's bytes [lanes, size]."""
        if not self.packed:
            view = np.ascontiguousarray(raw).view(f"<u{self.widths[0] // 8}")
            return [view[:, i].astype(np.uint64) for i in range(len(self.widths))]
        word = np.ascontiguousarray(raw).view("<u4")[:, 0].astype(np.uint64)
        fields, shift = [], 0
        for width in self.widths:
            fields.append((word >> np.uint64(shift)) & np.uint64((1 << width) - 1))
            shift += width
        return fields

    def pack(self, fields: list[np.ndarray]) -> np.ndarray:
        """The element's bytes [lanes, n] from the first n components' bits (all of them when packed)."""
        if not self.packed:
            dtype = f"<u{self.widths[0] // 8}"
            return np.ascontiguousarray(np.stack(fields, axis=1).astype(dtype)).view(np.uint8)
        word, shift = np.zeros(len(fields[0]), np.uint64), 0
        for width, field in zip(self.widths, fields, strict=True):
            word |= field << np.uint64(shift)
            shift += width
        return np.ascontiguousarray(word.astype("<u4")[:, None]).view(np.uint8)


def _signed(bits: np.ndarray, width: int) -> np.ndarray:
    value = bits.astype(np.int64)
    return np.where(value >> (width - 1) & 1, value - (1 << width), value)


def _small_float_to_f16(bits: np.ndarray, width: int) -> np.ndarray:
    """An f16's or unsigned 11/10-bit float's bits as f16 bits: same exponent, mantissa padded (exact)."""
    return (bits << np.uint64({16: 0, 11: 4, 10: 5}[width])).astype(np.uint16)


def _from_format(bits: np.ndarray, width: int, kind: str, d16: bool) -> np.ndarray:
    """One component's register bits (uint32; D16: the low 16) from its bits in memory."""
    if kind in ("UINT", "SINT"):
        value = bits if kind == "UINT" else _signed(bits, width)
        return (value.astype(np.int64) & (0xFFFF if d16 else 0xFFFFFFFF)).astype(np.uint32)
    if kind == "FLOAT":
        if width == 32:
            f32 = bits.astype(np.uint32).view(np.float32)
            return f32.astype(np.float16).view(np.uint16).astype(np.uint32) if d16 else f32.view(np.uint32)
        half = _small_float_to_f16(bits, width)
        return half.astype(np.uint32) if d16 else half.view(np.float16).astype(np.float32).view(np.uint32)
    value = {"UNORM": lambda: bits / float((1 << width) - 1),
             "SNORM": lambda: np.maximum(_signed(bits, width) / float((1 << (width - 1)) - 1), -1.0),
             "USCALED": lambda: bits.astype(np.float64),
             "SSCALED": lambda: _signed(bits, width).astype(np.float64)}[kind]()
    if d16:  # numpy rounds float64 -> float16 once, to nearest even
        return value.astype(np.float16).view(np.uint16).astype(np.uint32)
    return value.astype(np.float32).view(np.uint32)


def _store_supported(fmt: BufferFormat, count: int, name: str) -> None:
    if fmt.kind in ("USCALED", "SSCALED") or (fmt.kind == "FLOAT" and fmt.packed):
        raise Unsupported(f"{name}: stores to BUF_FMT_{fmt.name} are not emulated (rounding not documented)")
    if fmt.packed and count < len(fmt.widths):
        raise Unsupported(f"{name}: a {count}-component store to the packed BUF_FMT_{fmt.name} is not emulated")


def _to_format(bits: np.ndarray, width: int, kind: str, d16: bool) -> np.ndarray:
    """One component's bits in memory (uint64) from its register bits (uint32; D16: the low 16)."""
    if kind in ("UINT", "SINT"):
        if kind == "UINT":
            value, low, high = bits.astype(np.int64), 0, (1 << width) - 1
        else:
            value = (bits.astype(np.uint16).view(np.int16) if d16 else bits.view(np.int32)).astype(np.int64)
            low, high = -(1 << (width - 1)), (1 << (width - 1)) - 1
        return (np.clip(value, low, high) & ((1 << width) - 1)).astype(np.uint64)
    as_float = bits.astype(np.uint16).view(np.float16) if d16 else bits.view(np.float32)
    if kind == "FLOAT":
        target = np.float32 if width == 32 else np.float16
        return as_float.astype(target).view(np.uint32 if width == 32 else np.uint16).astype(np.uint64)
    value = as_float.astype(np.float64)
    low, scale = (0.0, (1 << width) - 1) if kind == "UNORM" else (-1.0, (1 << (width - 1)) - 1)
    scaled = np.rint(np.clip(np.nan_to_num(value, nan=0.0), low, 1.0) * scale).astype(np.int64)
    return (scaled & ((1 << width) - 1)).astype(np.uint64)


def _dst_sel(resource: Resource, rows: np.ndarray, components: np.ndarray, one: np.ndarray, count: int) -> np.ndarray:
    """[lanes, count] register values as DST_SEL_X.. pick them from [lanes, 4] components (X..W)."""
    choices = np.concatenate([np.zeros_like(one)[:, None], one[:, None], components], axis=1)
    sel = (resource.word3[rows, None] >> (np.uint64(3) * np.arange(count, dtype=np.uint64))) & np.uint64(7)
    column = np.select([sel >= 4, sel == 1], [sel - 2, np.uint64(1)], np.uint64(0)).astype(np.intp)
    return np.take_along_axis(choices, column, axis=1)


def fetch(ctx: Context, buffer: BufferAccess, fmt: BufferFormat, count: int, d16: bool) -> np.ndarray:
    """ConvertFromFormat for each lane's element: [lanes, count] register bits (D16: the low 16)."""
    fields = fmt.unpack(buffer.read(ctx, fmt.size))
    values = [_from_format(bits, width, fmt.kind, d16) for bits, width in zip(fields, fmt.widths, strict=True)]
    one = 1 if fmt.kind in ("UINT", "SINT") else ONE_F16 if d16 else ONE_F32
    values += [np.full(len(buffer.lanes), one if i == 3 else 0, np.uint32) for i in range(len(values), 4)]
    return _dst_sel(buffer.resource, buffer.rows, np.stack(values, axis=1), np.full(len(buffer.lanes), one, np.uint32),
                    count)


def _load(ctx: Context, buffer: BufferAccess, inst: Instruction, fmt: BufferFormat, count: int, half) -> None:
    chosen = fetch(ctx, buffer, fmt, count, half is not None)
    lanes, reg = buffer.lanes, inst["vdata"]
    if half is None:
        write_dwords(ctx, lanes, reg, chosen)
        return
    dwords = read_dwords(ctx, lanes, reg, (count + 1) // 2)
    for i in range(count):
        high = half == "hi" or i % 2 == 1
        mask = np.uint32(0x0000FFFF if high else 0xFFFF0000)
        dwords[:, i // 2] = (dwords[:, i // 2] & mask) | (chosen[:, i] << np.uint32(16 if high else 0))
    write_dwords(ctx, lanes, reg, dwords)


def _store(ctx: Context, buffer: BufferAccess, inst: Instruction, fmt: BufferFormat, count: int, half) -> None:
    d16 = half is not None
    written = min(count, len(fmt.widths))
    dwords = read_dwords(ctx, buffer.lanes, inst["vdata"], (written + 1) // 2 if d16 else written)
    fields = []
    for i in range(written):
        bits = dwords[:, i // 2] >> np.uint32(16 * (half == "hi" or i % 2)) if d16 else dwords[:, i]
        fields.append(_to_format(bits & np.uint32(0xFFFF) if d16 else bits, fmt.widths[i], fmt.kind, d16))
    buffer.write(ctx, fmt.pack(fields))


@factory
def typed_buffer(inst: Instruction):
    root = inst.isa.root_of(inst.fmt)
    tokens = inst.name.split("_")
    if root not in BUFFER_FORMATS or (root != "MTBUF" and "FORMAT" not in tokens) or "LDS" in tokens or inst.get("lds"):
        return None  # loads to LDS: lds_dma.py
    if inst.get("tfe"):
        raise Unsupported(f"{inst.name}: TFE is not emulated")
    check_data_registers(inst)
    count = COMPONENTS[tokens[-1]]
    half = ("hi" if "HI" in tokens else "lo") if "D16" in tokens else None
    access = _load if tokens[1] == "LOAD" else _store
    fixed = INSTRUCTION_FORMAT[inst.isa.arch](inst) if tokens[0] == "TBUFFER" else None  # checked when run

    @np.errstate(over="ignore")  # f32 -> f16 overflows to infinity, as it should
    def run(ctx: Context, waves: np.ndarray) -> None:
        for fmt, group in by_format(ctx, inst, waves, fixed):
            if access is _store:
                _store_supported(fmt, count, inst.name)
            access(ctx, BufferAccess(ctx, inst, group), inst, fmt, count, half)
        ctx.waves.pc[waves] += inst.size

    return run


# Format codes (BufferFormat.of) from the instruction and from the V#'s dword 3, per family.
INSTRUCTION_FORMAT = {"rdna3": lambda inst: inst["format"], "rdna4": lambda inst: inst["format"],
                      "cdna": lambda inst: inst["dfmt"] | inst["nfmt"] << 4}
DESCRIPTOR_FORMAT = {
    "rdna3": lambda word3: (word3 >> np.uint64(12)) & np.uint64(0x7F),
    "rdna4": lambda word3: (word3 >> np.uint64(12)) & np.uint64(0x3F),
    "cdna": lambda word3: ((word3 >> np.uint64(15)) & np.uint64(0xF)) | (((word3 >> np.uint64(12)) & np.uint64(7))
                                                                         << np.uint64(4)),
}


def by_format(ctx: Context, inst: Instruction, waves: np.ndarray, fixed: int | None):
    """The waves grouped by format: all with format code ``fixed`` (TBUFFER's), else by each wave's V#'s."""
    arch = inst.isa.arch
    if fixed is not None:
        return [(BufferFormat.of(arch, fixed, inst.name), waves)]
    numbers = DESCRIPTOR_FORMAT[arch](Resource(ctx, inst, waves).word3)
    return [(BufferFormat.of(arch, int(number), inst.name), waves[numbers == number]) for number in np.unique(numbers)]
