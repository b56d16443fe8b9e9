// tests/test_cuda_math_vec.c: the CUDA backend's activation, vector, cast,
// optimizer and embedding kernels (backend_cuda/cuda_math_{act,vec,optim,
// embed}.cu) on a GPU, each against the cpu backend's kernel on the same
// host data. One rank (device 0), ops called from the main thread after
// init, which made device 0 current.
//
// Bounds, per op:
// - bit for bit: add, axpy, scale, fill, nonfinite, cast (every dtype pair),
//   SGD and Adam/AdamW over several steps, embedding forward and backward,
//   relu: the same operations in the same order (cuda_arith_vec.h, built
//   with --fmad=false) and IEEE-exact division and sqrt. NaN payloads
//   aside: where arithmetic makes a NaN the GPU returns the canonical
//   0x7fffffff, x86 a quiet copy of an input NaN, so results of arithmetic
//   only have to be NaN where the cpu's are; selects, fills and casts keep
//   the payload and are compared bit for bit;
// - GELU (erf) and GELU (tanh), forward and backward: per element
//   |gpu - cpu| / max(1, |cpu|) <= 2e-6, because erff, expf and tanhf are
//   CUDA's (within 2 ulp) and not glibc's: a few ulp of a value of magnitude
//   up to 1, scaled by |x| <= 8 or |dout| <= 2, stays below 1e-6;
// - sumsq: |gpu - cpu| <= n * 2^-53 * cpu, the rounding bound of a sum of n
//   non-negative terms in another order (the GPU adds per block, then the
//   blocks).
// Non-finite results must match in kind (NaN, +inf, -inf) everywhere.
//
// Without a GPU init fails with SIM_ENODEV: "SKIP: <reason>", exit 77.
#include <float.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "cpu_math.h"           // defines: cpu_math_*
#include "cuda_backend.h"       // defines: cuda_backend_ops
#include "test_cuda_vec_data.h" // defines: tcv_fill, tcv_cast_source, tcv_*_cases
#include "test_env.h"           // defines: tenv_quick

#define ACT_BOUND 2e-6

static const SimBackendOps *be = &cuda_backend_ops;
static const SimMathOps *km;
static void *ctx;

// ----------------------------------------------------------------------------
// Device buffers (rank 0)

typedef struct {
    void *p[16];
    int n;
} Bufs;

static void *dev_alloc(Bufs *b, size_t bytes) {
    if (b->n == (int)(sizeof b->p / sizeof b->p[0]))
        return NULL;
    void *p = be->alloc(ctx, 0, bytes);
    if (p == NULL)
        fprintf(stderr, "alloc of %zu bytes failed: %s\n", bytes, be->last_error(ctx));
    else
        b->p[b->n++] = p;
    return p;
}

// A device copy of host[0..bytes), or NULL.
static void *dev_from(Bufs *b, const void *host, size_t bytes) {
    void *p = dev_alloc(b, bytes);
    if (p != NULL && bytes > 0 && be->copy_to_device(ctx, 0, p, host, bytes) != SIM_OK) {
        fprintf(stderr, "copy_to_device failed: %s\n", be->last_error(ctx));
        return NULL;
    }
    return p;
}

static int to_host(void *host, const void *dev, size_t bytes) {
    if (bytes > 0 && be->copy_to_host(ctx, 0, host, dev, bytes) != SIM_OK) {
        fprintf(stderr, "copy_to_host failed: %s\n", be->last_error(ctx));
        return 1;
    }
    return 0;
}

static void dev_free_all(Bufs *b) {
    for (int i = 0; i < b->n; i++)
        be->free(ctx, 0, b->p[i]);
    b->n = 0;
}

// Runs one op; on failure prints its name, status and the backend's error.
static int op_ok(const char *op, SimStatus st) {
    if (st == SIM_OK)
        return 1;
    fprintf(stderr, "%s: %s: %s\n", op, sim_status_name(st), be->last_error(ctx));
    return 0;
}

// ----------------------------------------------------------------------------
// Comparisons

static uint32_t bits_of(float f) {
    uint32_t x;
    memcpy(&x, &f, sizeof x);
    return x;
}

