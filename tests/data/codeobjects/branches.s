// Hand-written gfx1100 wave32 kernel for the disassembler's branch and label handling:
// forward and backward branches, a local .L label (stays a number in the text), a plain label
// (`loop`, an STT_NOTYPE symbol: llvm-objdump names it in the operand and starts a block there),
// a call, a non-kernel function, a data word no instruction has, a run of zeros (printed as
// `...`), a data object inside .text (dumped as bytes) and a section that ends in mid-word.
	.amdgcn_target "amdgcn-amd-amdhsa--gfx1100"
	.text
	.globl count_down
	.p2align 8
	.type count_down,@function
count_down:
	s_load_b32 s2, s[0:1], 0x0
	s_waitcnt lgkmcnt(0)
	s_cmp_eq_u32 s2, 0
	s_cbranch_scc1 .Ldone
	s_mov_b32 s3, 0
loop:
	s_add_u32 s3, s3, 1
	s_sub_u32 s2, s2, 1
	s_cmp_lg_u32 s2, 0
	s_cbranch_scc1 loop
	s_cbranch_vccz .Ldone
	s_branch .Ldone
	s_call_b64 s[30:31], helper
	.long 0xffffffff
.Ldone:
	s_endpgm
.Lcount_down_end:
	.size count_down, .Lcount_down_end-count_down

	.local helper
	.p2align 4
	.type helper,@function
helper:
	s_nop 0
	.zero 12
	s_setpc_b64 s[30:31]
.Lhelper_end:
	.size helper, .Lhelper_end-helper

	.type table,@object
table:
	.byte 0x67, 0x70, 0x75, 0x00, 0x62, 0x65, 0x6e, 0x63, 0x68, 0x7f, 0x20
	.size table, 11

	.globl tail
	.type tail,@function
tail:
	s_endpgm
	.byte 0x01, 0x02

	.rodata
	.p2align 6
	.amdhsa_kernel count_down
		.amdhsa_user_sgpr_kernarg_segment_ptr 1
		.amdhsa_user_sgpr_count 2
		.amdhsa_next_free_vgpr 1
		.amdhsa_next_free_sgpr 4
		.amdhsa_group_segment_fixed_size 128
		.amdhsa_private_segment_fixed_size 16
		.amdhsa_kernarg_size 8
		.amdhsa_wavefront_size32 1
		.amdhsa_system_sgpr_workgroup_id_x 1
	.end_amdhsa_kernel

	.amdgpu_metadata
---
amdhsa.kernels:
  - .args:
      - .offset:         0
        .size:           4
        .value_kind:     by_value
    .group_segment_fixed_size: 128
    .kernarg_segment_align: 8
    .kernarg_segment_size: 8
    .max_flat_workgroup_size: 256
    .name:           count_down
    .private_segment_fixed_size: 16
    .sgpr_count:     4
    .symbol:         count_down.kd
    .vgpr_count:     1
    .wavefront_size: 32
amdhsa.target:   amdgcn-amd-amdhsa--gfx1100
amdhsa.version:
  - 1
  - 2
...
	.end_amdgpu_metadata
