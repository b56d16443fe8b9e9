// tests/test_optim_ops.c: the optimizer family on a one-rank CPU world:
// steps checked against values worked out by hand, parameters without a
// gradient (torch's grad = None), the checkpoint views, gradient clipping
// with finite and non-finite norms, a resume from the checkpoint views, the
// loss scaler's unscale / skip / update cycle and its misuse errors, phantom
// tensors, and the underflow that the scaler exists for: a gradient of 1e-8
// through an fp16 matrix product is 0 unscaled and survives when the loss is
// scaled by 65536 (and needs no scaling in bf16).
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "engine/ops.h"
#include "model/grad_scaler.h"
#include "model/optim.h"
#include "test_world.h"

// Two parameters: a [2, 2] weight and a [2] bias, back to back (6 floats).
static SimParamInfo info[2] = {
    {"0.weight", 2, {2, 2}, 0, 4},
    {"0.bias", 1, {2}, 4, 2},
};

typedef struct {
    SimTensor param, grad;
} Bufs;

static SimStatus bufs_init(SimRank *r, Bufs *b, int n, int phantom) {
    int64_t shape[1] = {n};
    sim_tensor_init(&b->param, "param", SIM_FP32, 1, shape);
    sim_tensor_init(&b->grad, "grad", SIM_FP32, 1, shape);
    SimStatus st = sim_tensor_alloc(r, &b->param, phantom);
    return st == SIM_OK ? sim_tensor_alloc(r, &b->grad, phantom) : st;
}

static void bufs_free(SimRank *r, Bufs *b) {
    sim_tensor_free(r, &b->grad);
    sim_tensor_free(r, &b->param);
}

static SimOptimOptions sgd(double lr, double momentum, double wd) {
    SimOptimOptions o;
    char err[200];
    sim_optim_options_default(&o);
    o.lr = lr;
    o.momentum = momentum;
    o.weight_decay = wd;
    sim_optim_options_validate(&o, err, sizeof err);
    return o;
}

// SGD with momentum 0.9, lr 0.1, on p = 1 with g = 0.5 twice:
// step 1: buf = g = 0.5, p = 1 - 0.1*0.5 = 0.95;
// step 2: buf = 0.9*0.5 + 0.5 = 0.95, p = 0.95 - 0.095 = 0.855.
// The bias (no gradient on step 1, torch's grad None) is untouched by step 1
// even with weight decay, and starts its own buffer on step 2.
static int sgd_by_hand(SimRank *r) {
    Bufs b;
    SimOptim o;
    float p[6] = {1, 1, 1, 1, 1, 1}, g[6] = {0.5f, 0.5f, 0.5f, 0.5f, 0.5f, 0.5f}, out[6];
    const uint8_t only_weight[2] = {1, 0};
    SimOptimOptions opt = sgd(0.1, 0.9, 0.0);
    CHECK_EQ_INT(bufs_init(r, &b, 6, 0), SIM_OK);
    CHECK_EQ_INT(sim_tensor_upload(r, &b.param, p), SIM_OK);
    CHECK_EQ_INT(sim_tensor_upload(r, &b.grad, g), SIM_OK);
    CHECK_EQ_INT(sim_optim_init(&o, r, &opt, &b.param, &b.grad, info, 2), SIM_OK);
    CHECK_EQ_INT(o.nstate, 1);
    CHECK(strcmp(o.state_names[0], "momentum_buffer") == 0);
    SimOptimStateView v[4];
    CHECK_EQ_INT(sim_optim_state_views(&o, v, 4), 0); // no state before the first step
    CHECK_EQ_INT(sim_optim_step(&o, r, 0.1, only_weight), SIM_OK);
    CHECK_EQ_INT(sim_optim_state_views(&o, v, 4), 1);
    CHECK(strcmp(v[0].name, "state.0.momentum_buffer") == 0 && v[0].numel == 4);
    CHECK(v[0].ndim == 2 && v[0].shape[0] == 2 && v[0].flat == &o.state[0]);
    CHECK_EQ_INT(sim_optim_step(&o, r, 0.1, NULL), SIM_OK);
    CHECK_EQ_INT(sim_tensor_download(r, &b.param, out), SIM_OK);
    for (int i = 0; i < 4; i++)
        CHECK_NEAR(out[i], 0.855, 1e-6);
    CHECK_NEAR(out[4], 0.95, 1e-6); // the bias took one step, its first
    CHECK_EQ_INT(o.param_steps[0], 2);
    CHECK_EQ_INT(o.param_steps[1], 1);
    CHECK_EQ_INT(o.steps, 2);
    CHECK_EQ_INT(sim_optim_state_views(&o, v, 4), 2);
    CHECK(strcmp(v[1].name, "state.1.momentum_buffer") == 0 && v[1].offset == 4);
    CHECK_EQ_INT(sim_optim_state_view(&o, 1, 1, v), -1); // SGD has one state kind
    sim_optim_free(&o, r);
    sim_optim_free(&o, r); // twice is safe

    // Plain SGD keeps no state; weight decay: p -= lr * (g + wd * p).
    opt = sgd(0.1, 0.0, 0.5);
    CHECK_EQ_INT(sim_tensor_upload(r, &b.param, p), SIM_OK);
    CHECK_EQ_INT(sim_optim_init(&o, r, &opt, &b.param, &b.grad, info, 2), SIM_OK);
    CHECK_EQ_INT(o.nstate, 0);
    CHECK_EQ_INT(sim_optim_step(&o, r, 0.1, NULL), SIM_OK);
    CHECK_EQ_INT(sim_optim_state_views(&o, v, 4), 0);
    CHECK_EQ_INT(sim_tensor_download(r, &b.param, out), SIM_OK);
    CHECK_NEAR(out[0], 1 - 0.1 * (0.5 + 0.5), 1e-7);
    sim_optim_free(&o, r);
    bufs_free(r, &b);
    return 0;
}

