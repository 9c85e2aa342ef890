// targets: gfx1100 gfx1100-w64 gfx1201 gfx942 gfx950
// Deliberately broken: matmul_tiled.hip without the barrier after a tile's products, so a wave may
// load the next tile over As/Bs while other waves still read the last one (write-after-read on LDS).
#define matmul_tiled matmul_tiled_racy
#define REUSE_BARRIER()
#include "matmul_tiled.hip"
