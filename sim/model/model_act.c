// sim/model/model_act.c: sizes that follow from a spec alone, without building
// the model: its parameter count, whether it runs numerically, and the
// activation memory of a transformer by the formula of Korthikanti et al.
// 2022 (see sim_model_act_bytes in model.h for the terms).
//
// Every size is an exact integer: the terms are products of the shapes, and
// the arithmetic is checked so that an absurd shape is refused rather than
// wrapped.
#include "model/model.h"

#include <stdint.h>

// ----------------------------------------------------------------------------
// checked int64 arithmetic: a sticky overflow flag, so a formula reads as one

typedef struct {
    int over;
} Ck;

static int64_t mul(Ck *c, int64_t a, int64_t b) {
    int64_t r;
    if (__builtin_mul_overflow(a, b, &r)) {
        c->over = 1;
        return 0;
    }
    return r;
}

static int64_t add(Ck *c, int64_t a, int64_t b) {
    int64_t r;
    if (__builtin_add_overflow(a, b, &r)) {
        c->over = 1;
        return 0;
    }
    return r;
}

// ceil(a / t): a term split over t tensor-parallel ranks.
static int64_t split(int64_t a, int64_t t) {
    return t > 1 ? (a + t - 1) / t : a;
}

// ----------------------------------------------------------------------------
// parameters

static int64_t mlp_params(const SimModelSpec *s, Ck *c) {
    int64_t n = 0;
    int L = s->nwidths - 1;
    for (int i = 0; i < L; i++) {
        n = add(c, n, add(c, mul(c, s->widths[i], s->widths[i + 1]), s->widths[i + 1]));
        if (s->batchnorm && i < L - 1)
            n = add(c, n, 2 * (int64_t)s->widths[i + 1]);
    }
    if (s->unused_branch && L >= 1)
        n = add(c, n, add(c, mul(c, s->widths[L - 1], s->widths[L]), s->widths[L]));
    return n;
}

// One transformer block (see sim/model/model_arch.c for its parameters).
static int64_t block_params(const SimModelSpec *s, Ck *c) {
    int64_t C = s->embd, F = s->ffn ? s->ffn : 4 * C;
    int64_t kv = s->kv_heads ? s->kv_heads : s->heads;
    int64_t Ckv = C / s->heads * kv;
    int64_t norms = 2 * (s->norm == SIM_NORM_RMS ? C : 2 * C);
    // q and o are C x C, k and v C x Ckv
    int64_t attn = add(c, mul(c, 2 * C, C), mul(c, 2 * C, Ckv));
    if (s->bias == SIM_GPT_BIAS_ALL)
        attn = add(c, attn, 2 * C + 2 * Ckv);
    int64_t mlp, mbias;
    if (s->mlp == SIM_MLP_SWIGLU) {
        mlp = mul(c, 3 * C, F);
        mbias = 2 * F + C;
    } else {
        mlp = mul(c, 2 * C, F);
        mbias = F + C;
    }
    if (s->bias != SIM_GPT_BIAS_NONE)
        mlp = add(c, mlp, mbias);
    return add(c, add(c, norms, attn), mlp);
}

static int64_t gpt_params(const SimModelSpec *s, Ck *c) {
    int64_t C = s->embd, V = s->vocab;
    int64_t n = mul(c, V, C); // tok_emb
    if (s->pos == SIM_POS_LEARNED)
        n = add(c, n, mul(c, s->ctx, C)); // pos_emb
    if (s->encoder)
        n = add(c, n, add(c, mul(c, s->type_vocab ? s->type_vocab : 2, C), 2 * C)); // types, ln
    n = add(c, n, mul(c, s->layers, block_params(s, c)));
    if (s->encoder)
        return add(c, n, add(c, mul(c, C, C), C)); // pooler.dense
    n = add(c, n, s->norm == SIM_NORM_RMS ? C : 2 * C); // ln_f
    return s->tied ? n : add(c, n, mul(c, V, C));      // head
}

int64_t sim_model_spec_params(const SimModelSpec *s) {
    Ck c = {0};
    int64_t n = 0;
    switch (s->kind) {
    case SIM_MODEL_MLP:
        if (s->nwidths < 2 || s->nwidths > 16)
            return 0;
        n = mlp_params(s, &c);
        break;
    case SIM_MODEL_GPT:
        if (s->heads < 1 || s->embd % s->heads != 0)
            return 0;
        n = gpt_params(s, &c);
        break;
    case SIM_MODEL_COUNT:
        n = s->count_params;
        break;
    default:
        return 0;
    }
    return c.over ? 0 : n;
}

