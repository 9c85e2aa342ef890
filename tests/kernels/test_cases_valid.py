"""The kernel cases hold together without the emulator: their code objects exist, load with
gpubench's CodeObject and match the declared arguments, and every reference runs on its inputs and
returns what the case says it will."""
from __future__ import annotations

import re
import struct
import sys
from fractions import Fraction
from pathlib import Path

import pytest

np = pytest.importorskip("numpy")  # noqa: E402  (cases.py needs it too)

from gpubench.isa.codeobject import CodeObject

sys.path.insert(0, str(Path(__file__).resolve().parent))
import cases  # noqa: E402

CASES = list(cases.CASES.values())
VARIANTS = [(c, v) for c in CASES for v in c.variants]
MAX_CODE_OBJECT = 16 * 1024


def case_id(value):
    return value.name if isinstance(value, cases.Case) else str(value)


_loaded: dict[Path, CodeObject] = {}


def load(case: cases.Case, variant: str) -> CodeObject:
    path = case.code_object(variant)
    if path not in _loaded:
        _loaded[path] = CodeObject.load(path)
    return _loaded[path]


def kernel_of(case: cases.Case, variant: str):
    found = [k for k in load(case, variant).kernels if k.name == case.kernel]
    assert found, f"{case.code_object(variant).name} has no kernel {case.kernel}"
    return found[0]


# ---------------------------------------------------------------------------------------------
# Sources, build outputs


def test_every_source_has_a_case():
    sources = {p.stem for p in cases.HERE.glob("*.hip")}
    assert sources == set(cases.CASES)


@pytest.mark.parametrize("case", CASES, ids=case_id)
def test_targets_line_matches_variants(case):
    first = case.source.read_text().splitlines()[0]
    assert first == "// targets: " + " ".join(case.variants)
    assert set(case.variants) <= set(cases.VARIANTS)


def test_no_stray_code_objects():
    expected = {case.code_object(v).name for case, v in VARIANTS}
    assert {p.name for p in cases.BUILD.glob("*.hsaco")} == expected


@pytest.mark.parametrize("case,variant", VARIANTS, ids=case_id)
def test_code_object_is_small(case, variant):
    assert case.code_object(variant).stat().st_size <= MAX_CODE_OBJECT


# ---------------------------------------------------------------------------------------------
# Code objects against the declared cases


@pytest.mark.parametrize("case,variant", VARIANTS, ids=case_id)
def test_code_object_matches_case(case, variant):
    info = cases.VARIANTS[variant]
    co = load(case, variant)
    assert co.target == info.target
    kernel = kernel_of(case, variant)
    assert kernel.wave_size == info.wave_size
    md = kernel.metadata
    assert md[".wavefront_size"] == info.wave_size
    assert md[".kernarg_segment_size"] == kernel.descriptor.kernarg_size
    assert md[".group_segment_fixed_size"] >= case.min_lds
    assert md[".private_segment_fixed_size"] >= case.min_scratch
    block = case.block[0] * case.block[1] * case.block[2]
    assert block <= md[".max_flat_workgroup_size"]
    explicit = [a for a in md[".args"] if not a[".value_kind"].startswith("hidden_")]
    assert len(explicit) == len(case.args)
    end = 0
    for arg, entry in zip(case.args, explicit):
        if isinstance(arg, cases.Buffer):
            assert (entry[".value_kind"], entry[".size"]) == ("global_buffer", 8), arg
        else:
            assert (entry[".value_kind"], entry[".size"]) == ("by_value", np.dtype(arg.dtype).itemsize), arg
        assert entry[".offset"] >= end and entry[".offset"] % entry[".size"] == 0, arg
        end = entry[".offset"] + entry[".size"]
    assert end <= md[".kernarg_segment_size"]


