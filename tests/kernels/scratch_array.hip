// targets: gfx1100 gfx1100-w64 gfx1201 gfx942 gfx950
// A 1 KiB private array per work-item, indexed by data: too big and too dynamic for registers, so
// it lives in scratch (the private segment; scratch_store/scratch_load on these targets).
//   priv[j] = x * j + (j ^ i)               for j = 0..255
//   16 times: p = idx[i*16 + k] % 256; acc += priv[p]; priv[(7p + k) % 256] = acc
//   out[i] = acc
#include "common.h"

#define SIZE 256

KERNEL void scratch_array(const int *in, const int *idx, int *out) {
  int priv[SIZE];
  uint i = wg_x() * 64 + tid_x();
  int x = in[i];
#pragma clang loop unroll(disable)
  for (int j = 0; j < SIZE; j++)
    priv[j] = x * j + (j ^ (int)i);
  int acc = 0;
#pragma clang loop unroll(disable)
  for (int k = 0; k < 16; k++) {
    int p = idx[i * 16 + k] & (SIZE - 1);
    acc += priv[p];
    priv[(7 * p + k) & (SIZE - 1)] = acc;
  }
  out[i] = acc;
}