static int both_nan(const unsigned char *a, const unsigned char *b) {
    float fa, fb;
    memcpy(&fa, a, 4);
    memcpy(&fb, b, 4);
    return isnan(fa) && isnan(fb);
}

// Bit for bit; names the first differing element. With nan_any (fp32
// results of arithmetic), any NaN matches any NaN: the GPU's arithmetic
// returns the canonical NaN 0x7fffffff where x86 returns a quiet copy of an
// input NaN. Selects, stores and conversions keep the payload (nan_any 0).
static int cmp_bits(const char *op, const void *got, const void *want, size_t n, size_t elem,
                    int nan_any) {
    const unsigned char *g = got, *w = want;
    for (size_t i = 0; i < n; i++) {
        if (memcmp(g + i * elem, w + i * elem, elem) == 0)
            continue;
        if (nan_any && elem == 4 && both_nan(g + i * elem, w + i * elem))
            continue;
        uint64_t gv = 0, wv = 0;
        memcpy(&gv, g + i * elem, elem);
        memcpy(&wv, w + i * elem, elem);
        fprintf(stderr, "%s: element %zu of %zu: gpu bits 0x%" PRIx64 ", cpu bits 0x%" PRIx64,
                op, i, n, gv, wv);
        if (elem == 4) {
            float gf, wf;
            memcpy(&gf, g + i * elem, 4);
            memcpy(&wf, w + i * elem, 4);
            fprintf(stderr, " (as fp32: gpu %.9g, cpu %.9g)", gf, wf);
        }
        fprintf(stderr, "\n");
        return 1;
    }
    printf("%-44s n=%-8zu max error 0 (bit for bit%s)\n", op, n, nan_any ? ", any NaN" : "");
    return 0;
}

static int kind(float x) {
    return isnan(x) ? 1 : isinf(x) ? (x > 0 ? 2 : 3) : 0;
}

// max over i of |got - want| / max(1, |want|) <= bound; non-finite values
// must agree in kind.
static int cmp_bound(const char *op, const float *got, const float *want, const float *in,
                     size_t n, double bound) {
    double worst = 0.0;
    size_t at = 0;
    for (size_t i = 0; i < n; i++) {
        if (kind(got[i]) != kind(want[i])) {
            fprintf(stderr, "%s: element %zu (input %.9g): gpu %.9g, cpu %.9g\n", op, i,
                    in ? in[i] : 0.0, got[i], want[i]);
            return 1;
        }
        if (kind(want[i]) != 0)
            continue;
        double w = want[i], d = fabs((double)got[i] - w) / (fabs(w) > 1.0 ? fabs(w) : 1.0);
        if (d > worst)
            worst = d, at = i;
    }
    printf("%-44s n=%-8zu max error %.3g (bound %.3g)", op, n, worst, bound);
    if (worst > 0)
        printf(" at element %zu: input %.9g, gpu %.9g (0x%08x), cpu %.9g (0x%08x)", at,
               in ? in[at] : 0.0, got[at], bits_of(got[at]), want[at], bits_of(want[at]));
    printf("\n");
    if (!(worst <= bound)) {
        fprintf(stderr, "%s: error %.3g above the bound %.3g at element %zu\n", op, worst, bound,
                at);
        return 1;
    }
    return 0;
}

// ----------------------------------------------------------------------------
// Activations

static size_t big_n(void) {
    // more than CUDA_THREADS * CUDA_MAX_BLOCKS (2^20): the grid-stride loops
    // take a second turn; odd, so the last block is partial
    return tenv_quick() ? 100003 : ((size_t)1 << 20) + 4099;
}

