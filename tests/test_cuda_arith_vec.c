// tests/test_cuda_arith_vec.c: the arithmetic of the CUDA backend's
// activation, vector, cast, optimizer and embedding kernels
// (backend_cuda/cuda_arith_vec.h), built here by the C compiler and driven
// over arrays by the same loops the kernels run, against the cpu backend's
// kernels (backend_cpu/cpu_math_*.c) on the same inputs. Needs no GPU.
//
// Every comparison is bit for bit (NaN payloads included): the header
// repeats the cpu backend's formulas operation by operation, so on the host,
// with the same libm, nothing may differ. The one reordering, the GPU's
// two-level sum of squares, is checked against a bound on its rounding error.
#include <float.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "cpu_math.h"           // defines: cpu_math_*
#include "cuda_arith_vec.h"     // defines: cuda_*_elem, cuda_f32_to_f16, ...
#include "test_cuda_vec_data.h" // defines: tcv_fill, tcv_cast_source, ...
#include "test_env.h"           // defines: tenv_quick

// ----------------------------------------------------------------------------
// Comparisons

static uint32_t bits_of(float f) {
    uint32_t x;
    memcpy(&x, &f, sizeof x);
    return x;
}

// Index of the first element whose bytes differ, or -1.
static long first_diff(const void *a, const void *b, size_t n, size_t elem) {
    const unsigned char *pa = a, *pb = b;
    for (size_t i = 0; i < n; i++)
        if (memcmp(pa + i * elem, pb + i * elem, elem) != 0)
            return (long)i;
    return -1;
}

// Checks two fp32 arrays bit for bit; on a difference names the op, the
// element, the input and both values.
static int same_f32(const char *op, const float *got, const float *want, const float *in,
                    size_t n) {
    long i = first_diff(got, want, n, sizeof *got);
    if (i < 0)
        return 0;
    fprintf(stderr, "%s: element %ld (input %.9g = 0x%08x): cuda_arith %.9g (0x%08x), cpu %.9g "
            "(0x%08x)\n", op, i, in ? in[i] : 0.0, in ? bits_of(in[i]) : 0u, got[i],
            bits_of(got[i]), want[i], bits_of(want[i]));
    return 1;
}

// ----------------------------------------------------------------------------
// Activations

static const char *const act_names[SIM_ACT_COUNT] = {"relu", "gelu", "gelu_tanh"};

static int check_act(const float *x, const float *dout, const float *dinp0, size_t n) {
    float *got = malloc(n * sizeof *got), *want = malloc(n * sizeof *want);
    CHECK(got && want);
    int bad = 0;
    for (int a = 0; a < SIM_ACT_COUNT && !bad; a++) {
        SimAct act = (SimAct)a;
        char op[64];
        // forward: the kernel's loop
        for (size_t i = 0; i < n; i++)
            got[i] = cuda_act_forward_elem(act, x[i]);
        CHECK_EQ_INT(cpu_math_act_forward(NULL, 0, act, want, x, n), SIM_OK);
        snprintf(op, sizeof op, "%s forward", act_names[a]);
        bad |= same_f32(op, got, want, x, n);
        // backward accumulates into dinp
        memcpy(want, dinp0, n * sizeof *want);
        for (size_t i = 0; i < n; i++)
            got[i] = cuda_act_backward_elem(act, dinp0[i], x[i], dout[i]);
        CHECK_EQ_INT(cpu_math_act_backward(NULL, 0, act, want, x, dout, n), SIM_OK);
        snprintf(op, sizeof op, "%s backward", act_names[a]);
        bad |= same_f32(op, got, want, x, n);
    }
    free(got);
    free(want);
    return bad;
}

