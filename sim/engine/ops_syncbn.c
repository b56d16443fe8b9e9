// sim/engine/ops_syncbn.c: the wrappers of SyncBatchNorm's kernels (see
// kernels.h), which the model calls around its own collectives. Each checks
// shapes, runs the kernel unless phantom, and prices the op (ops_internal.h).
#include "engine/ops_internal.h"

#define F32 4.0 // bytes of an fp32 element

// N and C of x as [N, C]; y (may be NULL) must have the same view.
static SimStatus rows_of(const SimOpsCall *c, const char *xn, const SimTensor *x,
                         const char *yn, const SimTensor *y, int64_t *N, int64_t *C) {
    sim_ops_rows(x, N, C);
    if (y) {
        int64_t yN, yC;
        sim_ops_rows(y, &yN, &yC);
        if (yN != *N || yC != *C)
            return sim_ops_disagree(c, yn, y, xn, x, "shape");
    }
    int64_t sizes[2] = {*N, *C};
    return sim_ops_int_sizes(c, sizes, 2);
}

// Fails unless every tensor of ts (NULLs skipped) has n elements.
static SimStatus numel_all(const SimOpsCall *c, const char *const *names,
                           const SimTensor *const *ts, int k, int64_t n) {
    for (int i = 0; i < k; i++)
        if (ts[i])
            SIM_CHECK(sim_ops_numel(c, names[i], ts[i], n));
    return SIM_OK;
}

#define DATA(t) ((t) ? (t)->data : NULL)

SimStatus sim_op_batchnorm_stats(SimRank *r, SimTensor *stats, const SimTensor *inp) {
    SimOpsCall c;
    const SimOpsArg args[] = {
        {"stats", stats, SIM_FP32, SIM_OPS_OUT},
        {"inp", inp, SIM_FP32, 0},
    };
    SIM_CHECK(sim_ops_begin(&c, r, "batchnorm_stats", "batchnorm_stats", args, 2));
    int64_t N, C;
    SIM_CHECK(rows_of(&c, "inp", inp, NULL, NULL, &N, &C));
    SIM_CHECK(sim_ops_numel(&c, "stats", stats, 2 * C + 1));
    SimStatus st = SIM_OK;
    SIM_OPS_RUN(&c, st, batchnorm_stats, stats->data, inp->data, (int)N, (int)C);
    double nc = (double)N * C;
    return sim_ops_end(&c, st, 4 * nc, F32 * (2 * nc + 2.0 * C + 1), 0, SIM_FP32);
}

SimStatus sim_op_batchnorm_gather_stats(SimRank *r, SimTensor *mean, SimTensor *invstd,
                                        SimTensor *running_mean, SimTensor *running_var,
                                        SimTensor *count, const SimTensor *all, float momentum,
                                        float eps) {
    SimOpsCall c;
    const SimOpsArg args[] = {
        {"mean", mean, SIM_FP32, SIM_OPS_OUT},
        {"invstd", invstd, SIM_FP32, SIM_OPS_OUT},
        {"running_mean", running_mean, SIM_FP32, SIM_OPS_OUT | SIM_OPS_OPTIONAL},
        {"running_var", running_var, SIM_FP32, SIM_OPS_OUT | SIM_OPS_OPTIONAL},
        {"count", count, SIM_FP32, SIM_OPS_OUT},
        {"all", all, SIM_FP32, 0},
    };
    SIM_CHECK(sim_ops_begin(&c, r, "batchnorm_gather_stats", "batchnorm_gather", args, 6));
    int64_t R, row;
    sim_ops_rows(all, &R, &row);
    int64_t C = (int64_t)sim_tensor_numel(mean);
    if (row != 2 * C + 1)
        return sim_ops_disagree(&c, "all", all, "mean", mean, "2C+1");
    const char *names[] = {"invstd", "running_mean", "running_var"};
    const SimTensor *ts[] = {invstd, running_mean, running_var};
    SIM_CHECK(numel_all(&c, names, ts, 3, C));
    SIM_CHECK(sim_ops_numel(&c, "count", count, 1));
    if ((running_mean == NULL) != (running_var == NULL))
        return sim_ops_fail(&c, SIM_EINVAL, "running_mean and running_var go together");
    int64_t sizes[2] = {R, row};
    SIM_CHECK(sim_ops_int_sizes(&c, sizes, 2));
    SimStatus st = SIM_OK;
    SIM_OPS_RUN(&c, st, batchnorm_gather_stats, mean->data, invstd->data, DATA(running_mean),
                DATA(running_var), count->data, all->data, (int)R, (int)C, momentum, eps);
    double rc = (double)R * C;
    return sim_ops_end(&c, st, 6 * rc, F32 * (rc * 2 + 6.0 * C), 0, SIM_FP32);
}

