// backend_cpu/cpu_math_norm.c: LayerNorm (over the last dimension of each
// row) and BatchNorm1d (over the batch, per channel), forward and backward,
// with PyTorch's semantics:
// - both normalise with the BIASED variance: var = mean((x - mean)^2);
// - LayerNorm saves mean[N] and rstd[N] = 1/sqrt(var + eps) per row;
// - BatchNorm1d in training saves mean[C] and invstd[C] of the batch and
//   moves the running statistics towards it with `momentum`, using the
//   UNBIASED variance var * N/(N-1) for running_var, as torch does; in eval
//   it normalises with the running statistics and saves nothing. Backward
//   assumes the training-mode forward (batch statistics).
// weight and bias may be NULL (elementwise_affine=False / affine=False).
// Statistics and the sums of backward are accumulated in double.
#include <math.h>

#include "cpu_math.h"

// ----------------------------------------------------------------------------
// LayerNorm

SimStatus cpu_math_layernorm_forward(void *ctx, int rank, float *out, float *mean, float *rstd,
                                     const float *inp, const float *weight, const float *bias,
                                     int N, int C, float eps) {
    // out (N,C), mean (N), rstd (N); inp (N,C); weight, bias (C)
    (void)ctx;
    (void)rank;
    if (N < 0 || C <= 0)
        return N == 0 || C == 0 ? SIM_OK : SIM_EINVAL;
    for (int i = 0; i < N; i++) {
        const float *x = inp + (size_t)i * C;
        double sum = 0.0;
        for (int c = 0; c < C; c++)
            sum += x[c];
        double m = sum / C;
        double sq = 0.0;
        for (int c = 0; c < C; c++) {
            double d = x[c] - m;
            sq += d * d;
        }
        float mf = (float)m;
        float rs = (float)(1.0 / sqrt(sq / C + (double)eps));
        float *o = out + (size_t)i * C;
        for (int c = 0; c < C; c++) {
            float norm = (x[c] - mf) * rs;
            o[c] = norm * (weight ? weight[c] : 1.0f) + (bias ? bias[c] : 0.0f);
        }
        if (mean)
            mean[i] = mf;
        if (rstd)
            rstd[i] = rs;
    }
    return SIM_OK;
}

SimStatus cpu_math_layernorm_backward(void *ctx, int rank, float *dinp, float *dweight,
                                      float *dbias, const float *dout, const float *inp,
                                      const float *weight, const float *mean, const float *rstd,
                                      int N, int C) {
    if (N < 0 || C <= 0)
        return N == 0 || C == 0 ? SIM_OK : SIM_EINVAL;
    // Parameter gradients are sums over all N rows: accumulate them in
    // double in scratch, dw (C) then db (C), and add them once at the end.
    double *dw = cpu_math_scratch(ctx, rank, 2 * (size_t)C * sizeof(double));
    if (dw == NULL)
        return SIM_ENOMEM;
    double *db = dw + C;
    for (int c = 0; c < C; c++)
        dw[c] = db[c] = 0.0;
    for (int i = 0; i < N; i++) {
        const float *x = inp + (size_t)i * C;
        const float *dy = dout + (size_t)i * C;
        float m = mean[i], rs = rstd[i];
        // the two reductions of the normalisation's backward:
        // mean(dnorm) and mean(dnorm * norm), with dnorm = weight * dout
        double dnorm_mean = 0.0, dnorm_norm_mean = 0.0;
        for (int c = 0; c < C; c++) {
            float norm = (x[c] - m) * rs;
            float dnorm = (weight ? weight[c] : 1.0f) * dy[c];
            dnorm_mean += dnorm;
            dnorm_norm_mean += (double)dnorm * norm;
        }
        dnorm_mean /= C;
        dnorm_norm_mean /= C;
        for (int c = 0; c < C; c++) {
            float norm = (x[c] - m) * rs;
            float dnorm = (weight ? weight[c] : 1.0f) * dy[c];
            db[c] += dy[c];
            dw[c] += (double)norm * dy[c];
            if (dinp) {
                double dval = (double)dnorm - dnorm_mean - (double)norm * dnorm_norm_mean;
                dinp[(size_t)i * C + c] += (float)(dval * rs);
            }
        }
    }
    for (int c = 0; c < C; c++) {
        if (dweight)
            dweight[c] = (float)(dweight[c] + dw[c]);
        if (dbias)
            dbias[c] = (float)(dbias[c] + db[c]);
    }
    return SIM_OK;
}

// ----------------------------------------------------------------------------
// BatchNorm1d

// Per-channel mean and biased variance of inp (N,C), into m (C) and var (C).
void cpu_math_bn_column_stats(const float *inp, int N, int C, double *m, double *var) {
    for (int c = 0; c < C; c++)
        m[c] = var[c] = 0.0;
    for (int i = 0; i < N; i++)
        for (int c = 0; c < C; c++)
            m[c] += inp[(size_t)i * C + c];
    for (int c = 0; c < C; c++)
        m[c] /= N;
    for (int i = 0; i < N; i++)
        for (int c = 0; c < C; c++) {
            double d = inp[(size_t)i * C + c] - m[c];
            var[c] += d * d;
        }
    for (int c = 0; c < C; c++)
        var[c] /= N;
}

