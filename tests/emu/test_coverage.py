"""`gpubench isa coverage`: semantics sources per instruction, the executed record, the command."""
import json

import pytest
from asm_dispatch import Dispatch
from click.testing import CliRunner

from gpubench.cli import main
from gpubench.emu import coverage, graphics_only
from gpubench.emu.context import ExecutionError
from gpubench.isa.arch import ISA


@pytest.fixture(scope="module")
def gfx1100():
    return {e.name: e for e in coverage.coverage("gfx1100")}


@pytest.mark.parametrize("name,source", [
    ("V_ADD_F32_E32", "pseudocode"), ("V_ADD_F32_E64", "pseudocode"), ("S_ADD_U32", "pseudocode"),
    ("V_DUAL_ADD_F32", "pseudocode"),  # VOPD halves: compiled pseudocode
    ("DS_ADD_U32", "manual"), ("GLOBAL_LOAD_B32", "manual"), ("S_ENDPGM", "manual"),
    ("V_DIV_FIXUP_F32", "pseudocode+correction"), ("V_SIN_F32_E64", "pseudocode+correction"),  # corrections.py
    ("S_GETREG_B32", "manual"),  # a handler that models some hardware registers
    ("IMAGE_SAMPLE", "unimplemented"), ("V_INTERP_P10_F32", "pseudocode+correction"),
    ("V_CVT_PK_U8_F32", "pseudocode+correction"),  # f32_to_u8's rounding is a correction (issue 12)
    ("V_TRIG_PREOP_F64", "pseudocode+correction"),
    ("TBUFFER_LOAD_FORMAT_X", "manual"),  # buffer_format.py
])
def test_known_instructions_land_in_their_category(gfx1100, name, source):
    assert gfx1100[name].source == source


def test_every_instruction_of_the_target_is_listed_once_per_opcode(gfx1100):
    isa = ISA.get("gfx1100")
    entries = coverage.coverage("gfx1100")
    assert len(entries) == len(isa.instructions)
    assert {e.source for e in entries} <= set(coverage.SOURCES)
    assert {e.category for e in entries} <= set(coverage.CATEGORIES)
    assert gfx1100["V_ADD_F32_E32"].family == "VOP2" and gfx1100["DS_ADD_U32"].family == "DS"


def test_executed_record_loads_and_names_known_instructions():
    record = coverage.load_record()
    assert record is not None, "tests/emu/executed.json is missing: run python tools/coverage_record.py"
    assert {"gfx1100", "gfx942"} <= set(record)
    for target, names in record.items():
        assert names <= {i.name for i in ISA.get(target).instructions}, target
    assert {"S_ENDPGM", "V_ADD_F32_E32", "DS_ADD_U32"} <= record["gfx1100"]


def test_executed_instructions_have_semantics(gfx1100):
    assert gfx1100["S_ENDPGM"].executed is True
    assert gfx1100["IMAGE_SAMPLE"].executed is False
    assert not [e.name for e in gfx1100.values() if e.executed and e.source == "unimplemented"]


@pytest.mark.parametrize("target", ["gfx1100", "gfx942"])
def test_command_prints_a_table(target):
    result = CliRunner().invoke(main, ["isa", "coverage", "--mcpu", target])
    assert result.exit_code == 0, result.output
    assert "VOP1" in result.output and "total" in result.output
    assert "VALU opcodes executed by tests" in result.output and "SALU opcodes executed" in result.output


def test_command_lists_every_instruction():
    result = CliRunner().invoke(main, ["isa", "coverage", "--mcpu", "gfx1100", "--list"])
    assert result.exit_code == 0, result.output
    lines = [line.split() for line in result.output.splitlines() if len(line.split()) == 4]
    assert ["VOP2", "V_ADD_F32_E32", "pseudocode", "executed"] in lines
    assert len([line for line in lines if line[0] != "family"]) == len(ISA.get("gfx1100").instructions)


