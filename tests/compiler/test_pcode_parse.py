"""The pseudocode parser: every entry of every ISA is code that parses, or reviewed prose."""
import importlib

import pytest

from gpubench.compiler.pcode import PcodeSyntaxError, Prose, ir, parse, read_pseudocode
from gpubench.compiler.pcode.dtypes import DataType
from gpubench.compiler.pcode.prose import prose_reasons

ARCHES = ("rdna3", "rdna4", "cdna")


def _names(text: str) -> frozenset[str]:
    return frozenset(text.split())


# Entries whose manual text is not pseudocode, reviewed one by one: English (DS_CONSUME, S_SETPRIO),
# assembly listings (S_SLEEP, S_DELAY_ALU), tables (DS_SWIZZLE), wait relations (S_WAITCNT) and the
# matrix formulas of WMMA/SWMMAC/MFMA/SMFMAC. A new prose entry, or one that becomes code, fails.
PROSE = {
    "rdna3": _names("""
        DSOp.DS_SWIZZLE_B32 DSOp.DS_CONSUME DSOp.DS_APPEND DSOp.DS_ADD_GS_REG_RTN DSOp.DS_SUB_GS_REG_RTN
        DSOp.DS_BVH_STACK_RTN_B32 LDSDIROp.LDS_DIRECT_LOAD MIMGOp.IMAGE_GET_LOD SOPKOp.S_WAITCNT_VSCNT
        SOPKOp.S_WAITCNT_VMCNT SOPKOp.S_WAITCNT_EXPCNT SOPKOp.S_WAITCNT_LGKMCNT SOPPOp.S_SLEEP
        SOPPOp.S_DELAY_ALU SOPPOp.S_WAITCNT SOPPOp.S_CODE_END SOPPOp.S_SETPRIO
        VOP3POp.V_WMMA_F32_16X16X16_F16 VOP3POp.V_WMMA_F32_16X16X16_BF16 VOP3POp.V_WMMA_F16_16X16X16_F16
        VOP3POp.V_WMMA_BF16_16X16X16_BF16 VOP3POp.V_WMMA_I32_16X16X16_IU8 VOP3POp.V_WMMA_I32_16X16X16_IU4
    """),
    "rdna4": _names("""
        DSOp.DS_SWIZZLE_B32 DSOp.DS_CONSUME DSOp.DS_APPEND SOPPOp.S_SLEEP SOPPOp.S_DELAY_ALU
        SOPPOp.S_CODE_END SOPPOp.S_SETPRIO VSAMPLEOp.IMAGE_GET_LOD
        VOP3POp.V_WMMA_F32_16X16X16_F16 VOP3POp.V_WMMA_F32_16X16X16_BF16 VOP3POp.V_WMMA_F16_16X16X16_F16
        VOP3POp.V_WMMA_BF16_16X16X16_BF16 VOP3POp.V_WMMA_I32_16X16X16_IU8 VOP3POp.V_WMMA_I32_16X16X16_IU4
        VOP3POp.V_WMMA_F32_16X16X16_FP8_FP8 VOP3POp.V_WMMA_F32_16X16X16_FP8_BF8
        VOP3POp.V_WMMA_F32_16X16X16_BF8_FP8 VOP3POp.V_WMMA_F32_16X16X16_BF8_BF8
        VOP3POp.V_WMMA_I32_16X16X32_IU4 VOP3POp.V_SWMMAC_F32_16X16X32_F16 VOP3POp.V_SWMMAC_F32_16X16X32_BF16
        VOP3POp.V_SWMMAC_F16_16X16X32_F16 VOP3POp.V_SWMMAC_BF16_16X16X32_BF16
        VOP3POp.V_SWMMAC_I32_16X16X32_IU8 VOP3POp.V_SWMMAC_I32_16X16X32_IU4
        VOP3POp.V_SWMMAC_I32_16X16X64_IU4 VOP3POp.V_SWMMAC_F32_16X16X32_FP8_FP8
        VOP3POp.V_SWMMAC_F32_16X16X32_FP8_BF8 VOP3POp.V_SWMMAC_F32_16X16X32_BF8_FP8
        VOP3POp.V_SWMMAC_F32_16X16X32_BF8_BF8
    """),
    "cdna": _names("""
        DSOp.DS_SWIZZLE_B32 SOPPOp.S_WAITCNT SOPPOp.S_SLEEP
        VOP3POp.V_MFMA_F32_16X16X128_F8F6F4 VOP3POp.V_MFMA_F32_32X32X64_F8F6F4
        VOP3POp.V_MFMA_F32_16X16X32_BF16 VOP3POp.V_MFMA_I32_16X16X64_I8 VOP3POp.V_MFMA_F32_32X32X16_BF16
        VOP3POp.V_MFMA_I32_32X32X32_I8 VOP3POp.V_SMFMAC_F32_16X16X64_BF16 VOP3POp.V_SMFMAC_I32_16X16X128_I8
        VOP3POp.V_SMFMAC_F32_16X16X128_BF8_BF8 VOP3POp.V_SMFMAC_F32_16X16X128_BF8_FP8
        VOP3POp.V_SMFMAC_F32_16X16X128_FP8_BF8 VOP3POp.V_MFMA_F32_32X32X1_2B_F32
        VOP3POp.V_MFMA_F32_16X16X1_4B_F32 VOP3POp.V_MFMA_F32_4X4X1_16B_F32
        VOP3POp.V_SMFMAC_F32_16X16X128_FP8_FP8 VOP3POp.V_MFMA_F32_32X32X2_F32 VOP3POp.V_MFMA_F32_16X16X4_F32
        VOP3POp.V_SMFMAC_F32_32X32X32_BF16 VOP3POp.V_SMFMAC_I32_32X32X64_I8
        VOP3POp.V_MFMA_F32_32X32X4_2B_F16 VOP3POp.V_MFMA_F32_16X16X4_4B_F16 VOP3POp.V_MFMA_F32_4X4X4_16B_F16
        VOP3POp.V_SMFMAC_F32_32X32X64_BF8_BF8 VOP3POp.V_MFMA_F32_32X32X8_F16 VOP3POp.V_MFMA_F32_16X16X16_F16
        VOP3POp.V_SMFMAC_F32_32X32X64_BF8_FP8 VOP3POp.V_SMFMAC_F32_32X32X64_FP8_BF8
        VOP3POp.V_MFMA_I32_32X32X4_2B_I8 VOP3POp.V_MFMA_I32_16X16X4_4B_I8 VOP3POp.V_MFMA_I32_4X4X4_16B_I8
        VOP3POp.V_SMFMAC_F32_32X32X64_FP8_FP8 VOP3POp.V_MFMA_F32_16X16X32_F16
        VOP3POp.V_MFMA_F32_32X32X16_F16 VOP3POp.V_MFMA_I32_32X32X16_I8 VOP3POp.V_MFMA_I32_16X16X32_I8
        VOP3POp.V_SMFMAC_F32_16X16X64_F16 VOP3POp.V_SMFMAC_F32_32X32X32_F16
        VOP3POp.V_MFMA_F32_32X32X4_2B_BF16 VOP3POp.V_MFMA_F32_16X16X4_4B_BF16
        VOP3POp.V_MFMA_F32_4X4X4_16B_BF16 VOP3POp.V_MFMA_F32_32X32X8_BF16 VOP3POp.V_MFMA_F32_16X16X16_BF16
        VOP3POp.V_SMFMAC_F32_16X16X32_F16 VOP3POp.V_SMFMAC_F32_32X32X16_F16
        VOP3POp.V_SMFMAC_F32_16X16X32_BF16 VOP3POp.V_SMFMAC_F32_32X32X16_BF16
        VOP3POp.V_SMFMAC_I32_16X16X64_I8 VOP3POp.V_SMFMAC_I32_32X32X32_I8 VOP3POp.V_MFMA_F64_16X16X4_F64
        VOP3POp.V_MFMA_F64_4X4X4_4B_F64 VOP3POp.V_MFMA_F32_16X16X32_BF8_BF8
        VOP3POp.V_MFMA_F32_16X16X32_BF8_FP8 VOP3POp.V_MFMA_F32_16X16X32_FP8_BF8
        VOP3POp.V_MFMA_F32_16X16X32_FP8_FP8 VOP3POp.V_MFMA_F32_32X32X16_BF8_BF8
        VOP3POp.V_MFMA_F32_32X32X16_BF8_FP8 VOP3POp.V_MFMA_F32_32X32X16_FP8_BF8
        VOP3POp.V_MFMA_F32_32X32X16_FP8_FP8 VOP3POp.V_SMFMAC_F32_16X16X64_BF8_BF8
        VOP3POp.V_SMFMAC_F32_16X16X64_BF8_FP8 VOP3POp.V_SMFMAC_F32_16X16X64_FP8_BF8
        VOP3POp.V_SMFMAC_F32_16X16X64_FP8_FP8 VOP3POp.V_SMFMAC_F32_32X32X32_BF8_BF8
        VOP3POp.V_SMFMAC_F32_32X32X32_BF8_FP8 VOP3POp.V_SMFMAC_F32_32X32X32_FP8_BF8
        VOP3POp.V_SMFMAC_F32_32X32X32_FP8_FP8
    """),
}

