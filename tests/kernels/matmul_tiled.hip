// targets: gfx1100 gfx1100-w64 gfx1201 gfx942 gfx950
// C = A * B for 64x64 f32 matrices (row-major), in 32x32 tiles: a 2x2 grid of workgroups of 32x8
// work-items, each work-item computing 4 elements of its tile (rows ty, ty+8, ty+16, ty+24).
// A and B tiles are staged through LDS with barriers. Each element is a chain of fmaf over
// k = 0..63 in order, so the result is exact against a reference that does the same.
#include "common.h"

#ifndef REUSE_BARRIER  // matmul_tiled_racy.hip leaves it out
#define REUSE_BARRIER() syncthreads()
#endif

#define N 64
#define TILE 32

KERNEL void matmul_tiled(const float *A, const float *B, float *C) {
  SHARED float As[TILE][TILE + 1];  // +1: no LDS bank conflicts on the column reads
  SHARED float Bs[TILE][TILE + 1];
  uint tx = tid_x(), ty = tid_y();
  uint row0 = wg_y() * TILE, col0 = wg_x() * TILE;
  float acc[4] = {0.0f, 0.0f, 0.0f, 0.0f};
  for (uint k0 = 0; k0 < N; k0 += TILE) {
    for (uint q = 0; q < 4; q++) {
      uint r = ty + 8 * q;
      As[r][tx] = A[(row0 + r) * N + k0 + tx];
      Bs[r][tx] = B[(k0 + r) * N + col0 + tx];
    }
    syncthreads();
    for (uint k = 0; k < TILE; k++)
      for (uint q = 0; q < 4; q++)
        acc[q] = __builtin_fmaf(As[ty + 8 * q][k], Bs[k][tx], acc[q]);
    REUSE_BARRIER();  // the next tile's loads overwrite As and Bs
  }
  for (uint q = 0; q < 4; q++)
    C[(row0 + ty + 8 * q) * N + col0 + tx] = acc[q];
}
