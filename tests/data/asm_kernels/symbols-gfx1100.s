// llvm-mc: -mcpu=gfx1100
// Symbol bindings and visibilities as llvm-mc records them and ld.lld links them: a weak kernel,
// a kernel declared .protected, a hidden global (ld.lld makes it local and does not export it),
// a .local function, a forward reference (it orders .symtab), `.size` with `.`, and a kernel
// whose descriptor sits in .text.
	.amdgcn_target "amdgcn-amd-amdhsa--gfx1100"
	.text
	.weak soft
	.p2align 8
	.type soft,@function
soft:
	s_cbranch_scc1 after
before:
	s_nop 0
after:
	s_endpgm
	.size soft, .-soft

	.globl firm
	.protected firm
	.p2align 8
	.type firm,%function
firm:
	s_endpgm
.Lfirm_end:
	.size firm, .Lfirm_end-firm

	.globl secret
	.hidden secret
	.type secret,STT_FUNC
secret:
	s_setpc_b64 s[30:31]
	.size secret, 4

	.local mine
	.type mine,@function
mine:
	s_setpc_b64 s[30:31]

	.p2align 6
	.amdhsa_kernel firm
		.amdhsa_next_free_vgpr 1
		.amdhsa_next_free_sgpr 1
	.end_amdhsa_kernel

	.rodata
	.p2align 6
	.amdhsa_kernel soft
		.amdhsa_next_free_vgpr 1
		.amdhsa_next_free_sgpr 1
	.end_amdhsa_kernel
