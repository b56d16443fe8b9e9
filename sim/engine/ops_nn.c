// sim/engine/ops_nn.c: the wrappers of the dense layers: Linear, the activations,
// LayerNorm and BatchNorm1d (forward and backward). Each checks shapes,
// runs the kernel unless phantom, and prices the op (see ops_internal.h).
//
// FLOP counts: a multiply-add is 2 FLOPs; element-wise ops count their
// arithmetic roughly (an erf or tanh as a handful). Bytes are what the op
// must read and write at least once; gradients that are accumulated into
// are read and written.
#include "engine/ops_internal.h"

#define F32 4.0 // bytes of an fp32 element

static int amp_valid(SimDtype amp) {
    return amp == SIM_FP32 || amp == SIM_FP16 || amp == SIM_BF16;
}

// ----------------------------------------------------------------------------
// Linear

// N, C, OC of a linear op from inp (or dout) and weight, checking that out
// (or dinp/dout) agrees.
static SimStatus linear_shapes(const SimOpsCall *c, const char *xn, const SimTensor *x,
                               const char *yn, const SimTensor *y, const SimTensor *weight,
                               const SimTensor *bias, int64_t *N, int64_t *C, int64_t *OC) {
    SIM_CHECK(sim_ops_ndim(c, "weight", weight, 2));
    int64_t yN, yOC;
    sim_ops_rows(x, N, C);
    *OC = weight->shape[0];
    if (weight->shape[1] != *C)
        return sim_ops_disagree(c, xn, x, "weight", weight, "C");
    if (bias && (bias->ndim != 1 || bias->shape[0] != *OC))
        return sim_ops_disagree(c, "bias", bias, "weight", weight, "OC");
    sim_ops_rows(y, &yN, &yOC);
    if (yN != *N)
        return sim_ops_disagree(c, yn, y, xn, x, "N");
    if (yOC != *OC)
        return sim_ops_disagree(c, yn, y, "weight", weight, "OC");
    int64_t sizes[3] = {*N, *C, *OC};
    return sim_ops_int_sizes(c, sizes, 3);
}

SimStatus sim_op_linear_forward(SimRank *r, SimTensor *out, const SimTensor *inp,
                                const SimTensor *weight, const SimTensor *bias, SimDtype amp) {
    SimOpsCall c;
    const SimOpsArg args[] = {
        {"out", out, SIM_FP32, SIM_OPS_OUT},
        {"inp", inp, SIM_FP32, 0},
        {"weight", weight, SIM_FP32, 0},
        {"bias", bias, SIM_FP32, SIM_OPS_OPTIONAL},
    };
    SIM_CHECK(sim_ops_begin(&c, r, "linear_forward", "linear_fwd", args, 4));
    if (!amp_valid(amp))
        return sim_ops_fail(&c, SIM_EINVAL, "amp %s; allowed: fp32, fp16, bf16",
                            sim_dtype_name(amp));
    int64_t N, C, OC;
    SIM_CHECK(linear_shapes(&c, "inp", inp, "out", out, weight, bias, &N, &C, &OC));
    SimStatus st = SIM_OK;
    SIM_OPS_RUN(&c, st, linear_forward, out->data, inp->data, weight->data,
                bias ? bias->data : NULL, (int)N, (int)C, (int)OC, amp);
    int lowp = amp != SIM_FP32;
    double esize = lowp ? 2.0 : F32;
    double flops = 2.0 * N * C * OC;
    double bytes = esize * ((double)N * C + (double)OC * C + (double)N * OC) + (bias ? F32 * OC : 0);
    // one product out[N, OC] = inp[N, C] weight^T, the bias in its epilogue
    double secs = sim_ops_price_gemm(&c, (double)N, (double)OC, (double)C, bytes, lowp);
    return sim_ops_end_priced(&c, st, flops, bytes, amp, secs);
}

