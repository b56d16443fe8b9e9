// sim/model/model_arch.c: the real architectures of the gpt family: GPT-2 and
// GPT-3, Llama 2 and 3, and BERT, as phantom models (shapes, costs, memory;
// no values). A gpt spec with any architecture option set comes here; the
// plain spec is MiniGPT (sim/model/model_gpt.c). The options (model.h):
//
//   bias=all|none   biases in every Linear (GPT-2/3, BERT) or in none (Llama);
//                   MiniGPT's default has them in the MLP only
//   tied            the head is tok_emb.weight: no head.weight, as PyTorch's
//                   named_parameters() lists a tied parameter once
//   norm=rms        RMSNorm (weight only) instead of LayerNorm (weight, bias)
//   mlp=swiglu      down(silu(gate(x)) * up(x)), hidden width ffn
//   ffn=F           the MLP's hidden width (default 4 * embd)
//   kv_heads=K      grouped-query attention: K key/value heads
//   pos=rope        rotary positions on q and k: no pos_emb table
//   encoder         BERT: bidirectional attention, post-norm blocks, token-type
//                   embeddings and an embedding LayerNorm, a pooler (dense +
//                   tanh on the first token), no LM head
//   dropout, ckpt   activation accounting only (sim_model_act_bytes)
//
// Parameters, in named_parameters() order (C embd, F ffn, V vocab, T ctx,
// Ckv = C / heads * kv_heads):
//
//   tok_emb.weight [V, C]            pos_emb.weight [T, C]   (learned positions)
//   encoder: type_emb.weight [types, C], ln_emb.weight, ln_emb.bias [C]
//   blocks.i (i < layers), pre-norm (decoder) or post-norm (encoder):
//     ln1.weight [C] (.bias [C] with LayerNorm)
//     attention, fused (learned positions and kv_heads = heads, the GPT-2 and
//     BERT layout):   attn.qkv.weight [C + 2 Ckv, C], attn.proj.weight [C, C]
//     or separate (pos=rope or grouped-query attention, Llama's layout and
//     names):        attn.q_proj [C, C], attn.k_proj [Ckv, C],
//                    attn.v_proj [Ckv, C], attn.o_proj [C, C]
//     ln2
//     mlp, GELU:      mlp.0.weight [F, C], mlp.2.weight [C, F] (nn.Sequential)
//     or SwiGLU:      mlp.gate_proj [F, C], mlp.up_proj [F, C], mlp.down_proj [C, F]
//     each Linear's .bias after its .weight where it has one
//   decoder: ln_f, then head.weight [V, C] unless tied
//   encoder: pooler.dense.weight [C, C], pooler.dense.bias [C]
//
// The names are MiniGPT's where MiniGPT has the module, and the HuggingFace
// leaf names (q_proj, gate_proj, ...) for Llama's modules, under
// "blocks.i" so that FSDP's block wrapping finds every block. There are no
// mask buffers: these models are priced as fused (flash-style) kernels
// would run them, with the mask implicit.
//
// The module tree is the root's children tok_emb, pos_emb (learned), type_emb
// and ln_emb (encoder), blocks.0 .. blocks.L-1, then ln_f and head (decoder,
// head only when untied) or pooler (encoder).
//
// Every op goes through a wrapper (sim/engine/ops.h), so its time and FLOPs are
// accounted exactly as numeric mode would account them: Linear layers,
// LayerNorm, GELU, residual adds, embeddings and cross-entropy through their
// own wrappers, the rest through the cost-only sim_op_cost:
//   rmsnorm_fwd/bwd      4 / 8 FLOPs per element
//   rope_fwd/bwd         3 FLOPs per element of q and k (two products, a sum)
//   swiglu_fwd/bwd       5 / 8 FLOPs per hidden element (silu, the product)
//   tok_embedding_*,     the lookups of RoPE models and BERT's token types
//   type_embedding_*
//   tanh_fwd/bwd         the pooler's tanh
//   attention_*_bidir    an encoder's attention: the causal attention wrapper
//                        prices the T(T+1)/2 query-key pairs at or below the
//                        diagonal, this op adds the T(T-1)/2 above it at the
//                        same cost per pair, so bidirectional attention
//                        costs its full T x T
// The attention core: with attn=flash the fused kernel of
// sim/model/model_flash.c (16-bit tensor cores under amp, the real K and V
// sizes of grouped-query attention, the backward's recomputation of the
// scores); otherwise (attn=eager) the unfused wrapper, approximated:
// grouped-query attention is priced as the wrapper prices multi-head
// attention of the same width (its FLOPs are exactly those: every query
// head still meets T keys of C/heads values; the bytes read for k and v
// are over-counted by heads/kv_heads), and the core as an unfused fp32
// kernel (fp32 bytes of the T x T maps).
//
// Activations are not laid out in arenas: the ledger is charged by the
// formula (sim_model_act_bytes) as forward stores them, one layer at a
// time, and released as backward frees them. With ckpt=full, backward
// recomputes each block's forward (the same ops again, priced) before its
// backward, holding its activations meanwhile; with ckpt=selective it
// recomputes the attention core (eager only: a fused kernel keeps no
// scores to drop).
//
// Gradient-ready order (for DDP's buckets) follows PyTorch's autograd: the
// head (or pooler: bias, weight), ln_f, the blocks from the last (within
// one: the MLP's Linears from the output back, up_proj before gate_proj,
// ln2, the output projection, v, k, q, ln1; each bias before its weight,
// each norm's weight before its bias), then the embeddings (an encoder's
// ln_emb and token types, then positions, then tokens, last also when tied,
// since the head's part of a tied gradient comes first).
#include "model/model_impl.h"

#include <stdio.h>
#include <stdlib.h>

#define F32 4.0 // bytes of an fp32 element (the element-wise wrappers' convention)

