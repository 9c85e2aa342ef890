"""The native backend's transcendental functions: numpy's own float64 loops, called once per block of lanes.

The numpy backend computes sin, cos, log2 and pow in float64 with numpy's ufuncs over whole arrays,
where numpy may run SIMD code (SVML on AVX-512) with a tail for the last elements; the native code
calls the same loop (``gpubench.compiler.native.ufuncs``) once for a wave's lanes (a block of 64
elements in a function over n: ``lower.NumpyCalls``). These tests check, bit for bit: the float64
loops themselves on millions of inputs (random bits, special values, ordinary magnitudes, huge sin/cos
arguments, pow's overflow and underflow edges), called in blocks from LLVM code, against numpy's
vectorised call, and at every length up to two blocks; every f16 input of the f16 instructions;
millions of f32 inputs of the f32 instructions; and the checks that refuse a ufunc whose layout does
not fit.
"""
import ctypes

import llvmlite.binding as llvm
import numpy as np
import pytest
from llvmlite import ir
from test_native import cache  # noqa: F401 - the private disk cache fixture

from gpubench.compiler.backend import BackendUnsupported, compile_instruction
from gpubench.compiler.native import compile_instructions, jit, lower, ufuncs

N = 1 << 21  # float64 inputs per loop
INSTRUCTIONS = [(enum, f"V_{op}_{fmt}_{form}") for op in ("EXP", "LOG", "SIN", "COS") for fmt in ("F32", "F16")
                for enum, form in (("VOP1Op", "E32"), ("VOP3Op", "E64"))]
F64_SPECIAL = [0.0, -0.0, np.inf, -np.inf, np.nan, -np.nan, 5e-324, -5e-324, 2.2250738585072014e-308,
               1.7976931348623157e308, -1.7976931348623157e308, 1.0, -1.0, 0.5, 2.0, np.pi, -np.pi, np.pi / 2,
               2 * np.pi, 1e22, 1e300, -1e300, 2.0**1023, 2.0**-1074, 1024.0, 1023.9999999999999, -1074.0,
               -1075.0, -1022.0, -1021.9999999999999, 1e-8, 0.9999999999999999, 1.0000000000000002,
               float(np.float32(np.pi * 2)), 3.4028234663852886e38, 1.401298464324817e-45]


class _Call:
    """Semantics that only call numpy's loop of one ufunc on their float64 inputs, as the instructions'
    do (through `lower.NumpyCalls`: once per block of lanes); ``base``: power's first operand is that
    constant, broadcast (step 0), as the runtime's base is."""

    def __init__(self, name: str, nin: int, base: float | None = None):
        self.name, self.nin, self.base = name, nin, base

    def emit(self, b, raw, calls):
        xs = [raw[f"x{k}"] for k in range(self.nin)]
        if self.base is not None:
            return [calls.call(b, self.name, [ir.Constant(lower.DOUBLE, self.base), xs[1]], (0, 8, 8))]
        return [calls.call(b, self.name, xs, (8,) * (self.nin + 1))]


_engines = []


@pytest.fixture(scope="module")
def per_block():
    """For each ufunc, ``f(*float64 arrays) -> float64 array``: LLVM code calling numpy's loop through
    `lower.define_elementwise` (blocks of `lower.BLOCK` lanes, one call of the loop per block), as the
    instructions' lowering does; ``power_2``: power with the base 2.0, broadcast (the runtime's)."""
    jit.target_machine()
    module = ir.Module("ufunc_blocks")
    module.triple = llvm.get_process_triple()
    module.data_layout = str(jit.target_machine().target_data)
    kinds = {name: (name, ufuncs.loop(name).nin, None) for name in ufuncs.UFUNCS}
    kinds["power_2"] = ("power", 2, 2.0)
    for kind, (name, nin, base) in kinds.items():
        lower.define_elementwise(module, f"each_{kind}", [(f"x{k}", lower.DOUBLE) for k in range(nin)],
                                 [("r", lower.DOUBLE)], _Call(name, nin, base))
    parsed = llvm.parse_assembly(str(module))
    parsed.verify()
    jit.optimise(parsed)
    engine = llvm.create_mcjit_compiler(parsed, jit.target_machine())
    engine.finalize_object()
    _engines.append(engine)
    functions = {}
    for kind, (_, nin, _) in kinds.items():
        c = ctypes.CFUNCTYPE(None, ctypes.c_int64, *([ctypes.c_void_p] * (nin + 1)))(
            engine.get_function_address(f"each_{kind}"))

        def call(*xs, c=c):
            xs = [np.ascontiguousarray(x, np.float64) for x in xs]
            out = np.empty(len(xs[0]), np.float64)
            c(len(out), *[x.ctypes.data for x in xs], out.ctypes.data)
            return out
        functions[kind] = call
    return functions


