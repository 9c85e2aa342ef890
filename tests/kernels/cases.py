"""The emulator's kernel test cases: HIP kernels compiled by LLVM 22, each with a numpy reference.

Pure Python and numpy: nothing here needs LLVM, a GPU or the emulator. One `Case` per kernel says
which code objects to load (``build/<name>-<variant>.hsaco``, see build.sh), the kernel's name, the
dispatch shape, the kernel arguments in order, how to make the inputs (a seeded numpy RNG), what
the outputs must be (the reference) and how closely (`Tolerance`). A runner does, for a case and
one of its variants::

    inputs = case.inputs(seed)                    # every argument by name: arrays and scalars
    co = CodeObject.load(case.code_object(variant))
    kernel = next(k for k in co.kernels if k.name == case.kernel)
    # copy each Buffer's array to device memory (outputs too: their initial contents matter),
    # then pack the kernarg segment from the metadata's offsets:
    kernargs = case.kernargs(kernel.metadata, inputs, addresses)
    # dispatch: AQL grid_size = case.global_size (work-items), workgroup_size = case.block
    # read back the out/inout buffers, then
    errors = case.check(results, case.expected(inputs, variant))   # [] when they match

Two cases are meant to fail: ``expect == "fault"`` (a store far outside its buffer: the dispatch
must end in a page fault at ``case.fault_address(inputs, addresses)``) and ``expect == "hang"``
(it never ends: the runner's watchdog must stop it). They have no reference.
Three are racy (``expect == "race"``): a correct kernel with one barrier left out (``<name>_racy``,
the same source with a macro emptied). Their reference is the correct kernel's; the race tests
(tests/emu/test_races.py) check that a schedule makes them miss it and the race detector names
the two instructions.

Buffers hold exactly their arrays (``inputs[name].nbytes``): a kernel writing past its outputs is a
bug the emulator should report. Output buffers start filled with 0xCD bytes, so an element the
kernel failed to write shows up too.
"""
from __future__ import annotations

import struct
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Mapping

import numpy as np

HERE = Path(__file__).resolve().parent
BUILD = HERE / "build"

# ---------------------------------------------------------------------------------------------
# Variants: one code object per (processor, wave size)


@dataclass(frozen=True)
class Variant:
    name: str  # as in the code object's file name: gfx1100, gfx1100-w64, gfx942
    target: str  # the processor
    wave_size: int

    @property
    def rdna(self) -> bool:
        return self.target.startswith("gfx1")


VARIANTS: dict[str, Variant] = {v.name: v for v in (
    Variant("gfx1100", "gfx1100", 32),
    Variant("gfx1100-w64", "gfx1100", 64),
    Variant("gfx1201", "gfx1201", 32),
    Variant("gfx942", "gfx942", 64),
    Variant("gfx950", "gfx950", 64),
)}
PORTABLE = tuple(VARIANTS)  # every kernel that uses nothing target-specific
GFX1100 = ("gfx1100", "gfx1100-w64")  # WMMA as gfx11 has it
RDNA = ("gfx1100", "gfx1100-w64", "gfx1201")  # permlane16/x16/64, DPP8, row_share/row_xmask

# ---------------------------------------------------------------------------------------------
# Arguments


@dataclass(frozen=True)
class Buffer:
    """A pointer argument: the device address of ``inputs[name]``'s copy."""

    name: str
    dtype: str  # numpy dtype of the array's elements
    intent: str = "in"  # "in", "out" or "inout": out/inout buffers are read back and checked


@dataclass(frozen=True)
class Scalar:
    """A by_value argument: ``inputs[name]``, a numpy scalar whose size is the metadata's .size."""

    name: str
    dtype: str


# ---------------------------------------------------------------------------------------------
# Tolerances


@dataclass(frozen=True)
class Tolerance:
    """How an output is compared. The default is exact: integers by value, floats bit for bit.

    ``ulp``/``atol``: a float element passes when ``|got - want| <= ulp * spacing(want) + atol``
    (spacing in the output's own format; NaN matches NaN). ``permutation_axis``: the values along
    that axis must be a permutation of the reference's (for atomics that hand out distinct values
    in an unspecified order).
    """

    ulp: float = 0.0
    atol: float = 0.0
    permutation_axis: int | None = None
    why: str = ""  # where the tolerance comes from

    @property
    def exact(self) -> bool:
        return self.ulp == 0 and self.atol == 0 and self.permutation_axis is None

    def mismatches(self, got: np.ndarray, want: np.ndarray) -> np.ndarray:
        """A boolean mask of the elements of ``got`` (shaped like ``want``) that fail."""
        got, want = np.asarray(got), np.asarray(want)
        if got.shape != want.shape or got.dtype != want.dtype:
            raise ValueError(f"got {got.dtype}{list(got.shape)}, want {want.dtype}{list(want.shape)}")
        if self.permutation_axis is not None:
            return np.sort(got, axis=self.permutation_axis) != np.sort(want, axis=self.permutation_axis)
        if want.dtype.kind != "f":
            return got != want
        if self.exact:
            bits = np.dtype(f"u{want.dtype.itemsize}")
            return got.view(bits) != want.view(bits)
        g, w = got.astype(np.float64), want.astype(np.float64)
        limit = self.ulp * np.spacing(np.abs(want)).astype(np.float64) + self.atol
        with np.errstate(invalid="ignore"):
            ok = (np.abs(g - w) <= limit) | (g == w) | (np.isnan(g) & np.isnan(w))
        return ~ok

    def check(self, name: str, got: np.ndarray, want: np.ndarray, limit: int = 8) -> list[str]:
        try:
            bad = self.mismatches(got, want)
        except ValueError as e:
            return [f"{name}: {e}"]
        if not bad.any():
            return []
        where = np.argwhere(bad)
        what = "exact" if self.exact else repr(self)
        errors = [f"{name}: {len(where)} of {bad.size} elements differ ({what})"]
        if self.permutation_axis is not None:
            return errors
        for index in where[:limit]:
            index = tuple(int(i) for i in index)
            errors.append(f"  {name}[{', '.join(map(str, index))}]: got {got[index]!r}, want {want[index]!r}")
        return errors


EXACT = Tolerance()


@dataclass(frozen=True)
class Piecewise:
    """Different tolerances for parts of one output (flattened): ``(label, start, stop, Tolerance)``."""

    parts: tuple[tuple[str, int, int, Tolerance], ...]

    @property
    def exact(self) -> bool:
        return all(t.exact for *_, t in self.parts)

    def check(self, name: str, got: np.ndarray, want: np.ndarray, limit: int = 8) -> list[str]:
        got, want = np.asarray(got), np.asarray(want)
        if got.shape != want.shape or got.dtype != want.dtype:
            return [f"{name}: got {got.dtype}{list(got.shape)}, want {want.dtype}{list(want.shape)}"]
        if want.size != self.parts[-1][2]:
            return [f"{name}: {want.size} elements, the tolerance covers {self.parts[-1][2]}"]
        errors = []
        for label, start, stop, tolerance in self.parts:
            errors += tolerance.check(f"{name}[{label}]", got.reshape(-1)[start:stop], want.reshape(-1)[start:stop], limit)
        return errors

# ---------------------------------------------------------------------------------------------
# Cases


