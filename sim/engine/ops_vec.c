// sim/engine/ops_vec.c: the wrappers of the flat-vector ops (residual add, axpy,
// scale, fill, sum of squares, inf/NaN check, dtype cast) and of the
// optimizer steps. Ranges [off, off+n) address flat fp32 tensors such as the
// model's parameter and gradient buffers, so a strategy can work on one
// bucket or one shard of them.
#include "engine/ops_internal.h"

#define F32 4.0 // bytes of an fp32 element

SimStatus sim_op_add(SimRank *r, SimTensor *out, const SimTensor *a, const SimTensor *b) {
    SimOpsCall c;
    const SimOpsArg args[] = {
        {"out", out, SIM_FP32, SIM_OPS_OUT},
        {"a", a, SIM_FP32, 0},
        {"b", b, SIM_FP32, 0},
    };
    SIM_CHECK(sim_ops_begin(&c, r, "add", "add", args, 3));
    size_t n = sim_tensor_numel(out);
    if (sim_tensor_numel(a) != n)
        return sim_ops_disagree(&c, "a", a, "out", out, "size");
    if (sim_tensor_numel(b) != n)
        return sim_ops_disagree(&c, "b", b, "out", out, "size");
    SimStatus st = SIM_OK;
    SIM_OPS_RUN(&c, st, add, out->data, a->data, b->data, n);
    return sim_ops_end(&c, st, (double)n, 3 * F32 * n, 0, SIM_FP32);
}

SimStatus sim_op_axpy(SimRank *r, SimTensor *y, float alpha, const SimTensor *x) {
    SimOpsCall c;
    const SimOpsArg args[] = {
        {"y", y, SIM_FP32, SIM_OPS_OUT},
        {"x", x, SIM_FP32, 0},
    };
    SIM_CHECK(sim_ops_begin(&c, r, "axpy", "axpy", args, 2));
    size_t n = sim_tensor_numel(y);
    if (sim_tensor_numel(x) != n)
        return sim_ops_disagree(&c, "x", x, "y", y, "size");
    SimStatus st = SIM_OK;
    SIM_OPS_RUN(&c, st, axpy, y->data, alpha, x->data, n);
    return sim_ops_end(&c, st, 2.0 * n, 3 * F32 * n, 0, SIM_FP32);
}

// The first element of the range [off, ...) of a flat fp32 tensor.
static float *at(const SimTensor *t, size_t off) {
    return t && t->data ? (float *)t->data + off : NULL;
}

SimStatus sim_op_scale(SimRank *r, SimTensor *x, size_t off, size_t n, float alpha) {
    SimOpsCall c;
    const SimOpsArg args[] = {{"x", x, SIM_FP32, SIM_OPS_OUT}};
    SIM_CHECK(sim_ops_begin(&c, r, "scale", "scale", args, 1));
    SIM_CHECK(sim_ops_range(&c, "x", x, off, n, &n));
    SimStatus st = SIM_OK;
    SIM_OPS_RUN(&c, st, scale, at(x, off), alpha, n);
    return sim_ops_end(&c, st, (double)n, 2 * F32 * n, 0, SIM_FP32);
}

SimStatus sim_op_fill(SimRank *r, SimTensor *x, size_t off, size_t n, float value) {
    SimOpsCall c;
    const SimOpsArg args[] = {{"x", x, SIM_FP32, SIM_OPS_OUT}};
    SIM_CHECK(sim_ops_begin(&c, r, "fill", "fill", args, 1));
    SIM_CHECK(sim_ops_range(&c, "x", x, off, n, &n));
    SimStatus st = SIM_OK;
    SIM_OPS_RUN(&c, st, fill, at(x, off), value, n);
    return sim_ops_end(&c, st, 0.0, F32 * n, 0, SIM_FP32);
}

// sumsq and nonfinite write a host scalar: the tensor they read decides
// phantom mode, which gives 0.
SimStatus sim_op_sumsq(SimRank *r, const SimTensor *x, size_t off, size_t n, double *out) {
    SimOpsCall c;
    const SimOpsArg args[] = {{"x", x, SIM_FP32, SIM_OPS_OUT}};
    SIM_CHECK(sim_ops_begin(&c, r, "sumsq", "sumsq", args, 1));
    SIM_CHECK(sim_ops_range(&c, "x", x, off, n, &n));
    *out = 0.0;
    SimStatus st = SIM_OK;
    SIM_OPS_RUN(&c, st, sumsq, out, at(x, off), n);
    return sim_ops_end(&c, st, 2.0 * n, F32 * n, 0, SIM_FP32);
}

SimStatus sim_op_nonfinite(SimRank *r, const SimTensor *x, size_t off, size_t n, int *out) {
    SimOpsCall c;
    const SimOpsArg args[] = {{"x", x, SIM_FP32, SIM_OPS_OUT}};
    SIM_CHECK(sim_ops_begin(&c, r, "nonfinite", "nonfinite", args, 1));
    SIM_CHECK(sim_ops_range(&c, "x", x, off, n, &n));
    *out = 0;
    SimStatus st = SIM_OK;
    SIM_OPS_RUN(&c, st, nonfinite, out, at(x, off), n);
    return sim_ops_end(&c, st, (double)n, F32 * n, 0, SIM_FP32);
}