typedef struct {
    int ln1w, ln1b, ln2w, ln2b;         // norms (bias -1 with RMSNorm)
    int qkv, qkvb, proj, projb;         // fused attention (-1 when separate)
    int q, qb, k, kb, v, vb, o, ob;     // separate attention (-1 when fused)
    int fc, fcb, fp, fpb;               // GELU MLP
    int gate, gateb, up, upb, down, downb; // SwiGLU MLP
} ArchBlock;

typedef struct {
    int split;                          // separate q, k, v, o projections
    int64_t C, F, Ckv;
    int wte, wpe, wtt, lnew, lneb, lnfw, lnfb, head, poolw, poolb; // -1: none
    int mod_wte, mod_wpe, mod_wtt, mod_lne, mod_lnf, mod_head, mod_pool;
    int *mod_block;                     // [layers]
    ArchBlock *bp;                      // [layers]
    // Views for the current batch: shapes only (a view doubles as its own
    // gradient, since neither has storage).
    SimTensor tokens;                   // [B, T] int32
    SimTensor x0, x, x2, xn;            // [B, T, C]: embeddings, residual stream, mid, normed
    SimTensor mean, rstd;               // [B*T]
    SimTensor qkv;                      // [B, T, C + 2 Ckv] (fused)
    SimTensor q, k, v;                  // [B, T, C], [B, T, Ckv] x 2 (separate)
    SimTensor attqkv;                   // [B, T, 3C]: q, k, v as the attention reads them
    SimTensor maps;                     // [B, H, T, T]: scores and weights (the wrapper's shape)
    SimTensor atty, proj, mlpout;       // [B, T, C]
    SimTensor h1, h2, h3;               // [B, T, F]
    SimTensor lnf, logits;              // [B, T, C], [B, T, V]
    SimTensor cls, pooled;              // [B, C] (encoder)
    // The ledger's activation charges for the current forward.
    int64_t layer_bytes, recompute_bytes, outside_bytes;
} ArchState;

int sim_model_is_arch(const SimModelSpec *spec) {
    return spec->kind == SIM_MODEL_GPT && sim_model_spec_phantom_only(spec) != NULL;
}

// ----------------------------------------------------------------------------
// the tables

// Adds parameter "<prefix><name>" of shape [d0] or [d0, d1] (d1 = 0) into *idx.
static SimStatus add(SimModel *m, int *idx, const char *prefix, const char *name, int64_t d0,
                     int64_t d1) {
    char full[SIM_NAME_MAX];
    int64_t shape[2] = {d0, d1};
    snprintf(full, sizeof full, "%s%s", prefix, name);
    *idx = m->nparams;
    return sim_model_add_param(m, full, d1 ? 2 : 1, shape);
}

// A norm "<prefix><name>": weight, and bias with LayerNorm (else *b = -1).
static SimStatus add_norm(SimModel *m, const char *prefix, const char *name, int *w, int *b) {
    char n[SIM_NAME_MAX];
    int64_t C = m->spec.embd;
    snprintf(n, sizeof n, "%s.weight", name);
    SIM_CHECK(add(m, w, prefix, n, C, 0));
    *b = -1;
    if (m->spec.norm == SIM_NORM_RMS)
        return SIM_OK;
    snprintf(n, sizeof n, "%s.bias", name);
    return add(m, b, prefix, n, C, 0);
}

// A Linear "<prefix><name>" [out, in], with a bias if `bias` (else *b = -1).
static SimStatus add_linear(SimModel *m, const char *prefix, const char *name, int64_t out,
                            int64_t in, int bias, int *w, int *b) {
    char n[SIM_NAME_MAX];
    snprintf(n, sizeof n, "%s.weight", name);
    SIM_CHECK(add(m, w, prefix, n, out, in));
    *b = -1;
    if (!bias)
        return SIM_OK;
    snprintf(n, sizeof n, "%s.bias", name);
    return add(m, b, prefix, n, out, 0);
}

static SimStatus add_attention(SimModel *m, const ArchState *s, const char *pre, ArchBlock *p) {
    int ab = m->spec.bias == SIM_GPT_BIAS_ALL;
    int64_t C = s->C, Ckv = s->Ckv;
    if (!s->split) {
        SIM_CHECK(add_linear(m, pre, "attn.qkv", C + 2 * Ckv, C, ab, &p->qkv, &p->qkvb));
        return add_linear(m, pre, "attn.proj", C, C, ab, &p->proj, &p->projb);
    }
    SIM_CHECK(add_linear(m, pre, "attn.q_proj", C, C, ab, &p->q, &p->qb));
    SIM_CHECK(add_linear(m, pre, "attn.k_proj", Ckv, C, ab, &p->k, &p->kb));
    SIM_CHECK(add_linear(m, pre, "attn.v_proj", Ckv, C, ab, &p->v, &p->vb));
    return add_linear(m, pre, "attn.o_proj", C, C, ab, &p->o, &p->ob);
}

static SimStatus add_mlp(SimModel *m, const ArchState *s, const char *pre, ArchBlock *p) {
    int mb = m->spec.bias != SIM_GPT_BIAS_NONE;
    int64_t C = s->C, F = s->F;
    if (m->spec.mlp == SIM_MLP_GELU) {
        SIM_CHECK(add_linear(m, pre, "mlp.0", F, C, mb, &p->fc, &p->fcb));
        return add_linear(m, pre, "mlp.2", C, F, mb, &p->fp, &p->fpb);
    }
    SIM_CHECK(add_linear(m, pre, "mlp.gate_proj", F, C, mb, &p->gate, &p->gateb));
    SIM_CHECK(add_linear(m, pre, "mlp.up_proj", F, C, mb, &p->up, &p->upb));
    return add_linear(m, pre, "mlp.down_proj", C, F, mb, &p->down, &p->downb);
}