// Linear backward as the kernels it runs: dinp[N, C] = dout[N, OC] weight
// (when asked for), dweight[OC, C] += dout^T inp (a product whose K is the
// N tokens), each priced by its shape with its own launch, and dbias, a
// reduction of dout over N, by its bytes. The gradients accumulate in fp32.
static double linear_backward_secs(const SimOpsCall *c, int64_t N, int64_t C, int64_t OC,
                                   int has_dinp, int has_dbias, double esize) {
    int lowp = esize < F32;
    double n = (double)N, ci = (double)C, oc = (double)OC;
    double t = sim_ops_price_gemm(c, oc, ci, n, esize * (n * oc + n * ci) + F32 * 2 * oc * ci,
                                  lowp);
    if (has_dinp)
        t += sim_ops_price_gemm(c, n, ci, oc, esize * (n * oc + oc * ci) + F32 * 2 * n * ci,
                                lowp);
    if (has_dbias)
        t += sim_ops_price(c, n * oc, esize * n * oc + F32 * 2 * oc, 0);
    return t;
}

SimStatus sim_op_linear_backward(SimRank *r, SimTensor *dinp, SimTensor *dweight,
                                 SimTensor *dbias, const SimTensor *dout, const SimTensor *inp,
                                 const SimTensor *weight, SimDtype amp) {
    SimOpsCall c;
    const SimOpsArg args[] = {
        {"dinp", dinp, SIM_FP32, SIM_OPS_OUT | SIM_OPS_OPTIONAL},
        {"dweight", dweight, SIM_FP32, SIM_OPS_OUT},
        {"dbias", dbias, SIM_FP32, SIM_OPS_OUT | SIM_OPS_OPTIONAL},
        {"dout", dout, SIM_FP32, 0},
        {"inp", inp, SIM_FP32, 0},
        {"weight", weight, SIM_FP32, 0},
    };
    SIM_CHECK(sim_ops_begin(&c, r, "linear_backward", "linear_bwd", args, 6));
    if (!amp_valid(amp))
        return sim_ops_fail(&c, SIM_EINVAL, "amp %s; allowed: fp32, fp16, bf16",
                            sim_dtype_name(amp));
    int64_t N, C, OC;
    SIM_CHECK(linear_shapes(&c, "inp", inp, "dout", dout, weight, dbias, &N, &C, &OC));
    if (!sim_tensor_same_shape(dweight, weight))
        return sim_ops_disagree(&c, "dweight", dweight, "weight", weight, "shape");
    if (dinp && !sim_tensor_same_shape(dinp, inp))
        return sim_ops_disagree(&c, "dinp", dinp, "inp", inp, "shape");
    SimStatus st = SIM_OK;
    SIM_OPS_RUN(&c, st, linear_backward, dinp ? dinp->data : NULL, dweight->data,
                dbias ? dbias->data : NULL, dout->data, inp->data, weight->data, (int)N, (int)C,
                (int)OC, amp);
    int lowp = amp != SIM_FP32;
    double esize = lowp ? 2.0 : F32;
    double mnk = (double)N * C * OC;
    double flops = 2.0 * mnk * (dinp ? 2 : 1) + (dbias ? (double)N * OC : 0);
    double bytes = esize * ((double)N * OC + (double)N * C + (double)OC * C) // dout, inp, weight
                   + F32 * 2 * ((double)OC * C + (dinp ? (double)N * C : 0) + (dbias ? OC : 0));
    double secs = linear_backward_secs(&c, N, C, OC, dinp != NULL, dbias != NULL, esize);
    return sim_ops_end_priced(&c, st, flops, bytes, amp, secs);
}

// ----------------------------------------------------------------------------
// activations

static double act_flops(SimAct act, int backward) {
    if (act == SIM_ACT_RELU)
        return 1.0;
    return backward ? 16.0 : 10.0;
}