# (code, prose) entries per ISA: 1369 + 23, 1411 + 30, 1372 + 69.
COUNTS = {"rdna3": (1369, 23), "rdna4": (1411, 30), "cdna": (1372, 69)}


def _pseudocode(arch: str) -> dict[tuple[str, str], str]:
    return importlib.import_module(f"gpubench.isa.{arch}.pseudocode").PSEUDOCODE


@pytest.mark.parametrize("arch", ARCHES)
def test_every_entry_parses_or_is_reviewed_prose(arch):
    code, prose, failures = 0, set(), []
    for (enum, name), text in _pseudocode(arch).items():
        try:
            entry = read_pseudocode(text)
        except PcodeSyntaxError as e:
            failures.append(f"{enum}.{name}: {e}")
            continue
        if isinstance(entry, Prose):
            prose.add(f"{enum}.{name}")
        else:
            assert isinstance(entry, ir.Program)
            code += 1
    assert failures == []
    assert prose == PROSE[arch]
    assert (code, len(prose)) == COUNTS[arch]


@pytest.mark.parametrize("arch", ARCHES)
def test_prose_rules_only_mark_text_the_grammar_rejects(arch):
    # The rules read the text, never the parser's verdict; this keeps them from hiding code.
    for text in _pseudocode(arch).values():
        if prose_reasons(text):
            with pytest.raises(PcodeSyntaxError):
                parse(text)


