// sim/model/model_gpt.c: MiniGPT, a decoder-only transformer, layer by layer.
//
// "gpt:layers=L,embd=C,heads=H,ctx=T,vocab=V" is the MiniGPT module of the
// DDP guide this project started from, without its dropout layers:
//
//   tok_emb   nn.Embedding(V, C)          pos_emb  nn.Embedding(T, C)
//   blocks.i  x = x + attn(ln1(x)); x = x + mlp(ln2(x)), for i < L, with
//     ln1, ln2  nn.LayerNorm(C)
//     attn.qkv  nn.Linear(C, 3C, bias=False), then q, k, v (that order), H heads
//     attn.proj nn.Linear(C, C, bias=False), after causal softmax(q k^T/sqrt(C/H)) v
//     attn.mask buffer [1, 1, T, T], lower-triangular ones
//     mlp       nn.Sequential(Linear(C, 4C), GELU(), Linear(4C, C)): mlp.0, mlp.2
//   ln_f      nn.LayerNorm(C)             head     nn.Linear(C, V, bias=False)
//
// and the loss is cross-entropy of the logits against next-token targets,
// averaged over the B*T tokens of the batch.
//
// Backward reports gradients in the order PyTorch's autograd completes them:
// head.weight, ln_f.weight, ln_f.bias, then for each block from the last:
// mlp.2.bias, mlp.2.weight, mlp.0.bias, mlp.0.weight, ln2.weight, ln2.bias,
// attn.proj.weight, attn.qkv.weight, ln1.weight, ln1.bias; then
// pos_emb.weight and tok_emb.weight last.
//
// Memory, as in llm.c: every layer keeps the activations backward needs; the
// gradient of the residual stream is one [B, T, C] buffer that every residual
// connection accumulates into (the kernels add), and the other activation
// gradients of a block live in one scratch region reused block after block.
#include "model/model_impl.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

typedef struct {
    int ln1w, ln1b, qkv, proj, ln2w, ln2b, fcw, fcb, fpw, fpb; // parameter indices
    int mask;                                                 // buffer index
} GptBlockParams;

typedef struct {
    SimTensor ln1, ln1_mean, ln1_rstd; // [B,T,C], [B*T], [B*T]
    SimTensor qkv;                     // [B,T,3C]
    SimTensor att;                     // [B,H,T,T] attention weights
    SimTensor atty, attproj, res2;     // [B,T,C]: before proj, after, residual
    SimTensor ln2, ln2_mean, ln2_rstd;
    SimTensor fch, fch_gelu;           // [B,T,4C]
    SimTensor fcproj, res3;            // [B,T,C]
} GptBlockActs;

typedef struct {
    int wte, wpe, lnfw, lnfb, head;
    int mod_wte, mod_wpe, mod_lnf, mod_head; // module indices
    int *mod_block;      // [layers]
    GptBlockParams *bp;  // [layers]
    GptBlockActs *ba;    // [layers]
    SimTensor tokens;    // [B,T] int32
    SimTensor x0;        // [B,T,C] embeddings
    SimTensor preatt;    // [B,H,T,T] scores before softmax (forward scratch)
    SimTensor lnf, lnf_mean, lnf_rstd, logits; // [B,T,C] ... [B,T,V]
    // Gradients: the residual stream, the head's input and output, then the
    // per-block scratch (the region [scratch_off, scratch_off + scratch_n)).
    SimTensor dres, dlnf, dlogits;
    SimTensor dfch_gelu, dfch, dln2, datty, dqkv, dln1, dpreatt, datt;
    size_t scratch_off, scratch_n;
} GptState;

static SimStatus add(SimModel *m, int *idx, int ndim, int64_t a, int64_t b, const char *fmt,
                     int block) {
    char name[SIM_NAME_MAX];
    int64_t shape[2] = {a, b};
    snprintf(name, sizeof name, fmt, block);
    *idx = m->nparams;
    return sim_model_add_param(m, name, ndim, shape);
}

