// sim/model/model_init.c: initial parameter values. The distributions are
// PyTorch's defaults for each module (see sim_model_init in model.h); the
// numbers come from ddplab's own seeded generator (splitmix64) or, with
// sim_model_init_torch, from PyTorch's (base/torch_gen.h), drawn on the host
// in parameter-table order (the order in which PyTorch's constructors draw)
// and uploaded one parameter at a time, so a given seed gives the same model
// on every backend and every rank.
#include "model/model_impl.h"

#include <math.h>
#include <stdlib.h>

// splitmix64: small, fast, and every seed (0 included) gives a good stream.
static uint64_t next_u64(uint64_t *s) {
    uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

// Uniform in [0, 1) with 53 random bits.
static double next_unit(uint64_t *s) {
    return (double)(next_u64(s) >> 11) * 0x1.0p-53;
}

static float *host_values(SimRank *r, size_t n) {
    float *h = malloc((n ? n : 1) * sizeof *h);
    if (!h)
        sim_model_fail(r, "model init: out of memory for %zu values", n);
    return h;
}

SimStatus sim_model_init_uniform(SimRank *r, SimModel *m, int i, float bound, SimModelRng *rng) {
    if (m->impl->phantom)
        return SIM_OK; // no values to draw (and no op: an upload is not traced)
    size_t n = m->params[i].numel;
    float *h = host_values(r, n);
    if (!h)
        return SIM_ENOMEM;
    for (size_t k = 0; k < n; k++)
        h[k] = rng->kind == SIM_RNG_TORCH
                   ? sim_torchgen_uniform_f32(&rng->torch, -bound, bound)
                   : (float)((double)bound * (2.0 * next_unit(&rng->split) - 1.0));
    SimStatus st = sim_tensor_upload(r, &m->impl->pv[i], h);
    free(h);
    return st;
}

// ddplab's normals: Box-Muller on splitmix64, both outputs used.
static void splitmix_normal(float *h, size_t n, float stddev, uint64_t *split) {
    const double two_pi = 6.283185307179586476925;
    for (size_t k = 0; k < n; k += 2) {
        double u1 = 1.0 - next_unit(split); // (0, 1]: log is finite
        double u2 = next_unit(split);
        double rad = sqrt(-2.0 * log(u1));
        h[k] = (float)(stddev * rad * cos(two_pi * u2));
        if (k + 1 < n)
            h[k + 1] = (float)(stddev * rad * sin(two_pi * u2));
    }
}

SimStatus sim_model_init_normal(SimRank *r, SimModel *m, int i, float stddev, SimModelRng *rng) {
    if (m->impl->phantom)
        return SIM_OK;
    size_t n = m->params[i].numel;
    float *h = host_values(r, n);
    if (!h)
        return SIM_ENOMEM;
    if (rng->kind == SIM_RNG_TORCH)
        sim_torchgen_normal_f32(&rng->torch, h, (int64_t)n, 0.0f, stddev);
    else
        splitmix_normal(h, n, stddev, &rng->split);
    SimStatus st = sim_tensor_upload(r, &m->impl->pv[i], h);
    free(h);
    return st;
}

float sim_model_linear_bound(int fan_in, const SimModelRng *rng) {
    if (rng->kind != SIM_RNG_TORCH)
        return (float)(1.0 / sqrt((double)fan_in));
    double a = sqrt(5.0);
    double gain = sqrt(2.0 / (1.0 + a * a));
    double std = gain / sqrt((double)fan_in);
    return (float)(sqrt(3.0) * std);
}

SimStatus sim_model_init_const(SimRank *r, SimModel *m, int i, float value) {
    return sim_op_fill(r, &m->param, m->params[i].offset, m->params[i].numel, value);
}

SimStatus sim_model_init_buffer_const(SimRank *r, SimModel *m, int i, float value) {
    return sim_op_fill(r, &m->buffer, m->buffers[i].offset, m->buffers[i].numel, value);
}

// A phantom model has no values to draw, but runs the same constant fills
// (traced ops on the compute clock) as a numeric one, so that both modes
// trace the same set-up; the random draws are skipped. A model that only
// exists in phantom mode has no numeric run to mirror.
static SimStatus init_with(SimRank *r, SimModel *m, SimModelRng *rng) {
    if (m->impl->phantom && sim_model_spec_phantom_only(&m->spec) != NULL)
        return SIM_OK;
    if (m->spec.kind == SIM_MODEL_GPT)
        return sim_model_gpt_init(r, m, rng);
    return sim_model_mlp_init(r, m, rng);
}

SimStatus sim_model_init(SimRank *r, SimModel *m, uint64_t seed) {
    SimModelRng rng = {.kind = SIM_RNG_DDPLAB, .split = seed};
    return init_with(r, m, &rng);
}

SimStatus sim_model_init_torch(SimRank *r, SimModel *m, uint64_t seed) {
    // 2.5 KB of generator state: on the heap, not on a rank thread's stack.
    SimModelRng *rng = malloc(sizeof *rng);
    if (!rng)
        return sim_model_fail(r, "model init: out of memory for the generator");
    rng->kind = SIM_RNG_TORCH;
    rng->split = 0;
    sim_torchgen_seed(&rng->torch, seed);
    SimStatus st = init_with(r, m, rng);
    free(rng);
    return st;
}