static SimStatus add_block(SimModel *m, ArchState *s, int l) {
    char pre[32];
    ArchBlock *p = &s->bp[l];
    snprintf(pre, sizeof pre, "blocks.%d.", l);
    SIM_CHECK(add_norm(m, pre, "ln1", &p->ln1w, &p->ln1b));
    SIM_CHECK(add_attention(m, s, pre, p));
    SIM_CHECK(add_norm(m, pre, "ln2", &p->ln2w, &p->ln2b));
    return add_mlp(m, s, pre, p);
}

// BERT's layer order: attention, its LayerNorm, the MLP, its LayerNorm.
static SimStatus add_encoder_block(SimModel *m, ArchState *s, int l) {
    char pre[32];
    ArchBlock *p = &s->bp[l];
    snprintf(pre, sizeof pre, "blocks.%d.", l);
    SIM_CHECK(add_attention(m, s, pre, p));
    SIM_CHECK(add_norm(m, pre, "ln1", &p->ln1w, &p->ln1b));
    SIM_CHECK(add_mlp(m, s, pre, p));
    return add_norm(m, pre, "ln2", &p->ln2w, &p->ln2b);
}

static void init_indices(ArchState *s, int layers) {
    s->wte = s->wpe = s->wtt = s->lnew = s->lneb = s->lnfw = s->lnfb = -1;
    s->head = s->poolw = s->poolb = -1;
    s->mod_wte = s->mod_wpe = s->mod_wtt = s->mod_lne = -1;
    s->mod_lnf = s->mod_head = s->mod_pool = -1;
    for (int l = 0; l < layers; l++) {
        ArchBlock *p = &s->bp[l];
        int *all = &p->ln1w;
        for (size_t k = 0; k < sizeof *p / sizeof(int); k++)
            all[k] = -1;
    }
}

SimStatus sim_model_arch_build(SimModel *m) {
    const SimModelSpec *sp = &m->spec;
    ArchState *s = calloc(1, sizeof *s);
    if (!s)
        return SIM_ENOMEM;
    m->impl->kind = s;
    s->bp = calloc((size_t)sp->layers, sizeof *s->bp);
    s->mod_block = calloc((size_t)sp->layers, sizeof *s->mod_block);
    if (!s->bp || !s->mod_block)
        return SIM_ENOMEM;
    init_indices(s, sp->layers);
    s->C = sp->embd;
    s->F = sp->ffn ? sp->ffn : 4 * s->C;
    s->Ckv = s->C / sp->heads * (sp->kv_heads ? sp->kv_heads : sp->heads);
    s->split = sp->pos == SIM_POS_ROPE || (sp->kv_heads && sp->kv_heads != sp->heads);
    int64_t C = s->C;
    SIM_CHECK(sim_model_begin_module(m, "tok_emb", &s->mod_wte));
    SIM_CHECK(add(m, &s->wte, "", "tok_emb.weight", sp->vocab, C));
    sim_model_end_module(m, s->mod_wte);
    if (sp->pos == SIM_POS_LEARNED) {
        SIM_CHECK(sim_model_begin_module(m, "pos_emb", &s->mod_wpe));
        SIM_CHECK(add(m, &s->wpe, "", "pos_emb.weight", sp->ctx, C));
        sim_model_end_module(m, s->mod_wpe);
    }
    if (sp->encoder) {
        SIM_CHECK(sim_model_begin_module(m, "type_emb", &s->mod_wtt));
        SIM_CHECK(add(m, &s->wtt, "", "type_emb.weight", sp->type_vocab ? sp->type_vocab : 2, C));
        sim_model_end_module(m, s->mod_wtt);
        SIM_CHECK(sim_model_begin_module(m, "ln_emb", &s->mod_lne));
        SIM_CHECK(add_norm(m, "", "ln_emb", &s->lnew, &s->lneb));
        sim_model_end_module(m, s->mod_lne);
    }
    for (int l = 0; l < sp->layers; l++) {
        char name[32];
        snprintf(name, sizeof name, "blocks.%d", l);
        SIM_CHECK(sim_model_begin_module(m, name, &s->mod_block[l]));
        SIM_CHECK(sp->encoder ? add_encoder_block(m, s, l) : add_block(m, s, l));
        sim_model_end_module(m, s->mod_block[l]);
    }
    if (sp->encoder) {
        SIM_CHECK(sim_model_begin_module(m, "pooler", &s->mod_pool));
        SIM_CHECK(add_linear(m, "", "pooler.dense", C, C, 1, &s->poolw, &s->poolb));
        sim_model_end_module(m, s->mod_pool);
        return SIM_OK;
    }
    SIM_CHECK(sim_model_begin_module(m, "ln_f", &s->mod_lnf));
    SIM_CHECK(add_norm(m, "", "ln_f", &s->lnfw, &s->lnfb));
    sim_model_end_module(m, s->mod_lnf);
    if (!sp->tied) {
        SIM_CHECK(sim_model_begin_module(m, "head", &s->mod_head));
        SIM_CHECK(add(m, &s->head, "", "head.weight", sp->vocab, C));
        sim_model_end_module(m, s->mod_head);
    }
    return SIM_OK;
}

void sim_model_arch_free(SimModel *m) {
    ArchState *s = m->impl->kind;
    if (s) {
        free(s->bp);
        free(s->mod_block);
        free(s);
    }
    m->impl->kind = NULL;
}