@pytest.mark.parametrize("target", ["gfx1100", "gfx942"])
def test_command_json_is_well_formed(target):
    result = CliRunner().invoke(main, ["isa", "coverage", "--mcpu", target, "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    assert data["target"] == target
    assert len(data["instructions"]) == len(ISA.get(target).instructions)
    first = data["instructions"][0]
    assert set(first) == {"name", "family", "source", "executed", "graphics_only"}
    summary = data["summary"]
    assert summary["total"]["instructions"] == sum(f["instructions"] for f in summary["families"].values())
    assert summary["total"]["instructions"] == sum(summary["total"][s] for s in coverage.CATEGORIES)
    assert summary["total"]["graphics-only"] == sum(summary["graphics-only"].values())
    assert 0 < summary["VALU"]["share"] < 1 and 0 < summary["SALU"]["share"] < 1


@pytest.mark.parametrize("name,group", [
    ("IMAGE_SAMPLE", "images and samplers"), ("IMAGE_LOAD", "images and samplers"), ("EXP", "exports"),
    ("IMAGE_BVH_INTERSECT_RAY", "ray tracing"), ("DS_BVH_STACK_RTN_B32", "ray tracing"), ("DS_GWS_INIT", "GWS"),
    ("DS_ORDERED_COUNT", "ordered counters"), ("DS_ADD_GS_REG_RTN", "GS registers"),
    ("LDS_PARAM_LOAD", "pixel parameter loads"), ("S_ENDPGM_ORDERED_PS_DONE", "ordered pixel shading"),
])
def test_graphics_pipeline_instructions_are_counted_apart(gfx1100, name, group):
    entry = gfx1100[name]
    assert (entry.source, entry.graphics_only, entry.category) == ("unimplemented", group, "graphics-only")


def test_emulated_and_compute_instructions_are_not_graphics_only(gfx1100):
    assert gfx1100["DS_ADD_U32"].graphics_only is None and gfx1100["DS_ADD_U32"].category == "manual"
    assert gfx1100["GLOBAL_LOAD_B32"].graphics_only is None
    # every unemulated gfx1100 instruction outside the graphics pipeline is a compute one still to do
    assert {e.name for e in gfx1100.values() if e.category == "unimplemented"} <= {
        "S_SUBVECTOR_LOOP_BEGIN", "S_SUBVECTOR_LOOP_END"}


def test_every_graphics_only_rule_names_instructions_of_some_target():
    matched = {rule.what for target in ("gfx1100", "gfx1201", "gfx942", "gfx950")
               for e in coverage.coverage(target) for rule in graphics_only.RULES if rule.matches(e.family, e.name)}
    assert matched == {rule.what for rule in graphics_only.RULES}


def test_summary_line_separates_compute_from_graphics_only():
    result = CliRunner().invoke(main, ["isa", "coverage", "--mcpu", "gfx1100"])
    line = next(line for line in result.output.splitlines() if line.startswith("unemulated compute:"))
    total = next(line.split() for line in result.output.splitlines() if line.startswith("total"))
    compute, graphics = int(total[5]), int(total[6])
    assert line.startswith(f"unemulated compute: {compute}; graphics-only, not emulated: {graphics} (")
    assert "images and samplers 82" in line and "exports 1" in line


def test_a_graphics_only_instruction_stops_a_kernel_saying_so():
    with pytest.raises(ExecutionError, match=r"IMAGE_LOAD \(MIMG\): graphics-only \(images and samplers: "):
        Dispatch("gfx1100")("image_load v[0:3], v4, s[0:7] dmask:0xf dim:SQ_RSRC_IMG_1D")
    with pytest.raises(ExecutionError, match=r"no semantics for S_SUBVECTOR_LOOP_BEGIN \(SOPK\)$"):
        Dispatch("gfx1100")("s_subvector_loop_begin s0, 0x4")
