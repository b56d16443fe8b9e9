// sim/engine/ops_tokens.c: the wrappers of the sequence-model ops and the loss:
// token + position embedding, causal self-attention, and softmax
// cross-entropy (forward and backward). Token ids and class targets are
// checked against the vocabulary before any kernel indexes memory with them.
#include "engine/ops_internal.h"

#define F32 4.0 // bytes of an fp32 element
#define DATA(t) ((t) ? (t)->data : NULL)

// ----------------------------------------------------------------------------
// embedding

// B, T from idx [B, T]; C and the table sizes from wte [V, C] and wpe
// [maxT, C] (either may be NULL in backward, not both); x [B, T, C] is the
// output or its gradient.
static SimStatus embed_shapes(const SimOpsCall *c, const char *xn, const SimTensor *x,
                              const SimTensor *idx, const char *tn, const SimTensor *wte,
                              const char *pn, const SimTensor *wpe, int64_t *B, int64_t *T,
                              int64_t *C) {
    SIM_CHECK(sim_ops_ndim(c, "idx", idx, 2));
    *B = idx->shape[0];
    *T = idx->shape[1];
    int64_t rows;
    sim_ops_rows(x, &rows, C);
    if (rows != *B * *T)
        return sim_ops_disagree(c, xn, x, "idx", idx, "B x T");
    if (wte) {
        SIM_CHECK(sim_ops_ndim(c, tn, wte, 2));
        if (wte->shape[1] != *C)
            return sim_ops_disagree(c, xn, x, tn, wte, "C");
    }
    if (wpe) {
        SIM_CHECK(sim_ops_ndim(c, pn, wpe, 2));
        if (wpe->shape[1] != *C)
            return sim_ops_disagree(c, xn, x, pn, wpe, "C");
        if (wpe->shape[0] < *T)
            return sim_ops_fail(c, SIM_EINVAL, "idx has %lld positions but %s has %lld",
                                (long long)*T, pn, (long long)wpe->shape[0]);
    }
    int64_t sizes[3] = {*B, *T, *C};
    return sim_ops_int_sizes(c, sizes, 3);
}

SimStatus sim_op_embedding_forward(SimRank *r, SimTensor *out, const SimTensor *idx,
                                   const SimTensor *wte, const SimTensor *wpe) {
    SimOpsCall c;
    const SimOpsArg args[] = {
        {"out", out, SIM_FP32, SIM_OPS_OUT},
        {"idx", idx, SIM_INT32, 0},
        {"wte", wte, SIM_FP32, 0},
        {"wpe", wpe, SIM_FP32, 0},
    };
    SIM_CHECK(sim_ops_begin(&c, r, "embedding_forward", "embedding_fwd", args, 4));
    int64_t B, T, C;
    SIM_CHECK(embed_shapes(&c, "out", out, idx, "wte", wte, "wpe", wpe, &B, &T, &C));
    SIM_CHECK(sim_ops_check_ids(&c, "idx", idx, (size_t)(B * T), wte->shape[0]));
    SimStatus st = SIM_OK;
    SIM_OPS_RUN(&c, st, embedding_forward, out->data, idx->data, wte->data, wpe->data, (int)B,
                (int)T, (int)C);
    double btc = (double)B * T * C;
    return sim_ops_end(&c, st, btc, F32 * (3 * btc + (double)B * T), 0, SIM_FP32);
}

SimStatus sim_op_embedding_backward(SimRank *r, SimTensor *dwte, SimTensor *dwpe,
                                    const SimTensor *dout, const SimTensor *idx) {
    SimOpsCall c;
    const SimOpsArg args[] = {
        {"dwte", dwte, SIM_FP32, SIM_OPS_OUT | SIM_OPS_OPTIONAL},
        {"dwpe", dwpe, SIM_FP32, SIM_OPS_OUT | SIM_OPS_OPTIONAL},
        {"dout", dout, SIM_FP32, 0},
        {"idx", idx, SIM_INT32, 0},
    };
    SIM_CHECK(sim_ops_begin(&c, r, "embedding_backward", "embedding_bwd", args, 4));
    int64_t B, T, C;
    SIM_CHECK(embed_shapes(&c, "dout", dout, idx, "dwte", dwte, "dwpe", dwpe, &B, &T, &C));
    if (dwte)
        SIM_CHECK(sim_ops_check_ids(&c, "idx", idx, (size_t)(B * T), dwte->shape[0]));
    SimStatus st = SIM_OK;
    SIM_OPS_RUN(&c, st, embedding_backward, DATA(dwte), DATA(dwpe), dout->data, idx->data,
                (int)B, (int)T, (int)C);
    double btc = (double)B * T * C;
    return sim_ops_end(&c, st, 2 * btc, F32 * (5 * btc + (double)B * T), 0, SIM_FP32);
}

