// tests/test_dtype.c: fp16/bf16 conversions (round-to-nearest-even) checked
// exhaustively and against the compiler's own _Float16 where available, and
// the reduction kernels.
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/dtype.h"
#include "check.h"

static float bits_f(uint32_t x) {
    float f;
    memcpy(&f, &x, 4);
    return f;
}

static int test_f16_roundtrip_exhaustive(void) {
    for (uint32_t h = 0; h < 65536; h++) {
        float f = sim_f16_to_f32((uint16_t)h);
        uint16_t back = sim_f32_to_f16(f);
        int is_nan = (h & 0x7c00) == 0x7c00 && (h & 0x3ff);
        if (is_nan)
            CHECK((back & 0x7c00) == 0x7c00 && (back & 0x3ff));
        else
            CHECK_EQ_INT(back, h);
    }
    return 0;
}

static int test_bf16_roundtrip_exhaustive(void) {
    for (uint32_t b = 0; b < 65536; b++) {
        float f = sim_bf16_to_f32((uint16_t)b);
        uint16_t back = sim_f32_to_bf16(f);
        int is_nan = (b & 0x7f80) == 0x7f80 && (b & 0x7f);
        if (!is_nan)
            CHECK_EQ_INT(back, b);
    }
    return 0;
}

static int test_f16_known_values(void) {
    CHECK_EQ_INT(sim_f32_to_f16(1.0f), 0x3c00);
    CHECK_EQ_INT(sim_f32_to_f16(-2.0f), 0xc000);
    CHECK_EQ_INT(sim_f32_to_f16(65504.0f), 0x7bff);   // largest finite
    CHECK_EQ_INT(sim_f32_to_f16(65520.0f), 0x7c00);   // rounds up to inf
    CHECK_EQ_INT(sim_f32_to_f16(5.9604645e-8f), 0x0001); // smallest subnormal
    CHECK_EQ_INT(sim_f32_to_f16(2.9802322e-8f), 0x0000); // half of it: tie to even -> 0
    // 1 + 2^-11 is halfway between 1 and 1 + 2^-10: ties to even (1.0)
    CHECK_EQ_INT(sim_f32_to_f16(1.0f + 0x1p-11f), 0x3c00);
    // 1 + 3*2^-11 is halfway between odd and even mantissas: rounds up to even
    CHECK_EQ_INT(sim_f32_to_f16(1.0f + 3 * 0x1p-11f), 0x3c02);
    CHECK_EQ_INT(sim_f32_to_bf16(1.0f + 0x1p-8f), 0x3f80);  // tie -> even
    CHECK_EQ_INT(sim_f32_to_bf16(1.0f + 3 * 0x1p-8f), 0x3f82);
    return 0;
}

#if defined(__FLT16_MAX__)
// The compiler's _Float16 conversion is an independent reference.
static int test_f16_against_compiler(void) {
    uint32_t state = 12345;
    for (int i = 0; i < 2000000; i++) {
        state = state * 1664525u + 1013904223u;
        float f = bits_f(state);
        if (f != f)
            continue;
        _Float16 h = (_Float16)f;
        uint16_t want;
        memcpy(&want, &h, 2);
        if (sim_f32_to_f16(f) != want) {
            fprintf(stderr, "f=%a ours=%04x compiler=%04x\n", f, sim_f32_to_f16(f), want);
            return 1;
        }
    }
    return 0;
}
#endif

static int test_reduce_kernels(void) {
    float a[3000], b[3000], c[3000], out[3000];
    for (int i = 0; i < 3000; i++)
        a[i] = (float)i, b[i] = (float)(2 * i), c[i] = -1.0f;
    const void *src[3] = {a, b, c};
    sim_reduce_multi(out, src, 3, 3000, SIM_FP32, SIM_SUM);
    for (int i = 0; i < 3000; i++)
        CHECK_NEAR(out[i], 3.0 * i - 1.0, 0);
    sim_reduce_multi(out, src, 3, 3000, SIM_FP32, SIM_MAX);
    CHECK_NEAR(out[0], 0, 0);
    CHECK_NEAR(out[10], 20, 0);
    // dst aliasing a later source
    sim_reduce_multi(c, src, 3, 3000, SIM_FP32, SIM_SUM);
    CHECK_NEAR(c[7], 20, 0);

    int32_t x[4] = {INT32_MAX, 2, 3, -4}, y[4] = {1, 5, -3, 2};
    sim_reduce_inplace(x, y, 4, SIM_INT32, SIM_SUM); // wraps, no UB
    CHECK_EQ_INT(x[0], INT32_MIN);
    CHECK_EQ_INT(x[3], -2);
    int64_t p[2] = {3, -2}, q[2] = {5, 7};
    sim_reduce_inplace(p, q, 2, SIM_INT64, SIM_PROD);
    CHECK_EQ_INT(p[0], 15);
    CHECK_EQ_INT(p[1], -14);

    // fp16: chain computed in fp32 and rounded once
    uint16_t h0[1] = {sim_f32_to_f16(2048.0f)}, h1[1] = {sim_f32_to_f16(1.0f)},
             h2[1] = {sim_f32_to_f16(1.0f)}, hout[1];
    const void *hs[3] = {h0, h1, h2};
    sim_reduce_multi(hout, hs, 3, 1, SIM_FP16, SIM_SUM);
    CHECK_NEAR(sim_f16_to_f32(hout[0]), 2050.0, 0); // pairwise in fp16 would give 2048
    // ... and hop by hop, as a ring computes it: 2048 + 1 is a tie (the fp16
    // ulp at 2048 is 2), rounded to even 2048, twice
    sim_reduce_chain(hout, hs, 3, 1, SIM_FP16, SIM_SUM);
    CHECK_NEAR(sim_f16_to_f32(hout[0]), 2048.0, 0);
    const void *hs_rev[3] = {h1, h2, h0}; // 1 + 1 first: exact, then 2048 + 2
    sim_reduce_chain(hout, hs_rev, 3, 1, SIM_FP16, SIM_SUM);
    CHECK_NEAR(sim_f16_to_f32(hout[0]), 2050.0, 0);
    sim_scale_avg(hout, 1, SIM_FP16, 2);
    CHECK_NEAR(sim_f16_to_f32(hout[0]), 1025.0, 0);
    int32_t iv[1] = {7};
    sim_scale_avg(iv, 1, SIM_INT32, 2);
    CHECK_EQ_INT(iv[0], 3);
    return 0;
}

static int test_names(void) {
    SimDtype dt;
    SimRedOp op;
    CHECK_EQ_INT(sim_dtype_parse("bf16", &dt), 0);
    CHECK_EQ_INT(dt, SIM_BF16);
    CHECK_EQ_INT(sim_dtype_parse("float8", &dt), -1);
    CHECK_EQ_INT(sim_redop_parse("avg", &op), 0);
    CHECK_EQ_INT(op, SIM_AVG);
    CHECK_EQ_INT(sim_dtype_size(SIM_INT64), 8);
    return 0;
}

int main(void) {
    int failures = 0;
    RUN(test_f16_roundtrip_exhaustive);
    RUN(test_bf16_roundtrip_exhaustive);
    RUN(test_f16_known_values);
#if defined(__FLT16_MAX__)
    RUN(test_f16_against_compiler);
#else
    (void)bits_f;
#endif
    RUN(test_reduce_kernels);
    RUN(test_names);
    return failures ? 1 : 0;
}