// Random inputs with the special values, and a sweep over every magnitude
// of fp32 (one bit pattern in 2^12, or 2^16 when quick).
static int test_act(void) {
    size_t n = 100000;
    TcvRng g;
    tcv_seed(&g, 1);
    float *x = malloc(n * sizeof *x), *dout = malloc(n * sizeof *dout);
    float *dinp = malloc(n * sizeof *dinp);
    CHECK(x && dout && dinp);
    tcv_fill(&g, x, n, -8.0f, 8.0f, 1);
    tcv_fill(&g, dout, n, -2.0f, 2.0f, 0);
    tcv_fill(&g, dinp, n, -1.0f, 1.0f, 0);
    int bad = check_act(x, dout, dinp, n);
    free(x);
    free(dout);
    free(dinp);
    CHECK(bad == 0);

    int step_bits = tenv_quick() ? 16 : 12;
    size_t m = (size_t)1 << (32 - step_bits);
    x = malloc(m * sizeof *x), dout = malloc(m * sizeof *dout), dinp = malloc(m * sizeof *dinp);
    CHECK(x && dout && dinp);
    for (size_t i = 0; i < m; i++) {
        // the pattern i << step_bits, plus varying low bits
        uint32_t b = (uint32_t)(i << step_bits) | (uint32_t)(tcv_next(&g) & ((1u << step_bits) - 1));
        memcpy(&x[i], &b, sizeof b);
    }
    tcv_fill(&g, dout, m, -2.0f, 2.0f, 0);
    tcv_fill(&g, dinp, m, -1.0f, 1.0f, 0);
    bad = check_act(x, dout, dinp, m);
    free(x);
    free(dout);
    free(dinp);
    CHECK(bad == 0);
    return 0;
}

// ----------------------------------------------------------------------------
// add, axpy, scale, fill, nonfinite

static int test_elementwise(void) {
    size_t n = 50000;
    TcvRng g;
    tcv_seed(&g, 2);
    float *a = malloc(n * sizeof *a), *b = malloc(n * sizeof *b);
    float *got = malloc(n * sizeof *got), *want = malloc(n * sizeof *want);
    CHECK(a && b && got && want);
    tcv_fill(&g, a, n, -1e3f, 1e3f, 1);
    tcv_fill(&g, b, n, -1.0f, 1.0f, 1);
    int bad = 0;

    for (size_t i = 0; i < n; i++)
        got[i] = cuda_add_elem(a[i], b[i]);
    CHECK_EQ_INT(cpu_math_add(NULL, 0, want, a, b, n), SIM_OK);
    bad |= same_f32("add", got, want, a, n);

    const float alphas[] = {0.37f, -1.0f, 0.0f, 3e-5f, -0.0f, INFINITY};
    for (size_t k = 0; k < sizeof alphas / sizeof alphas[0]; k++) {
        char op[48];
        memcpy(want, a, n * sizeof *want);
        for (size_t i = 0; i < n; i++)
            got[i] = cuda_axpy_elem(a[i], alphas[k], b[i]);
        CHECK_EQ_INT(cpu_math_axpy(NULL, 0, want, alphas[k], b, n), SIM_OK);
        snprintf(op, sizeof op, "axpy alpha=%g", alphas[k]);
        bad |= same_f32(op, got, want, b, n);

        memcpy(want, a, n * sizeof *want);
        for (size_t i = 0; i < n; i++)
            got[i] = cuda_scale_elem(a[i], alphas[k]);
        CHECK_EQ_INT(cpu_math_scale(NULL, 0, want, alphas[k], n), SIM_OK);
        snprintf(op, sizeof op, "scale alpha=%g", alphas[k]);
        bad |= same_f32(op, got, want, a, n);
    }

    // fill: the kernel stores the value; +0 is a memset on both sides, -0
    // must keep its sign
    const float values[] = {0.0f, -0.0f, 1.5f, NAN};
    for (size_t k = 0; k < sizeof values / sizeof values[0]; k++) {
        for (size_t i = 0; i < n; i++)
            got[i] = values[k];
        memcpy(want, a, n * sizeof *want);
        CHECK_EQ_INT(cpu_math_fill(NULL, 0, want, values[k], n), SIM_OK);
        bad |= same_f32("fill", got, want, NULL, n);
    }
    CHECK_EQ_INT(cuda_f32_bits(-0.0f), 0x80000000u); // the fill's memset test
    CHECK_EQ_INT(cuda_f32_bits(0.0f), 0u);

    // nonfinite: every special value alone, and clean arrays
    for (size_t i = 0; i < n; i++) {
        int want_bad = 0, got_bad = cuda_is_nonfinite(a[i]);
        CHECK_EQ_INT(cpu_math_nonfinite(NULL, 0, &want_bad, &a[i], 1), SIM_OK);
        if (got_bad != want_bad) {
            fprintf(stderr, "nonfinite: element %zu (0x%08x): cuda_arith %d, cpu %d\n", i,
                    bits_of(a[i]), got_bad, want_bad);
            bad = 1;
        }
    }
    free(a);
    free(b);
    free(got);
    free(want);
    CHECK(bad == 0);
    return 0;
}

