# Detects what the CUDA backend needs: the CUDA toolkit, a working nvcc,
# cuBLAS and NCCL (>= 2.13, for ncclGetLastError and bf16). When all are there
# it enables the CUDA language (here, at the top level, because every target
# that links the backend must see it), defines the imported target
# ddplab::nccl and sets DDPLAB_HAVE_CUDA. When something is missing it sets
# DDPLAB_CUDA_HINT and leaves the build CPU-only: it never fails the build.
#
# Included from the top-level CMakeLists.txt (file scope, so enable_language
# is allowed); `return()` ends this file, not the caller.
#
# GPU architectures: sm_80 (A100) and sm_90 (H100, H200) as machine code, plus
# compute_90 PTX that newer GPUs compile at load time. Override with
# -DCMAKE_CUDA_ARCHITECTURES=... (nvcc 13 accepts 75 and newer).
set(DDPLAB_CUDA_HINT "install the CUDA toolkit with cuBLAS and NCCL (e.g. under /usr/local/cuda), or pass -DCUDAToolkit_ROOT=<dir>")

if(NOT DDPLAB_SANITIZE STREQUAL "")
  # nvcc cannot take the sanitizer flags, and cudart is not instrumented.
  set(DDPLAB_CUDA_HINT "not built in sanitizer builds (configure with -DDDPLAB_CUDA=OFF there)")
  return()
endif()

find_package(CUDAToolkit QUIET)
if(NOT CUDAToolkit_FOUND)
  return()
endif()
if(NOT TARGET CUDA::cublas)
  set(DDPLAB_CUDA_HINT "cuBLAS not found in the CUDA toolkit at ${CUDAToolkit_LIBRARY_DIR}")
  return()
endif()

# NCCL: installed into the toolkit, or from the libnccl-dev package.
find_library(NCCL_LIBRARY nccl HINTS ${CUDAToolkit_LIBRARY_DIR} /usr/local/cuda/lib64)
find_path(NCCL_INCLUDE_DIR nccl.h HINTS ${CUDAToolkit_INCLUDE_DIRS} /usr/local/cuda/include)
if(NOT NCCL_LIBRARY OR NOT NCCL_INCLUDE_DIR)
  set(DDPLAB_CUDA_HINT "NCCL not found: install libnccl-dev or NCCL into the CUDA toolkit (or pass -DNCCL_LIBRARY=... -DNCCL_INCLUDE_DIR=...)")
  return()
endif()
file(STRINGS "${NCCL_INCLUDE_DIR}/nccl.h" ddplab_nccl_defs REGEX "^#define NCCL_(MAJOR|MINOR|PATCH) ")
string(REGEX REPLACE ".*NCCL_MAJOR ([0-9]+).*" "\\1" ddplab_nccl_major "${ddplab_nccl_defs}")
string(REGEX REPLACE ".*NCCL_MINOR ([0-9]+).*" "\\1" ddplab_nccl_minor "${ddplab_nccl_defs}")
string(REGEX REPLACE ".*NCCL_PATCH ([0-9]+).*" "\\1" ddplab_nccl_patch "${ddplab_nccl_defs}")
set(DDPLAB_NCCL_VERSION "${ddplab_nccl_major}.${ddplab_nccl_minor}.${ddplab_nccl_patch}")
if(DDPLAB_NCCL_VERSION VERSION_LESS 2.13)
  set(DDPLAB_CUDA_HINT "NCCL ${DDPLAB_NCCL_VERSION} at ${NCCL_INCLUDE_DIR} is too old: 2.13 or newer is needed")
  return()
endif()

# nvcc: check that it works (with this host compiler) before enabling it,
# because a failing enable_language would stop the whole configure.
if(NOT CMAKE_CUDA_COMPILER AND NOT DEFINED ENV{CUDACXX} AND EXISTS "${CUDAToolkit_NVCC_EXECUTABLE}")
  set(ENV{CUDACXX} "${CUDAToolkit_NVCC_EXECUTABLE}")
endif()
include(CheckLanguage)
check_language(CUDA)
if(NOT CMAKE_CUDA_COMPILER)
  set(DDPLAB_CUDA_HINT "nvcc not found or not working with this host compiler (set CUDACXX or -DCMAKE_CUDA_COMPILER)")
  return()
endif()
if(NOT DEFINED CMAKE_CUDA_ARCHITECTURES)
  set(CMAKE_CUDA_ARCHITECTURES "80-real;90")
endif()
# One CUDA runtime in every program: the shared libcudart that CUDA::cudart,
# cuBLAS and NCCL use, not the static one CMake would add to executables that
# link the backend.
set(CMAKE_CUDA_RUNTIME_LIBRARY Shared)
enable_language(CUDA)

if(NOT TARGET ddplab::nccl)
  add_library(ddplab::nccl UNKNOWN IMPORTED)
  set_target_properties(ddplab::nccl PROPERTIES
    IMPORTED_LOCATION "${NCCL_LIBRARY}"
    INTERFACE_INCLUDE_DIRECTORIES "${NCCL_INCLUDE_DIR}")
endif()

set(DDPLAB_HAVE_CUDA ON)
message(STATUS "CUDA backend: toolkit ${CUDAToolkit_VERSION}, NCCL ${DDPLAB_NCCL_VERSION}, architectures ${CMAKE_CUDA_ARCHITECTURES}")