void sim_model_arch_layout(SimModel *m, SimModelArena *acts, SimModelArena *ints, int B, int T) {
    ArchState *s = m->impl->kind;
    SimModelLoss *loss = &m->impl->loss;
    int64_t C = s->C, F = s->F, H = m->spec.heads, V = m->spec.vocab, N = (int64_t)B * T;
    int64_t bt[2] = {B, T}, n1[1] = {N}, nv[2] = {N, V}, bc[2] = {B, C};
    int64_t btc[3] = {B, T, C}, btf[3] = {B, T, F}, btv[3] = {B, T, V};
    int64_t bqkv[3] = {B, T, C + 2 * s->Ckv}, bkv[3] = {B, T, s->Ckv}, b3c[3] = {B, T, 3 * C};
    int64_t maps[4] = {B, H, T, T};
    sim_model_take(ints, &s->tokens, "tokens", SIM_INT32, 2, bt);
    sim_model_take(acts, &s->x0, "embeddings", SIM_FP32, 3, btc);
    sim_model_take(acts, &s->x, "residual", SIM_FP32, 3, btc);
    sim_model_take(acts, &s->x2, "residual mid", SIM_FP32, 3, btc);
    sim_model_take(acts, &s->xn, "norm out", SIM_FP32, 3, btc);
    sim_model_take(acts, &s->mean, "norm mean", SIM_FP32, 1, n1);
    sim_model_take(acts, &s->rstd, "norm rstd", SIM_FP32, 1, n1);
    sim_model_take(acts, &s->qkv, "qkv", SIM_FP32, 3, bqkv);
    sim_model_take(acts, &s->q, "q", SIM_FP32, 3, btc);
    sim_model_take(acts, &s->k, "k", SIM_FP32, 3, bkv);
    sim_model_take(acts, &s->v, "v", SIM_FP32, 3, bkv);
    sim_model_take(acts, &s->attqkv, "attention qkv", SIM_FP32, 3, b3c);
    sim_model_take(acts, &s->maps, "attention maps", SIM_FP32, 4, maps);
    sim_model_take(acts, &s->atty, "attention out", SIM_FP32, 3, btc);
    sim_model_take(acts, &s->proj, "attn proj out", SIM_FP32, 3, btc);
    sim_model_take(acts, &s->mlpout, "mlp out", SIM_FP32, 3, btc);
    sim_model_take(acts, &s->h1, "mlp hidden", SIM_FP32, 3, btf);
    sim_model_take(acts, &s->h2, "mlp hidden 2", SIM_FP32, 3, btf);
    sim_model_take(acts, &s->h3, "mlp hidden 3", SIM_FP32, 3, btf);
    if (m->spec.encoder) {
        sim_model_take(acts, &s->cls, "first token", SIM_FP32, 2, bc);
        sim_model_take(acts, &s->pooled, "pooled", SIM_FP32, 2, bc);
        loss->count = (size_t)B;
        return;
    }
    sim_model_take(ints, &loss->labels, "targets", SIM_INT32, 1, n1);
    sim_model_take(acts, &s->lnf, "ln_f out", SIM_FP32, 3, btc);
    sim_model_take(acts, &s->logits, "logits", SIM_FP32, 3, btv);
    sim_model_take(acts, &loss->probs, "probs", SIM_FP32, 2, nv);
    sim_model_take(acts, &loss->losses, "losses", SIM_FP32, 1, n1);
    sim_model_take(acts, &loss->dlosses, "d losses", SIM_FP32, 1, n1);
    loss->count = (size_t)N;
}

// ----------------------------------------------------------------------------
// layers

#define PV(i) (&m->impl->pv[(i)])
#define GV(i) (&m->impl->gv[(i)])
#define OPT(a, i) ((i) >= 0 ? a(i) : NULL)

static SimStatus linear_fwd(SimRank *r, SimModel *m, SimTensor *out, const SimTensor *inp,
                            int w, int b) {
    return sim_op_linear_forward(r, out, inp, PV(w), OPT(PV, b), m->impl->amp);
}

// dinp accumulates (it may be NULL); reports the bias, then the weight.
static SimStatus linear_bwd(SimRank *r, SimModel *m, SimTensor *dinp, const SimTensor *dout,
                            const SimTensor *inp, int w, int b, SimGradHook hook, void *arg) {
    SIM_CHECK(sim_op_linear_backward(r, dinp, GV(w), OPT(GV, b), dout, inp, PV(w),
                                     m->impl->amp));
    if (b >= 0)
        sim_model_ready(m, hook, arg, b);
    sim_model_ready(m, hook, arg, w);
    return SIM_OK;
}

static SimStatus norm_fwd(SimRank *r, SimModel *m, SimTensor *out, const SimTensor *x, int w,
                          int b) {
    ArchState *s = m->impl->kind;
    if (m->spec.norm == SIM_NORM_LAYER)
        return sim_op_layernorm_forward(r, out, &s->mean, &s->rstd, x, PV(w), PV(b), 1e-5f);
    double nc = (double)sim_tensor_numel(x), n = nc / (double)s->C;
    const SimTensor *t[3] = {out, x, PV(w)};
    return sim_op_cost(r, "rmsnorm_fwd", 4 * nc, F32 * (2 * nc + (double)s->C + n), 0, SIM_FP32,
                       t, 3);
}

// dx accumulates the gradient of the norm's input x; reports weight, bias.
static SimStatus norm_bwd(SimRank *r, SimModel *m, SimTensor *dx, const SimTensor *dout,
                          const SimTensor *x, int w, int b, SimGradHook hook, void *arg) {
    ArchState *s = m->impl->kind;
    if (m->spec.norm == SIM_NORM_LAYER) {
        SIM_CHECK(sim_op_layernorm_backward(r, dx, GV(w), GV(b), dout, x, PV(w), &s->mean,
                                            &s->rstd));
    } else {
        double nc = (double)sim_tensor_numel(x);
        const SimTensor *t[4] = {dx, dout, x, GV(w)};
        SIM_CHECK(sim_op_cost(r, "rmsnorm_bwd", 8 * nc, F32 * (4 * nc + 2.0 * (double)s->C), 0,
                              SIM_FP32, t, 4));
    }
    sim_model_ready(m, hook, arg, w);
    if (b >= 0)
        sim_model_ready(m, hook, arg, b);
    return SIM_OK;
}

