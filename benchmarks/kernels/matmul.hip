// LDS + barriers: C = A * B for n x n f32 matrices (n a multiple of 16), 16x16 tiles, one element per work-item.
#define KERNEL extern "C" __attribute__((global))
#define TILE 16

KERNEL void matmul(const float *A, const float *B, float *C, unsigned n) {
  __attribute__((shared)) float As[TILE][TILE + 1];
  __attribute__((shared)) float Bs[TILE][TILE + 1];
  unsigned tx = __builtin_amdgcn_workitem_id_x(), ty = __builtin_amdgcn_workitem_id_y();
  unsigned row = __builtin_amdgcn_workgroup_id_y() * TILE + ty, col = __builtin_amdgcn_workgroup_id_x() * TILE + tx;
  float acc = 0.0f;
  for (unsigned k0 = 0; k0 < n; k0 += TILE) {
    As[ty][tx] = A[row * n + k0 + tx];
    Bs[ty][tx] = B[(k0 + ty) * n + col];
    __builtin_amdgcn_s_barrier();
    for (unsigned k = 0; k < TILE; k++)
      acc = __builtin_fmaf(As[ty][k], Bs[k][tx], acc);
    __builtin_amdgcn_s_barrier();
  }
  C[row * n + col] = acc;
}