// ----------------------------------------------------------------------------
// sumsq

// The GPU's order (cuda_math_vec.cu): `blocks` blocks of `threads` threads,
// thread t of block b summing elements b*threads + t + k*blocks*threads in
// turn; each block's partials summed by a tree (stride threads/2, ..., 1);
// then one block of `threads` threads does the same over the block sums.
static double tree_sum(double *sh, unsigned threads) {
    for (unsigned w = threads / 2; w > 0; w >>= 1)
        for (unsigned t = 0; t < w; t++)
            sh[t] += sh[t + w];
    return sh[0];
}

static double gpu_order_sumsq(const float *x, size_t n, unsigned blocks, unsigned threads) {
    double *sh = malloc(threads * sizeof *sh), *part = malloc(blocks * sizeof *part);
    if (sh == NULL || part == NULL) {
        free(sh);
        free(part);
        return NAN;
    }
    size_t stride = (size_t)blocks * threads;
    for (unsigned b = 0; b < blocks; b++) {
        for (unsigned t = 0; t < threads; t++) {
            double s = 0.0;
            for (size_t i = (size_t)b * threads + t; i < n; i += stride)
                s += cuda_sumsq_term(x[i]);
            sh[t] = s;
        }
        part[b] = tree_sum(sh, threads);
    }
    for (unsigned t = 0; t < threads; t++) {
        double s = 0.0;
        for (unsigned i = t; i < blocks; i += threads)
            s += part[i];
        sh[t] = s;
    }
    double total = tree_sum(sh, threads);
    free(sh);
    free(part);
    return total;
}

static int test_sumsq(void) {
    // CUDA_THREADS and CUDA_MAX_BLOCKS of cuda_launch.h (which needs the CUDA
    // headers, so the values are repeated here)
    const unsigned threads = 256, max_blocks = 4096;
    const size_t sizes[] = {0, 1, 255, 1000, 256 * 4096 + 7};
    TcvRng g;
    tcv_seed(&g, 3);
    for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
        size_t n = sizes[k];
        if (tenv_quick() && n > 100000)
            continue;
        float *x = malloc((n ? n : 1) * sizeof *x);
        CHECK(x);
        tcv_fill(&g, x, n, -3.0f, 3.0f, 0);
        if (n == 1000)
            x[n / 2] = 1e30f; // a square beyond fp32, fine in double
        double want = -1.0, seq = 0.0;
        CHECK_EQ_INT(cpu_math_sumsq(NULL, 0, &want, x, n), SIM_OK);
        for (size_t i = 0; i < n; i++)
            seq += cuda_sumsq_term(x[i]);
        // the cpu's own order: the same bits
        CHECK(memcmp(&seq, &want, sizeof seq) == 0);
        size_t nb = (n + threads - 1) / threads;
        nb = nb == 0 ? 1 : nb > max_blocks ? max_blocks : nb;
        double tree = gpu_order_sumsq(x, n, (unsigned)nb, threads);
        // Summing n non-negative terms in any order errs by at most
        // (n - 1) eps relative (eps = 2^-53 per addition).
        double bound = (double)n * DBL_EPSILON / 2.0 * want;
        if (!(fabs(tree - want) <= bound)) {
            fprintf(stderr, "sumsq n=%zu: gpu order %.17g, cpu %.17g (bound %.3g)\n", n, tree,
                    want, bound);
            free(x);
            return 1;
        }
        printf("sumsq n=%zu: |gpu order - cpu| / cpu = %.3g\n", n,
               want > 0 ? fabs(tree - want) / want : 0.0);
        free(x);
    }
    return 0;
}