static SimStatus act_check(const SimOpsCall *c, SimAct act) {
    if ((unsigned)act >= SIM_ACT_COUNT)
        return sim_ops_fail(c, SIM_EINVAL, "unknown activation %d", (int)act);
    return SIM_OK;
}

SimStatus sim_op_act_forward(SimRank *r, SimAct act, SimTensor *out, const SimTensor *inp) {
    SimOpsCall c;
    const SimOpsArg args[] = {
        {"out", out, SIM_FP32, SIM_OPS_OUT},
        {"inp", inp, SIM_FP32, 0},
    };
    SIM_CHECK(sim_ops_begin(&c, r, "act_forward", act == SIM_ACT_RELU ? "relu_fwd" : "gelu_fwd",
                            args, 2));
    SIM_CHECK(act_check(&c, act));
    if (sim_tensor_numel(out) != sim_tensor_numel(inp))
        return sim_ops_disagree(&c, "out", out, "inp", inp, "size");
    size_t n = sim_tensor_numel(inp);
    SimStatus st = SIM_OK;
    SIM_OPS_RUN(&c, st, act_forward, act, out->data, inp->data, n);
    return sim_ops_end(&c, st, act_flops(act, 0) * n, 2 * F32 * n, 0, SIM_FP32);
}

SimStatus sim_op_act_backward(SimRank *r, SimAct act, SimTensor *dinp, const SimTensor *inp,
                              const SimTensor *dout) {
    SimOpsCall c;
    const SimOpsArg args[] = {
        {"dinp", dinp, SIM_FP32, SIM_OPS_OUT},
        {"inp", inp, SIM_FP32, 0},
        {"dout", dout, SIM_FP32, 0},
    };
    SIM_CHECK(sim_ops_begin(&c, r, "act_backward", act == SIM_ACT_RELU ? "relu_bwd" : "gelu_bwd",
                            args, 3));
    SIM_CHECK(act_check(&c, act));
    if (sim_tensor_numel(dinp) != sim_tensor_numel(inp))
        return sim_ops_disagree(&c, "dinp", dinp, "inp", inp, "size");
    if (sim_tensor_numel(dout) != sim_tensor_numel(inp))
        return sim_ops_disagree(&c, "dout", dout, "inp", inp, "size");
    size_t n = sim_tensor_numel(inp);
    SimStatus st = SIM_OK;
    SIM_OPS_RUN(&c, st, act_backward, act, dinp->data, inp->data, dout->data, n);
    return sim_ops_end(&c, st, act_flops(act, 1) * n, 4 * F32 * n, 0, SIM_FP32);
}

// ----------------------------------------------------------------------------
// normalisation

#define DATA(t) ((t) ? (t)->data : NULL)

SimStatus sim_op_layernorm_forward(SimRank *r, SimTensor *out, SimTensor *mean, SimTensor *rstd,
                                   const SimTensor *inp, const SimTensor *weight,
                                   const SimTensor *bias, float eps) {
    SimOpsCall c;
    const SimOpsArg args[] = {
        {"out", out, SIM_FP32, SIM_OPS_OUT},
        {"mean", mean, SIM_FP32, SIM_OPS_OUT | SIM_OPS_OPTIONAL},
        {"rstd", rstd, SIM_FP32, SIM_OPS_OUT | SIM_OPS_OPTIONAL},
        {"inp", inp, SIM_FP32, 0},
        {"weight", weight, SIM_FP32, SIM_OPS_OPTIONAL},
        {"bias", bias, SIM_FP32, SIM_OPS_OPTIONAL},
    };
    SIM_CHECK(sim_ops_begin(&c, r, "layernorm_forward", "layernorm_fwd", args, 6));
    int64_t N, C;
    SIM_CHECK(sim_ops_norm_shapes(&c, "inp", inp, "out", out, "weight", weight, "bias", bias, &N, &C));
    SIM_CHECK(sim_ops_numel_opt(&c, "mean", mean, N));
    SIM_CHECK(sim_ops_numel_opt(&c, "rstd", rstd, N));
    SimStatus st = SIM_OK;
    SIM_OPS_RUN(&c, st, layernorm_forward, out->data, DATA(mean), DATA(rstd), inp->data,
                DATA(weight), DATA(bias), (int)N, (int)C, eps);
    double nc = (double)N * C;
    return sim_ops_end(&c, st, 8 * nc, F32 * (2 * nc + 2.0 * C + 2.0 * N), 0, SIM_FP32);
}

