"""Code objects written from assembly (gpubench.isa.elfwriter, gpubench.isa.amdhsa) against LLVM's.

Each tests/data/asm_kernels/<name>.s was assembled by llvm-mc-22 and linked by ld.lld-22 -shared
into <name>.hsaco (build.sh there; the options are on the source's `// llvm-mc:` line). gpubench
must write the same file, but for the `.comment` section ld.lld adds to name itself: every loaded
byte, every address, every symbol and the metadata note are LLVM's. Nothing here runs LLVM but
the tests marked `llvm`, which check that LLVM's tools read our files and that random
`.amdhsa_kernel` blocks encode as llvm-mc encodes them.
"""
from __future__ import annotations

import functools
import io
import random
import re
import shutil
import subprocess
from pathlib import Path

import pytest
from click.testing import CliRunner
from elftools.elf.elffile import ELFFile

from gpubench.cli import main
from gpubench.isa import amdhsa, hsa_metadata
from gpubench.isa.arch import ISA
from gpubench.isa.asm import AssemblyError, assemble
from gpubench.isa.codeobject import DESCRIPTOR_FIELDS, DESCRIPTOR_SIZE, CodeObject
from gpubench.isa.elfwriter import assemble_code_object

DATA = Path(__file__).resolve().parents[1] / "data" / "asm_kernels"
SOURCES = sorted(p.name for p in DATA.glob("*.s"))
LLVM_MC, LLVM_READELF, LLVM_OBJDUMP = (shutil.which(t) for t in ("llvm-mc-22", "llvm-readelf-22", "llvm-objdump-22"))


def llvm_options(source: str) -> tuple[str, str | None]:
    """-mcpu and -mattr from the source's `// llvm-mc:` line."""
    line = re.search(r"^// llvm-mc: (.*)$", (DATA / source).read_text(), re.MULTILINE).group(1)
    options = dict(option.lstrip("-").split("=", 1) for option in line.split())
    return options["mcpu"], options.get("mattr")


def isa_for(mcpu: str, mattr: str | None) -> ISA:
    return ISA.get(mcpu, 64 if mattr and "+wavefrontsize64" in mattr else None)


@functools.cache
def ours(source: str, synthesize_metadata: bool = False) -> bytes:
    mcpu, mattr = llvm_options(source)
    return assemble_code_object(isa_for(mcpu, mattr), (DATA / source).read_text(), source, mattr,
                                synthesize_metadata)


def llvm(source: str) -> bytes:
    return (DATA / source).with_suffix(".hsaco").read_bytes()


def sections(data: bytes) -> dict:
    elf = ELFFile(io.BytesIO(data))
    return {s.name: (s.header, b"" if s["sh_type"] == "SHT_NOBITS" else s.data()) for s in elf.iter_sections()}


# -- against LLVM's objects --


@pytest.mark.parametrize("source", SOURCES)
def test_loads_like_llvm(source):
    mine, theirs = CodeObject.load(ours(source)), CodeObject.load(llvm(source))
    assert (mine.target_id, mine.code_object_version) == (theirs.target_id, theirs.code_object_version)
    assert mine.metadata == theirs.metadata
    text = {s.name: s.data for s in theirs.sections}[".text"]
    assert {s.name: s.data for s in mine.sections}[".text"] == text
    assert [k.name for k in mine.kernels] == [k.name for k in theirs.kernels]
    for a, b in zip(mine.kernels, theirs.kernels):
        assert mine.read(a.descriptor_address, DESCRIPTOR_SIZE) == theirs.read(b.descriptor_address, DESCRIPTOR_SIZE)
        assert (a.descriptor_address, a.address, a.code, a.metadata) == (b.descriptor_address, b.address, b.code,
                                                                         b.metadata)