@pytest.mark.parametrize("case,variant", VARIANTS, ids=case_id)
def test_kernargs_layout(case, variant):
    """case.kernargs() puts each argument where the metadata says, and the hidden ones it knows."""
    md = kernel_of(case, variant).metadata
    inputs = case.inputs()
    addresses = {a.name: 0x7F00_0000_0000 + 0x10_0000 * k for k, a in enumerate(case.args)
                 if isinstance(a, cases.Buffer)}
    segment = case.kernargs(md, inputs, addresses)
    assert len(segment) == md[".kernarg_segment_size"]
    explicit = [a for a in md[".args"] if not a[".value_kind"].startswith("hidden_")]
    for arg, entry in zip(case.args, explicit):
        raw = segment[entry[".offset"]:entry[".offset"] + entry[".size"]]
        if isinstance(arg, cases.Buffer):
            assert struct.unpack("<Q", raw)[0] == addresses[arg.name]
        else:
            assert np.frombuffer(raw, arg.dtype)[0] == inputs[arg.name]
    for entry in md[".args"]:
        kind = entry[".value_kind"]
        value = case.hidden_value(kind) if kind.startswith("hidden_") else None
        if value is not None:
            raw = segment[entry[".offset"]:entry[".offset"] + entry[".size"]]
            assert int.from_bytes(raw, "little") == value, kind


def _instruction_names(kernel) -> set[str]:
    names = set()
    for decoded in kernel.instructions:
        if decoded.inst is not None:
            names.add(decoded.inst.name.lower())
            names.add(decoded.inst.fmt.name.lower())
    return names


@pytest.mark.parametrize("case,variant", [(c, v) for c in CASES for v in c.relies_on], ids=case_id)
def test_kernel_uses_what_it_tests(case, variant):
    """The instructions a case is there for are in its code (decoded by gpubench): a rebuild with an
    LLVM that optimises them away must not pass silently."""
    names = _instruction_names(kernel_of(case, variant))
    missing = [p for p in case.relies_on[variant] if not any(p in name for name in names)]
    assert not missing, f"{case.code_object(variant).name} has none of {missing}"


# ---------------------------------------------------------------------------------------------
# Inputs and references


@pytest.mark.parametrize("case", CASES, ids=case_id)
def test_inputs_are_seeded(case):
    first, again = case.inputs(seed=3), case.inputs(seed=3)
    for arg in case.args:
        assert np.array_equal(np.asarray(first[arg.name]), np.asarray(again[arg.name]))


@pytest.mark.parametrize("case", CASES, ids=case_id)
def test_dispatch_is_small(case):
    assert case.work_items <= 1024 and case.workgroups <= 4
    assert case.block[0] * case.block[1] * case.block[2] <= 256
    for arg in case.args:
        if isinstance(arg, cases.Buffer):
            assert case.inputs()[arg.name].nbytes <= 128 * 1024, arg.name


@pytest.mark.parametrize("case,variant", [(c, v) for c, v in VARIANTS if c.reference], ids=case_id)
def test_reference_runs(case, variant):
    inputs = case.inputs()
    before = {k: np.array(v, copy=True) for k, v in inputs.items()}
    expected = case.expected(inputs, variant)
    assert set(expected) == set(case.outputs)
    for name in case.outputs:
        assert expected[name].shape == inputs[name].shape, name
        assert expected[name].dtype == inputs[name].dtype, name
        if expected[name].dtype.kind == "f":
            assert np.isfinite(expected[name]).all(), name
    for k, v in inputs.items():
        assert np.array_equal(np.asarray(v), before[k]), f"the reference changed input {k}"
    assert case.check(expected, expected) == []


