// targets: gfx1100 gfx1100-w64 gfx1201 gfx942 gfx950
// Divergent control flow: nested ifs, a data-dependent loop (Collatz steps), a loop with a
// divergent break, a switch, and a uniform loop whose trip count is a kernarg (SCC branches, not
// exec masks).
#include "common.h"

KERNEL void divergence(const int *in, int *out, int reps, uint n) {
  uint i = wg_x() * 256 + tid_x();
  if (i >= n)
    return;
  int x = in[i], r = 0;
  if (x & 1) {
    if (x & 2) {
      uint c = (uint)x;  // Collatz steps to 1: a loop whose trip count differs per lane
      while (c != 1) {
        c = (c & 1) ? 3 * c + 1 : c / 2;
        r++;
      }
    } else {
      for (int j = 0; j < (x & 31); j++) {  // a loop leaving early on some lanes
        r += j * x;
        if (r > 5000)
          break;
      }
    }
  } else {
    switch ((x >> 1) % 4) {
    case 0:
      r = -x;
      break;
    case 1:
      for (int y = x; y > 0; y >>= 3)  // digit sum in base 8
        r += y & 7;
      break;
    case 2:
      r = x * x;
      break;
    default:
      r = (x % 3 == 0) ? 3 : ((x % 5 == 0) ? 5 : 7);
      break;
    }
  }
  for (int k = 0; k < reps; k++)  // uniform: the same trip count on every lane
    r = (int)(((uint)r ^ (uint)k) * 3u + 1u);
  out[i] = r;
}
