"""Code objects: metadata and descriptors against LLVM's facts, disassembly against llvm-objdump-22 -d.

The objects, their sources and LLVM's outputs are in tests/data/codeobjects (rebuilt by build.sh
there); nothing here runs LLVM except the test marked `llvm`. Every listing line must equal LLVM's.
"""
from __future__ import annotations

from pathlib import Path

import pytest

from gpubench.isa.codeobject import CodeObject, CodeObjectError, KernelDescriptor, TargetId, objdump

DATA = Path(__file__).resolve().parents[1] / "data" / "codeobjects"

# (object, expected llvm-objdump output, wave size override). The wave64 object twice: by its
# descriptors (= llvm-objdump --mattr=+wavefrontsize64) and as plain llvm-objdump -d decodes it.
DUMPS = [
    ("saxpy-gfx1100.hsaco", "saxpy-gfx1100.objdump", None),
    ("saxpy-gfx1100-w64.hsaco", "saxpy-gfx1100-w64.objdump", None),
    ("saxpy-gfx1100-w64.hsaco", "saxpy-gfx1100-w64.wave32.objdump", 32),
    ("saxpy-gfx1201.hsaco", "saxpy-gfx1201.objdump", None),
    ("saxpy-gfx942.hsaco", "saxpy-gfx942.objdump", None),
    ("saxpy-gfx950.hsaco", "saxpy-gfx950.objdump", None),
    ("branches-gfx1100.hsaco", "branches-gfx1100.objdump", None),
]

# From `llvm-readelf-22 --notes` (<object>.notes) and `llvm-readelf-22 -h`:
# object -> (amdhsa.target, code object version, {kernel: (kernarg size, group segment,
# private segment, wavefront size, sgpr_count, vgpr_count)}).
NOTES = {
    "saxpy-gfx1100.hsaco": ("amdgcn-amd-amdhsa--gfx1100", 6, {
        "saxpy": (28, 0, 0, 32, 18, 4), "reverse64": (8, 256, 0, 32, 18, 5)}),
    "saxpy-gfx1100-w64.hsaco": ("amdgcn-amd-amdhsa--gfx1100", 6, {
        "saxpy": (28, 0, 0, 64, 10, 4), "reverse64": (8, 256, 0, 64, 5, 5)}),
    "saxpy-gfx1201.hsaco": ("amdgcn-amd-amdhsa--gfx1201", 6, {
        "saxpy": (28, 0, 0, 32, 10, 4), "reverse64": (8, 256, 0, 32, 4, 4)}),
    "saxpy-gfx942.hsaco": ("amdgcn-amd-amdhsa--gfx942:xnack+", 5, {
        "saxpy": (28, 0, 0, 64, 14, 6), "reverse64": (8, 256, 0, 64, 9, 5)}),
    "saxpy-gfx950.hsaco": ("amdgcn-amd-amdhsa--gfx950", 4, {
        "saxpy": (28, 0, 0, 64, 14, 6), "reverse64": (8, 256, 0, 64, 9, 5)}),
    "branches-gfx1100.hsaco": ("amdgcn-amd-amdhsa--gfx1100", 6, {
        "count_down": (8, 128, 16, 32, 4, 1)}),
}

# From `llvm-readelf-22 -s`: kernel -> (function address, function size, descriptor address).
SYMBOLS = {
    "saxpy-gfx1100.hsaco": {"saxpy": (0x1800, 144, 0x780), "reverse64": (0x1900, 112, 0x7C0)},
    "saxpy-gfx1100-w64.hsaco": {"saxpy": (0x1800, 148, 0x780), "reverse64": (0x1900, 112, 0x7C0)},
    "saxpy-gfx1201.hsaco": {"saxpy": (0x1800, 156, 0x780), "reverse64": (0x1900, 120, 0x7C0)},
    "saxpy-gfx942.hsaco": {"saxpy": (0x1800, 116, 0x780), "reverse64": (0x1900, 88, 0x7C0)},
    "saxpy-gfx950.hsaco": {"saxpy": (0x1800, 116, 0x700), "reverse64": (0x1900, 88, 0x740)},
    "branches-gfx1100.hsaco": {"count_down": (0x1500, 60, 0x440)},
}

