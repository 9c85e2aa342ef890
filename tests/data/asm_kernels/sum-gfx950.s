// llvm-mc: -mcpu=gfx950
// A gfx950 kernel as code object v4 (metadata version 1.1), XNACK and SRAMECC "any".
	.amdgcn_target "amdgcn-amd-amdhsa--gfx950"
	.amdhsa_code_object_version 4
	.text
	.globl sum
	.p2align 8
	.type sum,@function
sum:                                    // out[0] = a + b
	s_load_dwordx4 s[4:7], s[0:1], 0x0
	v_mov_b32 v0, 0
	s_waitcnt lgkmcnt(0)
	s_add_u32 s6, s6, s7
	v_mov_b32 v1, s6
	global_store_dword v0, v1, s[4:5]
	s_endpgm
.Lsum_end:
	.size sum, .Lsum_end-sum

	.rodata
	.p2align 6
	.amdhsa_kernel sum
		.amdhsa_user_sgpr_kernarg_segment_ptr 1
		.amdhsa_user_sgpr_dispatch_id 1
		.amdhsa_kernarg_size 16
		.amdhsa_next_free_vgpr 2
		.amdhsa_next_free_sgpr 8
		.amdhsa_accum_offset 4
		.amdhsa_reserve_vcc 0
		.amdhsa_ieee_mode 0
		.amdhsa_exception_int_div_zero 1
	.end_amdhsa_kernel

	.amdgpu_metadata
---
amdhsa.kernels:
  - .agpr_count:     0
    .args:
      - { .address_space: global, .offset: 0, .size: 8, .value_kind: global_buffer }
      - { .offset: 8, .size: 4, .value_kind: by_value }
      - { .offset: 12, .size: 4, .value_kind: by_value }
    .group_segment_fixed_size: 0
    .kernarg_segment_align: 8
    .kernarg_segment_size: 16
    .max_flat_workgroup_size: 1024
    .name:           sum
    .private_segment_fixed_size: 0
    .sgpr_count:     14
    .sgpr_spill_count: 0
    .symbol:         sum.kd
    .vgpr_count:     2
    .vgpr_spill_count: 0
    .wavefront_size: 64
amdhsa.target:   amdgcn-amd-amdhsa--gfx950
amdhsa.version:
  - 1
  - 1
...
	.end_amdgpu_metadata
