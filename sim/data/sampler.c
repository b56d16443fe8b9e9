// sim/data/sampler.c: the distributed sampler, its batches, and the splitmix64
// generator behind every shuffle (see sampler.h for the semantics, which
// follow torch.utils.data.DistributedSampler line by line).
#include "data/sampler.h"

#include <stdlib.h>
#include <string.h>

#include "base/errbuf.h" // defines: sim_errbuf_fail

// ----------------------------------------------------------------------------
// splitmix64 (Steele, Lea and Flood, "Fast splittable pseudorandom number
// generators", 2014): a 64-bit counter stepped by the golden gamma and
// hashed by a fixed mixer. Small, fast, and every seed is a good seed.

#define SPLITMIX_GAMMA 0x9E3779B97F4A7C15ull

void sim_splitmix_seed(SimSplitMix *g, uint64_t seed) {
    g->state = seed;
}

uint64_t sim_splitmix_next(SimSplitMix *g) {
    uint64_t z = (g->state += SPLITMIX_GAMMA);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

uint64_t sim_splitmix_below(SimSplitMix *g, uint64_t bound) {
    if (bound <= 1)
        return 0;
    // Outputs below `threshold` would make the low residues more likely:
    // 2^64 mod bound of them are redrawn.
    uint64_t threshold = (0 - bound) % bound;
    for (;;) {
        uint64_t r = sim_splitmix_next(g);
        if (r >= threshold)
            return r % bound;
    }
}

double sim_splitmix_unit(SimSplitMix *g) {
    return (double)(sim_splitmix_next(g) >> 11) * 0x1.0p-53;
}

void sim_sampler_permutation(int64_t n, uint64_t seed, int64_t *out) {
    SimSplitMix g;
    sim_splitmix_seed(&g, seed);
    for (int64_t i = 0; i < n; i++)
        out[i] = i;
    for (int64_t i = n - 1; i > 0; i--) {
        int64_t j = (int64_t)sim_splitmix_below(&g, (uint64_t)i + 1);
        int64_t t = out[i];
        out[i] = out[j];
        out[j] = t;
    }
}

// ----------------------------------------------------------------------------
// sizes

int64_t sim_sampler_num_samples(int64_t n, int r, int drop_last) {
    if (n <= 0 || r < 1)
        return 0;
    if (drop_last && n % r != 0)
        return n / r; // ceil((N - R) / R): the largest multiple of R below N, over R
    return (n + r - 1) / r;
}

int64_t sim_sampler_batches_of(int64_t m, int b, int drop_last_batch) {
    if (m <= 0 || b < 1)
        return 0;
    return drop_last_batch ? m / b : (m + b - 1) / b;
}

// ----------------------------------------------------------------------------
// the sampler

void sim_sampler_defaults(SimSamplerConfig *cfg, int64_t n) {
    memset(cfg, 0, sizeof *cfg);
    cfg->n = n;
    cfg->num_replicas = 1;
    cfg->rank = 0;
    cfg->distributed = 1;
    cfg->shuffle = 1;
    cfg->seed = 0;
    cfg->drop_last = 0;
    cfg->batch_size = 1;
    cfg->drop_last_batch = 0;
}

SimStatus sim_sampler_init(SimSampler *s, const SimSamplerConfig *cfg, char *err,
                           size_t errlen) {
    if (s == NULL || cfg == NULL)
        return sim_errbuf_fail(err, errlen, SIM_EINVAL, "no configuration");
    memset(s, 0, sizeof *s);
    if (cfg->n < 0)
        return sim_errbuf_fail(err, errlen, SIM_EINVAL, "dataset size %lld is negative",
                               (long long)cfg->n);
    if (cfg->num_replicas < 1)
        return sim_errbuf_fail(err, errlen, SIM_EINVAL, "num_replicas %d must be at least 1",
                               cfg->num_replicas);
    if (cfg->rank < 0 || cfg->rank >= cfg->num_replicas)
        return sim_errbuf_fail(err, errlen, SIM_EINVAL, "invalid rank %d, rank should be in 0..%d",
                               cfg->rank, cfg->num_replicas - 1);
    if (cfg->batch_size < 1)
        return sim_errbuf_fail(err, errlen, SIM_EINVAL, "batch size %d must be at least 1",
                               cfg->batch_size);
    if ((uint64_t)cfg->n > SIZE_MAX / sizeof(int64_t) / 2)
        return sim_errbuf_fail(err, errlen, SIM_EINVAL, "dataset size %lld is too large",
                               (long long)cfg->n);
    s->cfg = *cfg;
    if (cfg->distributed) {
        s->num_samples = sim_sampler_num_samples(cfg->n, cfg->num_replicas, cfg->drop_last);
        s->total_size = s->num_samples * cfg->num_replicas;
    } else {
        s->num_samples = cfg->n;
        s->total_size = cfg->n;
    }
    s->num_batches = sim_sampler_batches_of(s->num_samples, cfg->batch_size,
                                            cfg->drop_last_batch);
    s->order = malloc((size_t)(s->num_samples > 0 ? s->num_samples : 1) * sizeof(int64_t));
    if (cfg->shuffle)
        s->perm = malloc((size_t)(cfg->n > 0 ? cfg->n : 1) * sizeof(int64_t));
    int torch_gen = cfg->shuffle && cfg->rng == SIM_RNG_TORCH;
    if (torch_gen)
        s->gen = malloc(sizeof *s->gen);
    if (s->order == NULL || (cfg->shuffle && s->perm == NULL) || (torch_gen && !s->gen)) {
        sim_sampler_free(s);
        sim_errbuf_fail(err, errlen, SIM_EINVAL, "out of memory for %lld indices",
                        (long long)cfg->n);
        return SIM_ENOMEM;
    }
    sim_sampler_set_epoch(s, 0);
    return SIM_OK;
}

void sim_sampler_set_epoch(SimSampler *s, int64_t epoch) {
    const SimSamplerConfig *c = &s->cfg;
    s->epoch = epoch;
    if (c->n == 0)
        return;
    uint64_t seed = (uint64_t)c->seed + (uint64_t)epoch;
    if (c->shuffle && s->gen) {
        sim_torchgen_seed(s->gen, seed); // DistributedSampler: a fresh torch.Generator
        sim_torchgen_randperm(s->gen, c->n, s->perm);
    } else if (c->shuffle) {
        sim_sampler_permutation(c->n, seed, s->perm);
    }
    // Position j of the padded (or cut) order is base[j % N], base being the
    // permutation or the identity; this rank takes j = rank, rank + R, ...
    int64_t step = c->distributed ? c->num_replicas : 1;
    int64_t j = c->distributed ? c->rank : 0;
    for (int64_t k = 0; k < s->num_samples; k++, j += step) {
        int64_t p = j % c->n;
        s->order[k] = c->shuffle ? s->perm[p] : p;
    }
}

int sim_sampler_batch(const SimSampler *s, int64_t b, const int64_t **idx) {
    if (b < 0 || b >= s->num_batches) {
        *idx = NULL;
        return 0;
    }
    int64_t first = b * s->cfg.batch_size;
    int64_t left = s->num_samples - first;
    *idx = s->order + first;
    return (int)(left < s->cfg.batch_size ? left : s->cfg.batch_size);
}

void sim_sampler_free(SimSampler *s) {
    if (s == NULL)
        return;
    free(s->order);
    free(s->perm);
    free(s->gen);
    memset(s, 0, sizeof *s);
}