const char *sim_model_spec_phantom_only(const SimModelSpec *s) {
    if (s->kind == SIM_MODEL_COUNT)
        return "count (a parameter count without layers)";
    if (s->kind != SIM_MODEL_GPT)
        return NULL;
    if (s->encoder)
        return "encoder";
    if (s->bias == SIM_GPT_BIAS_ALL)
        return "bias=all";
    if (s->bias == SIM_GPT_BIAS_NONE)
        return "bias=none";
    if (s->tied)
        return "tied";
    if (s->norm == SIM_NORM_RMS)
        return "norm=rms";
    if (s->mlp == SIM_MLP_SWIGLU)
        return "mlp=swiglu";
    if (s->ffn)
        return "ffn";
    if (s->kv_heads)
        return "kv_heads";
    if (s->pos == SIM_POS_ROPE)
        return "pos=rope";
    if (s->type_vocab)
        return "type_vocab";
    if (s->dropout)
        return "dropout";
    if (s->ckpt != SIM_CKPT_NONE)
        return "ckpt";
    if (s->attn != SIM_ATTN_PLAIN)
        return "attn";
    return NULL;
}

// ----------------------------------------------------------------------------
// activations

SimStatus sim_model_act_bytes_tp(const SimModelSpec *s, int64_t b, int64_t seq,
                                 int dtype_bytes, SimActCkpt ckpt, int tp, int seq_parallel,
                                 SimActBytes *out) {
    if (!s || !out || s->kind != SIM_MODEL_GPT || s->heads < 1 || s->embd % s->heads != 0 ||
        b < 1 || seq < 1 || dtype_bytes < 1 || tp < 1 || (unsigned)ckpt > SIM_CKPT_FULL)
        return SIM_EINVAL;
    Ck c = {0};
    int64_t p = dtype_bytes, t = tp, h = s->embd, a = s->heads;
    int64_t F = s->ffn ? s->ffn : 4 * h;
    int64_t hkv = h / a * (s->kv_heads ? s->kv_heads : a);
    int64_t d = s->dropout ? 1 : 0;
    int64_t sb = mul(&c, seq, b);
    int64_t sbh = mul(&c, sb, h);
    // replicated under tensor parallelism (split too with sequence parallelism):
    // the two norms' inputs, the QKV and MLP inputs, the two dropout masks
    int64_t rep = add(&c, mul(&c, 4 * p, sbh), mul(&c, 2 * d, sbh));
    // split: Q, K, V, the output projection's input, the MLP hidden
    int64_t hidden = mul(&c, mul(&c, sb, F), s->mlp == SIM_MLP_SWIGLU ? 3 * p : 2 * p);
    int64_t qkvo = add(&c, mul(&c, 2 * p, sbh), mul(&c, mul(&c, sb, hkv), 2 * p));
    int64_t spl = add(&c, qkvo, hidden);
    // scores: the softmax output, and with dropout its mask and output; a
    // fused kernel keeps none of them, only the fp32 log-sum-exp of each
    // row and head (its dropout mask is regenerated from the RNG state)
    int64_t scores = mul(&c, mul(&c, mul(&c, a, seq), sb), p + d * (1 + p));
    if (sim_model_attn_fused(s->attn))
        scores = mul(&c, mul(&c, a, sb), 4);
    int64_t rep_t = split(rep, seq_parallel ? t : 1);
    int64_t per_layer = add(&c, add(&c, rep_t, split(spl, t)), split(scores, t));
    int64_t stored = per_layer, recompute = 0;
    if (ckpt == SIM_CKPT_SELECTIVE && !sim_model_attn_fused(s->attn))
        stored = per_layer - split(scores, t);
    else if (ckpt == SIM_CKPT_FULL) {
        stored = split(mul(&c, p, sbh), seq_parallel ? t : 1);
        recompute = per_layer;
    }
    // outside the layers
    int64_t outside = split(add(&c, mul(&c, d, sbh), mul(&c, 2 * p, sbh)), seq_parallel ? t : 1);
    if (s->encoder)
        outside = add(&c, outside, mul(&c, mul(&c, 2 * p, b), h)); // pooler in and out
    else
        outside = add(&c, outside, split(mul(&c, mul(&c, 4, sb), s->vocab), t)); // fp32 logits
    int64_t layers = mul(&c, s->layers, stored);
    int64_t total = add(&c, layers, outside > recompute ? outside : recompute);
    if (c.over)
        return SIM_EINVAL;
    out->per_layer = per_layer;
    out->stored = layers;
    out->recompute = recompute;
    out->outside = outside;
    out->total = total;
    return SIM_OK;
}

SimStatus sim_model_act_bytes(const SimModelSpec *s, int64_t b, int64_t seq, int dtype_bytes,
                              SimActCkpt ckpt, SimActBytes *out) {
    return sim_model_act_bytes_tp(s, b, seq, dtype_bytes, ckpt, 1, 0, out);
}