// The attention core: the causal wrapper, and for an encoder the pairs
// above the diagonal at the wrapper's cost per pair (forward 4 hs + 5 FLOPs,
// backward 8 hs + 6).
// attn=flash: the fused kernel of sim/model/model_flash.c instead.
static SimModelFlash flash_of(const SimModel *m) {
    const ArchState *s = m->impl->kind;
    int lowp = m->impl->amp != SIM_FP32;
    SimModelFlash f = {(double)s->attqkv.shape[0], (double)s->attqkv.shape[1],
                       (double)m->spec.heads, (double)s->C, (double)s->Ckv, lowp ? 2.0 : 4.0,
                       !m->spec.encoder, lowp, m->spec.attn == SIM_ATTN_TRITON};
    return f;
}

static SimStatus core_fwd(SimRank *r, SimModel *m) {
    ArchState *s = m->impl->kind;
    int H = m->spec.heads;
    if (sim_model_attn_fused(m->spec.attn)) {
        SimModelFlash f = flash_of(m);
        return sim_model_flash_forward(r, &f, &s->atty, &s->attqkv);
    }
    SIM_CHECK(sim_op_attention_forward(r, &s->atty, &s->maps, &s->maps, &s->attqkv, H));
    if (!m->spec.encoder)
        return SIM_OK;
    double B = (double)s->attqkv.shape[0], T = (double)s->attqkv.shape[1];
    double pairs = B * H * T * (T - 1) / 2, hs = (double)s->C / H;
    const SimTensor *t[2] = {&s->atty, &s->attqkv};
    return sim_op_cost(r, "attention_fwd_bidir", pairs * (4 * hs + 5), 0, 0, SIM_FP32, t, 2);
}

static SimStatus core_bwd(SimRank *r, SimModel *m) {
    ArchState *s = m->impl->kind;
    int H = m->spec.heads;
    if (sim_model_attn_fused(m->spec.attn)) {
        SimModelFlash f = flash_of(m);
        return sim_model_flash_backward(r, &f, &s->attqkv, &s->atty);
    }
    SIM_CHECK(sim_op_attention_backward(r, &s->attqkv, &s->maps, &s->maps, &s->atty, &s->attqkv,
                                        &s->maps, H));
    if (!m->spec.encoder)
        return SIM_OK;
    double B = (double)s->attqkv.shape[0], T = (double)s->attqkv.shape[1];
    double pairs = B * H * T * (T - 1) / 2, hs = (double)s->C / H;
    const SimTensor *t[2] = {&s->atty, &s->attqkv};
    return sim_op_cost(r, "attention_bwd_bidir", pairs * (8 * hs + 6), 0, 0, SIM_FP32, t, 2);
}

// Rotary positions on q and k: per element two products and a sum.
static SimStatus rope(SimRank *r, SimModel *m, int backward) {
    ArchState *s = m->impl->kind;
    if (m->spec.pos != SIM_POS_ROPE)
        return SIM_OK;
    double n = (double)sim_tensor_numel(&s->q) + (double)sim_tensor_numel(&s->k);
    const SimTensor *t[2] = {&s->q, &s->k};
    return sim_op_cost(r, backward ? "rope_bwd" : "rope_fwd", 3 * n, F32 * 2 * n, 0, SIM_FP32, t,
                       2);
}

// The attention sub-layer from the normed input `in` to s->proj.
static SimStatus attn_fwd(SimRank *r, SimModel *m, const ArchBlock *p, const SimTensor *in) {
    ArchState *s = m->impl->kind;
    if (s->split) {
        SIM_CHECK(linear_fwd(r, m, &s->q, in, p->q, p->qb));
        SIM_CHECK(linear_fwd(r, m, &s->k, in, p->k, p->kb));
        SIM_CHECK(linear_fwd(r, m, &s->v, in, p->v, p->vb));
    } else {
        SIM_CHECK(linear_fwd(r, m, &s->qkv, in, p->qkv, p->qkvb));
    }
    SIM_CHECK(rope(r, m, 0));
    SIM_CHECK(core_fwd(r, m));
    return linear_fwd(r, m, &s->proj, &s->atty, s->split ? p->o : p->proj,
                      s->split ? p->ob : p->projb);
}

// dproj: the gradient of the sub-layer's output; din accumulates the
// gradient of its input `in`.
static SimStatus attn_bwd(SimRank *r, SimModel *m, const ArchBlock *p, SimTensor *din,
                          const SimTensor *dproj, const SimTensor *in, SimGradHook hook,
                          void *arg) {
    ArchState *s = m->impl->kind;
    SIM_CHECK(linear_bwd(r, m, &s->atty, dproj, &s->atty, s->split ? p->o : p->proj,
                         s->split ? p->ob : p->projb, hook, arg));
    // recompute the core it did not keep; a fused kernel keeps no scores
    // and recomputes inside its own backward
    if (m->spec.ckpt == SIM_CKPT_SELECTIVE && !sim_model_attn_fused(m->spec.attn))
        SIM_CHECK(core_fwd(r, m));
    SIM_CHECK(core_bwd(r, m));
    SIM_CHECK(rope(r, m, 1));
    if (!s->split)
        return linear_bwd(r, m, din, &s->qkv, in, p->qkv, p->qkvb, hook, arg);
    SIM_CHECK(linear_bwd(r, m, din, &s->v, in, p->v, p->vb, hook, arg));
    SIM_CHECK(linear_bwd(r, m, din, &s->k, in, p->k, p->kb, hook, arg));
    return linear_bwd(r, m, din, &s->q, in, p->q, p->qb, hook, arg);
}

