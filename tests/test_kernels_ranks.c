// tests/test_kernels_ranks.c: the math kernels on several ranks at once.
// Each rank is a thread running the same ops on the same inputs, all at the
// same time: the BLAS calls, the per-rank scratch memory (mixed precision,
// norms, attention) and the optimizer must give every rank bit-identical
// results, which they would not if any state were shared between ranks.
// Then a thousand ranks, far more than the BLAS gate (cpu_math.c) lets into
// the library at once, and more than OpenBLAS has buffers for: without the
// gate the process crashes; with it the products agree bit for bit with one
// rank's and nobody is left waiting. Label cpu, so that it also runs under
// ThreadSanitizer.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "cpu_math.h"
#include "engine/comm.h"
#include "test_env.h"
#include "test_kernels_util.h"
#include "test_world.h"

#define R 4

typedef struct {
    float result[R][4]; // a checksum of each op's output, per rank
} Shared;

static float checksum(const SimTensor *t) {
    // position-weighted, so that any differing element changes it
    double s = 0;
    size_t n = sim_tensor_numel(t);
    for (size_t i = 0; i < n; i++)
        s += (double)tk_f(t)[i] * (double)(i % 97 + 1);
    return (float)s;
}

static SimStatus rank_main(SimRank *r, void *arg) {
    Shared *sh = arg;
    TkRng g;
    tk_seed(&g, 99); // the same inputs on every rank
    TkList l = {0};
    int64_t N = tenv_quick() ? 16 : 64, C = 96, OC = 80, B = 2, T = 8, NH = 4, Cq = 32;
    SimTensor inp, w, out, dinp, dw, qkv, aout, pre, att, dqkv, dpre, datt, m, v;
    int64_t maps[4] = {B, NH, T, T};
    if (tk_make(r, &l, &inp, SIM_FP32, 2, (int64_t[]){N, C}) ||
        tk_make(r, &l, &w, SIM_FP32, 2, (int64_t[]){OC, C}) ||
        tk_make(r, &l, &out, SIM_FP32, 2, (int64_t[]){N, OC}) ||
        tk_make(r, &l, &dinp, SIM_FP32, 2, (int64_t[]){N, C}) ||
        tk_make(r, &l, &dw, SIM_FP32, 2, (int64_t[]){OC, C}) ||
        tk_make(r, &l, &qkv, SIM_FP32, 3, (int64_t[]){B, T, 3 * Cq}) ||
        tk_make(r, &l, &dqkv, SIM_FP32, 3, (int64_t[]){B, T, 3 * Cq}) ||
        tk_make(r, &l, &aout, SIM_FP32, 3, (int64_t[]){B, T, Cq}) ||
        tk_make(r, &l, &pre, SIM_FP32, 4, maps) || tk_make(r, &l, &att, SIM_FP32, 4, maps) ||
        tk_make(r, &l, &dpre, SIM_FP32, 4, maps) || tk_make(r, &l, &datt, SIM_FP32, 4, maps) ||
        tk_make(r, &l, &m, SIM_FP32, 2, (int64_t[]){OC, C}) ||
        tk_make(r, &l, &v, SIM_FP32, 2, (int64_t[]){OC, C})) {
        tk_free(r, &l);
        return SIM_ENOMEM;
    }
    tk_fill_normal(&g, tk_f(&inp), N * C, 1);
    tk_fill_normal(&g, tk_f(&w), OC * C, 0.1f);
    tk_fill_normal(&g, tk_f(&qkv), B * T * 3 * Cq, 1);
    SimStatus st = SIM_OK;
    SimAdamHyper ah = {.lr = 1e-3, .beta1 = 0.9, .beta2 = 0.999, .eps = 1e-8, .weight_decay = 0.1,
                       .decoupled = 1};
    for (int it = 0; it < 5 && st == SIM_OK; it++) {
        SimDtype amp = it % 2 ? SIM_FP16 : SIM_BF16;
        st = sim_op_linear_forward(r, &out, &inp, &w, NULL, amp);
        if (st == SIM_OK)
            st = sim_op_linear_backward(r, &dinp, &dw, NULL, &out, &inp, &w, amp);
        if (st == SIM_OK)
            st = sim_op_attention_forward(r, &aout, &pre, &att, &qkv, (int)NH);
        if (st == SIM_OK)
            st = sim_op_attention_backward(r, &dqkv, &dpre, &datt, &aout, &qkv, &att, (int)NH);
        ah.step = it + 1;
        if (st == SIM_OK)
            st = sim_op_adam_step(r, &w, &dw, &m, &v, 0, 0, &ah);
    }
    sh->result[r->rank][0] = checksum(&out);
    sh->result[r->rank][1] = checksum(&dinp);
    sh->result[r->rank][2] = checksum(&dqkv);
    sh->result[r->rank][3] = checksum(&w);
    tk_free(r, &l);
    return st;
}