// Adam's first step moves every parameter by about lr * sign(g) (m/sqrt(v)
// after bias correction is g/|g|), whatever the gradient's size.
static int adam_by_hand(SimRank *r) {
    Bufs b;
    SimOptim o;
    SimOptimOptions opt;
    char err[200];
    float p[6] = {1, 2, 3, 4, 5, 6}, g[6] = {1e-3f, -2, 30, -400, 5, -0.5f}, out[6];
    sim_optim_options_default(&opt);
    opt.kind = SIM_OPTIM_ADAM;
    CHECK_EQ_INT(sim_optim_options_validate(&opt, err, sizeof err), SIM_OK);
    CHECK_EQ_INT(bufs_init(r, &b, 6, 0), SIM_OK);
    CHECK_EQ_INT(sim_tensor_upload(r, &b.param, p), SIM_OK);
    CHECK_EQ_INT(sim_tensor_upload(r, &b.grad, g), SIM_OK);
    CHECK_EQ_INT(sim_optim_init(&o, r, &opt, &b.param, &b.grad, info, 2), SIM_OK);
    CHECK_EQ_INT(sim_optim_step(&o, r, 1e-3, NULL), SIM_OK);
    CHECK_EQ_INT(sim_tensor_download(r, &b.param, out), SIM_OK);
    for (int i = 0; i < 6; i++)
        CHECK_NEAR(out[i], p[i] - 1e-3 * (g[i] > 0 ? 1 : -1), 1e-5 * 1e-3 + 1e-6);
    SimOptimStateView v[4];
    CHECK_EQ_INT(sim_optim_state_views(&o, v, 4), 4);
    CHECK(strcmp(v[0].name, "state.0.exp_avg") == 0 && strcmp(v[1].name, "state.0.exp_avg_sq") == 0);
    CHECK(strcmp(v[3].name, "state.1.exp_avg_sq") == 0 && v[3].flat == &o.state[1]);
    float m[6];
    CHECK_EQ_INT(sim_tensor_download(r, &o.state[0], m), SIM_OK);
    CHECK_NEAR(m[3], 0.1 * -400, 1e-4); // exp_avg = (1 - beta1) g
    sim_optim_free(&o, r);
    bufs_free(r, &b);
    return 0;
}

