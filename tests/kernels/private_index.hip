// targets: gfx1100 gfx1100-w64 gfx1201 gfx942 gfx950
// A private array small enough for VGPRs, indexed by kernel arguments (the same index in every lane): the
// compiler keeps it in registers and indexes them (gfx942/gfx950: s_set_gpr_idx_on around a v_mov_b32; RDNA:
// v_movrels/v_movreld with M0).
//   v[j] = 2 * in[i*32 + j]; out[i] = v[n % 32]; v[m % 32] = 3; rows[i*32 + j] = v[j]
#include "common.h"

#define SIZE 32

KERNEL void private_index(const float *in, float *out, float *rows, int n, int m) {
  uint i = wg_x() * 64 + tid_x();
  float v[SIZE];
  for (int j = 0; j < SIZE; j++)
    v[j] = 2.0f * in[i * SIZE + j];
  out[i] = v[n & (SIZE - 1)];
  v[m & (SIZE - 1)] = 3.0f;
  for (int j = 0; j < SIZE; j++)
    rows[i * SIZE + j] = v[j];
}