SimStatus sim_op_batchnorm_elemt(SimRank *r, SimTensor *out, const SimTensor *inp,
                                 const SimTensor *mean, const SimTensor *invstd,
                                 const SimTensor *weight, const SimTensor *bias) {
    SimOpsCall c;
    const SimOpsArg args[] = {
        {"out", out, SIM_FP32, SIM_OPS_OUT},
        {"inp", inp, SIM_FP32, 0},
        {"mean", mean, SIM_FP32, 0},
        {"invstd", invstd, SIM_FP32, 0},
        {"weight", weight, SIM_FP32, SIM_OPS_OPTIONAL},
        {"bias", bias, SIM_FP32, SIM_OPS_OPTIONAL},
    };
    SIM_CHECK(sim_ops_begin(&c, r, "batchnorm_elemt", "batchnorm_elemt", args, 6));
    int64_t N, C;
    SIM_CHECK(rows_of(&c, "inp", inp, "out", out, &N, &C));
    const char *names[] = {"mean", "invstd", "weight", "bias"};
    const SimTensor *ts[] = {mean, invstd, weight, bias};
    SIM_CHECK(numel_all(&c, names, ts, 4, C));
    SimStatus st = SIM_OK;
    SIM_OPS_RUN(&c, st, batchnorm_elemt, out->data, inp->data, mean->data, invstd->data,
                DATA(weight), DATA(bias), (int)N, (int)C);
    double nc = (double)N * C;
    return sim_ops_end(&c, st, 4 * nc, F32 * (2 * nc + 4.0 * C), 0, SIM_FP32);
}

SimStatus sim_op_batchnorm_backward_reduce(SimRank *r, SimTensor *sums, SimTensor *dweight,
                                           SimTensor *dbias, const SimTensor *dout,
                                           const SimTensor *inp, const SimTensor *mean,
                                           const SimTensor *invstd) {
    SimOpsCall c;
    const SimOpsArg args[] = {
        {"sums", sums, SIM_FP32, SIM_OPS_OUT},
        {"dweight", dweight, SIM_FP32, SIM_OPS_OUT | SIM_OPS_OPTIONAL},
        {"dbias", dbias, SIM_FP32, SIM_OPS_OUT | SIM_OPS_OPTIONAL},
        {"dout", dout, SIM_FP32, 0},
        {"inp", inp, SIM_FP32, 0},
        {"mean", mean, SIM_FP32, 0},
        {"invstd", invstd, SIM_FP32, 0},
    };
    SIM_CHECK(sim_ops_begin(&c, r, "batchnorm_backward_reduce", "batchnorm_bwd_reduce", args,
                            7));
    int64_t N, C;
    SIM_CHECK(rows_of(&c, "inp", inp, "dout", dout, &N, &C));
    SIM_CHECK(sim_ops_numel(&c, "sums", sums, 2 * C));
    const char *names[] = {"dweight", "dbias", "mean", "invstd"};
    const SimTensor *ts[] = {dweight, dbias, mean, invstd};
    SIM_CHECK(numel_all(&c, names, ts, 4, C));
    SimStatus st = SIM_OK;
    SIM_OPS_RUN(&c, st, batchnorm_backward_reduce, sums->data, DATA(dweight), DATA(dbias),
                dout->data, inp->data, mean->data, invstd->data, (int)N, (int)C);
    double nc = (double)N * C;
    return sim_ops_end(&c, st, 5 * nc, F32 * (2 * nc + 8.0 * C), 0, SIM_FP32);
}

SimStatus sim_op_batchnorm_backward_elemt(SimRank *r, SimTensor *dinp, const SimTensor *dout,
                                          const SimTensor *inp, const SimTensor *weight,
                                          const SimTensor *mean, const SimTensor *invstd,
                                          const SimTensor *sums, const SimTensor *count) {
    SimOpsCall c;
    const SimOpsArg args[] = {
        {"dinp", dinp, SIM_FP32, SIM_OPS_OUT},
        {"dout", dout, SIM_FP32, 0},
        {"inp", inp, SIM_FP32, 0},
        {"weight", weight, SIM_FP32, SIM_OPS_OPTIONAL},
        {"mean", mean, SIM_FP32, 0},
        {"invstd", invstd, SIM_FP32, 0},
        {"sums", sums, SIM_FP32, 0},
        {"count", count, SIM_FP32, 0},
    };
    SIM_CHECK(sim_ops_begin(&c, r, "batchnorm_backward_elemt", "batchnorm_bwd_elemt", args, 8));
    int64_t N, C;
    SIM_CHECK(rows_of(&c, "inp", inp, "dout", dout, &N, &C));
    SIM_CHECK(rows_of(&c, "inp", inp, "dinp", dinp, &N, &C));
    const char *names[] = {"weight", "mean", "invstd"};
    const SimTensor *ts[] = {weight, mean, invstd};
    SIM_CHECK(numel_all(&c, names, ts, 3, C));
    SIM_CHECK(sim_ops_numel(&c, "sums", sums, 2 * C));
    SIM_CHECK(sim_ops_numel(&c, "count", count, 1));
    SimStatus st = SIM_OK;
    SIM_OPS_RUN(&c, st, batchnorm_backward_elemt, dinp->data, dout->data, inp->data,
                DATA(weight), mean->data, invstd->data, sums->data, count->data, (int)N, (int)C);
    double nc = (double)N * C;
    return sim_ops_end(&c, st, 8 * nc, F32 * (4 * nc + 6.0 * C), 0, SIM_FP32);
}