static int clipping(SimRank *r) {
    Bufs b;
    float g[6] = {3, 0, 0, 0, 4, 0}, out[6], norm = 0;
    CHECK_EQ_INT(bufs_init(r, &b, 6, 0), SIM_OK);
    CHECK_EQ_INT(sim_tensor_upload(r, &b.grad, g), SIM_OK);
    CHECK_EQ_INT(sim_clip_grad_norm(r, &b.grad, info, 2, NULL, 1.0, &norm), SIM_OK);
    CHECK(norm == 5.0f); // over both parameters
    CHECK_EQ_INT(sim_tensor_download(r, &b.grad, out), SIM_OK);
    CHECK_NEAR(out[0], 0.6, 1e-6);
    CHECK_NEAR(out[4], 0.8, 1e-6);
    // Below max_norm: unchanged. Without the bias' gradient: only the weight counts.
    const uint8_t only_weight[2] = {1, 0};
    CHECK_EQ_INT(sim_tensor_upload(r, &b.grad, g), SIM_OK);
    CHECK_EQ_INT(sim_clip_grad_norm(r, &b.grad, info, 2, only_weight, 10.0, &norm), SIM_OK);
    CHECK(norm == 3.0f);
    CHECK_EQ_INT(sim_tensor_download(r, &b.grad, out), SIM_OK);
    CHECK(memcmp(out, g, sizeof g) == 0);
    // A non-finite norm is no error (error_if_nonfinite=False): inf -> coef 0.
    g[1] = INFINITY;
    CHECK_EQ_INT(sim_tensor_upload(r, &b.grad, g), SIM_OK);
    CHECK_EQ_INT(sim_clip_grad_norm(r, &b.grad, info, 2, NULL, 1.0, &norm), SIM_OK);
    CHECK(isinf(norm));
    CHECK_EQ_INT(sim_tensor_download(r, &b.grad, out), SIM_OK);
    CHECK(out[0] == 0.0f && isnan(out[1]) && out[4] == 0.0f);
    g[1] = NAN;
    CHECK_EQ_INT(sim_tensor_upload(r, &b.grad, g), SIM_OK);
    CHECK_EQ_INT(sim_clip_grad_norm(r, &b.grad, info, 2, NULL, 1.0, &norm), SIM_OK);
    CHECK(isnan(norm));
    CHECK_EQ_INT(sim_tensor_download(r, &b.grad, out), SIM_OK);
    for (int i = 0; i < 6; i++)
        CHECK(isnan(out[i]));
    bufs_free(r, &b);
    return 0;
}

