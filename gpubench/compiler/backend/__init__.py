"""The fast backend: AMD pseudocode compiled to vectorized numpy functions, one per instruction.

    op = compile_instruction("rdna3", "VOP2Op", "V_ADD_F32_E32")
    op.reads, op.writes          # ('S0', 'S1'), ('D0',)
    op(S0=a, S1=b)               # {'D0': uint32 array}: bit for bit what the reference evaluator gives
    op.fn(n, *arrays)            # the raw function for the emulator's hot loop (see CompiledOp)
    print(op.source)             # the generated Python, with the pcode in its docstring

Semantics are those of ``gpubench.compiler.pcode.evaluator``; the tests compare the two on every ALU
instruction. Constructs the backend does not compile raise BackendUnsupported at compile time.

What the emulator needs to know to call an op (one call runs all n elements: lanes x waves for a VALU
instruction, waves for a SALU one):
  - ``op.inputs`` / ``op.outputs`` are PortSpecs in call / return order. A port is named as the pcode
    names the state (S0, D0, SCC, VCC, laneId, SIMM16, OPSEL ...; record fields flattened as
    WAVE_MODE_IEEE). Arrays: bool for flags and lane bits, uint32 / uint64 for registers of up to 32 /
    64 bits (a 64-bit operand is its register pair, low dword in the low bits), (n, width/32) uint32
    words for wider ones. Wave-uniform inputs (SIMM16, OPSEL, mode bits) may be np.broadcast_to views.
  - A ``lane_bit`` port is this lane's bit of a wave mask (``VCC.u64[laneId]``): gather
    ``(mask >> lane) & 1`` before the call, and scatter an output back into the mask's bit.
  - A port that is both input and output is written only on some lanes or bits (``D0.f16 = ...``
    keeps D0's high half, ``if SCC then D0 = ...``): pass the old value; the output is the merged one.
  - Outputs may share memory with inputs. Call ``fn`` inside ``np.errstate(all="ignore")``.
  - A few of the manual's texts read constants it never defines (UNDERFLOW_F32, DENORM) on rare lanes
    (V_DIV_FIXUP_F32 for quotients far below the denormals): a call raises UndefinedState naming
    the lanes if any lane reaches one; the evaluator fails on exactly those lanes. The tables
    ``compile_instruction`` reads have them replaced (gpubench/isa/corrections.py).
  - Not the backend's job: EXEC masking, operand modifiers (abs/neg/clamp/omod, opsel halves), DPP and
    SDWA, register-file and cross-lane access (V_READLANE, V_MOVREL*, permlanes), memory. The rounding
    mode is round-to-nearest-even unless the pcode itself sets ROUND_MODE (V_CVT_PK_RTZ_F16_F32).
"""
from gpubench.compiler.backend.cache import (
    clear_memory_cache,
    compile_instruction,
    compile_text,
    compiler_fingerprint,
)
from gpubench.compiler.backend.compiled import CompiledOp
from gpubench.compiler.backend.operands import BackendUnsupported
from gpubench.compiler.backend.ports import PortSpec
from gpubench.compiler.backend.runtime import UndefinedState

__all__ = [
    "BackendUnsupported",
    "CompiledOp",
    "PortSpec",
    "UndefinedState",
    "clear_memory_cache",
    "compile_instruction",
    "compile_text",
    "compiler_fingerprint",
]