@pytest.mark.parametrize("case", [c for c in CASES if c.reference], ids=case_id)
def test_check_catches_a_wrong_output(case):
    inputs = case.inputs()
    expected = case.expected(inputs, case.variants[0])
    for name in case.outputs:
        wrong = dict(expected)
        flat = expected[name].copy().reshape(-1)
        if case.tolerance(name).exact or isinstance(case.tolerance(name), cases.Piecewise):
            flat[len(flat) // 2] = flat[0] if flat[len(flat) // 2] != flat[0] else flat[0] + 1
        else:  # a permutation: another value altogether
            flat[0] = flat.max() + 1
        wrong[name] = flat.reshape(expected[name].shape)
        assert case.check(wrong, expected), f"{name}: a changed element passed"


@pytest.mark.parametrize("case", cases.BAD, ids=case_id)
def test_bad_cases(case):
    assert case.reference is None
    assert case.expect in ("fault", "hang")
    if case.expect == "fault":
        inputs = case.inputs()
        addresses = {"out": 0x7F00_0000_0000}
        address = case.fault_address(inputs, addresses)
        assert address - addresses["out"] >= 16 * 1024 * 1024  # far past any page or allocation rounding


def test_variants_cover_the_targets():
    built = {v for c in CASES for v in c.variants}
    assert built == set(cases.VARIANTS)
    assert cases.CASES["wmma_f32_f16"].variants == cases.GFX1100


# ---------------------------------------------------------------------------------------------
# The helpers the references stand on


def _exact_fma(a, b, c, dtype) -> np.ndarray:
    """fma rounded once, by rational arithmetic: the nearest value of ``dtype``, ties to even."""
    out = []
    dt = np.dtype(dtype)
    for x, y, z in zip(a, b, c):
        exact = Fraction(float(x)) * Fraction(float(y)) + Fraction(float(z))
        near = dt.type(float(exact))  # float(Fraction) rounds correctly to float64: a starting point
        candidates = {near, np.nextafter(near, dt.type(np.inf)), np.nextafter(near, dt.type(-np.inf))}
        best = min(candidates, key=lambda r: (abs(Fraction(float(r)) - exact), int(r.view(f"u{dt.itemsize}")) & 1))
        out.append(best)
    return np.array(out, dt)


@pytest.mark.parametrize("dtype", [np.float32, np.float16])
def test_fma_rounded_is_correctly_rounded(dtype):
    rng = np.random.default_rng(7)
    n = 3000
    a = rng.uniform(-4, 4, n).astype(dtype)
    b = rng.uniform(-4, 4, n).astype(dtype)
    c = rng.uniform(-4, 4, n).astype(dtype)
    # halfway cases: c cancels a*b down to a value that float64 holds but `dtype` sits halfway across
    c[:200] = (-(a[:200].astype(np.float64) * b[:200]) + 1.0).astype(dtype)
    got = cases.fma_rounded(a, b, c, dtype)
    want = _exact_fma(a, b, c, dtype)
    bits = f"u{np.dtype(dtype).itemsize}"
    assert np.array_equal(got.view(bits), want.view(bits))


@pytest.mark.parametrize("sign,c,want", [
    (-1, 1 + 2**-23, 1 + 2**-23),  # 1 + 2^-24 + 2^-60: above the halfway point; not to even (1.0)
    (+1, 1.0, 1.0),  # 1 + 2^-24 - 2^-60: below it
    (+1, 1 + 2**-23, 1 + 2**-23),  # 1 + 3 * 2^-24 - 2^-60: below it; not to even (1 + 2^-22)
])
def test_fma_rounded_breaks_double_rounding_ties(sign, c, want):
    """a*b = sign * 2^-24 * (1 - 2^-36): float64 rounds a*b + c to an f32 halfway point, and the
    2^-60 it drops decides the f32 result."""
    a = np.float32(sign * 2**-24 * (1 - 2**-18))
    b = np.float32(1 + 2**-18)
    got = cases.fma_rounded([a], [b], [np.float32(c)], np.float32)[0]
    assert got == np.float32(want)
    assert got == _exact_fma([a], [b], [np.float32(c)], np.float32)[0]


def test_bf16_rounding():
    f = np.array([1.0, 1 + 2**-8, 1 + 3 * 2**-8, -2.5, np.inf, np.nan], np.float32)
    bits = cases.f32_to_bf16(f)
    assert list(bits[:5]) == [0x3F80, 0x3F80, 0x3F82, 0xC020, 0x7F80]  # ties to even both ways
    assert bits[5] & 0x7FC0 == 0x7FC0
    assert np.array_equal(cases.bf16_to_f32(bits[:4]), np.array([1.0, 1.0, 1 + 2**-6, -2.5], np.float32))


def test_tolerances():
    want = np.array([1.0, 2.0, 3.0], np.float32)
    up = np.nextafter(want, np.float32(np.inf))
    assert cases.EXACT.check("x", up, want)
    assert not cases.Tolerance(ulp=1).check("x", up, want)
    assert cases.Tolerance(ulp=1).check("x", np.nextafter(up, np.float32(np.inf)), want)
    assert not cases.Tolerance(atol=1e-6).check("x", np.float32([1e-7, 2, 3]), np.float32([0, 2, 3]))
    perm = cases.Tolerance(permutation_axis=-1)
    assert not perm.check("x", np.array([[2, 1], [3, 4]]), np.array([[1, 2], [4, 3]]))
    assert perm.check("x", np.array([[2, 2], [3, 4]]), np.array([[1, 2], [4, 3]]))
    assert cases.EXACT.check("x", np.float32([-0.0]), np.float32([0.0]))  # bit for bit


def _wmma_as_documented(a, b, c, wave):
    """v_wmma_f32_16x16x16_f16 on register contents, by the layout in AMD's matrix instruction
    calculator for gfx11: A[i][k] in lane i (and i+16, ...) element k, B[k][j] in lane j element k,
    C/D[i][j] in VGPR i // (wave/16) of lane (16 * i + j) % wave."""
    rows = wave // 16
    A = np.array([[a[i][k] for k in range(16)] for i in range(16)], np.float64)
    B = np.array([[b[j][k] for j in range(16)] for k in range(16)], np.float64)
    C = np.array([[c[(16 * i + j) % wave][i // rows] for j in range(16)] for i in range(16)], np.float64)
    D = A @ B + C
    d = [[0.0] * (16 // rows) for _ in range(wave)]
    for i in range(16):
        for j in range(16):
            d[(16 * i + j) % wave][i // rows] = D[i][j]
    return d


@pytest.mark.parametrize("wave", [32, 64])
def test_wmma_kernel_follows_the_documented_layout(wave):
    """A lane-by-lane model of wmma_f32_f16.hip's loads and stores around the documented WMMA gives
    A*B + C: the kernel's indexing agrees with the layout the reference assumes."""
    case = cases.CASES["wmma_f32_f16"]
    inputs = case.inputs()
    A, B, C = (inputs[k].astype(np.float64) for k in "ABC")
    n, rows, acc_vgprs = 32, wave // 16, 16 // (wave // 16)
    D = np.full((n, n), np.nan)
    for tile in range(4):  # each wave's tiles; which wave runs which does not matter here
        row0, col0 = (tile // 2) * 16, (tile % 2) * 16
        acc = [[C[row0 + v * rows + lane // 16][col0 + lane % 16] for v in range(acc_vgprs)] for lane in range(wave)]
        for k0 in (0, 16):
            a = [[A[row0 + lane % 16][k0 + k] for k in range(16)] for lane in range(wave)]
            b = [[B[k0 + k][col0 + lane % 16] for k in range(16)] for lane in range(wave)]
            acc = _wmma_as_documented(a, b, acc, wave)
        for lane in range(wave):
            for v in range(acc_vgprs):
                D[row0 + v * rows + lane // 16][col0 + lane % 16] = acc[lane][v]
    assert np.array_equal(D.astype(np.float32), case.expected(inputs, "gfx1100")["D"])


def test_wmma_source_layout_constants():
    """The model above reads the source's layout: rows per VGPR = wave / 16, lane % 16, lane / 16."""
    text = cases.CASES["wmma_f32_f16"].source.read_text()
    assert "#define ROWS_PER_VGPR (WAVE_SIZE / 16)" in text
    assert re.search(r"acc\[v\] = C\[\(row0 \+ v \* ROWS_PER_VGPR \+ sub\) \* N \+ col0 \+ m\]", text)
    assert re.search(r"D\[\(row0 \+ v \* ROWS_PER_VGPR \+ sub\) \* N \+ col0 \+ m\] = acc\[v\]", text)
    assert "a[k] = A[(row0 + m) * N + k0 + k]" in text and "b[k] = B[(k0 + k) * N + col0 + m]" in text