// unscale -> step (skipped on inf) -> update, and torch's misuse errors.
static int scaler_cycle(SimRank *r) {
    Bufs b;
    SimOptim o;
    SimGradScaler s;
    SimAmpOptions a;
    SimOptimOptions opt = sgd(1.0, 0.0, 0.0);
    float p[6] = {0}, g[6], out[6];
    int stepped = -1;
    sim_amp_options_default(&a);
    a.amp = SIM_FP16;
    a.growth_interval = 2;
    sim_scaler_init(&s, &a, sim_amp_needs_scaler(&a));
    CHECK_EQ_INT(bufs_init(r, &b, 6, 0), SIM_OK);
    CHECK_EQ_INT(sim_tensor_upload(r, &b.param, p), SIM_OK);
    CHECK_EQ_INT(sim_optim_init(&o, r, &opt, &b.param, &b.grad, info, 2), SIM_OK);
    for (int i = 0; i < 6; i++)
        g[i] = 0.25f * sim_scaler_get_scale(&s); // a "backward" of the scaled loss
    CHECK_EQ_INT(sim_tensor_upload(r, &b.grad, g), SIM_OK);
    CHECK_EQ_INT(sim_scaler_unscale(&s, r, &b.grad, info, 2, NULL), SIM_OK);
    CHECK_EQ_INT(sim_tensor_download(r, &b.grad, out), SIM_OK);
    CHECK(out[0] == 0.25f && s.found_inf == 0);
    CHECK_EQ_INT(sim_scaler_unscale(&s, r, &b.grad, info, 2, NULL), SIM_EINVAL);
    // torch.cuda.amp.GradScaler's texts (1.13), word for word
    CHECK(strcmp(r->error, "grad scaler: unscale_() has already been called on this optimizer "
                           "since the last update().") == 0);
    CHECK_EQ_INT(sim_scaler_step(&s, r, &o, 1.0, NULL, &stepped), SIM_OK);
    CHECK_EQ_INT(stepped, 1);
    CHECK_EQ_INT(sim_scaler_step(&s, r, &o, 1.0, NULL, &stepped), SIM_EINVAL);
    CHECK(strcmp(r->error, "grad scaler: step() has already been called since the last "
                           "update().") == 0);
    CHECK_EQ_INT(sim_scaler_unscale(&s, r, &b.grad, info, 2, NULL), SIM_EINVAL);
    CHECK(strcmp(r->error, "grad scaler: unscale_() is being called after step().") == 0);
    CHECK_EQ_INT(sim_scaler_update(&s, r), SIM_OK);
    CHECK(sim_scaler_get_scale(&s) == 65536.0f && s.growth_tracker == 1);
    // Second good step (step() unscales by itself): the scale doubles.
    CHECK_EQ_INT(sim_tensor_upload(r, &b.grad, g), SIM_OK);
    CHECK_EQ_INT(sim_scaler_step(&s, r, &o, 1.0, NULL, &stepped), SIM_OK);
    CHECK_EQ_INT(sim_scaler_update(&s, r), SIM_OK);
    CHECK(sim_scaler_get_scale(&s) == 131072.0f && s.growth_tracker == 0);
    CHECK_EQ_INT(sim_tensor_download(r, &b.param, out), SIM_OK);
    CHECK(out[0] == -0.5f);
    // An inf in the bias' gradient: the step is skipped, the scale backs off.
    g[5] = INFINITY;
    CHECK_EQ_INT(sim_tensor_upload(r, &b.grad, g), SIM_OK);
    CHECK_EQ_INT(sim_scaler_step(&s, r, &o, 1.0, NULL, &stepped), SIM_OK);
    CHECK_EQ_INT(stepped, 0);
    CHECK_EQ_INT(sim_scaler_update(&s, r), SIM_OK);
    CHECK(sim_scaler_get_scale(&s) == 65536.0f && s.skipped == 1);
    CHECK_EQ_INT(sim_tensor_download(r, &b.param, out), SIM_OK);
    CHECK(out[0] == -0.5f && out[5] == -0.5f); // untouched
    CHECK_EQ_INT(sim_scaler_update(&s, r), SIM_EINVAL); // no inf check since
    CHECK(strcmp(r->error, "grad scaler: No inf checks were recorded prior to update.") == 0);
    // Disabled (amp off/bf16): steps even over an inf, scale stays 1.
    a.amp = SIM_BF16;
    sim_scaler_init(&s, &a, sim_amp_needs_scaler(&a));
    CHECK_EQ_INT(sim_scaler_unscale(&s, r, &b.grad, info, 2, NULL), SIM_OK);
    CHECK_EQ_INT(sim_scaler_step(&s, r, &o, 1.0, NULL, &stepped), SIM_OK);
    CHECK_EQ_INT(stepped, 1);
    CHECK_EQ_INT(sim_scaler_update(&s, r), SIM_OK);
    CHECK(sim_scaler_get_scale(&s) == 1.0f);
    CHECK_EQ_INT(sim_tensor_download(r, &b.param, out), SIM_OK);
    CHECK(isinf(out[5]));
    sim_optim_free(&o, r);
    bufs_free(r, &b);
    return 0;
}

// Runs steps [from, to) of a fixed gradient sequence; the bias has no
// gradient before step 2.
static SimStatus run_steps(SimRank *r, SimOptim *o, Bufs *b, int from, int to) {
    for (int s = from; s < to; s++) {
        float g[6];
        const uint8_t has[2] = {1, s >= 2};
        for (int i = 0; i < 6; i++)
            g[i] = (float)((i + 1) * (s % 3 == 0 ? 1 : -1)) * 0.1f;
        SIM_CHECK(sim_tensor_upload(r, &b->grad, g));
        SIM_CHECK(sim_optim_step(o, r, 0.01, has));
    }
    return SIM_OK;
}

