"""The native engine against the reference engine, bit for bit: every gfx1100 SALU/VALU opcode as one
instruction on random registers (EXEC partly off, so masking shows), and every HIP kernel case of
tests/kernels on every target it is built for: registers, SCC, PC and memory, and the statistics a
user reads (wave-instructions, lane-operations)."""
import numpy as np
import pytest
from alu_sweep import TARGET, WAVE, Case, candidates
from asm_dispatch import CODE_BASE, Dispatch
from kernel_runner import cases, run_case

from gpubench.emu import executor
from gpubench.emu.native import engine
from gpubench.emu.waves import EXEC_LO, VCC_LO
from gpubench.isa.arch import ISA
from gpubench.isa.asm import assemble

ISA_ = ISA.get(TARGET, WAVE)
OPCODES = sorted(d.name for d in candidates(ISA_))
MIN_NATIVE_OPCODES = 872  # of the sweep's 879 opcodes bound to native handlers (875; 873 before the 65-bit
# mads ran on i128, 857 before v_exp/log/sin/cos)


def _state(case: Case, seed: int, exec_mask: int = 0xF0FF_7FFD, wave: int = WAVE) -> Dispatch:
    """One wave at the case's instruction, random registers; by default EXEC has lanes off at both
    ends and in the middle."""
    rng = np.random.default_rng(seed)
    run = Dispatch(TARGET, wave, vgprs=32)
    run.vgpr[0] = rng.integers(0, 1 << 32, run.vgpr.shape[1:], dtype=np.uint64).astype(np.uint32)
    run.sgpr[0, :32] = rng.integers(0, 1 << 32, 32, dtype=np.uint64).astype(np.uint32)
    run.sgpr[0, VCC_LO] = rng.integers(0, 1 << 32)
    run.sgpr[0, EXEC_LO] = exec_mask & 0xFFFF_FFFF
    if wave == 64:
        run.sgpr[0, EXEC_LO + 1] = exec_mask >> 32
    run.waves.scc[0] = rng.integers(0, 2)
    code = case.inst_bytes() + assemble(run.isa, "s_endpgm\n").data
    run.device.alloc_at(CODE_BASE, code)
    run.waves.pc[:] = CODE_BASE
    return run


def _run(case: Case, seed: int, native: bool, **state) -> tuple:
    run = _state(case, seed, **state)
    ctx = run.context()
    try:
        (engine.run if native else executor.run)(ctx, executor.Watchdog())
    except executor.ExecutionError as err:
        return ("error", type(err).__name__)
    w = ctx.waves
    return (w.vgpr.copy(), w.sgpr.copy(), w.scc.copy(), w.pc.copy(), w.state.copy(),
            ctx.stats["wave_instructions"], ctx.stats["lane_operations"])


@pytest.mark.parametrize("name", OPCODES)
def test_an_opcode_gives_the_reference_engines_bits(name):
    case = Case.of(ISA_, next(d for d in candidates(ISA_) if d.name == name))
    for seed in range(3):
        expected, got = _run(case, seed, native=False), _run(case, seed, native=True)
        if isinstance(expected[0], str):
            assert got == expected
            continue
        for what, a, b in zip(("vgpr", "sgpr", "scc", "pc", "state", "wave-instructions", "lane-operations"),
                              expected, got, strict=True):
            assert np.array_equal(a, b), f"{name} seed {seed}: {what} differs"


TRANSCENDENTALS = [n for n in OPCODES if n.split("_")[1] in ("EXP", "LOG", "SIN", "COS")]


@pytest.mark.parametrize("wave", [32, 64])
@pytest.mark.parametrize("name", TRANSCENDENTALS)
def test_transcendentals_under_any_exec(name, wave):
    """numpy's loop runs once over the active lanes, packed: none, the first or the last alone, a
    tail off, alternate lanes, all."""
    case = Case.of(ISA_, next(d for d in candidates(ISA_) if d.name == name))
    full = (1 << wave) - 1
    for seed, exec_mask in enumerate((0, 1, 1 << (wave - 1), full >> 3, 0x5555_5555_5555_5555 & full, full)):
        expected, got = (_run(case, seed, native, exec_mask=exec_mask, wave=wave) for native in (False, True))
        for what, a, b in zip(("vgpr", "sgpr", "lane-operations"), expected[:2] + expected[6:], got[:2] + got[6:],
                              strict=True):
            assert np.array_equal(a, b), f"{name} wave{wave} EXEC {exec_mask:#x}: {what} differs"


def test_most_opcodes_run_natively():
    """Every opcode of the sweep in one program, bound (and compiled) as one batch."""
    run = Dispatch(TARGET, WAVE, vgprs=32)
    code = b"".join(Case.of(ISA_, d).inst_bytes() for d in candidates(ISA_)) + assemble(run.isa, "s_endpgm\n").data
    run.device.alloc_at(CODE_BASE, code)
    ctx = run.context()
    program = engine.NativeProgram(ctx, CODE_BASE, ctx.memory.find(CODE_BASE).data[:len(code)])
    program.bind(ctx, executor.Program(ctx), [CODE_BASE], forward=True)
    assert program.bound >= MIN_NATIVE_OPCODES, f"only {program.bound} of {len(OPCODES)} opcodes bound natively"


PAIRS = [(name, variant) for name, case in cases.CASES.items() if case.expect == "ok"
         for variant in cases.VARIANTS if variant in case.variants]


@pytest.mark.parametrize("name,variant", PAIRS)
def test_a_kernel_gives_the_reference_engines_bits(name, variant, monkeypatch):
    case = cases.CASES[name]
    results = {}
    for which in ("reference", "native"):
        monkeypatch.setenv("GPUBENCH_ENGINE", which)
        _, _, outputs, stats = run_case(case, variant, watchdog=executor.Watchdog(max_seconds=120))
        results[which] = ({k: v.view(np.uint8) for k, v in outputs.items()}, stats.wave_instructions,
                          stats.lane_operations)
    (expected, *stats), (got, *native_stats) = results["reference"], results["native"]
    for buffer in expected:
        assert np.array_equal(expected[buffer], got[buffer]), f"{name} on {variant}: {buffer} differs"
    assert native_stats == stats
