// llvm-mc: -mcpu=gfx1100
// Metadata whose scalars take every type LLVM's YAML reading gives: it types a scalar by its text
// alone (quoted or not), narrows doubles to float32 where it can, and writes 32-255 byte strings
// as str8 and longer ones as str16. Keys the verifier does not know pass through.
	.amdgcn_target "amdgcn-amd-amdhsa--gfx1100"
	.text
	.globl k
	.p2align 8
	.type k,@function
k:
	s_endpgm
.Lk_end:
	.size k, .Lk_end-k
	.rodata
	.p2align 6
	.amdhsa_kernel k
		.amdhsa_next_free_vgpr 1
		.amdhsa_next_free_sgpr 1
	.end_amdhsa_kernel
	.amdgpu_metadata
---
amdhsa.version: [ 1, 2 ]
amdhsa.target: amdgcn-amd-amdhsa--gfx1100
amdhsa.printf:
  - '1:1:4:%d\n'
  - '2:1:8:a format string of more than thirty-one bytes'
  - '3:0:xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx'
gpubench.scalars:
  quoted_int: '123'
  negative: -5
  negative_hex: -0x10
  big: 18446744073709551615
  most_negative: -9223372036854775808
  octal: 017
  binary: 0b101
  half: 1.5
  tenth: 0.1
  huge: 1e300
  plus: +7
  empty: ''
  true_word: true
  capital_true: True
  yes_word: yes
  text: abc
  not_a_number: 1_000
amdhsa.kernels:
  - .name: k
    .symbol: k.kd
    .language: OpenCL C
    .language_version: [ 2, 0 ]
    .reqd_workgroup_size: [ 64, 1, 1 ]
    .kernarg_segment_size: 0x10
    .group_segment_fixed_size: 0
    .private_segment_fixed_size: 0
    .kernarg_segment_align: '8'
    .wavefront_size: 32
    .sgpr_count: 300
    .vgpr_count: 70000
    .max_flat_workgroup_size: 1024
    .args: []
...
	.end_amdgpu_metadata
