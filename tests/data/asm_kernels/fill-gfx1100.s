// llvm-mc: -mcpu=gfx1100
// Four gfx1100 wave32 kernels in one object (eight exported symbols: ld.lld's .gnu.hash then has
// two buckets and reorders .dynsym), with metadata, read-only data next to the descriptors, a
// local helper function, local labels (named and .L), a forward branch and the default code
// object version (6).
	.amdgcn_target "amdgcn-amd-amdhsa--gfx1100"
	.text
	.globl fill
	.p2align 8
	.type fill,@function
fill:                                   // out[gid] = value, 64 work-items a group
	s_load_b64 s[4:5], s[0:1], 0x0
	s_load_b32 s6, s[0:1], 0x8
	v_lshlrev_b32 v1, 2, v0
	s_lshl_b32 s7, s2, 8                    // the workgroup ID follows the 2 user SGPRs
	v_add_nc_u32 v1, s7, v1
	s_waitcnt lgkmcnt(0)
	v_mov_b32 v2, s6
	global_store_b32 v1, v2, s[4:5]
	s_endpgm
.Lfill_end:
	.size fill, .Lfill_end-fill

	.globl count
	.p2align 8
	.type count,@function
count:                                  // *out = n, counted down to zero in a loop
	s_load_b32 s2, s[0:1], 0x8
	s_mov_b32 s3, 0
	s_waitcnt lgkmcnt(0)
	s_cmp_eq_u32 s2, 0
	s_cbranch_scc1 done
loop:
	s_add_u32 s3, s3, 1
	s_sub_u32 s2, s2, 1
	s_cmp_lg_u32 s2, 0
	s_cbranch_scc1 loop
done:
	s_load_b64 s[4:5], s[0:1], 0x0
	v_mov_b32 v0, 0
	v_mov_b32 v1, s3
	s_waitcnt lgkmcnt(0)
	global_store_b32 v0, v1, s[4:5]
	s_endpgm
.Lcount_end:
	.size count, .Lcount_end-count

	.globl copy
	.p2align 8
	.type copy,@function
copy:                                   // out[tid] = in[tid], through LDS
	s_load_b128 s[4:7], s[0:1], 0x0
	v_lshlrev_b32 v1, 2, v0
	s_waitcnt lgkmcnt(0)
	global_load_b32 v2, v1, s[4:5]
	s_waitcnt vmcnt(0)
	ds_store_b32 v1, v2
	s_waitcnt lgkmcnt(0)
	s_barrier
	ds_load_b32 v3, v1
	s_waitcnt lgkmcnt(0)
	global_store_b32 v1, v3, s[6:7]
	s_endpgm
.Lcopy_end:
	.size copy, .Lcopy_end-copy

	.globl idle
	.p2align 8
	.type idle,@function
idle:
	s_getpc_b64 s[30:31]
	s_endpgm
.Lidle_end:
	.size idle, .Lidle_end-idle

	.p2align 2
	.type helper,@function
helper:                                 // not a kernel: a local function
	s_setpc_b64 s[30:31]
.Lhelper_end:
	.size helper, .Lhelper_end-helper

	.rodata
	.type table,@object
table:
	.long 1, 2, 3
	.size table, 12
	.p2align 6
	.amdhsa_kernel fill
		.amdhsa_user_sgpr_count 2
		.amdhsa_user_sgpr_kernarg_segment_ptr 1
		.amdhsa_kernarg_size 12
		.amdhsa_next_free_vgpr 3
		.amdhsa_next_free_sgpr 16
		.amdhsa_reserve_vcc 0
		.amdhsa_inst_pref_size 1
	.end_amdhsa_kernel
	.amdhsa_kernel count
		.amdhsa_user_sgpr_kernarg_segment_ptr 1
		.amdhsa_kernarg_size 12
		.amdhsa_next_free_vgpr 2
		.amdhsa_next_free_sgpr 6
		.amdhsa_float_denorm_mode_32 3
		.amdhsa_system_sgpr_workgroup_id_x 0
	.end_amdhsa_kernel
	.amdhsa_kernel copy
		.amdhsa_user_sgpr_kernarg_segment_ptr 1
		.amdhsa_user_sgpr_dispatch_ptr 1
		.amdhsa_kernarg_size 16
		.amdhsa_group_segment_fixed_size 1024
		.amdhsa_next_free_vgpr 4
		.amdhsa_next_free_sgpr 8
		.amdhsa_system_vgpr_workitem_id 2
		.amdhsa_system_sgpr_workgroup_id_y 1
		.amdhsa_workgroup_processor_mode 0
		.amdhsa_memory_ordered 1
		.amdhsa_shared_vgpr_count 0
	.end_amdhsa_kernel
	.amdhsa_kernel idle
		.amdhsa_next_free_vgpr 0
		.amdhsa_next_free_sgpr 32
		.amdhsa_private_segment_fixed_size 64
		.amdhsa_enable_private_segment 1
		.amdhsa_uses_dynamic_stack 1
		.amdhsa_exception_fp_ieee_div_zero 1
		.amdhsa_forward_progress 0
	.end_amdhsa_kernel

	.amdgpu_metadata
---
amdhsa.kernels:
  - .args:
      - { .address_space: global, .offset: 0, .size: 8, .value_kind: global_buffer, .name: out }
      - { .offset: 8, .size: 4, .value_kind: by_value, .name: value }
    .group_segment_fixed_size: 0
    .kernarg_segment_align: 8
    .kernarg_segment_size: 12
    .max_flat_workgroup_size: 256
    .name:           fill
    .private_segment_fixed_size: 0
    .sgpr_count:     16
    .symbol:         fill.kd
    .vgpr_count:     3
    .wavefront_size: 32
  - .args:
      - { .address_space: global, .offset: 0, .size: 8, .value_kind: global_buffer }
      - { .offset: 8, .size: 4, .value_kind: by_value }
    .group_segment_fixed_size: 0
    .kernarg_segment_align: 8
    .kernarg_segment_size: 12
    .max_flat_workgroup_size: 64
    .name:           count
    .private_segment_fixed_size: 0
    .sgpr_count:     8
    .symbol:         count.kd
    .vgpr_count:     2
    .wavefront_size: 32
  - .args:
      - { .address_space: global, .offset: 0, .size: 8, .value_kind: global_buffer, .is_const: true }
      - { .address_space: global, .offset: 8, .size: 8, .value_kind: global_buffer }
    .group_segment_fixed_size: 1024
    .kernarg_segment_align: 8
    .kernarg_segment_size: 16
    .max_flat_workgroup_size: 256
    .name:           copy
    .private_segment_fixed_size: 0
    .sgpr_count:     10
    .symbol:         copy.kd
    .vgpr_count:     4
    .wavefront_size: 32
    .workgroup_processor_mode: 0
  - .args:           []
    .group_segment_fixed_size: 0
    .kernarg_segment_align: 4
    .kernarg_segment_size: 0
    .max_flat_workgroup_size: 1024
    .name:           idle
    .private_segment_fixed_size: 64
    .sgpr_count:     34
    .symbol:         idle.kd
    .uses_dynamic_stack: true
    .vgpr_count:     0
    .wavefront_size: 32
amdhsa.target:   amdgcn-amd-amdhsa--gfx1100
amdhsa.version:
  - 1
  - 2
...
	.end_amdgpu_metadata
