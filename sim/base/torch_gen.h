// sim/base/torch_gen.h: PyTorch's CPU random generator, number for number
// (version 1.13: aten/src/ATen/core/MT19937RNGEngine.h, CPUGeneratorImpl.cpp,
// core/TransformationHelper.h), so that a run can draw the same initial
// weights and the same shuffles as a script that calls torch.manual_seed.
//
// The engine is the 32-bit Mersenne Twister mt19937 (Matsumoto and
// Nishimura 1998): 624 words of state seeded from the low 32 bits of the
// seed by state[j] = 1812433253 * (state[j-1] ^ (state[j-1] >> 30)) + j.
// torch.manual_seed(S) and torch.Generator().manual_seed(S) both reseed
// it so. What PyTorch makes of its outputs:
//   random()    one 32-bit output
//   random64()  two outputs, the first as the high half
//   uniform_    on a float32 tensor, element by element in memory order:
//               (u & (2^24 - 1)) * 2^-24 in float, times (to - from), plus
//               from, with from and to rounded to float first
//   randperm(n) start from 0..n-1; for i = 0 .. n-2 swap element i with
//               element i + random() % (n - i)
//   normal_     Box-Muller, on a float32 tensor of 16 or more elements by
//               blocks of 16 with the vectorised kernel's own log, sin and
//               cos (torch_gen_normal.c), below that one value at a time
// Who uses which: sim/model (nn.Linear's and nn.Embedding's default
// initialisation) and sim/data (DistributedSampler's torch.randperm) under
// `--rng torch`.
#ifndef DDPLAB_SIM_TORCH_GEN_H
#define DDPLAB_SIM_TORCH_GEN_H

#include <stdint.h>

// Which generator a run draws its weights and shuffles from: ddplab's own
// (splitmix64, the default) or PyTorch's (this file).
typedef enum { SIM_RNG_DDPLAB = 0, SIM_RNG_TORCH } SimRngKind;

// "ddplab" or "torch".
const char *sim_rng_name(SimRngKind k);

#define SIM_TORCHGEN_N 624

typedef struct {
    uint32_t state[SIM_TORCHGEN_N];
    int next;       // index of the next word to temper; SIM_TORCHGEN_N: regenerate first
    int has_normal; // 1: `normal` is the scalar normal_ path's second value, kept
    double normal;  // for its next draw (PyTorch's next_double_normal_sample_)
} SimTorchGen;

// torch.manual_seed(seed): only the low 32 bits of seed matter, as in PyTorch.
void sim_torchgen_seed(SimTorchGen *g, uint64_t seed);
uint32_t sim_torchgen_random(SimTorchGen *g);
uint64_t sim_torchgen_random64(SimTorchGen *g);
// One element of Tensor.uniform_(from, to) on a float32 tensor.
float sim_torchgen_uniform_f32(SimTorchGen *g, float from, float to);
// torch.randperm(n, generator=g) into out[n] (n >= 0).
void sim_torchgen_randperm(SimTorchGen *g, int64_t n, int64_t *out);
// Tensor.normal_(mean, std) on a contiguous float32 tensor out[n]: the
// vectorised path for n >= 16, the scalar one below (torch_gen_normal.c).
void sim_torchgen_normal_f32(SimTorchGen *g, float *out, int64_t n, float mean, float std);

#endif
