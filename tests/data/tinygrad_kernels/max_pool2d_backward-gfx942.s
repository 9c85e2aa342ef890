; tinygrad 0.14.0 (LLVM renderer, llvm 22) for gfx942: the input gradient of
; Tensor.max_pool2d(x, kernel_size=(3,3), stride=3, padding=1, ceil_mode=True) on a 1x1x5x5 x, as
; tinygrad's test_max_pool2d_ceil_mode_output_size_reduce_by_one makes it (kernel r_8_8_4_4, one
; workgroup of 8x8). Arguments: the 8x8 gradient of the padded input (out), x (5x5), the pooled maxima
; (2x2) and the output gradient (2x2). Disassembled by gpubench from the recorded dispatch.
v_and_b32_e32 v1, 0x3ff, v0
v_bfe_u32 v0, v0, 10, 10
v_add_u16_e32 v4, 2, v0
v_mul_u32_u24_e32 v5, 0x5556, v4
v_mov_b32_e32 v13, 2
v_add_u16_sdwa v2, v5, v13 dst_sel:DWORD dst_unused:UNUSED_PAD src0_sel:WORD_1 src1_sel:DWORD
v_mul_u32_u24_e32 v3, 0x5556, v2
v_mov_b32_e32 v14, 3
v_mul_lo_u16_sdwa v3, v3, v14 dst_sel:DWORD dst_unused:UNUSED_PAD src0_sel:WORD_1 src1_sel:DWORD
v_sub_u16_e32 v2, v2, v3
v_add_u16_e32 v6, 8, v0
v_lshrrev_b32_e32 v3, 1, v2
v_mul_u32_u24_e32 v7, 0x1c72, v6
v_mov_b32_e32 v10, 9
v_add_u32_sdwa v3, v3, v7 dst_sel:DWORD dst_unused:UNUSED_PAD src0_sel:DWORD src1_sel:WORD_1
v_and_b32_e32 v16, 1, v2
v_mul_lo_u16_sdwa v2, v7, v10 dst_sel:DWORD dst_unused:UNUSED_PAD src0_sel:WORD_1 src1_sel:DWORD
v_mad_u32_u24 v24, v16, 3, v3
v_sub_u16_e32 v2, v6, v2
v_or_b32_e32 v3, v3, v16
s_movk_i32 s4, 0x5556
v_cmp_ne_u32_e64 s[2:3], 0, v3
v_cmp_gt_u16_e32 vcc, 6, v2
v_mul_u32_u24_e32 v2, 0x5556, v1
v_mul_u32_u24_e32 v7, 0x1c72, v1
v_mov_b32_e32 v3, 5
v_mul_u32_u24_sdwa v6, v7, v3 dst_sel:DWORD dst_unused:UNUSED_PAD src0_sel:WORD_1 src1_sel:DWORD
v_mul_u32_u24_sdwa v3, v2, s4 dst_sel:DWORD dst_unused:UNUSED_PAD src0_sel:WORD_1 src1_sel:DWORD
v_sub_u16_sdwa v2, v2, v3 dst_sel:DWORD dst_unused:UNUSED_PAD src0_sel:WORD_1 src1_sel:WORD_1
v_and_b32_e32 v2, 1, v2
v_and_b32_e32 v3, 0xffff, v2
v_mul_lo_u16_sdwa v2, v7, v10 dst_sel:DWORD dst_unused:UNUSED_PAD src0_sel:WORD_1 src1_sel:DWORD
s_load_dwordx2 s[38:39], s[0:1], 0x8
v_sub_u16_e32 v8, v1, v2
v_cmp_gt_u32_e64 s[4:5], 27, v1
v_cmp_gt_u16_e64 s[10:11], 6, v8
s_and_b64 s[36:37], vcc, s[2:3]
v_or_b32_sdwa v2, v3, v7 dst_sel:DWORD dst_unused:UNUSED_PAD src0_sel:DWORD src1_sel:WORD_1
s_and_b64 s[6:7], s[4:5], s[10:11]
v_mad_u32_u24 v9, v3, 15, v6
v_cmp_ne_u32_e64 s[16:17], 0, v2
s_and_b64 s[8:9], s[6:7], s[36:37]
v_mov_b32_e32 v6, 0
s_and_b64 s[12:13], s[8:9], s[16:17]
v_mov_b32_e32 v2, v6
s_and_saveexec_b64 s[8:9], s[12:13]
s_cbranch_execz 5
v_add_lshl_u32 v2, v24, v9, 2
s_waitcnt lgkmcnt(0)
global_load_dword v2, v2, s[38:39] offset:-24
s_or_b64 exec, exec, s[8:9]
v_add_u16_e32 v11, 1, v0
v_mul_u32_u24_e32 v12, 0x5556, v11
v_add_u16_sdwa v13, v12, v13 dst_sel:DWORD dst_unused:UNUSED_PAD src0_sel:WORD_1 src1_sel:DWORD
v_mul_u32_u24_e32 v15, 0x5556, v13
v_mul_lo_u16_sdwa v14, v15, v14 dst_sel:DWORD dst_unused:UNUSED_PAD src0_sel:WORD_1 src1_sel:DWORD
v_sub_u16_e32 v13, v13, v14
v_add_u16_e32 v17, 7, v0
v_lshrrev_b16_e32 v14, 1, v13
v_mul_u32_u24_e32 v18, 0x1c72, v17
v_add_u16_sdwa v14, v18, v14 dst_sel:DWORD dst_unused:UNUSED_PAD src0_sel:WORD_1 src1_sel:DWORD
v_add_u16_e32 v14, 1, v14
v_and_b32_e32 v13, 1, v13
s_movk_i32 s8, 0xab
v_and_b32_e32 v23, 0xffff, v13
v_mul_lo_u16_sdwa v13, v14, s8 dst_sel:DWORD dst_unused:UNUSED_PAD src0_sel:BYTE_0 src1_sel:DWORD
v_lshrrev_b16_e32 v15, 9, v13
v_mul_lo_u16_e32 v13, 3, v15
v_mul_lo_u16_sdwa v10, v18, v10 dst_sel:DWORD dst_unused:UNUSED_PAD src0_sel:WORD_1 src1_sel:DWORD
v_sub_u16_e32 v13, v14, v13
v_sub_u16_e32 v10, v17, v10
v_and_b32_e32 v13, 0xff, v13
v_cmp_gt_u16_e64 s[12:13], 6, v10
v_add_u32_e32 v10, v8, v15
v_or_b32_e32 v14, v23, v13
v_mad_u32_u24 v27, v23, 3, v13
v_mul_lo_u16_e32 v13, 0xab, v10
v_lshrrev_b16_e32 v10, 10, v13
v_add_u16_sdwa v10, v10, v7 dst_sel:DWORD dst_unused:UNUSED_PAD src0_sel:DWORD src1_sel:WORD_1
v_cmp_ne_u32_e64 s[8:9], 0, v14
v_mul_lo_u16_e32 v14, 0xab, v10
v_lshrrev_b16_e32 v14, 9, v14
v_lshrrev_b16_e32 v13, 9, v13
v_mul_lo_u16_e32 v14, 3, v14
v_and_b32_e32 v13, 1, v13
v_sub_u16_e32 v10, v10, v14
v_and_b32_e32 v13, 0xffff, v13
s_and_b64 s[44:45], s[12:13], s[8:9]
v_or_b32_sdwa v14, v10, v13 dst_sel:DWORD dst_unused:UNUSED_PAD src0_sel:BYTE_0 src1_sel:DWORD
v_cmp_ne_u32_e64 s[14:15], 0, v14
s_and_b64 s[6:7], s[6:7], s[44:45]
s_and_b64 s[18:19], s[6:7], s[14:15]
s_and_saveexec_b64 s[6:7], s[18:19]
s_cbranch_execz 10
v_mov_b32_e32 v6, 5
v_mul_u32_u24_sdwa v6, v10, v6 dst_sel:DWORD dst_unused:UNUSED_PAD src0_sel:BYTE_0 src1_sel:DWORD
v_mad_u32_u24 v10, v13, 15, v27
v_add_lshl_u32 v6, v10, v6, 2
s_waitcnt lgkmcnt(0)
global_load_dword v6, v6, s[38:39] offset:-24
s_or_b64 exec, exec, s[6:7]
s_load_dwordx2 s[40:41], s[0:1], 0x10
v_cmp_gt_u32_e64 s[6:7], 6, v0
s_and_b64 s[18:19], s[6:7], s[4:5]
v_cmp_lt_u32_e64 s[24:25], 2, v0
s_and_b64 s[18:19], s[18:19], s[10:11]
s_and_b64 s[20:21], s[24:25], s[18:19]
v_mov_b32_e32 v14, 0
s_and_b64 s[20:21], s[20:21], s[16:17]
v_mov_b32_e32 v10, v14
s_and_saveexec_b64 s[16:17], s[20:21]
s_cbranch_execz 4
v_lshlrev_b32_e32 v9, 2, v9
s_waitcnt lgkmcnt(0)
global_load_dword v10, v9, s[38:39] offset:-12
s_or_b64 exec, exec, s[16:17]
v_lshl_or_b32 v9, v13, 1, v23
s_and_b64 s[16:17], s[12:13], s[4:5]
s_and_b64 s[16:17], s[16:17], s[10:11]
v_lshlrev_b32_e32 v17, 2, v9
s_and_saveexec_b64 s[20:21], s[16:17]
s_cbranch_execz 3
s_waitcnt lgkmcnt(0)
global_load_dword v14, v17, s[40:41]
s_or_b64 exec, exec, s[20:21]
s_movk_i32 s20, 0x5556
v_mul_u32_u24_sdwa v9, v0, s20 dst_sel:DWORD dst_unused:UNUSED_PAD src0_sel:WORD_0 src1_sel:DWORD
v_lshrrev_b32_e32 v21, 16, v9
v_lshlrev_b32_e32 v18, 1, v3
v_add_u32_e32 v13, v18, v21
v_mov_b32_e32 v9, 0
v_lshlrev_b32_e32 v19, 2, v13
v_mov_b32_e32 v13, v9
s_and_saveexec_b64 s[20:21], s[18:19]
s_cbranch_execz 3
s_waitcnt lgkmcnt(0)
global_load_dword v13, v19, s[40:41]
s_or_b64 exec, exec, s[20:21]
s_load_dwordx2 s[42:43], s[0:1], 0x18
v_or_b32_e32 v18, v18, v16
s_and_b64 s[20:21], vcc, s[4:5]
s_and_b64 s[20:21], s[20:21], s[10:11]
v_lshlrev_b32_e32 v22, 2, v18
s_and_saveexec_b64 s[22:23], s[20:21]
s_cbranch_execz 3
s_waitcnt lgkmcnt(0)
global_load_dword v9, v22, s[40:41]
s_or_b64 exec, exec, s[22:23]
v_mov_b32_e32 v18, 0
v_mov_b32_e32 v20, v18
s_and_saveexec_b64 s[22:23], s[16:17]
s_cbranch_execz 3
s_waitcnt lgkmcnt(0)
global_load_dword v20, v17, s[42:43]
s_or_b64 exec, exec, s[22:23]
s_and_saveexec_b64 s[16:17], s[18:19]
s_cbranch_execz 3
s_waitcnt lgkmcnt(0)
global_load_dword v18, v19, s[42:43]
s_or_b64 exec, exec, s[16:17]
v_mov_b32_e32 v19, 0
v_mov_b32_e32 v17, v19
s_and_saveexec_b64 s[16:17], s[20:21]
s_cbranch_execz 3
s_waitcnt lgkmcnt(0)
global_load_dword v17, v22, s[42:43]
s_or_b64 exec, exec, s[16:17]
v_add_u32_e32 v25, 2, v1
v_mul_u32_u24_e32 v22, 0x5556, v25
v_mov_b32_e32 v28, 2
v_add_u16_sdwa v22, v22, v28 dst_sel:DWORD dst_unused:UNUSED_PAD src0_sel:WORD_1 src1_sel:DWORD
v_add_u32_e32 v26, 8, v1
v_mul_u32_u24_e32 v30, 0x5556, v22
v_mul_u32_u24_e32 v29, 0x1c72, v26
v_sub_u16_sdwa v22, v22, v30 dst_sel:DWORD dst_unused:UNUSED_PAD src0_sel:DWORD src1_sel:WORD_1
v_mov_b32_e32 v30, 9
v_mul_lo_u16_sdwa v30, v29, v30 dst_sel:DWORD dst_unused:UNUSED_PAD src0_sel:WORD_1 src1_sel:DWORD
v_and_b32_e32 v22, 1, v22
v_sub_u16_e32 v30, v26, v30
v_and_b32_e32 v22, 0xffff, v22
v_cmp_gt_u32_e64 s[16:17], 19, v1
v_cmp_gt_u16_e64 s[18:19], 6, v30
v_mov_b32_e32 v28, 5
v_or_b32_sdwa v26, v22, v29 dst_sel:DWORD dst_unused:UNUSED_PAD src0_sel:DWORD src1_sel:WORD_1
s_and_b64 s[22:23], s[16:17], s[18:19]
v_mul_u32_u24_sdwa v28, v29, v28 dst_sel:DWORD dst_unused:UNUSED_PAD src0_sel:WORD_1 src1_sel:DWORD
v_cmp_ne_u32_e64 s[20:21], 0, v26
s_and_b64 s[26:27], s[22:23], s[36:37]
v_mad_u32_u24 v28, v22, 15, v28
s_and_b64 s[28:29], s[26:27], s[20:21]
s_and_saveexec_b64 s[26:27], s[28:29]
s_cbranch_execz 5
v_add_lshl_u32 v19, v24, v28, 2
s_waitcnt lgkmcnt(0)
global_load_dword v19, v19, s[38:39] offset:-24
s_or_b64 exec, exec, s[26:27]
v_add_u32_e32 v26, v30, v15
v_mul_lo_u16_e32 v26, 0xab, v26
v_lshrrev_b16_e32 v31, 10, v26
s_movk_i32 s26, 0xab
v_add_u16_sdwa v31, v31, v29 dst_sel:DWORD dst_unused:UNUSED_PAD src0_sel:DWORD src1_sel:WORD_1
v_mul_lo_u16_sdwa v32, v31, s26 dst_sel:DWORD dst_unused:UNUSED_PAD src0_sel:BYTE_0 src1_sel:DWORD
v_lshrrev_b16_e32 v32, 9, v32
v_lshrrev_b16_e32 v26, 9, v26
v_mul_lo_u16_e32 v32, 3, v32
v_and_b32_e32 v26, 1, v26
v_sub_u16_e32 v32, v31, v32
v_and_b32_e32 v31, 0xffff, v26
v_or_b32_sdwa v26, v32, v31 dst_sel:DWORD dst_unused:UNUSED_PAD src0_sel:BYTE_0 src1_sel:DWORD
v_cmp_ne_u32_e64 s[26:27], 0, v26
s_and_b64 s[22:23], s[22:23], s[44:45]
v_mov_b32_e32 v26, 0
s_and_b64 s[28:29], s[22:23], s[26:27]
v_mov_b32_e32 v34, v26
s_and_saveexec_b64 s[22:23], s[28:29]
s_cbranch_execz 10
v_mov_b32_e32 v33, 5
v_mul_u32_u24_sdwa v32, v32, v33 dst_sel:DWORD dst_unused:UNUSED_PAD src0_sel:BYTE_0 src1_sel:DWORD
v_mad_u32_u24 v33, v31, 15, v27
v_add_lshl_u32 v32, v33, v32, 2
s_waitcnt lgkmcnt(0)
global_load_dword v34, v32, s[38:39] offset:-24
s_or_b64 exec, exec, s[22:23]
s_and_b64 s[22:23], s[6:7], s[16:17]
s_and_b64 s[22:23], s[22:23], s[18:19]
s_and_b64 s[28:29], s[24:25], s[22:23]
s_and_b64 s[28:29], s[28:29], s[20:21]
s_and_saveexec_b64 s[20:21], s[28:29]
s_cbranch_execz 4
v_lshlrev_b32_e32 v26, 2, v28
s_waitcnt lgkmcnt(0)
global_load_dword v26, v26, s[38:39] offset:-12
s_or_b64 exec, exec, s[20:21]
v_lshl_or_b32 v28, v31, 1, v23
s_and_b64 s[20:21], s[12:13], s[16:17]
v_mov_b32_e32 v31, 0
s_and_b64 s[20:21], s[20:21], s[18:19]
v_lshlrev_b32_e32 v28, 2, v28
v_mov_b32_e32 v40, v31
s_and_saveexec_b64 s[28:29], s[20:21]
s_cbranch_execz 3
s_waitcnt lgkmcnt(0)
global_load_dword v40, v28, s[40:41]
s_or_b64 exec, exec, s[28:29]
v_lshlrev_b32_e32 v32, 1, v22
v_add_u32_e32 v33, v32, v21
v_lshlrev_b32_e32 v33, 2, v33
s_and_saveexec_b64 s[28:29], s[22:23]
s_cbranch_execz 3
s_waitcnt lgkmcnt(0)
global_load_dword v31, v33, s[40:41]
s_or_b64 exec, exec, s[28:29]
v_or_b32_e32 v32, v32, v16
s_and_b64 s[28:29], vcc, s[16:17]
v_mov_b32_e32 v44, 0
s_and_b64 s[28:29], s[28:29], s[18:19]
v_lshlrev_b32_e32 v35, 2, v32
v_mov_b32_e32 v32, v44
s_and_saveexec_b64 s[30:31], s[28:29]
s_cbranch_execz 3
s_waitcnt lgkmcnt(0)
global_load_dword v32, v35, s[40:41]
s_or_b64 exec, exec, s[30:31]
s_and_saveexec_b64 s[30:31], s[20:21]
s_cbranch_execz 3
s_waitcnt lgkmcnt(0)
global_load_dword v44, v28, s[42:43]
s_or_b64 exec, exec, s[30:31]
v_mov_b32_e32 v36, 0
v_mov_b32_e32 v41, v36
s_and_saveexec_b64 s[20:21], s[22:23]
s_cbranch_execz 3
s_waitcnt lgkmcnt(0)
global_load_dword v41, v33, s[42:43]
s_or_b64 exec, exec, s[20:21]
s_and_saveexec_b64 s[20:21], s[28:29]
s_cbranch_execz 3
s_waitcnt lgkmcnt(0)
global_load_dword v36, v35, s[42:43]
s_or_b64 exec, exec, s[20:21]
v_add_u32_e32 v28, 4, v1
v_mul_u32_u24_e32 v33, 0x5556, v28
v_mov_b32_e32 v37, 4
v_add_u16_sdwa v33, v33, v37 dst_sel:DWORD dst_unused:UNUSED_PAD src0_sel:WORD_1 src1_sel:DWORD
v_mul_u32_u24_e32 v39, 0x5556, v33
v_add_u32_e32 v35, 16, v1
v_sub_u16_sdwa v33, v33, v39 dst_sel:DWORD dst_unused:UNUSED_PAD src0_sel:DWORD src1_sel:WORD_1
v_mul_u32_u24_e32 v37, 0x1c72, v35
v_mov_b32_e32 v38, 5
v_and_b32_e32 v33, 1, v33
v_mul_lo_u16_sdwa v38, v37, v38 dst_sel:DWORD dst_unused:UNUSED_PAD src0_sel:WORD_1 src1_sel:DWORD
v_and_b32_e32 v33, 0xffff, v33
v_mad_u32_u24 v42, v33, 15, v38
v_mov_b32_e32 v38, 9
v_mul_lo_u16_sdwa v38, v37, v38 dst_sel:DWORD dst_unused:UNUSED_PAD src0_sel:WORD_1 src1_sel:DWORD
v_sub_u16_e32 v39, v35, v38
v_cmp_gt_u32_e64 s[20:21], 11, v1
v_cmp_gt_u16_e64 s[22:23], 6, v39
s_and_b64 s[30:31], s[20:21], s[22:23]
v_mov_b32_e32 v38, 0
s_and_b64 s[34:35], s[30:31], s[36:37]
v_mov_b32_e32 v35, v38
s_and_saveexec_b64 s[28:29], s[34:35]
s_cbranch_execz 5
v_add_lshl_u32 v35, v24, v42, 2
s_waitcnt lgkmcnt(0)
global_load_dword v35, v35, s[38:39] offset:-24
s_or_b64 exec, exec, s[28:29]
v_add_u32_e32 v43, v39, v15
v_mul_lo_u16_e32 v45, 0xab, v43
v_lshrrev_b16_e32 v43, 10, v45
s_movk_i32 s28, 0xab
v_add_u16_sdwa v43, v43, v37 dst_sel:DWORD dst_unused:UNUSED_PAD src0_sel:DWORD src1_sel:WORD_1
v_mul_lo_u16_sdwa v46, v43, s28 dst_sel:DWORD dst_unused:UNUSED_PAD src0_sel:BYTE_0 src1_sel:DWORD
v_lshrrev_b16_e32 v46, 9, v46
v_lshrrev_b16_e32 v45, 9, v45
v_mul_lo_u16_e32 v46, 3, v46
v_and_b32_e32 v45, 1, v45
v_sub_u16_e32 v43, v43, v46
v_and_b32_e32 v46, 0xffff, v45
v_or_b32_sdwa v45, v43, v46 dst_sel:DWORD dst_unused:UNUSED_PAD src0_sel:BYTE_0 src1_sel:DWORD
v_cmp_ne_u32_e64 s[28:29], 0, v45
s_and_b64 s[30:31], s[30:31], s[44:45]
s_and_b64 s[34:35], s[30:31], s[28:29]
s_and_saveexec_b64 s[30:31], s[34:35]
s_cbranch_execz 10
v_mov_b32_e32 v38, 5
v_mul_u32_u24_sdwa v38, v43, v38 dst_sel:DWORD dst_unused:UNUSED_PAD src0_sel:BYTE_0 src1_sel:DWORD
v_mad_u32_u24 v43, v46, 15, v27
v_add_lshl_u32 v38, v43, v38, 2
s_waitcnt lgkmcnt(0)
global_load_dword v38, v38, s[38:39] offset:-24
s_or_b64 exec, exec, s[30:31]
s_and_b64 s[30:31], s[6:7], s[20:21]
s_and_b64 s[30:31], s[30:31], s[22:23]
v_mov_b32_e32 v45, 0
s_and_b64 s[46:47], s[24:25], s[30:31]
v_mov_b32_e32 v43, v45
s_and_saveexec_b64 s[34:35], s[46:47]
s_cbranch_execz 4
v_lshlrev_b32_e32 v42, 2, v42
s_waitcnt lgkmcnt(0)
global_load_dword v43, v42, s[38:39] offset:-12
s_or_b64 exec, exec, s[34:35]
v_lshl_or_b32 v42, v46, 1, v23
s_and_b64 s[34:35], s[12:13], s[20:21]
s_and_b64 s[34:35], s[34:35], s[22:23]
v_lshlrev_b32_e32 v49, 2, v42
s_and_saveexec_b64 s[46:47], s[34:35]
s_cbranch_execz 3
s_waitcnt lgkmcnt(0)
global_load_dword v45, v49, s[40:41]
s_or_b64 exec, exec, s[46:47]
v_lshlrev_b32_e32 v42, 1, v33
v_add_u32_e32 v46, v42, v21
v_mov_b32_e32 v48, 0
v_lshlrev_b32_e32 v50, 2, v46
v_mov_b32_e32 v47, v48
s_and_saveexec_b64 s[46:47], s[30:31]
s_cbranch_execz 3
s_waitcnt lgkmcnt(0)
global_load_dword v47, v50, s[40:41]
s_or_b64 exec, exec, s[46:47]
v_or_b32_e32 v42, v42, v16
s_and_b64 s[46:47], vcc, s[20:21]
s_and_b64 s[46:47], s[46:47], s[22:23]
v_lshlrev_b32_e32 v52, 2, v42
s_and_saveexec_b64 s[48:49], s[46:47]
s_cbranch_execz 3
s_waitcnt lgkmcnt(0)
global_load_dword v48, v52, s[40:41]
s_or_b64 exec, exec, s[48:49]
v_mov_b32_e32 v46, 0
v_mov_b32_e32 v42, v46
s_and_saveexec_b64 s[48:49], s[34:35]
s_cbranch_execz 3
s_waitcnt lgkmcnt(0)
global_load_dword v42, v49, s[42:43]
s_or_b64 exec, exec, s[48:49]
s_and_saveexec_b64 s[34:35], s[30:31]
s_cbranch_execz 3
s_waitcnt lgkmcnt(0)
global_load_dword v46, v50, s[42:43]
s_or_b64 exec, exec, s[34:35]
v_mov_b32_e32 v51, 0
v_mov_b32_e32 v49, v51
s_and_saveexec_b64 s[30:31], s[46:47]
s_cbranch_execz 3
s_waitcnt lgkmcnt(0)
global_load_dword v49, v52, s[42:43]
s_or_b64 exec, exec, s[30:31]
v_add_u32_e32 v50, 6, v1
v_mul_u32_u24_e32 v52, 0x5556, v50
v_mov_b32_e32 v53, 6
v_add_u16_sdwa v52, v52, v53 dst_sel:DWORD dst_unused:UNUSED_PAD src0_sel:WORD_1 src1_sel:DWORD
v_mul_u32_u24_e32 v56, 0x5556, v52
v_add_u32_e32 v54, 24, v1
v_sub_u16_sdwa v52, v52, v56 dst_sel:DWORD dst_unused:UNUSED_PAD src0_sel:DWORD src1_sel:WORD_1
v_mul_u32_u24_e32 v53, 0x1c72, v54
v_mov_b32_e32 v55, 5
v_and_b32_e32 v52, 1, v52
v_mul_lo_u16_sdwa v55, v53, v55 dst_sel:DWORD dst_unused:UNUSED_PAD src0_sel:WORD_1 src1_sel:DWORD
v_and_b32_e32 v52, 0xffff, v52
v_mad_u32_u24 v56, v52, 15, v55
v_mov_b32_e32 v55, 9
v_mul_lo_u16_sdwa v55, v53, v55 dst_sel:DWORD dst_unused:UNUSED_PAD src0_sel:WORD_1 src1_sel:DWORD
v_sub_u16_e32 v54, v54, v55
v_cmp_gt_u32_e64 s[30:31], 3, v1
v_cmp_gt_u16_e64 s[34:35], 6, v54
s_and_b64 s[46:47], s[30:31], s[34:35]
s_and_b64 s[48:49], s[46:47], s[36:37]
s_and_saveexec_b64 s[36:37], s[48:49]
s_cbranch_execz 5
v_add_lshl_u32 v24, v24, v56, 2
s_waitcnt lgkmcnt(0)
global_load_dword v51, v24, s[38:39] offset:-24
s_or_b64 exec, exec, s[36:37]
v_add_u32_e32 v24, v54, v15
v_mul_lo_u16_e32 v24, 0xab, v24
v_lshrrev_b16_e32 v55, 10, v24
s_movk_i32 s33, 0xab
v_add_u16_sdwa v55, v55, v53 dst_sel:DWORD dst_unused:UNUSED_PAD src0_sel:DWORD src1_sel:WORD_1
v_mul_lo_u16_sdwa v57, v55, s33 dst_sel:DWORD dst_unused:UNUSED_PAD src0_sel:BYTE_0 src1_sel:DWORD
v_lshrrev_b16_e32 v57, 9, v57
v_lshrrev_b16_e32 v24, 9, v24
v_mul_lo_u16_e32 v57, 3, v57
v_and_b32_e32 v24, 1, v24
v_sub_u16_e32 v58, v55, v57
v_and_b32_e32 v57, 0xffff, v24
v_or_b32_sdwa v24, v58, v57 dst_sel:DWORD dst_unused:UNUSED_PAD src0_sel:BYTE_0 src1_sel:DWORD
v_cmp_ne_u32_e64 s[36:37], 0, v24
s_and_b64 s[44:45], s[46:47], s[44:45]
v_mov_b32_e32 v24, 0
s_and_b64 s[46:47], s[44:45], s[36:37]
v_mov_b32_e32 v55, v24
s_and_saveexec_b64 s[44:45], s[46:47]
s_cbranch_execz 10
v_mov_b32_e32 v55, 5
v_mul_u32_u24_sdwa v55, v58, v55 dst_sel:DWORD dst_unused:UNUSED_PAD src0_sel:BYTE_0 src1_sel:DWORD
v_mad_u32_u24 v27, v57, 15, v27
v_add_lshl_u32 v27, v27, v55, 2
s_waitcnt lgkmcnt(0)
global_load_dword v55, v27, s[38:39] offset:-24
s_or_b64 exec, exec, s[44:45]
s_and_b64 s[44:45], s[6:7], s[30:31]
s_and_b64 s[44:45], s[44:45], s[34:35]
s_and_b64 s[46:47], s[24:25], s[44:45]
s_and_saveexec_b64 s[24:25], s[46:47]
s_cbranch_execz 4
v_lshlrev_b32_e32 v24, 2, v56
s_waitcnt lgkmcnt(0)
global_load_dword v24, v24, s[38:39] offset:-12
s_or_b64 exec, exec, s[24:25]
v_lshl_or_b32 v27, v57, 1, v23
s_and_b64 s[24:25], s[12:13], s[30:31]
v_mov_b32_e32 v23, 0
s_and_b64 s[24:25], s[24:25], s[34:35]
v_lshlrev_b32_e32 v27, 2, v27
v_mov_b32_e32 v57, v23
s_waitcnt lgkmcnt(0)
s_and_saveexec_b64 s[38:39], s[24:25]
s_cbranch_execz 2
global_load_dword v57, v27, s[40:41]
s_or_b64 exec, exec, s[38:39]
v_lshlrev_b32_e32 v56, 1, v52
v_add_u32_e32 v58, v56, v21
v_lshlrev_b32_e32 v59, 2, v58
s_and_saveexec_b64 s[38:39], s[44:45]
s_cbranch_execz 2
global_load_dword v23, v59, s[40:41]
s_or_b64 exec, exec, s[38:39]
v_or_b32_e32 v56, v56, v16
s_and_b64 s[38:39], vcc, s[30:31]
v_mov_b32_e32 v16, 0
s_and_b64 s[38:39], s[38:39], s[34:35]
v_lshlrev_b32_e32 v60, 2, v56
v_mov_b32_e32 v58, v16
s_and_saveexec_b64 s[46:47], s[38:39]
s_cbranch_execz 2
global_load_dword v58, v60, s[40:41]
s_or_b64 exec, exec, s[46:47]
s_and_saveexec_b64 s[40:41], s[24:25]
s_cbranch_execz 2
global_load_dword v16, v27, s[42:43]
s_or_b64 exec, exec, s[40:41]
s_load_dwordx2 s[40:41], s[0:1], 0x0
v_mov_b32_e32 v56, 0
v_mov_b32_e32 v27, v56
s_and_saveexec_b64 s[0:1], s[44:45]
s_cbranch_execz 2
global_load_dword v27, v59, s[42:43]
s_or_b64 exec, exec, s[0:1]
s_and_saveexec_b64 s[0:1], s[38:39]
s_cbranch_execz 2
global_load_dword v56, v60, s[42:43]
s_or_b64 exec, exec, s[0:1]
v_mov_b32_e32 v59, 3
v_mul_lo_u16_sdwa v12, v12, v59 dst_sel:DWORD dst_unused:UNUSED_PAD src0_sel:WORD_1 src1_sel:DWORD
s_movk_i32 s0, 0x2aab
v_sub_u16_e32 v11, v11, v12
v_mul_u32_u24_sdwa v12, v0, s0 dst_sel:DWORD dst_unused:UNUSED_PAD src0_sel:WORD_0 src1_sel:DWORD
v_cmp_lt_u16_e64 s[24:25], 5, v8
v_add_u32_e32 v15, v1, v15
v_lshrrev_b32_e32 v12, 16, v12
v_cndmask_b32_e64 v8, 0, 1, s[24:25]
v_mul_lo_u16_sdwa v5, v5, v59 dst_sel:DWORD dst_unused:UNUSED_PAD src0_sel:WORD_1 src1_sel:DWORD
v_cmp_lt_u16_e64 s[24:25], 5, v30
v_and_or_b32 v12, v21, 1, v12
v_add_u16_sdwa v7, v7, v8 dst_sel:DWORD dst_unused:UNUSED_PAD src0_sel:WORD_1 src1_sel:DWORD
v_sub_u16_e32 v8, v4, v5
v_add_u32_e32 v4, 2, v15
v_cndmask_b32_e64 v5, 0, 1, s[24:25]
v_cmp_ne_u32_e64 s[0:1], 0, v12
v_add_u16_sdwa v12, v29, v5 dst_sel:DWORD dst_unused:UNUSED_PAD src0_sel:WORD_1 src1_sel:DWORD
v_mul_u32_u24_e32 v5, 0x5556, v4
v_mul_lo_u16_sdwa v5, v5, v59 dst_sel:DWORD dst_unused:UNUSED_PAD src0_sel:WORD_1 src1_sel:DWORD
v_sub_u16_e32 v4, v4, v5
v_mul_u32_u24_e32 v5, 0x5556, v15
v_mul_lo_u16_sdwa v5, v5, v59 dst_sel:DWORD dst_unused:UNUSED_PAD src0_sel:WORD_1 src1_sel:DWORD
v_or_b32_e32 v4, v4, v11
v_sub_u16_e32 v5, v15, v5
v_cmp_eq_u16_e64 s[24:25], 0, v4
v_or_b32_e32 v5, v5, v11
s_and_b64 s[24:25], s[12:13], s[24:25]
v_mov_b32_e32 v29, 0xff800000
s_and_b64 s[14:15], s[8:9], s[14:15]
v_cmp_eq_u16_e64 s[38:39], 0, v5
s_and_b64 s[42:43], s[18:19], s[24:25]
s_and_b64 s[24:25], s[8:9], s[26:27]
s_waitcnt vmcnt(0)
v_cndmask_b32_e64 v5, v29, v6, s[14:15]
v_rcp_f32_e32 v6, v44
v_cndmask_b32_e64 v4, v29, v34, s[24:25]
v_rcp_f32_e32 v20, v20
v_cmp_eq_f32_e64 s[14:15], v4, v40
s_and_b64 s[38:39], s[12:13], s[38:39]
s_and_b64 s[38:39], s[10:11], s[38:39]
v_cndmask_b32_e64 v4, 0, 1.0, s[14:15]
v_cmp_eq_f32_e64 s[14:15], v5, v14
v_mul_f32_e32 v4, v4, v6
s_movk_i32 s33, 0x5556
v_cndmask_b32_e64 v5, 0, 1.0, s[14:15]
s_and_b64 s[14:15], s[16:17], s[42:43]
v_mul_f32_e32 v6, v5, v20
v_cndmask_b32_e64 v5, 0, v4, s[14:15]
s_and_b64 s[14:15], s[4:5], s[38:39]
v_cndmask_b32_e64 v4, 0, v6, s[14:15]
v_mul_u32_u24_sdwa v6, v25, s33 dst_sel:DWORD dst_unused:UNUSED_PAD src0_sel:WORD_0 src1_sel:DWORD
v_mul_lo_u16_e32 v21, 3, v21
v_mul_lo_u16_sdwa v6, v6, v59 dst_sel:DWORD dst_unused:UNUSED_PAD src0_sel:WORD_1 src1_sel:DWORD
v_sub_u16_e32 v21, v0, v21
v_sub_u16_e32 v6, v25, v6
v_or_b32_e32 v20, v6, v21
s_movk_i32 s45, 0xab
v_cmp_eq_u32_e64 s[14:15], 0, v20
v_mul_lo_u16_sdwa v20, v12, s45 dst_sel:DWORD dst_unused:UNUSED_PAD src0_sel:BYTE_0 src1_sel:DWORD
v_lshrrev_b16_e32 v20, 9, v20
v_mul_u32_u24_sdwa v14, v1, s33 dst_sel:DWORD dst_unused:UNUSED_PAD src0_sel:WORD_0 src1_sel:DWORD
v_mul_lo_u16_e32 v20, 3, v20
v_mul_lo_u16_sdwa v14, v14, v59 dst_sel:DWORD dst_unused:UNUSED_PAD src0_sel:WORD_1 src1_sel:DWORD
v_sub_u16_e32 v12, v12, v20
v_mul_lo_u16_e32 v20, 0xab, v7
v_sub_u16_e32 v14, v1, v14
v_lshrrev_b16_e32 v20, 9, v20
v_or_b32_e32 v25, v14, v21
s_movk_i32 s44, 0xff
v_mul_lo_u16_e32 v20, 3, v20
v_cmp_eq_u32_e64 s[24:25], 0, v25
s_and_b64 s[14:15], s[6:7], s[14:15]
v_sub_u16_e32 v7, v7, v20
v_and_or_b32 v12, v12, s44, v22
s_and_b64 s[24:25], s[6:7], s[24:25]
s_and_b64 s[38:39], s[18:19], s[14:15]
v_and_or_b32 v3, v7, s44, v3
v_cmp_ne_u32_e64 s[14:15], 0, v12
s_and_b64 s[42:43], s[10:11], s[24:25]
v_cmp_ne_u32_e64 s[24:25], 0, v3
s_and_b64 s[26:27], s[0:1], s[14:15]
v_cndmask_b32_e64 v3, v29, v26, s[26:27]
s_and_b64 s[26:27], s[0:1], s[24:25]
v_cndmask_b32_e64 v7, v29, v10, s[26:27]
v_rcp_f32_e32 v10, v41
v_rcp_f32_e32 v12, v18
v_cmp_eq_f32_e64 s[26:27], v3, v31
v_or_b32_e32 v6, v6, v8
s_nop 0
v_cndmask_b32_e64 v3, 0, 1.0, s[26:27]
v_cmp_eq_f32_e64 s[26:27], v7, v13
v_mul_f32_e32 v3, v3, v10
v_or_b32_e32 v10, v14, v8
v_cndmask_b32_e64 v7, 0, 1.0, s[26:27]
s_and_b64 s[26:27], s[16:17], s[38:39]
v_mul_f32_e32 v7, v7, v12
v_cndmask_b32_e64 v3, 0, v3, s[26:27]
s_and_b64 s[26:27], s[4:5], s[42:43]
v_cndmask_b32_e64 v7, 0, v7, s[26:27]
v_cmp_eq_u32_e64 s[26:27], 0, v6
v_cmp_eq_u32_e64 s[38:39], 0, v10
s_and_b64 s[26:27], vcc, s[26:27]
s_and_b64 s[38:39], vcc, s[38:39]
s_and_b64 s[18:19], s[18:19], s[26:27]
s_and_b64 s[26:27], s[10:11], s[38:39]
s_and_b64 s[10:11], s[2:3], s[14:15]
v_cndmask_b32_e64 v6, v29, v19, s[10:11]
s_and_b64 s[10:11], s[2:3], s[24:25]
v_rcp_f32_e32 v10, v36
v_rcp_f32_e32 v12, v17
v_cndmask_b32_e64 v2, v29, v2, s[10:11]
v_cmp_eq_f32_e64 s[10:11], v6, v32
s_and_b64 s[4:5], s[4:5], s[26:27]
v_mul_u32_u24_sdwa v14, v50, s33 dst_sel:DWORD dst_unused:UNUSED_PAD src0_sel:WORD_0 src1_sel:DWORD
v_cndmask_b32_e64 v6, 0, 1.0, s[10:11]
v_cmp_eq_f32_e64 s[10:11], v2, v9
v_mul_f32_e32 v6, v6, v10
v_mul_lo_u16_sdwa v14, v14, v59 dst_sel:DWORD dst_unused:UNUSED_PAD src0_sel:WORD_1 src1_sel:DWORD
v_cndmask_b32_e64 v2, 0, 1.0, s[10:11]
v_mul_f32_e32 v2, v2, v12
s_and_b64 s[10:11], s[16:17], s[18:19]
v_cndmask_b32_e64 v6, 0, v6, s[10:11]
v_cndmask_b32_e64 v2, 0, v2, s[4:5]
v_add_f32_e32 v3, v3, v6
v_add_f32_e32 v2, v7, v2
v_cmp_lt_u16_e64 s[4:5], 5, v39
v_pk_add_f32 v[2:3], v[4:5], v[2:3]
v_add_u32_e32 v6, 4, v15
v_cndmask_b32_e64 v4, 0, 1, s[4:5]
v_cmp_lt_u16_e64 s[4:5], 5, v54
v_add_u16_sdwa v4, v37, v4 dst_sel:DWORD dst_unused:UNUSED_PAD src0_sel:WORD_1 src1_sel:DWORD
v_add_u32_e32 v7, 6, v15
v_cndmask_b32_e64 v5, 0, 1, s[4:5]
v_add_u16_sdwa v5, v53, v5 dst_sel:DWORD dst_unused:UNUSED_PAD src0_sel:WORD_1 src1_sel:DWORD
v_mul_lo_u16_sdwa v12, v5, s45 dst_sel:DWORD dst_unused:UNUSED_PAD src0_sel:BYTE_0 src1_sel:DWORD
v_lshrrev_b16_e32 v12, 9, v12
v_mul_lo_u16_e32 v12, 3, v12
s_and_b64 s[4:5], s[8:9], s[36:37]
v_sub_u16_e32 v5, v5, v12
v_mul_lo_u16_sdwa v12, v4, s45 dst_sel:DWORD dst_unused:UNUSED_PAD src0_sel:BYTE_0 src1_sel:DWORD
v_cndmask_b32_e64 v9, v29, v55, s[4:5]
s_and_b64 s[4:5], s[8:9], s[28:29]
v_lshrrev_b16_e32 v12, 9, v12
v_cndmask_b32_e64 v10, v29, v38, s[4:5]
v_cmp_eq_f32_e64 s[4:5], v9, v57
v_mul_lo_u16_e32 v12, 3, v12
v_sub_u16_e32 v4, v4, v12
v_cndmask_b32_e64 v9, 0, 1.0, s[4:5]
v_cmp_eq_f32_e64 s[4:5], v10, v45
v_and_or_b32 v5, v5, s44, v52
v_and_or_b32 v4, v4, s44, v33
v_cndmask_b32_e64 v10, 0, 1.0, s[4:5]
v_cmp_ne_u32_e64 s[4:5], 0, v5
v_cmp_ne_u32_e64 s[8:9], 0, v4
s_and_b64 s[10:11], s[2:3], s[4:5]
v_cndmask_b32_e64 v4, v29, v51, s[10:11]
s_and_b64 s[2:3], s[2:3], s[8:9]
v_cndmask_b32_e64 v5, v29, v35, s[2:3]
v_cmp_eq_f32_e64 s[2:3], v4, v58
v_mul_u32_u24_sdwa v15, v28, s33 dst_sel:DWORD dst_unused:UNUSED_PAD src0_sel:WORD_0 src1_sel:DWORD
v_mul_lo_u16_sdwa v15, v15, v59 dst_sel:DWORD dst_unused:UNUSED_PAD src0_sel:WORD_1 src1_sel:DWORD
v_cndmask_b32_e64 v4, 0, 1.0, s[2:3]
v_cmp_eq_f32_e64 s[2:3], v5, v48
v_sub_u16_e32 v15, v28, v15
v_sub_u16_e32 v14, v50, v14
v_cndmask_b32_e64 v5, 0, 1.0, s[2:3]
s_and_b64 s[2:3], s[0:1], s[4:5]
v_cndmask_b32_e64 v12, v29, v24, s[2:3]
s_and_b64 s[0:1], s[0:1], s[8:9]
v_cndmask_b32_e64 v13, v29, v43, s[0:1]
v_cmp_eq_f32_e64 s[0:1], v12, v23
v_or_b32_e32 v18, v15, v21
v_or_b32_e32 v17, v14, v21
v_cndmask_b32_e64 v12, 0, 1.0, s[0:1]
v_cmp_eq_f32_e64 s[0:1], v13, v47
v_cmp_eq_u32_e64 s[2:3], 0, v18
s_and_b64 s[2:3], s[6:7], s[2:3]
v_cndmask_b32_e64 v13, 0, 1.0, s[0:1]
v_cmp_eq_u32_e64 s[0:1], 0, v17
v_or_b32_e32 v14, v14, v8
v_or_b32_e32 v8, v15, v8
s_and_b64 s[0:1], s[6:7], s[0:1]
s_and_b64 s[6:7], s[22:23], s[2:3]
v_cmp_eq_u32_e64 s[2:3], 0, v8
v_rcp_f32_e32 v8, v56
v_rcp_f32_e32 v15, v27
v_rcp_f32_e32 v17, v46
s_and_b64 s[4:5], s[34:35], s[0:1]
v_cmp_eq_u32_e64 s[0:1], 0, v14
v_rcp_f32_e32 v14, v49
s_and_b64 s[0:1], vcc, s[0:1]
s_and_b64 s[2:3], vcc, s[2:3]
v_mul_f32_e32 v4, v4, v8
v_mul_f32_e32 v8, v12, v15
s_and_b64 vcc, s[30:31], s[4:5]
s_and_b64 s[0:1], s[34:35], s[0:1]
v_mul_f32_e32 v12, v13, v17
v_cndmask_b32_e32 v8, 0, v8, vcc
s_and_b64 vcc, s[20:21], s[6:7]
s_and_b64 s[2:3], s[22:23], s[2:3]
v_cndmask_b32_e32 v12, 0, v12, vcc
s_and_b64 vcc, s[30:31], s[0:1]
v_mul_f32_e32 v5, v5, v14
v_cndmask_b32_e32 v4, 0, v4, vcc
s_and_b64 vcc, s[20:21], s[2:3]
v_cndmask_b32_e32 v13, 0, v5, vcc
v_add_f32_e32 v5, v8, v4
v_mul_u32_u24_e32 v8, 0x5556, v7
v_mul_lo_u16_sdwa v8, v8, v59 dst_sel:DWORD dst_unused:UNUSED_PAD src0_sel:WORD_1 src1_sel:DWORD
v_sub_u16_e32 v7, v7, v8
v_mul_u32_u24_e32 v8, 0x5556, v6
v_mul_lo_u16_sdwa v8, v8, v59 dst_sel:DWORD dst_unused:UNUSED_PAD src0_sel:WORD_1 src1_sel:DWORD
v_sub_u16_e32 v6, v6, v8
v_or_b32_e32 v6, v6, v11
v_or_b32_e32 v7, v7, v11
v_cmp_eq_u16_e64 s[0:1], 0, v6
v_rcp_f32_e32 v6, v16
v_cmp_eq_u16_e32 vcc, 0, v7
v_rcp_f32_e32 v7, v42
s_and_b64 s[2:3], s[12:13], vcc
s_and_b64 s[0:1], s[12:13], s[0:1]
s_and_b64 s[2:3], s[34:35], s[2:3]
s_and_b64 s[0:1], s[22:23], s[0:1]
v_mul_f32_e32 v6, v9, v6
s_and_b64 vcc, s[30:31], s[2:3]
v_mul_f32_e32 v8, v10, v7
v_cndmask_b32_e32 v7, 0, v6, vcc
s_and_b64 vcc, s[20:21], s[0:1]
v_add_f32_e32 v4, v12, v13
v_cndmask_b32_e32 v6, 0, v8, vcc
v_add_f32_e32 v2, v2, v3
v_lshlrev_b32_e32 v3, 3, v1
v_pk_add_f32 v[4:5], v[6:7], v[4:5]
v_add_lshl_u32 v3, v3, v0, 2
v_add_u32_e32 v1, -1, v1
v_add_u32_e32 v0, -1, v0
v_add_f32_e32 v2, v2, v4
v_max_u32_e32 v0, v1, v0
v_add_f32_e32 v2, v2, v5
v_cmp_gt_u32_e32 vcc, 5, v0
s_nop 1
v_cndmask_b32_e32 v0, 0, v2, vcc
s_waitcnt lgkmcnt(0)
global_store_dword v3, v0, s[40:41]
s_endpgm
