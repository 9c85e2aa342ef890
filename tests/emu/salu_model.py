"""An independent model of the RDNA3 (gfx11) scalar ALU, for tests/emu/test_salu.py.

Written from the descriptions in AMD's "RDNA3 Instruction Set Architecture" reference guide
(chapter 4 "Scalar ALU Operations" and the SOP1/SOP2/SOPC/SOPK opcode tables), on plain Python
ints: it shares no code with the emulator's pseudocode compiler or its reference evaluator, so a
wrong reading of the pseudocode shows up as a mismatch here.

Each model takes the instruction's inputs as unsigned bit patterns (``s0``, ``s1``: the sources at
their operand width; ``d``: the destination's old value; ``scc``: 0/1; ``exec``: the EXEC mask;
``simm16``: SOPK's immediate) and returns an `Outcome`: the destination's new value (None: not
written), SCC (None: unchanged) and EXEC (None: unchanged).
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass


@dataclass(frozen=True)
class Outcome:
    d: int | None = None
    scc: int | None = None
    exec: int | None = None


def mask(bits: int) -> int:
    return (1 << bits) - 1


def signed(value: int, bits: int) -> int:
    value &= mask(bits)
    return value - (1 << bits) if value >> (bits - 1) else value


def nonzero(value: int, bits: int) -> Outcome:
    """The common SCC rule of bit operations: SCC = result != 0."""
    value &= mask(bits)
    return Outcome(value, int(value != 0))


# -- SOP2 ----------------------------------------------------------------------------------------


def _add_u32(s0, s1, scc, carry_in):
    total = s0 + s1 + (scc if carry_in else 0)
    return Outcome(total & mask(32), int(total >> 32 != 0))


def _sub_u32(s0, s1, scc, borrow_in):
    subtrahend = s1 + (scc if borrow_in else 0)
    return Outcome((s0 - subtrahend) & mask(32), int(subtrahend > s0))


def _signed_overflow(result: int) -> int:
    return int(not -(1 << 31) <= result < (1 << 31))


def _add_i32(s0, s1):
    exact = signed(s0, 32) + signed(s1, 32)
    return Outcome(exact & mask(32), _signed_overflow(exact))


def _sub_i32(s0, s1):
    exact = signed(s0, 32) - signed(s1, 32)
    return Outcome(exact & mask(32), _signed_overflow(exact))


def _absdiff_i32(s0, s1):
    difference = signed((s0 - s1) & mask(32), 32)  # the 32-bit difference, then its magnitude
    return nonzero(abs(difference), 32)


def _shift_add(n):
    def model(s0, s1, **_):
        total = (s0 << n) + s1
        return Outcome(total & mask(32), int(total >= 1 << 32))
    return model


def _min_max(is_signed, want_min):
    def model(s0, s1, **_):
        a, b = (signed(s0, 32), signed(s1, 32)) if is_signed else (s0, s1)
        first = a < b if want_min else a >= b
        return Outcome(s0 if first else s1, int(first))
    return model


def _bfe(bits, is_signed):
    """Bit field extract: offset in S1[4:0] (S1[5:0] for 64 bits), width in S1[22:16]. The signed form
    shifts the signed value (a field reaching past the top bit reads copies of the sign bit)."""
    def model(s0, s1, **_):
        offset, width = s1 & (bits - 1), (s1 >> 16) & 0x7F
        field = ((signed(s0, bits) if is_signed else s0) >> offset) & mask(width)
        if is_signed and width:
            field = signed(field, width)
        return nonzero(field, bits)
    return model


def _shift(bits, kind):
    def model(s0, s1, **_):
        amount = s1 & (bits - 1)
        if kind == "lshl":
            return nonzero(s0 << amount, bits)
        if kind == "lshr":
            return nonzero(s0 >> amount, bits)
        return nonzero(signed(s0, bits) >> amount, bits)
    return model


def _bitwise(bits, fn):
    return lambda s0, s1, **_: nonzero(fn(s0, s1), bits)


def _pack(low_high, high_high):
    """S_PACK_xy_B32_B16: D[15:0] from S0's half x, D[31:16] from S1's half y (L: 15:0, H: 31:16)."""
    def model(s0, s1, **_):
        low = (s0 >> 16 if low_high else s0) & 0xFFFF
        high = (s1 >> 16 if high_high else s1) & 0xFFFF
        return Outcome(low | high << 16)
    return model


SOP2: dict[str, Callable[..., Outcome]] = {
    "s_add_u32": lambda s0, s1, scc, **_: _add_u32(s0, s1, scc, False),
    "s_addc_u32": lambda s0, s1, scc, **_: _add_u32(s0, s1, scc, True),
    "s_sub_u32": lambda s0, s1, scc, **_: _sub_u32(s0, s1, scc, False),
    "s_subb_u32": lambda s0, s1, scc, **_: _sub_u32(s0, s1, scc, True),
    "s_add_i32": lambda s0, s1, **_: _add_i32(s0, s1),
    "s_sub_i32": lambda s0, s1, **_: _sub_i32(s0, s1),
    "s_absdiff_i32": lambda s0, s1, **_: _absdiff_i32(s0, s1),
    **{f"s_lshl{n}_add_u32": _shift_add(n) for n in (1, 2, 3, 4)},
    "s_min_i32": _min_max(True, True), "s_min_u32": _min_max(False, True),
    "s_max_i32": _min_max(True, False), "s_max_u32": _min_max(False, False),
    **{f"s_{kind}_{'i' if kind == 'ashr' else 'b'}{bits}": _shift(bits, kind)
       for kind in ("lshl", "lshr", "ashr") for bits in (32, 64)},
    **{f"s_{name}_b{bits}": _bitwise(bits, fn) for bits in (32, 64) for name, fn in {
        "and": lambda a, b: a & b, "or": lambda a, b: a | b, "xor": lambda a, b: a ^ b,
        "nand": lambda a, b: ~(a & b), "nor": lambda a, b: ~(a | b), "xnor": lambda a, b: ~(a ^ b),
        "and_not1": lambda a, b: a & ~b, "or_not1": lambda a, b: a | ~b}.items()},
    "s_bfe_u32": _bfe(32, False), "s_bfe_i32": _bfe(32, True),
    "s_bfe_u64": _bfe(64, False), "s_bfe_i64": _bfe(64, True),
    # bit field mask: S0 ones (S0[4:0]; 64 bits: S0[5:0]), shifted left by S1; SCC kept
    "s_bfm_b32": lambda s0, s1, **_: Outcome((mask(s0 & 31) << (s1 & 31)) & mask(32)),
    "s_bfm_b64": lambda s0, s1, **_: Outcome((mask(s0 & 63) << (s1 & 63)) & mask(64)),
    "s_mul_i32": lambda s0, s1, **_: Outcome((s0 * s1) & mask(32)),
    "s_mul_hi_u32": lambda s0, s1, **_: Outcome((s0 * s1) >> 32),
    "s_mul_hi_i32": lambda s0, s1, **_: Outcome(((signed(s0, 32) * signed(s1, 32)) >> 32) & mask(32)),
    "s_cselect_b32": lambda s0, s1, scc, **_: Outcome(s0 if scc else s1),
    "s_cselect_b64": lambda s0, s1, scc, **_: Outcome(s0 if scc else s1),
    "s_pack_ll_b32_b16": _pack(False, False), "s_pack_lh_b32_b16": _pack(False, True),
    "s_pack_hh_b32_b16": _pack(True, True), "s_pack_hl_b32_b16": _pack(True, False),
}


# -- SOP1 ----------------------------------------------------------------------------------------


def _count_from(bits, from_top, wanted):
    """Bits before the first bit equal to ``wanted`` (from the LSB or the MSB); -1 if there is none."""
    def model(s0, **_):
        order = range(bits - 1, -1, -1) if from_top else range(bits)
        found = next((i for i, bit in enumerate(order) if (s0 >> bit) & 1 == wanted), -1)
        return Outcome(found & mask(32))
    return model


def _leading_sign_bits(bits):
    """S_CLS: how many bits below the sign bit, counted from the top, before one differs from it,
    plus one (the sign bit); -1 when every bit equals the sign bit."""
    def model(s0, **_):
        sign = s0 >> (bits - 1)
        found = next((i for i in range(1, bits) if (s0 >> (bits - 1 - i)) & 1 != sign), -1)
        return Outcome(found & mask(32))
    return model


def _quadmask(bits):
    """Bit i of D: any bit of S0's nibble i; SCC = D != 0."""
    return lambda s0, **_: nonzero(sum(1 << i for i in range(bits // 4) if (s0 >> (4 * i)) & 0xF), bits)


def _wqm(bits):
    """Each nibble of D: all ones if any bit of S0's nibble is set; SCC = D != 0."""
    return lambda s0, **_: nonzero(sum(0xF << (4 * i) for i in range(bits // 4) if (s0 >> (4 * i)) & 0xF), bits)


def _bitset(bits, value):
    """Bit S0[4:0] (64 bits: S0[5:0]) of D set to ``value``, the other bits of D kept."""
    def model(s0, d, **_):
        bit = 1 << (s0 & (bits - 1))
        return Outcome(d | bit if value else d & ~bit & mask(bits))
    return model


def _saveexec(bits, fn, writes_old):
    """EXEC = fn(S0, EXEC); D = the old EXEC (saveexec) or the new one (wrexec); SCC = EXEC != 0."""
    def model(s0, exec, **_):
        new = fn(s0, exec) & mask(bits)
        return Outcome(exec if writes_old else new, int(new != 0), new)
    return model


SAVEEXEC_FUNCTIONS = {
    "and": lambda s, e: s & e, "or": lambda s, e: s | e, "xor": lambda s, e: s ^ e,
    "nand": lambda s, e: ~(s & e), "nor": lambda s, e: ~(s | e), "xnor": lambda s, e: ~(s ^ e),
    "and_not0": lambda s, e: ~s & e, "or_not0": lambda s, e: ~s | e,
    "and_not1": lambda s, e: s & ~e, "or_not1": lambda s, e: s | ~e,
}

SOP1: dict[str, Callable[..., Outcome]] = {
    "s_mov_b32": lambda s0, **_: Outcome(s0), "s_mov_b64": lambda s0, **_: Outcome(s0),
    "s_cmov_b32": lambda s0, d, scc, **_: Outcome(s0 if scc else d),
    "s_cmov_b64": lambda s0, d, scc, **_: Outcome(s0 if scc else d),
    "s_not_b32": lambda s0, **_: nonzero(~s0, 32), "s_not_b64": lambda s0, **_: nonzero(~s0, 64),
    "s_wqm_b32": _wqm(32), "s_wqm_b64": _wqm(64),
    "s_brev_b32": lambda s0, **_: Outcome(int(f"{s0:032b}"[::-1], 2)),
    "s_brev_b64": lambda s0, **_: Outcome(int(f"{s0:064b}"[::-1], 2)),
    "s_bcnt0_i32_b32": lambda s0, **_: nonzero(32 - s0.bit_count(), 32),
    "s_bcnt0_i32_b64": lambda s0, **_: nonzero(64 - s0.bit_count(), 32),
    "s_bcnt1_i32_b32": lambda s0, **_: nonzero(s0.bit_count(), 32),
    "s_bcnt1_i32_b64": lambda s0, **_: nonzero(s0.bit_count(), 32),
    "s_ctz_i32_b32": _count_from(32, False, 1), "s_ctz_i32_b64": _count_from(64, False, 1),
    "s_clz_i32_u32": _count_from(32, True, 1), "s_clz_i32_u64": _count_from(64, True, 1),
    "s_cls_i32": _leading_sign_bits(32), "s_cls_i32_i64": _leading_sign_bits(64),
    "s_sext_i32_i8": lambda s0, **_: Outcome(signed(s0, 8) & mask(32)),
    "s_sext_i32_i16": lambda s0, **_: Outcome(signed(s0, 16) & mask(32)),
    "s_bitset0_b32": _bitset(32, 0), "s_bitset0_b64": _bitset(64, 0),
    "s_bitset1_b32": _bitset(32, 1), "s_bitset1_b64": _bitset(64, 1),
    # each bit of S0 twice: D[2i] = D[2i+1] = S0[i]
    "s_bitreplicate_b64_b32": lambda s0, **_: Outcome(sum(3 << (2 * i) for i in range(32) if (s0 >> i) & 1)),
    "s_abs_i32": lambda s0, **_: nonzero(abs(signed(s0, 32)), 32),
    "s_quadmask_b32": _quadmask(32), "s_quadmask_b64": _quadmask(64),
    **{f"s_{name}_saveexec_b{bits}": _saveexec(bits, fn, True)
       for name, fn in SAVEEXEC_FUNCTIONS.items() for bits in (32, 64)},
    **{f"s_{name}_wrexec_b{bits}": _saveexec(bits, SAVEEXEC_FUNCTIONS[name], False)
       for name in ("and_not0", "and_not1") for bits in (32, 64)},
}


# -- SOPC ----------------------------------------------------------------------------------------

COMPARISONS = {"eq": lambda a, b: a == b, "lg": lambda a, b: a != b, "gt": lambda a, b: a > b,
               "ge": lambda a, b: a >= b, "lt": lambda a, b: a < b, "le": lambda a, b: a <= b}


def _compare(test, is_signed, bits=32):
    def model(s0, s1, **_):
        a, b = (signed(s0, bits), signed(s1, bits)) if is_signed else (s0, s1)
        return Outcome(scc=int(test(a, b)))
    return model


def _bitcmp(bits, wanted):
    """SCC = (S0's bit S1[4:0] (64 bits: S1[5:0]) == wanted)."""
    return lambda s0, s1, **_: Outcome(scc=int((s0 >> (s1 & (bits - 1))) & 1 == wanted))


SOPC: dict[str, Callable[..., Outcome]] = {
    **{f"s_cmp_{name}_{kind}32": _compare(test, kind == "i")
       for name, test in COMPARISONS.items() for kind in ("i", "u")},
    "s_cmp_eq_u64": _compare(COMPARISONS["eq"], False, 64), "s_cmp_lg_u64": _compare(COMPARISONS["lg"], False, 64),
    "s_bitcmp0_b32": _bitcmp(32, 0), "s_bitcmp1_b32": _bitcmp(32, 1),
    "s_bitcmp0_b64": _bitcmp(64, 0), "s_bitcmp1_b64": _bitcmp(64, 1),
}


# -- SOPK: the register in sdst is D (and S0 for the compares); SIMM16 sign-extended, or zero-extended
# for the unsigned compares ----------------------------------------------------------------------


def _cmpk(test, is_signed):
    def model(d, simm16, **_):
        a, b = (signed(d, 32), signed(simm16, 16)) if is_signed else (d, simm16)
        return Outcome(scc=int(test(a, b)))
    return model


def _addk(d, simm16, **_):
    exact = signed(d, 32) + signed(simm16, 16)
    return Outcome(exact & mask(32), _signed_overflow(exact))


SOPK: dict[str, Callable[..., Outcome]] = {
    "s_movk_i32": lambda simm16, **_: Outcome(signed(simm16, 16) & mask(32)),
    "s_cmovk_i32": lambda d, simm16, scc, **_: Outcome(signed(simm16, 16) & mask(32) if scc else d),
    "s_addk_i32": _addk,
    "s_mulk_i32": lambda d, simm16, **_: Outcome((signed(d, 32) * signed(simm16, 16)) & mask(32)),
    **{f"s_cmpk_{name}_{kind}32": _cmpk(test, kind == "i")
       for name, test in COMPARISONS.items() for kind in ("i", "u")},
}
