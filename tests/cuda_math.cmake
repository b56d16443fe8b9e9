# The CUDA backend's math kernels on a GPU, each against the cpu backend's on
# the same inputs (exit 77, skipped, without a GPU).
if(DDPLAB_HAVE_CUDA)
  # activations, add/axpy/scale/fill, sumsq, nonfinite, cast, SGD, Adam,
  # embedding (backend_cuda/cuda_math_{act,vec,optim,embed}.cu)
  ddplab_add_test(test_cuda_math_vec
    SOURCES test_cuda_math_vec.c test_cuda_vec_data.c test_env.c
    LIBS ddplab_cuda ddplab_cpu CUDA::cudart
    LABELS cuda
    TIMEOUT 300)
endif()
if(DDPLAB_HAVE_CUDA)
  # gemm, linear, layernorm, batchnorm, attention, cross-entropy
  # (backend_cuda/cuda_math_{linear,norm,attention,loss}.cu)
  ddplab_add_test(test_cuda_math_nn
    SOURCES test_cuda_math_nn.c
    LIBS ddplab_cuda ddplab_cpu CUDA::cudart
    LABELS cuda
    TIMEOUT 300)
endif()