def _f64_inputs(rng, name: str, n: int) -> np.ndarray:
    """A third random bits, a third ordinary values of the function's interesting range, a third
    special values and the float64 images of f32/f16 values (what the instructions feed it)."""
    bits = rng.integers(0, 2**63, n, dtype=np.uint64) * np.uint64(2) + rng.integers(0, 2, n).astype(np.uint64)
    if name == "power":
        ordinary = rng.uniform(-1100, 1100, n)
    elif name == "log2":
        ordinary = np.exp2(rng.uniform(-1074, 1024, n))
    else:
        ordinary = rng.standard_normal(n) * np.exp2(rng.integers(-30, 80, n))
    narrow = np.where(rng.integers(0, 2, n) == 1,
                      rng.integers(0, 2**32, n, dtype=np.uint64).astype(np.uint32).view(np.float32).astype(np.float64),
                      rng.integers(0, 2**16, n).astype(np.uint16).view(np.float16).astype(np.float64))
    special = rng.choice(np.array(F64_SPECIAL), n)
    near = special.view(np.uint64) + rng.integers(-3, 4, n).astype(np.uint64)  # neighbours of the specials
    kind = rng.integers(0, 5, n)
    return np.choose(kind, [bits.view(np.float64), ordinary, narrow, special, near.view(np.float64)])


@pytest.mark.parametrize("name", list(ufuncs.UFUNCS))
def test_numpys_loop_called_per_block_gives_its_vectorised_bits(per_block, name):
    rng = np.random.default_rng(list(ufuncs.UFUNCS).index(name))
    with np.errstate(all="ignore"):
        if name == "power":
            # as the runtime calls it (a Python float base, broadcast) and with bases of every kind
            exponent = _f64_inputs(rng, name, N)
            cases = [("power_2", (exponent, exponent), np.power(2.0, exponent))]
            base, e = _f64_inputs(rng, "log2", N), _f64_inputs(rng, name, N)
            cases.append(("power", (base, e), np.power(base, e)))
        else:
            x = _f64_inputs(rng, name, N)
            cases = [(name, (x,), getattr(np, name)(x))]
        for kind, args, expected in cases:
            _same(expected, per_block[kind](*args), name, *args)
            # short calls (every length up to two blocks and more, odd offsets) give the long call's bits
            for length in range(1, 2 * lower.BLOCK + 2):
                for start in range(0, 4096 - length, 197 + length):
                    part = per_block[kind](*(a[start:start + length] for a in args))
                    assert np.array_equal(part.view(np.uint64), expected[start:start + length].view(np.uint64)), \
                        (kind, start, length)


def _same(expected, got, name, *inputs):
    e, g = expected.view(np.uint64), got.view(np.uint64)
    both_nan = np.isnan(expected) & np.isnan(got)  # NaN payloads are rebuilt by the callers
    bad = np.flatnonzero((e != g) & ~both_nan)
    if bad.size:
        k = bad[0]
        shown = [hex(np.float64(np.broadcast_to(x, e.shape)[k]).view(np.uint64)) for x in inputs]
        pytest.fail(f"{name}: {bad.size} of {e.size} differ, first {shown}: numpy {hex(e[k])} native {hex(g[k])}")
    assert np.array_equal(e[~both_nan], g[~both_nan])