// out (N,C) = (inp - shift[c]) * scale[c] * weight[c] + bias[c]
static void normalise(float *out, const float *inp, const float *shift, const float *scale,
                      const float *weight, const float *bias, int N, int C) {
    for (int i = 0; i < N; i++)
        for (int c = 0; c < C; c++) {
            size_t k = (size_t)i * C + c;
            float norm = (inp[k] - shift[c]) * scale[c];
            out[k] = norm * (weight ? weight[c] : 1.0f) + (bias ? bias[c] : 0.0f);
        }
}

SimStatus cpu_math_batchnorm_forward(void *ctx, int rank, float *out, float *mean, float *invstd,
                                     float *running_mean, float *running_var, const float *inp,
                                     const float *weight, const float *bias, int N, int C,
                                     float momentum, float eps, int training) {
    // out (N,C), inp (N,C); mean, invstd, running_*, weight, bias (C)
    if (N < 0 || C < 0 || (training && N < 2 && C > 0))
        return SIM_EINVAL; // torch: "Expected more than 1 value per channel when training"
    if (N == 0 || C == 0)
        return SIM_OK;
    // scratch: m (C) and var (C) in double, then shift (C) and scale (C) in float
    double *m = cpu_math_scratch(ctx, rank, (size_t)C * (2 * sizeof(double) + 2 * sizeof(float)));
    if (m == NULL)
        return SIM_ENOMEM;
    double *var = m + C;
    float *shift = (float *)(var + C);
    float *scale = shift + C;
    if (!training) {
        if (running_mean == NULL || running_var == NULL)
            return SIM_EINVAL;
        for (int c = 0; c < C; c++) {
            shift[c] = running_mean[c];
            scale[c] = (float)(1.0 / sqrt((double)running_var[c] + eps));
        }
        normalise(out, inp, shift, scale, weight, bias, N, C);
        return SIM_OK;
    }
    cpu_math_bn_column_stats(inp, N, C, m, var);
    for (int c = 0; c < C; c++) {
        shift[c] = (float)m[c];
        scale[c] = (float)(1.0 / sqrt(var[c] + eps));
        if (mean)
            mean[c] = shift[c];
        if (invstd)
            invstd[c] = scale[c];
        if (running_mean)
            running_mean[c] = (float)(momentum * m[c] + (1.0 - momentum) * running_mean[c]);
        if (running_var) {
            double unbiased = var[c] * N / (N - 1);
            running_var[c] = (float)(momentum * unbiased + (1.0 - momentum) * running_var[c]);
        }
    }
    normalise(out, inp, shift, scale, weight, bias, N, C);
    return SIM_OK;
}

void cpu_math_bn_backward_sums(const float *dout, const float *inp, const float *mean,
                               const float *invstd, int N, int C, double *sum_dy,
                               double *sum_dy_xhat) {
    for (int c = 0; c < C; c++)
        sum_dy[c] = sum_dy_xhat[c] = 0.0;
    for (int i = 0; i < N; i++)
        for (int c = 0; c < C; c++) {
            size_t k = (size_t)i * C + c;
            float xhat = (inp[k] - mean[c]) * invstd[c];
            sum_dy[c] += dout[k];
            sum_dy_xhat[c] += (double)dout[k] * xhat;
        }
}

SimStatus cpu_math_batchnorm_backward(void *ctx, int rank, float *dinp, float *dweight,
                                      float *dbias, const float *dout, const float *inp,
                                      const float *weight, const float *mean,
                                      const float *invstd, int N, int C) {
    if (N < 0 || C < 0)
        return SIM_EINVAL;
    if (N == 0 || C == 0)
        return SIM_OK;
    // sum_dy (C) = sum_n dout, sum_dy_xhat (C) = sum_n dout * xhat, in double
    double *sum_dy = cpu_math_scratch(ctx, rank, 2 * (size_t)C * sizeof(double));
    if (sum_dy == NULL)
        return SIM_ENOMEM;
    double *sum_dy_xhat = sum_dy + C;
    cpu_math_bn_backward_sums(dout, inp, mean, invstd, N, C, sum_dy, sum_dy_xhat);
    // dx = w * invstd * (dy - mean(dy) - xhat * mean(dy * xhat))
    if (dinp)
        for (int i = 0; i < N; i++)
            for (int c = 0; c < C; c++) {
                size_t k = (size_t)i * C + c;
                float xhat = (inp[k] - mean[c]) * invstd[c];
                double g = (double)dout[k] - sum_dy[c] / N - xhat * (sum_dy_xhat[c] / N);
                dinp[k] += (float)(g * invstd[c] * (weight ? weight[c] : 1.0f));
            }
    for (int c = 0; c < C; c++) {
        if (dweight)
            dweight[c] = (float)(dweight[c] + sum_dy_xhat[c]);
        if (dbias)
            dbias[c] = (float)(dbias[c] + sum_dy[c]);
    }
    return SIM_OK;
}
