// backend_cuda/cuda_arith_nn.h: the per-row arithmetic of the CUDA backend's
// neural-network kernels (cuda_math_linear.cu, cuda_math_norm.cu,
// cuda_math_attention.cu, cuda_math_loss.cu), in the CUDA_HD convention of
// cuda_arith.h. tests/test_cuda_arith_nn.c runs these functions on the host
// over whole tensors, in the loops the kernels run, and checks them against
// the cpu backend (backend_cpu/cpu_math_norm.c, _attention.c, _loss.c,
// _linear.c).
//
// Each function is the work of one GPU thread: one row, one column or one
// (batch, head) pair, walked in the order the cpu backend walks it and
// accumulated in the same precision (double where it uses double). Sums over
// rows that feed a parameter gradient are one thread per column looping over
// the rows in order, never atomics, so results are deterministic and equal
// to the cpu backend's but for the GPU's libm (expf, sqrt) and, in products,
// the order cuBLAS adds in.
//
// Legend: N rows, C channels, V classes, B batch, T time, NH heads,
// hs = C/NH, C3 = 3C (packed q, k, v).
#ifndef DDPLAB_BACKEND_CUDA_ARITH_NN_H
#define DDPLAB_BACKEND_CUDA_ARITH_NN_H

#include <math.h>
#include <stddef.h>
#include <stdint.h>

#include "base/dtype.h"     // defines: SimDtype
#include "cuda_arith.h"     // defines: CUDA_HD
#include "cuda_arith_vec.h" // defines: cuda_f32_to_f16, cuda_f16_to_f32, ...

// ----------------------------------------------------------------------------
// Mixed precision and Linear

// x rounded to amp (fp16 or bf16, round to nearest even) and widened back:
// what torch.autocast feeds a matrix product.
static inline CUDA_HD float cuda_amp_round(float x, SimDtype amp) {
    if (amp == SIM_FP16)
        return cuda_f16_to_f32(cuda_f32_to_f16(x));
    if (amp == SIM_BF16)
        return cuda_bf16_to_f32(cuda_f32_to_bf16(x));
    return x;
}

// dbias[o] += sum over the N rows of dout[:, o] (dout [N, OC]), in double.
static inline CUDA_HD void cuda_bias_grad_col(float *dbias, const float *dout, int N, int OC,
                                              int o) {
    double acc = 0.0;
    for (int i = 0; i < N; i++)
        acc += dout[(size_t)i * OC + o];
    dbias[o] = (float)((double)dbias[o] + acc);
}

// ----------------------------------------------------------------------------
// LayerNorm, row i of inp [N, C]

static inline CUDA_HD void cuda_layernorm_row(float *out, float *mean, float *rstd,
                                              const float *inp, const float *weight,
                                              const float *bias, int C, float eps, int i) {
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

// dinp row i += the normalisation's backward (dinp may not be NULL).
static inline CUDA_HD void cuda_layernorm_back_row(float *dinp, const float *dout,
                                                   const float *inp, const float *weight,
                                                   const float *mean, const float *rstd, int C,
                                                   int i) {
    const float *x = inp + (size_t)i * C;
    const float *dy = dout + (size_t)i * C;
    float m = mean[i], rs = rstd[i];
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
        double dval = (double)dnorm - dnorm_mean - (double)norm * dnorm_norm_mean;
        dinp[(size_t)i * C + c] += (float)(dval * rs);
    }
}

// dweight[c], dbias[c] += sums over the rows (either may be NULL).
static inline CUDA_HD void cuda_layernorm_back_col(float *dweight, float *dbias,
                                                   const float *dout, const float *inp,
                                                   const float *mean, const float *rstd, int N,
                                                   int C, int c) {
    double dw = 0.0, db = 0.0;
    for (int i = 0; i < N; i++) {
        size_t k = (size_t)i * C + c;
        float norm = (inp[k] - mean[i]) * rstd[i];
        db += dout[k];
        dw += (double)norm * dout[k];
    }
    if (dweight)
        dweight[c] = (float)(dweight[c] + dw);
    if (dbias)
        dbias[c] = (float)(dbias[c] + db);
}

