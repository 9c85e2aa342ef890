// Host stand-in for ../common.h: compiles a kernel's source as plain C++ for the CPU, one thread per
// work-item, so that test_host_crosscheck.py can check the numpy references against what the
// source says (not against the hardware: cross-lane and matrix builtins are not modelled here).
#pragma once

#include <barrier>
#include <cmath>
#include <cstdint>
#include <cstring>

#define KERNEL extern "C"
#define SHARED static  // one copy shared by the workgroup's threads; workgroups run one at a time

typedef unsigned int uint;
typedef unsigned short ushort;
typedef unsigned char uchar;
typedef unsigned long ulong;

struct host_dispatch {
  uint grid[3], block[3];
  std::barrier<> *barrier;
  unsigned char packet[64];  // hsa_kernel_dispatch_packet_t
};
extern host_dispatch g_dispatch;
extern thread_local uint g_tid[3], g_wg[3];

static inline uint tid_x() { return g_tid[0]; }
static inline uint tid_y() { return g_tid[1]; }
static inline uint tid_z() { return g_tid[2]; }
static inline uint wg_x() { return g_wg[0]; }
static inline uint wg_y() { return g_wg[1]; }
static inline uint wg_z() { return g_wg[2]; }
static inline void syncthreads() { g_dispatch.barrier->arrive_and_wait(); }

#define __builtin_amdgcn_workgroup_size_x() (g_dispatch.block[0])
#define __builtin_amdgcn_workgroup_size_y() (g_dispatch.block[1])
#define __builtin_amdgcn_workgroup_size_z() (g_dispatch.block[2])
#define __builtin_amdgcn_grid_size_x() (g_dispatch.grid[0] * g_dispatch.block[0])
#define __builtin_amdgcn_grid_size_y() (g_dispatch.grid[1] * g_dispatch.block[1])
#define __builtin_amdgcn_grid_size_z() (g_dispatch.grid[2] * g_dispatch.block[2])
#define __builtin_amdgcn_dispatch_ptr() ((const void *)g_dispatch.packet)
#define __builtin_amdgcn_s_sleep(n) ((void)0)

// The hardware's approximations, as the exact functions they approximate.
#define __builtin_amdgcn_sinf(x) ((float)std::sin(2.0 * M_PI * (double)(x)))
#define __builtin_amdgcn_cosf(x) ((float)std::cos(2.0 * M_PI * (double)(x)))
#define __builtin_amdgcn_exp2f(x) ((float)std::exp2((double)(x)))
#define __builtin_amdgcn_logf(x) ((float)std::log2((double)(x)))
#define __builtin_amdgcn_rcpf(x) ((float)(1.0 / (double)(x)))
#define __builtin_amdgcn_sqrtf(x) ((float)std::sqrt((double)(x)))
#define __builtin_amdgcn_rsqf(x) ((float)(1.0 / std::sqrt((double)(x))))
#define __builtin_amdgcn_fractf(x) ((x) - std::floor(x))
#define __builtin_amdgcn_ldexpf(x, k) std::ldexp((x), (k))

// HIP's scoped atomics, without the scope.
#define __hip_atomic_fetch_add(p, v, order, scope) __atomic_fetch_add((p), (v), (order))
#define __hip_atomic_fetch_max(p, v, order, scope) __atomic_fetch_max((p), (v), (order))
#define __hip_atomic_fetch_min(p, v, order, scope) __atomic_fetch_min((p), (v), (order))
#define __hip_atomic_fetch_or(p, v, order, scope) __atomic_fetch_or((p), (v), (order))
#define __hip_atomic_load(p, order, scope) __atomic_load_n((p), (order))
#define __hip_atomic_compare_exchange_strong(p, expected, desired, success, failure, scope) \
  __atomic_compare_exchange_n((p), (expected), (desired), false, (success), (failure))
