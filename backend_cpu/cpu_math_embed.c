// backend_cpu/cpu_math_embed.c: token + position embedding, as in GPT-2:
// out[b,t,:] = wte[idx[b,t],:] + wpe[t,:]. Backward scatters the gradient of
// each position back into the rows it came from (accumulating). Token ids
// are checked by the wrapper (sim/engine/ops.c) against the vocabulary; a negative
// id is still refused here so that no bad index ever reaches memory.
#include "cpu_math.h"

SimStatus cpu_math_embedding_forward(void *ctx, int rank, float *out, const int32_t *idx,
                                     const float *wte, const float *wpe, int B, int T, int C) {
    // out (B,T,C); idx (B,T); wte (V,C); wpe (maxT,C)
    (void)ctx;
    (void)rank;
    if (B < 0 || T < 0 || C < 0)
        return SIM_EINVAL;
    for (int b = 0; b < B; b++)
        for (int t = 0; t < T; t++) {
            int32_t ix = idx[(size_t)b * T + t];
            if (ix < 0)
                return SIM_EINVAL;
            float *o = out + ((size_t)b * T + t) * C;
            const float *tok = wte + (size_t)ix * C;
            const float *pos = wpe + (size_t)t * C;
            for (int c = 0; c < C; c++)
                o[c] = tok[c] + pos[c];
        }
    return SIM_OK;
}

SimStatus cpu_math_embedding_backward(void *ctx, int rank, float *dwte, float *dwpe,
                                      const float *dout, const int32_t *idx, int B, int T,
                                      int C) {
    // dwte (V,C) += dout rows by token; dwpe (maxT,C) += dout rows by position
    (void)ctx;
    (void)rank;
    if (B < 0 || T < 0 || C < 0)
        return SIM_EINVAL;
    for (int b = 0; b < B; b++)
        for (int t = 0; t < T; t++) {
            int32_t ix = idx[(size_t)b * T + t];
            if (ix < 0)
                return SIM_EINVAL;
            const float *d = dout + ((size_t)b * T + t) * C;
            float *dtok = dwte ? dwte + (size_t)ix * C : NULL;
            float *dpos = dwpe ? dwpe + (size_t)t * C : NULL;
            for (int c = 0; c < C; c++) {
                if (dtok)
                    dtok[c] += d[c];
                if (dpos)
                    dpos[c] += d[c];
            }
        }
    return SIM_OK;
}