static int test_act(void) {
    static const char *const names[SIM_ACT_COUNT] = {"relu", "gelu", "gelu_tanh"};
    size_t n = big_n(), bytes = n * sizeof(float);
    TcvRng g;
    tcv_seed(&g, 11);
    float *x = malloc(bytes), *dout = malloc(bytes), *dinp = malloc(bytes);
    float *got = malloc(bytes), *want = malloc(bytes);
    CHECK(x && dout && dinp && got && want);
    tcv_fill(&g, x, n, -8.0f, 8.0f, 1);
    tcv_fill(&g, dout, n, -2.0f, 2.0f, 0);
    tcv_fill(&g, dinp, n, -1.0f, 1.0f, 0);
    Bufs b = {{0}, 0};
    float *dx = dev_from(&b, x, bytes), *ddout = dev_from(&b, dout, bytes);
    float *dout_buf = dev_alloc(&b, bytes), *ddinp = dev_alloc(&b, bytes);
    int bad = !(dx && ddout && dout_buf && ddinp);
    for (int a = 0; a < SIM_ACT_COUNT && !bad; a++) {
        SimAct act = (SimAct)a;
        char op[64];
        snprintf(op, sizeof op, "act_forward %s", names[a]);
        bad |= !op_ok(op, km->act_forward(ctx, 0, act, dout_buf, dx, n));
        bad |= bad || to_host(got, dout_buf, bytes);
        if (bad)
            break;
        CHECK_EQ_INT(cpu_math_act_forward(NULL, 0, act, want, x, n), SIM_OK);
        bad |= act == SIM_ACT_RELU ? cmp_bits(op, got, want, n, 4, 0)
                                   : cmp_bound(op, got, want, x, n, ACT_BOUND);

        snprintf(op, sizeof op, "act_backward %s (accumulating)", names[a]);
        bad |= be->copy_to_device(ctx, 0, ddinp, dinp, bytes) != SIM_OK;
        bad |= bad || !op_ok(op, km->act_backward(ctx, 0, act, ddinp, dx, ddout, n));
        bad |= bad || to_host(got, ddinp, bytes);
        if (bad)
            break;
        memcpy(want, dinp, bytes);
        CHECK_EQ_INT(cpu_math_act_backward(NULL, 0, act, want, x, dout, n), SIM_OK);
        bad |= act == SIM_ACT_RELU ? cmp_bits(op, got, want, n, 4, 1)
                                   : cmp_bound(op, got, want, x, n, ACT_BOUND);
    }
    if (!bad) { // nothing to do, and an unknown activation
        bad |= !op_ok("act_forward n=0", km->act_forward(ctx, 0, SIM_ACT_GELU, dout_buf, dx, 0));
        CHECK_EQ_INT(km->act_forward(ctx, 0, SIM_ACT_COUNT, dout_buf, dx, n), SIM_EINVAL);
    }
    dev_free_all(&b);
    free(x);
    free(dout);
    free(dinp);
    free(got);
    free(want);
    CHECK(bad == 0);
    return 0;
}

// ----------------------------------------------------------------------------
// add, axpy, scale, fill

static int test_elementwise(void) {
    size_t n = big_n(), bytes = n * sizeof(float);
    TcvRng g;
    tcv_seed(&g, 12);
    float *a = malloc(bytes), *x = malloc(bytes), *got = malloc(bytes), *want = malloc(bytes);
    CHECK(a && x && got && want);
    tcv_fill(&g, a, n, -1e3f, 1e3f, 1);
    tcv_fill(&g, x, n, -1.0f, 1.0f, 0);
    Bufs b = {{0}, 0};
    float *da = dev_from(&b, a, bytes), *dx = dev_from(&b, x, bytes), *dy = dev_alloc(&b, bytes);
    int bad = !(da && dx && dy);

    if (!bad) {
        bad |= !op_ok("add", km->add(ctx, 0, dy, da, dx, n)) || to_host(got, dy, bytes);
        CHECK_EQ_INT(cpu_math_add(NULL, 0, want, a, x, n), SIM_OK);
        bad |= bad || cmp_bits("add", got, want, n, 4, 1);
    }
    const float alphas[] = {0.37f, -0.0f, -3e-5f};
    for (size_t k = 0; k < sizeof alphas / sizeof alphas[0] && !bad; k++) {
        char op[48];
        snprintf(op, sizeof op, "axpy alpha=%g", alphas[k]);
        bad |= be->copy_to_device(ctx, 0, dy, a, bytes) != SIM_OK;
        bad |= bad || !op_ok(op, km->axpy(ctx, 0, dy, alphas[k], dx, n));
        bad |= bad || to_host(got, dy, bytes);
        memcpy(want, a, bytes);
        CHECK_EQ_INT(cpu_math_axpy(NULL, 0, want, alphas[k], x, n), SIM_OK);
        bad |= bad || cmp_bits(op, got, want, n, 4, 1);

        snprintf(op, sizeof op, "scale alpha=%g", alphas[k]);
        bad |= bad || be->copy_to_device(ctx, 0, dy, a, bytes) != SIM_OK;
        bad |= bad || !op_ok(op, km->scale(ctx, 0, dy, alphas[k], n));
        bad |= bad || to_host(got, dy, bytes);
        memcpy(want, a, bytes);
        CHECK_EQ_INT(cpu_math_scale(NULL, 0, want, alphas[k], n), SIM_OK);
        bad |= bad || cmp_bits(op, got, want, n, 4, 1);
    }
    // +0 (a memset), -0 (must keep its sign), a value
    const float values[] = {0.0f, -0.0f, 1.5f};
    for (size_t k = 0; k < sizeof values / sizeof values[0] && !bad; k++) {
        char op[48];
        snprintf(op, sizeof op, "fill value=%g (0x%08x)", values[k], bits_of(values[k]));
        bad |= be->copy_to_device(ctx, 0, dy, a, bytes) != SIM_OK;
        bad |= bad || !op_ok(op, km->fill(ctx, 0, dy, values[k], n));
        bad |= bad || to_host(got, dy, bytes);
        memcpy(want, a, bytes);
        CHECK_EQ_INT(cpu_math_fill(NULL, 0, want, values[k], n), SIM_OK);
        bad |= bad || cmp_bits(op, got, want, n, 4, 0);
    }
    dev_free_all(&b);
    free(a);
    free(x);
    free(got);
    free(want);
    CHECK(bad == 0);
    return 0;
}

