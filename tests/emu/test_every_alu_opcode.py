"""Every gfx1100 SALU/VALU opcode whose semantics come from pseudocode: the emulator against the reference
evaluator (gpubench.compiler.pcode), one instruction on one wave32 with random registers, lane by lane.
The whole sweep takes ~20 s on 2 cores, so it runs by default."""
import pytest
from alu_sweep import TARGET, Case, Unreferenced, candidates

from gpubench.emu import coverage
from gpubench.isa.arch import ISA

ISA_ = ISA.get(TARGET, 32)
ALL = candidates(ISA_)
SALU = ("SOP1", "SOP2", "SOPC", "SOPK")

# Known emulator bugs (strict: a fix makes these XPASS), name -> reason
XFAIL: dict[str, str] = {}


def _params(names):
    return [pytest.param(n, marks=[pytest.mark.xfail(strict=True, reason=XFAIL[n])] if n in XFAIL else [], id=n)
            for n in names]


def _check(name: str) -> None:
    idef = next(d for d in ALL if d.name == name)
    case = Case.of(ISA_, idef)
    # a VALU run checks 32 lanes; a SALU one checks one value, so SALU opcodes run several times
    trials = 16 if coverage.family_of(idef) in SALU else 1
    for trial in range(trials):
        try:
            mismatch = case.compare(seed=sum(map(ord, name)) * 100 + trial)
        except Unreferenced as e:
            pytest.skip(str(e))
        assert mismatch is None, f"{coverage.family_of(idef)} {name} (trial {trial}): {mismatch}"


@pytest.mark.parametrize("name", _params(sorted(d.name for d in ALL)))
def test_alu_opcode_matches_reference(name):
    _check(name)