static SimStatus add_block(SimModel *m, GptBlockParams *p, int i) {
    int64_t C = m->spec.embd, T = m->spec.ctx;
    SIM_CHECK(add(m, &p->ln1w, 1, C, 0, "blocks.%d.ln1.weight", i));
    SIM_CHECK(add(m, &p->ln1b, 1, C, 0, "blocks.%d.ln1.bias", i));
    SIM_CHECK(add(m, &p->qkv, 2, 3 * C, C, "blocks.%d.attn.qkv.weight", i));
    SIM_CHECK(add(m, &p->proj, 2, C, C, "blocks.%d.attn.proj.weight", i));
    SIM_CHECK(add(m, &p->ln2w, 1, C, 0, "blocks.%d.ln2.weight", i));
    SIM_CHECK(add(m, &p->ln2b, 1, C, 0, "blocks.%d.ln2.bias", i));
    SIM_CHECK(add(m, &p->fcw, 2, 4 * C, C, "blocks.%d.mlp.0.weight", i));
    SIM_CHECK(add(m, &p->fcb, 1, 4 * C, 0, "blocks.%d.mlp.0.bias", i));
    SIM_CHECK(add(m, &p->fpw, 2, C, 4 * C, "blocks.%d.mlp.2.weight", i));
    SIM_CHECK(add(m, &p->fpb, 1, C, 0, "blocks.%d.mlp.2.bias", i));
    char name[SIM_NAME_MAX];
    int64_t mask[4] = {1, 1, T, T};
    snprintf(name, sizeof name, "blocks.%d.attn.mask", i);
    p->mask = m->nbuffers;
    return sim_model_add_buffer(m, name, SIM_FP32, 4, mask);
}

SimStatus sim_model_gpt_build(SimModel *m) {
    const SimModelSpec *sp = &m->spec;
    GptState *s = calloc(1, sizeof *s);
    if (!s)
        return SIM_ENOMEM;
    m->impl->kind = s;
    s->bp = calloc((size_t)sp->layers, sizeof *s->bp);
    s->ba = calloc((size_t)sp->layers, sizeof *s->ba);
    s->mod_block = calloc((size_t)sp->layers, sizeof *s->mod_block);
    if (!s->bp || !s->ba || !s->mod_block)
        return SIM_ENOMEM;
    SIM_CHECK(sim_model_begin_module(m, "tok_emb", &s->mod_wte));
    SIM_CHECK(add(m, &s->wte, 2, sp->vocab, sp->embd, "tok_emb.weight", 0));
    sim_model_end_module(m, s->mod_wte);
    SIM_CHECK(sim_model_begin_module(m, "pos_emb", &s->mod_wpe));
    SIM_CHECK(add(m, &s->wpe, 2, sp->ctx, sp->embd, "pos_emb.weight", 0));
    sim_model_end_module(m, s->mod_wpe);
    for (int i = 0; i < sp->layers; i++) {
        char name[SIM_NAME_MAX];
        snprintf(name, sizeof name, "blocks.%d", i);
        SIM_CHECK(sim_model_begin_module(m, name, &s->mod_block[i]));
        SIM_CHECK(add_block(m, &s->bp[i], i));
        sim_model_end_module(m, s->mod_block[i]);
    }
    SIM_CHECK(sim_model_begin_module(m, "ln_f", &s->mod_lnf));
    SIM_CHECK(add(m, &s->lnfw, 1, sp->embd, 0, "ln_f.weight", 0));
    SIM_CHECK(add(m, &s->lnfb, 1, sp->embd, 0, "ln_f.bias", 0));
    sim_model_end_module(m, s->mod_lnf);
    SIM_CHECK(sim_model_begin_module(m, "head", &s->mod_head));
    SIM_CHECK(add(m, &s->head, 2, sp->vocab, sp->embd, "head.weight", 0));
    sim_model_end_module(m, s->mod_head);
    return SIM_OK;
}