// ----------------------------------------------------------------------------
// fp16 / bf16 conversions against sim/base/dtype.c

// Low 16 bits that decide the rounding: zero, ties of fp16 (bit 12) and bf16
// (bit 15), one below and above them, and the extremes.
static const uint32_t low_patterns[] = {
    0x0000, 0x0001, 0x0fff, 0x1000, 0x1001, 0x1fff, 0x2000, 0x3000, 0x5000, 0x7fff,
    0x8000, 0x8001, 0x9000, 0xa000, 0xb000, 0xefff, 0xf000, 0xffff,
};

static int check_f32_to_half(uint32_t x) {
    float f;
    memcpy(&f, &x, sizeof f);
    uint16_t got = cuda_f32_to_f16(f), want = sim_f32_to_f16(f);
    if (got != want) {
        fprintf(stderr, "f32->f16 of 0x%08x: cuda_arith 0x%04x, sim 0x%04x\n", x, got, want);
        return 1;
    }
    got = cuda_f32_to_bf16(f), want = sim_f32_to_bf16(f);
    if (got != want) {
        fprintf(stderr, "f32->bf16 of 0x%08x: cuda_arith 0x%04x, sim 0x%04x\n", x, got, want);
        return 1;
    }
    return 0;
}

static int test_half_conversions(void) {
    // every sign, exponent and top 7 mantissa bits, with each low pattern
    for (uint32_t hi = 0; hi < 0x10000u; hi++)
        for (size_t k = 0; k < sizeof low_patterns / sizeof low_patterns[0]; k++)
            CHECK(check_f32_to_half(hi << 16 | low_patterns[k]) == 0);
    // fp16 subnormal ties sit higher for small exponents: each exponent of
    // fp16's subnormal range with every single bit below the kept ones
    for (uint32_t e = 100; e <= 113; e++)
        for (int bit = 0; bit < 23; bit++)
            for (uint32_t s = 0; s < 2; s++) {
                uint32_t x = s << 31 | e << 23 | 1u << bit;
                CHECK(check_f32_to_half(x) == 0);
                CHECK(check_f32_to_half(x | 0x7f0000u) == 0);
            }
    TcvRng g;
    tcv_seed(&g, 4);
    size_t nrand = tenv_quick() ? 100000 : 2000000;
    for (size_t i = 0; i < nrand; i++)
        CHECK(check_f32_to_half((uint32_t)tcv_next(&g)) == 0);
    // every fp16 and bf16 value, back to fp32
    for (uint32_t h = 0; h < 0x10000u; h++) {
        float got = cuda_f16_to_f32((uint16_t)h), want = sim_f16_to_f32((uint16_t)h);
        if (bits_of(got) != bits_of(want)) {
            fprintf(stderr, "f16->f32 of 0x%04x: cuda_arith 0x%08x, sim 0x%08x\n", h,
                    bits_of(got), bits_of(want));
            return 1;
        }
        got = cuda_bf16_to_f32((uint16_t)h), want = sim_bf16_to_f32((uint16_t)h);
        CHECK_EQ_INT(bits_of(got), bits_of(want));
    }
    return 0;
}

// ----------------------------------------------------------------------------
// cast: every pair of dtypes through the kernel's element function

