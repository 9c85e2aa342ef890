// Shared definitions for the test kernels. No HIP headers: kernels use clang's AMDGPU builtins.
#pragma once

#define KERNEL extern "C" __attribute__((global))
#define SHARED __attribute__((shared))

typedef unsigned int uint;
typedef unsigned short ushort;
typedef unsigned char uchar;
typedef unsigned long ulong;

static __attribute__((device)) inline uint tid_x() { return __builtin_amdgcn_workitem_id_x(); }
static __attribute__((device)) inline uint tid_y() { return __builtin_amdgcn_workitem_id_y(); }
static __attribute__((device)) inline uint tid_z() { return __builtin_amdgcn_workitem_id_z(); }
static __attribute__((device)) inline uint wg_x() { return __builtin_amdgcn_workgroup_id_x(); }
static __attribute__((device)) inline uint wg_y() { return __builtin_amdgcn_workgroup_id_y(); }
static __attribute__((device)) inline uint wg_z() { return __builtin_amdgcn_workgroup_id_z(); }

// __syncthreads(): s_barrier alone orders nothing, so fence LDS/global around it as HIP does.
static __attribute__((device)) inline void syncthreads() {
  __builtin_amdgcn_fence(__ATOMIC_RELEASE, "workgroup");
  __builtin_amdgcn_s_barrier();
  __builtin_amdgcn_fence(__ATOMIC_ACQUIRE, "workgroup");
}

// The lane's index within its wave (v_mbcnt_lo/hi, as HIP's __lane_id()).
static __attribute__((device)) inline uint lane_id() {
  return __builtin_amdgcn_mbcnt_hi(~0u, __builtin_amdgcn_mbcnt_lo(~0u, 0u));
}