@pytest.mark.parametrize("source", SOURCES)
def test_same_file_as_llvm_without_its_comment(source):
    mine, theirs = ours(source), llvm(source)
    # ELF header: all but the section header table's offset, count and string table index.
    assert mine[:0x28] == theirs[:0x28] and mine[0x30:0x3C] == theirs[0x30:0x3C]
    # Program headers and everything loaded, byte for byte.
    loaded_end = max(h["sh_offset"] + len(data) for h, data in sections(theirs).values() if h["sh_flags"] & 2)
    assert mine[0x40:loaded_end] == theirs[0x40:loaded_end]
    # The sections: LLVM's but .comment, in the same order, the same but where .comment shifts them.
    their_sections = {name: s for name, s in sections(theirs).items() if name != ".comment"}
    my_sections = sections(mine)
    assert list(my_sections) == list(their_sections)
    for name, (header, data) in their_sections.items():
        my_header, my_data = my_sections[name]
        if name == ".shstrtab":
            data = data.replace(b".comment\0", b"")
        assert my_data == data, name
        # Where .comment is missing: offsets of the unloaded sections, names in .shstrtab, its
        # size, and the index of .strtab that .symtab links to.
        shifted = {"sh_offset", "sh_name"} | {".shstrtab": {"sh_size"}, ".symtab": {"sh_link"}}.get(name, set())
        assert {k: v for k, v in my_header.items() if k not in shifted} == \
               {k: v for k, v in header.items() if k not in shifted}, name


def test_metadata_synthesized_when_the_source_has_none():
    source = "bare-gfx1100.s"
    mine, theirs = CodeObject.load(ours(source, synthesize_metadata=True)), CodeObject.load(llvm(source))
    assert theirs.metadata == {}  # llvm-mc writes no note
    assert mine.metadata == {
        "amdhsa.kernels": [{
            ".args": [], ".group_segment_fixed_size": 256, ".kernarg_segment_align": 4,
            ".kernarg_segment_size": 8, ".max_flat_workgroup_size": 1024, ".name": "store_id",
            ".private_segment_fixed_size": 0, ".sgpr_count": 8, ".sgpr_spill_count": 0, ".symbol": "store_id.kd",
            ".uses_dynamic_stack": False, ".vgpr_count": 2, ".vgpr_spill_count": 0, ".wavefront_size": 32,
            ".workgroup_processor_mode": 1}],
        "amdhsa.target": "amdgcn-amd-amdhsa--gfx1100",
        "amdhsa.version": [1, 2],
    }
    (a,), (b,) = mine.kernels, theirs.kernels
    descriptor, their_descriptor = (co.read(k.descriptor_address, DESCRIPTOR_SIZE)
                                    for co, k in ((mine, a), (theirs, b)))
    # The note moves the descriptor and the code: only the entry's offset differs.
    entry = slice(amdhsa.ENTRY_OFFSET, amdhsa.ENTRY_OFFSET + 8)
    assert descriptor[:entry.start] + descriptor[entry.stop:] == their_descriptor[:entry.start] + their_descriptor[entry.stop:]
    kernel_symbol = next(s for symbols in mine.section_symbols.values() for s in symbols if s.name == "store_id")
    assert (a.code, a.address) == (b.code, kernel_symbol.address)


GFX942_KERNEL = """
\t.amdgcn_target "amdgcn-amd-amdhsa--gfx942"
\t.text
\t.globl k
\t.p2align 8
\t.type k,@function
k:
\ts_endpgm
\t.rodata
\t.p2align 6
\t.amdhsa_kernel k
\t\t.amdhsa_next_free_vgpr 40
\t\t.amdhsa_next_free_sgpr 20
\t\t.amdhsa_accum_offset 32
\t\t.amdhsa_kernarg_size 20
\t\t.amdhsa_uses_dynamic_stack 1
\t.end_amdhsa_kernel
\t.gpubench_args k
  - { .address_space: global, .offset: 0, .size: 8, .value_kind: global_buffer }
  - { .offset: 8, .size: 16, .value_kind: by_value }
\t.end_gpubench_args
"""


def test_gpubench_args_feed_the_synthesized_metadata():
    (kernel,) = CodeObject.load(assemble_code_object(ISA.get("gfx942"), GFX942_KERNEL)).metadata["amdhsa.kernels"]
    assert kernel[".args"] == [
        {".address_space": "global", ".offset": 0, ".size": 8, ".value_kind": "global_buffer"},
        {".offset": 8, ".size": 16, ".value_kind": "by_value"}]
    assert (kernel[".kernarg_segment_size"], kernel[".kernarg_segment_align"]) == (24, 8)
    # SGPRs: 20 and the 6 gfx9 reserves (VCC, FLAT_SCRATCH, XNACK_MASK); VGPRs from 32 on are AGPRs.
    assert (kernel[".sgpr_count"], kernel[".vgpr_count"], kernel[".agpr_count"]) == (26, 32, 8)
    assert kernel[".uses_dynamic_stack"] is True and ".workgroup_processor_mode" not in kernel