// ----------------------------------------------------------------------------
// sumsq, nonfinite (host scalars)

static int test_reductions(void) {
    size_t nmax = big_n(), bytes = nmax * sizeof(float);
    const size_t sizes[] = {0, 1, 255, 257, 100000, nmax};
    TcvRng g;
    tcv_seed(&g, 13);
    float *x = malloc(bytes);
    CHECK(x);
    tcv_fill(&g, x, nmax, -3.0f, 3.0f, 0);
    Bufs b = {{0}, 0};
    float *dx = dev_from(&b, x, bytes);
    int bad = dx == NULL;
    for (size_t k = 0; k < sizeof sizes / sizeof sizes[0] && !bad; k++) {
        size_t n = sizes[k];
        double got = -1.0, want = -2.0;
        bad |= !op_ok("sumsq", km->sumsq(ctx, 0, &got, dx, n));
        if (bad)
            break;
        CHECK_EQ_INT(cpu_math_sumsq(NULL, 0, &want, x, n), SIM_OK);
        double err = fabs(got - want), bound = (double)n * DBL_EPSILON / 2.0 * want;
        printf("%-44s n=%-8zu |gpu - cpu| / cpu = %.3g (bound %.3g): gpu %.17g, cpu %.17g\n",
               "sumsq", n, want > 0 ? err / want : err, n * DBL_EPSILON / 2.0, got, want);
        if (!(err <= bound)) {
            fprintf(stderr, "sumsq n=%zu: gpu %.17g, cpu %.17g, error %.3g above %.3g\n", n, got,
                    want, err, bound);
            bad = 1;
        }
    }
    // a square beyond fp32's range, fine in double
    if (!bad) {
        float keep = x[100];
        x[100] = 1e25f;
        double got = -1.0, want = -2.0;
        bad |= be->copy_to_device(ctx, 0, dx, x, bytes) != SIM_OK;
        bad |= bad || !op_ok("sumsq", km->sumsq(ctx, 0, &got, dx, 300));
        CHECK_EQ_INT(cpu_math_sumsq(NULL, 0, &want, x, 300), SIM_OK);
        if (!bad && !(fabs(got - want) <= 300 * DBL_EPSILON / 2.0 * want)) {
            fprintf(stderr, "sumsq n=300 with 1e25 at element 100: gpu %.17g, cpu %.17g\n", got,
                    want);
            bad = 1;
        }
        x[100] = keep;
    }
    // nonfinite: clean, then one bad value at the end, in the middle, at the
    // start (NaN, +inf, -inf)
    const size_t where[] = {(size_t)-1, nmax - 1, nmax / 2 + 17, 0};
    const float what[] = {0.0f, NAN, INFINITY, -INFINITY};
    for (size_t k = 0; k < sizeof where / sizeof where[0] && !bad; k++) {
        float keep = 0.0f;
        if (where[k] != (size_t)-1) {
            keep = x[where[k]];
            x[where[k]] = what[k];
        }
        bad |= be->copy_to_device(ctx, 0, dx, x, bytes) != SIM_OK;
        int got = -1, want = -2;
        bad |= bad || !op_ok("nonfinite", km->nonfinite(ctx, 0, &got, dx, nmax));
        CHECK_EQ_INT(cpu_math_nonfinite(NULL, 0, &want, x, nmax), SIM_OK);
        if (!bad && got != want) {
            fprintf(stderr, "nonfinite with %g at element %zu of %zu: gpu %d, cpu %d\n",
                    what[k], where[k], nmax, got, want);
            bad = 1;
        }
        if (!bad)
            printf("%-44s n=%-8zu gpu %d, cpu %d\n", "nonfinite", nmax, got, want);
        if (where[k] != (size_t)-1)
            x[where[k]] = keep;
    }
    int none = -1;
    bad |= bad || !op_ok("nonfinite n=0", km->nonfinite(ctx, 0, &none, dx, 0));
    if (!bad)
        CHECK_EQ_INT(none, 0);
    dev_free_all(&b);
    free(x);
    CHECK(bad == 0);
    return 0;
}

