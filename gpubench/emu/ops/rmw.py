"""Atomic read-modify-write: what each atomic computes, and how the lanes of one instruction that hit
the same address are serialized (manual: the pseudocode's MEM[ADDR] update, written once for the DS,
GLOBAL/FLAT and BUFFER atomics of every target).

Hardware performs an instruction's atomics one lane after another, so lanes that hit one address see
each other's updates: an add with return hands every lane a distinct prior value. The emulator orders
lanes by wave, then lane, groups them by address (a stable sort), and computes each group's running
state without a loop over lanes:

- add/sub and xor: a cumulative sum (xor) over the sorted lanes, minus each group's starting total;
- and/or and the integer min/max: a segmented scan in log2(most lanes on one address) passes;
- swap: each lane sees its predecessor's data;
- everything else (compare-swap, inc/dec, the float ops, masked or, wrap ...) has no closed form for
  a run of updates: one vectorized pass per rank within the groups (the first lane of every address,
  then the second ...), so the passes are as many as the most lanes that hit one address.

Values are carried as uint64 bit patterns of the operation's width (32 or 64 bits).
"""
from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np

from gpubench.emu.context import Context
from gpubench.emu.ops import Unsupported
from gpubench.emu.ops.lane_data import bytes_to_words, words_to_bytes
from gpubench.emu.ops.segments import Lanes, Segment

TYPE = re.compile(r"(U|I|B|F|BF)(8|16|32|64)")
INTEGER = {  # the mnemonic's operation, type suffix dropped -> the operation
    "ADD": "add", "SUB": "sub", "RSUB": "rsub", "INC": "inc", "DEC": "dec",
    "SMIN": "smin", "SMAX": "smax", "UMIN": "umin", "UMAX": "umax",
    "AND": "and", "OR": "or", "XOR": "xor", "MSKOR": "mskor", "WRAP": "wrap",
    "SWAP": "swap", "STOREXCHG": "swap", "WRXCHG": "swap",
    "CMPSWAP": "cmpswap", "CMPSTORE": "cmpswap", "CMPST": "cmpswap",
    "CSUB": "sub_clamp", "SUB_CLAMP": "sub_clamp", "COND_SUB": "cond_sub",
}
FLOAT = {"ADD": "fadd", "MIN": "fmin", "MAX": "fmax", "MIN_NUM": "fmin_num", "MAX_NUM": "fmax_num",
         "CMPSWAP": "cmpswap", "CMPSTORE": "cmpswap", "CMPST": "cmpswap"}
TWO_OPERANDS = {"cmpswap", "mskor", "wrap"}
SCANNED = {"and", "or", "smin", "smax", "umin", "umax"}


@dataclass(frozen=True)
class AtomicOp:
    kind: str  # INTEGER's and FLOAT's values, pk_add_f16, pk_add_bf16, condxchg
    bits: int  # the memory operand: 32 or 64
    float_compare: bool = False  # CMPSWAP_F32/F64: compare as floats (+0 == -0, NaN never equal)

    @property
    def size(self) -> int:
        return self.bits // 8

    @property
    def operands(self) -> int:
        return 2 if self.kind in TWO_OPERANDS else 1


def atomic_op(name: str) -> AtomicOp | None:
    """The operation of an atomic mnemonic (GLOBAL_ATOMIC_ADD_U32, DS_MAX_RTN_I64, BUFFER_ATOMIC_SMIN_X2 ...)."""
    tokens = [t for t in name.split("_")[1:] if t not in ("ATOMIC", "RTN")]
    wide = "X2" in tokens
    tokens = [t for t in tokens if t != "X2"]
    type_suffix = tokens.pop() if tokens and TYPE.fullmatch(tokens[-1]) else ""
    body = "_".join(tokens)
    bits = 64 if wide or type_suffix.endswith("64") else 32
    if type_suffix.startswith(("F", "BF")):
        kind = ("pk_add_bf16" if type_suffix == "BF16" else "pk_add_f16") if body == "PK_ADD" else FLOAT.get(body)
        return AtomicOp(kind, bits, kind == "cmpswap") if kind else None
    if body in ("MIN", "MAX"):
        body = ("S" if type_suffix.startswith("I") else "U") + body
    kind = INTEGER.get(body)
    return AtomicOp(kind, bits) if kind else None


def _mask(bits: int) -> np.uint64:
    return np.uint64((1 << bits) - 1)


def _signed(values: np.ndarray, bits: int) -> np.ndarray:
    return values.astype(np.uint32).view(np.int32) if bits == 32 else values.view(np.int64)


