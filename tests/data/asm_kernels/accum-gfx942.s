// llvm-mc: -mcpu=gfx942 -mattr=+xnack
// A gfx942 kernel for the target ID gfx942:xnack+ (e_flags XNACK on, SRAMECC any), code object
// v5: AGPRs after .amdhsa_accum_offset in the unified register file, kernel arguments preloaded
// into SGPRs (which raises the SGPR count to the user SGPRs), TG_SPLIT.
	.amdgcn_target "amdgcn-amd-amdhsa--gfx942:xnack+"
	.amdhsa_code_object_version 5
	.text
	.globl accum
	.p2align 8
	.type accum,@function
accum:                                  // out[tid] = tid + bias, through an AGPR
	v_add_u32 v1, s4, v0
	v_accvgpr_write_b32 a0, v1
	v_lshlrev_b32 v2, 2, v0
	v_accvgpr_read_b32 v3, a0
	global_store_dword v2, v3, s[2:3]
	s_endpgm
.Laccum_end:
	.size accum, .Laccum_end-accum

	.rodata
	.p2align 6
	.amdhsa_kernel accum
		.amdhsa_user_sgpr_kernarg_segment_ptr 1
		.amdhsa_user_sgpr_kernarg_preload_length 3
		.amdhsa_user_sgpr_kernarg_preload_offset 0
		.amdhsa_kernarg_size 12
		.amdhsa_next_free_vgpr 12
		.amdhsa_next_free_sgpr 5
		.amdhsa_accum_offset 8
		.amdhsa_reserve_xnack_mask 1
		.amdhsa_tg_split 1
		.amdhsa_dx10_clamp 0
	.end_amdhsa_kernel

	.amdgpu_metadata
---
amdhsa.kernels:
  - .agpr_count:     4
    .args:
      - { .address_space: global, .offset: 0, .size: 8, .value_kind: global_buffer }
      - { .offset: 8, .size: 4, .value_kind: by_value }
    .group_segment_fixed_size: 0
    .kernarg_segment_align: 8
    .kernarg_segment_size: 12
    .max_flat_workgroup_size: 1024
    .name:           accum
    .private_segment_fixed_size: 0
    .sgpr_count:     11
    .sgpr_spill_count: 0
    .symbol:         accum.kd
    .uses_dynamic_stack: false
    .vgpr_count:     8
    .vgpr_spill_count: 0
    .wavefront_size: 64
amdhsa.target:   'amdgcn-amd-amdhsa--gfx942:xnack+'
amdhsa.version:
  - 1
  - 2
...
	.end_amdgpu_metadata