// ----------------------------------------------------------------------------
// cast

static int test_cast(void) {
    size_t n = tenv_quick() ? 20011 : 300007;
    TcvRng g;
    tcv_seed(&g, 14);
    void *src = malloc(n * 8), *got = malloc(n * 8), *want = malloc(n * 8);
    CHECK(src && got && want);
    Bufs b = {{0}, 0};
    void *dsrc = dev_alloc(&b, n * 8), *ddst = dev_alloc(&b, n * 8);
    int bad = !(dsrc && ddst);
    for (int s = 0; s < SIM_DTYPE_COUNT && !bad; s++)
        for (int d = 0; d < SIM_DTYPE_COUNT && !bad; d++) {
            SimDtype sd = (SimDtype)s, dd = (SimDtype)d;
            size_t ssz = sim_dtype_size(sd), dsz = sim_dtype_size(dd);
            // a same-dtype cast is a copy: any source will do
            tcv_cast_source(&g, src, sd, s == d ? (SimDtype)((d + 1) % SIM_DTYPE_COUNT) : dd, n);
            char op[48];
            snprintf(op, sizeof op, "cast %s -> %s", sim_dtype_name(sd), sim_dtype_name(dd));
            bad |= be->copy_to_device(ctx, 0, dsrc, src, n * ssz) != SIM_OK;
            bad |= bad || !op_ok(op, km->cast(ctx, 0, ddst, dd, dsrc, sd, n));
            bad |= bad || to_host(got, ddst, n * dsz);
            CHECK_EQ_INT(cpu_math_cast(NULL, 0, want, dd, src, sd, n), SIM_OK);
            bad |= bad || cmp_bits(op, got, want, n, dsz, 0);
        }
    // overlapping ranges of one dtype: memmove
    if (!bad) {
        size_t m = n - 5;
        tcv_cast_source(&g, src, SIM_FP32, SIM_FP16, n);
        memcpy(want, src, n * 4);
        bad |= be->copy_to_device(ctx, 0, dsrc, src, n * 4) != SIM_OK;
        bad |= bad || !op_ok("cast fp32 -> fp32 overlapping",
                             km->cast(ctx, 0, (float *)dsrc + 3, SIM_FP32, dsrc, SIM_FP32, m));
        bad |= bad || to_host(got, dsrc, n * 4);
        CHECK_EQ_INT(cpu_math_cast(NULL, 0, (float *)want + 3, SIM_FP32, want, SIM_FP32, m),
                     SIM_OK);
        bad |= bad || cmp_bits("cast fp32 -> fp32 overlapping", got, want, n, 4, 0);
    }
    if (!bad)
        CHECK_EQ_INT(km->cast(ctx, 0, ddst, SIM_DTYPE_COUNT, dsrc, SIM_FP32, n), SIM_EINVAL);
    dev_free_all(&b);
    free(src);
    free(got);
    free(want);
    CHECK(bad == 0);
    return 0;
}