# -- errors, in llvm-mc's words and places --

ERRORS = [  # (target, block lines, llvm-mc's message, line of the error within the block)
    ("gfx1100", [".amdhsa_next_free_vgpr 1"], ".amdhsa_next_free_sgpr directive is required", 1),
    ("gfx1100", [".amdhsa_next_free_vgpr 1", ".amdhsa_next_free_vgpr 2"],
     ".amdhsa_ directives cannot be repeated", 1),
    ("gfx1100", [".amdhsa_next_free_vgpr 513", ".amdhsa_next_free_sgpr 1"], "value out of range", 0),
    ("gfx1100", [".amdhsa_next_free_vgpr 1", ".amdhsa_next_free_sgpr 1", ".amdhsa_vgpr_count 1"],
     "unknown .amdhsa_kernel directive", 2),
    ("gfx1100", [".amdhsa_next_free_vgpr 1", ".amdhsa_next_free_sgpr 1", ".amdhsa_user_sgpr_flat_scratch_init 1"],
     "directive is not supported with architected flat scratch", 2),
    ("gfx1100", [".amdhsa_next_free_vgpr 1", ".amdhsa_next_free_sgpr 1", ".amdhsa_user_sgpr_count 1",
                 ".amdhsa_user_sgpr_kernarg_segment_ptr 1"],
     "amdgpu_user_sgpr_count smaller than than implied by enabled user SGPRs", 4),
    ("gfx1201", [".amdhsa_next_free_vgpr 1", ".amdhsa_next_free_sgpr 1", ".amdhsa_ieee_mode 0"],
     "directive unsupported on gfx12+", 2),
    ("gfx942", [".amdhsa_next_free_vgpr 1", ".amdhsa_next_free_sgpr 1", ".amdhsa_wavefront_size32 1"],
     "directive requires gfx10+", 2),
    ("gfx942", [".amdhsa_next_free_vgpr 1", ".amdhsa_next_free_sgpr 103", ".amdhsa_accum_offset 4"],
     "value out of range", 1),
    ("gfx942", [".amdhsa_next_free_vgpr 4", ".amdhsa_next_free_sgpr 1", ".amdhsa_accum_offset 8"],
     "accum_offset exceeds total VGPR allocation", 3),
    ("gfx950", [".amdhsa_next_free_vgpr 1", ".amdhsa_next_free_sgpr 1"], ".amdhsa_accum_offset directive is required", 2),
    ("gfx950", [".amdhsa_next_free_vgpr 1", ".amdhsa_next_free_sgpr 1", ".amdhsa_accum_offset 4",
                ".amdhsa_workgroup_processor_mode 1"], "directive unsupported on gfx950", 3),
]


def kernel_source(target: str, block: list[str]) -> str:
    return "\n".join([f'\t.amdgcn_target "amdgcn-amd-amdhsa--{target}"', "\t.text", "\t.globl k", "k:",
                      "\ts_endpgm", "\t.rodata", "\t.amdhsa_kernel k"] + ["\t\t" + line for line in block]
                     + ["\t.end_amdhsa_kernel", ""])


BLOCK_START = 7  # the line of `.amdhsa_kernel` in kernel_source


@pytest.mark.parametrize("target,block,message,line", ERRORS, ids=[e[2] for e in ERRORS])
def test_errors_as_llvm_mc_reports_them(target, block, message, line):
    with pytest.raises(AssemblyError) as caught:
        assemble(ISA.get(target), kernel_source(target, block), "k.s")
    assert (caught.value.message, caught.value.line_number) == (message, BLOCK_START + 1 + line)


@pytest.mark.llvm
@pytest.mark.skipif(LLVM_MC is None, reason="needs llvm-mc-22")
@pytest.mark.parametrize("target,block,message,line", ERRORS, ids=[e[2] for e in ERRORS])
def test_errors_are_llvm_mcs(tmp_path, target, block, message, line):
    """The same `file:line:column: error: message` line as llvm-mc's."""
    path = tmp_path / "k.s"
    path.write_text(kernel_source(target, block))
    result = subprocess.run([LLVM_MC, "-triple=amdgcn-amd-amdhsa", f"-mcpu={target}", "-filetype=obj", str(path),
                             "-o", str(tmp_path / "k.o")], capture_output=True, text=True, check=False)
    with pytest.raises(AssemblyError) as caught:
        assemble(ISA.get(target), path.read_text(), str(path))
    assert str(caught.value).splitlines()[0] == result.stderr.splitlines()[0]


