// backend_cpu/cpu_math_act.c: element-wise activations and their
// derivatives, with PyTorch's definitions:
//   relu(x)      = max(x, 0); its gradient at 0 is 0 (torch's threshold_backward)
//   gelu(x)      = x/2 (1 + erf(x/sqrt 2))                      nn.GELU()
//   gelu_tanh(x) = x/2 (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))) nn.GELU('tanh')
// Backward ACCUMULATES: dinp[i] += act'(inp[i]) * dout[i].
#include <math.h>

#include "cpu_math.h"

#define SQRT1_2 0.70710678118654752440f      // 1/sqrt(2)
#define INV_SQRT_2PI 0.39894228040143267794f // 1/sqrt(2 pi): the normal density at 0
#define SQRT_2_OVER_PI 0.79788456080286535588f
#define GELU_KAPPA 0.044715f

// ----------------------------------------------------------------------------
// GELU, exact (erf)

static float gelu(float x) {
    return 0.5f * x * (1.0f + erff(x * SQRT1_2));
}

// d/dx [x Phi(x)] = Phi(x) + x phi(x)
static float gelu_grad(float x) {
    float cdf = 0.5f * (1.0f + erff(x * SQRT1_2));
    float pdf = expf(-0.5f * x * x) * INV_SQRT_2PI;
    return cdf + x * pdf;
}

// ----------------------------------------------------------------------------
// GELU, tanh approximation

static float gelu_tanh(float x) {
    float inner = SQRT_2_OVER_PI * (x + GELU_KAPPA * x * x * x);
    return 0.5f * x * (1.0f + tanhf(inner));
}

// d/dx [x/2 (1 + tanh u)] = (1 + tanh u)/2 + x/2 (1 - tanh^2 u) u'
// For x below about -3 the two terms nearly cancel, and in fp32 1 + tanh u
// is a multiple of 6e-8: torch's fp32 formula is then off by up to ~5e-7 in
// absolute terms. Computing it in double gives the derivative to fp32
// precision everywhere.
static float gelu_tanh_grad(float xf) {
    double x = xf, x2 = x * x;
    double inner = (double)SQRT_2_OVER_PI * (x + (double)GELU_KAPPA * x2 * x);
    double th = tanh(inner);
    double dinner = (double)SQRT_2_OVER_PI * (1.0 + 3.0 * (double)GELU_KAPPA * x2);
    return (float)(0.5 * (1.0 + th) + 0.5 * x * (1.0 - th * th) * dinner);
}

// ----------------------------------------------------------------------------

SimStatus cpu_math_act_forward(void *ctx, int rank, SimAct act, float *out, const float *inp,
                               size_t n) {
    (void)ctx;
    (void)rank;
    switch (act) {
    case SIM_ACT_RELU:
        // Written as a select, not a branch, so it vectorises; NaN stays
        // NaN, as torch.relu keeps it.
        for (size_t i = 0; i < n; i++)
            out[i] = inp[i] < 0.0f ? 0.0f : inp[i];
        return SIM_OK;
    case SIM_ACT_GELU:
        for (size_t i = 0; i < n; i++)
            out[i] = gelu(inp[i]);
        return SIM_OK;
    case SIM_ACT_GELU_TANH:
        for (size_t i = 0; i < n; i++)
            out[i] = gelu_tanh(inp[i]);
        return SIM_OK;
    default:
        return SIM_EINVAL;
    }
}

SimStatus cpu_math_act_backward(void *ctx, int rank, SimAct act, float *dinp, const float *inp,
                                const float *dout, size_t n) {
    (void)ctx;
    (void)rank;
    switch (act) {
    case SIM_ACT_RELU:
        for (size_t i = 0; i < n; i++)
            dinp[i] += (inp[i] > 0.0f ? 1.0f : 0.0f) * dout[i];
        return SIM_OK;
    case SIM_ACT_GELU:
        for (size_t i = 0; i < n; i++)
            dinp[i] += gelu_grad(inp[i]) * dout[i];
        return SIM_OK;
    case SIM_ACT_GELU_TANH:
        for (size_t i = 0; i < n; i++)
            dinp[i] += gelu_tanh_grad(inp[i]) * dout[i];
        return SIM_OK;
    default:
        return SIM_EINVAL;
    }
}
