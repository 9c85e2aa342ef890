// out[i] = in[63 - i] for 64 work-items (one workgroup, two wave32 waves), through LDS.
// Planted bug: the mirrored LDS index is computed as 64 - i, one past the end for i = 0.
	.amdgcn_target "amdgcn-amd-amdhsa--gfx1100"
	.text
	.globl reverse
	.p2align 8
	.type reverse,@function
reverse:
	s_load_b128 s[4:7], s[0:1], 0x0
	v_lshlrev_b32 v1, 2, v0
	s_waitcnt lgkmcnt(0)
	global_load_b32 v2, v1, s[4:5]
	s_waitcnt vmcnt(0)
	ds_store_b32 v1, v2
	s_waitcnt lgkmcnt(0)
	s_barrier
mirror:
	v_sub_nc_u32 v3, 64, v0
	v_lshlrev_b32 v3, 2, v3
	ds_load_b32 v4, v3
	s_waitcnt lgkmcnt(0)
	global_store_b32 v1, v4, s[6:7]
	s_endpgm
.Lreverse_end:
	.size reverse, .Lreverse_end-reverse

	.rodata
	.p2align 6
	.amdhsa_kernel reverse
		.amdhsa_user_sgpr_kernarg_segment_ptr 1
		.amdhsa_kernarg_size 16
		.amdhsa_group_segment_fixed_size 256
		.amdhsa_next_free_vgpr 5
		.amdhsa_next_free_sgpr 8
	.end_amdhsa_kernel

	.amdgpu_metadata
---
amdhsa.kernels:
  - .args:
      - { .address_space: global, .offset: 0, .size: 8, .value_kind: global_buffer, .name: in }
      - { .address_space: global, .offset: 8, .size: 8, .value_kind: global_buffer, .name: out }
    .group_segment_fixed_size: 256
    .kernarg_segment_align: 8
    .kernarg_segment_size: 16
    .max_flat_workgroup_size: 64
    .name:           reverse
    .private_segment_fixed_size: 0
    .sgpr_count:     8
    .symbol:         reverse.kd
    .vgpr_count:     5
    .wavefront_size: 32
amdhsa.target:   amdgcn-amd-amdhsa--gfx1100
amdhsa.version:
  - 1
  - 2
...
	.end_amdgpu_metadata
