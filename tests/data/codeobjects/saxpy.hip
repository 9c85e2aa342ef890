// A small HIP kernel: a bounds check (a branch), kernel arguments, global loads and stores.
#define KERNEL extern "C" __attribute__((global))

KERNEL void saxpy(float a, const float *x, float *y, unsigned n) {
  unsigned i = __builtin_amdgcn_workgroup_id_x() * 64 + __builtin_amdgcn_workitem_id_x();
  if (i < n)
    y[i] = a * x[i] + y[i];
}

// LDS (group segment) use and a barrier, so the descriptor has a nonzero group segment size.
KERNEL void reverse64(int *data) {
  __attribute__((shared)) int tile[64];
  unsigned t = __builtin_amdgcn_workitem_id_x();
  unsigned base = __builtin_amdgcn_workgroup_id_x() * 64;
  tile[t] = data[base + t];
  __builtin_amdgcn_s_barrier();
  data[base + t] = tile[63 - t];
}