void sim_model_gpt_free(SimModel *m) {
    GptState *s = m->impl->kind;
    if (s) {
        free(s->bp);
        free(s->ba);
        free(s->mod_block);
        free(s);
    }
    m->impl->kind = NULL;
}

void sim_model_gpt_layout(SimModel *m, SimModelArena *acts, SimModelArena *dacts,
                          SimModelArena *ints, int B, int T) {
    GptState *s = m->impl->kind;
    SimModelLoss *loss = &m->impl->loss;
    int64_t C = m->spec.embd, H = m->spec.heads, V = m->spec.vocab, N = (int64_t)B * T;
    int64_t bt[2] = {B, T}, btc[3] = {B, T, C}, bt3c[3] = {B, T, 3 * C};
    int64_t bt4c[3] = {B, T, 4 * C}, att[4] = {B, H, T, T}, btv[3] = {B, T, V};
    int64_t n1[1] = {N}, nv[2] = {N, V};
    sim_model_take(ints, &s->tokens, "tokens", SIM_INT32, 2, bt);
    sim_model_take(ints, &loss->labels, "targets", SIM_INT32, 1, n1);
    sim_model_take(acts, &s->x0, "embeddings", SIM_FP32, 3, btc);
    sim_model_take(acts, &s->preatt, "attention scores", SIM_FP32, 4, att);
    for (int l = 0; l < m->spec.layers; l++) {
        GptBlockActs *a = &s->ba[l];
        sim_model_take(acts, &a->ln1, "ln1 out", SIM_FP32, 3, btc);
        sim_model_take(acts, &a->ln1_mean, "ln1 mean", SIM_FP32, 1, n1);
        sim_model_take(acts, &a->ln1_rstd, "ln1 rstd", SIM_FP32, 1, n1);
        sim_model_take(acts, &a->qkv, "qkv", SIM_FP32, 3, bt3c);
        sim_model_take(acts, &a->att, "attention", SIM_FP32, 4, att);
        sim_model_take(acts, &a->atty, "attention out", SIM_FP32, 3, btc);
        sim_model_take(acts, &a->attproj, "attn proj out", SIM_FP32, 3, btc);
        sim_model_take(acts, &a->res2, "residual after attn", SIM_FP32, 3, btc);
        sim_model_take(acts, &a->ln2, "ln2 out", SIM_FP32, 3, btc);
        sim_model_take(acts, &a->ln2_mean, "ln2 mean", SIM_FP32, 1, n1);
        sim_model_take(acts, &a->ln2_rstd, "ln2 rstd", SIM_FP32, 1, n1);
        sim_model_take(acts, &a->fch, "mlp hidden", SIM_FP32, 3, bt4c);
        sim_model_take(acts, &a->fch_gelu, "mlp gelu", SIM_FP32, 3, bt4c);
        sim_model_take(acts, &a->fcproj, "mlp out", SIM_FP32, 3, btc);
        sim_model_take(acts, &a->res3, "residual after mlp", SIM_FP32, 3, btc);
    }
    sim_model_take(acts, &s->lnf, "ln_f out", SIM_FP32, 3, btc);
    sim_model_take(acts, &s->lnf_mean, "ln_f mean", SIM_FP32, 1, n1);
    sim_model_take(acts, &s->lnf_rstd, "ln_f rstd", SIM_FP32, 1, n1);
    sim_model_take(acts, &s->logits, "logits", SIM_FP32, 3, btv);
    sim_model_take(acts, &loss->probs, "probs", SIM_FP32, 2, nv);
    sim_model_take(acts, &loss->losses, "losses", SIM_FP32, 1, n1);
    loss->count = (size_t)N;

    sim_model_take(dacts, &s->dres, "d residual", SIM_FP32, 3, btc);
    sim_model_take(dacts, &s->dlnf, "d ln_f out", SIM_FP32, 3, btc);
    sim_model_take(dacts, &s->dlogits, "d logits", SIM_FP32, 3, btv);
    sim_model_take(dacts, &loss->dlosses, "d losses", SIM_FP32, 1, n1);
    s->scratch_off = dacts->used;
    sim_model_take(dacts, &s->dfch_gelu, "d mlp gelu", SIM_FP32, 3, bt4c);
    sim_model_take(dacts, &s->dfch, "d mlp hidden", SIM_FP32, 3, bt4c);
    sim_model_take(dacts, &s->dln2, "d ln2 out", SIM_FP32, 3, btc);
    sim_model_take(dacts, &s->datty, "d attention out", SIM_FP32, 3, btc);
    sim_model_take(dacts, &s->dqkv, "d qkv", SIM_FP32, 3, bt3c);
    sim_model_take(dacts, &s->dln1, "d ln1 out", SIM_FP32, 3, btc);
    sim_model_take(dacts, &s->dpreatt, "d attention scores", SIM_FP32, 4, att);
    sim_model_take(dacts, &s->datt, "d attention", SIM_FP32, 4, att);
    s->scratch_n = dacts->used - s->scratch_off;
}