// ----------------------------------------------------------------------------
// Optimizers: several steps from the same state, bit for bit after each

static int test_sgd(void) {
    size_t n = tenv_quick() ? 50021 : 400009, bytes = n * sizeof(float);
    TcvRng g;
    tcv_seed(&g, 15);
    float *p = malloc(bytes), *buf = malloc(bytes), *grad = malloc(bytes), *got = malloc(bytes);
    CHECK(p && buf && grad && got);
    Bufs b = {{0}, 0};
    float *dp = dev_alloc(&b, bytes), *dbuf = dev_alloc(&b, bytes), *dg = dev_alloc(&b, bytes);
    int bad = !(dp && dbuf && dg);
    for (int c = 0; c < TCV_SGD_CASES && !bad; c++) {
        SimSgdHyper h = tcv_sgd_cases[c];
        char name[128];
        tcv_sgd_name(&h, name, sizeof name);
        tcv_fill(&g, p, n, -1.0f, 1.0f, 0);
        p[0] = -0.0f, p[1] = 1e-30f;
        tcv_fill(&g, buf, n, -9.0f, 9.0f, 0); // garbage: the first step ignores it
        bad |= be->copy_to_device(ctx, 0, dp, p, bytes) != SIM_OK;
        bad |= bad || be->copy_to_device(ctx, 0, dbuf, buf, bytes) != SIM_OK;
        for (int s = 0; s < 4 && !bad; s++) {
            h.first_step = s == 0;
            tcv_fill(&g, grad, n, -0.5f, 0.5f, 0);
            grad[0] = -0.0f;
            char op[160];
            snprintf(op, sizeof op, "%s step %d", name, s + 1);
            bad |= be->copy_to_device(ctx, 0, dg, grad, bytes) != SIM_OK;
            bad |= bad || !op_ok(op, km->sgd_step(ctx, 0, dp, dg, dbuf, n, &h));
            CHECK_EQ_INT(cpu_math_sgd_step(NULL, 0, p, grad, buf, n, &h), SIM_OK);
            snprintf(op, sizeof op, "%s step %d: p", name, s + 1);
            bad |= bad || to_host(got, dp, bytes) || cmp_bits(op, got, p, n, 4, 1);
            if (h.momentum != 0.0) {
                snprintf(op, sizeof op, "%s step %d: buf", name, s + 1);
                bad |= bad || to_host(got, dbuf, bytes) || cmp_bits(op, got, buf, n, 4, 1);
            }
        }
    }
    if (!bad) {
        SimSgdHyper h = {0.1, 0.9, 0.0, 0.0, 0, 1};
        CHECK_EQ_INT(km->sgd_step(ctx, 0, dp, dg, NULL, n, &h), SIM_EINVAL);
    }
    dev_free_all(&b);
    free(p);
    free(buf);
    free(grad);
    free(got);
    CHECK(bad == 0);
    return 0;
}