@dataclass(frozen=True)
class Case:
    name: str  # also the source (<name>.hip) and the code objects' stem (build/<name>-<variant>.hsaco)
    kernel: str  # the kernel's symbol name (its descriptor is <kernel>.kd)
    variants: tuple[str, ...]  # which VARIANTS are built; the first line of the .hip lists the same
    grid: tuple[int, int, int]  # workgroups per dimension (HIP's gridDim)
    block: tuple[int, int, int]  # work-items per workgroup (HIP's blockDim)
    args: tuple[Buffer | Scalar, ...]  # the explicit kernel arguments, in order
    make_inputs: Callable[[np.random.Generator], dict]  # every argument by name
    reference: Callable[[dict, Variant], dict] | None = None  # the out/inout buffers' final contents
    tolerances: Mapping[str, Tolerance | Piecewise] = field(default_factory=dict)  # per output; default EXACT
    expect: str = "ok"  # "ok", "fault", "hang" or "race"
    fault_address: Callable[[dict, Mapping[str, int]], int] | None = None  # (inputs, addresses)
    relies_on: Mapping[str, tuple[str, ...]] = field(default_factory=dict)  # variant -> instructions
    min_lds: int = 0  # the group segment the kernel must ask for, at least
    min_scratch: int = 0  # the private segment (per work-item), at least
    summary: str = ""

    @property
    def source(self) -> Path:
        return HERE / f"{self.name}.hip"

    def code_object(self, variant: str) -> Path:
        if variant not in self.variants:
            raise KeyError(f"{self.name} is not built for {variant}; it is for {', '.join(self.variants)}")
        return BUILD / f"{self.name}-{variant}.hsaco"

    @property
    def global_size(self) -> tuple[int, int, int]:
        """The AQL packet's grid_size: work-items per dimension."""
        return tuple(g * b for g, b in zip(self.grid, self.block))

    @property
    def workgroups(self) -> int:
        return self.grid[0] * self.grid[1] * self.grid[2]

    @property
    def work_items(self) -> int:
        return self.workgroups * self.block[0] * self.block[1] * self.block[2]

    @property
    def dims(self) -> int:
        """The dispatch's dimensions (the packet's setup field, hidden_grid_dims)."""
        return max([1] + [d + 1 for d in range(3) if self.grid[d] > 1 or self.block[d] > 1])

    @property
    def outputs(self) -> tuple[str, ...]:
        return tuple(a.name for a in self.args if isinstance(a, Buffer) and a.intent != "in")

    def tolerance(self, output: str) -> Tolerance | Piecewise:
        return self.tolerances.get(output, EXACT)

    def inputs(self, seed: int = 0) -> dict:
        """Every argument's value, by name: arrays for buffers, numpy scalars for by_value args."""
        values = self.make_inputs(np.random.default_rng(seed))
        names = [a.name for a in self.args]
        if sorted(values) != sorted(names):
            raise ValueError(f"{self.name}: inputs {sorted(values)} are not the arguments {names}")
        for arg in self.args:
            value = values[arg.name]
            kind = np.ndarray if isinstance(arg, Buffer) else np.generic
            if not isinstance(value, kind) or value.dtype != np.dtype(arg.dtype):
                raise TypeError(f"{self.name}: {arg.name} is {type(value).__name__} "
                                f"{getattr(value, 'dtype', '')}, not a {arg.dtype} {kind.__name__}")
        return values

    def expected(self, inputs: dict, variant: str) -> dict[str, np.ndarray]:
        """The reference's outputs; it works on a copy, so ``inputs`` stay as they were."""
        if self.reference is None:
            raise ValueError(f"{self.name} has no reference: it is expected to {self.expect}")
        copies = {k: v.copy() for k, v in inputs.items()}
        return self.reference(copies, VARIANTS[variant])

    def check(self, got: Mapping[str, np.ndarray], expected: Mapping[str, np.ndarray]) -> list[str]:
        """Every output compared with its tolerance: an empty list when all pass."""
        errors = []
        for name in self.outputs:
            if name not in got:
                errors.append(f"{name}: not read back")
                continue
            errors += self.tolerance(name).check(name, np.asarray(got[name]).reshape(expected[name].shape),
                                                 expected[name])
        return errors

    # -- kernel arguments --

    def hidden_value(self, kind: str) -> int | None:
        """What the dispatch puts in a hidden argument this case knows (code object v5 names);
        None for the rest (queue, heap, hostcall ... pointers), which the runner owns."""
        axis = {"x": 0, "y": 1, "z": 2}
        for prefix, values in (("hidden_block_count_", self.grid), ("hidden_group_size_", self.block)):
            if kind.startswith(prefix) and kind[-1] in axis:
                return values[axis[kind[-1]]]
        if kind.startswith(("hidden_remainder_", "hidden_global_offset_")):
            return 0  # uniform work-group sizes; no global offset
        if kind == "hidden_grid_dims":
            return self.dims
        return None

    def kernargs(self, metadata: dict, inputs: dict, addresses: Mapping[str, int],
                 hidden: Mapping[str, int] | None = None) -> bytes:
        """The kernarg segment, laid out by the kernel's metadata (its ``.args`` and
        ``.kernarg_segment_size``): buffer addresses, scalar bytes, and the hidden arguments this
        case knows; ``hidden`` adds or overrides hidden ones by value kind. The rest stay zero."""
        segment = bytearray(metadata[".kernarg_segment_size"])
        explicit = [a for a in metadata[".args"] if not a[".value_kind"].startswith("hidden_")]
        if len(explicit) != len(self.args):
            raise ValueError(f"{self.name}: the metadata has {len(explicit)} explicit arguments, "
                             f"the case {len(self.args)}")
        for arg, md in zip(self.args, explicit):
            offset, size = md[".offset"], md[".size"]
            if isinstance(arg, Buffer):
                data = struct.pack("<Q", addresses[arg.name])
            else:
                data = np.asarray(inputs[arg.name], dtype=arg.dtype).tobytes()
            if len(data) != size:
                raise ValueError(f"{self.name}: argument {arg.name} is {len(data)} bytes, the metadata says {size}")
            segment[offset:offset + size] = data
        for md in metadata[".args"]:
            kind = md[".value_kind"]
            if not kind.startswith("hidden_"):
                continue
            value = (hidden or {}).get(kind, self.hidden_value(kind))
            if value is not None:
                segment[md[".offset"]:md[".offset"] + md[".size"]] = int(value).to_bytes(md[".size"], "little")
        return bytes(segment)


# ---------------------------------------------------------------------------------------------
# Numeric helpers for the references


def fma_rounded(a, b, c, dtype) -> np.ndarray:
    """fma(a, b, c) rounded once to ``dtype`` (float16 or float32), round-to-nearest-even.

    numpy has no fma. a*b is exact in float64 for these formats; the sum is kept exact as s + err
    (TwoSum), and rounding s alone is right except when s lies exactly halfway between two
    neighbours in ``dtype`` (halfway points are float64 values) while err is not 0: then err decides.
    """
    dt = np.dtype(dtype)
    a64, b64, c64 = (np.asarray(v, dtype=dt).astype(np.float64) for v in (a, b, c))
    p = a64 * b64
    s = p + c64
    t = s - p
    err = (p - (s - t)) + (c64 - t)
    r = s.astype(dt)
    rs = r.astype(np.float64)
    other = np.nextafter(r, np.where(s > rs, np.inf, -np.inf).astype(dt))
    os_ = other.astype(np.float64)
    with np.errstate(invalid="ignore"):
        halfway = (s != rs) & ((rs + os_) / 2 == s)
        toward_other = halfway & (err != 0) & (np.sign(err) == np.sign(os_ - rs))
    return np.where(toward_other, other, r).astype(dt)


def bf16_to_f32(bits: np.ndarray) -> np.ndarray:
    return (bits.astype(np.uint32) << 16).view(np.float32)


def f32_to_bf16(f: np.ndarray) -> np.ndarray:
    """Round-to-nearest-even to bf16 bits, a NaN kept quiet: the kernel's integer arithmetic."""
    u = np.asarray(f, np.float32).view(np.uint32).astype(np.uint64)
    nan = (u & 0x7FFFFFFF) > 0x7F800000
    rounded = (u + 0x7FFF + ((u >> 16) & 1)) >> 16
    return np.where(nan, (u >> 16) | 0x40, rounded).astype(np.uint16)


