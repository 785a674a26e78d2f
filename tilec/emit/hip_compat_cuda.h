/* tilec: the HIP names that tilec's HIP emitter uses, mapped to CUDA.
 *
 * Prepend this header to tilec's HIP C++ (tilec.emit.hip.cuda_compat_source) and the source
 * compiles with NVRTC or nvcc for NVIDIA GPUs. It covers the PORTABLE emission only
 * (lower-to-hip{portable=true}: wave 32, no MFMA / DPP / ds_swizzle builtins), so the semantics of
 * the emitted HIP C++ can be tested on an NVIDIA GPU. Self-contained: no #include under NVRTC.
 *
 * What it maps:
 * - types: int8_t..uint64_t, uintptr_t (NVRTC has no <stdint.h>); tilec_f16 is the half's bits
 *   (uint16_t) with PTX cvt conversions (round to nearest even), tilec_f16_bits(b) its constant;
 * - TILEC_VECTOR(T, N, NAME): a 16-byte-aligned (N * sizeof(T)) struct with operator[] and a
 *   splat constructor, standing in for clang's ext_vector_type (one vector load/store each);
 * - __shfl_xor(v, mask, width) -> __shfl_xor_sync(full mask, v, mask, width);
 * - __lane_id() -> %laneid;
 * - tilec_load_relaxed / _acquire, tilec_store_relaxed / _release (the HIP prelude's agent-scope
 *   atomics): volatile accesses, with __threadfence() after an acquire load and before a release
 *   store; tilec_fetch_add -> atomicAdd.
 * threadIdx, blockIdx, blockDim, gridDim, __syncthreads, __launch_bounds__, __shared__,
 * __global__, __device__, __forceinline__, __float_as_uint & co. and the math library (expf,
 * logf, tanhf, erff, rsqrtf, powf, sqrtf, fabsf and their double versions) are the same in CUDA.
 */
#ifndef TILEC_HIP_COMPAT_CUDA
#define TILEC_HIP_COMPAT_CUDA 1

#if defined(__CUDACC_RTC__)
typedef signed char int8_t;
typedef short int16_t;
typedef int int32_t;
typedef long long int64_t;
typedef unsigned char uint8_t;
typedef unsigned short uint16_t;
typedef unsigned int uint32_t;
typedef unsigned long long uint64_t;
typedef unsigned long long uintptr_t;
#else
#include <stdint.h>
#endif

typedef uint16_t tilec_f16;

static __device__ __forceinline__ float tilec_f16_to_f32(tilec_f16 h) {
  float f;
  asm("cvt.f32.f16 %0, %1;" : "=f"(f) : "h"(h));
  return f;
}
static __device__ __forceinline__ tilec_f16 tilec_f32_to_f16(float f) {
  tilec_f16 h;
  asm("cvt.rn.f16.f32 %0, %1;" : "=h"(h) : "f"(f));
  return h;
}
static __device__ __forceinline__ tilec_f16 tilec_f16_bits(uint16_t b) { return b; }

#define TILEC_VECTOR(T, N, NAME)                                                   \
  struct alignas(sizeof(T) * (N)) NAME {                                           \
    T v[N];                                                                        \
    NAME() = default;                                                              \
    __device__ __forceinline__ explicit NAME(T s) {                                \
      _Pragma("unroll") for (int i = 0; i < (N); i++) v[i] = s;                    \
    }                                                                              \
    __device__ __forceinline__ T& operator[](int i) { return v[i]; }               \
    __device__ __forceinline__ const T& operator[](int i) const { return v[i]; }   \
  };

#define __shfl_xor(v, mask, width) __shfl_xor_sync(0xFFFFFFFFu, (v), (mask), (width))

static __device__ __forceinline__ unsigned __lane_id() {
  unsigned r;
  asm volatile("mov.u32 %0, %%laneid;" : "=r"(r));
  return r;
}

template <class T> static __device__ __forceinline__ T tilec_load_relaxed(T* p) { return *(volatile T*)p; }
template <class T> static __device__ __forceinline__ T tilec_load_acquire(T* p) {
  T v = *(volatile T*)p;
  __threadfence();
  return v;
}
template <class T> static __device__ __forceinline__ void tilec_store_relaxed(T* p, T v) { *(volatile T*)p = v; }
template <class T> static __device__ __forceinline__ void tilec_store_release(T* p, T v) {
  __threadfence();
  *(volatile T*)p = v;
}
template <class T> static __device__ __forceinline__ T tilec_fetch_add(T* p, T v) { return atomicAdd(p, v); }

#endif /* TILEC_HIP_COMPAT_CUDA */