static int test_ranks_agree(void) {
    static Shared sh;
    CHECK_EQ_INT(tworld_run_cpu(R, 0, rank_main, &sh), SIM_OK);
    for (int k = 1; k < R; k++)
        for (int j = 0; j < 4; j++)
            CHECK(memcmp(&sh.result[k][j], &sh.result[0][j], sizeof(float)) == 0);
    return 0;
}

// ----------------------------------------------------------------------------
// the BLAS gate

// Its size for the OpenBLAS of Debian 12 (MAX_THREADS=64, a 128-entry table)
// and for builds that do not say, as the reasoning in cpu_math.c gives it.
static int test_blas_slots_for(void) {
    const char *deb = "OpenBLAS 0.3.21 NO_LAPACKE DYNAMIC_ARCH NO_AFFINITY Cooperlake "
                      "MAX_THREADS=64";
    CHECK_EQ_INT(cpu_math_blas_slots_for(deb, 2, 2), 63);    // 128 - 1 worker, halved
    CHECK_EQ_INT(cpu_math_blas_slots_for(deb, 16, 16), 56);  // 128 - 15 workers
    CHECK_EQ_INT(cpu_math_blas_slots_for(deb, 1, 16), 56);   // workers counted by cores
    CHECK_EQ_INT(cpu_math_blas_slots_for(deb, 64, 256), 32); // 128 - 63 workers
    CHECK_EQ_INT(cpu_math_blas_slots_for("OpenBLAS 0.2.20", 4, 4), 2); // 8 - 3, halved
    CHECK_EQ_INT(cpu_math_blas_slots_for("MAX_THREADS=1", 1, 8), 1);
    CHECK_EQ_INT(cpu_math_blas_slots_for(NULL, 0, 0), 1);
    // This process's gate: sized, and well inside the table it protects.
    int slots = cpu_math_blas_slots();
    printf("  this OpenBLAS: %d ranks inside BLAS at once\n", slots);
    CHECK(slots >= 1 && slots <= 1 << 20);
    return 0;
}

typedef struct {
    float *sum; // per rank: checksums of the forward output and both gradients
} Crowd;

// Products long enough (64 x 128 x 128) that a rank thread is often switched
// out inside one: ungated, a thousand such ranks on a few cores have more
// calls in flight than OpenBLAS has buffers, and the process crashes.
static SimStatus crowd_rank(SimRank *r, void *arg) {
    Crowd *cr = arg;
    TkRng g;
    tk_seed(&g, 7);
    TkList l = {0};
    int64_t N = 64, C = 128, OC = 128;
    SimTensor inp, w, out, dinp, dw;
    if (tk_make(r, &l, &inp, SIM_FP32, 2, (int64_t[]){N, C}) ||
        tk_make(r, &l, &w, SIM_FP32, 2, (int64_t[]){OC, C}) ||
        tk_make(r, &l, &out, SIM_FP32, 2, (int64_t[]){N, OC}) ||
        tk_make(r, &l, &dinp, SIM_FP32, 2, (int64_t[]){N, C}) ||
        tk_make(r, &l, &dw, SIM_FP32, 2, (int64_t[]){OC, C})) {
        tk_free(r, &l);
        return SIM_ENOMEM;
    }
    tk_fill_normal(&g, tk_f(&inp), (size_t)(N * C), 1);
    tk_fill_normal(&g, tk_f(&w), (size_t)(OC * C), 0.1f);
    // Released together, so that many ranks reach the gate at once.
    SimStatus st = sim_barrier(r);
    for (int it = 0; it < 30 && st == SIM_OK; it++) {
        st = sim_op_linear_forward(r, &out, &inp, &w, NULL, SIM_FP32);
        if (st == SIM_OK) // the gradients accumulate: every product counts
            st = sim_op_linear_backward(r, &dinp, &dw, NULL, &out, &inp, &w, SIM_FP32);
    }
    cr->sum[3 * r->rank + 0] = checksum(&out);
    cr->sum[3 * r->rank + 1] = checksum(&dinp);
    cr->sum[3 * r->rank + 2] = checksum(&dw);
    tk_free(r, &l);
    return st;
}

static int test_crowd_at_the_gate(void) {
    int slots = cpu_math_blas_slots();
    int n = tenv_quick() ? 256 : 1024; // the sanitizers' thread limits: fewer
    if (n <= slots)
        n = slots < 2048 ? 2 * slots : 4096;
    printf("  %d ranks, %d inside BLAS at once\n", n, slots);
    Crowd cr = {calloc((size_t)n * 3, sizeof(float))};
    CHECK(cr.sum != NULL);
    SimStatus st = tworld_run_cpu(n, 0, crowd_rank, &cr);
    int differ = 0;
    for (int k = 1; k < n; k++)
        differ += memcmp(&cr.sum[3 * k], &cr.sum[0], 3 * sizeof(float)) != 0;
    free(cr.sum);
    CHECK_EQ_INT(st, SIM_OK);
    CHECK_EQ_INT(differ, 0);
    return 0;
}

int main(void) {
    int failures = 0;
    RUN(test_ranks_agree);
    RUN(test_blas_slots_for);
    RUN(test_crowd_at_the_gate);
    return failures != 0;
}