// ----------------------------------------------------------------------------
// BatchNorm1d, column c of inp [N, C]

// Training statistics of column c: shift[c] = mean, scale[c] = 1/sqrt(var +
// eps) (biased variance), saved to mean/invstd and folded into the running
// statistics (unbiased variance) when those are given.
// The mean and biased variance of column c of inp [N, C] (N > 0), in double.
static inline CUDA_HD void cuda_batchnorm_moments_col(double *m, double *var, const float *inp,
                                                      int N, int C, int c) {
    double s = 0.0, v = 0.0;
    for (int i = 0; i < N; i++)
        s += inp[(size_t)i * C + c];
    s /= N;
    for (int i = 0; i < N; i++) {
        double d = inp[(size_t)i * C + c] - s;
        v += d * d;
    }
    *m = s;
    *var = v / N;
}

static inline CUDA_HD void cuda_batchnorm_stats_col(float *shift, float *scale, float *mean,
                                                    float *invstd, float *running_mean,
                                                    float *running_var, const float *inp,
                                                    int N, int C, float momentum, float eps,
                                                    int c) {
    double m, var;
    cuda_batchnorm_moments_col(&m, &var, inp, N, C, c);
    shift[c] = (float)m;
    scale[c] = (float)(1.0 / sqrt(var + eps));
    if (mean)
        mean[c] = shift[c];
    if (invstd)
        invstd[c] = scale[c];
    if (running_mean)
        running_mean[c] = (float)(momentum * m + (1.0 - momentum) * running_mean[c]);
    if (running_var) {
        double unbiased = var * N / (N - 1);
        running_var[c] = (float)(momentum * unbiased + (1.0 - momentum) * running_var[c]);
    }
}

// Eval: the running statistics of column c as shift and scale.
static inline CUDA_HD void cuda_batchnorm_eval_col(float *shift, float *scale,
                                                   const float *running_mean,
                                                   const float *running_var, float eps, int c) {
    shift[c] = running_mean[c];
    scale[c] = (float)(1.0 / sqrt((double)running_var[c] + eps));
}

// Element k of [N, C] (column c = k % C).
static inline CUDA_HD float cuda_batchnorm_elem(float x, float shift, float scale,
                                                const float *weight, const float *bias, int c) {
    float norm = (x - shift) * scale;
    return norm * (weight ? weight[c] : 1.0f) + (bias ? bias[c] : 0.0f);
}

// Backward sums of column c: sum_dy[c], sum_dy_xhat[c] (double), and the
// parameter gradients from them.
// Column c's sum of dout and of dout * xhat, in double.
static inline CUDA_HD void cuda_batchnorm_sums_col(double *s, double *sx, const float *dout,
                                                   const float *inp, const float *mean,
                                                   const float *invstd, int N, int C, int c) {
    double a = 0.0, b = 0.0;
    for (int i = 0; i < N; i++) {
        size_t k = (size_t)i * C + c;
        float xhat = (inp[k] - mean[c]) * invstd[c];
        a += dout[k];
        b += (double)dout[k] * xhat;
    }
    *s = a;
    *sx = b;
}

static inline CUDA_HD void cuda_batchnorm_back_col(double *sum_dy, double *sum_dy_xhat,
                                                   float *dweight, float *dbias,
                                                   const float *dout, const float *inp,
                                                   const float *mean, const float *invstd,
                                                   int N, int C, int c) {
    double s, sx;
    cuda_batchnorm_sums_col(&s, &sx, dout, inp, mean, invstd, N, C, c);
    sum_dy[c] = s;
    sum_dy_xhat[c] = sx;
    if (dweight)
        dweight[c] = (float)(dweight[c] + sx);
    if (dbias)
        dbias[c] = (float)(dbias[c] + s);
}

