// cli/bench/bench_verify.c: the data `ddplab bench` sends and the check of what
// arrives, in the spirit of nccl-tests' verifiable mode: inputs whose
// reduction is exact in every element type and in any order, so the expected
// result is known exactly and every element can be compared.
//
// How the inputs are chosen (R ranks, element j, class a = a(j), see bench.h):
//   SUM, AVG  rank r contributes a + b(r) if r % stride == 0, else 0, with
//             b(r) in [1, bmod]; nvals, bmod and stride are chosen so that
//             every partial sum stays an integer the type holds exactly
//             (2^24 fp32, 2^11 fp16, 2^8 bf16).
//   MAX, MIN  rank r contributes a + b(r).
//   PROD      rank r contributes +-1 or +-2, with at most as many 2s per
//             element as the type's exponent range allows (products are
//             powers of two, so exact).
//   copies    (all_gather, broadcast, gather, scatter, sendrecv) element j of
//             rank r is (37 r + h(j)) mod copymod, an integer the type holds.
// AVG divides the exact sum by R once at the end; in a floating type that
// rounds, so the check allows two units in the last place there and is exact
// everywhere else.
#include "bench/bench.h"

#include <math.h>

// Exactly representable consecutive integers of each type, from 0.
static double exact_bound(SimDtype dt) {
    switch (dt) {
    case SIM_FP16: return 2048.0;
    case SIM_BF16: return 256.0;
    case SIM_FP32: return 16777216.0;
    case SIM_INT32: return 2147483647.0;
    default: return 9007199254740992.0; // int64, read through a double
    }
}

// Largest power of two a product may reach (the exponent, bounded so every
// partial product of +-1 and +-2 is exact and no integer overflows).
static int max_twos(SimDtype dt) {
    switch (dt) {
    case SIM_FP16: return 14;
    case SIM_INT64: return 60;
    default: return 30;
    }
}

// Bits of precision (significand with the implicit bit) of a floating type.
static int precision_bits(SimDtype dt) {
    switch (dt) {
    case SIM_FP16: return 11;
    case SIM_BF16: return 8;
    default: return 24;
    }
}

static uint64_t mix(uint64_t j) {
    return (j * 0x9E3779B97F4A7C15ull) >> 40;
}

static int elem_class(const BenchPattern *p, size_t j) {
    return (int)(mix(j) % (uint64_t)p->nvals);
}

static double reduce_input(const BenchPattern *p, int r, int a) {
    double b = 1 + (r * 7) % p->bmod;
    switch (p->op) {
    case SIM_SUM:
    case SIM_AVG:
        return r % p->stride == 0 ? a + b : 0;
    case SIM_PROD: {
        double mag = (r + a) % p->pmod == 0 ? 2 : 1;
        return (r + 2 * a) % 5 == 1 ? -mag : mag;
    }
    default: // MAX, MIN
        return a + b;
    }
}

static double copy_value(const BenchPattern *p, int r, size_t j) {
    return (double)(((uint64_t)r * 37 + mix(j)) % (uint64_t)p->copymod);
}

// Picks nvals/bmod/stride so sums stay exact: K contributors of at most
// (nvals - 1) + bmod each must sum to at most the type's exact bound.
static void choose_sum_shape(BenchPattern *p) {
    double bound = exact_bound(p->dtype);
    p->nvals = BENCH_NVALS_MAX;
    p->bmod = 16;
    while (p->nvals > 2 && (double)p->nranks * (p->nvals - 1 + p->bmod) > bound) {
        p->nvals /= 2;
        p->bmod /= 2;
    }
    int per = p->nvals - 1 + p->bmod;
    long kmax = (long)(bound / per); // contributors allowed
    p->stride = (int)((p->nranks + kmax - 1) / kmax);
    if (p->stride < 1)
        p->stride = 1;
}

