"""GFX9's v_exp_legacy_f32 / v_log_legacy_f32 (gfx942, gfx950; e32 and e64) against a model written here from
the rules corrections.py cites (CLRX's GCN documentation): 2^x with 0 below -126 whatever MODE says; log2(x)
with a denormal read as zero and a negative x giving the NaN 0xffc00000; otherwise the exact value rounded
to f32 (numpy in float64). Both engines, MODE keeping denormals (the default)."""
import numpy as np
import pytest
from hypothesis import given, settings
from click.testing import CliRunner
from hypothesis import strategies as st
from test_hardware_instructions import ENGINES, LANES, run, vgpr

from gpubench.cli import main
from gpubench.emu import coverage

TARGETS = ("gfx942", "gfx950")
SPECIAL = [0.0, -0.0, 1.0, -1.0, 0.5, 2.0, -126.0, -126.5, -149.0, 127.9, 128.0, 1e-40, -1e-40, 1.2e-38,
           np.inf, -np.inf, np.nan, 3.3, -7.25]
FLOATS = st.lists(st.one_of(st.sampled_from(SPECIAL), st.floats(width=32), st.floats(-150, 130, width=32)),
                  min_size=LANES, max_size=LANES)


def exp_model(x: np.float32) -> int:
    if x < -126.0:
        return 0
    with np.errstate(over="ignore"):
        return int(np.float32(np.exp2(np.float64(x))).view(np.uint32))


def log_model(x: np.float32) -> int:
    bits = int(np.float32(x).view(np.uint32))
    if bits & 0x7F800000 == 0:  # a zero or a denormal of either sign
        return 0xFF800000
    if x < 0:
        return 0xFFC00000
    return int(np.float32(np.log2(np.float64(x))).view(np.uint32))


def check(got, xs, model):
    for g, x in zip(got, xs):
        if np.isnan(x):
            assert np.isnan(np.uint32(g).view(np.float32))
        else:
            assert int(g) == model(x), (float(x), hex(int(g)), hex(model(x)))


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("name,model", [("v_exp_legacy_f32", exp_model), ("v_log_legacy_f32", log_model)])
@pytest.mark.parametrize("form", ["_e32", "_e64"])
@settings(max_examples=6, deadline=None)
@given(values=FLOATS)
def test_legacy_transcendental_matches_the_model(target, name, model, form, values):
    xs = np.asarray(values, np.float32)
    for engine_name in ENGINES:
        ctx = run(f"{name}{form} v1, v2", engine_name, target, v2=xs.view(np.uint32))
        check(vgpr(ctx, 1), xs, model)


@pytest.mark.parametrize("engine_name", ENGINES)
def test_by_hand_and_with_a_source_modifier(engine_name):
    xs = np.array([3.0, -127.0, 8.0, -8.0, 1e-40, 1.0], np.float32)
    ctx = run("v_exp_legacy_f32 v1, v2\nv_log_legacy_f32 v3, v2\nv_log_legacy_f32_e64 v4, -v2", engine_name,
              "gfx942", v2=xs.view(np.uint32))
    assert list(vgpr(ctx, 1, 6)) == [0x41000000, 0, 0x43800000, 0x3B800000, 0x3F800000, 0x40000000]  # 8, 0, 256, 2^-8
    assert list(vgpr(ctx, 3, 6)) == [0x3FCAE00D, 0xFFC00000, 0x40400000, 0xFFC00000, 0xFF800000, 0]  # log2 3 = 1.5849625
    # of -x: log2 127 = 6.9886847; log2 8 = 3
    assert list(vgpr(ctx, 4, 6)) == [0xFFC00000, 0x40DFA34E, 0xFFC00000, 0x40400000, 0xFF800000, 0xFFC00000]


def test_isa_info_and_coverage_show_the_supplied_pseudocode():
    result = CliRunner().invoke(main, ["isa", "info", "-mcpu", "gfx942", "v_exp_legacy_f32"])
    assert result.exit_code == 0, result.output
    assert "pseudocode: none in the manual" in result.output and "CLRX" in result.output
    assert "supplied by the correction" in result.output and "if S0.f32 < -126.0F then" in result.output
    entries = {e.name: e.source for e in coverage.coverage("gfx950")}
    assert {entries[f"V_{op}_LEGACY_F32_{form}"] for op in ("EXP", "LOG") for form in ("E32", "E64")} == {
        "pseudocode+correction"}
