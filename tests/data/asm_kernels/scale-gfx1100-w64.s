// llvm-mc: -mcpu=gfx1100 -mattr=+wavefrontsize64
// A gfx1100 wave64 kernel (VCC is 64 bits, VGPRs count in granules of 4), code object v5.
	.amdgcn_target "amdgcn-amd-amdhsa--gfx1100"
	.amdhsa_code_object_version 5
	.text
	.globl scale
	.p2align 8
	.type scale,@function
scale:                                  // data[gid] *= factor, for gid < n
	s_load_b128 s[4:7], s[0:1], 0x0
	v_lshl_add_u32 v1, s2, 6, v0           // 64 work-items a group
	s_waitcnt lgkmcnt(0)
	v_cmp_gt_u32 vcc, s7, v1
	s_and_saveexec_b64 s[8:9], vcc
	s_cbranch_execz .Lexit
	v_lshlrev_b32 v1, 2, v1
	global_load_b32 v2, v1, s[4:5]
	s_waitcnt vmcnt(0)
	v_mul_f32 v2, s6, v2
	global_store_b32 v1, v2, s[4:5]
.Lexit:
	s_endpgm
.Lscale_end:
	.size scale, .Lscale_end-scale

	.section .rodata,"a",@progbits
	.p2align 6, 0x0
	.amdhsa_kernel scale
		.amdhsa_user_sgpr_kernarg_segment_ptr 1
		.amdhsa_kernarg_size 16
		.amdhsa_next_free_vgpr 9
		.amdhsa_next_free_sgpr 10
		.amdhsa_wavefront_size32 0
		.amdhsa_shared_vgpr_count 2
		.amdhsa_float_round_mode_32 1
	.end_amdhsa_kernel

	.amdgpu_metadata
---
amdhsa.kernels:
  - .args:
      - { .address_space: global, .offset: 0, .size: 8, .value_kind: global_buffer, .name: data }
      - { .offset: 8, .size: 4, .value_kind: by_value, .name: factor, .type_name: float }
      - { .offset: 12, .size: 4, .value_kind: by_value, .name: n }
    .group_segment_fixed_size: 0
    .kernarg_segment_align: 8
    .kernarg_segment_size: 16
    .max_flat_workgroup_size: 1024
    .name:           scale
    .private_segment_fixed_size: 0
    .sgpr_count:     12
    .sgpr_spill_count: 0
    .symbol:         scale.kd
    .uses_dynamic_stack: false
    .vgpr_count:     9
    .vgpr_spill_count: 0
    .wavefront_size: 64
    .workgroup_processor_mode: 1
amdhsa.target:   amdgcn-amd-amdhsa--gfx1100
amdhsa.version:
  - 1
  - 2
...
	.end_amdgpu_metadata