static void fill_expect(BenchPattern *p) {
    int R = p->nranks;
    for (int a = 0; a < p->nvals; a++) {
        double acc = reduce_input(p, 0, a);
        for (int r = 1; r < R; r++) {
            double v = reduce_input(p, r, a);
            switch (p->op) {
            case SIM_MAX: acc = v > acc ? v : acc; break;
            case SIM_MIN: acc = v < acc ? v : acc; break;
            case SIM_PROD: acc *= v; break;
            default: acc += v; break;
            }
        }
        p->tol[a] = 0;
        if (p->op == SIM_AVG && sim_dtype_is_float(p->dtype)) {
            acc /= R;
            int e;
            frexp(acc, &e); // acc = m 2^e, m in [0.5, 1): one ulp is 2^(e - p)
            p->tol[a] = acc != 0 ? 2 * ldexp(1.0, e - precision_bits(p->dtype)) : 0;
        } else if (p->op == SIM_AVG) {
            acc = floor(acc / R); // integer division of a non-negative sum
        }
        p->expect[a] = acc;
    }
}

void bench_pattern_init(BenchPattern *p, const BenchOptions *o) {
    p->kind = o->coll;
    p->dtype = o->dtype;
    p->op = o->op;
    p->nranks = o->nranks;
    p->root = o->root;
    p->nvals = BENCH_NVALS_MAX;
    p->stride = 1;
    p->bmod = 64;
    p->pmod = 2;
    double bound = exact_bound(o->dtype);
    p->copymod = bound < 65536 ? (int)bound : 65536;
    if (o->op == SIM_SUM || o->op == SIM_AVG)
        choose_sum_shape(p);
    if (o->op == SIM_PROD) {
        int k = max_twos(o->dtype);
        p->pmod = (o->nranks + k - 1) / k;
        if (p->pmod < 2)
            p->pmod = 2;
    }
    fill_expect(p);
}

void bench_fill_value(void *host, SimDtype dt, size_t n, double v) {
    for (size_t i = 0; i < n; i++)
        sim_elem_set(host, dt, i, v);
}

void bench_fill_send(const BenchPattern *p, int rank, void *host, size_t n) {
    if (sim_coll_is_reduction(p->kind)) {
        for (size_t j = 0; j < n; j++)
            sim_elem_set(host, p->dtype, j, reduce_input(p, rank, elem_class(p, j)));
    } else {
        for (size_t j = 0; j < n; j++)
            sim_elem_set(host, p->dtype, j, copy_value(p, rank, j));
    }
}

// Expected value of element j of `rank`'s recv buffer, and its tolerance.
static double expected(const BenchPattern *p, int rank, size_t count, size_t j, double *tol) {
    int R = p->nranks;
    *tol = 0;
    switch (p->kind) {
    case SIM_COLL_ALL_REDUCE:
    case SIM_COLL_REDUCE: {
        int a = elem_class(p, j);
        *tol = p->tol[a];
        return p->expect[a];
    }
    case SIM_COLL_REDUCE_SCATTER: {
        int a = elem_class(p, (size_t)rank * count + j);
        *tol = p->tol[a];
        return p->expect[a];
    }
    case SIM_COLL_ALL_GATHER:
    case SIM_COLL_GATHER:
        return copy_value(p, (int)(j / count), j % count);
    case SIM_COLL_BROADCAST:
        return copy_value(p, p->root, j);
    case SIM_COLL_SCATTER:
        return copy_value(p, p->root, (size_t)rank * count + j);
    case BENCH_SENDRECV:
        return copy_value(p, (rank + R - 1) % R, j);
    default:
        return 0;
    }
}

uint64_t bench_count_wrong(const BenchPattern *p, int rank, size_t count, const void *host,
                           size_t n) {
    uint64_t wrong = 0;
    for (size_t j = 0; j < n; j++) {
        double tol, want = expected(p, rank, count, j, &tol);
        double got = sim_elem_get(host, p->dtype, j);
        wrong += !(fabs(got - want) <= tol); // NaN counts as wrong
    }
    return wrong;
}