// The MLP sub-layer from `in` to s->mlpout.
static SimStatus mlp_fwd(SimRank *r, SimModel *m, const ArchBlock *p, const SimTensor *in) {
    ArchState *s = m->impl->kind;
    if (m->spec.mlp == SIM_MLP_GELU) {
        SIM_CHECK(linear_fwd(r, m, &s->h1, in, p->fc, p->fcb));
        SIM_CHECK(sim_op_act_forward(r, SIM_ACT_GELU, &s->h2, &s->h1));
        return linear_fwd(r, m, &s->mlpout, &s->h2, p->fp, p->fpb);
    }
    SIM_CHECK(linear_fwd(r, m, &s->h1, in, p->gate, p->gateb));
    SIM_CHECK(linear_fwd(r, m, &s->h2, in, p->up, p->upb));
    double n = (double)sim_tensor_numel(&s->h1);
    const SimTensor *t[3] = {&s->h3, &s->h1, &s->h2};
    SIM_CHECK(sim_op_cost(r, "swiglu_fwd", 5 * n, F32 * 3 * n, 0, SIM_FP32, t, 3));
    return linear_fwd(r, m, &s->mlpout, &s->h3, p->down, p->downb);
}

static SimStatus mlp_bwd(SimRank *r, SimModel *m, const ArchBlock *p, SimTensor *din,
                         const SimTensor *dout, const SimTensor *in, SimGradHook hook,
                         void *arg) {
    ArchState *s = m->impl->kind;
    if (m->spec.mlp == SIM_MLP_GELU) {
        SIM_CHECK(linear_bwd(r, m, &s->h2, dout, &s->h2, p->fp, p->fpb, hook, arg));
        SIM_CHECK(sim_op_act_backward(r, SIM_ACT_GELU, &s->h1, &s->h1, &s->h2));
        return linear_bwd(r, m, din, &s->h1, in, p->fc, p->fcb, hook, arg);
    }
    SIM_CHECK(linear_bwd(r, m, &s->h3, dout, &s->h3, p->down, p->downb, hook, arg));
    double n = (double)sim_tensor_numel(&s->h1);
    const SimTensor *t[3] = {&s->h1, &s->h2, &s->h3};
    SIM_CHECK(sim_op_cost(r, "swiglu_bwd", 8 * n, F32 * 5 * n, 0, SIM_FP32, t, 3));
    SIM_CHECK(linear_bwd(r, m, din, &s->h2, in, p->up, p->upb, hook, arg));
    return linear_bwd(r, m, din, &s->h1, in, p->gate, p->gateb, hook, arg);
}

// One block forward, s->x in and out (the residual stream).
static SimStatus block_fwd(SimRank *r, SimModel *m, int l) {
    ArchState *s = m->impl->kind;
    const ArchBlock *p = &s->bp[l];
    if (m->spec.encoder) { // post-norm: x2n = ln1(x + attn(x)); x = ln2(x2n + mlp(x2n))
        SIM_CHECK(attn_fwd(r, m, p, &s->x));
        SIM_CHECK(sim_op_add(r, &s->x2, &s->x, &s->proj));
        SIM_CHECK(norm_fwd(r, m, &s->xn, &s->x2, p->ln1w, p->ln1b));
        SIM_CHECK(mlp_fwd(r, m, p, &s->xn));
        SIM_CHECK(sim_op_add(r, &s->x2, &s->xn, &s->mlpout));
        return norm_fwd(r, m, &s->x, &s->x2, p->ln2w, p->ln2b);
    }
    // pre-norm: x2 = x + attn(ln1(x)); x = x2 + mlp(ln2(x2))
    SIM_CHECK(norm_fwd(r, m, &s->xn, &s->x, p->ln1w, p->ln1b));
    SIM_CHECK(attn_fwd(r, m, p, &s->xn));
    SIM_CHECK(sim_op_add(r, &s->x2, &s->x, &s->proj));
    SIM_CHECK(norm_fwd(r, m, &s->xn, &s->x2, p->ln2w, p->ln2b));
    SIM_CHECK(mlp_fwd(r, m, p, &s->xn));
    return sim_op_add(r, &s->x, &s->x2, &s->mlpout);
}

// One block backward: s->x holds the gradient of the block's output on
// entry and of its input on exit (residual gradients add into it).
static SimStatus block_bwd(SimRank *r, SimModel *m, int l, SimGradHook hook, void *arg) {
    ArchState *s = m->impl->kind;
    const ArchBlock *p = &s->bp[l];
    if (m->spec.encoder) {
        SIM_CHECK(norm_bwd(r, m, &s->x2, &s->x, &s->x2, p->ln2w, p->ln2b, hook, arg));
        SIM_CHECK(mlp_bwd(r, m, p, &s->xn, &s->x2, &s->xn, hook, arg));
        SIM_CHECK(norm_bwd(r, m, &s->x, &s->xn, &s->x2, p->ln1w, p->ln1b, hook, arg));
        return attn_bwd(r, m, p, &s->x, &s->x, &s->x, hook, arg);
    }
    SIM_CHECK(mlp_bwd(r, m, p, &s->xn, &s->x, &s->xn, hook, arg));
    SIM_CHECK(norm_bwd(r, m, &s->x, &s->xn, &s->x2, p->ln2w, p->ln2b, hook, arg));
    SIM_CHECK(attn_bwd(r, m, p, &s->xn, &s->x, &s->xn, hook, arg));
    return norm_bwd(r, m, &s->x, &s->xn, &s->x, p->ln1w, p->ln1b, hook, arg);
}

// ----------------------------------------------------------------------------
// embeddings and the head

// A lookup without its own wrapper (RoPE models' token table alone, BERT's
// token types): the rows read and the output written; backward scatters
// the gradient back.
static SimStatus lookup(SimRank *r, const char *event, SimTensor *out, const SimTensor *table,
                        int backward) {
    double btc = (double)sim_tensor_numel(out);
    const SimTensor *t[2] = {out, table};
    return sim_op_cost(r, event, backward ? btc : 0, F32 * (backward ? 3 : 2) * btc, 0, SIM_FP32,
                       t, 2);
}