static int test_cast_pairs(void) {
    size_t n = tenv_quick() ? 5000 : 100000;
    TcvRng g;
    tcv_seed(&g, 5);
    void *src = malloc(n * 8), *got = malloc(n * 8), *want = malloc(n * 8);
    CHECK(src && got && want);
    int bad = 0;
    for (int s = 0; s < SIM_DTYPE_COUNT && !bad; s++)
        for (int d = 0; d < SIM_DTYPE_COUNT && !bad; d++) {
            if (s == d)
                continue;
            SimDtype sd = (SimDtype)s, dd = (SimDtype)d;
            size_t dsz = sim_dtype_size(dd);
            CHECK_EQ_INT(cuda_dtype_bytes(dd), dsz);
            tcv_cast_source(&g, src, sd, dd, n);
            memset(got, 0xab, n * dsz);
            memset(want, 0xcd, n * dsz);
            for (size_t i = 0; i < n; i++)
                cuda_cast_elem(got, dd, src, sd, i);
            CHECK_EQ_INT(cpu_math_cast(NULL, 0, want, dd, src, sd, n), SIM_OK);
            long i = first_diff(got, want, n, dsz);
            if (i >= 0) {
                uint64_t sv = 0, gv = 0, wv = 0;
                memcpy(&sv, (char *)src + i * sim_dtype_size(sd), sim_dtype_size(sd));
                memcpy(&gv, (char *)got + i * dsz, dsz);
                memcpy(&wv, (char *)want + i * dsz, dsz);
                fprintf(stderr, "cast %s->%s: element %ld (source bits 0x%" PRIx64
                        " = %.17g): cuda_arith bits 0x%" PRIx64 ", cpu bits 0x%" PRIx64 "\n",
                        sim_dtype_name(sd), sim_dtype_name(dd), i, sv,
                        sim_elem_get(src, sd, (size_t)i), gv, wv);
                bad = 1;
            }
        }
    free(src);
    free(got);
    free(want);
    CHECK(bad == 0);
    return 0;
}

// Where C leaves the conversion undefined (and the cpu backend with it), the
// element function saturates and maps NaN to 0, as the GPU's conversions do.
static int test_cast_saturation(void) {
    const float f[] = {NAN, 1e10f, -1e10f, INFINITY, -INFINITY, 2147483648.0f, 1e19f, -1e19f};
    const int32_t want32[] = {0, INT32_MAX, INT32_MIN, INT32_MAX, INT32_MIN, INT32_MAX,
                              INT32_MAX, INT32_MIN};
    const int64_t want64[] = {0, 10000000000, -10000000000, INT64_MAX, INT64_MIN,
                              2147483648, INT64_MAX, INT64_MIN};
    for (size_t i = 0; i < sizeof f / sizeof f[0]; i++) {
        int32_t o32 = 1;
        int64_t o64 = 1;
        cuda_cast_elem(&o32, SIM_INT32, &f[i], SIM_FP32, 0);
        cuda_cast_elem(&o64, SIM_INT64, &f[i], SIM_FP32, 0);
        CHECK_EQ_INT(o32, want32[i]);
        CHECK_EQ_INT(o64, want64[i]);
    }
    const int64_t big[] = {INT64_MAX, INT64_MIN, (int64_t)1 << 40};
    const int32_t want_big[] = {INT32_MAX, INT32_MIN, INT32_MAX};
    for (size_t i = 0; i < sizeof big / sizeof big[0]; i++) {
        int32_t o32 = 1;
        cuda_cast_elem(&o32, SIM_INT32, &big[i], SIM_INT64, 0);
        CHECK_EQ_INT(o32, want_big[i]);
    }
    CHECK_EQ_INT(cuda_dtype_bytes(SIM_DTYPE_COUNT), 0);
    return 0;
}

// ----------------------------------------------------------------------------
// Optimizers: several steps, from the same state, bit for bit