// dinp[k] += w * invstd * (dy - mean(dy) - xhat * mean(dy * xhat)).
static inline CUDA_HD float cuda_batchnorm_back_elem(float dinp, float dy, float x,
                                                     const float *weight, const float *mean,
                                                     const float *invstd, const double *sum_dy,
                                                     const double *sum_dy_xhat, int N, int c) {
    float xhat = (x - mean[c]) * invstd[c];
    double g = (double)dy - sum_dy[c] / N - xhat * (sum_dy_xhat[c] / N);
    return dinp + (float)(g * invstd[c] * (weight ? weight[c] : 1.0f));
}

// SyncBatchNorm's pieces, column c (as backend_cpu/cpu_math_syncbn.c).

// stats[c] = mean, stats[C + c] = biased variance of column c of inp [N, C].
static inline CUDA_HD void cuda_syncbn_stats_col(float *stats, const float *inp, int N, int C,
                                                 int c) {
    double m = 0.0, var = 0.0;
    if (N > 0)
        cuda_batchnorm_moments_col(&m, &var, inp, N, C, c);
    stats[c] = (float)m;
    stats[C + c] = (float)var;
}

// Column c of every rank's stats all [R][2C+1] combined: the global mean and
// invstd, and the running statistics (unbiased over the total count).
static inline CUDA_HD void cuda_syncbn_gather_col(float *mean, float *invstd,
                                                  float *running_mean, float *running_var,
                                                  const float *all, int R, int C,
                                                  float momentum, float eps, int c) {
    size_t row = 2 * (size_t)C + 1;
    double total = 0.0, m = 0.0, m2 = 0.0;
    for (int q = 0; q < R; q++) {
        total += all[q * row + 2 * (size_t)C];
        m += all[q * row + 2 * (size_t)C] * (double)all[q * row + c];
    }
    m /= total;
    for (int q = 0; q < R; q++) {
        const float *s = all + q * row;
        double d = s[c] - m;
        m2 += s[2 * C] * ((double)s[C + c] + d * d);
    }
    mean[c] = (float)m;
    invstd[c] = (float)(1.0 / sqrt(m2 / total + eps));
    if (running_mean)
        running_mean[c] = (float)(momentum * m + (1.0 - momentum) * running_mean[c]);
    if (running_var)
        running_var[c] = (float)(momentum * (m2 / (total - 1.0)) +
                                 (1.0 - momentum) * running_var[c]);
}

// This rank's backward sums of column c into sums[c] (of dout) and
// sums[C + c] (of dout * xhat), added to dbias and dweight.
static inline CUDA_HD void cuda_syncbn_back_reduce_col(float *sums, float *dweight, float *dbias,
                                                       const float *dout, const float *inp,
                                                       const float *mean, const float *invstd,
                                                       int N, int C, int c) {
    double s, sx;
    cuda_batchnorm_sums_col(&s, &sx, dout, inp, mean, invstd, N, C, c);
    sums[c] = (float)s;
    sums[C + c] = (float)sx;
    if (dweight)
        dweight[c] = (float)(dweight[c] + sx);
    if (dbias)
        dbias[c] = (float)(dbias[c] + s);
}

// dinp[k] += w * invstd * (dy - sum_dy/count - xhat * sum_dy_xhat/count),
// the sums and count over every rank.
static inline CUDA_HD float cuda_syncbn_back_elem(float dinp, float dy, float x,
                                                  const float *weight, const float *mean,
                                                  const float *invstd, const float *sums,
                                                  float count, int C, int c) {
    float xhat = (x - mean[c]) * invstd[c];
    double g = (double)dy - (double)sums[c] / count - xhat * ((double)sums[C + c] / count);
    return dinp + (float)(g * invstd[c] * (weight ? weight[c] : 1.0f));
}

// ----------------------------------------------------------------------------
// Causal self-attention

