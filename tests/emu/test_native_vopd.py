"""Dual issue (VOPD) on the native engine against the reference engine, bit for bit: every pair of an X
and a Y operation on gfx1100 (and on gfx1201 each operation with a few partners), with random
registers drawn from a few VGPRs so that one half often reads what the other writes, src0 a VGPR, an
SGPR, an inline constant or the literal (shared with fmaak's/fmamk's K), EXEC partly off and special
float values in some lanes; and that they are bound natively (not left to the reference engine)."""
import numpy as np
import pytest
from alu_sweep import F32_SPECIALS
from asm_dispatch import CODE_BASE, Dispatch

from gpubench.emu import executor
from gpubench.emu.native import engine
from gpubench.emu.ops import modes
from gpubench.emu.waves import EXEC_LO, VCC_LO
from gpubench.isa.arch import ISA
from gpubench.isa.asm import assemble
from gpubench.isa.syntax.vopd import layout, operations

X_OPCODES = 16  # opx is 4 bits wide: X takes the operations numbered below 16
INLINE = ("0", "1.0", "-2.0", "0.5", "4", "-16", "64")
EXEC = 0xF0FF_7FFD  # lanes off at both ends and in the middle
# Left to the reference engine: the native backend has no bfloat16 lowering yet.
REFERENCE_ONLY = {"v_dual_dot2acc_f32_bf16"}


def _operations(target: str) -> tuple[list[str], list[str]]:
    ops = operations(ISA.get(target, 32), "VOPD")
    return sorted(n for n, d in ops.items() if d.opcode < X_OPCODES), sorted(ops)


def _pairs() -> list[tuple[str, str, str]]:
    xs, ys = _operations("gfx1100")
    pairs = [("gfx1100", x, y) for x in xs for y in ys]
    xs, ys = _operations("gfx1201")  # each X with three Ys, each Y with three Xs
    chosen = {(x, ys[(i * 5 + k) % len(ys)]) for i, x in enumerate(xs) for k in range(3)}
    chosen |= {(xs[(i * 3 + k) % len(xs)], y) for i, y in enumerate(ys) for k in range(3)}
    return pairs + [("gfx1201", x, y) for x, y in sorted(chosen)]


def _half(rng, name: str, vdst: int, literal: str, target: str) -> str:
    roles = layout(operations(ISA.get(target, 32), "VOPD")[name])
    kind = rng.choice(("vgpr", "vgpr", "sgpr", "inline", "literal"))
    texts = []
    for role in roles:
        if role == "vdst":
            texts.append(f"v{vdst}")
        elif role == "vsrc1":
            texts.append(f"v{rng.integers(0, 8)}")
        elif role == "k":
            texts.append(literal)
        elif kind == "vgpr":
            texts.append(f"v{rng.integers(0, 8)}")
        elif kind == "sgpr":
            texts.append(f"s{rng.integers(0, 32)}")
        elif kind == "inline":
            texts.append(str(rng.choice(INLINE)))
        else:
            texts.append(literal)
    return f"{name} {', '.join(texts)}"


def _text(rng, x: str, y: str, target: str) -> str:
    literal = f"0x{int(rng.integers(0, 1 << 32)):x}"
    vdstx = int(rng.integers(0, 8))
    vdsty = int(rng.integers(0, 4)) * 2 + (vdstx & 1 ^ 1)  # one even, the other odd
    return f"{_half(rng, x, vdstx, literal, target)} :: {_half(rng, y, vdsty, literal, target)}"


def _state(target: str, text: str, seed: int, mode: int | None = None) -> Dispatch:
    rng = np.random.default_rng(seed)
    run = Dispatch(target, 32, vgprs=16)
    run.vgpr[0] = rng.integers(0, 1 << 32, run.vgpr.shape[1:], dtype=np.uint64).astype(np.uint32)
    for reg in range(0, 8, 2):  # special floats (and f16 pairs of them) in a few lanes of some VGPRs
        run.vgpr[0, reg, :len(F32_SPECIALS)] = np.roll(F32_SPECIALS, reg)
        run.vgpr[0, reg + 1, 8:16] = np.array(F32_SPECIALS, np.uint32) >> 16 | np.array(F32_SPECIALS, np.uint32)
    run.sgpr[0, :32] = rng.integers(0, 1 << 32, 32, dtype=np.uint64).astype(np.uint32)
    run.sgpr[0, VCC_LO] = rng.integers(0, 1 << 32)
    run.sgpr[0, EXEC_LO] = EXEC
    run.waves.scc[0] = rng.integers(0, 2)
    run.waves.mode[0] = (run.waves.mode[0] ^ modes.IEEE * int(rng.integers(0, 2))) if mode is None else mode
    run.device.alloc_at(CODE_BASE, assemble(run.isa, text + "\ns_endpgm\n").data)
    run.waves.pc[:] = CODE_BASE
    return run


