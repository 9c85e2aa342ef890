"""AMDGPU code object metadata (the NT_AMDGPU_METADATA note, code object v4-v6) as LLVM handles it.

- `from_yaml`: YAML text -> the document llvm-mc makes of a `.amdgpu_metadata` block, scalars
  typed as LLVM types them (`typed_node`); `valid_document` checks it as LLVM's MetadataVerifier
  does (llvm-mc then reports "invalid HSA metadata").
- `to_msgpack`: the document -> the note's bytes, as LLVM's msgpack writer writes them.
- `synthesized`: the metadata of kernels whose source has none.

Facts from AMDGPUUsage ("Code Object V3 Metadata" onwards) and from llvm-mc-22 and llvm-readelf-22
themselves (tests/isa/test_codeobject_writer.py).
"""
from __future__ import annotations

import re
import struct
from typing import TYPE_CHECKING

import yaml

if TYPE_CHECKING:
    from gpubench.isa.amdhsa import KernelBlock

# ---------------------------------------------------------------------------------------------
# YAML, as LLVM reads it


def from_yaml(text: str):
    """The document of a YAML text (None when empty); ValueError when it is no YAML."""
    try:
        node = yaml.compose(text)
    except yaml.YAMLError as e:
        raise ValueError(str(e)) from None
    return typed_node(node) if node is not None else None


def typed_node(node: yaml.Node):
    """A YAML node as LLVM's msgpack::Document::fromYAML types it.

    LLVM guesses every scalar's type from its text alone, quoted or not: an unsigned integer, else a
    signed one (C literals: 0x, 0b, 0o and a leading 0 for octal), else `true`/`false`, else a
    float as strtod reads it (so an empty string is 0.0), else a string. YAML tags are not read."""
    if isinstance(node, yaml.MappingNode):
        return {typed_node(k): typed_node(v) for k, v in node.value}
    if isinstance(node, yaml.SequenceNode):
        return [typed_node(item) for item in node.value]
    return _guess_scalar(node.value)


_UNSIGNED = re.compile(r"0[xX]([0-9a-fA-F]+)|0[bB]([01]+)|0[oO]([0-7]+)|0([0-7]+)|([0-9]+)")
_FLOAT = re.compile(r"\s*[+-]?(([0-9]+\.?[0-9]*|\.[0-9]+)(e[+-]?[0-9]+)?|inf(inity)?|nan)", re.IGNORECASE)
_HEX_FLOAT = re.compile(r"\s*[+-]?0x([0-9a-f]+\.?[0-9a-f]*|\.[0-9a-f]+)(p[+-]?[0-9]+)?", re.IGNORECASE)


def _unsigned(text: str) -> int | None:
    m = _UNSIGNED.fullmatch(text)
    if not m:
        return None
    base = (16, 2, 8, 8, 10)[m.lastindex - 1]
    value = int(m.group(m.lastindex), base)
    return value if value < 1 << 64 else None


def _guess_scalar(text: str):
    value = _unsigned(text)
    if value is not None:
        return value
    if text.startswith("-") and (value := _unsigned(text[1:])) is not None and value <= 1 << 63:
        return -value
    if text in ("true", "false"):
        return text == "true"
    if not text:
        return 0.0  # strtod converts nothing and stops at the end: LLVM takes that as 0.0
    if _FLOAT.fullmatch(text):
        return float(text)
    if _HEX_FLOAT.fullmatch(text):
        return float.fromhex(text.strip())
    return text