// p, g with special values (-0, tiny, large) in front; a fresh gradient each
// step; momentum buffers / moments start as garbage on the first SGD step
// (torch creates them from the gradient then) and as zero for Adam.
static int test_sgd(void) {
    size_t n = 20000;
    int steps = 5;
    TcvRng g;
    tcv_seed(&g, 6);
    float *p0 = malloc(n * 4), *p1 = malloc(n * 4), *b0 = malloc(n * 4), *b1 = malloc(n * 4);
    float *grad = malloc(n * 4);
    CHECK(p0 && p1 && b0 && b1 && grad);
    for (int c = 0; c < TCV_SGD_CASES; c++) {
        SimSgdHyper h = tcv_sgd_cases[c];
        char name[128];
        tcv_sgd_name(&h, name, sizeof name);
        tcv_fill(&g, p0, n, -1.0f, 1.0f, 0);
        p0[0] = -0.0f, p0[1] = 0.0f, p0[2] = 1e-30f, p0[3] = 3e4f;
        memcpy(p1, p0, n * 4);
        tcv_fill(&g, b0, n, -9.0f, 9.0f, 0); // garbage: the first step ignores it
        memcpy(b1, b0, n * 4);
        for (int s = 0; s < steps; s++) {
            h.first_step = s == 0;
            tcv_fill(&g, grad, n, -0.5f, 0.5f, 0);
            grad[0] = -0.0f, grad[1] = -0.0f, grad[4] = 1e-38f;
            CudaSgdCoef k = cuda_sgd_coef(&h);
            for (size_t i = 0; i < n; i++) {
                if (h.momentum != 0.0)
                    cuda_sgd_momentum_elem(p0, grad, b0, i, k);
                else
                    cuda_sgd_elem(p0, grad, i, k);
            }
            CHECK_EQ_INT(cpu_math_sgd_step(NULL, 0, p1, grad, b1, n, &h), SIM_OK);
            char op[160];
            snprintf(op, sizeof op, "%s step %d: p", name, s + 1);
            CHECK(same_f32(op, p0, p1, grad, n) == 0);
            if (h.momentum != 0.0) {
                snprintf(op, sizeof op, "%s step %d: momentum", name, s + 1);
                CHECK(same_f32(op, b0, b1, grad, n) == 0);
            }
        }
    }
    free(p0);
    free(p1);
    free(b0);
    free(b1);
    free(grad);
    return 0;
}

static int test_adam(void) {
    size_t n = 20000;
    const int64_t steps[] = {1, 2, 3, 4, 5, 1000, 100000};
    TcvRng g;
    tcv_seed(&g, 7);
    float *st[2][3], *grad = malloc(n * 4);
    CHECK(grad);
    for (int s = 0; s < 2; s++)
        for (int k = 0; k < 3; k++)
            CHECK((st[s][k] = malloc(n * 4)) != NULL);
    int rc = 0;
    for (int c = 0; c < TCV_ADAM_CASES && rc == 0; c++) {
        SimAdamHyper h = tcv_adam_cases[c];
        char name[128];
        tcv_adam_name(&h, name, sizeof name);
        tcv_fill(&g, st[0][0], n, -1.0f, 1.0f, 0);
        st[0][0][0] = -0.0f, st[0][0][1] = 1e-30f;
        memset(st[0][1], 0, n * 4);
        memset(st[0][2], 0, n * 4);
        for (int k = 0; k < 3; k++)
            memcpy(st[1][k], st[0][k], n * 4);
        for (size_t s = 0; s < sizeof steps / sizeof steps[0] && rc == 0; s++) {
            h.step = steps[s];
            tcv_fill(&g, grad, n, -0.1f, 0.1f, 0);
            grad[0] = -0.0f, grad[2] = 0.0f, grad[3] = 1e-20f;
            CudaAdamCoef k = cuda_adam_coef(&h);
            for (size_t i = 0; i < n; i++)
                cuda_adam_elem(st[0][0], grad, st[0][1], st[0][2], i, k);
            CHECK_EQ_INT(cpu_math_adam_step(NULL, 0, st[1][0], grad, st[1][1], st[1][2], n, &h),
                         SIM_OK);
            static const char *const what[3] = {"p", "exp_avg", "exp_avg_sq"};
            for (int q = 0; q < 3 && rc == 0; q++) {
                char op[160];
                snprintf(op, sizeof op, "%s step %" PRId64 ": %s", name, h.step, what[q]);
                rc = same_f32(op, st[0][q], st[1][q], grad, n);
            }
        }
    }
    for (int s = 0; s < 2; s++)
        for (int k = 0; k < 3; k++)
            free(st[s][k]);
    free(grad);
    return rc;
}

// ----------------------------------------------------------------------------
// Embedding

