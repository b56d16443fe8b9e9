// tests/test_cuda_world.c: placement of ranks on GPUs and the choice of
// collective implementation (backend_cuda/cuda_world.c), and the arithmetic
// of ddplab's device collectives (backend_cuda/cuda_arith_coll.h) against the
// cpu backend's sim_reduce_inplace. Host code only: runs on every machine.
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "coll/coll.h"       // defines: sim_algo_nccl_name
#include "cuda_arith_coll.h" // defines: cuda_reduce_elem
#include "cuda_world.h"      // defines: cuda_world_plan, cuda_world_device

static int test_one_gpu_four_ranks(void) {
    CudaWorldPlan p;
    char err[256] = "";
    CHECK_EQ_INT(cuda_world_plan(4, 1, NULL, &p, err, sizeof err), 0);
    CHECK_EQ_INT(p.ngpus, 1);
    CHECK_EQ_INT(p.max_per_gpu, 4);
    CHECK_EQ_INT(p.impl, CUDA_IMPL_DEVICE);
    for (int r = 0; r < 4; r++)
        CHECK_EQ_INT(cuda_world_device(&p, r), 0);
    CHECK(strcmp(cuda_world_impl_name(p.impl), "ddplab-device") == 0);
    return 0;
}

static int test_blocks(void) {
    CudaWorldPlan p;
    char err[256] = "";
    // 2 GPUs x 4 ranks: 0,0,1,1 (neighbours share)
    CHECK_EQ_INT(cuda_world_plan(4, 2, "auto", &p, err, sizeof err), 0);
    int want24[] = {0, 0, 1, 1};
    for (int r = 0; r < 4; r++)
        CHECK_EQ_INT(cuda_world_device(&p, r), want24[r]);
    CHECK_EQ_INT(p.impl, CUDA_IMPL_DEVICE);
    // 4 GPUs x 4 ranks: one each, NCCL
    CHECK_EQ_INT(cuda_world_plan(4, 4, NULL, &p, err, sizeof err), 0);
    for (int r = 0; r < 4; r++)
        CHECK_EQ_INT(cuda_world_device(&p, r), r);
    CHECK_EQ_INT(p.impl, CUDA_IMPL_NCCL);
    CHECK(strcmp(cuda_world_impl_name(p.impl), "nccl") == 0);
    // 8 GPUs x 2 ranks: the first two GPUs
    CHECK_EQ_INT(cuda_world_plan(2, 8, NULL, &p, err, sizeof err), 0);
    CHECK_EQ_INT(p.ngpus, 2);
    CHECK_EQ_INT(cuda_world_device(&p, 1), 1);
    CHECK_EQ_INT(p.impl, CUDA_IMPL_NCCL);
    // 3 GPUs x 8 ranks: 3,3,2 ranks, never more than ceil(8/3)
    CHECK_EQ_INT(cuda_world_plan(8, 3, NULL, &p, err, sizeof err), 0);
    CHECK_EQ_INT(p.max_per_gpu, 3);
    int count[3] = {0, 0, 0};
    for (int r = 0; r < 8; r++)
        count[cuda_world_device(&p, r)]++;
    CHECK(count[0] <= 3 && count[1] <= 3 && count[2] <= 3 && count[0] + count[1] + count[2] == 8);
    return 0;
}

static int test_forced_and_bad(void) {
    CudaWorldPlan p;
    char err[256] = "";
    CHECK_EQ_INT(cuda_world_plan(4, 4, "device", &p, err, sizeof err), 0);
    CHECK_EQ_INT(p.impl, CUDA_IMPL_DEVICE);
    CHECK_EQ_INT(cuda_world_plan(4, 4, "nccl", &p, err, sizeof err), 0);
    CHECK_EQ_INT(p.impl, CUDA_IMPL_NCCL);
    CHECK_EQ_INT(cuda_world_plan(4, 1, "nccl", &p, err, sizeof err), -1);
    CHECK_STR_CONTAINS(err, "NCCL refuses two ranks");
    CHECK_STR_CONTAINS(err, "--coll-impl device");
    CHECK_EQ_INT(cuda_world_plan(4, 1, "gloo", &p, err, sizeof err), -1);
    CHECK_STR_CONTAINS(err, "unknown collective implementation 'gloo'");
    CHECK_EQ_INT(cuda_world_plan(0, 1, NULL, &p, err, sizeof err), -1);
    CHECK_EQ_INT(cuda_world_plan(2, 0, NULL, &p, err, sizeof err), -1);
    return 0;
}