// nn.Linear.reset_parameters: the weight [out, in], then the bias if any.
static SimStatus init_linear(SimRank *r, SimModel *m, int w, int b, SimModelRng *rng) {
    int fan_in = (int)m->params[w].shape[1];
    SIM_CHECK(sim_model_init_uniform(r, m, w, sim_model_linear_bound(fan_in, rng), rng));
    float bound = (float)(1.0 / sqrt((double)fan_in));
    return b >= 0 ? sim_model_init_uniform(r, m, b, bound, rng) : SIM_OK;
}

static SimStatus init_layernorm(SimRank *r, SimModel *m, int w, int b) {
    SIM_CHECK(sim_model_init_const(r, m, w, 1.0f));
    return sim_model_init_const(r, m, b, 0.0f);
}

static SimStatus init_masks(SimRank *r, SimModel *m) {
    GptState *s = m->impl->kind;
    size_t T = (size_t)m->spec.ctx;
    float *tril = malloc(T * T * sizeof *tril);
    if (!tril) {
        sim_model_fail(r, "model init: out of memory for the causal mask");
        return SIM_ENOMEM;
    }
    for (size_t i = 0; i < T; i++)
        for (size_t j = 0; j < T; j++)
            tril[i * T + j] = j <= i ? 1.0f : 0.0f;
    SimStatus st = SIM_OK;
    for (int l = 0; l < m->spec.layers && st == SIM_OK; l++)
        st = sim_tensor_upload(r, &m->impl->bv[s->bp[l].mask], tril);
    free(tril);
    return st;
}

SimStatus sim_model_gpt_init(SimRank *r, SimModel *m, SimModelRng *rng) {
    GptState *s = m->impl->kind;
    SIM_CHECK(sim_model_init_normal(r, m, s->wte, 1.0f, rng));
    SIM_CHECK(sim_model_init_normal(r, m, s->wpe, 1.0f, rng));
    for (int l = 0; l < m->spec.layers; l++) {
        const GptBlockParams *p = &s->bp[l];
        SIM_CHECK(init_layernorm(r, m, p->ln1w, p->ln1b));
        SIM_CHECK(init_linear(r, m, p->qkv, -1, rng));
        SIM_CHECK(init_linear(r, m, p->proj, -1, rng));
        SIM_CHECK(init_layernorm(r, m, p->ln2w, p->ln2b));
        SIM_CHECK(init_linear(r, m, p->fcw, p->fcb, rng));
        SIM_CHECK(init_linear(r, m, p->fpw, p->fpb, rng));
    }
    SIM_CHECK(init_layernorm(r, m, s->lnfw, s->lnfb));
    SIM_CHECK(init_linear(r, m, s->head, -1, rng));
    return init_masks(r, m);
}

