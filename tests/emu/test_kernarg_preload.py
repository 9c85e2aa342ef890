"""Kernel arguments preloaded into SGPRs (gfx942/gfx950, KERNARG_PRELOAD_SPEC_*): the CP puts the
first dwords of the kernarg segment after the user SGPRs and starts 256 bytes into the code, past
the prologue that loads them for firmware without preloading (here an s_trap: reaching it fails)."""
from __future__ import annotations

import numpy as np
import pytest

import gpubench
from gpubench.isa.arch import ISA
from gpubench.isa.elfwriter import assemble_code_object

SOURCE = """
	.amdgcn_target "amdgcn-amd-amdhsa--{target}"
	.amdhsa_code_object_version 5
	.text
	.globl scale
	.p2align 8
	.type scale,@function
scale:
	s_trap 2
	.p2align 8
	v_mul_u32_u24 v1, s4, v0
	v_lshlrev_b32 v2, 2, v0
	global_store_dword v2, v1, s[2:3]
	s_endpgm
.Lscale_end:
	.size scale, .Lscale_end-scale

	.rodata
	.p2align 6
	.amdhsa_kernel scale
		.amdhsa_user_sgpr_kernarg_segment_ptr 1
		.amdhsa_user_sgpr_kernarg_preload_length 3
		.amdhsa_user_sgpr_kernarg_preload_offset 0
		.amdhsa_kernarg_size 12
		.amdhsa_next_free_vgpr 8
		.amdhsa_next_free_sgpr 5
		.amdhsa_accum_offset 4
	.end_amdhsa_kernel

	.amdgpu_metadata
---
amdhsa.kernels:
  - .args:
      - {{ .address_space: global, .offset: 0, .size: 8, .value_kind: global_buffer }}
      - {{ .offset: 8, .size: 4, .value_kind: by_value }}
    .group_segment_fixed_size: 0
    .kernarg_segment_align: 8
    .kernarg_segment_size: 12
    .max_flat_workgroup_size: 1024
    .name:           scale
    .private_segment_fixed_size: 0
    .sgpr_count:     5
    .symbol:         scale.kd
    .vgpr_count:     8
    .wavefront_size: 64
amdhsa.target:   'amdgcn-amd-amdhsa--{target}'
amdhsa.version:
  - 1
  - 2
...
	.end_amdgpu_metadata
"""


@pytest.mark.parametrize("target", ["gfx942", "gfx950"])
def test_preloaded_arguments_arrive_in_sgprs_and_the_prologue_is_skipped(target):
    code = assemble_code_object(ISA.get(target, 64), SOURCE.format(target=target))
    dev = gpubench.Device(target)
    out = dev.alloc(4 * 64)
    dev.load(code)["scale"](grid=(1,), block=(64,), args=(out, 3))
    assert (dev.to_host(out, np.uint32) == 3 * np.arange(64)).all()
