// backend_cpu/cpu_math_attention.c: causal multi-head self-attention on a
// packed qkv buffer, written out as loops like llm.c's attention_forward:
//   preatt[b,h,t,t2] = q[b,t,h] . k[b,t2,h] / sqrt(hs)     for t2 <= t
//   att[b,h,t,:]     = softmax over t2 <= t of preatt (0 where t2 > t)
//   out[b,t,h]       = sum over t2 <= t of att[b,h,t,t2] v[b,t2,h]
// which is what PyTorch computes with a -inf causal mask before the softmax.
// Masked entries of preatt are stored as 0.
//
// Layout: qkv (B,T,3C) holds q, k, v in that order, each split into NH heads
// of hs = C/NH channels; out (B,T,C); preatt, att (B,NH,T,T).
#include <math.h>

#include "cpu_math.h"

SimStatus cpu_math_attention_forward(void *ctx, int rank, float *out, float *preatt, float *att,
                                     const float *qkv, int B, int T, int C, int NH) {
    (void)ctx;
    (void)rank;
    if (B < 0 || T < 0 || C < 0 || NH <= 0 || C % NH != 0)
        return SIM_EINVAL;
    int hs = C / NH;
    float scale = 1.0f / sqrtf((float)hs);
    size_t C3 = 3 * (size_t)C;
    for (int b = 0; b < B; b++)
        for (int t = 0; t < T; t++)
            for (int h = 0; h < NH; h++) {
                const float *q = qkv + ((size_t)b * T + t) * C3 + (size_t)h * hs;
                size_t row = (((size_t)b * NH + h) * T + t) * T;
                float *pre_row = preatt + row;
                float *att_row = att + row;

                // pass 1: scores and their maximum
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
                // pass 2: the softmax over the allowed positions
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

                // pass 3: the weighted sum of the values
                float *o = out + ((size_t)b * T + t) * C + (size_t)h * hs;
                for (int i = 0; i < hs; i++)
                    o[i] = 0.0f;
                for (int t2 = 0; t2 <= t; t2++) {
                    const float *v = qkv + ((size_t)b * T + t2) * C3 + 2 * (size_t)C + (size_t)h * hs;
                    for (int i = 0; i < hs; i++)
                        o[i] += att_row[t2] * v[i];
                }
            }
    return SIM_OK;
}

// Backward through the three passes in reverse. The row gradients of att
// and preatt are computed locally (scratch, T floats each) from dout alone,
// then added into datt and dpreatt, so that dqkv does not depend on what
// those buffers held before.
SimStatus cpu_math_attention_backward(void *ctx, int rank, float *dqkv, float *dpreatt,
                                      float *datt, const float *dout, const float *qkv,
                                      const float *att, int B, int T, int C, int NH) {
    if (B < 0 || T < 0 || C < 0 || NH <= 0 || C % NH != 0)
        return SIM_EINVAL;
    if (T == 0)
        return SIM_OK;
    float *g_att = cpu_math_scratch(ctx, rank, 2 * (size_t)T * sizeof(float));
    if (g_att == NULL)
        return SIM_ENOMEM;
    float *g_pre = g_att + T;
    int hs = C / NH;
    float scale = 1.0f / sqrtf((float)hs);
    size_t C3 = 3 * (size_t)C;
    for (int b = 0; b < B; b++)
        for (int t = 0; t < T; t++)
            for (int h = 0; h < NH; h++) {
                size_t row = (((size_t)b * NH + h) * T + t) * T;
                const float *att_row = att + row;
                const float *q = qkv + ((size_t)b * T + t) * C3 + (size_t)h * hs;
                float *dq = dqkv + ((size_t)b * T + t) * C3 + (size_t)h * hs;
                const float *d = dout + ((size_t)b * T + t) * C + (size_t)h * hs;

                // pass 3: out = sum att[t2] v[t2]
                for (int t2 = 0; t2 <= t; t2++) {
                    size_t v_off = ((size_t)b * T + t2) * C3 + 2 * (size_t)C + (size_t)h * hs;
                    const float *v = qkv + v_off;
                    float *dv = dqkv + v_off;
                    float ga = 0.0f;
                    for (int i = 0; i < hs; i++) {
                        ga += v[i] * d[i];
                        dv[i] += att_row[t2] * d[i];
                    }
                    g_att[t2] = ga;
                }
                // pass 2: softmax, d preatt = att * (d att - sum(att * d att))
                double dot = 0.0;
                for (int t2 = 0; t2 <= t; t2++)
                    dot += (double)att_row[t2] * g_att[t2];
                for (int t2 = 0; t2 <= t; t2++)
                    g_pre[t2] = att_row[t2] * (float)(g_att[t2] - dot);
                // pass 1: preatt = q . k * scale
                for (int t2 = 0; t2 <= t; t2++) {
                    size_t k_off = ((size_t)b * T + t2) * C3 + C + (size_t)h * hs;
                    const float *k = qkv + k_off;
                    float *dk = dqkv + k_off;
                    float g = g_pre[t2] * scale;
                    for (int i = 0; i < hs; i++) {
                        dq[i] += k[i] * g;
                        dk[i] += q[i] * g;
                    }
                }
                if (datt)
                    for (int t2 = 0; t2 <= t; t2++)
                        datt[row + t2] += g_att[t2];
                if (dpreatt)
                    for (int t2 = 0; t2 <= t; t2++)
                        dpreatt[row + t2] += g_pre[t2];
            }
    return SIM_OK;
}
