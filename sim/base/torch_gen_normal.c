// sim/base/torch_gen_normal.c: Tensor.normal_ on a contiguous float32 tensor
// as PyTorch 1.13's CPU kernel computes it (native/cpu/DistributionTemplates.h
// normal_kernel), in the build /usr/bin/python3's torch is (AVX2 kernels):
//
// n >= 16 (normal_fill_AVX2): first every element gets uniform(0, 1) (24
//   bits, torch_gen.h), then each block of 16 becomes 16 normals by
//   Box-Muller, element j and j + 8 from u1 = 1 - v[j], u2 = v[j + 8]:
//     radius = sqrt(-2 log u1), theta = 2 pi u2,
//     v[j] = radius cos(theta) std + mean, v[j + 8] = radius sin(theta) std + mean;
//   when 16 does not divide n, the last 16 elements are drawn afresh and
//   transformed again. log, sin and cos are not libm's but the Cephes-style
//   polynomials of ATen's avx_mathfun.h (log256_ps, sincos256_ps), and the
//   compiler fuses each multiply feeding an add into one rounding (torch's
//   AVX2 kernels are built with FMA); the functions below are those
//   polynomials one lane at a time, every fusion written as fmaf. Against
//   torch 1.13 they give every value bit for bit (build/tests/test_torch_gen
//   torch: 625,506 values, n from 1 to 100,003, both paths); leaving out
//   any one of the fusions breaks some.
// n < 16 (the scalar path): at::normal_distribution<double>, two 53-bit
//   uniforms u1, u2 per pair, r = sqrt(-2 log(1 - u2)), theta = 2 pi u1,
//   r cos(theta) now and r sin(theta) kept in the generator for the next
//   scalar draw (torch.manual_seed clears it); rounded to float.
#include <math.h>

#include "base/dtype.h" // defines: sim_f32_bits, sim_f32_from_bits
#include "base/torch_gen.h"

// log256_ps for x in (0, 1]: x = m 2^e with m in [sqrt(1/2), sqrt(2)),
// log(m) by a degree-9 polynomial in m - 1, e log 2 added in two parts.
static float mathfun_log(float x) {
    static const float p[9] = {7.0376836292E-2f,  -1.1514610310E-1f, 1.1676998740E-1f,
                               -1.2420140846E-1f, 1.4249322787E-1f,  -1.6668057665E-1f,
                               2.0000714765E-1f,  -2.4999993993E-1f, 3.3333331174E-1f};
    const float min_norm = sim_f32_from_bits(0x00800000u); // denormals are cut off
    if (x < min_norm)
        x = min_norm;
    uint32_t u = sim_f32_bits(x);
    float e = (float)((int32_t)(u >> 23) - 0x7f) + 1.0f;
    x = sim_f32_from_bits((u & ~0x7f800000u) | sim_f32_bits(0.5f)); // the mantissa in [0.5, 1)
    float low = x < 0.707106781186547524f ? x : 0.0f;
    x = x - 1.0f;
    if (low != 0.0f)
        e = e - 1.0f;
    x = x + low;
    float z = x * x;
    float y = p[0];
    for (int i = 1; i < 9; i++)
        y = fmaf(y, x, p[i]);
    y = y * x;
    y = fmaf(y, z, e * -2.12194440e-4f);
    y = fmaf(-z, 0.5f, y);
    x = x + y;
    return fmaf(e, 0.693359375f, x);
}

// sincos256_ps for x >= 0: x reduced by multiples of pi/4 (pi/4 in three
// parts), then the sine and cosine polynomials, chosen and signed by the
// octant.
static void mathfun_sincos(float x, float *s, float *c) {
    uint32_t sign_sin = sim_f32_bits(x) & 0x80000000u;
    x = fabsf(x);
    int32_t j = (int32_t)(x * 1.27323954473516f); // 4 / pi
    j = (j + 1) & ~1;
    float y = (float)j;
    uint32_t swap_sin = (uint32_t)(j & 4) << 29;
    int sine_poly = (j & 2) == 0;
    x = fmaf(y, -0.78515625f, x);
    x = fmaf(y, -2.4187564849853515625e-4f, x);
    x = fmaf(y, -3.77489497744594108e-8f, x);
    uint32_t sign_cos = (uint32_t)(~(j - 2) & 4) << 29;
    sign_sin ^= swap_sin;
    float z = x * x;
    float yc = fmaf(fmaf(2.443315711809948E-005f, z, -1.388731625493765E-003f), z,
                    4.166664568298827E-002f);
    yc = yc * z;
    yc = fmaf(yc, z, -(z * 0.5f)) + 1.0f;
    float ys = fmaf(fmaf(-1.9515295891E-4f, z, 8.3321608736E-3f), z, -1.6666654611E-1f);
    ys = ys * z;
    ys = fmaf(ys, x, x);
    *s = sim_f32_from_bits(sim_f32_bits(sine_poly ? ys : yc) ^ sign_sin);
    *c = sim_f32_from_bits(sim_f32_bits(sine_poly ? yc : ys) ^ sign_cos);
}

// normal_fill_16_AVX2: v[16] uniforms in, normals out.
static void fill16(float *v, float mean, float std) {
    const float two_pi = (float)(2.0 * 3.14159265358979323846);
    for (int j = 0; j < 8; j++) {
        float radius = sqrtf(-2.0f * mathfun_log(1.0f - v[j]));
        float s, c;
        mathfun_sincos(two_pi * v[j + 8], &s, &c);
        v[j] = fmaf(radius * c, std, mean);
        v[j + 8] = fmaf(radius * s, std, mean);
    }
}

static double unit53(SimTorchGen *g) {
    return (double)(sim_torchgen_random64(g) & ((1ull << 53) - 1)) * 0x1.0p-53;
}

static float scalar_normal(SimTorchGen *g, double mean, double std) {
    double v;
    if (g->has_normal) {
        v = g->normal;
        g->has_normal = 0;
    } else {
        double u1 = unit53(g), u2 = unit53(g);
        double r = sqrt(-2.0 * log1p(-u2));
        double theta = 2.0 * 3.14159265358979323846 * u1;
        g->normal = r * sin(theta);
        g->has_normal = 1;
        v = r * cos(theta);
    }
    return (float)fma(v, std, mean);
}

void sim_torchgen_normal_f32(SimTorchGen *g, float *out, int64_t n, float mean, float std) {
    if (n < 16) {
        for (int64_t i = 0; i < n; i++)
            out[i] = scalar_normal(g, mean, std);
        return;
    }
    for (int64_t i = 0; i < n; i++)
        out[i] = sim_torchgen_uniform_f32(g, 0.0f, 1.0f);
    for (int64_t i = 0; i + 16 <= n; i += 16)
        fill16(out + i, mean, std);
    if (n % 16 != 0) {
        float *tail = out + n - 16;
        for (int k = 0; k < 16; k++)
            tail[k] = sim_torchgen_uniform_f32(g, 0.0f, 1.0f);
        fill16(tail, mean, std);
    }
}
