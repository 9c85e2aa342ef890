"""Reading and showing state the way a debugger user names it: registers (`s5`, `s[4:5]`, `v3`,
`v[3:4]`, `exec`, `vcc`, `m0`, `scc`, `pc`), lane ranges (`v3@0:7`), value formats (x hex, d/i
signed, u unsigned, f f32, h f16, t lane grid) and memory units (b, h, w, g) as in gdb's `x`.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np

from gpubench.emu.waves import EXEC_LO, VCC_LO, Waves

FORMATS = "xdiufht"
UNITS = {"b": 1, "h": 2, "w": 4, "g": 8}
REGISTER = re.compile(r"^(?P<kind>[sv])(?:(?P<one>\d+)|\[(?P<lo>\d+):(?P<hi>\d+)\])(?:@(?P<lanes>[\d:]+))?$")
NAMED = re.compile(r"^(?P<name>exec|vcc|exec_lo|exec_hi|vcc_lo|vcc_hi|m0|scc|pc)(?:@(?P<lanes>[\d:]+))?$")


def m0_index(target: str) -> int:
    return 124 if target.startswith("gfx9") else 125  # gfx10+ moved M0 up to make room for NULL


def sgpr_name(reg: int, target: str) -> str:
    named = {VCC_LO: "vcc_lo", VCC_LO + 1: "vcc_hi", EXEC_LO: "exec_lo", EXEC_LO + 1: "exec_hi",
             m0_index(target): "m0"}
    return named.get(reg, f"s{reg}")


@dataclass(frozen=True)
class Register:
    """What an expression names: SGPRs or VGPRs reg..reg+count-1 (a mask: the pair as lanes), or scc/pc."""

    kind: str  # "s", "v", "mask", "scc", "pc"
    reg: int = 0
    count: int = 1
    lanes: tuple[int, int] | None = None  # inclusive lane range, None: the session's selection
    text: str = ""


def parse_register(text: str, target: str) -> Register:
    text = text.strip()
    m = REGISTER.match(text)
    if m:
        lo = int(m["one"] if m["one"] is not None else m["lo"])
        hi = lo if m["one"] is not None else int(m["hi"])
        if hi < lo:
            raise ValueError(f"empty register range {text}")
        return Register(m["kind"], lo, hi - lo + 1, _lanes(m["lanes"]), text)
    m = NAMED.match(text)
    if not m:
        raise ValueError(f"not a register: {text!r} (s5, s[4:5], v3, v[3:4], v3@0:7, exec, vcc, m0, scc, pc)")
    name = m["name"]
    if name in ("exec", "vcc"):
        return Register("mask", EXEC_LO if name == "exec" else VCC_LO, 2, None, text)
    if name in ("scc", "pc"):
        return Register(name, text=text)
    reg = {"exec_lo": EXEC_LO, "exec_hi": EXEC_LO + 1, "vcc_lo": VCC_LO, "vcc_hi": VCC_LO + 1}.get(name)
    return Register("s", m0_index(target) if reg is None else reg, 1, None, text)


def _lanes(spec: str | None) -> tuple[int, int] | None:
    if spec is None:
        return None
    lo, _, hi = spec.partition(":")
    return int(lo), int(hi or lo)


def read(waves: Waves, wave: int, r: Register) -> np.ndarray:
    """The register's current value: uint32 [count] for SGPRs, [count, lanes] for VGPRs, bool lanes for a mask."""
    if r.kind == "s":
        return waves.sgpr[wave, r.reg:r.reg + r.count].copy()
    if r.kind == "v":
        if r.reg + r.count > waves.vgpr.shape[1]:
            raise ValueError(f"the kernel has {waves.vgpr.shape[1]} VGPRs")
        return waves.vgpr[wave, r.reg:r.reg + r.count].copy()
    if r.kind == "mask":
        return waves.read_mask(r.reg, np.array([wave]))[0]
    return np.array([waves.scc[wave] if r.kind == "scc" else waves.pc[wave]])


def convert(words: np.ndarray, fmt: str) -> list[str]:
    """uint32 words as text in format ``fmt``."""
    words = np.asarray(words, np.uint32)
    if fmt == "x":
        return [f"0x{int(v):08x}" for v in words.ravel()]
    if fmt in "di":
        return [str(int(v)) for v in words.view(np.int32).ravel()]
    if fmt == "u":
        return [str(int(v)) for v in words.ravel()]
    if fmt == "f":
        return [f"{float(v):.8g}" for v in words.view(np.float32).ravel()]
    if fmt == "h":
        return [f"{float(v):.5g}" for v in (words & 0xFFFF).astype(np.uint16).view(np.float16).ravel()]
    raise ValueError(f"unknown format /{fmt} (one of {FORMATS})")