SimStatus sim_op_layernorm_backward(SimRank *r, SimTensor *dinp, SimTensor *dweight,
                                    SimTensor *dbias, const SimTensor *dout, const SimTensor *inp,
                                    const SimTensor *weight, const SimTensor *mean,
                                    const SimTensor *rstd) {
    SimOpsCall c;
    const SimOpsArg args[] = {
        {"dinp", dinp, SIM_FP32, SIM_OPS_OUT | SIM_OPS_OPTIONAL},
        {"dweight", dweight, SIM_FP32, SIM_OPS_OUT | SIM_OPS_OPTIONAL},
        {"dbias", dbias, SIM_FP32, SIM_OPS_OUT | SIM_OPS_OPTIONAL},
        {"dout", dout, SIM_FP32, 0},
        {"inp", inp, SIM_FP32, 0},
        {"weight", weight, SIM_FP32, SIM_OPS_OPTIONAL},
        {"mean", mean, SIM_FP32, 0},
        {"rstd", rstd, SIM_FP32, 0},
    };
    SIM_CHECK(sim_ops_begin(&c, r, "layernorm_backward", "layernorm_bwd", args, 8));
    int64_t N, C;
    SIM_CHECK(sim_ops_norm_shapes(&c, "inp", inp, "dout", dout, "weight", weight, "dweight", dweight, &N,
                          &C));
    SIM_CHECK(sim_ops_norm_shapes(&c, "inp", inp, "dinp", dinp, "dbias", dbias, NULL, NULL, &N, &C));
    SIM_CHECK(sim_ops_numel(&c, "mean", mean, N));
    SIM_CHECK(sim_ops_numel(&c, "rstd", rstd, N));
    SimStatus st = SIM_OK;
    SIM_OPS_RUN(&c, st, layernorm_backward, DATA(dinp), DATA(dweight), DATA(dbias), dout->data,
                inp->data, DATA(weight), mean->data, rstd->data, (int)N, (int)C);
    double nc = (double)N * C;
    return sim_ops_end(&c, st, 12 * nc, F32 * (4 * nc + 5.0 * C + 2.0 * N), 0, SIM_FP32);
}