static SimStatus check_batch(SimRank *r, const SimModel *m, const SimBatch *b) {
    const SimModelSpec *sp = &m->spec;
    int phantom = m->impl->phantom;
    if (b->seq < 1 || b->seq > sp->ctx)
        return sim_model_fail(r, "model gpt: the batch has sequences of %d tokens (allowed: "
                              "1..%d, the model's ctx)", b->seq, sp->ctx);
    if (!phantom && (!b->tokens || !b->labels))
        return sim_model_fail(r, "model gpt: the batch has no %s (a gpt trains on token ids "
                              "and next-token targets)", b->tokens ? "targets" : "token ids");
    size_t n = (size_t)b->n * (size_t)b->seq;
    SIM_CHECK(sim_model_check_ids(r, "token", b->tokens, n, b->seq, sp->vocab, b));
    return sim_model_check_ids(r, "target", b->labels, n, b->seq, sp->vocab, b);
}

// pos_emb's first T rows (a batch may be shorter than ctx).
static SimTensor first_rows(const SimTensor *t, int T) {
    SimTensor v = *t;
    v.shape[0] = T;
    return v;
}

static SimStatus block_forward(SimRank *r, SimModel *m, int l, const SimTensor *x) {
    SimModelImpl *im = m->impl;
    GptState *s = im->kind;
    const GptBlockParams *p = &s->bp[l];
    GptBlockActs *a = &s->ba[l];
    SimTensor *pv = im->pv;
    SIM_CHECK(sim_op_layernorm_forward(r, &a->ln1, &a->ln1_mean, &a->ln1_rstd, x, &pv[p->ln1w],
                                       &pv[p->ln1b], 1e-5f));
    SIM_CHECK(sim_op_linear_forward(r, &a->qkv, &a->ln1, &pv[p->qkv], NULL, im->amp));
    SIM_CHECK(sim_op_attention_forward(r, &a->atty, &s->preatt, &a->att, &a->qkv,
                                       m->spec.heads));
    SIM_CHECK(sim_op_linear_forward(r, &a->attproj, &a->atty, &pv[p->proj], NULL, im->amp));
    SIM_CHECK(sim_op_add(r, &a->res2, x, &a->attproj));
    SIM_CHECK(sim_op_layernorm_forward(r, &a->ln2, &a->ln2_mean, &a->ln2_rstd, &a->res2,
                                       &pv[p->ln2w], &pv[p->ln2b], 1e-5f));
    SIM_CHECK(sim_op_linear_forward(r, &a->fch, &a->ln2, &pv[p->fcw], &pv[p->fcb], im->amp));
    SIM_CHECK(sim_op_act_forward(r, SIM_ACT_GELU, &a->fch_gelu, &a->fch));
    SIM_CHECK(sim_op_linear_forward(r, &a->fcproj, &a->fch_gelu, &pv[p->fpw], &pv[p->fpb],
                                    im->amp));
    return sim_op_add(r, &a->res3, &a->res2, &a->fcproj);
}

