// sim/base/torch_gen.c: mt19937 and the draws PyTorch makes from it (see
// torch_gen.h for what each one is and where PyTorch defines it).
#include "base/torch_gen.h"

#include <math.h>

#define MT_M 397
#define MT_MATRIX_A 0x9908b0dfu
#define MT_UPPER 0x80000000u
#define MT_LOWER 0x7fffffffu

const char *sim_rng_name(SimRngKind k) {
    return k == SIM_RNG_TORCH ? "torch" : "ddplab";
}

void sim_torchgen_seed(SimTorchGen *g, uint64_t seed) {
    g->state[0] = (uint32_t)(seed & 0xffffffffu);
    for (uint32_t j = 1; j < SIM_TORCHGEN_N; j++) {
        uint32_t p = g->state[j - 1];
        g->state[j] = 1812433253u * (p ^ (p >> 30)) + j;
    }
    g->next = SIM_TORCHGEN_N;
    g->has_normal = 0;
    g->normal = 0.0;
}

// The twist: all 624 words at once, each from its successor's low bits and
// the word 397 places on.
static void twist(SimTorchGen *g) {
    uint32_t *s = g->state;
    for (int i = 0; i < SIM_TORCHGEN_N; i++) {
        uint32_t y = (s[i] & MT_UPPER) | (s[(i + 1) % SIM_TORCHGEN_N] & MT_LOWER);
        s[i] = s[(i + MT_M) % SIM_TORCHGEN_N] ^ (y >> 1) ^ ((y & 1u) ? MT_MATRIX_A : 0u);
    }
    g->next = 0;
}

uint32_t sim_torchgen_random(SimTorchGen *g) {
    if (g->next >= SIM_TORCHGEN_N)
        twist(g);
    uint32_t y = g->state[g->next++];
    y ^= y >> 11;
    y ^= (y << 7) & 0x9d2c5680u;
    y ^= (y << 15) & 0xefc60000u;
    return y ^ (y >> 18);
}

uint64_t sim_torchgen_random64(SimTorchGen *g) {
    uint64_t hi = sim_torchgen_random(g);
    return (hi << 32) | sim_torchgen_random(g);
}

float sim_torchgen_uniform_f32(SimTorchGen *g, float from, float to) {
    // float's 24 significand bits; every step in float, as PyTorch's
    // dist_acctype<float> is float on the CPU. PyTorch's kernel is built
    // for AVX2 with FMA, and the compiler fuses x * (to - from) + from into
    // one rounding: against torch 1.13, fmaf matches 208,502 of 208,502
    // draws, two roundings miss 108,150 of them (build/tests/test_torch_gen
    // torch).
    float x = (float)(sim_torchgen_random(g) & 0xffffffu) * (1.0f / 16777216.0f);
    return fmaf(x, to - from, from);
}

void sim_torchgen_randperm(SimTorchGen *g, int64_t n, int64_t *out) {
    for (int64_t i = 0; i < n; i++)
        out[i] = i;
    for (int64_t i = 0; i + 1 < n; i++) {
        int64_t z = (int64_t)(sim_torchgen_random(g) % (uint64_t)(n - i));
        int64_t t = out[i];
        out[i] = out[z + i];
        out[z + i] = t;
    }
}
