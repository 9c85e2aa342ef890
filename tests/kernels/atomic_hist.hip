// targets: gfx1100 gfx1100-w64 gfx1201 gfx942 gfx950
// Global atomics whose final memory is deterministic whatever the order:
//   hist[in[i] % 64] += 1     global_atomic_add_u32, result unused
//   slots[atomicAdd(counter, 1)] = i
//                             the returning form: each work-item gets a distinct old value, so
//                             slots ends up a permutation of 0..n-1 and counter == n
#include "common.h"

KERNEL void atomic_hist(const uint *in, uint *hist, uint *counter, uint *slots) {
  uint i = wg_x() * 256 + tid_x();
  __hip_atomic_fetch_add(&hist[in[i] % 64], 1u, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_AGENT);
  uint slot = __hip_atomic_fetch_add(counter, 1u, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_AGENT);
  slots[slot] = i;
}
