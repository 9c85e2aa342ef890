// targets: gfx1100 gfx1100-w64 gfx1201 gfx942 gfx950
// Per-workgroup f32 sum: a tree over LDS halving the active work-items each step, a barrier
// between steps. The group size comes from the dispatch (hidden kernarg: hidden_group_size_x), so
// the tree works for any power-of-two size up to 256. out[g] = the sum of workgroup g's inputs,
// added in exactly the tree's order.
#include "common.h"

#ifndef STEP_BARRIER  // reduce_sum_racy.hip leaves it out
#define STEP_BARRIER() syncthreads()
#endif

KERNEL void reduce_sum(const float *in, float *out) {
  SHARED float partial[256];
  uint t = tid_x(), size = __builtin_amdgcn_workgroup_size_x();
  partial[t] = in[wg_x() * size + t];
  syncthreads();
  for (uint stride = size / 2; stride > 0; stride /= 2) {
    if (t < stride)
      partial[t] += partial[t + stride];
    STEP_BARRIER();
  }
  if (t == 0)
    out[wg_x()] = partial[0];
}
