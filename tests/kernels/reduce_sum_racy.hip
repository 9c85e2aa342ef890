// targets: gfx1100 gfx1100-w64 gfx1201 gfx942 gfx950
// Deliberately broken: reduce_sum.hip without the barrier between the tree's steps, so a step reads
// partial sums that other waves may not have added yet (a read-after-write race on LDS).
#define reduce_sum reduce_sum_racy
#define STEP_BARRIER()
#include "reduce_sum.hip"