# From llvm-objdump-22's own decoding of the descriptors (`-D -j .rodata`, `.amdhsa_*` lines),
# written as our field names: object -> kernel -> {field: value}.
DESCRIPTOR_FACTS = {
    "saxpy-gfx1100.hsaco": {
        "saxpy": {"INST_PREF_SIZE": 2, "ENABLE_DX10_CLAMP": 1, "ENABLE_IEEE_MODE": 1, "FWD_PROGRESS": 1,
                  "ENABLE_SGPR_WORKGROUP_ID_X": 1, "ENABLE_SGPR_KERNARG_SEGMENT_PTR": 1,
                  "ENABLE_WAVEFRONT_SIZE32": 1, "ENABLE_PRIVATE_SEGMENT": 0},
        "reverse64": {"INST_PREF_SIZE": 1, "ENABLE_WAVEFRONT_SIZE32": 1}},
    "saxpy-gfx1100-w64.hsaco": {"saxpy": {"INST_PREF_SIZE": 2, "ENABLE_WAVEFRONT_SIZE32": 0}},
    "saxpy-gfx1201.hsaco": {"saxpy": {"INST_PREF_SIZE": 2, "FWD_PROGRESS": 1, "ENABLE_WAVEFRONT_SIZE32": 1}},
    # .amdhsa_accum_offset 8: the field holds accum_offset / 4 - 1.
    "saxpy-gfx942.hsaco": {"saxpy": {"ACCUM_OFFSET": 1, "TG_SPLIT": 0, "ENABLE_DX10_CLAMP": 1,
                                     "ENABLE_SGPR_KERNARG_SEGMENT_PTR": 1}},
    "saxpy-gfx950.hsaco": {"reverse64": {"ACCUM_OFFSET": 1, "ENABLE_SGPR_WORKGROUP_ID_X": 1}},
    "branches-gfx1100.hsaco": {"count_down": {"INST_PREF_SIZE": 0, "ENABLE_SGPR_WORKGROUP_ID_X": 1,
                                              "ENABLE_SGPR_KERNARG_SEGMENT_PTR": 1, "ENABLE_WAVEFRONT_SIZE32": 1}},
}


def load(name: str) -> CodeObject:
    return CodeObject.load(DATA / name, name=name)


def our_and_llvm_lines(obj: str, expected: str, wave: int | None) -> tuple[list[str], list[str]]:
    ours = objdump(DATA / obj, name=obj, wave_size=wave)  # named as build.sh ran llvm-objdump
    return ours.splitlines(), (DATA / expected).read_text().splitlines()


# -- disassembly --


@pytest.mark.parametrize("obj,expected,wave", DUMPS, ids=[e for _, e, _ in DUMPS])
def test_listing_equals_llvm_objdump(obj, expected, wave):
    ours, llvm = our_and_llvm_lines(obj, expected, wave)
    for number, (our, their) in enumerate(zip(ours, llvm), 1):
        assert our == their, f"line {number}"
    assert len(ours) == len(llvm)


def test_bytes_are_named_stdin():
    data = (DATA / "branches-gfx1100.hsaco").read_bytes()
    assert objdump(data).startswith("\n<stdin>:\tfile format elf64-amdgpu\n\nDisassembly of section .text:\n")


def test_branch_to_plain_label_is_named_not_annotated():
    # The loop's backward branch (`s_cbranch_scc1 65532` in llvm-mc's text) is named by `loop`, an
    # STT_NOTYPE symbol, in the operand, and then has no ` <loop>` annotation.
    kernel = load("branches-gfx1100.hsaco").kernels[0]
    branch = next(d for d in kernel.instructions if d.address == 0x1524)
    assert (branch.text, branch.target, branch.label) == ("s_cbranch_scc1 loop", 0x1518, "loop")


# -- target, metadata, descriptors --