static SimStatus embed_fwd(SimRank *r, SimModel *m, int T) {
    ArchState *s = m->impl->kind;
    SimTensor *dst = m->spec.encoder ? &s->x0 : &s->x;
    if (s->wpe >= 0) {
        SimTensor wpe = *PV(s->wpe);
        wpe.shape[0] = T; // the batch's first T positions
        SIM_CHECK(sim_op_embedding_forward(r, dst, &s->tokens, PV(s->wte), &wpe));
    } else {
        SIM_CHECK(lookup(r, "tok_embedding_fwd", dst, PV(s->wte), 0));
    }
    if (!m->spec.encoder)
        return SIM_OK;
    SIM_CHECK(lookup(r, "type_embedding_fwd", &s->x0, PV(s->wtt), 0));
    return norm_fwd(r, m, &s->x, &s->x0, s->lnew, s->lneb);
}

static SimStatus embed_bwd(SimRank *r, SimModel *m, SimGradHook hook, void *arg) {
    ArchState *s = m->impl->kind;
    SimTensor *dx = &s->x;
    if (m->spec.encoder) {
        SIM_CHECK(norm_bwd(r, m, &s->x0, &s->x, &s->x0, s->lnew, s->lneb, hook, arg));
        SIM_CHECK(lookup(r, "type_embedding_bwd", &s->x0, GV(s->wtt), 1));
        sim_model_ready(m, hook, arg, s->wtt);
        dx = &s->x0;
    }
    if (s->wpe >= 0) {
        SimTensor dwpe = *GV(s->wpe);
        dwpe.shape[0] = s->tokens.shape[1];
        SIM_CHECK(sim_op_embedding_backward(r, GV(s->wte), &dwpe, dx, &s->tokens));
        sim_model_ready(m, hook, arg, s->wpe);
    } else {
        SIM_CHECK(lookup(r, "tok_embedding_bwd", dx, GV(s->wte), 1));
    }
    sim_model_ready(m, hook, arg, s->wte);
    return SIM_OK;
}

// Decoder: ln_f, the head (tok_emb.weight when tied) and the loss.
// Encoder: the pooler on the first token; it has no loss of its own (BERT's
// pre-training heads are outside BertModel), so *loss stays 0 and backward
// starts from the pooled output's gradient, as a task head would give it.
static SimStatus head_fwd(SimRank *r, SimModel *m, float *loss) {
    ArchState *s = m->impl->kind;
    if (m->spec.encoder) {
        SIM_CHECK(sim_model_module_event(m, SIM_MODULE_PRE_FORWARD, s->mod_pool));
        SIM_CHECK(linear_fwd(r, m, &s->pooled, &s->cls, s->poolw, s->poolb));
        double n = (double)sim_tensor_numel(&s->pooled);
        const SimTensor *t[1] = {&s->pooled};
        SIM_CHECK(sim_op_cost(r, "tanh_fwd", 10 * n, F32 * 2 * n, 0, SIM_FP32, t, 1));
        SIM_CHECK(sim_model_module_event(m, SIM_MODULE_POST_FORWARD, s->mod_pool));
        m->impl->output = &s->pooled;
        return SIM_OK;
    }
    SIM_CHECK(sim_model_module_event(m, SIM_MODULE_PRE_FORWARD, s->mod_lnf));
    SIM_CHECK(norm_fwd(r, m, &s->lnf, &s->x, s->lnfw, s->lnfb));
    SIM_CHECK(sim_model_module_event(m, SIM_MODULE_POST_FORWARD, s->mod_lnf));
    SIM_CHECK(sim_model_module_event(m, SIM_MODULE_PRE_FORWARD, s->mod_head));
    SIM_CHECK(linear_fwd(r, m, &s->logits, &s->lnf, s->head >= 0 ? s->head : s->wte, -1));
    SIM_CHECK(sim_model_module_event(m, SIM_MODULE_POST_FORWARD, s->mod_head));
    m->impl->output = &s->logits;
    return sim_model_loss_forward(r, m, &s->logits, loss);
}

static SimStatus head_bwd(SimRank *r, SimModel *m, float dloss_scale, SimGradHook hook,
                          void *arg) {
    ArchState *s = m->impl->kind;
    if (m->spec.encoder) {
        SIM_CHECK(sim_model_module_event(m, SIM_MODULE_PRE_BACKWARD, s->mod_pool));
        double n = (double)sim_tensor_numel(&s->pooled);
        const SimTensor *t[1] = {&s->pooled};
        SIM_CHECK(sim_op_cost(r, "tanh_bwd", 3 * n, F32 * 3 * n, 0, SIM_FP32, t, 1));
        SIM_CHECK(linear_bwd(r, m, &s->cls, &s->pooled, &s->cls, s->poolw, s->poolb, hook, arg));
        return sim_model_module_event(m, SIM_MODULE_POST_BACKWARD, s->mod_pool);
    }
    SIM_CHECK(sim_model_loss_backward(r, m, &s->logits, dloss_scale));
    SIM_CHECK(sim_model_module_event(m, SIM_MODULE_PRE_BACKWARD, s->mod_head));
    int w = s->head >= 0 ? s->head : s->wte;
    SIM_CHECK(sim_op_linear_backward(r, &s->lnf, GV(w), NULL, &s->logits, &s->lnf, PV(w),
                                     m->impl->amp));
    if (s->head >= 0) // a tied tok_emb is complete only after the embedding's backward
        sim_model_ready(m, hook, arg, s->head);
    SIM_CHECK(sim_model_module_event(m, SIM_MODULE_POST_BACKWARD, s->mod_head));
    SIM_CHECK(sim_model_module_event(m, SIM_MODULE_PRE_BACKWARD, s->mod_lnf));
    SIM_CHECK(norm_bwd(r, m, &s->x, &s->lnf, &s->x, s->lnfw, s->lnfb, hook, arg));
    return sim_model_module_event(m, SIM_MODULE_POST_BACKWARD, s->mod_lnf);
}