SimStatus sim_op_cast(SimRank *r, SimTensor *dst, const SimTensor *src) {
    SimOpsCall c;
    if (dst == NULL || src == NULL) {
        c.r = r, c.op = "cast";
        return sim_ops_fail(&c, SIM_EINVAL, "%s is missing", dst ? "src" : "dst");
    }
    // dtypes are free here: cast checks them against each other
    const SimOpsArg args[] = {
        {"dst", dst, dst->dtype, SIM_OPS_OUT},
        {"src", src, src->dtype, 0},
    };
    SIM_CHECK(sim_ops_begin(&c, r, "cast", "cast", args, 2));
    if (sim_dtype_size(dst->dtype) == 0 || sim_dtype_size(src->dtype) == 0)
        return sim_ops_fail(&c, SIM_EINVAL, "invalid dtype");
    size_t n = sim_tensor_numel(dst);
    if (sim_tensor_numel(src) != n)
        return sim_ops_disagree(&c, "dst", dst, "src", src, "size");
    if (!c.phantom && dst->data == src->data && dst->dtype != src->dtype)
        return sim_ops_fail(&c, SIM_EINVAL, "dst and src share storage but not the dtype");
    SimStatus st = SIM_OK;
    SIM_OPS_RUN(&c, st, cast, dst->data, dst->dtype, src->data, src->dtype, n);
    double bytes = (double)n * (double)(sim_dtype_size(dst->dtype) + sim_dtype_size(src->dtype));
    return sim_ops_end(&c, st, (double)n, bytes, 0, dst->dtype);
}

// ----------------------------------------------------------------------------
// optimizers

// Checks that every given tensor has p's number of elements and storage of
// its own (the kernels update them in one pass and may assume they do not
// overlap), and the range.
static SimStatus optim_layout(const SimOpsCall *c, const SimTensor *p, const char *const *names,
                              const SimTensor *const *t, int nt, size_t off, size_t *n) {
    for (int i = 0; i < nt; i++) {
        if (t[i] == NULL)
            continue;
        if (sim_tensor_numel(t[i]) != sim_tensor_numel(p))
            return sim_ops_disagree(c, names[i], t[i], "p", p, "size");
        if (c->phantom)
            continue;
        if (t[i]->data == p->data)
            return sim_ops_fail(c, SIM_EINVAL, "p and %s share storage", names[i]);
        for (int j = 0; j < i; j++)
            if (t[j] && t[j]->data == t[i]->data)
                return sim_ops_fail(c, SIM_EINVAL, "%s and %s share storage", names[j],
                                    names[i]);
    }
    return sim_ops_range(c, "p", p, off, *n, n);
}

SimStatus sim_op_sgd_step(SimRank *r, SimTensor *p, const SimTensor *g, SimTensor *buf,
                          size_t off, size_t n, const SimSgdHyper *h) {
    SimOpsCall c;
    int momentum = h->momentum != 0.0;
    const SimOpsArg args[] = {
        {"p", p, SIM_FP32, SIM_OPS_OUT},
        {"momentum_buf", momentum ? buf : NULL, SIM_FP32,
         SIM_OPS_OUT | (momentum ? 0 : SIM_OPS_OPTIONAL)},
        {"g", g, SIM_FP32, 0},
    };
    SIM_CHECK(sim_ops_begin(&c, r, "sgd_step", "sgd_step", args, 3));
    const char *names[2] = {"g", "momentum_buf"};
    const SimTensor *others[2] = {g, momentum ? buf : NULL};
    SIM_CHECK(optim_layout(&c, p, names, others, 2, off, &n));
    SimStatus st = SIM_OK;
    SIM_OPS_RUN(&c, st, sgd_step, at(p, off), at(g, off), momentum ? at(buf, off) : NULL, n, h);
    // read g; read and write p and the momentum buffer
    double bytes = F32 * n * (3.0 + (momentum ? 2.0 : 0.0));
    return sim_ops_end(&c, st, (momentum ? 6.0 : 2.0) * n, bytes, 0, SIM_FP32);
}

SimStatus sim_op_adam_step(SimRank *r, SimTensor *p, const SimTensor *g, SimTensor *m,
                           SimTensor *v, size_t off, size_t n, const SimAdamHyper *h) {
    SimOpsCall c;
    const SimOpsArg args[] = {
        {"p", p, SIM_FP32, SIM_OPS_OUT},
        {"m", m, SIM_FP32, SIM_OPS_OUT},
        {"v", v, SIM_FP32, SIM_OPS_OUT},
        {"g", g, SIM_FP32, 0},
    };
    SIM_CHECK(sim_ops_begin(&c, r, "adam_step", "adam_step", args, 4));
    if (h->step < 1)
        return sim_ops_fail(&c, SIM_EINVAL, "step %lld; the first step is 1",
                            (long long)h->step);
    const char *names[3] = {"g", "m", "v"};
    const SimTensor *others[3] = {g, m, v};
    SIM_CHECK(optim_layout(&c, p, names, others, 3, off, &n));
    SimStatus st = SIM_OK;
    SIM_OPS_RUN(&c, st, adam_step, at(p, off), at(g, off), at(m, off), at(v, off), n, h);
    // read g; read and write p, m and v
    return sim_ops_end(&c, st, 14.0 * n, F32 * n * 7.0, 0, SIM_FP32);
}