# Directive values are expressions; these are llvm-mc-22's values for them (GNU precedence: `&`
# binds tighter than `+`; `/` truncates; a leading 0 is octal).
EXPRESSIONS = [("3 + 1 & 1", 4), ("2 * 3 | 1", 7), ("1 << 2 + 1", 5), ("-7 / 2 + 10", 7), ("(3+1)&1", 0),
               ("10 % 4 * 3", 6), ("7 - 2 - 1", 4), ("010", 8), ("0x10", 16), ("~0 & 255", 255)]


@pytest.mark.parametrize("text,value", EXPRESSIONS)
def test_directive_values_are_llvm_mc_expressions(text, value):
    assert amdhsa.evaluate(text, amdhsa.Place(1, 1)) == value


def test_writer_errors():
    source = kernel_source("gfx942", [".amdhsa_next_free_vgpr 1", ".amdhsa_next_free_sgpr 1",
                                      ".amdhsa_accum_offset 4", ".amdhsa_reserve_xnack_mask 0"])
    with pytest.raises(AssemblyError, match="reserve_xnack_mask does not match target id"):
        assemble_code_object(ISA.get("gfx942"), source)  # XNACK "any" reserves the mask
    assert assemble_code_object(ISA.get("gfx942"), source.replace("gfx942", "gfx942:xnack-"), mattr="-xnack")
    with pytest.raises(AssemblyError, match="target id amdgcn-amd-amdhsa--gfx942 does not match"):
        assemble_code_object(ISA.get("gfx942"), source, mattr="-xnack")
    with pytest.raises(AssemblyError, match="invalid HSA metadata"):
        assemble(ISA.get("gfx1100"), ".amdgpu_metadata\namdhsa.version: [1]\n.end_amdgpu_metadata\n")
    with pytest.raises(AssemblyError, match="no .end_amdhsa_kernel"):
        assemble(ISA.get("gfx1100"), ".amdhsa_kernel k\n.amdhsa_next_free_vgpr 1\n")


# -- metadata as LLVM reads and writes it --

# LLVM's typing of YAML scalars (llvm-mc-22 -> llvm-readelf-22): by the text, quoted or not.
SCALARS = [("'123'", 123), ("-0x10", -16), ("017", 15), ("0b101", 5), ("1.5", 1.5), ("+7", 7.0), ("''", 0.0),
           ("true", True), ("True", "True"), ("yes", "yes"), ("1_000", "1_000"), ("18446744073709551615", 2**64 - 1)]


@pytest.mark.parametrize("text,value", SCALARS)
def test_yaml_scalars_typed_as_llvm_types_them(text, value):
    typed = hsa_metadata.from_yaml(f"key: {text}")["key"]
    assert typed == value and type(typed) is type(value)


def test_msgpack_as_llvm_writes_it():
    assert hsa_metadata.to_msgpack({"b": 1, "a": [-1, 200, 70000]}) == bytes.fromhex("82a16193ffccc8ce00011170a16201")
    assert hsa_metadata.to_msgpack(0.1) == bytes.fromhex("ca3dcccccd")  # narrowed to float32, as LLVM does
    assert hsa_metadata.to_msgpack(1e300)[:1] == b"\xcb" and hsa_metadata.to_msgpack("x" * 40)[:2] == b"\xd9\x28"


# -- the command line --


def test_cli_writes_the_code_object(tmp_path):
    source, output = DATA / "accum-gfx942.s", tmp_path / "k.hsaco"
    result = CliRunner().invoke(main, ["asm", "-mcpu=gfx942", "-mattr=+xnack", "-filetype=obj", "-o", str(output),
                                       str(source)])
    assert result.exit_code == 0, result.output
    assert output.read_bytes() == ours("accum-gfx942.s", synthesize_metadata=True)


def test_cli_echoes_blocks_as_written():
    result = CliRunner().invoke(main, ["asm", "-mcpu=gfx1201", str(DATA / "saxpy-gfx1201.s")])
    assert result.exit_code == 0, result.output
    assert "\t.amdhsa_kernel saxpy\n\t\t.amdhsa_user_sgpr_count 2\n" in result.output


# -- LLVM's tools on our files --