static int test_adam(void) {
    size_t n = tenv_quick() ? 50021 : 400009, bytes = n * sizeof(float);
    const int64_t steps[] = {1, 2, 3, 4, 1000};
    static const char *const what[3] = {"p", "exp_avg", "exp_avg_sq"};
    TcvRng g;
    tcv_seed(&g, 16);
    float *st[3], *grad = malloc(bytes), *got = malloc(bytes);
    CHECK(grad && got);
    for (int k = 0; k < 3; k++)
        CHECK((st[k] = malloc(bytes)) != NULL);
    Bufs b = {{0}, 0};
    float *dst[3], *dg = dev_alloc(&b, bytes);
    int bad = dg == NULL;
    for (int k = 0; k < 3; k++)
        bad |= (dst[k] = dev_alloc(&b, bytes)) == NULL;
    for (int c = 0; c < TCV_ADAM_CASES && !bad; c++) {
        SimAdamHyper h = tcv_adam_cases[c];
        char name[128];
        tcv_adam_name(&h, name, sizeof name);
        tcv_fill(&g, st[0], n, -1.0f, 1.0f, 0);
        memset(st[1], 0, bytes);
        memset(st[2], 0, bytes);
        for (int k = 0; k < 3; k++)
            bad |= be->copy_to_device(ctx, 0, dst[k], st[k], bytes) != SIM_OK;
        for (size_t s = 0; s < sizeof steps / sizeof steps[0] && !bad; s++) {
            h.step = steps[s];
            tcv_fill(&g, grad, n, -0.1f, 0.1f, 0);
            char op[160];
            snprintf(op, sizeof op, "%s step %" PRId64, name, h.step);
            bad |= be->copy_to_device(ctx, 0, dg, grad, bytes) != SIM_OK;
            bad |= bad || !op_ok(op, km->adam_step(ctx, 0, dst[0], dg, dst[1], dst[2], n, &h));
            CHECK_EQ_INT(cpu_math_adam_step(NULL, 0, st[0], grad, st[1], st[2], n, &h), SIM_OK);
            for (int k = 0; k < 3 && !bad; k++) {
                snprintf(op, sizeof op, "%s step %" PRId64 ": %s", name, h.step, what[k]);
                bad |= to_host(got, dst[k], bytes) || cmp_bits(op, got, st[k], n, 4, 1);
            }
        }
    }
    if (!bad) {
        SimAdamHyper h = tcv_adam_cases[0];
        h.step = 0;
        CHECK_EQ_INT(km->adam_step(ctx, 0, dst[0], dg, dst[1], dst[2], n, &h), SIM_EINVAL);
    }
    dev_free_all(&b);
    for (int k = 0; k < 3; k++)
        free(st[k]);
    free(grad);
    free(got);
    CHECK(bad == 0);
    return 0;
}

// ----------------------------------------------------------------------------
// Embedding

typedef struct {
    int B, T, C, V, maxT;
} EmbedCase;