def _run(target: str, text: str, seed: int, native: bool, mode: int | None = None) -> tuple:
    ctx = _state(target, text, seed, mode).context()
    (engine.run if native else executor.run)(ctx, executor.Watchdog())
    w, stats = ctx.waves, ctx.stats
    return ctx, (w.vgpr.copy(), w.sgpr.copy(), w.scc.copy(), w.pc.copy(), w.state.copy(), stats["wave_instructions"],
                 stats["lane_operations"], sorted(stats["executed"]))


def _compare(target: str, text: str, seed: int, mode: int | None = None) -> engine.NativeProgram:
    _, expected = _run(target, text, seed, native=False, mode=mode)
    ctx, got = _run(target, text, seed, native=True, mode=mode)
    for what, a, b in zip(("vgpr", "sgpr", "scc", "pc", "state", "wave-instructions", "lane-operations",
                           "executed"), expected, got, strict=True):
        assert np.array_equal(a, b), f"{text} (seed {seed}): {what} differs"
    return engine.NativeProgram.for_dispatch(ctx, CODE_BASE)


def _bound_natively(program: engine.NativeProgram) -> bool:
    return program.table[0] >= 0


@pytest.mark.parametrize("target,x,y", _pairs())
def test_a_pair_gives_the_reference_engines_bits(target, x, y):
    for seed in range(3):
        rng = np.random.default_rng([seed, *map(ord, x + y)])
        text = _text(rng, x, y, target)
        program = _compare(target, text, seed)
        assert _bound_natively(program) == (not {x, y} & REFERENCE_ONLY), f"{text}: bound natively?"


@pytest.mark.parametrize("text", [
    "v_dual_mov_b32 v0, v1 :: v_dual_mov_b32 v1, v0",  # a swap: each half reads the other's destination
    "v_dual_fmac_f32 v2, v3, v5 :: v_dual_fmac_f32 v3, v2, v4",  # accumulators read before either writes
    "v_dual_fmamk_f32 v4, v1, 0x40490fdb, v2 :: v_dual_fmaak_f32 v5, v4, v3, 0x40490fdb",
    "v_dual_fmaak_f32 v4, 0x40490fdb, v2, 0x40490fdb :: v_dual_mul_f32 v5, 0x40490fdb, v4",
    "v_dual_cndmask_b32 v6, s3, v7 :: v_dual_cndmask_b32 v7, 0x1234567, v6",
    "v_dual_dot2acc_f32_f16 v0, v1, v2 :: v_dual_add_f32 v1, v3, v0",
])
def test_a_dependent_pair_gives_the_reference_engines_bits(text):
    for seed in range(4):
        assert _bound_natively(_compare("gfx1100", text, seed))


def test_a_wave_in_another_float_mode_runs_on_the_reference_engine():
    """Round toward zero, denormals flushed: the handler gives the instruction back, nothing written."""
    text = "v_dual_fmac_f32 v2, v3, v5 :: v_dual_add_f32 v3, v2, v4"
    for mode in (3 << modes.FP_ROUND_SHIFT | modes.DEFAULT_FLOAT_MODE, modes.IEEE):
        _compare("gfx1100", text, 0, mode=mode)


@pytest.mark.parametrize("target", ["gfx1100", "gfx1201"])
def test_every_pair_is_bound_natively(target):
    """One program of every pair, bound (and compiled) as one batch."""
    xs, ys = _operations(target)
    rng = np.random.default_rng(1)
    texts = [_text(rng, x, y, target) for x in xs for y in ys if not {x, y} & REFERENCE_ONLY]
    run = Dispatch(target, 32, vgprs=16)
    code = assemble(run.isa, "\n".join(texts) + "\ns_endpgm\n").data
    run.device.alloc_at(CODE_BASE, code)
    ctx = run.context()
    program = engine.NativeProgram(ctx, CODE_BASE, ctx.memory.find(CODE_BASE).data[:len(code)])
    program.bind(ctx, executor.Program(ctx), [CODE_BASE], forward=True)
    assert program.bound == len(texts) + 1, f"{program.bound - 1} of {len(texts)} pairs bound natively"