@pytest.mark.llvm
@pytest.mark.skipif(LLVM_READELF is None or LLVM_OBJDUMP is None, reason="needs llvm-readelf-22 and llvm-objdump-22")
@pytest.mark.parametrize("source", SOURCES)
def test_llvm_tools_read_our_files(tmp_path, source):
    def run(tool: str, *args: str, data: bytes) -> str:
        path = tmp_path / "k.hsaco"  # one name, so that llvm-objdump's headers agree
        path.write_bytes(data)
        result = subprocess.run([tool, *args, str(path)], capture_output=True, text=True, check=False)
        assert result.returncode == 0 and not result.stderr, result.stderr
        return result.stdout

    # What `gpubench asm --filetype=obj` writes (metadata synthesized where the source has none).
    run(LLVM_READELF, "-a", "-W", "--notes", data=ours(source, synthesize_metadata=True))
    run(LLVM_OBJDUMP, "-d", data=ours(source, synthesize_metadata=True))
    assert run(LLVM_OBJDUMP, "-d", data=ours(source)) == run(LLVM_OBJDUMP, "-d", data=llvm(source))


def random_block(rng: random.Random, isa: ISA) -> list[str]:
    """A mostly valid `.amdhsa_kernel` block for isa: some of the directives it accepts, with values
    that mostly fit their fields."""
    lines = []
    for name in rng.sample([n for n in amdhsa.FIELD_DIRECTIVES if isa.arch not in amdhsa.UNAVAILABLE.get(n, {})],
                           rng.randint(0, 12)):
        register, field_name = amdhsa.FIELD_DIRECTIVES[name]
        width = next(w for r, f, _, w, archs in DESCRIPTOR_FIELDS if (r, f) == (register, field_name) and isa.arch in archs)
        top = amdhsa.MAX_KERNARG_PRELOAD if name == ".amdhsa_user_sgpr_kernarg_preload_length" else (1 << width) - 1
        lines.append(f"{name} {rng.choice([0, 1, rng.randint(0, top), rng.randint(0, top)])}")
    for name in rng.sample(list(amdhsa.SEGMENT_SIZES), rng.randint(0, 3)):
        lines.append(f"{name} {rng.choice([0, 16, 65536, 1 << 20])}")
    if rng.random() < 0.3:
        lines.append(f".amdhsa_reserve_vcc {rng.randint(0, 1)}")
    if rng.random() < 0.2:
        lines.append(f".amdhsa_user_sgpr_count {rng.randint(0, 31)}")
    vgprs = rng.randint(0, 256 if isa.arch == "rdna3" and isa.wave_size == 64 else 512)
    lines += [f".amdhsa_next_free_vgpr {vgprs}", f".amdhsa_next_free_sgpr {rng.randint(0, 102)}"]
    if isa.arch == "cdna":
        lines.append(f".amdhsa_accum_offset {rng.randrange(4, max(-(-vgprs // 4) * 4, 4) + 1, 4)}")
    rng.shuffle(lines)
    return lines


@pytest.mark.llvm
@pytest.mark.skipif(LLVM_MC is None, reason="needs llvm-mc-22")
@pytest.mark.parametrize("target,wave", [("gfx1100", 32), ("gfx1100", 64), ("gfx1201", 32), ("gfx942", 64),
                                         ("gfx950", 64)])
def test_random_descriptors_match_llvm_mc(tmp_path, target, wave):
    rng = random.Random(f"{target}/{wave}")
    isa = ISA.get(target, wave)
    mattr = ["-mattr=+wavefrontsize64"] if wave == 64 and isa.arch != "cdna" else []
    for _ in range(20):
        source = kernel_source(target, random_block(rng, isa))
        (tmp_path / "k.s").write_text(source)
        result = subprocess.run([LLVM_MC, "-triple=amdgcn-amd-amdhsa", f"-mcpu={target}", *mattr, "-filetype=obj",
                                 str(tmp_path / "k.s"), "-o", str(tmp_path / "k.o")], capture_output=True, text=True, check=False)
        try:
            block = next(line.block for line in assemble(isa, source).lines if line.kind == "block")
        except AssemblyError as e:
            assert f"error: {e.message}" in result.stderr, source
            continue
        assert result.returncode == 0, source + result.stderr
        rodata = ELFFile(io.BytesIO((tmp_path / "k.o").read_bytes())).get_section_by_name(".rodata").data()
        assert block.descriptor == rodata, source