// cuda_reduce_elem against sim_reduce_inplace, every dtype and operator.
// --algo reaches NCCL through NCCL_ALGO, read when communicators are made:
// ring and dbtree are NCCL's Ring and Tree; its own choice sets nothing.
static int test_nccl_algo(void) {
    CHECK(strcmp(sim_algo_nccl_name(SIM_ALGO_RING), "Ring") == 0);
    CHECK(strcmp(sim_algo_nccl_name(SIM_ALGO_DBTREE), "Tree") == 0);
    CHECK(sim_algo_nccl_name(SIM_ALGO_NCCL) == NULL);
    CHECK(sim_algo_nccl_name(SIM_ALGO_AUTO) == NULL);
    CHECK(sim_algo_nccl_name(SIM_ALGO_TREE) == NULL); // binomial: NCCL has none
    CHECK_EQ_INT(unsetenv("NCCL_ALGO"), 0);
    CHECK_EQ_INT(cuda_world_nccl_algo(NULL), 0);
    CHECK(getenv("NCCL_ALGO") == NULL);
    CHECK_EQ_INT(cuda_world_nccl_algo("Tree"), 0);
    CHECK(getenv("NCCL_ALGO") != NULL && strcmp(getenv("NCCL_ALGO"), "Tree") == 0);
    CHECK_EQ_INT(unsetenv("NCCL_ALGO"), 0);
    return 0;
}

static int test_reduce_arith(void) {
    const SimDtype dts[] = {SIM_FP32, SIM_FP16, SIM_BF16, SIM_INT32, SIM_INT64};
    const SimRedOp ops[] = {SIM_SUM, SIM_AVG, SIM_MAX, SIM_MIN, SIM_PROD};
    float fa[12] = {1.5f, -2.25f, 3e38f, -0.0f, NAN, 7.0f, 1e-8f, 65504.f, 3.0f, -1.0f, 0.1f, 2.f};
    float fb[12] = {2.5f, 2.25f, 3e38f, 0.0f, 1.0f, NAN, 1e-8f, 16.f, -3.0f, -1.0f, 0.2f, 1e30f};
    for (size_t d = 0; d < sizeof dts / sizeof dts[0]; d++)
        for (size_t o = 0; o < sizeof ops / sizeof ops[0]; o++) {
            unsigned char a[96], b[96], want[96], got[96];
            size_t esz = sim_dtype_size(dts[d]);
            for (int i = 0; i < 12; i++) {
                float va = fa[i], vb = fb[i];
                if (dts[d] == SIM_INT32 || dts[d] == SIM_INT64) {
                    va = (float)(i * 37 - 200);
                    vb = (float)(i * -91 + 13);
                }
                sim_elem_set(a, dts[d], (size_t)i, va);
                sim_elem_set(b, dts[d], (size_t)i, vb);
            }
            memcpy(want, a, 12 * esz);
            memcpy(got, a, 12 * esz);
            sim_reduce_inplace(want, b, 12, dts[d], ops[o]);
            for (size_t i = 0; i < 12; i++)
                cuda_reduce_elem(got, b, i, dts[d], ops[o]);
            if (memcmp(got, want, 12 * esz) != 0) {
                fprintf(stderr, "reduce %s %s differs from sim_reduce_inplace\n",
                        sim_dtype_name(dts[d]), sim_redop_name(ops[o]));
                return 1;
            }
        }
    return 0;
}

int main(void) {
    int failures = 0;
    RUN(test_one_gpu_four_ranks);
    RUN(test_blocks);
    RUN(test_forced_and_bad);
    RUN(test_reduce_arith);
    RUN(test_nccl_algo);
    return failures ? 1 : 0;
}