@pytest.mark.parametrize(
    "text, rule",
    [
        ("D = A (16x16) * B (16x16) + C (16x16)", "matrix shape"),
        ("VDATA[0] = clampedLOD;\nVDATA[1] = rawLOD.", "sentence punctuation"),
        ("s_sleep 1       // Wait for 1-64 clocks.", "assembly listing"),
        ("vmcnt <= WaitVMCNT", "wait relation"),
        ("LDS(addr) = LDS(addr) + countbits(valid mask);", "adjacent words"),
        ("if (offset >= 0xe000) {\nmask = offset[4:0];", "C block braces"),
    ],
)
def test_each_prose_rule(text, rule):
    assert rule in prose_reasons(text)


def test_code_is_not_prose():
    text = "if S0.f32 > 1.0F then\n// a comment. With a period.\nD0.f32 = 32'F(PI * 2.0)\nendif"
    assert prose_reasons(text) == ()


# --- the grammar, construct by construct ---------------------------------------------------------


def _expr(text: str) -> ir.Expr:
    (stmt,) = parse(f"x = {text}").body.stmts
    return stmt.value


def _n(name: str) -> ir.Name:
    return ir.Name(name)


def _i(value: int, dtype: DataType | None = None) -> ir.IntLit:
    return ir.IntLit(value, dtype)


def test_c_precedence():
    assert _expr("a + b * c") == ir.Binary("+", _n("a"), ir.Binary("*", _n("b"), _n("c")))
    equal = ir.Binary("==", _n("c"), _n("d"))
    assert _expr("a | b & c == d") == ir.Binary("|", _n("a"), ir.Binary("&", _n("b"), equal))
    assert _expr("a << 1 + b") == ir.Binary("<<", _n("a"), ir.Binary("+", _i(1), _n("b")))
    assert _expr("a || b && c") == ir.Binary("||", _n("a"), ir.Binary("&&", _n("b"), _n("c")))
    assert _expr("a >> 1U << 24U").op == "<<"  # left associative


def test_power_binds_tighter_than_multiply_and_unary_minus():
    f32 = DataType("f", 32)
    assert _expr("2.0F ** 32 * x") == ir.Binary("*", ir.Binary("**", ir.FloatLit(2.0, f32), _i(32)), _n("x"))
    assert _expr("-a ** 2") == ir.Unary("-", ir.Binary("**", _n("a"), _i(2)))


def test_ternary_is_right_associative():
    assert _expr("a ? 0 : b ? 1 : 2") == ir.Ternary(_n("a"), _i(0), ir.Ternary(_n("b"), _i(1), _i(2)))


def test_views_fields_slices_and_lane_bits():
    u64, u32 = DataType("u", 64), DataType("u", 32)
    assert _expr("VCC.u64[laneId]") == ir.Index(ir.View(_n("VCC"), u64), _n("laneId"))
    assert _expr("S0[31 : 16].f16") == ir.View(ir.Slice(_n("S0"), _i(31), _i(16)), DataType("f", 16))
    assert _expr("S0.u32[i * 4 +: 4]") == ir.PartSelect(ir.View(_n("S0"), u32), ir.Binary("*", _n("i"), _i(4)), _i(4))
    assert _expr("WAVE_MODE.IEEE") == ir.Field(_n("WAVE_MODE"), "IEEE")
    assert _expr("VGPR[lane][SRC0.u32]") == ir.Index(ir.Index(_n("VGPR"), _n("lane")), ir.View(_n("SRC0"), u32))