def popcount32(x: np.ndarray) -> np.ndarray:
    u = np.asarray(x).astype(np.uint32).astype(np.uint64)
    return np.array([bin(int(v)).count("1") for v in u.ravel()], np.int64).reshape(u.shape)


def clz32(x: np.ndarray) -> np.ndarray:
    u = np.asarray(x).astype(np.uint32)
    return np.array([32 - int(v).bit_length() for v in u.ravel()], np.int64).reshape(u.shape)


def _filled(dtype, shape) -> np.ndarray:
    """An output's initial contents: 0xCD bytes, so an element never written cannot pass."""
    dt = np.dtype(dtype)
    count = int(np.prod(shape))
    return np.frombuffer(b"\xcd" * (count * dt.itemsize), dtype=dt).reshape(shape).copy()


def _nonzero_floats(rng, low, high, n, dtype) -> np.ndarray:
    """Uniform floats with no zeros (min/max of +0 and -0 is not what numpy does)."""
    x = rng.uniform(low, high, n).astype(dtype)
    x[x == 0] = dtype(0.5)
    return x


def _i32(x) -> np.ndarray:
    """Wrapped to 32 bits, as int32: from int64 or uint64 values."""
    return np.asarray(x).astype(np.uint64).astype(np.uint32).view(np.int32)


def _lanes(n: int, variant: Variant):
    """Per element of a 1D dispatch whose workgroups hold whole waves: global index, lane in its
    wave, index within its 16-lane row, and the first index of its wave and of its row."""
    i = np.arange(n)
    lane = i % variant.wave_size
    j = i % 16
    return i, lane, j, i - lane, i - j


# ---------------------------------------------------------------------------------------------
# Elementwise


def _ew_f32_inputs(rng):
    n = 1000
    return {"a": _nonzero_floats(rng, -10, 10, n, np.float32), "b": _nonzero_floats(rng, -10, 10, n, np.float32),
            "c": _nonzero_floats(rng, -10, 10, n, np.float32), "out": _filled(np.float32, 10 * n),
            "alpha": np.float32(rng.uniform(-4, 4)), "n": np.uint32(n)}


def _ew_f32_reference(d, v):
    a, b, c, alpha = d["a"], d["b"], d["c"], d["alpha"]
    with np.errstate(all="ignore"):
        ops = [a + b, a * b, fma_rounded(a, b, c, np.float32), np.minimum(a, b), np.maximum(a, b),
               np.where(a < b, c, a), a / b, alpha * a,
               np.trunc(a * np.float32(100)).astype(np.int32).astype(np.float32), np.abs(a) - b]
    return {"out": np.concatenate([np.asarray(o, np.float32) for o in ops])}


