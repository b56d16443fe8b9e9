// tests/test_cpu_rounding.c: fp16 and bf16 reductions of random values,
// where rounding depends on the order of additions.
//
// Each algorithm reduces in its own order and rounds partial sums to the
// storage type at its own places (the ring after every step, the direct pass
// once), so results are checked against an fp64 reference within the bound
// of recursive summation: |got - ref| <= R * u * sum_r |x_r| (+ u * |ref| for
// the avg division), with u the unit roundoff (2^-11 fp16, 2^-8 bf16).
// Two stronger checks hold exactly:
//   - every rank ends with bitwise the same all_reduce result;
//   - the direct pass sums in fp32 in rank order and rounds once, so its
//     result equals that computed here.
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "engine/comm.h"
#include "test_world.h"

#define COUNT 4099 // not a multiple of any R below

typedef struct {
    SimDtype dt;
    SimAlgo algo;
    SimRedOp op;
} Case;

typedef struct {
    int R;
    Case cases[32];
    int ncases;
    uint16_t *in;   // [ncases][R][COUNT] inputs, by rank
    uint16_t *out;  // [ncases][R][COUNT] all_reduce results, by rank
    SimStatus st[16];
} Plan;

static double widen(SimDtype dt, uint16_t v) {
    return dt == SIM_FP16 ? sim_f16_to_f32(v) : sim_bf16_to_f32(v);
}

static uint16_t narrow(SimDtype dt, float f) {
    return dt == SIM_FP16 ? sim_f32_to_f16(f) : sim_f32_to_bf16(f);
}

static SimStatus rank_main(SimRank *r, void *arg) {
    Plan *p = arg;
    int me = r->rank;
    uint16_t send[COUNT], recv[COUNT];
    SimStatus st = SIM_OK;
    for (int c = 0; st == SIM_OK && c < p->ncases; c++) {
        const Case *k = &p->cases[c];
        size_t at = ((size_t)c * (size_t)p->R + (size_t)me) * COUNT;
        memcpy(send, p->in + at, sizeof send);
        st = sim_all_reduce(r, send, recv, COUNT, k->dt, k->op, k->algo);
        memcpy(p->out + at, recv, sizeof recv);
    }
    p->st[me] = st;
    return st;
}

// Inputs uniform in [-1, 1], stored in the element type.
static void make_inputs(Plan *p) {
    uint64_t s = 0x9e3779b97f4a7c15ull;
    for (int c = 0; c < p->ncases; c++)
        for (size_t i = 0; i < (size_t)p->R * COUNT; i++) {
            s = s * 6364136223846793005ull + 1442695040888963407ull;
            float u = (float)((s >> 40) & 0xffffff) / (float)0xffffff * 2.0f - 1.0f;
            p->in[(size_t)c * (size_t)p->R * COUNT + i] = narrow(p->cases[c].dt, u);
        }
}

static int check_case(const Plan *p, int c, double *worst) {
    const Case *k = &p->cases[c];
    int R = p->R;
    double u = k->dt == SIM_FP16 ? ldexp(1.0, -11) : ldexp(1.0, -8);
    const uint16_t *in = p->in + (size_t)c * (size_t)R * COUNT;
    const uint16_t *out = p->out + (size_t)c * (size_t)R * COUNT;
    for (size_t i = 0; i < COUNT; i++) {
        double ref = 0, mag = 0;
        float seq32 = 0; // fp32, rank order: what the direct pass computes
        for (int q = 0; q < R; q++) {
            double x = widen(k->dt, in[(size_t)q * COUNT + i]);
            ref += x;
            mag += fabs(x);
            seq32 = q == 0 ? (float)x : seq32 + (float)x;
        }
        if (k->op == SIM_AVG) {
            ref /= R;
            mag /= R;
            seq32 /= (float)R;
        }
        double got = widen(k->dt, out[i]);
        double tol = R * u * mag + u * fabs(ref) + 1e-12;
        double err = fabs(got - ref);
        if (err / tol > *worst)
            *worst = err / tol;
        if (!(err <= tol)) {
            fprintf(stderr, "  R=%d %s %s %s [%zu]: got %.8g, fp64 %.8g, tol %.3g\n", R,
                    sim_dtype_name(k->dt), sim_algo_name(k->algo), sim_redop_name(k->op), i,
                    got, ref, tol);
            return 1;
        }
        uint16_t want = narrow(k->dt, seq32); // the direct sum, rounded once
        if (k->algo == SIM_ALGO_DIRECT && k->op == SIM_SUM && out[i] != want) {
            fprintf(stderr, "  R=%d %s direct [%zu]: 0x%04x, want 0x%04x\n", R,
                    sim_dtype_name(k->dt), i, out[i], want);
            return 1;
        }
        for (int q = 1; q < R; q++)
            if (out[(size_t)q * COUNT + i] != out[i]) {
                fprintf(stderr, "  R=%d %s %s: rank %d differs from rank 0 at [%zu]\n", R,
                        sim_dtype_name(k->dt), sim_algo_name(k->algo), q, i);
                return 1;
            }
    }
    return 0;
}

static int run_size(int R) {
    static Plan p;
    memset(&p, 0, sizeof p);
    p.R = R;
    SimAlgo algos[] = {SIM_ALGO_RING, SIM_ALGO_TREE, SIM_ALGO_NAIVE, SIM_ALGO_DIRECT,
                       SIM_ALGO_DBTREE};
    for (int d = 0; d < 2; d++)
        for (int a = 0; a < 5; a++)
            for (int o = 0; o < 2; o++)
                p.cases[p.ncases++] = (Case){d ? SIM_BF16 : SIM_FP16, algos[a],
                                             o ? SIM_AVG : SIM_SUM};
    size_t n = (size_t)p.ncases * (size_t)R * COUNT;
    p.in = malloc(n * sizeof *p.in);
    p.out = malloc(n * sizeof *p.out);
    CHECK(p.in && p.out);
    make_inputs(&p);
    SimStatus st = tworld_run_cpu(R, 0, rank_main, &p);
    CHECK_EQ_INT(st, SIM_OK);
    double worst = 0;
    int bad = 0;
    for (int c = 0; c < p.ncases; c++)
        bad += check_case(&p, c, &worst);
    printf("  R=%d: %d cases, largest error %.2f of the bound\n", R, p.ncases, worst);
    free(p.in);
    free(p.out);
    CHECK_EQ_INT(bad, 0);
    return 0;
}

static int test_rounding(void) {
    int sizes[] = {2, 3, 4, 5, 8};
    int bad = 0;
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++)
        bad += run_size(sizes[i]);
    return bad;
}

int main(void) {
    int failures = 0;
    RUN(test_rounding);
    return failures != 0;
}