def test_literals_carry_their_types():
    assert _expr("1'1U") == _i(1, DataType("u", 1))
    assert _expr("0x100000000ULL") == _i(1 << 32, DataType("u", 64))
    assert _expr("4LL") == _i(4, DataType("i", 64))
    assert _expr("16'0.5") == ir.FloatLit(0.5, DataType("f", 16))
    assert _expr("8'0xff") == _i(255, DataType("b", 8))
    assert _expr("5") == _i(5)


def test_casts_and_concatenation():
    assert _expr("64'U(S0.u32)") == ir.Cast(DataType("u", 64), ir.View(_n("S0"), DataType("u", 32)))
    assert _expr("16'BF(x)") == ir.Cast(DataType("bf", 16), _n("x"))
    assert _expr("{ 1'0, DATA[30 : 0] }") == ir.Concat((_i(0, DataType("b", 1)), ir.Slice(_n("DATA"), _i(30), _i(0))))
    assert isinstance(_expr("1201'B(2.0 / PI)[1200 : 0]"), ir.Slice)  # a cast is a primary: postfix applies


def test_statements_and_blocks():
    text = """declare tmp : 32'B[64];
tmp = -1;
// Set if no ones are found
for i in 0 : WAVE64 ? 63 : 31 do
if S0.u32[i] == 1'1U then
tmp = i;
break
elsif i > 3 then
continue
else
tmp += 1
endif
endfor;
while !done do
s_nop(16'0U)
endwhile"""
    declare, assign, loop, wait = parse(text).body.stmts
    assert declare == ir.Declare("tmp", DataType("b", 32), _i(64))
    assert assign == ir.Assign(_n("tmp"), ir.Unary("-", _i(1)))
    assert isinstance(loop.stop, ir.Ternary)  # the bound's ternary owns its ':'
    (branch_if,) = loop.body.stmts
    assert [type(s) for s in branch_if.branches[0].body.stmts] == [ir.Assign, ir.Break]
    assert branch_if.orelse.stmts == (ir.Assign(_n("tmp"), _i(1), "+"),)
    assert isinstance(wait, ir.While) and isinstance(wait.body.stmts[0], ir.ExprStmt)


def test_lambdas_with_expression_and_statement_bodies():
    text = """ABSDIFF = lambda(x, y) (
x > y ? x - y : y - x);
SAT8 = lambda(n) (
if n.i32 <= 0 then
return 8'0U
else
return n[7 : 0].u8
endif);
D0.u32 = ABSDIFF(S0.u32, S1.u32) + SAT8(S2.i32)"""
    absdiff, sat8, _ = parse(text).body.stmts
    assert absdiff.value.params == ("x", "y") and isinstance(absdiff.value.body, ir.Ternary)
    assert isinstance(sat8.value.body, ir.Block) and isinstance(sat8.value.body.stmts[0], ir.If)
    assert ir.called_names(parse(text)) == set()  # lambdas it defines are not helpers


def test_chained_assignment_becomes_two_stores():
    stmts = parse("EXEC.u64[laneId] = D0.u64[laneId] = S0.f16 < S1.f16").body.stmts
    inner = ir.Index(ir.View(_n("D0"), DataType("u", 64)), _n("laneId"))
    assert stmts[0].target == inner
    assert stmts[1] == ir.Assign(ir.Index(ir.View(_n("EXEC"), DataType("u", 64)), _n("laneId")), inner)


def test_newlines_inside_brackets_and_after_operators_continue_a_line():
    text = "D0.f32 = fma(VGPR[laneId.u32 &\n0xfffffffcU][SRC0.u32].f32, S1.f32,\nS2.f32) +\n1.0F"
    (stmt,) = parse(text).body.stmts
    assert stmt.value.op == "+" and isinstance(stmt.value.left, ir.Call)


def test_in_is_a_keyword_only_inside_for():
    (declare, assign) = parse("declare in : 32'F[3];\nin[0] = S[0].f32").body.stmts
    assert declare.name == "in" and assign.target == ir.Index(_n("in"), _i(0))


def test_concatenation_is_an_lvalue():
    (stmt,) = parse("{ D1.u1, D0.u64 } = 65'B(x)").body.stmts
    assert isinstance(stmt.target, ir.Concat)


@pytest.mark.parametrize(
    "text, message",
    [
        ("D0 = ", "line 1, col 6: expected an expression"),
        ("if x\nD0 = 1\nendif", "expected 'then'"),
        ("x + 1", "expected an assignment"),
        ("LDS(addr) = 1", "line 1, col 1: cannot assign to this"),
        ("a = f(x) = 1", "line 1, col 5: cannot assign to this"),
        ("for i in 0 : 3 do\nx = i", "expected 'endfor'"),
        ("D0.u32 = S0.u32 S1.u32", "expected the end of the statement"),
    ],
)
def test_syntax_errors_say_where_and_what(text, message):
    with pytest.raises(PcodeSyntaxError, match=message):
        parse(text)