def _ew_f16_inputs(rng):
    n = 1000  # halves: 500 half2 work-items
    a, b = (_nonzero_floats(rng, -4, 4, n, np.float16) for _ in range(2))
    c = _nonzero_floats(rng, -4, 4, n, np.float16)
    # MIXFMA rounds fma to f32, then to f16 (V_FMA_MIXLO_F16's pseudocode). Keep only inputs where
    # that equals rounding once, so hardware that rounds once agrees too: elsewhere c = 0 (then
    # a*b is exact in f32, and both round once).
    twice = fma_rounded(a, b, c, np.float32).astype(np.float16)
    once = fma_rounded(a, b, c, np.float16)
    c[twice.view(np.uint16) != once.view(np.uint16)] = 0
    return {"a": a, "b": b, "c": c, "out": _filled(np.float16, 8 * n), "h": np.float16(rng.uniform(-2, 2)),
            "n2": np.uint32(n // 2)}


def _ew_f16_reference(d, v):
    a, b, c, h = d["a"], d["b"], d["c"], d["h"]
    ops = [a + b, a * b, fma_rounded(a, b, c, np.float16), np.minimum(a, b), np.maximum(a, b),
           np.where(a < b, c, a), a * h, fma_rounded(a, b, c, np.float32).astype(np.float16)]
    return {"out": np.concatenate([np.asarray(o, np.float16) for o in ops])}


def _ew_bf16_inputs(rng):
    n = 1000
    a, b, c = (f32_to_bf16(_nonzero_floats(rng, -8, 8, n, np.float32)) for _ in range(3))
    return {"a": a, "b": b, "c": c, "out": _filled(np.uint16, 6 * n), "n": np.uint32(n)}


def _ew_bf16_reference(d, v):
    x, y, z = (bf16_to_f32(d[k]) for k in "abc")
    ops = [f32_to_bf16(x + y), f32_to_bf16(x * y), f32_to_bf16(fma_rounded(x, y, z, np.float32)),
           f32_to_bf16(np.minimum(x, y)), f32_to_bf16(np.maximum(x, y)), np.where(x < y, d["c"], d["a"])]
    return {"out": np.concatenate(ops).astype(np.uint16)}


def _ew_i8_inputs(rng):
    n = 1000
    a, b, c = (rng.integers(-128, 128, n).astype(np.int8) for _ in range(3))
    return {"a": a, "b": b, "c": c, "out": _filled(np.int8, 8 * n), "s": np.int8(rng.integers(-128, 128)),
            "n": np.uint32(n)}


def _ew_i8_reference(d, v):
    x, y, z, s = (np.asarray(d[k]).astype(np.int64) for k in ("a", "b", "c", "s"))
    ops = [x + y, x * y, x * y + z, np.minimum(x, y), np.maximum(x, y), x >> (y & 7), np.where(x < y, z, x), s * x]
    return {"out": np.concatenate(ops).astype(np.int8)}  # astype wraps, like the byte stores


def _ew_u8_inputs(rng):
    n = 1000
    a, b, c = (rng.integers(0, 256, n).astype(np.uint8) for _ in range(3))
    return {"a": a, "b": b, "c": c, "out": _filled(np.uint8, 10 * n), "n": np.uint32(n)}


def _ew_u8_reference(d, v):
    x, y, z = (d[k].astype(np.int64) for k in "abc")
    ops = [x + y, x * y, x * y + z, np.minimum(x, y), np.maximum(x, y), x << (y & 7), x >> (y & 7),
           np.where(x < y, z, x), np.minimum(x + y, 255), np.abs(x - y)]
    return {"out": np.concatenate(ops).astype(np.uint8)}


def _ew_i32_inputs(rng):
    n = 1000
    a = rng.integers(-2**31 + 1, 2**31, n).astype(np.int32)  # never INT_MIN: INT_MIN / -1 traps
    a[:64] = rng.integers(-100, 100, 64)  # some small dividends too
    b = rng.integers(-2**31, 2**31, n).astype(np.int32)
    c = rng.integers(-2**31, 2**31, n).astype(np.int32)
    d = rng.integers(1, 2**31, n).astype(np.int32) * rng.choice([-1, 1], n).astype(np.int32)
    d[::3] = rng.integers(1, 1000, len(d[::3])) * rng.choice([-1, 1], len(d[::3]))  # small divisors
    a[5], a[6] = 0, 1  # clz of 0 and of 1
    return {"a": a, "b": b, "c": c, "d": d.astype(np.int32), "out": _filled(np.int32, 19 * n),
            "s": np.int32(rng.integers(-2**31, 2**31)), "n": np.uint32(n)}


def _u64(x) -> np.ndarray:
    """int64 values as uint64 bits: numpy's uint64 arithmetic wraps mod 2^64, hence mod 2^32 too."""
    return np.asarray(x, np.int64).view(np.uint64)


def _ew_i32_reference(d, v):
    x, y, z, w = (d[k].astype(np.int64) for k in "abcd")
    s = int(d["s"])
    ux, uy, uz = _u64(x), _u64(y), _u64(z)
    m = np.uint64(0xFFFFFFFF)
    shift = (y & 31).astype(np.uint64)
    q = np.abs(x) // np.abs(w) * np.sign(x) * np.sign(w)  # C division truncates toward 0
    ops = [ux + uy, ux - uy, ux * uy, (x * y) >> 32, ux * uy + uz, np.minimum(x, y), np.maximum(x, y),
           np.minimum(ux & m, uy & m), (ux & m) << shift, x >> (y & 31), (ux & m) >> shift, np.where(x < y, z, x),
           q, x - q * w, (ux & m) // (_u64(w) & m), (x & y) ^ (z | s), popcount32(x), clz32(x), s * x]
    return {"out": np.concatenate([_i32(o) for o in ops])}


def _ew_i64_inputs(rng):
    n = 500
    a, b, c = (rng.integers(-2**63, 2**63, n, dtype=np.int64) for _ in range(3))
    d = rng.integers(1, 2**63, n, dtype=np.int64)
    # even elements: dividend and divisor below 2^32, the expansion's 32-bit fast path
    a[::2] = rng.integers(0, 2**32, len(a[::2]), dtype=np.int64)
    d[::2] = rng.integers(1, 2**32, len(d[::2]), dtype=np.int64)
    d[1::4] = rng.integers(1, 2**20, len(d[1::4]), dtype=np.int64)  # big / small
    return {"a": a, "b": b, "c": c, "d": d, "out": _filled(np.int64, 13 * n),
            "k": np.int64(rng.integers(-2**63, 2**63, dtype=np.int64)), "n": np.uint32(n)}


def _ew_i64_reference(d, v):
    x, y, z, w = (d[k] for k in "abcd")
    ux, uy, uz, uw = _u64(x), _u64(y), _u64(z), _u64(w)
    uk = np.uint64(int(d["k"]) % 2**64)
    shift = (y & 63).astype(np.uint64)
    ops = [ux + uy, ux - uy, ux * uy, ux * uy + uz, _u64(np.minimum(x, y)), _u64(np.maximum(x, y)), ux << shift,
           _u64(x >> (y & 63)), ux >> shift, _u64(np.where(x < y, z, x)), ux ^ uy, uk * ux, ux // uw]
    return {"out": np.concatenate(ops).view(np.int64)}


# ---------------------------------------------------------------------------------------------
# LDS: reduction, tiled matmul


def _reduce_inputs(rng):
    return {"in": rng.uniform(-1, 1, 4 * 256).astype(np.float32), "out": _filled(np.float32, 4)}


def _reduce_sum_tree(values: np.ndarray, group: int) -> np.ndarray:
    """Each group's sum, added in the kernel's order: s[t] += s[t + stride], stride = group/2 .. 1."""
    s = values.reshape(-1, group).astype(np.float32).copy()
    stride = group // 2
    while stride > 0:
        s[:, :stride] = s[:, :stride] + s[:, stride:2 * stride]
        stride //= 2
    return s[:, 0].copy()


def _scan_inputs(rng):
    # full-range words: the sums wrap, as uint arithmetic does
    return {"in": rng.integers(0, 1 << 32, 2 * 256, dtype=np.uint32), "out": _filled(np.uint32, 512)}


_SHAPE = ("grid", "block", "args", "make_inputs", "reference")  # what a racy case shares with its correct one


def _matmul_inputs(rng):
    return {"A": rng.uniform(-1, 1, (64, 64)).astype(np.float32), "B": rng.uniform(-1, 1, (64, 64)).astype(np.float32),
            "C": _filled(np.float32, (64, 64))}


def _matmul_reference(d, v):
    A, B = d["A"], d["B"]
    acc = np.zeros((64, 64), np.float32)
    for k in range(64):  # one fmaf per k, in order, as each work-item does
        acc = fma_rounded(np.broadcast_to(A[:, k:k + 1], (64, 64)), np.broadcast_to(B[k:k + 1, :], (64, 64)),
                          acc, np.float32)
    return {"C": acc}


def _wmma_inputs(rng):
    # Quarter-integers in [-2, 2]: every product and partial sum is exact in f32, so the result
    # does not depend on the order WMMA adds in (which the ISA does not specify).
    A = (rng.integers(-8, 9, (32, 32)) / 4).astype(np.float16)
    B = (rng.integers(-8, 9, (32, 32)) / 4).astype(np.float16)
    C = rng.integers(-64, 65, (32, 32)).astype(np.float32)
    return {"A": A, "B": B, "C": C, "D": _filled(np.float32, (32, 32))}


def _wmma_reference(d, v):
    return {"D": (d["A"].astype(np.float64) @ d["B"].astype(np.float64) + d["C"]).astype(np.float32)}


# ---------------------------------------------------------------------------------------------
# Atomics

INT_MIN = np.int32(-2**31)


def _atomic_hist_inputs(rng):
    n = 4 * 256
    return {"in": rng.integers(0, 2**32, n, dtype=np.uint64).astype(np.uint32), "hist": np.zeros(64, np.uint32),
            "counter": np.zeros(1, np.uint32), "slots": _filled(np.uint32, n)}


def _atomic_hist_reference(d, v):
    x = d["in"]
    return {"hist": d["hist"] + np.bincount(x % 64, minlength=64).astype(np.uint32),
            "counter": d["counter"] + np.uint32(len(x)), "slots": np.arange(len(x), dtype=np.uint32)}


def _atomic_ops_inputs(rng):
    n = 2 * 256
    return {"in": rng.integers(-2**31, 2**31, n, dtype=np.int64).astype(np.int32),
            "smax": np.full(8, INT_MIN, np.int32), "umin": np.full(8, 0xFFFFFFFF, np.uint32),
            "bits": np.zeros(8, np.uint32), "sum64": np.zeros(8, np.uint64), "fsum": np.zeros(8, np.float32),
            "casmul": np.ones(8, np.uint32)}


def _atomic_ops_reference(d, v):
    x = d["in"]
    slot = np.arange(len(x)) % 8
    out = {k: d[k].copy() for k in ("smax", "umin", "bits", "sum64", "fsum", "casmul")}
    for s in range(8):
        xs = x[slot == s]
        out["smax"][s] = max(out["smax"][s], xs.max())
        out["umin"][s] = min(out["umin"][s], xs.view(np.uint32).min())
        out["bits"][s] |= np.bitwise_or.reduce(np.uint32(1) << (xs & 31).astype(np.uint32))
        out["sum64"][s] = (int(out["sum64"][s]) + sum(int(u) << 16 for u in xs.view(np.uint32))) % 2**64
        out["fsum"][s] += np.float32((xs & 255).sum())  # integers below 2^24: exact in any order
        product = int(out["casmul"][s])
        for u in (xs | 1).view(np.uint32):
            product = product * int(u) % 2**32
        out["casmul"][s] = product
    return out


def _atomic_lds_inputs(rng):
    n = 2 * 256
    return {"in": rng.integers(0, 2**32, n, dtype=np.uint64).astype(np.uint32), "hist": np.zeros(32, np.uint32),
            "maxes": np.full(32, INT_MIN, np.int32), "ranks": _filled(np.uint32, n)}


def _atomic_lds_reference(d, v):
    x = d["in"]
    maxes = d["maxes"].copy()
    values, slots = x.view(np.int32), (x >> 5) % 32
    for s in range(32):
        if (slots == s).any():
            maxes[s] = max(maxes[s], values[slots == s].max())
    ranks = np.tile(np.arange(256, dtype=np.uint32), len(x) // 256)  # a permutation per workgroup
    return {"hist": d["hist"] + np.bincount(x % 32, minlength=32).astype(np.uint32), "maxes": maxes, "ranks": ranks}


# ---------------------------------------------------------------------------------------------
# Control flow


def _divergence_inputs(rng):
    n = 1000
    x = rng.integers(1, 3000, n).astype(np.int32)
    # Collatz from 3, 27, 871 (7, 111, 178 steps); the loop left after 1 trip (1) and by its break
    # (29); each switch arm (2, 4, 6, 8)
    x[:9] = [3, 27, 871, 1, 29, 2, 4, 6, 8]
    return {"in": x, "out": _filled(np.int32, n), "reps": np.int32(3), "n": np.uint32(n)}


def _divergence_one(x: int, reps: int) -> int:
    r = 0
    if x & 1:
        if x & 2:
            c = x
            while c != 1:
                c = 3 * c + 1 if c & 1 else c // 2
                r += 1
        else:
            for j in range(x & 31):
                r += j * x
                if r > 5000:
                    break
    else:
        arm = (x >> 1) % 4
        if arm == 0:
            r = -x
        elif arm == 1:
            y = x
            while y > 0:
                r += y & 7
                y >>= 3
        elif arm == 2:
            r = x * x
        else:
            r = 3 if x % 3 == 0 else (5 if x % 5 == 0 else 7)
    for k in range(reps):
        r = ((r ^ k) * 3 + 1) & 0xFFFFFFFF
    return r


def _divergence_reference(d, v):
    return {"out": _i32([_divergence_one(int(x), int(d["reps"])) for x in d["in"]])}


# ---------------------------------------------------------------------------------------------
# Cross-lane


def _crosslane_inputs(nops):
    def make(rng):
        n = 2 * 64
        return {"in": rng.integers(-1000, 1000, n).astype(np.int32), "out": _filled(np.int32, nops * n),
                "n": np.uint32(n)}
    return make


def _crosslane_dpp_reference(d, v):
    x = d["in"].astype(np.int64)
    i, lane, j, wave0, row0 = _lanes(len(x), v)
    row, bank = lane // 16, j // 4
    ops = [
        x[i - i % 4 + 3 - i % 4],                                    # quad_perm:[3,2,1,0]
        np.where(j + 1 < 16, x[np.minimum(i + 1, len(x) - 1)], -1),  # row_shl:1, old kept
        np.where(j >= 3, x[i - 3], 0),                               # row_shr:3, bound_ctrl: lanes 0-2 read 0
        x[row0 + (j - 4) % 16],                                      # row_ror:4
        x[row0 + 15 - j],                                            # row_mirror
        x[i - i % 8 + 7 - i % 8],                                    # row_half_mirror
        np.where((0xA >> row) & 1 == 1, x[i - i % 4], -2),           # quad_perm:[0,0,0,0], row_mask 0xa
        np.where(((0x5 >> bank) & 1 == 1) & (j >= 1), x[i - 1], -3),  # row_shr:1, bank_mask 0x5
        x + np.where(j >= 1, x[i - 1], 0),                           # x + row_shr:1 (bound_ctrl)
    ]
    return {"out": np.concatenate(ops).astype(np.int32)}


def _crosslane_lanes_inputs(rng):
    values = _crosslane_inputs(9)(rng)
    values["sel"] = np.int32(13)
    return values


def _crosslane_lanes_reference(d, v):
    x, sel = d["in"].astype(np.int64), int(d["sel"])
    n, ws = len(x), v.wave_size
    i, lane, j, wave0, row0 = _lanes(n, v)
    # ds_bpermute/ds_permute address lanes mod 32: the kernel keeps each lane's partner in its own
    # 32-lane half, so gfx9 (64-wide) and RDNA wave64 (per half) read the same lane.
    partner = wave0 + (lane & 32) + (5 * (lane % 32) + 3) % 32
    permuted = np.empty_like(x)
    permuted[partner] = x
    positive = (x > 0).reshape(-1, ws)
    mask = np.array([sum(1 << k for k in range(ws) if row[k]) for row in positive], dtype=object)
    ballot = np.repeat(mask, ws)
    ops = [
        x[partner], permuted, x[wave0 + 5], x[wave0 + sel % ws],
        np.where(lane % 3 == 2, x[wave0 + 2], -7),
        np.where(lane == 7, 1000 + i // ws, x),
        np.array([int(b) & 0xFFFFFFFF for b in ballot], np.int64),
        np.array([int(b) >> 32 for b in ballot], np.int64),
        lane,
    ]
    return {"out": np.concatenate([_i32(o) for o in ops])}


def _crosslane_permlane_reference(d, v):
    x = d["in"].astype(np.int64)
    i, lane, j, wave0, row0 = _lanes(len(x), v)
    other_row0 = wave0 + ((lane // 16) ^ 1) * 16
    ops = [
        x[row0 + (j + 5) % 16],                                    # v_permlane16_b32
        x[other_row0 + (j + 5) % 16],                              # v_permlanex16_b32
        x[wave0 + (lane ^ 32)] if v.wave_size == 64 else x,        # v_permlane64_b32
        x[i - i % 8 + 7 - i % 8],                                  # dpp8:[7,6,5,4,3,2,1,0]
        x[row0 + 5],                                               # row_share:5
        x[row0 + (j ^ 3)],                                         # row_xmask:3
    ]
    return {"out": np.concatenate(ops).astype(np.int32)}


# ---------------------------------------------------------------------------------------------
# Transcendentals, scratch, dispatch


def _transcendental_inputs(rng):
    n = 256
    x = rng.uniform(-1, 1, n).astype(np.float32)
    y = np.exp2(rng.uniform(-10, 10, n)).astype(np.float32)
    y[:4] = [1.0, 2.0, 0.25, 1024.0]  # exact cases: log2, sqrt, rcp of powers of two
    return {"xs": x, "ys": y, "ks": rng.integers(-20, 21, n).astype(np.int32), "out": _filled(np.float32, 10 * n),
            "n": np.uint32(n)}


def _transcendental_reference(d, v):
    x, y, k = d["xs"], d["ys"], d["ks"]
    x64, y64 = x.astype(np.float64), y.astype(np.float64)
    t = (x * np.float32(10)).astype(np.float64)  # the kernel's v_mul_f32 before v_exp_f32
    f = (x * np.float32(4))
    ops = [np.sin(2 * np.pi * x64), np.cos(2 * np.pi * x64), np.exp2(t), np.log2(y64), 1 / y64, np.sqrt(y64),
           1 / np.sqrt(y64), np.sqrt(y), f - np.floor(f), np.ldexp(x, k)]
    return {"out": np.concatenate([np.asarray(o).astype(np.float32) for o in ops])}


TRANSCENDENTAL_OPS = ("sin", "cos", "exp2", "log2", "rcp", "sqrt", "rsq", "sqrt_cr", "fract", "ldexp")
TRANSCENDENTAL_TOLERANCE = {
    "sin": Tolerance(atol=2**-18, why="v_sin_f32 is sin(x * f32(2pi)): the f32 product alone is off by up to "
                                      "~4e-7 for |x| <= 1, and the hardware's approximation adds its own error"),
    "cos": Tolerance(atol=2**-18, why="as sin"),
    "exp2": Tolerance(ulp=2, why="v_exp_f32: AMD documents 1 ULP"),
    "log2": Tolerance(ulp=2, atol=2**-21, why="v_log_f32: 1 ULP, absolute error near log2(1) = 0"),
    "rcp": Tolerance(ulp=1, why="v_rcp_f32: 1 ULP"),
    "sqrt": Tolerance(ulp=1, why="v_sqrt_f32: 1 ULP"),
    "rsq": Tolerance(ulp=1, why="v_rsq_f32: 1 ULP"),
}


def _scratch_inputs(rng):
    n = 2 * 64
    return {"in": rng.integers(-10000, 10000, n).astype(np.int32), "idx": rng.integers(0, 2**31, 16 * n).astype(np.int32),
            "out": _filled(np.int32, n)}


def _scratch_reference(d, v):
    x, idx = d["in"].astype(np.int64), d["idx"].astype(np.int64).reshape(-1, 16)
    n = len(x)
    lanes = np.arange(n)
    j = np.arange(256)
    priv = x[:, None] * j[None, :] + (j[None, :] ^ lanes[:, None])
    acc = np.zeros(n, np.int64)
    for k in range(16):
        p = idx[:, k] & 255
        acc = _i32(acc + priv[lanes, p]).astype(np.int64)
        priv[lanes, (7 * p + k) & 255] = acc
    return {"out": _i32(acc)}


def _private_index_inputs(rng):
    n = 2 * 64
    return {"in": rng.standard_normal(32 * n).astype(np.float32), "out": _filled(np.float32, n),
            "rows": _filled(np.float32, 32 * n), "n": np.int32(45), "m": np.int32(-3)}


def _private_index_reference(d, v):
    rows = 2 * d["in"].reshape(-1, 32)  # exact: a doubling
    out = rows[:, int(d["n"]) % 32].copy()
    rows[:, int(d["m"]) % 32] = 3.0
    return {"out": out, "rows": rows.reshape(-1)}


def _dispatch_inputs(rng):
    total = 4 * 64
    return {"out": _filled(np.uint32, 12 * total), "total": np.uint32(total)}


DISPATCH_GRID, DISPATCH_BLOCK = (2, 1, 2), (8, 4, 2)


def _dispatch_reference(d, v):
    grid, block = DISPATCH_GRID, DISPATCH_BLOCK
    total = int(d["total"])
    out = np.zeros((12, total), np.uint32)
    for gz in range(grid[2]):
        for gy in range(grid[1]):
            for gx in range(grid[0]):
                for tz in range(block[2]):
                    for ty in range(block[1]):
                        for tx in range(block[0]):
                            group = (gz * grid[1] + gy) * grid[0] + gx
                            i = group * block[0] * block[1] * block[2] + (tz * block[1] + ty) * block[0] + tx
                            out[:, i] = [tx, ty, tz, gx, gy, gz, *block, grid[0], block[0], grid[0] * block[0]]
    return {"out": out.ravel()}


# ---------------------------------------------------------------------------------------------
# The bad ones


def _fault_inputs(rng):
    return {"out": _filled(np.int32, 2 * 64), "offset": np.int64(1 << 24)}  # 64 MiB past the buffer


def _fault_address(inputs, addresses):
    return addresses["out"] + 4 * int(inputs["offset"])


def _hang_inputs(rng):
    return {"flag": np.zeros(1, np.int32), "out": _filled(np.int32, 2 * 64)}


# ---------------------------------------------------------------------------------------------
# The cases


def _on_gfx1100(*common: str, w32: tuple[str, ...] = (), w64: tuple[str, ...] = ()) -> dict[str, tuple[str, ...]]:
    return {"gfx1100": tuple(common) + tuple(w32), "gfx1100-w64": tuple(common) + tuple(w64)}


def _ew_args(dtype: str, more: tuple[str, ...] = (), scalars: tuple[tuple[str, str], ...] = (),
             count: str = "n") -> tuple[Buffer | Scalar, ...]:
    """The elementwise kernels' arguments: inputs a, b, c (and more), out, scalars, the count."""
    return (tuple(Buffer(k, dtype) for k in ("a", "b", "c", *more)) + (Buffer("out", dtype, "out"),)
            + tuple(Scalar(name, t) for name, t in scalars) + (Scalar(count, "uint32"),))


CASES: dict[str, Case] = {}


def _add(case: Case) -> None:
    assert case.name not in CASES, case.name
    CASES[case.name] = case


_add(Case(
    "ew_f32", "ew_f32", PORTABLE, (4, 1, 1), (256, 1, 1),
    _ew_args("float32", scalars=(("alpha", "float32"),)), _ew_f32_inputs, _ew_f32_reference,
    relies_on=_on_gfx1100("v_add_f32", "v_mul_f32", "v_fma_f32", "v_min_f32", "v_max_f32", "v_cndmask_b32",
                          "v_div_scale_f32", "v_rcp_f32", "v_div_fmas_f32", "v_div_fixup_f32", "v_cvt_i32_f32",
                          "v_cvt_f32_i32", "v_sub_f32", "v_cmpx_gt_u32", "s_cbranch_execz",
                          w32=("vopd",)),  # dual issue is wave32 only
    summary="f32 add, mul, fma, min, max, compare-select, division (the correctly rounded v_div_* sequence), "
            "a by_value float, truncating conversions, |x| as a source modifier; 1000 elements on 1024 "
            "work-items, so the last 24 take the bounds check's exit. All exact."))

_add(Case(
    "ew_f16", "ew_f16", PORTABLE, (2, 1, 1), (256, 1, 1),
    _ew_args("float16", scalars=(("h", "float16"),), count="n2"),
    _ew_f16_inputs, _ew_f16_reference,
    relies_on=_on_gfx1100("v_pk_add_f16", "v_pk_mul_f16", "v_pk_fma_f16", "v_pk_min_f16", "v_pk_max_f16",
                          "v_cmp_lt_f16", "v_cndmask_b16", "v_fma_mixlo_f16", "v_fma_mixhi_f16"),
    summary="f16 as half2 (packed VOP3P math, op_sel), a 2-byte by_value half, and f16->f32 fma->f16 "
            "(v_fma_mix*). All exact; inputs avoid the rare fma where rounding via f32 differs from rounding once."))

_add(Case(
    "ew_bf16", "ew_bf16", PORTABLE, (4, 1, 1), (256, 1, 1),
    _ew_args("uint16"), _ew_bf16_inputs, _ew_bf16_reference,
    relies_on=_on_gfx1100("global_load_u16", "global_load_d16_hi_b16", "global_store_d16_hi_b16", "v_bfe_u32",
                          "v_add3_u32", "s_and_saveexec_b", "s_and_not1_saveexec_b", "v_fmac_f32"),
    summary="bf16 as ushort bits: widened by a shift, f32 math, narrowed with round-to-nearest-even in "
            "integer code that branches on NaN (divergent if/else per op). All exact."))

_add(Case(
    "ew_i8", "ew_i8", PORTABLE, (4, 1, 1), (256, 1, 1),
    _ew_args("int8", scalars=(("s", "int8"),)), _ew_i8_inputs, _ew_i8_reference,
    relies_on=_on_gfx1100("global_load_d16_i8", "global_load_d16_u8", "global_store_b8", "v_mul_lo_u16", "v_mad_u16",
                          "v_min_i16", "v_max_i16", "v_ashrrev_i16"),
    summary="int8 with sign-extending byte loads, wrapping 16-bit math, byte stores and a 1-byte by_value. Exact."))

_add(Case(
    "ew_u8", "ew_u8", PORTABLE, (4, 1, 1), (256, 1, 1),
    _ew_args("uint8"), _ew_u8_inputs, _ew_u8_reference,
    relies_on=_on_gfx1100("global_load_d16_u8", "global_store_b8", "v_min_u16", "v_max_u16", "v_mad_u16",
                          "v_sub_nc_u16"),
    summary="uint8 with zero-extending byte loads: add, mul, mad, min, max, shifts, select, saturating add, "
            "absolute difference. Exact."))

_add(Case(
    "ew_i32", "ew_i32", PORTABLE, (4, 1, 1), (256, 1, 1),
    _ew_args("int32", ("d",), (("s", "int32"),)), _ew_i32_inputs, _ew_i32_reference,
    relies_on=_on_gfx1100("v_mul_lo_u32", "v_mul_hi_i32", "v_mul_hi_u32", "v_rcp_iflag_f32", "v_cvt_u32_f32",
                          "v_min_i32", "v_max_i32", "v_min_u32", "v_lshlrev_b32", "v_ashrrev_i32", "v_lshrrev_b32",
                          "v_bcnt_u32_b32", "v_clz_i32_u32"),
    summary="int32: wrapping add/sub/mul, mulhi, mad, signed/unsigned min/max, shifts, select, signed and "
            "unsigned division and remainder (expanded through v_rcp_iflag_f32), bit ops, popcount, clz. Exact."))

_add(Case(
    "ew_i64", "ew_i64", PORTABLE, (2, 1, 1), (256, 1, 1),
    _ew_args("int64", ("d",), (("k", "int64"),)), _ew_i64_inputs, _ew_i64_reference,
    relies_on=_on_gfx1100("global_load_b64", "global_store_b64", "v_mad_u64_u32", "v_lshlrev_b64", "v_ashrrev_i64",
                          "v_lshrrev_b64", "v_cmp_lt_i64", "v_sub_co_u32", "v_sub_co_ci_u32", "s_and_saveexec_b"),
    summary="int64: add/sub/mul (32-bit pieces and carries), mad, min, max, 64-bit shifts, select, xor, an "
            "8-byte by_value, and unsigned division (LLVM's inline expansion, with a divergent 32-bit fast "
            "path: half the elements take each side). Exact."))

_add(Case(
    "reduce_sum", "reduce_sum", PORTABLE, (4, 1, 1), (256, 1, 1),
    (Buffer("in", "float32"), Buffer("out", "float32", "out")), _reduce_inputs,
    lambda d, v: {"out": _reduce_sum_tree(d["in"], 256)},
    relies_on=_on_gfx1100("ds_store_b32", "ds_load_b32", "s_barrier", "v_add_f32"),
    min_lds=1024,
    summary="A per-workgroup f32 sum over LDS: a halving tree with a barrier per step; the group size "
            "comes from hidden_group_size_x. Exact: the reference adds in the tree's order."))

_add(Case(
    "matmul_tiled", "matmul_tiled", PORTABLE, (2, 2, 1), (32, 8, 1),
    (Buffer("A", "float32"), Buffer("B", "float32"), Buffer("C", "float32", "out")), _matmul_inputs, _matmul_reference,
    relies_on=_on_gfx1100("ds_store_b32", "ds_load", "s_barrier", "v_fma"),
    min_lds=2 * 32 * 33 * 4,
    summary="64x64 f32 C = A*B in 32x32 LDS tiles: a 2x2 grid of 32x8 work-items (2D ids), two tile "
            "loads with barriers, fmaf chains in k order. Exact."))

_add(Case(
    "scan_lds", "scan_lds", PORTABLE, (2, 1, 1), (256, 1, 1),
    (Buffer("in", "uint32"), Buffer("out", "uint32", "out")), _scan_inputs,
    lambda d, v: {"out": np.cumsum(d["in"].reshape(-1, 256), axis=1, dtype=np.uint32).reshape(-1)},
    relies_on=_on_gfx1100("ds_store_b32", "ds_load_b32", "s_barrier", "v_add_nc_u32"),
    min_lds=1024,
    summary="A per-workgroup inclusive uint32 prefix sum over LDS (Hillis-Steele): every step reads, waits at "
            "a barrier, adds, waits again. Exact (mod 2^32)."))

_RACY_SUMMARY = "Deliberately racy: {} without {}; a schedule other than lockstep gets it wrong."
_add(Case(
    "reduce_sum_racy", "reduce_sum_racy", PORTABLE, *[getattr(CASES["reduce_sum"], f) for f in _SHAPE],
    expect="race", relies_on=_on_gfx1100("ds_store_b32", "ds_load_b32"), min_lds=1024,
    summary=_RACY_SUMMARY.format("reduce_sum", "the barrier between the tree's steps (read after write)")))
_add(Case(
    "matmul_tiled_racy", "matmul_tiled_racy", PORTABLE, *[getattr(CASES["matmul_tiled"], f) for f in _SHAPE],
    expect="race", relies_on=_on_gfx1100("ds_store_b32", "ds_load"), min_lds=2 * 32 * 33 * 4,
    summary=_RACY_SUMMARY.format("matmul_tiled", "the barrier before the next tile's loads (write after read)")))
_add(Case(
    "scan_lds_racy", "scan_lds_racy", PORTABLE, *[getattr(CASES["scan_lds"], f) for f in _SHAPE],
    expect="race", relies_on=_on_gfx1100("ds_store_b32", "ds_load_b32"), min_lds=1024,
    summary=_RACY_SUMMARY.format("scan_lds", "the barrier between a step's reads and its writes (write after read)")))

_add(Case(
    "wmma_f32_f16", "wmma_f32_f16", GFX1100, (1, 1, 1), (128, 1, 1),
    (Buffer("A", "float16"), Buffer("B", "float16"), Buffer("C", "float32"), Buffer("D", "float32", "out")),
    _wmma_inputs, _wmma_reference,
    relies_on=_on_gfx1100("v_wmma_f32_16x16x16_f16", "global_load_d16_b16", "global_load_d16_hi_b16"),
    summary="32x32x32 D = A*B + C with v_wmma_f32_16x16x16_f16, wave32 (8 accumulator VGPRs) and wave64 "
            "(4) layouts; two chained WMMAs per 16x16 tile. Exact: quarter-integer inputs."))

_add(Case(
    "atomic_hist", "atomic_hist", PORTABLE, (4, 1, 1), (256, 1, 1),
    (Buffer("in", "uint32"), Buffer("hist", "uint32", "inout"), Buffer("counter", "uint32", "inout"),
     Buffer("slots", "uint32", "out")),
    _atomic_hist_inputs, _atomic_hist_reference,
    tolerances={"slots": Tolerance(permutation_axis=-1, why="the ticket order is the order work-items ran in")},
    relies_on=_on_gfx1100("global_atomic_add_u32", "v_mbcnt_lo_u32_b32", "s_bcnt1_i32", "v_readfirstlane_b32"),
    summary="A 64-bin histogram with global atomic adds, and a ticket counter through the returning atomic "
            "(LLVM's atomic optimizer turns it into one atomic per wave plus mbcnt): the tickets must be a "
            "permutation of 0..1023."))

_add(Case(
    "atomic_ops", "atomic_ops", PORTABLE, (2, 1, 1), (256, 1, 1),
    (Buffer("in", "int32"), Buffer("smax", "int32", "inout"), Buffer("umin", "uint32", "inout"),
     Buffer("bits", "uint32", "inout"), Buffer("sum64", "uint64", "inout"), Buffer("fsum", "float32", "inout"),
     Buffer("casmul", "uint32", "inout")),
    _atomic_ops_inputs, _atomic_ops_reference,
    relies_on=_on_gfx1100("global_atomic_max_i32", "global_atomic_min_u32", "global_atomic_or_b32",
                          "global_atomic_add_u64", "global_atomic_add_f32", "global_atomic_cmpswap_b32"),
    summary="Global atomic max (signed), min (unsigned), or, 64-bit add, f32 add (of integers: exact in any "
            "order) and a compare-and-swap loop multiplying, into 8 contended slots."))

_add(Case(
    "atomic_lds", "atomic_lds", PORTABLE, (2, 1, 1), (256, 1, 1),
    (Buffer("in", "uint32"), Buffer("hist", "uint32", "inout"), Buffer("maxes", "int32", "inout"),
     Buffer("ranks", "uint32", "out")),
    _atomic_lds_inputs, _atomic_lds_reference,
    tolerances={"ranks": Tolerance(permutation_axis=-1, why="ranks within a workgroup come in run order")},
    relies_on=_on_gfx1100("ds_add_u32", "ds_max_i32", "ds_add_rtn_u32", "s_barrier", "global_atomic_add_u32",
                          "global_atomic_max_i32"),
    min_lds=32 * 4 * 2 + 4,
    summary="LDS atomics: a per-workgroup histogram (ds_add_u32) and maximum (ds_max_i32), a returning "
            "ds_add_rtn_u32 handing out ranks, flushed to global memory with global atomics."))

_add(Case(
    "divergence", "divergence", PORTABLE, (4, 1, 1), (256, 1, 1),
    (Buffer("in", "int32"), Buffer("out", "int32", "out"), Scalar("reps", "int32"), Scalar("n", "uint32")),
    _divergence_inputs, _divergence_reference,
    relies_on=_on_gfx1100("s_and_saveexec_b", "s_and_not1_saveexec_b", "s_xor_b", "s_cbranch_execz",
                          "s_cbranch_execnz", "s_cbranch_scc", "s_cmp_", "s_and_not1_b"),
    summary="Nested divergent ifs, a per-lane-trip-count loop (Collatz), a loop with a divergent break, a "
            "switch, and a uniform loop with a kernarg trip count (SCC branches, not EXEC). Exact."))

_add(Case(
    "crosslane_dpp", "crosslane_dpp", PORTABLE, (2, 1, 1), (64, 1, 1),
    (Buffer("in", "int32"), Buffer("out", "int32", "out"), Scalar("n", "uint32")),
    _crosslane_inputs(9), _crosslane_dpp_reference,
    relies_on=_on_gfx1100("vop1_dpp16", "vop2_dpp16", "v_mov_b32", "v_add_nc_u32"),
    summary="DPP16 via update_dpp: quad_perm, row_shl/shr/ror, row_mirror, row_half_mirror, row_mask and "
            "bank_mask (masked lanes keep `old`), bound_ctrl (out-of-row sources read 0 or keep `old`), and a "
            "DPP folded into v_add. Rows are 16 lanes, so wave32 and wave64 agree. Exact."))

_add(Case(
    "crosslane_lanes", "crosslane_lanes", PORTABLE, (2, 1, 1), (64, 1, 1),
    (Buffer("in", "int32"), Buffer("out", "int32", "out"), Scalar("sel", "int32"), Scalar("n", "uint32")),
    _crosslane_lanes_inputs, _crosslane_lanes_reference,
    relies_on=_on_gfx1100("ds_bpermute_b32", "ds_permute_b32", "v_readlane_b32", "v_readfirstlane_b32",
                          "v_writelane_b32", "v_mbcnt_lo_u32_b32", w64=("v_mbcnt_hi_u32_b32",)),
    summary="ds_bpermute/ds_permute (within each 32-lane half), readlane with a constant and an SGPR lane, "
            "readfirstlane under a partial EXEC, writelane, ballot (wave32: the high word is 0), the lane id. "
            "Wave-size dependent; exact."))

_add(Case(
    "crosslane_permlane", "crosslane_permlane", RDNA, (2, 1, 1), (64, 1, 1),
    (Buffer("in", "int32"), Buffer("out", "int32", "out"), Scalar("n", "uint32")),
    _crosslane_inputs(6), _crosslane_permlane_reference,
    relies_on=_on_gfx1100("v_permlane16_b32", "v_permlanex16_b32", "vop1_dpp8", "vop1_dpp16",
                          w64=("v_permlane64_b32",)),
    summary="RDNA-only lane swizzles: v_permlane16/x16 with nibble selectors, v_permlane64 (wave64), DPP8, "
            "row_share and row_xmask. Exact."))

_add(Case(
    "transcendental", "transcendental", PORTABLE, (1, 1, 1), (256, 1, 1),
    (Buffer("xs", "float32"), Buffer("ys", "float32"), Buffer("ks", "int32"), Buffer("out", "float32", "out"),
     Scalar("n", "uint32")),
    _transcendental_inputs, _transcendental_reference,
    tolerances={"out": Piecewise(tuple((op, k * 256, (k + 1) * 256, TRANSCENDENTAL_TOLERANCE.get(op, EXACT))
                                       for k, op in enumerate(TRANSCENDENTAL_OPS)))},
    relies_on=_on_gfx1100("v_sin_f32", "v_cos_f32", "v_exp_f32", "v_log_f32", "v_rcp_f32", "v_sqrt_f32",
                          "v_rsq_f32", "v_fract_f32", "v_ldexp_f32", "v_cmp_class_f32"),
    summary="v_sin/v_cos (in revolutions), v_exp/v_log (base 2), v_rcp, v_sqrt, v_rsq within their documented "
            "accuracy (per-op tolerances: TRANSCENDENTAL_TOLERANCE); the correctly rounded sqrtf expansion, "
            "v_fract and v_ldexp exactly."))

_add(Case(
    "scratch_array", "scratch_array", PORTABLE, (2, 1, 1), (64, 1, 1),
    (Buffer("in", "int32"), Buffer("idx", "int32"), Buffer("out", "int32", "out")),
    _scratch_inputs, _scratch_reference,
    relies_on=_on_gfx1100("scratch_store_b32", "scratch_load_b32"),
    min_scratch=1024,
    summary="A 1 KiB private array per work-item written and read at data-dependent indices: it lives in "
            "scratch (private segment, flat scratch instructions). Exact."))

_add(Case(
    "private_index", "private_index", PORTABLE, (2, 1, 1), (64, 1, 1),
    (Buffer("in", "float32"), Buffer("out", "float32", "out"), Buffer("rows", "float32", "out"),
     Scalar("n", "int32"), Scalar("m", "int32")), _private_index_inputs, _private_index_reference,
    relies_on={"gfx942": ("s_set_gpr_idx_on", "s_set_gpr_idx_off"), "gfx950": ("s_set_gpr_idx_on", "s_set_gpr_idx_off"),
               **_on_gfx1100("v_movrels_b32", "v_movreld_b32")},
    summary="A 32-float private array held in VGPRs, read and written at indices from kernel arguments: "
            "VGPR index mode on gfx942/gfx950 (s_set_gpr_idx_on around v_mov_b32), v_movrels/v_movreld on RDNA. "
            "Exact."))

_add(Case(
    "dispatch_ids", "dispatch_ids", PORTABLE, DISPATCH_GRID, DISPATCH_BLOCK,
    (Buffer("out", "uint32", "out"), Scalar("total", "uint32")), _dispatch_inputs, _dispatch_reference,
    relies_on=_on_gfx1100("v_bfe_u32", "s_load_b32", "s_load_b64"),
    summary="A 3D dispatch: each work-item stores its work-item and workgroup ids, the group size from the "
            "hidden kernargs, the group count, and the packet's workgroup_size_x and grid_size_x read through "
            "the dispatch pointer. Exact."))

_add(Case(
    "fault_oob", "fault_oob", PORTABLE, (2, 1, 1), (64, 1, 1),
    (Buffer("out", "int32", "inout"), Scalar("offset", "int64")), _fault_inputs,
    expect="fault", fault_address=_fault_address,
    relies_on=_on_gfx1100("global_store_b32"),
    summary="Intentionally bad: work-item 0 stores 64 MiB past its buffer (offset elements of 4 bytes): the "
            "dispatch must end in a page fault at &out[0] + 4 * offset."))

_add(Case(
    "hang_loop", "hang_loop", PORTABLE, (2, 1, 1), (64, 1, 1),
    (Buffer("flag", "int32"), Buffer("out", "int32", "inout")), _hang_inputs,
    expect="hang",
    relies_on=_on_gfx1100("flat_load_b32", "s_sleep", "s_cbranch_execnz"),
    summary="Intentionally bad: spins (volatile load, s_sleep) on a flag that stays 0: the dispatch never "
            "ends, for the watchdog test."))

GOOD = tuple(c for c in CASES.values() if c.expect == "ok")
BAD = tuple(c for c in CASES.values() if c.expect in ("fault", "hang"))
RACY = tuple(c for c in CASES.values() if c.expect == "race")
