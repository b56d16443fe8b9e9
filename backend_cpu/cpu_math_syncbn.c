// backend_cpu/cpu_math_syncbn.c: SyncBatchNorm's kernels, the pieces between
// which the caller runs its collectives (an all_gather of the stats in the
// forward, an all_reduce of the sums in the backward). Together they
// normalise each rank's rows with the statistics of every rank's rows, as
// one BatchNorm1d over the whole global batch would. Sums in double.
#include <math.h>

#include "cpu_math.h"

SimStatus cpu_math_batchnorm_stats(void *ctx, int rank, float *stats, const float *inp, int N,
                                   int C) {
    // stats [2C+1]: mean (C), biased variance (C), N; inp (N,C)
    if (N < 0 || C < 0)
        return SIM_EINVAL;
    stats[2 * C] = (float)N;
    if (C == 0)
        return SIM_OK;
    double *m = cpu_math_scratch(ctx, rank, 2 * (size_t)C * sizeof(double));
    if (m == NULL)
        return SIM_ENOMEM;
    double *var = m + C;
    if (N > 0)
        cpu_math_bn_column_stats(inp, N, C, m, var);
    else
        for (int c = 0; c < C; c++)
            m[c] = var[c] = 0.0;
    for (int c = 0; c < C; c++) {
        stats[c] = (float)m[c];
        stats[C + c] = (float)var[c];
    }
    return SIM_OK;
}

SimStatus cpu_math_batchnorm_gather_stats(void *ctx, int rank, float *mean, float *invstd,
                                          float *running_mean, float *running_var, float *count,
                                          const float *all, int R, int C, float momentum,
                                          float eps) {
    // all [R][2C+1] as batchnorm_stats writes them; mean, invstd, running_* (C)
    (void)ctx;
    (void)rank;
    if (R < 1 || C < 0)
        return SIM_EINVAL;
    size_t row = 2 * (size_t)C + 1;
    double total = 0.0;
    for (int q = 0; q < R; q++)
        total += all[q * row + 2 * (size_t)C];
    if (total < 2.0 && C > 0)
        return SIM_EINVAL; // torch: "Expected more than 1 value per channel when training"
    for (int c = 0; c < C; c++) {
        double m = 0.0, m2 = 0.0;
        for (int q = 0; q < R; q++)
            m += all[q * row + 2 * (size_t)C] * (double)all[q * row + c];
        m /= total;
        for (int q = 0; q < R; q++) {
            const float *s = all + q * row;
            double d = s[c] - m;
            m2 += s[2 * C] * ((double)s[C + c] + d * d);
        }
        double var = m2 / total;
        mean[c] = (float)m;
        invstd[c] = (float)(1.0 / sqrt(var + eps));
        if (running_mean)
            running_mean[c] = (float)(momentum * m + (1.0 - momentum) * running_mean[c]);
        if (running_var)
            running_var[c] = (float)(momentum * (m2 / (total - 1.0)) +
                                     (1.0 - momentum) * running_var[c]);
    }
    count[0] = (float)total;
    return SIM_OK;
}

SimStatus cpu_math_batchnorm_elemt(void *ctx, int rank, float *out, const float *inp,
                                   const float *mean, const float *invstd, const float *weight,
                                   const float *bias, int N, int C) {
    // out, inp (N,C); mean, invstd, weight, bias (C)
    (void)ctx;
    (void)rank;
    if (N < 0 || C < 0)
        return SIM_EINVAL;
    for (int i = 0; i < N; i++)
        for (int c = 0; c < C; c++) {
            size_t k = (size_t)i * C + c;
            float norm = (inp[k] - mean[c]) * invstd[c];
            out[k] = norm * (weight ? weight[c] : 1.0f) + (bias ? bias[c] : 0.0f);
        }
    return SIM_OK;
}

SimStatus cpu_math_batchnorm_backward_reduce(void *ctx, int rank, float *sums, float *dweight,
                                             float *dbias, const float *dout, const float *inp,
                                             const float *mean, const float *invstd, int N,
                                             int C) {
    // sums [2C]: sum_dy (C), sum_dy_xhat (C); dout, inp (N,C)
    if (N < 0 || C < 0)
        return SIM_EINVAL;
    if (C == 0)
        return SIM_OK;
    double *sum_dy = cpu_math_scratch(ctx, rank, 2 * (size_t)C * sizeof(double));
    if (sum_dy == NULL)
        return SIM_ENOMEM;
    double *sum_dy_xhat = sum_dy + C;
    cpu_math_bn_backward_sums(dout, inp, mean, invstd, N, C, sum_dy, sum_dy_xhat);
    for (int c = 0; c < C; c++) {
        sums[c] = (float)sum_dy[c];
        sums[C + c] = (float)sum_dy_xhat[c];
        if (dweight)
            dweight[c] = (float)(dweight[c] + sum_dy_xhat[c]);
        if (dbias)
            dbias[c] = (float)(dbias[c] + sum_dy[c]);
    }
    return SIM_OK;
}

SimStatus cpu_math_batchnorm_backward_elemt(void *ctx, int rank, float *dinp, const float *dout,
                                            const float *inp, const float *weight,
                                            const float *mean, const float *invstd,
                                            const float *sums, const float *count, int N, int C) {
    // dinp, dout, inp (N,C); sums [2C] over every rank; count [1]: every rank's rows
    (void)ctx;
    (void)rank;
    if (N < 0 || C < 0 || (N > 0 && C > 0 && !(count[0] > 0.0f)))
        return SIM_EINVAL;
    for (int i = 0; i < N; i++)
        for (int c = 0; c < C; c++) {
            size_t k = (size_t)i * C + c;
            float xhat = (inp[k] - mean[c]) * invstd[c];
            double g = (double)dout[k] - (double)sums[c] / count[0] -
                       xhat * ((double)sums[C + c] / count[0]);
            dinp[k] += (float)(g * invstd[c] * (weight ? weight[c] : 1.0f));
        }
    return SIM_OK;
}