// The checkpoint views and step counts are all the state there is: a fresh
// optimizer loaded from them continues exactly as the original.
static int resume(SimRank *r) {
    SimOptimOptions opt;
    char err[200];
    sim_optim_options_default(&opt);
    opt.kind = SIM_OPTIM_ADAMW;
    CHECK_EQ_INT(sim_optim_options_validate(&opt, err, sizeof err), SIM_OK);
    float p0[6] = {1, -2, 3, -4, 5, -6}, a[6], bb[6], flat[2][6], host[2][6] = {{0}};
    Bufs b1, b2;
    SimOptim o1, o2;
    CHECK_EQ_INT(bufs_init(r, &b1, 6, 0), SIM_OK);
    CHECK_EQ_INT(bufs_init(r, &b2, 6, 0), SIM_OK);
    CHECK_EQ_INT(sim_tensor_upload(r, &b1.param, p0), SIM_OK);
    CHECK_EQ_INT(sim_optim_init(&o1, r, &opt, &b1.param, &b1.grad, info, 2), SIM_OK);
    CHECK_EQ_INT(run_steps(r, &o1, &b1, 0, 3), SIM_OK);
    // "Save": parameters, every view, every step count.
    SimOptimStateView v[4];
    CHECK_EQ_INT(sim_optim_state_views(&o1, v, 4), 4);
    for (int k = 0; k < o1.nstate; k++)
        CHECK_EQ_INT(sim_tensor_download(r, &o1.state[k], flat[k]), SIM_OK);
    for (int j = 0; j < 4; j++) {
        int k = v[j].flat == &o1.state[0] ? 0 : 1;
        memcpy(&host[k][v[j].offset], &flat[k][v[j].offset], v[j].numel * sizeof(float));
    }
    CHECK_EQ_INT(sim_tensor_download(r, &b1.param, a), SIM_OK);
    // "Load" into a fresh optimizer.
    CHECK_EQ_INT(sim_tensor_upload(r, &b2.param, a), SIM_OK);
    CHECK_EQ_INT(sim_optim_init(&o2, r, &opt, &b2.param, &b2.grad, info, 2), SIM_OK);
    for (int k = 0; k < o2.nstate; k++)
        CHECK_EQ_INT(sim_tensor_upload(r, &o2.state[k], host[k]), SIM_OK);
    memcpy(o2.param_steps, o1.param_steps, 2 * sizeof *o2.param_steps);
    CHECK(o2.param_steps[0] == 3 && o2.param_steps[1] == 1);
    CHECK_EQ_INT(run_steps(r, &o1, &b1, 3, 6), SIM_OK);
    CHECK_EQ_INT(run_steps(r, &o2, &b2, 3, 6), SIM_OK);
    CHECK_EQ_INT(sim_tensor_download(r, &b1.param, a), SIM_OK);
    CHECK_EQ_INT(sim_tensor_download(r, &b2.param, bb), SIM_OK);
    CHECK(memcmp(a, bb, sizeof a) == 0);
    CHECK(memcmp(a, p0, sizeof a) != 0);
    sim_optim_free(&o1, r);
    sim_optim_free(&o2, r);
    bufs_free(r, &b1);
    bufs_free(r, &b2);
    return 0;
}

// Phantom tensors: state without storage, every call still runs.
static int phantom(SimRank *r) {
    Bufs b;
    SimOptim o;
    SimOptimOptions opt;
    char err[200];
    float norm = -1;
    sim_optim_options_default(&opt);
    opt.kind = SIM_OPTIM_ADAMW;
    CHECK_EQ_INT(sim_optim_options_validate(&opt, err, sizeof err), SIM_OK);
    CHECK_EQ_INT(bufs_init(r, &b, 6, 1), SIM_OK);
    CHECK(b.param.data == NULL);
    CHECK_EQ_INT(sim_optim_init(&o, r, &opt, &b.param, &b.grad, info, 2), SIM_OK);
    CHECK(o.nstate == 2 && o.state[0].data == NULL && o.state[1].data == NULL);
    CHECK_EQ_INT(sim_clip_grad_norm(r, &b.grad, info, 2, NULL, 1.0, &norm), SIM_OK);
    CHECK(norm == 0.0f);
    CHECK_EQ_INT(sim_optim_step(&o, r, 1e-3, NULL), SIM_OK);
    CHECK_EQ_INT(o.param_steps[1], 1);
    sim_optim_free(&o, r);
    // A parameter table that does not fit the buffers is refused.
    SimParamInfo too_big = {"x", 1, {7}, 0, 7};
    CHECK_EQ_INT(sim_optim_init(&o, r, &opt, &b.param, &b.grad, &too_big, 1), SIM_EINVAL);
    sim_optim_free(&o, r);
    return 0;
}