SimStatus sim_model_gpt_forward(SimRank *r, SimModel *m, const SimBatch *b, float *loss) {
    SimModelImpl *im = m->impl;
    GptState *s = im->kind;
    SIM_CHECK(check_batch(r, m, b));
    im->fwd_seq = b->seq;
    sim_model_lay_out(m, b->n, b->seq);
    SIM_CHECK(sim_tensor_upload(r, &s->tokens, b->tokens));
    SIM_CHECK(sim_tensor_upload(r, &im->loss.labels, b->labels));
    for (int i = 0; i < m->nparams; i++)
        im->used[i] = 1;
    SimTensor wpe = first_rows(&im->pv[s->wpe], b->seq);
    SIM_CHECK(sim_model_module_event(m, SIM_MODULE_PRE_FORWARD, 0));
    SIM_CHECK(sim_model_module_event(m, SIM_MODULE_PRE_FORWARD, s->mod_wte));
    SIM_CHECK(sim_model_module_event(m, SIM_MODULE_PRE_FORWARD, s->mod_wpe));
    SIM_CHECK(sim_op_embedding_forward(r, &s->x0, &s->tokens, &im->pv[s->wte], &wpe));
    SIM_CHECK(sim_model_module_event(m, SIM_MODULE_POST_FORWARD, s->mod_wte));
    SIM_CHECK(sim_model_module_event(m, SIM_MODULE_POST_FORWARD, s->mod_wpe));
    const SimTensor *x = &s->x0;
    for (int l = 0; l < m->spec.layers; l++) {
        SIM_CHECK(sim_model_module_event(m, SIM_MODULE_PRE_FORWARD, s->mod_block[l]));
        SIM_CHECK(block_forward(r, m, l, x));
        SIM_CHECK(sim_model_module_event(m, SIM_MODULE_POST_FORWARD, s->mod_block[l]));
        x = &s->ba[l].res3;
    }
    SIM_CHECK(sim_model_module_event(m, SIM_MODULE_PRE_FORWARD, s->mod_lnf));
    SIM_CHECK(sim_op_layernorm_forward(r, &s->lnf, &s->lnf_mean, &s->lnf_rstd, x,
                                       &im->pv[s->lnfw], &im->pv[s->lnfb], 1e-5f));
    SIM_CHECK(sim_model_module_event(m, SIM_MODULE_POST_FORWARD, s->mod_lnf));
    SIM_CHECK(sim_model_module_event(m, SIM_MODULE_PRE_FORWARD, s->mod_head));
    SIM_CHECK(sim_op_linear_forward(r, &s->logits, &s->lnf, &im->pv[s->head], NULL, im->amp));
    SIM_CHECK(sim_model_module_event(m, SIM_MODULE_POST_FORWARD, s->mod_head));
    SIM_CHECK(sim_model_module_event(m, SIM_MODULE_POST_FORWARD, 0));
    im->output = &s->logits;
    return sim_model_loss_forward(r, m, &s->logits, loss);
}

// One block backward. On entry dres holds the gradient of the block's output;
// on exit it holds the gradient of its input (each residual branch adds its
// part into the same buffer, after the branch has read it).
static SimStatus block_backward(SimRank *r, SimModel *m, int l, const SimTensor *x,
                                SimGradHook hook, void *arg) {
    SimModelImpl *im = m->impl;
    GptState *s = im->kind;
    const GptBlockParams *p = &s->bp[l];
    GptBlockActs *a = &s->ba[l];
    SimTensor *pv = im->pv, *gv = im->gv;
    SIM_CHECK(sim_op_linear_backward(r, &s->dfch_gelu, &gv[p->fpw], &gv[p->fpb], &s->dres,
                                     &a->fch_gelu, &pv[p->fpw], im->amp));
    sim_model_ready(m, hook, arg, p->fpb);
    sim_model_ready(m, hook, arg, p->fpw);
    SIM_CHECK(sim_op_act_backward(r, SIM_ACT_GELU, &s->dfch, &a->fch, &s->dfch_gelu));
    SIM_CHECK(sim_op_linear_backward(r, &s->dln2, &gv[p->fcw], &gv[p->fcb], &s->dfch, &a->ln2,
                                     &pv[p->fcw], im->amp));
    sim_model_ready(m, hook, arg, p->fcb);
    sim_model_ready(m, hook, arg, p->fcw);
    SIM_CHECK(sim_op_layernorm_backward(r, &s->dres, &gv[p->ln2w], &gv[p->ln2b], &s->dln2,
                                        &a->res2, &pv[p->ln2w], &a->ln2_mean, &a->ln2_rstd));
    sim_model_ready(m, hook, arg, p->ln2w);
    sim_model_ready(m, hook, arg, p->ln2b);
    SIM_CHECK(sim_op_linear_backward(r, &s->datty, &gv[p->proj], NULL, &s->dres, &a->atty,
                                     &pv[p->proj], im->amp));
    sim_model_ready(m, hook, arg, p->proj);
    SIM_CHECK(sim_op_attention_backward(r, &s->dqkv, &s->dpreatt, &s->datt, &s->datty, &a->qkv,
                                        &a->att, m->spec.heads));
    SIM_CHECK(sim_op_linear_backward(r, &s->dln1, &gv[p->qkv], NULL, &s->dqkv, &a->ln1,
                                     &pv[p->qkv], im->amp));
    sim_model_ready(m, hook, arg, p->qkv);
    SIM_CHECK(sim_op_layernorm_backward(r, &s->dres, &gv[p->ln1w], &gv[p->ln1b], &s->dln1, x,
                                        &pv[p->ln1w], &a->ln1_mean, &a->ln1_rstd));
    sim_model_ready(m, hook, arg, p->ln1w);
    sim_model_ready(m, hook, arg, p->ln1b);
    return SIM_OK;
}