// ----------------------------------------------------------------------------
// attention

// B, T, C, NH from qkv [B, T, 3C] and heads; checks x [B, T, C] and the
// attention maps [B, NH, T, T] (may be NULL).
static SimStatus attn_shapes(const SimOpsCall *c, const SimTensor *qkv, int heads,
                             const char *xn, const SimTensor *x, const char *an,
                             const SimTensor *a, const char *bn, const SimTensor *b, int64_t *B,
                             int64_t *T, int64_t *C) {
    SIM_CHECK(sim_ops_ndim(c, "qkv", qkv, 3));
    char s[96];
    *B = qkv->shape[0];
    *T = qkv->shape[1];
    if (qkv->shape[2] % 3 != 0)
        return sim_ops_fail(c, SIM_EINVAL, "qkv %s: the last dimension is not 3 x C",
                            sim_tensor_shape_str(qkv, s, sizeof s));
    *C = qkv->shape[2] / 3;
    if (heads <= 0 || *C % heads != 0)
        return sim_ops_fail(c, SIM_EINVAL, "%d heads do not divide C = %lld of qkv %s", heads,
                            (long long)*C, sim_tensor_shape_str(qkv, s, sizeof s));
    int64_t rows, xc;
    sim_ops_rows(x, &rows, &xc);
    if (rows != *B * *T || xc != *C)
        return sim_ops_disagree(c, xn, x, "qkv", qkv, "[B, T, C]");
    int64_t maps = *B * heads * *T * *T;
    if (a)
        SIM_CHECK(sim_ops_numel(c, an, a, maps));
    if (b)
        SIM_CHECK(sim_ops_numel(c, bn, b, maps));
    int64_t sizes[4] = {*B, *T, *C, 3 * *C};
    return sim_ops_int_sizes(c, sizes, 4);
}

// Query-key pairs a causal attention computes: B x NH x T(T+1)/2.
static double causal_pairs(int64_t B, int64_t T, int heads) {
    return (double)B * heads * (double)T * (double)(T + 1) / 2.0;
}

SimStatus sim_op_attention_forward(SimRank *r, SimTensor *out, SimTensor *preatt, SimTensor *att,
                                   const SimTensor *qkv, int heads) {
    SimOpsCall c;
    const SimOpsArg args[] = {
        {"out", out, SIM_FP32, SIM_OPS_OUT},
        {"preatt", preatt, SIM_FP32, SIM_OPS_OUT},
        {"att", att, SIM_FP32, SIM_OPS_OUT},
        {"qkv", qkv, SIM_FP32, 0},
    };
    SIM_CHECK(sim_ops_begin(&c, r, "attention_forward", "attention_fwd", args, 4));
    int64_t B, T, C;
    SIM_CHECK(attn_shapes(&c, qkv, heads, "out", out, "preatt", preatt, "att", att, &B, &T, &C));
    SimStatus st = SIM_OK;
    SIM_OPS_RUN(&c, st, attention_forward, out->data, preatt->data, att->data, qkv->data, (int)B,
                (int)T, (int)C, heads);
    double pairs = causal_pairs(B, T, heads), hs = (double)C / heads;
    double btc = (double)B * T * C, maps = (double)B * heads * T * T;
    // q.k and att.v: 2 hs FLOPs each per pair; the softmax ~5 per pair
    return sim_ops_end(&c, st, pairs * (4 * hs + 5), F32 * (4 * btc + 2 * maps), 0, SIM_FP32);
}

SimStatus sim_op_attention_backward(SimRank *r, SimTensor *dqkv, SimTensor *dpreatt,
                                    SimTensor *datt, const SimTensor *dout, const SimTensor *qkv,
                                    const SimTensor *att, int heads) {
    SimOpsCall c;
    const SimOpsArg args[] = {
        {"dqkv", dqkv, SIM_FP32, SIM_OPS_OUT},
        {"dpreatt", dpreatt, SIM_FP32, SIM_OPS_OUT | SIM_OPS_OPTIONAL},
        {"datt", datt, SIM_FP32, SIM_OPS_OUT | SIM_OPS_OPTIONAL},
        {"dout", dout, SIM_FP32, 0},
        {"qkv", qkv, SIM_FP32, 0},
        {"att", att, SIM_FP32, 0},
    };
    SIM_CHECK(sim_ops_begin(&c, r, "attention_backward", "attention_bwd", args, 6));
    int64_t B, T, C;
    SIM_CHECK(attn_shapes(&c, qkv, heads, "dout", dout, "dpreatt", dpreatt, "datt", datt, &B, &T,
                          &C));
    SIM_CHECK(sim_ops_numel(&c, "att", att, B * heads * T * T));
    if (!sim_tensor_same_shape(dqkv, qkv))
        return sim_ops_disagree(&c, "dqkv", dqkv, "qkv", qkv, "shape");
    SimStatus st = SIM_OK;
    SIM_OPS_RUN(&c, st, attention_backward, dqkv->data, DATA(dpreatt), DATA(datt), dout->data,
                qkv->data, att->data, (int)B, (int)T, (int)C, heads);
    double pairs = causal_pairs(B, T, heads), hs = (double)C / heads;
    double btc = (double)B * T * C, maps = (double)B * heads * T * T;
    return sim_ops_end(&c, st, pairs * (8 * hs + 6), F32 * (10 * btc + 3 * maps), 0, SIM_FP32);
}