# The shape LLVM's verifier accepts. A schema is a type name, an enumeration (a set of strings),
# ("array", item schema, length or None) or {key: (schema, required)}; keys it does not name pass.
_ACCESS = {"read_only", "write_only", "read_write"}
ARG_SCHEMA = {
    ".name": ("string", False), ".type_name": ("string", False), ".size": ("integer", True),
    ".offset": ("integer", True),
    ".value_kind": ({"by_value", "global_buffer", "dynamic_shared_pointer", "sampler", "image", "pipe", "queue",
                     "hidden_block_count_x", "hidden_block_count_y", "hidden_block_count_z",
                     "hidden_group_size_x", "hidden_group_size_y", "hidden_group_size_z",
                     "hidden_remainder_x", "hidden_remainder_y", "hidden_remainder_z",
                     "hidden_global_offset_x", "hidden_global_offset_y", "hidden_global_offset_z",
                     "hidden_grid_dims", "hidden_none", "hidden_printf_buffer", "hidden_hostcall_buffer",
                     "hidden_heap_v1", "hidden_default_queue", "hidden_completion_action",
                     "hidden_multigrid_sync_arg", "hidden_dynamic_lds_size", "hidden_private_base",
                     "hidden_shared_base", "hidden_queue_ptr"}, True),
    ".pointee_align": ("integer", False),
    ".address_space": ({"private", "global", "constant", "local", "generic", "region"}, False),
    ".access": (_ACCESS, False), ".actual_access": (_ACCESS, False), ".is_const": ("boolean", False),
    ".is_restrict": ("boolean", False), ".is_volatile": ("boolean", False), ".is_pipe": ("boolean", False),
}
_XYZ = ("array", "integer", 3)
KERNEL_SCHEMA = {
    ".name": ("string", True), ".symbol": ("string", True),
    ".language": ({"OpenCL C", "OpenCL C++", "HCC", "HIP", "OpenMP", "Assembler"}, False),
    ".language_version": (("array", "integer", 2), False), ".args": (("array", ARG_SCHEMA, None), False),
    ".reqd_workgroup_size": (_XYZ, False), ".workgroup_size_hint": (_XYZ, False),
    ".vec_type_hint": ("string", False), ".device_enqueue_symbol": ("string", False),
    ".kernarg_segment_size": ("integer", True), ".group_segment_fixed_size": ("integer", True),
    ".private_segment_fixed_size": ("integer", True), ".uses_dynamic_stack": ("boolean", False),
    ".workgroup_processor_mode": ("integer", False), ".kernarg_segment_align": ("integer", True),
    ".wavefront_size": ("integer", True), ".sgpr_count": ("integer", True), ".vgpr_count": ("integer", True),
    ".max_flat_workgroup_size": ("integer", True), ".sgpr_spill_count": ("integer", False),
    ".vgpr_spill_count": ("integer", False), ".uniform_work_group_size": ("integer", False),
    ".cluster_dims": (_XYZ, False),
}
ROOT_SCHEMA = {
    "amdhsa.version": (("array", "integer", 2), True),
    "amdhsa.printf": (("array", "string", None), False),
    "amdhsa.globals": (("array", {".name": ("string", True), ".size": ("integer", True)}, None), False),
    "amdhsa.kernels": (("array", KERNEL_SCHEMA, None), True),
}


def valid_document(document) -> bool:
    return _valid(document, ROOT_SCHEMA)


def valid_args(args) -> bool:
    return _valid(args, ("array", ARG_SCHEMA, None))


def _valid(value, schema) -> bool:
    if schema == "integer":
        return isinstance(value, int) and not isinstance(value, bool)
    if schema == "boolean":
        return isinstance(value, bool)
    if schema == "string":
        return isinstance(value, str)
    if isinstance(schema, set):
        return isinstance(value, str) and value in schema
    if isinstance(schema, tuple):  # an array
        _, item, length = schema
        return isinstance(value, list) and length in (None, len(value)) and all(_valid(v, item) for v in value)
    return isinstance(value, dict) and all(
        (_valid(value[key], entry) if key in value else not required) for key, (entry, required) in schema.items())


# ---------------------------------------------------------------------------------------------
# MessagePack, as LLVM writes it


def to_msgpack(value) -> bytes:
    """MessagePack as LLVM's msgpack::Writer writes it: map keys sorted (msgpack::Document keeps
    maps ordered; AMDGPU metadata's keys are strings, compared bytewise), the shortest integer
    forms, str8 for 32-255 bytes, and a double as float32 whenever its magnitude is within
    float32's normal range (LLVM narrows it, precision or not)."""
    if isinstance(value, bool):
        return b"\xc3" if value else b"\xc2"
    if isinstance(value, int):
        return _msgpack_int(value)
    if isinstance(value, float):
        if 1.1754943508222875e-38 <= abs(value) <= 3.4028234663852886e38:
            return b"\xca" + struct.pack(">f", value)
        return b"\xcb" + struct.pack(">d", value)
    if isinstance(value, str):
        data = value.encode()
        return _msgpack_length(len(data), 0xA0, 31, (0xD9, 0xDA, 0xDB)) + data
    if isinstance(value, list):
        return _msgpack_length(len(value), 0x90, 15, (None, 0xDC, 0xDD)) + b"".join(map(to_msgpack, value))
    items = sorted(value.items(), key=lambda item: str(item[0]).encode())
    return _msgpack_length(len(items), 0x80, 15, (None, 0xDE, 0xDF)) + b"".join(
        to_msgpack(k) + to_msgpack(v) for k, v in items)