// One (b, t, h): the scores of query t against keys 0..t, their softmax, the
// weighted sum of the values (preatt, att rows of T; masked entries 0).
static inline CUDA_HD void cuda_attention_row(float *out, float *preatt, float *att,
                                              const float *qkv, int T, int C, int NH, int b,
                                              int t, int h) {
    int hs = C / NH;
    float scale = 1.0f / sqrtf((float)hs);
    size_t C3 = 3 * (size_t)C;
    const float *q = qkv + ((size_t)b * T + t) * C3 + (size_t)h * hs;
    size_t row = (((size_t)b * NH + h) * T + t) * T;
    float *pre_row = preatt + row;
    float *att_row = att + row;
    float maxval = -INFINITY;
    for (int t2 = 0; t2 <= t; t2++) {
        const float *k = qkv + ((size_t)b * T + t2) * C3 + C + (size_t)h * hs;
        float dot = 0.0f;
        for (int i = 0; i < hs; i++)
            dot += q[i] * k[i];
        dot *= scale;
        pre_row[t2] = dot;
        if (dot > maxval)
            maxval = dot;
    }
    double sum = 0.0;
    for (int t2 = 0; t2 <= t; t2++) {
        float e = expf(pre_row[t2] - maxval);
        att_row[t2] = e;
        sum += e;
    }
    float inv = (float)(1.0 / sum);
    for (int t2 = 0; t2 <= t; t2++)
        att_row[t2] *= inv;
    for (int t2 = t + 1; t2 < T; t2++)
        pre_row[t2] = att_row[t2] = 0.0f;
    float *o = out + ((size_t)b * T + t) * C + (size_t)h * hs;
    for (int i = 0; i < hs; i++)
        o[i] = 0.0f;
    for (int t2 = 0; t2 <= t; t2++) {
        const float *v = qkv + ((size_t)b * T + t2) * C3 + 2 * (size_t)C + (size_t)h * hs;
        for (int i = 0; i < hs; i++)
            o[i] += att_row[t2] * v[i];
    }
}

// The backward pass in three parallel phases, each element's additions in
// the cpu backend's order (so results match it bit for bit):
//   1. per (b, h, t): the row gradients g_att[t2] = v[t2] . dout[t] and
//      g_pre[t2] = att (g_att - sum(att g_att)) for t2 <= t, kept in g_pre_all
//      [B, NH, T, T] for phases 2 and 3, and added into datt and dpreatt;
//   2. per (b, t, h, i): dq[t][i] += k[t2][i] g_pre[t][t2] scale, t2 ascending;
//   3. per (b, t2, h, i): dk[t2][i] += q[t][i] g_pre[t][t2] scale and
//      dv[t2][i] += att[t][t2] dout[t][i], t ascending from t2 (the cpu walks
//      t in the outer loop, so each dk/dv element sees t ascending too).
// g_att: T floats of the thread's own.
static inline CUDA_HD void cuda_attention_back_row(float *g_pre_all, float *g_att, float *dpreatt,
                                                   float *datt, const float *dout,
                                                   const float *qkv, const float *att, int T,
                                                   int C, int NH, int b, int t, int h) {
    int hs = C / NH;
    size_t C3 = 3 * (size_t)C;
    size_t row = (((size_t)b * NH + h) * T + t) * T;
    const float *att_row = att + row;
    float *g_pre = g_pre_all + row;
    const float *d = dout + ((size_t)b * T + t) * C + (size_t)h * hs;
    for (int t2 = 0; t2 <= t; t2++) {
        const float *v = qkv + ((size_t)b * T + t2) * C3 + 2 * (size_t)C + (size_t)h * hs;
        float ga = 0.0f;
        for (int i = 0; i < hs; i++)
            ga += v[i] * d[i];
        g_att[t2] = ga;
    }
    double dot = 0.0;
    for (int t2 = 0; t2 <= t; t2++)
        dot += (double)att_row[t2] * g_att[t2];
    for (int t2 = 0; t2 <= t; t2++)
        g_pre[t2] = att_row[t2] * (float)(g_att[t2] - dot);
    if (datt)
        for (int t2 = 0; t2 <= t; t2++)
            datt[row + t2] += g_att[t2];
    if (dpreatt)
        for (int t2 = 0; t2 <= t; t2++)
            dpreatt[row + t2] += g_pre[t2];
}

