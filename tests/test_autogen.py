"""`python -m autogen` reproduces the committed tables byte for byte (when the spec data is here)."""
import pytest

from autogen.__main__ import main
from autogen.spec import spec_dir


@pytest.mark.skipif(not (spec_dir() / "rdna3.json").exists(), reason="AMD spec data (../shared/isa-spec) not present")
def test_generated_tables_are_up_to_date():
    assert main(["--check"]) == 0


def test_every_allowed_opcode_has_a_definition():
    from gpubench.isa.arch import ISA
    for target in ("gfx1100", "gfx1201", "gfx950"):
        isa = ISA.get(target)
        names = {i.name for i in isa.instructions}
        for fmt in isa.formats.values():
            allowed = fmt.allowed - isa.target.missing
            assert allowed <= names, (target, fmt.name, sorted(allowed - names)[:5])