// ----------------------------------------------------------------------------
// forward and backward

static SimStatus check_batch(SimRank *r, const SimModel *m, const SimBatch *b) {
    const SimModelSpec *sp = &m->spec;
    if (b->seq < 1 || b->seq > sp->ctx)
        return sim_model_fail(r, "model gpt: the batch has sequences of %d tokens (allowed: "
                              "1..%d, the model's ctx)", b->seq, sp->ctx);
    size_t n = (size_t)b->n * (size_t)b->seq;
    SIM_CHECK(sim_model_check_ids(r, "token", b->tokens, n, b->seq, sp->vocab, b));
    if (sp->encoder)
        return SIM_OK;
    return sim_model_check_ids(r, "target", b->labels, n, b->seq, sp->vocab, b);
}

// The charges of a forward of n sequences of T tokens (sim_model_act_bytes,
// at 2 bytes per value under amp and 4 without).
static SimStatus plan_charges(SimRank *r, SimModel *m, int n, int T) {
    ArchState *s = m->impl->kind;
    SimActBytes a;
    int p = m->impl->amp == SIM_FP32 ? 4 : 2;
    if (sim_model_act_bytes(&m->spec, n, T, p, m->spec.ckpt, &a) != SIM_OK)
        return sim_model_fail(r, "model: the activations of %d x %d tokens overflow", n, T);
    s->layer_bytes = a.stored / m->spec.layers;
    s->recompute_bytes = a.recompute;
    s->outside_bytes = a.outside;
    return SIM_OK;
}

SimStatus sim_model_arch_forward(SimRank *r, SimModel *m, const SimBatch *b, float *loss) {
    SimModelImpl *im = m->impl;
    ArchState *s = im->kind;
    *loss = 0.0f;
    SIM_CHECK(check_batch(r, m, b));
    // what an earlier forward left (one never followed by backward) is freed
    SIM_CHECK(sim_model_act_charge(r, m, -im->act_held, "activations"));
    SIM_CHECK(plan_charges(r, m, b->n, b->seq));
    im->fwd_seq = b->seq;
    sim_model_lay_out(m, b->n, b->seq);
    SIM_CHECK(sim_tensor_upload(r, &s->tokens, b->tokens));
    if (!m->spec.encoder)
        SIM_CHECK(sim_tensor_upload(r, &im->loss.labels, b->labels));
    for (int i = 0; i < m->nparams; i++)
        im->used[i] = 1;
    int emb[4] = {s->mod_wte, s->mod_wpe, s->mod_wtt, s->mod_lne};
    SIM_CHECK(sim_model_module_event(m, SIM_MODULE_PRE_FORWARD, 0));
    for (int k = 0; k < 4; k++)
        SIM_CHECK(sim_model_module_event(m, SIM_MODULE_PRE_FORWARD, emb[k]));
    SIM_CHECK(embed_fwd(r, m, b->seq));
    for (int k = 0; k < 4; k++)
        SIM_CHECK(sim_model_module_event(m, SIM_MODULE_POST_FORWARD, emb[k]));
    for (int l = 0; l < m->spec.layers; l++) {
        SIM_CHECK(sim_model_module_event(m, SIM_MODULE_PRE_FORWARD, s->mod_block[l]));
        SIM_CHECK(block_fwd(r, m, l));
        SIM_CHECK(sim_model_act_charge(r, m, s->layer_bytes, "activations (a layer)"));
        SIM_CHECK(sim_model_module_event(m, SIM_MODULE_POST_FORWARD, s->mod_block[l]));
    }
    SIM_CHECK(head_fwd(r, m, loss));
    SIM_CHECK(sim_model_act_charge(r, m, s->outside_bytes, "activations (embeddings, head)"));
    return sim_model_module_event(m, SIM_MODULE_POST_FORWARD, 0);
}

SimStatus sim_model_arch_backward(SimRank *r, SimModel *m, float dloss_scale, SimGradHook hook,
                                  void *arg) {
    ArchState *s = m->impl->kind;
    SIM_CHECK(sim_model_module_event(m, SIM_MODULE_PRE_BACKWARD, 0));
    SIM_CHECK(head_bwd(r, m, dloss_scale, hook, arg));
    SIM_CHECK(sim_model_act_charge(r, m, -s->outside_bytes, "activations (embeddings, head)"));
    for (int l = m->spec.layers - 1; l >= 0; l--) {
        SIM_CHECK(sim_model_module_event(m, SIM_MODULE_PRE_BACKWARD, s->mod_block[l]));
        if (m->spec.ckpt == SIM_CKPT_FULL) { // recompute the block from its kept input
            SIM_CHECK(sim_model_act_charge(r, m, s->recompute_bytes, "activations (recompute)"));
            SIM_CHECK(block_fwd(r, m, l));
        }
        SIM_CHECK(block_bwd(r, m, l, hook, arg));
        SIM_CHECK(sim_model_act_charge(r, m, -(s->layer_bytes + s->recompute_bytes),
                                       "activations (a layer)"));
        SIM_CHECK(sim_model_module_event(m, SIM_MODULE_POST_BACKWARD, s->mod_block[l]));
    }
    int emb[4] = {s->mod_wtt, s->mod_lne, s->mod_wpe, s->mod_wte};
    for (int k = 0; k < 4; k++)
        SIM_CHECK(sim_model_module_event(m, SIM_MODULE_PRE_BACKWARD, emb[k]));
    SIM_CHECK(embed_bwd(r, m, hook, arg));
    for (int k = 0; k < 4; k++)
        SIM_CHECK(sim_model_module_event(m, SIM_MODULE_POST_BACKWARD, emb[k]));
    return sim_model_module_event(m, SIM_MODULE_POST_BACKWARD, 0);
}
