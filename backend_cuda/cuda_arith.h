// backend_cuda/cuda_arith.h: the convention for the per-element and per-row
// arithmetic of the CUDA kernels.
//
// Each kernel's arithmetic is a `static inline CUDA_HD` function in one of the
// cuda_arith_*.h headers, written in the common subset of C11 and C++ (no
// templates, no overloading, no CUDA types or intrinsics): nvcc compiles it
// for the GPU, where the kernel calls it per element or per row, and the C
// compiler compiles the very same text for the host tests (tests/
// test_cuda_arith_*.c), which check it against the cpu backend's kernels on
// every machine, with or without a GPU. The kernels themselves only index:
// which element or row this thread handles, then one call.
#ifndef DDPLAB_BACKEND_CUDA_ARITH_H
#define DDPLAB_BACKEND_CUDA_ARITH_H

#ifdef __CUDACC__
#define CUDA_HD __host__ __device__
#else
#define CUDA_HD
#endif

#endif