def _floats(values: np.ndarray, bits: int) -> np.ndarray:
    return values.astype(np.uint32).view(np.float32) if bits == 32 else values.view(np.float64)


def _bits(values: np.ndarray, bits: int) -> np.ndarray:
    return values.view(np.uint32).astype(np.uint64) if bits == 32 else values.view(np.uint64)


def _min_max_number(src: np.ndarray, tmp: np.ndarray, smaller: bool, bits: int) -> np.ndarray:
    """IEEE minimumNumber/maximumNumber as the RDNA4 pseudocode has them: a NaN loses to a number,
    two NaNs give the source quieted, and -0 orders below +0."""
    fs, ft = _floats(src, bits), _floats(tmp, bits)
    sign = np.uint64(1 << (bits - 1))
    zeros = (fs == 0) & (ft == 0)
    s_neg, t_neg = (src & sign) != 0, (tmp & sign) != 0
    if smaller:
        take = (fs < ft) | (zeros & s_neg & ~t_neg)
    else:
        take = (fs > ft) | (zeros & ~s_neg & t_neg)
    quiet = np.uint64(1 << (22 if bits == 32 else 51))
    return np.where(np.isnan(fs) & np.isnan(ft), src | quiet,
                    np.where(np.isnan(fs), tmp, np.where(np.isnan(ft) | take, src, tmp)))


def _pk_add(tmp: np.ndarray, src: np.ndarray, bf16: bool) -> np.ndarray:
    """Two 16-bit float adds, each rounded once to nearest even (an f32 sum of two 16-bit floats is
    close enough to exact that rounding it to 16 bits is the single rounding)."""
    halves = []
    for shift in (0, 16):
        a = ((tmp >> np.uint64(shift)) & np.uint64(0xFFFF)).astype(np.uint32)
        b = ((src >> np.uint64(shift)) & np.uint64(0xFFFF)).astype(np.uint32)
        if bf16:
            total = ((a << 16).view(np.float32) + (b << 16).view(np.float32)).view(np.uint32)
            nan = np.isnan(total.view(np.float32))
            rounded = (total + np.uint32(0x7FFF) + ((total >> 16) & 1)) >> 16
            half = np.where(nan, (total >> 16) | np.uint32(0x40), rounded)
        else:
            total = a.astype(np.uint16).view(np.float16) + b.astype(np.uint16).view(np.float16)
            half = total.view(np.uint16).astype(np.uint32)
        halves.append(half.astype(np.uint64) << np.uint64(shift))
    return halves[0] | halves[1]