static inline CUDA_HD void cuda_attention_back_dq(float *dqkv, const float *qkv,
                                                  const float *g_pre_all, int T, int C, int NH,
                                                  int b, int t, int h, int i) {
    int hs = C / NH;
    float scale = 1.0f / sqrtf((float)hs);
    size_t C3 = 3 * (size_t)C;
    const float *g_pre = g_pre_all + (((size_t)b * NH + h) * T + t) * T;
    float *dq = dqkv + ((size_t)b * T + t) * C3 + (size_t)h * hs + i;
    float acc = *dq;
    for (int t2 = 0; t2 <= t; t2++) {
        const float *k = qkv + ((size_t)b * T + t2) * C3 + C + (size_t)h * hs;
        float g = g_pre[t2] * scale;
        acc += k[i] * g;
    }
    *dq = acc;
}

static inline CUDA_HD void cuda_attention_back_dkv(float *dqkv, const float *qkv,
                                                   const float *att, const float *dout,
                                                   const float *g_pre_all, int T, int C, int NH,
                                                   int b, int t2, int h, int i) {
    int hs = C / NH;
    float scale = 1.0f / sqrtf((float)hs);
    size_t C3 = 3 * (size_t)C;
    size_t k_off = ((size_t)b * T + t2) * C3 + C + (size_t)h * hs + i;
    size_t v_off = k_off + C;
    float dk = dqkv[k_off], dv = dqkv[v_off];
    for (int t = t2; t < T; t++) {
        size_t row = (((size_t)b * NH + h) * T + t) * T;
        const float *q = qkv + ((size_t)b * T + t) * C3 + (size_t)h * hs;
        const float *d = dout + ((size_t)b * T + t) * C + (size_t)h * hs;
        dv += att[row + t2] * d[i];
        float g = g_pre_all[row + t2] * scale;
        dk += q[i] * g;
    }
    dqkv[k_off] = dk;
    dqkv[v_off] = dv;
}

// ----------------------------------------------------------------------------
// Softmax cross-entropy, row i of logits [N, V]

// Returns 0, or -1 when the target is outside [0, V) (nothing written).
static inline CUDA_HD int cuda_xent_row(float *losses, float *probs, const float *logits,
                                        const int32_t *targets, int V, int i) {
    const float *x = logits + (size_t)i * V;
    int32_t tgt = targets[i];
    if (tgt < 0 || tgt >= V)
        return -1;
    float maxval = -INFINITY;
    for (int v = 0; v < V; v++)
        if (x[v] > maxval)
            maxval = x[v];
    double sum = 0.0;
    float *p = probs ? probs + (size_t)i * V : NULL;
    for (int v = 0; v < V; v++) {
        float e = expf(x[v] - maxval);
        sum += e;
        if (p)
            p[v] = e;
    }
    if (p) {
        float inv = (float)(1.0 / sum);
        for (int v = 0; v < V; v++)
            p[v] *= inv;
    }
    losses[i] = (float)(log(sum) - ((double)x[tgt] - maxval));
    return 0;
}

// dlogits row i += dlosses[i] * (probs - onehot); -1 on a bad target.
static inline CUDA_HD int cuda_xent_back_row(float *dlogits, const float *probs,
                                             const int32_t *targets, const float *dlosses,
                                             int V, int i) {
    int32_t tgt = targets[i];
    if (tgt < 0 || tgt >= V)
        return -1;
    const float *p = probs + (size_t)i * V;
    float *d = dlogits + (size_t)i * V;
    float dl = dlosses[i];
    for (int v = 0; v < V; v++)
        d[v] += (p[v] - (v == tgt ? 1.0f : 0.0f)) * dl;
    return 0;
}

#endif
