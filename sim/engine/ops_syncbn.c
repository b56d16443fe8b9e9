// sim/engine/ops_syncbn.c: the wrappers of SyncBatchNorm's kernels (see
// kernels.h), which the model calls around its own collectives. Each checks
// shapes, runs the kernel unless phantom, and prices the op (ops_internal.h).
#include "engine/ops_internal.h"

#define F32 4.0 // bytes of an fp32 element

#define DATA(t) ((t) ? (t)->data : NULL)

SimStatus sim_op_batchnorm_stats(SimRank *r, SimTensor *stats, const SimTensor *inp) {
    SimOpsCall c;
    const SimOpsArg args[] = {
        {"stats", stats, SIM_FP32, SIM_OPS_OUT},
        {"inp", inp, SIM_FP32, 0},
    };
    SIM_CHECK(sim_ops_begin(&c, r, "batchnorm_stats", "batchnorm_stats", args, 2));
    int64_t N, C;
    SIM_CHECK(sim_ops_norm_shapes(&c, "inp", inp, NULL, NULL, NULL, NULL, NULL, NULL, &N, &C));
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
    SIM_CHECK(sim_ops_numel(&c, "invstd", invstd, C));
    SIM_CHECK(sim_ops_numel_opt(&c, "running_mean", running_mean, C));
    SIM_CHECK(sim_ops_numel_opt(&c, "running_var", running_var, C));
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
    SIM_CHECK(sim_ops_norm_shapes(&c, "inp", inp, "out", out, "weight", weight, "bias", bias,
                                  &N, &C));
    SIM_CHECK(sim_ops_norm_shapes(&c, "inp", inp, NULL, NULL, "mean", mean, "invstd", invstd,
                                  &N, &C));
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
    SIM_CHECK(sim_ops_norm_shapes(&c, "inp", inp, "dout", dout, "dweight", dweight, "dbias",
                                  dbias, &N, &C));
    SIM_CHECK(sim_ops_norm_shapes(&c, "inp", inp, NULL, NULL, "mean", mean, "invstd", invstd,
                                  &N, &C));
    SIM_CHECK(sim_ops_numel(&c, "sums", sums, 2 * C));
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
    SIM_CHECK(sim_ops_norm_shapes(&c, "inp", inp, "dout", dout, "weight", weight, NULL, NULL,
                                  &N, &C));
    SIM_CHECK(sim_ops_norm_shapes(&c, "inp", inp, "dinp", dinp, "mean", mean, "invstd", invstd,
                                  &N, &C));
    SIM_CHECK(sim_ops_numel(&c, "sums", sums, 2 * C));
    SIM_CHECK(sim_ops_numel(&c, "count", count, 1));
    SimStatus st = SIM_OK;
    SIM_OPS_RUN(&c, st, batchnorm_backward_elemt, dinp->data, dout->data, inp->data,
                DATA(weight), mean->data, invstd->data, sums->data, count->data, (int)N, (int)C);
    double nc = (double)N * C;
    return sim_ops_end(&c, st, 8 * nc, F32 * (4 * nc + 6.0 * C), 0, SIM_FP32);
}