// dweight[OC=2, C=3] of a Linear layer over N=2 samples with every input 1
// and every output gradient d: each element is N * d = 2d.
static SimStatus weight_grad(SimRank *r, float d, SimDtype amp, float out[6]) {
    int64_t s_inp[2] = {2, 3}, s_w[2] = {2, 3}, s_out[2] = {2, 2};
    SimTensor inp, w, dw, dout;
    sim_tensor_init(&inp, "inp", SIM_FP32, 2, s_inp);
    sim_tensor_init(&w, "weight", SIM_FP32, 2, s_w);
    sim_tensor_init(&dw, "dweight", SIM_FP32, 2, s_w);
    sim_tensor_init(&dout, "dout", SIM_FP32, 2, s_out);
    float ones[6] = {1, 1, 1, 1, 1, 1}, zeros[6] = {0}, ds[4] = {d, d, d, d};
    SimStatus st = SIM_OK;
    SimTensor *all[4] = {&inp, &w, &dw, &dout};
    for (int i = 0; i < 4 && st == SIM_OK; i++)
        st = sim_tensor_alloc(r, all[i], 0);
    if (st == SIM_OK && (st = sim_tensor_upload(r, &inp, ones)) == SIM_OK &&
        (st = sim_tensor_upload(r, &w, ones)) == SIM_OK &&
        (st = sim_tensor_upload(r, &dw, zeros)) == SIM_OK &&
        (st = sim_tensor_upload(r, &dout, ds)) == SIM_OK &&
        (st = sim_op_linear_backward(r, NULL, &dw, NULL, &dout, &inp, &w, amp)) == SIM_OK)
        st = sim_tensor_download(r, &dw, out);
    for (int i = 0; i < 4; i++)
        sim_tensor_free(r, all[i]);
    return st;
}

static int underflow(SimRank *r) {
    float g[6];
    const float tiny = 1e-8f;
    CHECK_EQ_INT(weight_grad(r, tiny, SIM_FP32, g), SIM_OK);
    CHECK_NEAR(g[0], 2e-8, 2e-8 * 1e-6); // fp32: fine
    CHECK_EQ_INT(weight_grad(r, tiny, SIM_FP16, g), SIM_OK);
    CHECK(g[0] == 0.0f && g[5] == 0.0f); // fp16 without scaling: lost
    // With the scaler: backward of loss * 65536, then unscale_ in fp32.
    SimAmpOptions a;
    SimGradScaler s;
    sim_amp_options_default(&a);
    a.amp = SIM_FP16;
    sim_scaler_init(&s, &a, 1);
    CHECK_EQ_INT(weight_grad(r, tiny * sim_scaler_get_scale(&s), SIM_FP16, g), SIM_OK);
    CHECK(g[0] > 0.0f);
    SimParamInfo one = {"dweight", 1, {6}, 0, 6};
    int64_t shape[1] = {6};
    SimTensor t;
    sim_tensor_init(&t, "grad", SIM_FP32, 1, shape);
    CHECK_EQ_INT(sim_tensor_alloc(r, &t, 0), SIM_OK);
    CHECK_EQ_INT(sim_tensor_upload(r, &t, g), SIM_OK);
    CHECK_EQ_INT(sim_scaler_unscale(&s, r, &t, &one, 1, NULL), SIM_OK);
    CHECK_EQ_INT(sim_tensor_download(r, &t, g), SIM_OK);
    sim_tensor_free(r, &t);
    CHECK(s.found_inf == 0);
    CHECK_NEAR(g[0], 2e-8, 2e-8 * 1e-3); // survives, within fp16's 2^-11 rounding
    // bf16 keeps fp32's exponent range: 1e-8 survives without a scaler.
    CHECK_EQ_INT(weight_grad(r, tiny, SIM_BF16, g), SIM_OK);
    CHECK_NEAR(g[0], 2e-8, 2e-8 * 1e-2);
    return 0;
}

static SimStatus rank_main(SimRank *r, void *arg) {
    int *failures = arg;
#define T(fn)                                                                                  \
    do {                                                                                       \
        int rc_ = fn(r);                                                                       \
        printf("%s %s\n", rc_ == 0 ? "ok    " : "FAILED", #fn);                                \
        if (rc_)                                                                               \
            fprintf(stderr, "  rank error: %s\n", r->error);                                   \
        *failures += rc_ != 0;                                                                 \
    } while (0)
    T(sgd_by_hand);
    T(adam_by_hand);
    T(clipping);
    T(scaler_cycle);
    T(resume);
    T(phantom);
    T(underflow);
#undef T
    return SIM_OK;
}

int main(void) {
    int failures = 0;
    if (tworld_run_cpu(1, 0, rank_main, &failures) != SIM_OK)
        return 1;
    return failures ? 1 : 0;
}