def _msgpack_int(value: int) -> bytes:
    if value >= 0:
        if value < 0x80:
            return bytes([value])
        for code, fmt, limit in ((0xCC, ">B", 1 << 8), (0xCD, ">H", 1 << 16), (0xCE, ">I", 1 << 32)):
            if value < limit:
                return bytes([code]) + struct.pack(fmt, value)
        return b"\xcf" + struct.pack(">Q", value)
    if value >= -32:
        return struct.pack(">b", value)
    for code, fmt, limit in ((0xD0, ">b", 1 << 7), (0xD1, ">h", 1 << 15), (0xD2, ">i", 1 << 31)):
        if value >= -limit:
            return bytes([code]) + struct.pack(fmt, value)
    return b"\xd3" + struct.pack(">q", value)


def _msgpack_length(length: int, fix: int, fix_max: int, codes: tuple) -> bytes:
    if length <= fix_max:
        return bytes([fix | length])
    code8, code16, code32 = codes
    if code8 is not None and length < 1 << 8:
        return bytes([code8, length])
    return bytes([code16]) + struct.pack(">H", length) if length < 1 << 16 else bytes([code32]) + struct.pack(">I", length)


# ---------------------------------------------------------------------------------------------
# Metadata for a source that has none

METADATA_VERSIONS = {4: [1, 1], 5: [1, 2], 6: [1, 2]}  # code object version -> amdhsa.version
DEFAULT_MAX_FLAT_WORKGROUP_SIZE = 1024  # LLVM's when a kernel names no amdgpu-flat-work-group-size


def synthesized(kernels: list[KernelBlock], args: dict[str, list], target: str, arch: str, version: int) -> dict:
    """The metadata LLVM's compiler would write for these kernels, from their descriptors.

    llvm-mc writes no metadata note unless the source has a `.amdgpu_metadata` block, and a code
    object without one cannot be loaded; so gpubench writes what clang would for a kernel with the
    same descriptor: the keys of its code object version (`.uses_dynamic_stack` from v5, and
    `.workgroup_processor_mode` on gfx10+), `.sgpr_count` with the reserved SGPRs as LLVM counts
    them, `.max_flat_workgroup_size` 1024, no spills, and `.args` from the kernel's
    `.gpubench_args` block (`[]` without one, as clang writes for a kernel without arguments).
    `.kernarg_segment_size` is `.amdhsa_kernarg_size`, or the end of the last argument when that
    is larger; `.kernarg_segment_align` is the largest alignment an argument's offset and size
    allow, at least 4 and at most 16 (clang: the arguments' largest ABI alignment, at least 4).
    On gfx90a+ the registers from `.amdhsa_accum_offset` on count as AGPRs.
    """
    entries = []
    for kernel in kernels:
        kd = kernel.decoded(arch)
        kernel_args = args.get(kernel.name, [])
        arg_end = max((a[".offset"] + a[".size"] for a in kernel_args), default=0)
        entry = {
            ".args": kernel_args, ".name": kernel.name, ".symbol": f"{kernel.name}.kd",
            ".kernarg_segment_size": max(kd.kernarg_size, arg_end),
            ".kernarg_segment_align": max([4] + [_alignment(a[".offset"] | a[".size"]) for a in kernel_args]),
            ".group_segment_fixed_size": kd.group_segment_fixed_size,
            ".private_segment_fixed_size": kd.private_segment_fixed_size,
            ".wavefront_size": kd.wave_size, ".sgpr_count": kernel.sgpr_count, ".vgpr_count": kernel.vgpr_count,
            ".max_flat_workgroup_size": DEFAULT_MAX_FLAT_WORKGROUP_SIZE,
            ".sgpr_spill_count": 0, ".vgpr_spill_count": 0,
        }
        if kernel.agpr_count is not None:
            entry[".agpr_count"] = kernel.agpr_count
        if version >= 5:
            entry[".uses_dynamic_stack"] = bool(kd["USES_DYNAMIC_STACK"])
            if arch != "cdna":
                entry[".workgroup_processor_mode"] = kd["WGP_MODE"]
        entries.append(entry)
    return {"amdhsa.kernels": entries, "amdhsa.target": target, "amdhsa.version": METADATA_VERSIONS[version]}


def _alignment(value: int) -> int:
    """The largest power of two, up to 16, that divides value (16 for 0)."""
    return min(value & -value, 16) if value else 16