def lane_grid(mask: np.ndarray, lanes: tuple[int, int] | None = None, width: int = 32) -> list[str]:
    """A lane mask as rows of 1/. digits, eight lanes a group, each row led by its first lane."""
    lo, hi = lanes or (0, len(mask) - 1)
    out = []
    for start in range(lo - lo % width, hi + 1, width):
        cells = ["1" if mask[i] else "." if lo <= i <= hi else " " for i in range(start, min(start + width, len(mask)))]
        groups = " ".join("".join(cells[i:i + 8]) for i in range(0, len(cells), 8))
        out.append(f"  lanes {start:2}-{min(start + width, len(mask)) - 1:2}: {groups}")
    return out


def show(waves: Waves, wave: int, r: Register, fmt: str | None, lanes: tuple[int, int] | None,
         target: str, per_row: int = 8) -> str:
    """``p`` output: ``fmt`` None picks hex for registers, the lane grid for masks."""
    if r.kind == "mask" and fmt not in (None, "t"):  # a mask in a number format: the SGPR pair
        r = Register("s", r.reg, waves.wave_size // 32, None, r.text)
    value = read(waves, wave, r)
    if r.kind == "mask" or (fmt == "t" and r.kind == "s"):
        mask = value if r.kind == "mask" else np.unpackbits(value.view(np.uint8), bitorder="little").astype(bool)
        bits = int.from_bytes(np.packbits(mask, bitorder="little").tobytes(), "little")
        return "\n".join([f"{r.text} = 0x{bits:0{len(mask) // 4}x}"] + lane_grid(mask, r.lanes or lanes))
    if r.kind in ("scc", "pc"):
        return f"{r.text} = {int(value[0]) if r.kind == 'scc' else hex(int(value[0]))}"
    fmt = fmt or "x"
    if r.kind == "s":
        names = [sgpr_name(r.reg + i, target) for i in range(r.count)]
        text = "  ".join(f"{n}={v}" for n, v in zip(names, convert(value, fmt)))
        if r.count == 2:
            text += f"  ({r.text} = 0x{int(value[0]) | int(value[1]) << 32:016x})"
        return text
    lo, hi = r.lanes or lanes or (0, waves.wave_size - 1)
    lo, hi = max(0, lo), min(waves.wave_size - 1, hi)
    lines = []
    for i in range(r.count):
        cells = convert(value[i, lo:hi + 1], fmt)
        lines.append(f"v{r.reg + i} (lanes {lo}-{hi}):")
        for start in range(0, len(cells), per_row):
            lines.append(f"  [{lo + start:2}] " + " ".join(c.rjust(10) for c in cells[start:start + per_row]))
    return "\n".join(lines)


def parse_examine(spec: str) -> tuple[int, str, str]:
    """gdb's /NFU of `x`: (count, format, unit); defaults 1, x, w."""
    m = re.fullmatch(r"(\d*)([a-z]*)", spec)
    if not m:
        raise ValueError(f"bad /{spec}: x/COUNT FORMAT UNIT, e.g. x/16wx")
    count, fmt, unit = int(m[1] or 1), "x", "w"
    for c in m[2]:
        if c in UNITS:
            unit = c
        elif c in FORMATS:
            fmt = c
        else:
            raise ValueError(f"bad /{spec}: '{c}' is neither a format ({FORMATS}) nor a unit (bhwg)")
    return count, fmt, unit


def examine(data: bytes, address: int, fmt: str, unit: str, per_row: int = 4) -> str:
    size = UNITS[unit]
    dtype = {1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}[size]
    values = np.frombuffer(data, dtype)
    if fmt == "f":
        cells = [f"{float(v):.8g}" for v in values.view({2: np.float16, 4: np.float32, 8: np.float64}.get(size, np.uint8))]
    elif fmt in "di":
        cells = [str(int(v)) for v in values.view({1: np.int8, 2: np.int16, 4: np.int32, 8: np.int64}[size])]
    elif fmt == "u":
        cells = [str(int(v)) for v in values]
    else:
        cells = [f"0x{int(v):0{2 * size}x}" for v in values]
    return "\n".join(f"0x{address + i * size:x}: " + " ".join(cells[i:i + per_row]) for i in range(0, len(cells), per_row))