// ----------------------------------------------------------------------------
// cross-entropy

// N and V from logits [N, V]; checks x [N, V] (may be NULL), targets [N]
// and the per-row tensor [N] (may be NULL).
static SimStatus xent_shapes(const SimOpsCall *c, const char *ln, const SimTensor *logits,
                             const char *xn, const SimTensor *x, const SimTensor *targets,
                             const char *rn, const SimTensor *rows_t, int64_t *N, int64_t *V) {
    sim_ops_rows(logits, N, V);
    if (x) {
        int64_t xN, xV;
        sim_ops_rows(x, &xN, &xV);
        if (xN != *N || xV != *V)
            return sim_ops_disagree(c, xn, x, ln, logits, "[N, V]");
    }
    if ((int64_t)sim_tensor_numel(targets) != *N)
        return sim_ops_disagree(c, "targets", targets, ln, logits, "N");
    if (rows_t && (int64_t)sim_tensor_numel(rows_t) != *N)
        return sim_ops_disagree(c, rn, rows_t, ln, logits, "N");
    int64_t sizes[2] = {*N, *V};
    return sim_ops_int_sizes(c, sizes, 2);
}

SimStatus sim_op_xent_forward(SimRank *r, SimTensor *losses, SimTensor *probs,
                              const SimTensor *logits, const SimTensor *targets) {
    SimOpsCall c;
    const SimOpsArg args[] = {
        {"losses", losses, SIM_FP32, SIM_OPS_OUT},
        {"probs", probs, SIM_FP32, SIM_OPS_OUT | SIM_OPS_OPTIONAL},
        {"logits", logits, SIM_FP32, 0},
        {"targets", targets, SIM_INT32, 0},
    };
    SIM_CHECK(sim_ops_begin(&c, r, "xent_forward", "xent_fwd", args, 4));
    int64_t N, V;
    SIM_CHECK(xent_shapes(&c, "logits", logits, "probs", probs, targets, "losses", losses, &N, &V));
    SIM_CHECK(sim_ops_check_ids(&c, "targets", targets, (size_t)N, V));
    SimStatus st = SIM_OK;
    SIM_OPS_RUN(&c, st, xent_forward, losses->data, DATA(probs), logits->data, targets->data,
                (int)N, (int)V);
    double nv = (double)N * V;
    return sim_ops_end(&c, st, 5 * nv, F32 * (2 * nv + 2.0 * N), 0, SIM_FP32);
}

SimStatus sim_op_xent_backward(SimRank *r, SimTensor *dlogits, const SimTensor *probs,
                               const SimTensor *targets, const SimTensor *dlosses) {
    SimOpsCall c;
    const SimOpsArg args[] = {
        {"dlogits", dlogits, SIM_FP32, SIM_OPS_OUT},
        {"probs", probs, SIM_FP32, 0},
        {"targets", targets, SIM_INT32, 0},
        {"dlosses", dlosses, SIM_FP32, 0},
    };
    SIM_CHECK(sim_ops_begin(&c, r, "xent_backward", "xent_bwd", args, 4));
    int64_t N, V;
    SIM_CHECK(xent_shapes(&c, "probs", probs, "dlogits", dlogits, targets, "dlosses", dlosses, &N,
                          &V));
    SIM_CHECK(sim_ops_check_ids(&c, "targets", targets, (size_t)N, V));
    SimStatus st = SIM_OK;
    SIM_OPS_RUN(&c, st, xent_backward, dlogits->data, probs->data, targets->data, dlosses->data,
                (int)N, (int)V);
    double nv = (double)N * V;
    return sim_ops_end(&c, st, 3 * nv, F32 * (3 * nv + 2.0 * N), 0, SIM_FP32);
}