SimStatus sim_model_gpt_backward(SimRank *r, SimModel *m, float dloss_scale, SimGradHook hook,
                                 void *arg) {
    SimModelImpl *im = m->impl;
    GptState *s = im->kind;
    int L = m->spec.layers;
    SIM_CHECK(sim_model_module_event(m, SIM_MODULE_PRE_BACKWARD, 0));
    SIM_CHECK(sim_model_loss_backward(r, m, &s->dlogits, dloss_scale));
    SIM_CHECK(sim_model_module_event(m, SIM_MODULE_PRE_BACKWARD, s->mod_head));
    SIM_CHECK(sim_op_linear_backward(r, &s->dlnf, &im->gv[s->head], NULL, &s->dlogits, &s->lnf,
                                     &im->pv[s->head], im->amp));
    sim_model_ready(m, hook, arg, s->head);
    SIM_CHECK(sim_model_module_event(m, SIM_MODULE_POST_BACKWARD, s->mod_head));
    const SimTensor *top = L > 0 ? &s->ba[L - 1].res3 : &s->x0;
    SIM_CHECK(sim_model_module_event(m, SIM_MODULE_PRE_BACKWARD, s->mod_lnf));
    SIM_CHECK(sim_op_layernorm_backward(r, &s->dres, &im->gv[s->lnfw], &im->gv[s->lnfb],
                                        &s->dlnf, top, &im->pv[s->lnfw], &s->lnf_mean,
                                        &s->lnf_rstd));
    sim_model_ready(m, hook, arg, s->lnfw);
    sim_model_ready(m, hook, arg, s->lnfb);
    SIM_CHECK(sim_model_module_event(m, SIM_MODULE_POST_BACKWARD, s->mod_lnf));
    for (int l = L - 1; l >= 0; l--) {
        if (l < L - 1) // the scratch still holds the block above's gradients
            SIM_CHECK(sim_op_fill(r, &im->dacts, s->scratch_off, s->scratch_n, 0.0f));
        SIM_CHECK(sim_model_module_event(m, SIM_MODULE_PRE_BACKWARD, s->mod_block[l]));
        SIM_CHECK(block_backward(r, m, l, l > 0 ? &s->ba[l - 1].res3 : &s->x0, hook, arg));
        SIM_CHECK(sim_model_module_event(m, SIM_MODULE_POST_BACKWARD, s->mod_block[l]));
    }
    SimTensor dwpe = first_rows(&im->gv[s->wpe], im->fwd_seq);
    SIM_CHECK(sim_model_module_event(m, SIM_MODULE_PRE_BACKWARD, s->mod_wpe));
    SIM_CHECK(sim_model_module_event(m, SIM_MODULE_PRE_BACKWARD, s->mod_wte));
    SIM_CHECK(sim_op_embedding_backward(r, &im->gv[s->wte], &dwpe, &s->dres, &s->tokens));
    sim_model_ready(m, hook, arg, s->wpe);
    sim_model_ready(m, hook, arg, s->wte);
    SIM_CHECK(sim_model_module_event(m, SIM_MODULE_POST_BACKWARD, s->mod_wpe));
    SIM_CHECK(sim_model_module_event(m, SIM_MODULE_POST_BACKWARD, s->mod_wte));
    return sim_model_module_event(m, SIM_MODULE_POST_BACKWARD, 0);
}