static int run_embedding(const EmbedCase *e, TcvRng *g) {
    size_t BT = (size_t)e->B * e->T, btc = BT * e->C;
    size_t nte = (size_t)e->V * e->C, npe = (size_t)e->maxT * e->C;
    int32_t *idx = malloc(BT * sizeof *idx);
    float *wte = malloc(nte * 4), *wpe = malloc(npe * 4), *dout = malloc(btc * 4);
    float *out = malloc(btc * 4), *got = malloc((btc > nte ? btc : nte) * 4);
    float *gte = malloc(nte * 4), *gpe = malloc(npe * 4);
    CHECK(idx && wte && wpe && dout && out && got && gte && gpe);
    for (size_t i = 0; i < BT; i++) // repeats, a few rows very often
        idx[i] = (int32_t)(tcv_next(g) % (uint64_t)(i % 4 == 0 ? 3 : e->V));
    tcv_fill(g, wte, nte, -1.0f, 1.0f, 0);
    tcv_fill(g, wpe, npe, -1.0f, 1.0f, 0);
    tcv_fill(g, dout, btc, -1.0f, 1.0f, 0);
    tcv_fill(g, gte, nte, -1.0f, 1.0f, 0); // gradients accumulate onto these
    tcv_fill(g, gpe, npe, -1.0f, 1.0f, 0);
    Bufs b = {{0}, 0};
    int32_t *didx = dev_from(&b, idx, BT * sizeof *idx);
    float *dwte = dev_from(&b, wte, nte * 4), *dwpe = dev_from(&b, wpe, npe * 4);
    float *ddout = dev_from(&b, dout, btc * 4), *dout_buf = dev_alloc(&b, btc * 4);
    float *dgte = dev_from(&b, gte, nte * 4), *dgpe = dev_from(&b, gpe, npe * 4);
    int bad = !(didx && dwte && dwpe && ddout && dout_buf && dgte && dgpe);
    char op[96];
    snprintf(op, sizeof op, "embedding_forward B=%d T=%d C=%d", e->B, e->T, e->C);
    bad |= bad || !op_ok(op, km->embedding_forward(ctx, 0, dout_buf, didx, dwte, dwpe, e->B,
                                                     e->T, e->C));
    bad |= bad || to_host(got, dout_buf, btc * 4);
    CHECK_EQ_INT(cpu_math_embedding_forward(NULL, 0, out, idx, wte, wpe, e->B, e->T, e->C),
                 SIM_OK);
    bad |= bad || cmp_bits(op, got, out, btc, 4, 1);

    // backward: both gradients, then dwte alone (dwpe NULL), then dwpe alone,
    // accumulating on the device and on the host alike
    for (int pass = 0; pass < 3 && !bad; pass++) {
        float *te = pass == 2 ? NULL : dgte, *pe = pass == 1 ? NULL : dgpe;
        snprintf(op, sizeof op, "embedding_backward B=%d T=%d C=%d%s", e->B, e->T, e->C,
                 pass == 1 ? " (dwte only)" : pass == 2 ? " (dwpe only)" : "");
        bad |= !op_ok(op, km->embedding_backward(ctx, 0, te, pe, ddout, didx, e->B, e->T, e->C));
        CHECK_EQ_INT(cpu_math_embedding_backward(NULL, 0, te ? gte : NULL, pe ? gpe : NULL, dout,
                                                 idx, e->B, e->T, e->C),
                     SIM_OK);
        char what[128];
        snprintf(what, sizeof what, "%s: dwte", op);
        bad |= bad || to_host(got, dgte, nte * 4) || cmp_bits(what, got, gte, nte, 4, 1);
        snprintf(what, sizeof what, "%s: dwpe", op);
        bad |= bad || to_host(got, dgpe, npe * 4) || cmp_bits(what, got, gpe, npe, 4, 1);
    }
    // a negative id: SIM_EINVAL on both backends
    if (!bad && BT > 1) {
        int32_t keep = idx[BT - 1];
        idx[BT - 1] = -1;
        bad |= be->copy_to_device(ctx, 0, didx, idx, BT * sizeof *idx) != SIM_OK;
        CHECK_EQ_INT(km->embedding_forward(ctx, 0, dout_buf, didx, dwte, dwpe, e->B, e->T, e->C),
                     SIM_EINVAL);
        CHECK_EQ_INT(km->embedding_backward(ctx, 0, dgte, dgpe, ddout, didx, e->B, e->T, e->C),
                     SIM_EINVAL);
        CHECK_EQ_INT(cpu_math_embedding_forward(NULL, 0, out, idx, wte, wpe, e->B, e->T, e->C),
                     SIM_EINVAL);
        idx[BT - 1] = keep;
    }
    dev_free_all(&b);
    free(idx);
    free(wte);
    free(wpe);
    free(dout);
    free(out);
    free(got);
    free(gte);
    free(gpe);
    CHECK(bad == 0);
    return 0;
}

static int test_embedding(void) {
    const EmbedCase cases[] = {
        {3, 17, 24, 40, 20},      // small, odd sizes
        {4, 64, 96, 50, 80},      // more positions than rows: rows repeat often
        {2, 256, 768, 1000, 256}, // GPT-2's width, more channels than a block
    };
    TcvRng g;
    tcv_seed(&g, 17);
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++)
        CHECK(run_embedding(&cases[k], &g) == 0);
    return 0;
}

// ----------------------------------------------------------------------------

int main(void) {
    // One rank: the backend runs one rank per visible GPU, so a machine with
    // several shows this test only the first (unless the caller chose).
    if (getenv("CUDA_VISIBLE_DEVICES") == NULL)
        setenv("CUDA_VISIBLE_DEVICES", "0", 1);
    SimBackendConfig bc = {1, 1, 1, 5.0, 0, 0, {0}, SIM_ALGO_AUTO};
    char err[512] = "";
    SimStatus st = be->init(&bc, &ctx, err, sizeof err);
    if (st == SIM_ENODEV) {
        printf("SKIP: %s\n", err);
        return 77;
    }
    if (st != SIM_OK) {
        fprintf(stderr, "cuda backend init failed: %s: %s\n", sim_status_name(st), err);
        return 1;
    }
    km = be->math;
    int failures = 0;
    RUN(test_act);
    RUN(test_elementwise);
    RUN(test_reductions);
    RUN(test_cast);
    RUN(test_sgd);
    RUN(test_adam);
    RUN(test_embedding);
    be->finalize(ctx);
    return failures ? 1 : 0;
}