@pytest.mark.parametrize("obj", NOTES)
def test_target_and_metadata(obj):
    target, version, kernels = NOTES[obj]
    code = load(obj)
    assert f"amdgcn-amd-amdhsa--{code.target_id}" == target == code.metadata["amdhsa.target"]
    assert code.code_object_version == version
    assert code.target == target.split("--")[1].split(":")[0]
    found = {}
    for k in code.kernels:
        found[k.name] = (k.descriptor.kernarg_size, k.descriptor.group_segment_fixed_size,
                         k.descriptor.private_segment_fixed_size, k.wave_size,
                         k.metadata[".sgpr_count"], k.metadata[".vgpr_count"])
        assert k.metadata[".kernarg_segment_size"] == k.descriptor.kernarg_size
        assert k.metadata[".wavefront_size"] == k.wave_size
    assert found == kernels


@pytest.mark.parametrize("obj", SYMBOLS)
def test_kernel_code(obj):
    code = load(obj)
    for kernel in code.kernels:
        address, size, descriptor_address = SYMBOLS[obj][kernel.name]
        assert (kernel.address, kernel.size, kernel.descriptor_address) == (address, size, descriptor_address)
        assert kernel.symbol == kernel.name + ".kd"
        assert kernel.code == code.read(address, size)
        assert b"".join(d.data for d in kernel.instructions) == kernel.code
        # Every word decodes, but the one branches.s puts there as data (`.long` for llvm-objdump).
        undecodable = [(d.address, d.data, d.text) for d in kernel.instructions if d.inst is None]
        assert undecodable == ([(0x1534, b"\xff" * 4, None)] if kernel.name == "count_down" else [])


@pytest.mark.parametrize("obj", DESCRIPTOR_FACTS)
def test_descriptor_fields(obj):
    kernels = {k.name: k for k in load(obj).kernels}
    for name, facts in DESCRIPTOR_FACTS[obj].items():
        assert {f: kernels[name].descriptor[f] for f in facts} == facts


def test_descriptor_fields_follow_the_generation():
    raw = bytes(44) + (1 << 16).to_bytes(4, "little") + (1 << 21 | 1 << 29).to_bytes(4, "little") + bytes(16)
    cdna, rdna3, rdna4 = (KernelDescriptor.parse(raw, arch) for arch in ("cdna", "rdna3", "rdna4"))
    assert cdna["TG_SPLIT"] == 1 and "WGP_MODE" not in cdna.fields()["compute_pgm_rsrc1"]
    assert rdna3["ENABLE_DX10_CLAMP"] == 1 and rdna3["WGP_MODE"] == 1 and rdna3["INST_PREF_SIZE"] == 0
    assert rdna4["ENABLE_WG_RR_EN"] == 1 and "ENABLE_DX10_CLAMP" not in rdna4.fields()["compute_pgm_rsrc1"]
    assert cdna.wave_size == 64 and rdna3.wave_size == 64


@pytest.mark.parametrize("flags,text,xnack,sramecc", [
    (0x041, "gfx1100", None, None),
    (0x54C, "gfx942", "any", "any"),
    (0x74C, "gfx942:xnack+", "on", "any"),
    (0xB4C, "gfx942:sramecc-:xnack+", "on", "off"),
    (0x04E, "gfx1201", None, None),
])
def test_target_id_from_flags(flags, text, xnack, sramecc):
    target = TargetId.from_flags(flags)
    assert (str(target), target.xnack, target.sramecc) == (text, xnack, sramecc)


def test_generic_version():
    assert TargetId.from_flags(0x1000054) == TargetId("gfx11-generic", None, None, 1)


def with_flags(e_flags: int) -> bytes:
    data = bytearray((DATA / "saxpy-gfx1100.hsaco").read_bytes())
    data[48:52] = e_flags.to_bytes(4, "little")  # e_flags in the ELF64 header
    return bytes(data)


def test_target_without_tables_is_an_error():
    with pytest.raises(CodeObjectError, match="for gfx90a, which gpubench has no instruction tables"):
        CodeObject.load(with_flags(0x03F))


def test_unknown_machine_is_an_error():
    with pytest.raises(CodeObjectError, match="unknown EF_AMDGPU_MACH 0x07f"):
        CodeObject.load(with_flags(0x07F))


def test_not_amdgpu_is_an_error():
    data = bytearray((DATA / "saxpy-gfx1100.hsaco").read_bytes())
    data[18:20] = (62).to_bytes(2, "little")  # e_machine: EM_X86_64
    with pytest.raises(CodeObjectError, match="not an AMDGPU ELF"):
        CodeObject.load(bytes(data))