static int test_embedding(void) {
    const int B = 3, T = 17, C = 24, V = 40, maxT = 20;
    size_t BT = (size_t)B * T, btc = BT * C;
    TcvRng g;
    tcv_seed(&g, 8);
    int32_t idx[3 * 17];
    for (size_t i = 0; i < BT; i++)
        idx[i] = (int32_t)(tcv_next(&g) % (i % 5 == 0 ? 3 : V)); // repeats, some rows often
    float *wte = malloc((size_t)V * C * 4), *wpe = malloc((size_t)maxT * C * 4);
    float *dout = malloc(btc * 4), *got = malloc(btc * 4), *want = malloc(btc * 4);
    float *gte = malloc((size_t)V * C * 4), *wte_g = malloc((size_t)V * C * 4);
    float *gpe = malloc((size_t)maxT * C * 4), *wpe_g = malloc((size_t)maxT * C * 4);
    CHECK(wte && wpe && dout && got && want && gte && wte_g && gpe && wpe_g);
    tcv_fill(&g, wte, (size_t)V * C, -1.0f, 1.0f, 0);
    tcv_fill(&g, wpe, (size_t)maxT * C, -1.0f, 1.0f, 0);
    tcv_fill(&g, dout, btc, -1.0f, 1.0f, 0);

    for (size_t i = 0; i < btc; i++)
        CHECK_EQ_INT(cuda_embed_forward_elem(got, idx, wte, wpe, T, C, i), 0);
    CHECK_EQ_INT(cpu_math_embedding_forward(NULL, 0, want, idx, wte, wpe, B, T, C), SIM_OK);
    CHECK(same_f32("embedding forward", got, want, NULL, btc) == 0);

    // backward into non-zero gradients (it accumulates), for several lane
    // counts: the result must not depend on how rows are dealt out
    const int lanes[] = {1, 3, 32};
    for (size_t l = 0; l < sizeof lanes / sizeof lanes[0]; l++) {
        tcv_fill(&g, gte, (size_t)V * C, -1.0f, 1.0f, 0);
        tcv_fill(&g, gpe, (size_t)maxT * C, -1.0f, 1.0f, 0);
        memcpy(wte_g, gte, (size_t)V * C * 4);
        memcpy(wpe_g, gpe, (size_t)maxT * C * 4);
        for (size_t j = 0; j < (size_t)C * lanes[l]; j++)
            cuda_embed_dwte_lane(gte, dout, idx, BT, C, (int)(j % C), (int)(j / C), lanes[l]);
        for (size_t tc = 0; tc < (size_t)T * C; tc++)
            cuda_embed_dwpe_elem(gpe, dout, B, T, C, tc);
        CHECK_EQ_INT(cpu_math_embedding_backward(NULL, 0, wte_g, wpe_g, dout, idx, B, T, C),
                     SIM_OK);
        CHECK(same_f32("embedding backward dwte", gte, wte_g, NULL, (size_t)V * C) == 0);
        CHECK(same_f32("embedding backward dwpe", gpe, wpe_g, NULL, (size_t)maxT * C) == 0);
    }

    // a negative id is reported, never used as an index
    idx[5] = -1;
    CHECK_EQ_INT(cuda_embed_forward_elem(got, idx, wte, wpe, T, C, 5 * (size_t)C + 2), 1);
    CHECK_EQ_INT(cuda_embed_id_bad(idx, 5), 1);
    CHECK_EQ_INT(cuda_embed_id_bad(idx, 4), 0);
    free(wte);
    free(wpe);
    free(dout);
    free(got);
    free(want);
    free(gte);
    free(wte_g);
    free(gpe);
    free(wpe_g);
    return 0;
}

int main(void) {
    int failures = 0;
    RUN(test_act);
    RUN(test_elementwise);
    RUN(test_sumsq);
    RUN(test_half_conversions);
    RUN(test_cast_pairs);
    RUN(test_cast_saturation);
    RUN(test_sgd);
    RUN(test_adam);
    RUN(test_embedding);
    return failures ? 1 : 0;
}