SimStatus sim_op_batchnorm_forward(SimRank *r, SimTensor *out, SimTensor *mean, SimTensor *invstd,
                                   SimTensor *running_mean, SimTensor *running_var,
                                   const SimTensor *inp, const SimTensor *weight,
                                   const SimTensor *bias, float momentum, float eps,
                                   int training) {
    SimOpsCall c;
    const SimOpsArg args[] = {
        {"out", out, SIM_FP32, SIM_OPS_OUT},
        {"mean", mean, SIM_FP32, SIM_OPS_OUT | SIM_OPS_OPTIONAL},
        {"invstd", invstd, SIM_FP32, SIM_OPS_OUT | SIM_OPS_OPTIONAL},
        {"running_mean", running_mean, SIM_FP32, SIM_OPS_OUT | SIM_OPS_OPTIONAL},
        {"running_var", running_var, SIM_FP32, SIM_OPS_OUT | SIM_OPS_OPTIONAL},
        {"inp", inp, SIM_FP32, 0},
        {"weight", weight, SIM_FP32, SIM_OPS_OPTIONAL},
        {"bias", bias, SIM_FP32, SIM_OPS_OPTIONAL},
    };
    SIM_CHECK(sim_ops_begin(&c, r, "batchnorm_forward", "batchnorm_fwd", args, 8));
    int64_t N, C;
    SIM_CHECK(sim_ops_norm_shapes(&c, "inp", inp, "out", out, "weight", weight, "bias", bias, &N, &C));
    SIM_CHECK(sim_ops_numel_opt(&c, "mean", mean, C));
    SIM_CHECK(sim_ops_numel_opt(&c, "invstd", invstd, C));
    SIM_CHECK(sim_ops_numel_opt(&c, "running_mean", running_mean, C));
    SIM_CHECK(sim_ops_numel_opt(&c, "running_var", running_var, C));
    if ((running_mean == NULL) != (running_var == NULL))
        return sim_ops_fail(&c, SIM_EINVAL, "running_mean and running_var go together");
    char shape[96];
    if (training && N < 2 && C > 0)
        return sim_ops_fail(&c, SIM_EINVAL,
                            "expected more than 1 value per channel when training, got inp %s",
                            sim_tensor_shape_str(inp, shape, sizeof shape));
    if (!training && running_mean == NULL)
        return sim_ops_fail(&c, SIM_EINVAL, "eval mode needs running_mean and running_var");
    SimStatus st = SIM_OK;
    SIM_OPS_RUN(&c, st, batchnorm_forward, out->data, DATA(mean), DATA(invstd),
                DATA(running_mean), DATA(running_var), inp->data, DATA(weight), DATA(bias),
                (int)N, (int)C, momentum, eps, training);
    double nc = (double)N * C;
    // training reads the input twice more (mean, then variance)
    return sim_ops_end(&c, st, (training ? 8 : 4) * nc,
                       F32 * ((training ? 4 : 2) * nc + 8.0 * C), 0, SIM_FP32);
}

SimStatus sim_op_batchnorm_backward(SimRank *r, SimTensor *dinp, SimTensor *dweight,
                                    SimTensor *dbias, const SimTensor *dout, const SimTensor *inp,
                                    const SimTensor *weight, const SimTensor *mean,
                                    const SimTensor *invstd) {
    SimOpsCall c;
    const SimOpsArg args[] = {
        {"dinp", dinp, SIM_FP32, SIM_OPS_OUT | SIM_OPS_OPTIONAL},
        {"dweight", dweight, SIM_FP32, SIM_OPS_OUT | SIM_OPS_OPTIONAL},
        {"dbias", dbias, SIM_FP32, SIM_OPS_OUT | SIM_OPS_OPTIONAL},
        {"dout", dout, SIM_FP32, 0},
        {"inp", inp, SIM_FP32, 0},
        {"weight", weight, SIM_FP32, SIM_OPS_OPTIONAL},
        {"mean", mean, SIM_FP32, 0},
        {"invstd", invstd, SIM_FP32, 0},
    };
    SIM_CHECK(sim_ops_begin(&c, r, "batchnorm_backward", "batchnorm_bwd", args, 8));
    int64_t N, C;
    SIM_CHECK(sim_ops_norm_shapes(&c, "inp", inp, "dout", dout, "weight", weight, "dweight", dweight, &N,
                          &C));
    SIM_CHECK(sim_ops_norm_shapes(&c, "inp", inp, "dinp", dinp, "dbias", dbias, "mean", mean, &N, &C));
    SIM_CHECK(sim_ops_numel(&c, "invstd", invstd, C));
    SimStatus st = SIM_OK;
    SIM_OPS_RUN(&c, st, batchnorm_backward, DATA(dinp), DATA(dweight), DATA(dbias), dout->data,
                inp->data, DATA(weight), mean->data, invstd->data, (int)N, (int)C);
    double nc = (double)N * C;
    return sim_ops_end(&c, st, 10 * nc, F32 * (5 * nc + 7.0 * C), 0, SIM_FP32);
}
