// llvm-mc: -mcpu=gfx1201
// A gfx1201 (RDNA4) wave32 kernel: no DX10_CLAMP or IEEE_MODE bits, the split wait counters,
// round-robin scheduling and an 8-bit instruction prefetch size.
	.amdgcn_target "amdgcn-amd-amdhsa--gfx1201"
	.text
	.globl saxpy
	.p2align 8
	.type saxpy,@function
saxpy:                                  // y[gid] = a * x[gid] + y[gid]
	s_load_b128 s[4:7], s[0:1], 0x0
	s_load_b32 s8, s[0:1], 0x10
	v_lshl_add_u32 v0, ttmp9, 5, v0
	v_lshlrev_b32 v0, 2, v0
	s_wait_kmcnt 0x0
	global_load_b32 v1, v0, s[4:5]
	global_load_b32 v2, v0, s[6:7]
	s_wait_loadcnt 0x0
	v_fmac_f32 v2, s8, v1
	global_store_b32 v0, v2, s[6:7]
	s_endpgm
.Lsaxpy_end:
	.size saxpy, .Lsaxpy_end-saxpy

	.rodata
	.p2align 6
	.amdhsa_kernel saxpy
		.amdhsa_user_sgpr_count 2
		.amdhsa_user_sgpr_kernarg_segment_ptr 1
		.amdhsa_kernarg_size 20
		.amdhsa_next_free_vgpr 3
		.amdhsa_next_free_sgpr 9
		.amdhsa_round_robin_scheduling 1
		.amdhsa_inst_pref_size 130
		.amdhsa_fp16_overflow 1
		.amdhsa_float_denorm_mode_32 3
	.end_amdhsa_kernel

	.amdgpu_metadata
---
amdhsa.kernels:
  - .args:
      - { .address_space: global, .offset: 0, .size: 8, .value_kind: global_buffer, .actual_access: read_only }
      - { .address_space: global, .offset: 8, .size: 8, .value_kind: global_buffer }
      - { .offset: 16, .size: 4, .value_kind: by_value }
    .group_segment_fixed_size: 0
    .kernarg_segment_align: 8
    .kernarg_segment_size: 20
    .max_flat_workgroup_size: 1024
    .name:           saxpy
    .private_segment_fixed_size: 0
    .sgpr_count:     11
    .sgpr_spill_count: 0
    .symbol:         saxpy.kd
    .uniform_work_group_size: 1
    .uses_dynamic_stack: false
    .vgpr_count:     3
    .vgpr_spill_count: 0
    .wavefront_size: 32
    .workgroup_processor_mode: 1
amdhsa.target:   amdgcn-amd-amdhsa--gfx1201
amdhsa.version:
  - 1
  - 2
...
	.end_amdgpu_metadata
