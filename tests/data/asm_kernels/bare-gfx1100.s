// llvm-mc: -mcpu=gfx1100
// A hand-written kernel with no .amdgpu_metadata: llvm-mc writes no metadata note for it, and
// gpubench writes the one clang would (amdhsa.synthesized_metadata).
	.amdgcn_target "amdgcn-amd-amdhsa--gfx1100"
	.amdhsa_code_object_version 5
	.text
	.globl store_id
	.p2align 8
	.type store_id,@function
store_id:                               // out[gid] = gid, 32 work-items a group
	s_load_b64 s[4:5], s[0:1], 0x0
	v_lshl_add_u32 v0, s2, 5, v0
	v_lshlrev_b32 v1, 2, v0
	s_waitcnt lgkmcnt(0)
	global_store_b32 v1, v0, s[4:5]
	s_endpgm
.Lstore_id_end:
	.size store_id, .Lstore_id_end-store_id

	.rodata
	.p2align 6
	.amdhsa_kernel store_id
		.amdhsa_user_sgpr_kernarg_segment_ptr 1
		.amdhsa_kernarg_size 8
		.amdhsa_next_free_vgpr 2
		.amdhsa_next_free_sgpr 6
		.amdhsa_group_segment_fixed_size 256
	.end_amdhsa_kernel
