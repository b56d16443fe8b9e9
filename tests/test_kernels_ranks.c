// tests/test_kernels_ranks.c: the math kernels on several ranks at once.
// Each rank is a thread running the same ops on the same inputs, all at the
// same time: the BLAS calls, the per-rank scratch memory (mixed precision,
// norms, attention) and the optimizer must give every rank bit-identical
// results, which they would not if any state were shared between ranks.
// Label cpu, so that it also runs under ThreadSanitizer.
#include <stdio.h>
#include <string.h>

#include "check.h"
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

int main(void) {
    int failures = 0;
    RUN(test_ranks_agree);
    return failures != 0;
}
