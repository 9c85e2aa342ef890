// targets: gfx1100 gfx1100-w64
// D = A * B + C with v_wmma_f32_16x16x16_f16: A, B 32x32 f16, C, D 32x32 f32, row-major. One
// workgroup of 128 work-items; each wave takes 16x16 output tiles (wave32: 4 waves, one tile each;
// wave64: 2 waves, two tiles each) and chains two WMMAs over K = 0..15, 16..31.
// Register layouts (AMD's matrix instruction calculator for gfx11): lane l holds A row l%16 and
// B column l%16, element k in half k of the 16; lanes 16-31 (and 32-63 in wave64) repeat 0-15.
// C/D element (row, col) sits in lane col + 16 * (row % (wave/16)), VGPR row / (wave/16): wave32
// VGPR v holds rows 2v, 2v+1; wave64 rows 4v..4v+3.
#include "common.h"

typedef _Float16 half;
typedef _Float16 half16 __attribute__((ext_vector_type(16)));
typedef float float8 __attribute__((ext_vector_type(8)));
typedef float float4 __attribute__((ext_vector_type(4)));

#define N 32
#define ROWS_PER_VGPR (WAVE_SIZE / 16)
#define ACC_VGPRS (16 / ROWS_PER_VGPR)

#if WAVE_SIZE == 32
typedef float8 acc_t;
#define WMMA __builtin_amdgcn_wmma_f32_16x16x16_f16_w32
#else
typedef float4 acc_t;
#define WMMA __builtin_amdgcn_wmma_f32_16x16x16_f16_w64
#endif

KERNEL void wmma_f32_f16(const half *A, const half *B, const float *C, float *D) {
  uint lane = lane_id(), wave = tid_x() / WAVE_SIZE, waves = 128 / WAVE_SIZE;
  uint m = lane % 16, sub = lane / 16;
  for (uint tile = wave; tile < 4; tile += waves) {
    uint row0 = (tile / 2) * 16, col0 = (tile % 2) * 16;
    acc_t acc;
    for (uint v = 0; v < ACC_VGPRS; v++)
      acc[v] = C[(row0 + v * ROWS_PER_VGPR + sub) * N + col0 + m];
    for (uint k0 = 0; k0 < N; k0 += 16) {
      half16 a, b;
      for (uint k = 0; k < 16; k++) {
        a[k] = A[(row0 + m) * N + k0 + k];
        b[k] = B[(k0 + k) * N + col0 + m];
      }
      acc = WMMA(a, b, acc);
    }
    for (uint v = 0; v < ACC_VGPRS; v++)
      D[(row0 + v * ROWS_PER_VGPR + sub) * N + col0 + m] = acc[v];
  }
}