def apply(op: AtomicOp, tmp: np.ndarray, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """One update: the new memory value from the old (``tmp``), DATA (``a``) and DATA2 (``b``)."""
    bits, mask, kind = op.bits, _mask(op.bits), op.kind
    if kind == "add":
        return (tmp + a) & mask
    if kind == "sub":
        return (tmp - a) & mask
    if kind == "rsub":
        return (a - tmp) & mask
    if kind == "inc":
        return np.where(tmp >= a, np.uint64(0), (tmp + np.uint64(1)) & mask)
    if kind == "dec":
        return np.where((tmp == 0) | (tmp > a), a, tmp - np.uint64(1))
    if kind in SCANNED or kind == "xor":
        return _combine(kind, tmp, a, bits)
    if kind == "swap":
        return a
    if kind == "cmpswap":
        equal = _floats(tmp, bits) == _floats(b, bits) if op.float_compare else tmp == b
        return np.where(equal, a, tmp)
    if kind == "mskor":
        return (tmp & ~a & mask) | b
    if kind == "wrap":
        return np.where(tmp >= a, tmp - a, (tmp + b) & mask)
    if kind == "sub_clamp":
        return np.where(tmp < a, np.uint64(0), tmp - a)
    if kind == "cond_sub":
        return np.where(tmp >= a, tmp - a, tmp)
    if kind == "condxchg":  # DS_CONDXCHG32, one dword: DATA[31] says whether DATA[30:0] replaces it
        return np.where((a >> np.uint64(31)) & np.uint64(1) == 1, a & np.uint64(0x7FFFFFFF), tmp)
    if kind in ("fadd", "fmin", "fmax"):
        ft, fa = _floats(tmp, bits), _floats(a, bits)
        with np.errstate(all="ignore"):
            if kind == "fadd":
                return _bits(ft + fa, bits)
        take = fa < ft if kind == "fmin" else fa > ft
        return np.where(take, a, tmp)
    if kind in ("fmin_num", "fmax_num"):
        return _min_max_number(a, tmp, kind == "fmin_num", bits)
    if kind in ("pk_add_f16", "pk_add_bf16"):
        with np.errstate(all="ignore"):
            return _pk_add(tmp, a, kind == "pk_add_bf16")
    raise Unsupported(f"atomic operation {kind} is not emulated")


def _combine(kind: str, x: np.ndarray, y: np.ndarray, bits: int) -> np.ndarray:
    """The associative, commutative ones: and, or, xor, min, max."""
    if kind == "and":
        return x & y
    if kind == "or":
        return x | y
    if kind == "xor":
        return x ^ y
    if kind in ("umin", "umax"):
        return np.minimum(x, y) if kind == "umin" else np.maximum(x, y)
    sx, sy = _signed(x, bits), _signed(y, bits)
    return np.where((sx < sy) == (kind == "smin"), x, y)


def _segmented_scan(kind: str, values: np.ndarray, group: np.ndarray, depth: int, bits: int) -> np.ndarray:
    """Inclusive scan of ``values`` within each run of equal ``group`` (Hillis-Steele)."""
    scan = values.copy()
    shift = 1
    while shift < depth:
        same = group[shift:] == group[:-shift]
        combined = _combine(kind, scan[shift:], scan[:-shift], bits)
        scan[shift:] = np.where(same, combined, scan[shift:])
        shift *= 2
    return scan


def serialize(op: AtomicOp, keys: np.ndarray, a: np.ndarray, b: np.ndarray, load, store) -> np.ndarray:
    """Apply ``op`` for every lane in lane order, lanes with equal keys one after another.

    ``load(first)`` gives the memory value (uint64) at each distinct key, named by the index of its
    first lane; ``store(first, values)`` writes the final ones. Returns what each lane saw before its
    update."""
    n = len(keys)
    if n == 0:
        return np.zeros(0, np.uint64)
    order = np.argsort(keys, kind="stable")
    sorted_keys = keys[order]
    first = np.ones(n, bool)
    first[1:] = sorted_keys[1:] != sorted_keys[:-1]
    starts = np.flatnonzero(first)
    counts = np.diff(np.append(starts, n))
    ends = starts + counts - 1
    group = np.cumsum(first) - 1
    a, b = a[order], b[order]
    old = load(order[starts])
    mask, kind = _mask(op.bits), op.kind
    if kind in ("add", "sub", "xor"):
        # A running total over all sorted lanes; a group's share is the total minus where it began.
        step = (a if kind != "sub" else (np.uint64(0) - a)) & mask
        if kind == "xor":
            running = np.bitwise_xor.accumulate(step)
            earlier = running ^ step
            before = old[group] ^ earlier ^ earlier[starts][group]
            final = old ^ running[ends] ^ earlier[starts]
        else:
            running = np.cumsum(step, dtype=np.uint64)
            earlier = running - step
            before = (old[group] + earlier - earlier[starts][group]) & mask
            final = (old + running[ends] - earlier[starts]) & mask
    elif kind in SCANNED:
        scan = _segmented_scan(kind, a, group, int(counts.max()), op.bits)
        before = old[group].copy()
        later = ~first
        before[later] = _combine(kind, old[group[later]], scan[np.flatnonzero(later) - 1], op.bits)
        final = _combine(kind, old, scan[ends], op.bits)
    elif kind == "swap":
        before = np.where(first, old[group], np.roll(a, 1))
        final = a[ends]
    else:
        before = np.empty(n, np.uint64)
        final = old.copy()
        for rank in range(int(counts.max())):
            groups = np.flatnonzero(counts > rank)
            lanes = starts[groups] + rank
            before[lanes] = final[groups]
            final[groups] = apply(op, final[groups], a[lanes], b[lanes])
    store(order[starts], final)
    result = np.empty(n, np.uint64)
    result[order] = before
    return result


def atomic(ctx: Context, segment: Segment, lanes: Lanes, op: AtomicOp, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Run ``op`` for ``lanes`` on ``segment``; the prior value per lane (0 where the access is dropped:
    an out-of-range LDS address)."""
    keys, inside = segment.locate(ctx, lanes, op.size)
    chosen = np.flatnonzero(inside)
    part = lanes.take(chosen)

    def load(first: np.ndarray) -> np.ndarray:
        return bytes_to_words(segment.read(ctx, part.take(first), op.size))

    def store(first: np.ndarray, values: np.ndarray) -> None:
        segment.write(ctx, part.take(first), words_to_bytes(values, op.size))

    before = np.zeros(len(lanes), np.uint64)
    before[chosen] = serialize(op, keys[chosen], a[chosen], b[chosen], load, store)
    return before