@pytest.fixture(scope="module")
def instructions(cache):  # noqa: F811
    ops = compile_instructions("rdna3", INSTRUCTIONS)
    refused = {k: str(op) for k, op in ops.items() if isinstance(op, BackendUnsupported)}
    assert not refused, refused
    return ops


def _check_instruction(ops, key, s0, rng):
    op = ops[key]
    reference = compile_instruction("rdna3", *key)
    arrays = {"S0": s0}
    if "D0" in [p.name for p in op.inputs]:
        arrays["D0"] = rng.integers(0, 2**32, s0.size, dtype=np.uint64).astype(np.uint32)
    expected = np.broadcast_to(reference(n=s0.size, **arrays)["D0"], s0.shape)
    got = op(n=s0.size, **arrays)["D0"]
    bad = np.flatnonzero(expected != got)
    assert not bad.size, (f"{key[1]}: {bad.size} of {s0.size} differ, first S0={hex(int(s0[bad[0]]))}: numpy "
                          f"{hex(int(expected[bad[0]]))} native {hex(int(got[bad[0]]))}")


@pytest.mark.parametrize("key", [k for k in INSTRUCTIONS if "F16" in k[1]], ids=lambda k: k[1])
def test_f16_instructions_on_every_input(instructions, key):
    rng = np.random.default_rng(16)
    low = np.arange(1 << 16, dtype=np.uint32)
    _check_instruction(instructions, key, low | (rng.integers(0, 1 << 16, low.size).astype(np.uint32) << 16), rng)


@pytest.mark.parametrize("key", [k for k in INSTRUCTIONS if "F32" in k[1]], ids=lambda k: k[1])
def test_f32_instructions_on_millions_of_inputs(instructions, key):
    rng = np.random.default_rng(32)
    n = 1 << 21
    bits = rng.integers(0, 2**32, n, dtype=np.uint64).astype(np.uint32)
    op = key[1].split("_")[1]
    dense = {"EXP": rng.uniform(-160, 140, n), "LOG": np.exp2(rng.uniform(-150, 128, n)),
             "SIN": rng.standard_normal(n) * np.exp2(rng.integers(-20, 40, n)),
             "COS": rng.standard_normal(n) * np.exp2(rng.integers(-20, 40, n))}[op].astype(np.float32).view(np.uint32)
    # every f32 with the top 16 bits of a special or small value, all low bits seen
    edges = (np.arange(1 << 16, dtype=np.uint32) << 16) | rng.integers(0, 1 << 16, 1 << 16).astype(np.uint32)
    _check_instruction(instructions, key, np.concatenate([bits, dense, edges]), rng)


def test_the_loops_are_the_first_float64_entries_numpy_dispatches_to():
    for name, ufunc in ufuncs.UFUNCS.items():
        found = ufuncs.loop(name)
        assert found.nin == ufunc.nin and found.address
        assert ("dd->d" if ufunc.nin == 2 else "d->d") in ufunc.types
    assert "numpy " + np.__version__ in ufuncs.environment_key()
    assert jit.environment_key()  # includes it


def test_a_ufunc_that_does_not_fit_is_refused(monkeypatch):
    monkeypatch.setitem(ufuncs.UFUNCS, "bitwise_and", np.bitwise_and)  # no float64 loop
    monkeypatch.setitem(ufuncs.UFUNCS, "fake", np.vectorize(np.sin))  # not a ufunc at all
    with pytest.raises(BackendUnsupported, match="no float64 loop"):
        ufuncs._resolve("bitwise_and")
    with pytest.raises(BackendUnsupported, match="not a plain numpy ufunc"):
        ufuncs._resolve("fake")
    monkeypatch.setattr(np, "__version__", "3.0.0")
    with pytest.raises(BackendUnsupported, match="numpy 2 only"):
        ufuncs._resolve("sin")
